//! The scan result cache: a finished report for a package artifact, keyed by
//! the artifact's sha256 (and its base's, for a version diff) and by a
//! fingerprint of everything that could change the decision (Canary's
//! version and a hash of the source it was built from, the config, each policy's text, each model's weight hash,
//! `--local-only`, the policies asked for).
//!
//! Only settled decisions are stored (`precheck-*`, `quorum-*`): an
//! inconclusive, unreadable or allowlisted result is always recomputed, so a
//! detector outage or an allowlist expiry never outlives the run that saw it.
//! A cache entry is trusted no more than the cache directory (created 0700;
//! one owned by another user or writable by others is refused):
//! an entry that does not parse, or whose recorded key or artifact hash does
//! not match, is ignored and the input is scanned again. The cache must never
//! turn a failure into an allow: every error here means "miss".

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::report::{Reason, Report};
use crate::util::sha256_hex;

/// Where cached reports live: `$CANARY_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/canary`, else `$HOME/.cache/canary`.
pub fn default_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("CANARY_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("canary"));
    }
    std::env::var_os("HOME")
        .filter(|d| !d.is_empty())
        .map(|h| PathBuf::from(h).join(".cache").join("canary"))
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    key: String,
    report: Report,
}

/// A report cache in one directory, for one run's fingerprint.
pub struct Cache {
    dir: PathBuf,
    fingerprint: String,
}

impl Cache {
    /// Opens (creating, owner-only) the cache directory. A directory that
    /// someone else could write to is refused, not repaired: an entry is a
    /// decision served without a scan, so one planted by another user (in a
    /// shared `CANARY_CACHE_DIR`, say) would allow whatever they chose.
    pub fn open(dir: &Path, fingerprint: String) -> std::io::Result<Cache> {
        let parent = dir.to_path_buf();
        let dir = dir.join("reports-v1");
        let existed = std::fs::symlink_metadata(&dir).is_ok();
        std::fs::create_dir_all(&dir)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            if !existed {
                std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
            }
            private::check(&parent, &dir)?;
        }
        #[cfg(not(unix))]
        let _ = (parent, existed);
        Ok(Cache { dir, fingerprint })
    }

    /// The key of one artifact (and its base) under the given policies.
    pub fn key(
        &self,
        artifact_sha256: &str,
        base_sha256: Option<&str>,
        policies: &[String],
    ) -> String {
        let material = serde_json::json!({
            "fingerprint": self.fingerprint,
            "artifact": artifact_sha256,
            "base": base_sha256,
            "policies": policies,
        });
        sha256_hex(material.to_string().as_bytes())
    }

    fn file_name(key: &str) -> String {
        format!("{key}.json")
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(Self::file_name(key))
    }

    /// A cached report for `key`, if one exists and is intact: a regular
    /// file (a link, pipe or device is not read: a pipe would hold the scan
    /// forever) of at most [`crate::report::FILE_MAX`] bytes. Anything else is a
    /// miss, and the artifact is scanned.
    pub fn get(&self, key: &str, artifact_sha256: &str) -> Option<Report> {
        let file = crate::util::open_regular_file(&self.path(key)).ok()?;
        let bytes = crate::util::read_at_most(file, crate::report::FILE_MAX).ok()??;
        let entry: Entry = serde_json::from_slice(&bytes).ok()?;
        if entry.key != key || entry.report.input.sha256 != artifact_sha256 {
            return None;
        }
        if !cacheable(&entry.report) {
            return None;
        }
        Some(entry.report)
    }

    /// Stores a settled report; anything else is left out. Errors are
    /// ignored: a cache that cannot be written only costs a rescan.
    pub fn put(&self, key: &str, report: &Report) {
        if !cacheable(report) {
            return;
        }
        let entry = Entry {
            key: key.to_string(),
            report: report.clone(),
        };
        let Ok(text) = serde_json::to_vec(&entry) else {
            return;
        };
        // Written then renamed, so a concurrent reader never sees half a file.
        let _ = crate::util::write_via_rename(&self.dir, &Self::file_name(key), false, |f| {
            std::io::Write::write_all(f, &text)
        });
    }
}

#[cfg(unix)]
mod private {
    use std::io::{Error, ErrorKind};
    use std::os::unix::fs::MetadataExt;
    use std::path::Path;

