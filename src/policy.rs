//! Harm policies: the contract every stage of the gate is judged against.
//!
//! A policy names a harm, describes the input it applies to, lists the signals
//! the pre-check looks for and the guidance detectors receive, and fixes the
//! protocol detectors must answer in (`verdict ∈ {harmful, harmless}`,
//! fail-closed). Built-in policies are compiled into the binary from
//! `policies/*.toml`; users add their own files.
//!
//! This module must never accept a policy that could let uncertainty become
//! permission: `fail-closed = false`, a protocol other than the binary verdict,
//! or an unknown key are all refused, and every problem is reported at once.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The built-in policies, embedded at compile time.
pub const BUILTIN_POLICIES: &[(&str, &str)] = &[
    (
        "malicious-package",
        include_str!("../policies/malicious-package.toml"),
    ),
    (
        "prompt-injection",
        include_str!("../policies/prompt-injection.toml"),
    ),
];

/// The only verdicts a detector may give.
pub const VERDICT_FIELD: &str = "verdict";
pub const HARMFUL: &str = "harmful";
pub const HARMLESS: &str = "harmless";

#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("cannot read policy file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("policy file {path} is larger than {cap} bytes, which no policy is (they are a few KB); pass the policy's .toml file")]
    TooLarge { path: PathBuf, cap: u64 },
    #[error("policy {origin} is not valid TOML for a policy: {message}")]
    Parse { origin: String, message: String },
    #[error("policy {origin} is invalid:\n{}", .problems.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n"))]
    Invalid {
        origin: String,
        problems: Vec<String>,
    },
    #[error("unknown policy `{0}`: not a built-in ({builtins}) and not a policy file loaded from the config; pass a path to a .toml file or run `canary policy list`", builtins = builtin_ids().join(", "))]
    Unknown(String),
    #[error("policy `{id}` is defined twice ({first} and {second}); policy ids must be unique")]
    Duplicate {
        id: String,
        first: String,
        second: String,
    },
}

/// The protocol a detector must answer in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Protocol {
    pub field: String,
    pub allowed: Vec<String>,
    pub fail_closed: bool,
}

/// A validated harm policy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct Policy {
    pub id: String,
    pub harm_definition: String,
    pub input_description: String,
    pub precheck_signals: Vec<String>,
    pub detector_guidance: Vec<String>,
    /// Which pre-check model scores this policy (`builtin:NAME`, a directory,
    /// or `hf:REPO`). `None`: no pre-check model, every input is uncertain.
    pub precheck_model: Option<String>,
    /// A second model that must also clear an input before the pre-check
    /// may allow it (same reference forms). It can only turn a harmless
    /// band into uncertain, never the reverse, and never calls anything
    /// harmful; where detectors review the text, its uncleared slices are
    /// reviewed too. `None`: the pre-check model decides alone.
    pub precheck_veto: Option<String>,
    /// Harm under this policy is done by code. For a rendered package, a
    /// pre-check harmful band is kept only when a slice holding code reaches
    /// it; a harmful score on documentation or data alone (test fixtures
    /// and samples, service JSON, numeric tables) is lowered to uncertain: still blocked
    /// unless detectors clear it by quorum. Never lowers anything to harmless.
    pub harmful_needs_code: bool,
    pub protocol: Protocol,
    /// Where the policy came from: `builtin` or the file path.
    #[serde(skip)]
    pub origin: String,
    /// Directory that relative model paths are resolved against.
    #[serde(skip)]
    pub base_dir: Option<PathBuf>,
}

/// The file form, with every field optional so that validation can report
/// all missing fields at once instead of stopping at the first.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawPolicy {
    id: Option<String>,
    harm_definition: Option<String>,
    input_description: Option<String>,
    precheck_signals: Option<Vec<String>>,
    detector_guidance: Option<Vec<String>>,
    precheck_model: Option<String>,
    precheck_veto: Option<String>,
    harmful_needs_code: Option<bool>,
    protocol: Option<Protocol>,
}

pub fn builtin_ids() -> Vec<&'static str> {
    BUILTIN_POLICIES.iter().map(|(id, _)| *id).collect()
}

impl Policy {
    /// Parses and validates a policy from TOML text. `origin` names it in errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<Policy, PolicyError> {
        let raw: RawPolicy = toml::from_str(text).map_err(|e| PolicyError::Parse {
            origin: origin.to_string(),
            message: e.to_string(),
        })?;
        validate(raw, origin)
    }

    pub fn from_file(path: &Path) -> Result<Policy, PolicyError> {
        let cap = crate::util::MAX_SETTINGS_BYTES;
        let text = crate::util::read_text_at_most(path, cap)
            .map_err(|source| PolicyError::Read {
                path: path.to_path_buf(),
                source,
            })?
            .ok_or_else(|| PolicyError::TooLarge {
                path: path.to_path_buf(),
                cap,
            })?;
        let mut policy = Policy::from_toml(&text, &path.display().to_string())?;
        policy.base_dir = path.parent().map(Path::to_path_buf);
        Ok(policy)
    }

    pub fn builtin(id: &str) -> Option<Policy> {
        BUILTIN_POLICIES
            .iter()
            .find(|(bid, _)| *bid == id)
            .map(|(_, text)| {
                Policy::from_toml(text, "builtin")
                    .expect("built-in policies are validated by tests")
            })
    }

    /// A stable hash of the policy's content, used as a cache key.
    pub fn content_hash(&self) -> String {
        use sha2::{Digest, Sha256};
        let json = serde_json::to_vec(self).unwrap_or_default();
        hex::encode(Sha256::digest(json))
    }
}

