//! Hostile package files, end to end: the bytes are written as a package
//! file, read and rendered the way `canary scan` reads it (the streamed
//! path, or the diff path against a second archive), and judged with the
//! built-in `malicious-package` gate, local-only.
//!
//! What must hold for every input: nothing panics; a package that could
//! not be read, holds code no reader can judge, or may not be allowed on
//! the pre-check's scores alone, is blocked; and reading
//! and judging it again gives the same text and the same report.
//!
//! The first byte picks how the rest is packed. Compressed formats are
//! mostly built here from the fuzzer's bytes (a tar the harness gzips), so
//! that mutations land on the tar and zip structures, not on a checksum
//! that rejects them; raw compressed streams are fed too.
#![no_main]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use canary::config::{Config, Limits};
use canary::coordinator::Coordinator;
use canary::input::render::render_package;
use canary::policy::PolicySet;
use canary::report::Decision;
use libfuzzer_sys::fuzz_target;

struct Harness {
    coordinator: Coordinator,
    dir: PathBuf,
    limits: Limits,
}

fn harness() -> &'static Harness {
    static H: OnceLock<Harness> = OnceLock::new();
    H.get_or_init(|| {
        let set = PolicySet::load(&[]).expect("built-in policies");
        let policy = set.resolve("malicious-package").expect("built-in policy");
        let coordinator = canary::cli::build_coordinator(Config::default(), &[policy], true)
            .expect("coordinator");
        let dir = std::env::temp_dir().join(format!("canary-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        // Small caps: the fuzzer should spend its time on structure, not on
        // inflating bombs (the bomb tests cover the caps themselves).
        let limits = Limits {
            max_input_bytes: 4 << 20,
            max_total_bytes: 16 << 20,
            max_member_bytes: 4 << 20,
            max_members: 4_000,
            max_ratio: 200,
            max_nesting: 1,
        };
        Harness {
            coordinator,
            dir,
            limits,
        }
    })
}

fn gzip(b: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(b).unwrap();
    e.finish().unwrap()
}

fn bzip(b: &[u8]) -> Vec<u8> {
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    e.write_all(b).unwrap();
    e.finish().unwrap()
}

/// The package file for selector `sel`: its name and bytes.
fn pack(sel: u8, body: &[u8]) -> (&'static str, Vec<u8>) {
    match sel % 9 {
        0 => ("pkg-1.0.tar.gz", gzip(body)),
        1 => ("pkg-1.0.tar.gz", body.to_vec()),
        2 => ("pkg-1.0.tar", body.to_vec()),
        3 => ("pkg-1.0.zip", body.to_vec()),
        4 => ("pkg-1.0-py3-none-any.whl", body.to_vec()),
        5 => ("pkg-1.0.tgz", gzip(body)),
        6 => ("pkg-1.0.tar.bz2", bzip(body)),
        7 => ("pkg-1.0.tar.bz2", body.to_vec()),
        // No extension: the format is sniffed from the bytes.
        _ => ("pkg-blob", gzip(body)),
    }
}

fn write(dir: &Path, sub: &str, name: &str, bytes: &[u8]) -> PathBuf {
    let d = dir.join(sub);
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    let h = harness();
    // Selector's high bit: a version diff, the body cut in two where its
    // second byte says.
    let (base, new) = if sel & 0x80 != 0 && body.len() >= 2 {
        let cut = 1 + (body[0] as usize * (body.len() - 1)) / 255;
        let (old, new) = body[1..].split_at(cut.min(body.len() - 1) - 1);
        let (name, bytes) = pack(sel >> 4, old);
        // An older release, so that a wheel's own folders
        // (`pkg-0.9.dist-info/`) pair with the new one's.
        let name = name.replace("1.0", "0.9");
        (Some(write(&h.dir, "old", &name, &bytes)), new)
    } else {
        (None, body)
    };
    let (name, bytes) = pack(sel, new);
    let path = write(&h.dir, "new", name, &bytes);
    let input = render_package(base.as_deref(), &path, &h.limits);
    let report = h
        .coordinator
        .scan(&input, &["malicious-package".to_string()]);
    // Local-only with no detectors and no allowlist: a package the
    // pre-check may not allow on its scores alone has nothing else to
    // allow it.
    if input.error.is_some()
        || input.unjudgeable.is_some()
        || input.opaque_code.is_some()
        || !input.not_on_scores_alone.is_empty()
    {
        assert_eq!(
            report.decision,
            Decision::Block,
            "an unreadable or unjudgeable package was allowed: {:?}",
            report.reason
        );
    }
    // Members are rendered on several threads: the text, and so the
    // report, must not depend on which finished first.
    let again = render_package(base.as_deref(), &path, &h.limits);
    assert!(
        *again.text == *input.text
            && again.notes == input.notes
            && again.error == input.error
            && again.unjudgeable == input.unjudgeable
            && again.opaque_code == input.opaque_code
            && again.not_on_scores_alone == input.not_on_scores_alone
            && again.sections == input.sections,
        "two renders of one package differ"
    );
    let second = h
        .coordinator
        .scan(&again, &["malicious-package".to_string()]);
    // The report must serialize: callers key off it.
    let json = |mut r: canary::report::Report| {
        r.elapsed_ms = 0;
        serde_json::to_string(&r).expect("report serializes")
    };
    let sarif = canary::report::sarif::to_sarif(std::slice::from_ref(&second));
    serde_json::from_str::<serde_json::Value>(&sarif).expect("SARIF is JSON");
    assert_eq!(
        json(report),
        json(second),
        "two scans of one package differ"
    );
});