    /// The user this process runs as, where it can be asked.
    fn euid() -> Option<u32> {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        {
            // SAFETY: geteuid has no preconditions and cannot fail.
            Some(unsafe { libc::geteuid() })
        }
        #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
        {
            None
        }
    }

    /// `dir` (links followed: what is read is what counts) must be ours
    /// and writable by us alone; its parent ours or root's, and writable by
    /// others only with the sticky bit (as `/tmp`), so nobody else can swap
    /// `dir` for their own while a scan reads it.
    pub fn check(parent: &Path, dir: &Path) -> std::io::Result<()> {
        let refuse = |path: &Path, why: String| {
            Err(Error::new(
                ErrorKind::PermissionDenied,
                format!(
                    "{} {why}; its entries could have been written by someone else (use a directory of your own: CANARY_CACHE_DIR, or --no-cache)",
                    path.display()
                ),
            ))
        };
        let me = euid();
        let d = std::fs::metadata(dir)?;
        if me.is_some_and(|me| d.uid() != me) {
            return refuse(dir, format!("belongs to uid {}, not to this user", d.uid()));
        }
        if d.mode() & 0o022 != 0 {
            return refuse(
                dir,
                format!("is writable by others (mode {:o})", d.mode() & 0o7777),
            );
        }
        let p = std::fs::metadata(parent)?;
        if me.is_some_and(|me| p.uid() != me && p.uid() != 0) {
            return refuse(
                parent,
                format!("belongs to uid {}, not to this user or root", p.uid()),
            );
        }
        if p.mode() & 0o022 != 0 && p.mode() & 0o1000 == 0 {
            return refuse(
                parent,
                format!(
                    "is writable by others without the sticky bit (mode {:o})",
                    p.mode() & 0o7777
                ),
            );
        }
        Ok(())
    }
}