fn validate(raw: RawPolicy, origin: &str) -> Result<Policy, PolicyError> {
    let mut problems = Vec::new();
    let mut required_text = |name: &str, value: &Option<String>| match value {
        None => problems.push(format!("missing required field `{name}`")),
        Some(v) if v.trim().is_empty() => problems.push(format!("`{name}` must not be empty")),
        Some(_) => {}
    };
    required_text("id", &raw.id);
    required_text("harm-definition", &raw.harm_definition);
    required_text("input-description", &raw.input_description);
    if let Some(id) = &raw.id {
        let ok = !id.is_empty()
            && id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
            && id.chars().next().is_some_and(|c| c.is_ascii_lowercase());
        if !id.trim().is_empty() && !ok {
            problems.push(format!(
                "`id` = {id:?} must start with a lowercase letter and use only a-z, 0-9, '-' and '_'"
            ));
        }
    }
    for (name, list) in [
        ("precheck-signals", &raw.precheck_signals),
        ("detector-guidance", &raw.detector_guidance),
    ] {
        match list {
            None => problems.push(format!("missing required field `{name}`")),
            Some(items) if items.is_empty() => {
                problems.push(format!("`{name}` must list at least one entry"))
            }
            Some(items) => {
                for (i, item) in items.iter().enumerate() {
                    if item.trim().is_empty() {
                        problems.push(format!("`{name}[{i}]` must not be empty"));
                    }
                }
            }
        }
    }
    for (name, value) in [
        ("precheck-model", &raw.precheck_model),
        ("precheck-veto", &raw.precheck_veto),
    ] {
        if value.as_deref().is_some_and(|m| m.trim().is_empty()) {
            problems.push(format!("`{name}` must not be empty when given"));
        }
    }
    if raw.precheck_veto.is_some() && raw.precheck_model.is_none() {
        problems.push(
            "`precheck-veto` needs a `precheck-model`: a veto only checks that model's allow"
                .to_string(),
        );
    }
    match &raw.protocol {
        None => problems.push("missing required table `[protocol]`".to_string()),
        Some(p) => {
            if p.field != VERDICT_FIELD {
                problems.push(format!(
                    "`protocol.field` must be \"{VERDICT_FIELD}\", found {:?}",
                    p.field
                ));
            }
            let allowed: BTreeSet<&str> = p.allowed.iter().map(String::as_str).collect();
            let expected: BTreeSet<&str> = [HARMFUL, HARMLESS].into_iter().collect();
            if allowed != expected || p.allowed.len() != 2 {
                problems.push(format!(
                    "`protocol.allowed` must be exactly [\"{HARMFUL}\", \"{HARMLESS}\"], found {:?}",
                    p.allowed
                ));
            }
            if !p.fail_closed {
                problems.push(
                    "`protocol.fail-closed = false` is refused: Canary only runs fail-closed policies"
                        .to_string(),
                );
            }
        }
    }
    if !problems.is_empty() {
        return Err(PolicyError::Invalid {
            origin: origin.to_string(),
            problems,
        });
    }
    Ok(Policy {
        id: raw.id.unwrap_or_default(),
        harm_definition: raw.harm_definition.unwrap_or_default().trim().to_string(),
        input_description: raw.input_description.unwrap_or_default().trim().to_string(),
        precheck_signals: raw.precheck_signals.unwrap_or_default(),
        detector_guidance: raw.detector_guidance.unwrap_or_default(),
        precheck_model: raw.precheck_model,
        precheck_veto: raw.precheck_veto,
        harmful_needs_code: raw.harmful_needs_code.unwrap_or(false),
        protocol: raw.protocol.expect("checked above"),
        origin: origin.to_string(),
        base_dir: None,
    })
}

/// The set of policies a run can name: built-ins plus files from the config.
#[derive(Debug, Clone)]
pub struct PolicySet {
    policies: Vec<Policy>,
}

impl PolicySet {
    /// Built-ins plus the given extra policy files. A file may not reuse an id.
    pub fn load(extra_files: &[PathBuf]) -> Result<PolicySet, PolicyError> {
        let mut policies: Vec<Policy> = builtin_ids()
            .into_iter()
            .filter_map(Policy::builtin)
            .collect();
        for path in extra_files {
            let p = Policy::from_file(path)?;
            if let Some(existing) = policies.iter().find(|q| q.id == p.id) {
                return Err(PolicyError::Duplicate {
                    id: p.id.clone(),
                    first: existing.origin.clone(),
                    second: p.origin.clone(),
                });
            }
            policies.push(p);
        }
        Ok(PolicySet { policies })
    }

