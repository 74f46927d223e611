//! SARIF 2.1.0 output: one result per blocked input per policy, located at
//! the top-scoring slice's file and line when the input is a rendered package.
//!
//! A file inside an archive is an artifact nested in the archive's artifact
//! (`parentIndex`, SARIF 2.1.0 §3.24.2), not a path under the archive's
//! path: no such path exists on disk. Every `uri` is a valid URI reference:
//! relative paths percent-encoded, absolute paths as `file://` URIs.

use std::collections::HashMap;

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde_json::{json, Value};

use super::{Decision, Report};

/// Everything but RFC 3986's unreserved characters and `/` is encoded. A `:`
/// is encoded too, so a relative path's first segment never reads as a scheme.
const PATH: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

/// A relative path as a relative URI reference.
fn relative_uri(path: &str) -> String {
    utf8_percent_encode(&path.replace('\\', "/"), PATH).to_string()
}

/// An input's path as a URI reference: `file://` for an absolute path
/// (`/x`, or a Windows drive `C:\x`), percent-encoded relative otherwise.
fn source_uri(source: &str) -> String {
    let s = source.replace('\\', "/");
    let b = s.as_bytes();
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        format!("file:///{}:{}", &s[..1], relative_uri(&s[2..]))
    } else if s.starts_with('/') {
        format!("file://{}", relative_uri(&s))
    } else {
        relative_uri(&s)
    }
}

/// The run's artifacts, each listed once: inputs, and files inside them.
#[derive(Default)]
struct Artifacts {
    list: Vec<Value>,
    index: HashMap<(String, Option<String>), usize>,
}

impl Artifacts {
    /// The index of the input's artifact (carrying its sha256).
    fn input(&mut self, source: &str, sha256: &str) -> usize {
        self.intern((source.to_string(), None), || {
            let mut a = json!({"location": {"uri": source_uri(source)}});
            if !sha256.is_empty() {
                a["hashes"] = json!({"sha-256": sha256});
            }
            a
        })
    }

    /// The index of a file inside an input.
    fn member(&mut self, source: &str, sha256: &str, path: &str) -> usize {
        let parent = self.input(source, sha256);
        self.intern(
            (source.to_string(), Some(path.to_string())),
            || json!({"location": {"uri": relative_uri(path)}, "parentIndex": parent}),
        )
    }

    /// The index of the artifact under `key`, listed on first use.
    fn intern(&mut self, key: (String, Option<String>), make: impl FnOnce() -> Value) -> usize {
        if let Some(i) = self.index.get(&key) {
            return *i;
        }
        self.list.push(make());
        self.index.insert(key, self.list.len() - 1);
        self.list.len() - 1
    }

    /// A location's `artifactLocation`: the uri and index of that artifact.
    fn location(&self, index: usize) -> Value {
        json!({"uri": self.list[index]["location"]["uri"], "index": index})
    }
}

pub fn to_sarif(reports: &[Report]) -> String {
    let mut results = Vec::new();
    let mut rules: Vec<Value> = Vec::new();
    let mut rule_ids: Vec<String> = Vec::new();
    let mut artifacts = Artifacts::default();
    for r in reports {
        if r.decision != Decision::Block {
            continue;
        }
        let mut per_policy: Vec<(String, String, Option<String>)> = r
            .policies
            .iter()
            .filter(|p| p.decision == Decision::Block)
            .map(|p| {
                let score = p
                    .precheck
                    .score
                    .map(|s| format!(", pre-check score {}", super::show_score(s)))
                    .unwrap_or_default();
                // A veto that withdrew the allow points where it looked:
                // the main model's top slice is one it cleared.
                let vetoed = p.precheck.veto.as_ref().filter(|v| v.location.is_some());
                let (veto, location) = match vetoed {
                    Some(v) => (
                        format!(
                            ", veto {} score {} (not cleared)",
                            v.model,
                            super::show_score(v.score)
                        ),
                        v.location.clone(),
                    ),
                    None => (String::new(), p.precheck.location.clone()),
                };
                (
                    p.id.clone(),
                    format!(
                        "{} blocked under policy `{}`: {}{score}{veto}",
                        r.input.source,
                        p.id,
                        p.reason.as_str()
                    ),
                    location,
                )
            })
            .collect();
        if per_policy.is_empty() {
            // Input errors and other whole-input blocks have no policy result.
            per_policy.push((
                "input-error".to_string(),
                format!(
                    "{} blocked: {}{}",
                    r.input.source,
                    r.reason.as_str(),
                    r.error
                        .as_ref()
                        .map(|e| format!(": {e}"))
                        .unwrap_or_default()
                ),
                None,
            ));
        }
        for (rule, message, location) in per_policy {
            if !rule_ids.contains(&rule) {
                rule_ids.push(rule.clone());
                rules.push(json!({
                    "id": rule,
                    "shortDescription": {"text": format!("Blocked by Canary policy {rule}")},
                }));
            }
            let (source, sha) = (&r.input.source, &r.input.sha256);
            let (artifact, line) = match location.as_deref().and_then(|l| l.rsplit_once(':')) {
                Some((path, l)) => (
                    artifacts.member(source, sha, path),
                    l.parse().unwrap_or(1u64),
                ),
                None => (artifacts.input(source, sha), 1),
            };
            results.push(json!({
                "ruleId": rule,
                "level": "error",
                "message": {"text": message},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": artifacts.location(artifact),
                        "region": {"startLine": line},
                    }
                }],
                "properties": {"sha256": r.input.sha256, "reason": r.reason.as_str()},
            }));
        }
    }
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "canary",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "artifacts": artifacts.list,
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&doc).expect("sarif serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_valid_references() {
        assert_eq!(
            source_uri("pkgs/left-pad-1.3.0.tgz"),
            "pkgs/left-pad-1.3.0.tgz"
        );
        assert_eq!(source_uri("my pkgs/a#b.tgz"), "my%20pkgs/a%23b.tgz");
        assert_eq!(source_uri("/tmp/x y/p.tgz"), "file:///tmp/x%20y/p.tgz");
        assert_eq!(source_uri("C:\\pkgs\\p.whl"), "file:///C:/pkgs/p.whl");
        // A colon in a relative path would read as a scheme.
        assert_eq!(source_uri("pkg:1.tgz"), "pkg%3A1.tgz");
        assert_eq!(relative_uri("caf\u{e9}/x%.py"), "caf%C3%A9/x%25.py");
    }

    #[test]
    fn artifacts_are_listed_once_and_nested() {
        let mut a = Artifacts::default();
        let m1 = a.member("/p/x.tgz", "ab", "pkg/setup.py");
        let m2 = a.member("/p/x.tgz", "ab", "pkg/setup.py");
        let i = a.input("/p/x.tgz", "ab");
        assert_eq!(m1, m2);
        assert_eq!(a.list.len(), 2);
        assert_eq!(a.list[m1]["parentIndex"], i);
        assert_eq!(a.list[i]["hashes"]["sha-256"], "ab");
        assert_eq!(a.location(m1)["uri"], "pkg/setup.py");
        assert_eq!(a.location(m1)["index"], m1);
        // The same path in another archive is another artifact.
        assert_ne!(a.member("/p/y.tgz", "cd", "pkg/setup.py"), m1);
    }
}
