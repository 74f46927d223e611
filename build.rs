//! Embeds the shipped pre-check models (`models/NAME/{config.json,
//! model.safetensors,manifest.json}`) into the binary, so `builtin:NAME`
//! works from any directory and offline. A model folder that is missing a
//! file is not embedded, and `builtin:NAME` then fails closed at load time.
//!
//! The sha256 of each model's weights and config is computed here, from the
//! very bytes embedded, so loading a built-in checks them against its
//! manifest without hashing 4 MB on every run.
//!
//! It also hashes the library's source (`src/`, `policies/`, `Cargo.lock`)
//! into `CANARY_SOURCE_SHA256`, which the scan cache keys on: the crate's
//! version number does not change when rendering or the gate does, and a
//! decision cached by an older build must not outlive the code that made it.
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

include!("src/source_hash.rs");

fn source_hash(root: &Path) {
    for d in ["src", "policies", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={d}");
    }
    let files = source_files(root);
    println!(
        "cargo:rustc-env=CANARY_SOURCE_SHA256={}",
        source_sha256(&files)
    );
}

fn main() {
    // The crate being built, read when the script runs: `env!` would fix
    // the folder the script was compiled for, and cargo reuses a compiled
    // build script for a checkout elsewhere that shares the target folder
    // (a worktree): that embedded no models once its folder was deleted,
    // and would hash another tree's source into the cache key.
    let manifest_dir =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    source_hash(&manifest_dir);
    println!("cargo:rerun-if-changed=models");
    let root = manifest_dir.join("models");
    let mut entries = Vec::new();
    if let Ok(dir) = std::fs::read_dir(&root) {
        for e in dir.flatten() {
            let p = e.path();
            let files = ["config.json", "model.safetensors", "manifest.json"];
            if p.is_dir() && files.iter().all(|f| p.join(f).is_file()) {
                for f in files {
                    println!("cargo:rerun-if-changed={}", p.join(f).display());
                }
                entries.push((e.file_name().to_string_lossy().into_owned(), p));
            }
        }
    }
    // A tree without a single model builds a binary whose every built-in
    // reference fails: refuse it here rather than ship it.
    assert!(
        !entries.is_empty(),
        "no model folder with config.json, model.safetensors and manifest.json under {}",
        root.display()
    );
    entries.sort();
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let mut code = String::from(
        "pub static EMBEDDED_MODELS: &[(&str, &[u8], &[u8], &[u8], &str, &str)] = &[\n",
    );
    for (name, p) in &entries {
        // Each file is read once, hashed, and written to OUT_DIR, and that
        // copy is what gets embedded: the hash is of the embedded bytes even
        // if the model folder changes while the crate builds.
        let embed = |f: &str| {
            let bytes = std::fs::read(p.join(f)).expect("reading a model file to embed");
            let copy = out.join(format!("{name}-{f}"));
            std::fs::write(&copy, &bytes).expect("writing a model file to OUT_DIR");
            (
                format!("include_bytes!({:?})", copy.display().to_string()),
                hex(&Sha256::digest(&bytes)),
            )
        };
        let (config, config_sha) = embed("config.json");
        let (weights, weights_sha) = embed("model.safetensors");
        let (manifest, _) = embed("manifest.json");
        let _ = writeln!(
            code,
            "    ({name:?}, {config}, {weights}, {manifest}, {weights_sha:?}, {config_sha:?}),"
        );
    }
    code.push_str("];\n");
    std::fs::write(out.join("embedded_models.rs"), code).unwrap();
}