    pub fn all(&self) -> &[Policy] {
        &self.policies
    }

    pub fn get(&self, id: &str) -> Option<&Policy> {
        self.policies.iter().find(|p| p.id == id)
    }

    /// Resolves one `--policy` value: a known id, or a path to a policy file.
    pub fn resolve(&self, name: &str) -> Result<Policy, PolicyError> {
        if let Some(p) = self.get(name) {
            return Ok(p.clone());
        }
        let path = Path::new(name);
        if name.ends_with(".toml") || name.contains('/') || name.contains(std::path::MAIN_SEPARATOR)
        {
            return Policy::from_file(path);
        }
        Err(PolicyError::Unknown(name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_are_valid_and_complete() {
        for id in builtin_ids() {
            let p = Policy::builtin(id).unwrap();
            assert_eq!(p.id, id);
            assert!(p.protocol.fail_closed);
            assert!(p.precheck_model.as_deref().unwrap().starts_with("builtin:"));
        }
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let text = r#"
            id = "Bad Id"
            harm-definition = ""
            precheck-signals = []
            [protocol]
            field = "answer"
            allowed = ["harmful", "maybe"]
            fail-closed = false
        "#;
        let err = Policy::from_toml(text, "t.toml").unwrap_err();
        let PolicyError::Invalid { problems, .. } = &err else {
            panic!("expected Invalid, got {err}")
        };
        let joined = problems.join("\n");
        for needle in [
            "`id`",
            "`harm-definition` must not be empty",
            "missing required field `input-description`",
            "`precheck-signals` must list",
            "missing required field `detector-guidance`",
            "protocol.field",
            "protocol.allowed",
            "fail-closed = false",
        ] {
            assert!(joined.contains(needle), "missing {needle:?} in {joined}");
        }
        assert_eq!(problems.len(), 8, "{joined}");
    }

    #[test]
    fn unknown_keys_are_refused() {
        let text = include_str!("../policies/prompt-injection.toml").replace(
            "harm-definition",
            "harm-defintion", // misspelled on purpose
        );
        let err = Policy::from_toml(&text, "t.toml").unwrap_err().to_string();
        assert!(err.contains("harm-defintion"), "{err}");
        let text = include_str!("../policies/prompt-injection.toml")
            .replace("fail-closed = true", "fail-closed = true\nfail-open = true");
        let err = Policy::from_toml(&text, "t.toml").unwrap_err().to_string();
        assert!(err.contains("fail-open"), "{err}");
    }

    #[test]
    fn wrong_type_is_refused() {
        let text = include_str!("../policies/prompt-injection.toml")
            .replace("fail-closed = true", "fail-closed = \"yes\"");
        assert!(matches!(
            Policy::from_toml(&text, "t.toml"),
            Err(PolicyError::Parse { .. })
        ));
    }

    #[test]
    fn a_veto_is_checked_like_a_model_and_needs_one() {
        let mp = include_str!("../policies/malicious-package.toml");
        let p = Policy::builtin("malicious-package").unwrap();
        assert_eq!(
            p.precheck_veto.as_deref(),
            Some("builtin:malicious-package-capabilities")
        );
        assert!(crate::precheck::builtin_models().contains(&"malicious-package-capabilities"));
        let err = |text: &str| Policy::from_toml(text, "t.toml").unwrap_err().to_string();
        let empty = mp.replace(
            "precheck-veto = \"builtin:malicious-package-capabilities\"",
            "precheck-veto = \" \"",
        );
        assert!(err(&empty).contains("`precheck-veto` must not be empty"));
        let alone = mp.replace("precheck-model = \"builtin:malicious-package\"\n", "");
        assert!(err(&alone).contains("`precheck-veto` needs a `precheck-model`"));
        let typo = mp.replace("precheck-veto", "precheck-vetoo");
        assert!(err(&typo).contains("precheck-vetoo"));
    }

    #[test]
    fn harmful_needs_code_is_opt_in_and_typed() {
        // Prompt injection lives in prose: that policy must never set it.
        assert!(
            !Policy::builtin("prompt-injection")
                .unwrap()
                .harmful_needs_code
        );
        assert!(
            Policy::builtin("malicious-package")
                .unwrap()
                .harmful_needs_code
        );
        let mp = include_str!("../policies/malicious-package.toml");
        let text = mp.replace("harmful-needs-code = true", "harmful-needs-code = \"yes\"");
        assert!(matches!(
            Policy::from_toml(&text, "t.toml"),
            Err(PolicyError::Parse { .. })
        ));
        let text = mp.replace("harmful-needs-code", "harmful-need-code");
        let err = Policy::from_toml(&text, "t.toml").unwrap_err().to_string();
        assert!(err.contains("harmful-need-code"), "{err}");
    }

    #[test]
    fn resolve_unknown_names_the_policy() {
        let set = PolicySet::load(&[]).unwrap();
        let err = set.resolve("malware").unwrap_err().to_string();
        assert!(err.contains("`malware`") && err.contains("prompt-injection"));
        assert_eq!(
            set.resolve("prompt-injection").unwrap().id,
            "prompt-injection"
        );
    }
}