/// Settled decisions only: never inconclusive, unreadable or allowlisted.
pub fn cacheable(r: &Report) -> bool {
    let settled = |x: Reason| {
        matches!(
            x,
            Reason::PrecheckHarmful
                | Reason::PrecheckHarmless
                | Reason::QuorumHarmful
                | Reason::QuorumHarmless
        )
    };
    r.error.is_none()
        && !r.policies.is_empty()
        && settled(r.reason)
        && r.policies.iter().all(|p| settled(p.reason))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{InputInfo, PolicyReport, PrecheckReport, QuorumReport, Usage};

    fn report(reason: Reason, sha: &str) -> Report {
        Report {
            schema: crate::report::SCHEMA.into(),
            input: InputInfo {
                id: None,
                source: "x".into(),
                kind: "package".into(),
                sha256: sha.into(),
                bytes: 1,
                base: None,
            },
            decision: reason.decision(),
            reason,
            error: None,
            notes: Vec::new(),
            policies: vec![PolicyReport {
                id: "malicious-package".into(),
                decision: reason.decision(),
                reason,
                precheck: PrecheckReport::none(),
                review: None,
                detectors: Vec::new(),
                quorum: QuorumReport::default(),
            }],
            usage: Usage::default(),
            elapsed_ms: 1,
            config: None,
        }
    }

    #[test]
    fn only_settled_decisions_are_stored_and_keys_cover_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::open(dir.path(), "fp-1".into()).unwrap();
        let ids = vec!["malicious-package".to_string()];
        for (reason, stored) in [
            (Reason::PrecheckHarmful, true),
            (Reason::QuorumHarmless, true),
            (Reason::Inconclusive, false),
            (Reason::InputError, false),
            (Reason::Allowlisted, false),
        ] {
            let sha = format!("{reason:?}");
            let key = c.key(&sha, None, &ids);
            c.put(&key, &report(reason, &sha));
            assert_eq!(c.get(&key, &sha).is_some(), stored, "{reason:?}");
        }
        // The key depends on the base, the policies and the run fingerprint.
        let k = c.key("a", None, &ids);
        assert_ne!(k, c.key("a", Some("b"), &ids));
        assert_ne!(k, c.key("a", None, &["prompt-injection".to_string()]));
        let other = Cache::open(dir.path(), "fp-2".into()).unwrap();
        assert_ne!(k, other.key("a", None, &ids));
        // A stored report is not served for another artifact's hash.
        c.put(&k, &report(Reason::PrecheckHarmless, "a"));
        assert!(c.get(&k, "a").is_some());
        assert!(c.get(&k, "not-a").is_none());
    }

    /// An entry that is not a regular file of a report's size is a miss,
    /// never read: a pipe would hold the scan forever, a link could lead
    /// anywhere, and a huge file would be read into memory.
    #[cfg(unix)]
    #[test]
    fn entries_that_are_not_small_regular_files_are_misses() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::open(dir.path(), "fp".into()).unwrap();
        let ids = vec!["malicious-package".to_string()];
        let key = c.key("a", None, &ids);
        c.put(&key, &report(Reason::PrecheckHarmless, "a"));
        assert!(c.get(&key, "a").is_some(), "a stored report is served");
        let entry = c.path(&key);
        let stored = std::fs::read(&entry).unwrap();

        // Through a link to the very same report.
        let real = dir.path().join("elsewhere.json");
        std::fs::write(&real, &stored).unwrap();
        std::fs::remove_file(&entry).unwrap();
        std::os::unix::fs::symlink(&real, &entry).unwrap();
        assert!(c.get(&key, "a").is_none(), "read through a link");

        // A pipe no one writes to: returns at once, a miss.
        std::fs::remove_file(&entry).unwrap();
        let path = std::ffi::CString::new(entry.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
        assert!(c.get(&key, "a").is_none(), "read a pipe");

        // The report padded past the cap (JSON allows the spaces).
        std::fs::remove_file(&entry).unwrap();
        let mut padded = stored.clone();
        padded.resize(crate::report::FILE_MAX as usize + 1, b' ');
        std::fs::write(&entry, &padded).unwrap();
        assert!(c.get(&key, "a").is_none(), "read past the cap");
        // At the cap it is read.
        padded.truncate(crate::report::FILE_MAX as usize);
        std::fs::write(&entry, &padded).unwrap();
        assert!(c.get(&key, "a").is_some(), "a report at the cap is served");
    }

    /// A cache directory others can write to is refused, never repaired:
    /// an `allow` planted there would be served without a scan.
    #[cfg(unix)]
    #[test]
    fn a_cache_others_can_write_to_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path, m: u32| {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap()
        };
        let t = tempfile::tempdir().unwrap();
        let fresh = t.path().join("fresh");
        std::fs::create_dir(&fresh).unwrap();
        Cache::open(&fresh, "fp".into()).expect("a new private cache opens");
        let made = std::fs::metadata(fresh.join("reports-v1")).unwrap();
        assert_eq!(made.permissions().mode() & 0o777, 0o700);

        // Someone made reports-v1 world-writable (and may have filled it).
        let planted = t.path().join("planted");
        std::fs::create_dir_all(planted.join("reports-v1")).unwrap();
        mode(&planted.join("reports-v1"), 0o777);
        let e = Cache::open(&planted, "fp".into()).err().expect("refused");
        assert!(e.to_string().contains("writable by others"), "{e}");
        // Refused, not repaired.
        let still = std::fs::metadata(planted.join("reports-v1")).unwrap();
        assert_eq!(still.permissions().mode() & 0o777, 0o777);

        // A parent anyone may write to lets them swap reports-v1 mid-scan;
        // with the sticky bit (as /tmp) they cannot.
        let open_parent = t.path().join("open");
        std::fs::create_dir(&open_parent).unwrap();
        mode(&open_parent, 0o777);
        let e = Cache::open(&open_parent, "fp".into())
            .err()
            .expect("refused");
        assert!(e.to_string().contains("without the sticky bit"), "{e}");
        mode(&open_parent, 0o1777);
        Cache::open(&open_parent, "fp".into()).expect("a sticky parent is fine");

        // Another user's directory, where this test may hand one over.
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        if unsafe { libc::geteuid() } == 0 {
            let theirs = t.path().join("theirs");
            std::fs::create_dir_all(theirs.join("reports-v1")).unwrap();
            mode(&theirs.join("reports-v1"), 0o700);
            std::os::unix::fs::chown(theirs.join("reports-v1"), Some(65534), None).unwrap();
            let e = Cache::open(&theirs, "fp".into()).err().expect("refused");
            assert!(e.to_string().contains("belongs to uid 65534"), "{e}");
        }
    }
}
