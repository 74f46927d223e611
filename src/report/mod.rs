//! The structured report (`canary.report/v1`) and its renderings.
//!
//! Callers key off `decision`; everything else explains it. The report never
//! carries the scanned text itself, so it is safe to log (the audit log is the
//! report, one JSON line per decision), and it never carries a secret.

pub mod sarif;

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

pub const SCHEMA: &str = "canary.report/v1";

/// The largest report file Canary reads back (a cache entry, a quarantined
/// report): its reports are a few KB (the largest of the real packages' is
/// 6 KB), and a file the size of the disk must not be read into memory.
pub const FILE_MAX: u64 = 64 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    Allow,
    Block,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    PrecheckHarmless,
    QuorumHarmless,
    Allowlisted,
    PrecheckHarmful,
    QuorumHarmful,
    Inconclusive,
    InputError,
}

impl Reason {
    pub fn decision(self) -> Decision {
        match self {
            Reason::PrecheckHarmless | Reason::QuorumHarmless | Reason::Allowlisted => {
                Decision::Allow
            }
            _ => Decision::Block,
        }
    }

    /// A definitive harmful finding (by the pre-check or by quorum).
    pub fn is_harmful(self) -> bool {
        matches!(self, Reason::PrecheckHarmful | Reason::QuorumHarmful)
    }

    /// Process exit code for a report with this reason (the highest wins).
    pub fn exit_code(self) -> i32 {
        match self {
            Reason::PrecheckHarmless | Reason::QuorumHarmless | Reason::Allowlisted => 0,
            Reason::PrecheckHarmful | Reason::QuorumHarmful => 1,
            Reason::Inconclusive | Reason::InputError => 2,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Reason::PrecheckHarmless => "precheck-harmless",
            Reason::QuorumHarmless => "quorum-harmless",
            Reason::Allowlisted => "allowlisted",
            Reason::PrecheckHarmful => "precheck-harmful",
            Reason::QuorumHarmful => "quorum-harmful",
            Reason::Inconclusive => "inconclusive",
            Reason::InputError => "input-error",
        }
    }
}

/// What the pre-check said of the score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Band {
    Harmful,
    Harmless,
    Uncertain,
}

