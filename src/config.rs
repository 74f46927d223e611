//! `canary.toml`: the run configuration (quorum, pre-check mode and models,
//! detectors, allowlist, archive limits).
//!
//! Every table uses `deny_unknown_fields`, so a misspelled key is an error
//! rather than a silently ignored safety setting. The file is optional; the
//! defaults are the safe ones. This module must never read a secret: detectors
//! name the environment variable that holds their key, and the key is read only
//! when a request is made.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("config file {path} is larger than {cap} bytes, which no Canary config is (they are a few KB); name the config file with --config")]
    TooLarge { path: PathBuf, cap: u64 },
    #[error("config file {path} is invalid: {message}")]
    Parse { path: String, message: String },
    #[error("config file {path} is invalid:\n{}", .problems.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n"))]
    Invalid { path: String, problems: Vec<String> },
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Config {
    #[serde(default)]
    pub gate: GateConfig,
    #[serde(default)]
    pub precheck: PrecheckConfig,
    #[serde(default)]
    pub detectors: Vec<DetectorConfig>,
    #[serde(default)]
    pub allow: Vec<AllowEntry>,
    #[serde(default)]
    pub limits: Limits,
    /// Where the file was read from (not a TOML key).
    #[serde(skip)]
    pub path: Option<PathBuf>,
    /// sha256 of the file's bytes (not a TOML key): reports carry it, so a
    /// caller can tell which config judged an input.
    #[serde(skip)]
    pub sha256: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct GateConfig {
    /// Votes of one kind needed to decide (default 2).
    #[serde(default = "default_quorum")]
    pub quorum: usize,
    /// Deadline for all detector calls of one input and policy, in seconds.
    #[serde(default = "default_deadline")]
    pub deadline_secs: u64,
    /// Detectors judging at once across a batch scan (each with up to its
    /// `parallel-calls` calls in flight).
    #[serde(default = "default_concurrency")]
    pub concurrency: usize,
    /// Most bytes of one input put to the detectors under one policy. Under
    /// the cascade only the slices the pre-check could not clear count. An
    /// input needing more is not sent at all and blocks as inconclusive,
    /// so one large package cannot run up thousands of calls.
    #[serde(default = "default_max_review_bytes")]
    pub max_review_bytes: usize,
    /// Extra policy files, resolved relative to the config file.
    #[serde(default)]
    pub policy_files: Vec<PathBuf>,
}

fn default_quorum() -> usize {
    2
}
fn default_deadline() -> u64 {
    60
}
fn default_concurrency() -> usize {
    8
}
fn default_max_review_bytes() -> usize {
    1024 * 1024
}

impl Default for GateConfig {
    fn default() -> Self {
        GateConfig {
            quorum: default_quorum(),
            deadline_secs: default_deadline(),
            concurrency: default_concurrency(),
            max_review_bytes: default_max_review_bytes(),
            policy_files: Vec::new(),
        }
    }
}

/// How the pre-check's band is used.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum PrecheckMode {
    /// harmful ⇒ block, harmless ⇒ allow, uncertain ⇒ detectors.
    #[default]
    Cascade,
    /// harmful ⇒ block, anything else ⇒ detectors (a low score never allows on its own).
    BlockOnly,
    /// every input goes to the detectors.
    Off,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PrecheckConfig {
    #[serde(default)]
    pub mode: PrecheckMode,
    /// Device for the pre-check: "cpu" (default), "cuda" or "metal" (needs the cargo feature).
    #[serde(default)]
    pub device: Option<String>,
    /// Per-policy model override: policy id ⇒ `builtin:NAME`, a directory, or `hf:REPO`.
    #[serde(default)]
    pub models: BTreeMap<String, String>,
    /// Per-policy veto override (the policy's `precheck-veto`): a model
    /// reference as above, or `"off"` to let the pre-check model allow on
    /// its own (the report's config hash records the choice).
    #[serde(default)]
    pub vetoes: BTreeMap<String, String>,
    /// Per-policy threshold override.
    #[serde(default)]
    pub thresholds: BTreeMap<String, Thresholds>,
}

#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Thresholds {
    /// Score at or above which the pre-check blocks early.
    pub harmful_at: f32,
    /// Score below which the pre-check allows without any detector.
    pub harmless_below: f32,
}

