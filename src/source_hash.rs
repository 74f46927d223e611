// What the scan cache's `CANARY_SOURCE_SHA256` is the hash of: every file
// under `src/` and `policies/`, and `Cargo.lock`. build.rs computes it with
// `include!` of this file, and a unit test (compiled into the library under
// `cfg(test)` only) recomputes it from the tree to check the value embedded.
// Plain comments, not `//!`: an included file cannot hold inner attributes.

/// The source files, sorted, as (path from the crate root, bytes).
pub fn source_files(root: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    fn tree(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<(String, Vec<u8>)>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                tree(root, &p, out);
            } else if let Ok(bytes) = std::fs::read(&p) {
                let rel = p.strip_prefix(root).unwrap_or(&p);
                out.push((rel.to_string_lossy().replace('\\', "/"), bytes));
            }
        }
    }
    let mut files = Vec::new();
    for d in ["src", "policies"] {
        tree(root, &root.join(d), &mut files);
    }
    if let Ok(lock) = std::fs::read(root.join("Cargo.lock")) {
        files.push(("Cargo.lock".into(), lock));
    }
    files.sort();
    files
}

/// The hex sha256 of the files: each path, a NUL, its length, its bytes.
pub fn source_sha256(files: &[(String, Vec<u8>)]) -> String {
    use sha2::Digest as _;
    let mut h = sha2::Sha256::new();
    for (path, bytes) in files {
        h.update(path.as_bytes());
        h.update([0]);
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}