impl Band {
    /// The name reports use (the JSON value).
    pub fn as_str(&self) -> &'static str {
        match self {
            Band::Harmful => "harmful",
            Band::Harmless => "harmless",
            Band::Uncertain => "uncertain",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Vote {
    Harmful,
    Harmless,
    Failed,
    Skipped,
}

impl Vote {
    /// The name reports use (the JSON value).
    pub fn as_str(&self) -> &'static str {
        match self {
            Vote::Harmful => "harmful",
            Vote::Harmless => "harmless",
            Vote::Failed => "failed",
            Vote::Skipped => "skipped",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputInfo {
    pub id: Option<String>,
    pub source: String,
    pub kind: String,
    pub sha256: String,
    pub bytes: u64,
    /// For a version diff: the earlier release it was judged against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<BaseInfo>,
}

/// The earlier release a version diff was rendered against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaseInfo {
    pub source: String,
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrecheckReport {
    /// Model id and weight hash prefix; null when the policy has no model.
    pub model: Option<String>,
    pub score: Option<f32>,
    pub band: Band,
    pub slices: usize,
    pub top_slice: Option<Span>,
    /// For a rendered package, `path:line` of the file inside the top slice
    /// whose removal lowers the slice's score the most (where a reader should
    /// look first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// Why the band differs from what the score alone gives (a policy with
    /// `harmful-needs-code` lowered a harmful score on docs, data or test files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The policy's veto model, when it ran: on every input the main model
    /// cleared, and on uncertain ones whose text detectors review.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub veto: Option<VetoReport>,
}

/// What a policy's `precheck-veto` model made of an input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VetoReport {
    pub model: String,
    /// Its top slice score (NaN, an error, never clears).
    pub score: f32,
    pub slices: usize,
    pub top_slice: Span,
    /// `path:line` of its top slice, when it kept an allow from happening.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// Whether its top score was below its own harmless-below.
    pub cleared: bool,
    /// The veto reads a view of the input (`capabilities/v7`: the lines
    /// that can act on the machine) and this input has no line in it: its
    /// score 0 means "nothing for it to read", not "read and cleared".
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub empty_view: bool,
}

impl PrecheckReport {
    /// No pre-check ran (the policy has no model, or is unknown): uncertain.
    pub fn none() -> PrecheckReport {
        PrecheckReport {
            model: None,
            score: None,
            band: Band::Uncertain,
            slices: 0,
            top_slice: None,
            location: None,
            note: None,
            veto: None,
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl std::ops::AddAssign for TokenUsage {
    fn add_assign(&mut self, o: TokenUsage) {
        // A detector's server says these: a broken or hostile one must not
        // wrap the sum, nor panic a build with overflow checks.
        self.input_tokens = self.input_tokens.saturating_add(o.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(o.output_tokens);
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DetectorReport {
    pub id: String,
    pub model: String,
    pub vote: Vote,
    pub error: Option<String>,
    pub latency_ms: u64,
    pub calls: u32,
    pub usage: TokenUsage,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuorumReport {
    pub required: usize,
    pub harmful: usize,
    pub harmless: usize,
    pub failed: usize,
    pub skipped: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PolicyReport {
    pub id: String,
    pub decision: Decision,
    pub reason: Reason,
    pub precheck: PrecheckReport,
    /// What the detectors were given to judge; present when the policy
    /// needed them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<ReviewReport>,
    pub detectors: Vec<DetectorReport>,
    pub quorum: QuorumReport,
}

/// The part of an input put to the detectors. Under the cascade, slices the
/// pre-check scored below `harmless-below` are cleared by the same standard
/// that allows a whole input, and only the rest is sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewReport {
    /// Regions of the text (uncleared slices, merged where they overlap),
    /// judged highest pre-check score first.
    pub regions: usize,
    /// Bytes in those regions.
    pub bytes: usize,
    /// Bytes in the whole text.
    pub text_bytes: usize,
    /// Why no detector was asked: the regions were over `max-review-bytes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withheld: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    pub detector_calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl Usage {
    /// Adds one detector's calls and tokens.
    pub fn add(&mut self, calls: u64, tokens: TokenUsage) {
        *self += Usage {
            detector_calls: calls,
            input_tokens: tokens.input_tokens,
            output_tokens: tokens.output_tokens,
        };
    }
}

impl std::ops::AddAssign for Usage {
    /// Saturating, as [`TokenUsage`]'s.
    fn add_assign(&mut self, o: Usage) {
        self.detector_calls = self.detector_calls.saturating_add(o.detector_calls);
        self.input_tokens = self.input_tokens.saturating_add(o.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(o.output_tokens);
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub schema: String,
    pub input: InputInfo,
    pub decision: Decision,
    pub reason: Reason,
    /// Why the input could not be scanned, or why it was allowlisted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Observations about the input (links not followed, files skipped, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    pub policies: Vec<PolicyReport>,
    pub usage: Usage,
    pub elapsed_ms: u64,
    /// The config file the gate ran under (`--config`); absent for the
    /// built-in defaults. A caller that passes a config can pin the sha256
    /// it expects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<ConfigInfo>,
}

/// Which config file decided a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigInfo {
    pub path: String,
    pub sha256: String,
}

/// A score for people: four decimals, or scientific notation below 0.001,
/// where thresholds live (`0.0000` next to "band uncertain" reads as a
/// contradiction when harmless-below is 7e-9).
pub fn show_score(x: f32) -> String {
    if x != 0.0 && x.abs() < 1e-3 {
        format!("{x:.2e}")
    } else {
        format!("{x:.4}")
    }
}

impl Report {
    pub fn exit_code(&self) -> i32 {
        self.reason.exit_code()
    }

    /// The input's reason from its policies' reasons (the input is blocked if
    /// any policy blocks). A definitive harmful
    /// finding under any policy is the input's reason even when another
    /// policy was inconclusive: the block stands either way, and "harmful" is
    /// what a caller needs to act on (retrying will not clear it). Otherwise
    /// the most severe reason wins; no policy at all is inconclusive.
    pub fn overall_reason(policies: &[PolicyReport]) -> Reason {
        let reasons = || policies.iter().map(|p| p.reason);
        reasons()
            .filter(|r| r.is_harmful())
            .max()
            .or_else(|| reasons().max())
            .unwrap_or(Reason::Inconclusive)
    }

    /// A blocked report for an input that could not be read or rendered.
    pub fn input_error(input: InputInfo, error: String, notes: Vec<String>) -> Report {
        Report {
            schema: SCHEMA.to_string(),
            input,
            decision: Decision::Block,
            reason: Reason::InputError,
            error: Some(error),
            notes,
            policies: Vec::new(),
            usage: Usage::default(),
            elapsed_ms: 0,
            config: None,
        }
    }

    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("reports always serialize")
    }

    pub fn to_json_line(&self) -> String {
        serde_json::to_string(self).expect("reports always serialize")
    }

    /// A short human rendering, for terminals.
    pub fn to_human(&self) -> String {
        let mut s = String::new();
        let verdict = match self.decision {
            Decision::Allow => "ALLOW",
            Decision::Block => "BLOCK",
        };
        let name = self.input.id.as_deref().unwrap_or(&self.input.source);
        let _ = writeln!(
            s,
            "{verdict} {name} ({}, {} bytes) reason: {}",
            self.input.kind,
            self.input.bytes,
            self.reason.as_str()
        );
        if let Some(e) = &self.error {
            let _ = writeln!(s, "  error: {e}");
        }
        for n in &self.notes {
            let _ = writeln!(s, "  note: {n}");
        }
        for p in &self.policies {
            let score = p.precheck.score.map_or("n/a".to_string(), show_score);
            let top = p
                .precheck
                .top_slice
                .map(|t| format!(", top slice bytes {}..{}", t.start, t.end))
                .unwrap_or_default();
            let loc = p
                .precheck
                .location
                .as_ref()
                .map(|l| format!(" at {l}"))
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "  policy {}: {} ({}) pre-check score {score} band {}, {} slice(s){top}{loc}",
                p.id,
                match p.decision {
                    Decision::Allow => "allow",
                    Decision::Block => "block",
                },
                p.reason.as_str(),
                p.precheck.band.as_str(),
                p.precheck.slices,
            );
            if let Some(n) = &p.precheck.note {
                let _ = writeln!(s, "    note: {n}");
            }
            if let Some(v) = &p.precheck.veto {
                let _ = writeln!(
                    s,
                    "    veto {}: score {}, {} slice(s), {}{}",
                    v.model,
                    show_score(v.score),
                    v.slices,
                    match (v.cleared, v.empty_view) {
                        (true, true) => "cleared (no line its view keeps)",
                        (true, false) => "cleared",
                        (false, _) => "not cleared",
                    },
                    v.location
                        .as_ref()
                        .map(|l| format!(" at {l}"))
                        .unwrap_or_default()
                );
            }
            match &p.review {
                Some(ReviewReport {
                    withheld: Some(w), ..
                }) => {
                    let _ = writeln!(s, "    review withheld: {w}");
                }
                Some(r) => {
                    let _ = writeln!(
                        s,
                        "    review: {} region(s), {} of {} bytes put to the detectors",
                        r.regions, r.bytes, r.text_bytes
                    );
                }
                None => {}
            }
            for d in &p.detectors {
                let _ = writeln!(
                    s,
                    "    detector {} ({}): {}{} in {} ms, {} in / {} out tokens",
                    d.id,
                    d.model,
                    d.vote.as_str(),
                    d.error
                        .as_ref()
                        .map(|e| format!(" [{e}]"))
                        .unwrap_or_default(),
                    d.latency_ms,
                    d.usage.input_tokens,
                    d.usage.output_tokens
                );
            }
            if !p.detectors.is_empty() {
                let q = p.quorum;
                let _ = writeln!(
                    s,
                    "    quorum {}: {} harmful, {} harmless, {} failed, {} skipped",
                    q.required, q.harmful, q.harmless, q.failed, q.skipped
                );
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_order_by_severity_and_map_to_exit_codes() {
        assert!(Reason::PrecheckHarmful > Reason::QuorumHarmless);
        assert!(Reason::Inconclusive > Reason::QuorumHarmful);
        assert_eq!(Reason::Allowlisted.exit_code(), 0);
        assert_eq!(Reason::QuorumHarmful.exit_code(), 1);
        assert_eq!(Reason::InputError.exit_code(), 2);
        assert_eq!(show_score(0.57683), "0.5768");
        assert_eq!(show_score(7.456512e-9), "7.46e-9");
        assert_eq!(show_score(0.0), "0.0000");
        assert_eq!(Reason::Inconclusive.decision(), Decision::Block);
        assert_eq!(Report::overall_reason(&[]), Reason::Inconclusive);
        let json = serde_json::to_string(&Reason::PrecheckHarmless).unwrap();
        assert_eq!(json, "\"precheck-harmless\"");
    }

    fn policy(reason: Reason) -> PolicyReport {
        PolicyReport {
            id: "p".into(),
            decision: reason.decision(),
            reason,
            precheck: PrecheckReport::none(),
            review: None,
            detectors: Vec::new(),
            quorum: QuorumReport::default(),
        }
    }

    #[test]
    fn a_harmful_finding_is_the_inputs_reason_over_an_inconclusive_one() {
        use Reason::*;
        let overall = |rs: &[Reason]| {
            Report::overall_reason(&rs.iter().map(|r| policy(*r)).collect::<Vec<_>>())
        };
        assert_eq!(overall(&[PrecheckHarmful, Inconclusive]), PrecheckHarmful);
        assert_eq!(overall(&[Inconclusive, QuorumHarmful]), QuorumHarmful);
        assert_eq!(overall(&[PrecheckHarmful, QuorumHarmful]), QuorumHarmful);
        // Without a harmful finding the most severe reason wins, and any
        // block outranks any allow.
        assert_eq!(overall(&[PrecheckHarmless, Inconclusive]), Inconclusive);
        assert_eq!(overall(&[QuorumHarmless, PrecheckHarmless]), QuorumHarmless);
        assert_eq!(overall(&[Allowlisted, PrecheckHarmless]), Allowlisted);
        for r in [PrecheckHarmful, Inconclusive] {
            assert_eq!(overall(&[PrecheckHarmless, r]).decision(), Decision::Block);
        }
    }
}
