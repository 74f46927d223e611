//! The scan result cache: a finished report for a package artifact, keyed by
//! the artifact's sha256 (and its base's, for a version diff) and by a
//! fingerprint of everything that could change the decision (Canary's
//! version, the config, each policy's text, each model's weight hash,
//! `--local-only`, the policies asked for).
//!
//! Only settled decisions are stored (`precheck-*`, `quorum-*`): an
//! inconclusive, unreadable or allowlisted result is always recomputed, so a
//! detector outage or an allowlist expiry never outlives the run that saw it.
//! A cache entry is trusted no more than the cache directory (created 0700):
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
    /// Opens (creating, owner-only) the cache directory.
    pub fn open(dir: &Path, fingerprint: String) -> std::io::Result<Cache> {
        let dir = dir.join("reports-v1");
        std::fs::create_dir_all(&dir)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
        }
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

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    /// A cached report for `key`, if one exists and is intact.
    pub fn get(&self, key: &str, artifact_sha256: &str) -> Option<Report> {
        let bytes = std::fs::read(self.path(key)).ok()?;
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
        // Write then rename, so a concurrent reader never sees half a file.
        let tmp = self.dir.join(format!(".{key}.{}.tmp", std::process::id()));
        if std::fs::write(&tmp, text).is_ok() && std::fs::rename(&tmp, self.path(key)).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
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
}