#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum DetectorKind {
    /// OpenAI-compatible chat completions (OpenAI, Ollama, llama.cpp, vLLM, LM Studio).
    Openai,
    /// Anthropic Messages API.
    Anthropic,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct DetectorConfig {
    pub id: String,
    pub kind: DetectorKind,
    pub base_url: String,
    pub model: String,
    /// Name of the environment variable holding the API key (never the key).
    #[serde(default)]
    pub api_key_env: Option<String>,
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    /// Reply budget; the verdict object needs about 10 tokens.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
    /// Largest input slice sent in one call, in bytes; longer inputs are sliced.
    #[serde(default = "default_max_input_bytes")]
    pub max_input_bytes: usize,
    /// Retries on connection errors, 429 and 5xx.
    #[serde(default = "default_retries")]
    pub retries: u32,
    /// Calls of one input in flight at once when it needs several (default
    /// 1: a local server queues parallel requests, and a queued request can
    /// time out). Raise it for APIs that serve requests in parallel.
    #[serde(default = "default_parallel_calls")]
    pub parallel_calls: usize,
    #[serde(default)]
    pub price: Option<Price>,
}

fn default_timeout() -> u64 {
    30
}
fn default_max_tokens() -> u32 {
    16
}
fn default_max_input_bytes() -> usize {
    48 * 1024
}
fn default_retries() -> u32 {
    2
}
fn default_parallel_calls() -> usize {
    1
}

/// Prices are inputs to a run, not properties of models.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Price {
    /// Currency units per million input tokens.
    #[serde(default)]
    pub input_per_mtok: f64,
    /// Currency units per million output tokens.
    #[serde(default)]
    pub output_per_mtok: f64,
    /// Flat price of one request (for request-priced plans).
    #[serde(default)]
    pub per_request: f64,
}

impl Price {
    pub fn cost(&self, requests: u64, input_tokens: u64, output_tokens: u64) -> f64 {
        requests as f64 * self.per_request
            + input_tokens as f64 * self.input_per_mtok / 1e6
            + output_tokens as f64 * self.output_per_mtok / 1e6
    }
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct AllowEntry {
    /// sha256 of the artifact (hex).
    pub sha256: String,
    /// Why it is allowed; shown in the report.
    pub reason: String,
    /// Optional expiry date, `YYYY-MM-DD` (the entry stops applying on that day).
    #[serde(default)]
    pub expires: Option<String>,
}

/// Safety caps for reading packages and archives. A cap left out keeps its
/// default, so raising one does not mean restating the others.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Limits {
    /// Largest input file or archive read, in bytes; also standard input,
    /// and each line of a `--batch` file (a longer line blocks and ends the
    /// batch).
    pub max_input_bytes: u64,
    /// Total uncompressed bytes read from one archive.
    pub max_total_bytes: u64,
    /// Uncompressed bytes of one archive member.
    pub max_member_bytes: u64,
    /// Members in one archive.
    pub max_members: u64,
    /// Uncompressed / compressed ratio of a whole archive.
    pub max_ratio: u64,
    /// Archives inside archives (a wheel inside a zip, ...), 0 = none opened.
    pub max_nesting: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_input_bytes: 256 * 1024 * 1024,
            max_total_bytes: 512 * 1024 * 1024,
            max_member_bytes: 64 * 1024 * 1024,
            max_members: 50_000,
            max_ratio: 200,
            max_nesting: 1,
        }
    }
}

