//! Package artifacts end to end: real and synthetic fixtures, hostile archives.

use std::io::Write;

use crate::{code, fixture, json, Canary};

fn tar_gz(entries: &[(&str, &[u8])], raw_names: bool) -> Vec<u8> {
    let mut b = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::fast(),
    ));
    for (name, data) in entries {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_entry_type(tar::EntryType::Regular);
        if raw_names {
            // Write the name bytes directly: the tar crate refuses `..` itself.
            let n = name.as_bytes();
            h.as_old_mut().name[..n.len()].copy_from_slice(n);
        } else {
            h.set_path(name).unwrap();
        }
        h.set_cksum();
        b.append(&h, *data).unwrap();
    }
    b.into_inner().unwrap().finish().unwrap()
}

fn scan_bytes(c: &Canary, name: &str, bytes: &[u8]) -> (i32, serde_json::Value) {
    let p = c.dir.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    let o = c.run(&["scan", "--format", "json", p.to_str().unwrap()]);
    (code(&o), json(&o))
}

#[test]
fn synthetic_malicious_packages_are_blocked() {
    let c = Canary::new();
    for f in [
        "string-padder-2.0.1.tgz",
        "requestz-2.31.0.tar.gz",
        "colour_tools-0.3.0-py3-none-any.whl",
        "tinyfmt-1.0.1.tar.gz",
    ] {
        let p = fixture(&format!("packages/malicious/{f}"));
        let o = c.run(&[
            "scan",
            "--local-only",
            "--format",
            "json",
            p.to_str().unwrap(),
        ]);
        let r = json(&o);
        assert_eq!(r["decision"], "block", "{f}: {r:#}");
        assert!(code(&o) == 1 || code(&o) == 2, "{f}: exit {}", code(&o));
        assert_eq!(r["input"]["kind"], "package");
        assert_eq!(r["policies"][0]["id"], "malicious-package");
    }
}

#[test]
fn traversal_absolute_and_nul_members_block_naming_the_member() {
    let c = Canary::new();
    for (name, why) in [("pkg/../../evil.sh", "`..`"), ("/etc/cron.d/x", "absolute")] {
        let (code, r) = scan_bytes(
            &c,
            "t.tar.gz",
            &tar_gz(&[("pkg/setup.py", b"x"), (name, b"y")], true),
        );
        assert_eq!(code, 2, "{r:#}");
        assert_eq!(r["reason"], "input-error");
        let e = r["error"].as_str().unwrap();
        assert!(e.contains(name) && e.contains(why), "{e}");
    }
}

#[test]
fn truncated_gzip_is_blocked() {
    let c = Canary::new();
    let full = std::fs::read(fixture("packages/benign/six-1.16.0.tar.gz")).unwrap();
    let (code, r) = scan_bytes(&c, "cut.tar.gz", &full[..full.len() / 2]);
    assert_eq!(code, 2);
    assert_eq!(r["reason"], "input-error");
}

#[test]
fn zip_bomb_is_blocked_by_the_ratio_cap() {
    let c = Canary::new();
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    z.start_file("pkg/data.bin", zip::write::SimpleFileOptions::default())
        .unwrap();
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..1024 {
        z.write_all(&zeros).unwrap();
    }
    let bytes = z.finish().unwrap().into_inner();
    let (code, r) = scan_bytes(&c, "bomb.zip", &bytes);
    assert_eq!(code, 2, "{r:#}");
    let e = r["error"].as_str().unwrap();
    assert!(e.contains("limit hit"), "{e}");
}

#[test]
fn too_many_entries_are_blocked() {
    let c = Canary::new();
    let names: Vec<String> = (0..60_000).map(|i| format!("pkg/f{i}.txt")).collect();
    let entries: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b""[..])).collect();
    let (code, r) = scan_bytes(&c, "many.tar.gz", &tar_gz(&entries, false));
    assert_eq!(code, 2);
    assert!(r["error"].as_str().unwrap().contains("max-members"));
}