impl Config {
    /// Finds the config: `--config PATH` if given (must exist), else the
    /// built-in defaults. A `./canary.toml` in the working directory is
    /// never read unless named: Canary is run inside checkouts it has not
    /// judged yet, and a planted config could raise thresholds, turn the
    /// veto off or allowlist its own package. `ignored_local` says whether
    /// such a file was passed over, so the CLI can say so.
    pub fn discover(explicit: Option<&Path>) -> Result<Config, ConfigError> {
        match explicit {
            Some(path) => Config::from_file(path),
            None => Ok(Config::default()),
        }
    }

    /// A `./canary.toml` that `discover` passed over, if any.
    pub fn ignored_local(explicit: Option<&Path>) -> Option<PathBuf> {
        let local = Path::new("canary.toml");
        (explicit.is_none() && local.is_file()).then(|| local.to_path_buf())
    }

    pub fn from_file(path: &Path) -> Result<Config, ConfigError> {
        let cap = crate::util::MAX_SETTINGS_BYTES;
        let text = crate::util::read_text_at_most(path, cap)
            .map_err(|source| ConfigError::Read {
                path: path.to_path_buf(),
                source,
            })?
            .ok_or_else(|| ConfigError::TooLarge {
                path: path.to_path_buf(),
                cap,
            })?;
        let mut config = Config::from_toml(&text, &path.display().to_string())?;
        let base = path.parent().unwrap_or(Path::new("."));
        for file in &mut config.gate.policy_files {
            if file.is_relative() {
                *file = base.join(&*file);
            }
        }
        config.path = Some(path.to_path_buf());
        config.sha256 = Some(crate::util::sha256_hex(text.as_bytes()));
        Ok(config)
    }

    pub fn from_toml(text: &str, origin: &str) -> Result<Config, ConfigError> {
        let config: Config = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: origin.to_string(),
            message: e.to_string(),
        })?;
        let problems = config.problems();
        if problems.is_empty() {
            Ok(config)
        } else {
            Err(ConfigError::Invalid {
                path: origin.to_string(),
                problems,
            })
        }
    }

    /// Semantic checks that serde cannot express; all are reported at once.
    fn problems(&self) -> Vec<String> {
        let mut p = Vec::new();
        if self.gate.quorum == 0 {
            p.push("`gate.quorum` must be at least 1 (0 would decide with no vote)".into());
        }
        if self.gate.deadline_secs == 0 {
            p.push("`gate.deadline-secs` must be at least 1".into());
        }
        if self.gate.concurrency == 0 {
            p.push("`gate.concurrency` must be at least 1".into());
        }
        for (policy, t) in &self.precheck.thresholds {
            let in_unit = |x: f32| (0.0..=1.0).contains(&x);
            if !in_unit(t.harmful_at) || !in_unit(t.harmless_below) {
                p.push(format!(
                    "`precheck.thresholds.{policy}`: thresholds must lie in [0, 1]"
                ));
            } else if t.harmless_below > t.harmful_at {
                p.push(format!(
                    "`precheck.thresholds.{policy}`: harmless-below ({}) must not exceed harmful-at ({})",
                    t.harmless_below, t.harmful_at
                ));
            }
        }
        for (policy, v) in &self.precheck.vetoes {
            if v.trim().is_empty() {
                p.push(format!(
                    "`precheck.vetoes.{policy}` must not be empty: name a model, or \"off\""
                ));
            }
        }
        if let Some(d) = &self.precheck.device {
            if !matches!(d.as_str(), "cpu" | "cuda" | "metal") {
                p.push(format!(
                    "`precheck.device` = {d:?}: expected \"cpu\", \"cuda\" or \"metal\""
                ));
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        for (i, d) in self.detectors.iter().enumerate() {
            if d.id.trim().is_empty() {
                p.push(format!("`detectors[{i}].id` must not be empty"));
            } else if !seen.insert(d.id.clone()) {
                p.push(format!("detector id `{}` is used twice", d.id));
            }
            if !(d.base_url.starts_with("http://") || d.base_url.starts_with("https://")) {
                p.push(format!(
                    "`detectors[{i}].base-url` = {:?} must start with http:// or https://",
                    d.base_url
                ));
            }
            if d.model.trim().is_empty() {
                p.push(format!("`detectors[{i}].model` must not be empty"));
            }
            if d.timeout_secs == 0 {
                p.push(format!("`detectors[{i}].timeout-secs` must be at least 1"));
            }
            if d.max_input_bytes < 1024 {
                p.push(format!(
                    "`detectors[{i}].max-input-bytes` must be at least 1024"
                ));
            }
            if d.max_tokens == 0 {
                p.push(format!("`detectors[{i}].max-tokens` must be at least 1"));
            }
            if !(1..=64).contains(&d.parallel_calls) {
                p.push(format!(
                    "`detectors[{i}].parallel-calls` must be between 1 and 64"
                ));
            }
            if let Some(price) = &d.price {
                for (name, v) in [
                    ("input-per-mtok", price.input_per_mtok),
                    ("output-per-mtok", price.output_per_mtok),
                    ("per-request", price.per_request),
                ] {
                    // TOML has `nan` and `inf`: a cost report built on one
                    // is no report.
                    if !(v.is_finite() && v >= 0.0) {
                        p.push(format!(
                            "`detectors[{i}].price.{name}` = {v} must be a finite number, 0 or more"
                        ));
                    }
                }
            }
        }
        for (i, a) in self.allow.iter().enumerate() {
            let ok = a.sha256.len() == 64 && a.sha256.chars().all(|c| c.is_ascii_hexdigit());
            if !ok {
                p.push(format!(
                    "`allow[{i}].sha256` must be 64 hex digits, found {:?}",
                    a.sha256
                ));
            }
            if a.reason.trim().is_empty() {
                p.push(format!("`allow[{i}].reason` must not be empty"));
            }
            if let Some(e) = &a.expires {
                if crate::util::parse_date(e).is_none() {
                    p.push(format!(
                        "`allow[{i}].expires` = {e:?} is not a date of the form YYYY-MM-DD"
                    ));
                }
            }
        }
        let l = &self.limits;
        for (name, v) in [
            ("max-input-bytes", l.max_input_bytes),
            ("max-total-bytes", l.max_total_bytes),
            ("max-member-bytes", l.max_member_bytes),
            ("max-members", l.max_members),
            ("max-ratio", l.max_ratio),
        ] {
            if v == 0 {
                p.push(format!("`limits.{name}` must be at least 1"));
            }
        }
        p
    }

    /// The allowlist entry for an artifact hash, if one applies today.
    pub fn allowlisted(&self, sha256: &str, today: (i32, u32, u32)) -> Option<&AllowEntry> {
        self.allow.iter().find(|a| {
            a.sha256.eq_ignore_ascii_case(sha256)
                && match a.expires.as_deref().and_then(crate::util::parse_date) {
                    Some(expiry) => today < expiry,
                    None => a.expires.is_none(),
                }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_config_is_the_safe_default() {
        let c = Config::from_toml("", "t").unwrap();
        assert_eq!(c.gate.quorum, 2);
        assert_eq!(c.precheck.mode, PrecheckMode::Cascade);
        assert!(c.detectors.is_empty());
        assert_eq!(c.gate.max_review_bytes, 1024 * 1024);
    }

    #[test]
    fn misspelled_keys_are_refused_in_every_table() {
        for text in [
            "[gate]\nquorom = 2",
            "[precheck]\nmodes = \"off\"",
            "[precheck.thresholds.x]\nharmful-at = 0.9\nharmless-below = 0.1\nharmfull = 1",
            "[[detectors]]\nid='a'\nkind='openai'\nbase-url='http://127.0.0.1'\nmodel='m'\napi-key='sk-1'",
            "[[detectors]]\nid='a'\nkind='openai'\nbase-url='http://127.0.0.1'\nmodel='m'\nprice={input-per-mtok=1, outptu-per-mtok=2}",
            "[[allow]]\nsha256='00'\nreason='x'\nexpiry='2020-01-01'",
            "[limits]\nmax-input-byte = 1",
            "[gates]\nquorum = 2",
            "[gate]\nmax-review-byte = 1",
            "[[detectors]]\nid='a'\nkind='openai'\nbase-url='http://127.0.0.1'\nmodel='m'\nparallel-call=2",
        ] {
            let err = Config::from_toml(text, "t").unwrap_err().to_string();
            assert!(err.contains("unknown field"), "{text:?} gave {err}");
        }
    }

    #[test]
    fn a_limits_table_may_name_one_cap_and_keep_the_others() {
        let c = Config::from_toml("[limits]\nmax-nesting = 0", "t").unwrap();
        assert_eq!(
            c.limits,
            Limits {
                max_nesting: 0,
                ..Limits::default()
            }
        );
    }

    #[test]
    fn wrong_types_and_values_are_refused() {
        assert!(Config::from_toml("[gate]\nquorum = \"two\"", "t").is_err());
        let err = Config::from_toml("[precheck.vetoes]\nmalicious-package = \" \"", "t")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`precheck.vetoes.malicious-package` must not be empty"),
            "{err}"
        );
        let off = Config::from_toml("[precheck.vetoes]\nmalicious-package = \"off\"", "t").unwrap();
        assert_eq!(off.precheck.vetoes["malicious-package"], "off");
        assert!(Config::from_toml("[precheck.veto]\nmalicious-package = \"off\"", "t").is_err());
        assert!(Config::from_toml("[precheck]\nmode = \"sometimes\"", "t").is_err());
        assert!(Config::from_toml(
            "[[detectors]]\nid='a'\nkind='gemini'\nbase-url='http://x'\nmodel='m'",
            "t"
        )
        .is_err());
        let err = Config::from_toml(
            "[gate]\nquorum = 0\n[precheck.thresholds.p]\nharmful-at = 0.2\nharmless-below = 0.5",
            "t",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("quorum") && err.contains("harmless-below"),
            "{err}"
        );
        for n in [0, 65] {
            let err = Config::from_toml(
                &format!("[[detectors]]\nid='a'\nkind='openai'\nbase-url='http://x'\nmodel='m'\nparallel-calls={n}"),
                "t",
            )
            .unwrap_err()
            .to_string();
            assert!(err.contains("parallel-calls"), "{err}");
        }
        let det = "[[detectors]]\nid='a'\nkind='openai'\nbase-url='http://x'\nmodel='m'\n";
        for price in [
            "input-per-mtok = nan",
            "output-per-mtok = inf",
            "per-request = -1.0",
        ] {
            let err = Config::from_toml(&format!("{det}price = {{ {price} }}"), "t")
                .unwrap_err()
                .to_string();
            let key = price.split(' ').next().unwrap();
            assert!(err.contains(&format!("price.{key}`")), "{err}");
        }
        assert!(Config::from_toml(&format!("{det}price = {{ per-request = 0.0 }}"), "t").is_ok());
        for t in [
            "harmful-at = nan\nharmless-below = 0.1",
            "harmful-at = 0.9\nharmless-below = nan",
        ] {
            let err = Config::from_toml(&format!("[precheck.thresholds.p]\n{t}"), "t")
                .unwrap_err()
                .to_string();
            assert!(err.contains("must lie in [0, 1]"), "{err}");
        }
    }

    #[test]
    fn allowlist_respects_expiry() {
        let sha = "a".repeat(64);
        let c = Config::from_toml(
            &format!("[[allow]]\nsha256='{sha}'\nreason='vetted'\nexpires='2026-12-01'"),
            "t",
        )
        .unwrap();
        assert!(c.allowlisted(&sha, (2026, 11, 30)).is_some());
        assert!(c.allowlisted(&sha.to_uppercase(), (2026, 11, 30)).is_some());
        assert!(c.allowlisted(&sha, (2026, 12, 1)).is_none());
        assert!(c.allowlisted(&"b".repeat(64), (2026, 1, 1)).is_none());
    }
}
