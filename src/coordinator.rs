//! The coordinator: records the input, runs the pre-check for each policy,
//! asks the detectors when the band calls for it, applies the quorum and
//! builds the report.
//!
//! The fail-closed rule lives in one pure function, [`decide`]. Everything
//! else here gathers its arguments. The coordinator knows votes, never HTTP;
//! and no path through it may turn an error or missing vote into `allow`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::config::{Config, PrecheckMode, Thresholds};
use crate::detector::{Detector, DetectorRequest};
use crate::input::Input;
use crate::policy::Policy;
use crate::precheck::Precheck;
use crate::report::{
    Band, Decision, DetectorReport, InputInfo, PolicyReport, PrecheckReport, QuorumReport, Reason,
    Report, ReviewReport, Span, Usage, VetoReport, Vote, SCHEMA,
};

/// The fail-closed decision for one policy.
///
/// * `band` is the pre-check's band, or `None` when there is no pre-check
///   model for the policy (treated as uncertain).
/// * `votes` are the detector votes (`skipped` and `failed` never count).
///
/// Harmful votes are counted first, so a quorum of harmful votes blocks even
/// if a quorum of harmless votes also exists. Fewer than `quorum` votes of
/// either kind is inconclusive, which blocks.
pub fn decide(mode: PrecheckMode, band: Option<Band>, votes: &[Vote], quorum: usize) -> Reason {
    match (mode, band) {
        (PrecheckMode::Cascade | PrecheckMode::BlockOnly, Some(Band::Harmful)) => {
            return Reason::PrecheckHarmful
        }
        (PrecheckMode::Cascade, Some(Band::Harmless)) => return Reason::PrecheckHarmless,
        _ => {}
    }
    // A quorum of zero would allow with no vote at all; config validation
    // refuses it, and this guard keeps the function safe on its own.
    let quorum = quorum.max(1);
    let harmful = votes.iter().filter(|v| **v == Vote::Harmful).count();
    let harmless = votes.iter().filter(|v| **v == Vote::Harmless).count();
    if harmful >= quorum {
        Reason::QuorumHarmful
    } else if harmless >= quorum {
        Reason::QuorumHarmless
    } else {
        Reason::Inconclusive
    }
}

/// The band under a policy whose harm is done by code (`harmful-needs-code`):
/// `all` is the band of the top slice, `code` that of the top slice holding
/// code (`None`: no slice holds code). The harmful band stands only when code
/// reaches it; otherwise it is lowered to uncertain, never further.
pub fn needs_code_band(all: Band, code: Option<Band>) -> Band {
    match (all, code) {
        (Band::Harmful, Some(Band::Harmful)) => Band::Harmful,
        (Band::Harmful, _) => Band::Uncertain,
        (other, _) => other,
    }
}

/// Maps a score to a band with the model's (or the config's) thresholds.
pub fn band(score: f32, harmful_at: f32, harmless_below: f32) -> Band {
    if score.is_nan() {
        Band::Uncertain
    } else if score >= harmful_at {
        Band::Harmful
    } else if score < harmless_below {
        Band::Harmless
    } else {
        Band::Uncertain
    }
}

/// How far under `harmless-below` a score must fall to clear when the
/// pre-check does not run on the path its thresholds were calibrated on.
/// Thresholds come from CPU scores, and a calibrated `harmless-below` is
/// the lowest harmful dev score itself: on an H200, CUDA scores differed
/// from the CPU's by up to 8.4e-5 of their value (session 35, dev of both
/// policies), and one harmful prompt-injection dev row scored 0.008584418
/// there against its own threshold of 0.008584422, an allow on the GPU
/// and a block on the CPU. The margin is twelve times that difference.
pub const DEVICE_MARGIN: f32 = 1e-3;

/// The thresholds a pre-check's scores are held to: its own, or with
/// `harmless-below` lowered by [`DEVICE_MARGIN`] where the scores are not
/// exact. Only the allow moves: noise may make an input uncertain, never
/// clear it.
pub fn held_to(t: Thresholds, exact: bool) -> Thresholds {
    if exact {
        t
    } else {
        Thresholds {
            harmless_below: t.harmless_below * (1.0 - DEVICE_MARGIN),
            ..t
        }
    }
}

/// The regions of a text the detectors must judge after a cascade
/// pre-check: every slice it did not clear (a score below `harmless_below`
/// clears a slice, by the same standard that allows a whole input; NaN never
/// clears), merged where slices overlap or touch, ordered by the top score
/// in each region (NaN first, then highest, then earliest), so the most
/// suspicious text is judged first and a harmful vote stops a detector early.
pub fn review_regions(scores: &[(f32, Span)], harmless_below: f32) -> Vec<Span> {
    let mut kept: Vec<(f32, Span)> = scores
        .iter()
        .copied()
        .filter(|(score, _)| !clears(*score, harmless_below))
        .collect();
    kept.sort_by_key(|(_, span)| span.start);
    let mut regions: Vec<(f32, Span)> = Vec::new();
    for (score, span) in kept {
        match regions.last_mut() {
            Some((top, region)) if span.start <= region.end => {
                region.end = region.end.max(span.end);
                if score.is_nan() || score > *top {
                    *top = score;
                }
            }
            _ => regions.push((score, span)),
        }
    }
    regions.sort_by(|(a, x), (b, y)| {
        b.is_nan()
            .cmp(&a.is_nan())
            .then(b.partial_cmp(a).unwrap_or(std::cmp::Ordering::Equal))
            .then(x.start.cmp(&y.start))
    });
    regions.into_iter().map(|(_, span)| span).collect()
}

/// The band after a veto model's check: it can only turn a harmless band
/// into uncertain (when it did not clear the input), never anything else.
pub fn veto_band(band: Band, veto_cleared: bool) -> Band {
    match band {
        Band::Harmless if !veto_cleared => Band::Uncertain,
        other => other,
    }
}

/// The union of two region lists as [`review_regions`] gives them: spans
/// that overlap or touch are merged; `first`'s order is kept (its spans
/// ranked by its model's scores), then what only `second` holds, in its
/// order.
pub fn merge_regions(first: &[Span], second: &[Span]) -> Vec<Span> {
    // Each span's rank is its place in `first` then `second`; spans that
    // meet, directly or through others, become one region at the best rank
    // among them. One sweep in start order: a veto's review can be
    // thousands of short runs of lines.
    let mut ranked: Vec<(usize, Span)> = first.iter().chain(second).copied().enumerate().collect();
    ranked.sort_by_key(|(_, sp)| (sp.start, sp.end));
    let mut groups: Vec<(usize, Span)> = Vec::new();
    for (rank, sp) in ranked {
        match groups.last_mut() {
            Some((best, g)) if sp.start <= g.end => {
                g.end = g.end.max(sp.end);
                *best = (*best).min(rank);
            }
            _ => groups.push((rank, sp)),
        }
    }
    groups.sort_by_key(|(rank, _)| *rank);
    groups.into_iter().map(|(_, sp)| sp).collect()
}

/// Whether a slice's score clears it (NaN, an error, never does).
fn clears(score: f32, harmless_below: f32) -> bool {
    score < harmless_below
}

/// One policy with the pre-check that scores it.
pub struct PolicyGate {
    pub policy: Policy,
    pub precheck: Option<Arc<dyn Precheck>>,
    /// The policy's `precheck-veto`: must also clear an input before the
    /// pre-check allows it (see [`veto_band`]).
    pub veto: Option<Arc<dyn Precheck>>,
}

/// Everything a scan needs, built once per run.
pub struct Coordinator {
    pub config: Config,
    pub gates: Vec<PolicyGate>,
    pub detectors: Vec<Arc<dyn Detector>>,
    pub local_only: bool,
    runtime: tokio::runtime::Runtime,
    limiter: Arc<tokio::sync::Semaphore>,
}

impl Coordinator {
    /// A hash of everything besides the input that decides a report: the
    /// binary's version, the config, each policy's text and model. Result
    /// caches key on it.
    pub fn fingerprint(&self) -> String {
        let gates: Vec<serde_json::Value> = self
            .gates
            .iter()
            .map(|g| {
                serde_json::json!({
                    "policy": g.policy,
                    "model": g.precheck.as_ref().map(|m| m.fingerprint()),
                    "veto": g.veto.as_ref().map(|m| m.fingerprint()),
                })
            })
            .collect();
        let material = serde_json::json!({
            "version": env!("CARGO_PKG_VERSION"),
            // The version number stays put while rendering and the gate
            // change; the source does not.
            "source": env!("CANARY_SOURCE_SHA256"),
            "config": self.config,
            "gates": gates,
            "local_only": self.local_only,
        });
        crate::util::sha256_hex(material.to_string().as_bytes())
    }

    pub fn new(
        config: Config,
        gates: Vec<PolicyGate>,
        detectors: Vec<Arc<dyn Detector>>,
        local_only: bool,
    ) -> std::io::Result<Coordinator> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let limiter = Arc::new(tokio::sync::Semaphore::new(config.gate.concurrency));
        Ok(Coordinator {
            config,
            gates,
            detectors,
            local_only,
            runtime,
            limiter,
        })
    }

    /// The config file this gate runs under, for reports.
    pub fn config_info(&self) -> Option<crate::report::ConfigInfo> {
        match (&self.config.path, &self.config.sha256) {
            (Some(path), Some(sha256)) => Some(crate::report::ConfigInfo {
                path: path.display().to_string(),
                sha256: sha256.clone(),
            }),
            _ => None,
        }
    }

    /// Scans one input under the given policies (indices into `gates`).
    pub fn scan(&self, input: &Input, policy_ids: &[String]) -> Report {
        Report {
            config: self.config_info(),
            ..self.judge(input, policy_ids)
        }
    }

    fn judge(&self, input: &Input, policy_ids: &[String]) -> Report {
        let started = Instant::now();
        let info = input.info();
        if let Some(err) = &input.error {
            let mut r = Report::input_error(info, err.clone(), input.notes.clone());
            r.elapsed_ms = started.elapsed().as_millis() as u64;
            return r;
        }
        if let Some(entry) = self
            .config
            .allowlisted(&input.sha256, crate::util::today_utc())
        {
            return Report {
                schema: SCHEMA.to_string(),
                input: info,
                decision: Decision::Allow,
                reason: Reason::Allowlisted,
                error: Some(format!(
                    "allowlisted: {}{}",
                    entry.reason,
                    entry
                        .expires
                        .as_ref()
                        .map(|e| format!(" (until {e})"))
                        .unwrap_or_default()
                )),
                notes: input.notes.clone(),
                policies: Vec::new(),
                usage: Usage::default(),
                elapsed_ms: started.elapsed().as_millis() as u64,
                config: None,
            };
        }
        let mut policies = Vec::new();
        let mut usage = Usage::default();
        for id in policy_ids {
            let Some(gate) = self.gates.iter().find(|g| &g.policy.id == id) else {
                // Resolution happens before scanning; reaching here is a bug,
                // and a bug must block.
                policies.push(missing_policy(id));
                continue;
            };
            let pr = self.scan_policy(gate, input);
            for d in &pr.detectors {
                usage.add(d.calls as u64, d.usage);
            }
            policies.push(pr);
        }
        let reason = Report::overall_reason(&policies);
        Report {
            schema: SCHEMA.to_string(),
            input: info,
            decision: reason.decision(),
            reason,
            error: None,
            notes: input.notes.clone(),
            policies,
            usage,
            elapsed_ms: started.elapsed().as_millis() as u64,
            config: None,
        }
    }

    fn scan_policy(&self, gate: &PolicyGate, input: &Input) -> PolicyReport {
        let mode = self.config.precheck.mode;
        if let Some(why) = &input.unjudgeable {
            // No band and no vote: the one decision rule makes it inconclusive.
            let precheck = PrecheckReport {
                note: Some(why.clone()),
                ..PrecheckReport::none()
            };
            return self.policy_report(gate, None, precheck, None, Vec::new());
        }
        // What the detectors judge: the whole text, unless the cascade
        // cleared slices of it.
        let mut regions = None;
        let (mut precheck, band) = match &gate.precheck {
            Some(model) => {
                let scores = model.slice_scores(&input.text);
                let t = held_to(
                    self.config
                        .precheck
                        .thresholds
                        .get(&gate.policy.id)
                        .copied()
                        .unwrap_or_else(|| model.thresholds()),
                    model.exact(),
                );
                let mut s = crate::precheck::PrecheckScore::of(&scores);
                let mut b = band(s.score, t.harmful_at, t.harmless_below);
                if mode == PrecheckMode::Cascade {
                    regions = Some(review_regions(&scores, t.harmless_below));
                }
                let mut note = None;
                // Only a harmful band can change; skip the second pass otherwise.
                if gate.policy.harmful_needs_code && b == Band::Harmful {
                    let code = crate::precheck::top(&scores, |span| input.span_holds_code(span));
                    b = needs_code_band(
                        b,
                        code.map(|c| band(c.score, t.harmful_at, t.harmless_below)),
                    );
                    match code {
                        Some(c) if b == Band::Harmful => s = c,
                        _ => {
                            note = Some(format!(
                                "harmful score {:.4} only on documentation, data or test files, or files a wheel installs under the environment's share/ folder; no slice holding code reaches harmful-at {:.4}: lowered to uncertain",
                                s.score, t.harmful_at
                            ))
                        }
                    }
                }
                // The veto confirms an allow, and where detectors will be
                // asked it adds what it did not clear to their review (a
                // payload the main model's long slices diluted). Without an
                // askable detector an uncertain band blocks anyway, so it
                // is not run there.
                let mut veto_report = None;
                if let Some(v) = &gate.veto {
                    // Regions that already cover the whole text gain nothing.
                    let whole = |r: &Vec<Span>| {
                        r.len() == 1 && r[0].start == 0 && r[0].end == input.text.len()
                    };
                    let review_asked = regions.as_ref().is_some_and(|r| !whole(r))
                        && b == Band::Uncertain
                        && self.askable();
                    if b == Band::Harmless || review_asked {
                        let parts = v.slice_scores_in_parts(&input.text);
                        let vs: Vec<(f32, Span)> =
                            parts.iter().map(|(s, sp, _)| (*s, *sp)).collect();
                        let vt = held_to(v.thresholds(), v.exact());
                        let top = crate::precheck::PrecheckScore::of(&vs);
                        let cleared = clears(top.score, vt.harmless_below);
                        // Of a slice of a view, detectors get the lines it
                        // holds, not all the source between its first and
                        // last: what lies between was not read by the veto,
                        // and is in the main model's review unless its
                        // slices cleared it.
                        if let Some(r) = &mut regions {
                            let lines: Vec<(f32, Span)> = parts
                                .iter()
                                .flat_map(|(s, _, p)| p.iter().map(move |sp| (*s, *sp)))
                                .collect();
                            *r = merge_regions(r, &review_regions(&lines, vt.harmless_below));
                        }
                        let after = veto_band(b, cleared);
                        let vetoed = after != b;
                        b = after;
                        if vetoed {
                            note = Some(format!(
                                "the main model cleared this input, but the veto model {} scores {} at or above its harmless-below {}: left to detectors",
                                v.model_id(),
                                crate::report::show_score(top.score),
                                crate::report::show_score(vt.harmless_below)
                            ));
                        }
                        veto_report = Some(VetoReport {
                            model: v.model_id().to_string(),
                            score: top.score,
                            slices: top.slices,
                            top_slice: top.top_slice,
                            location: if vetoed {
                                input.locate(top.top_slice.start)
                            } else {
                                None
                            },
                            cleared,
                            empty_view: v.view() != crate::precheck::View::Text
                                && top.top_slice.start == top.top_slice.end,
                        });
                    }
                }
                // Install-time code, code that runs text it does not hold,
                // and code that spies or makes itself run again, are never
                // allowed on a score alone: the veto's lexicon is a list of
                // names, a hook's command (`<!(echo … | base64 -d | sh)` in
                // a binding.gyp) can run what no name in it shows,
                // `exec(open(p).read())` runs a file the veto may have read
                // as a document, and the veto weighs a key listener against
                // the library around it. Detectors read the whole text.
                let cleared = gate.policy.harmful_needs_code && b == Band::Harmless;
                for why in input.not_on_scores_alone.iter().filter(|_| cleared) {
                    b = Band::Uncertain;
                    regions = None;
                    note = Some(match note.take() {
                        Some(n) => format!("{n}; {why}"),
                        None => why.clone(),
                    });
                }
                // Plain inputs have no sections: no rescoring, no location.
                let location = input.locate(input.hotspot(s.top_slice, |t| model.score(t).score));
                (
                    PrecheckReport {
                        model: Some(model.model_id().to_string()),
                        score: Some(s.score),
                        band: b,
                        slices: s.slices,
                        top_slice: Some(s.top_slice),
                        location,
                        note,
                        veto: veto_report,
                    },
                    Some(b),
                )
            }
            None => (PrecheckReport::none(), None),
        };
        // Code no reader of the text can judge: neither the pre-check nor
        // detectors (who read the same text) may clear it. Only a harmful
        // finding stands; anything else is inconclusive, with no call made.
        let opaque = input
            .opaque_code
            .as_ref()
            .filter(|_| gate.policy.harmful_needs_code && band != Some(Band::Harmful));
        if let Some(why) = opaque {
            precheck.note = Some(match precheck.note.take() {
                Some(n) => format!("{why}; {n}"),
                None => why.clone(),
            });
            if precheck.band == Band::Harmless {
                precheck.band = Band::Uncertain;
            }
            return self.policy_report(gate, None, precheck, None, Vec::new());
        }
        let needs_detectors = !matches!(
            (mode, band),
            (
                PrecheckMode::Cascade | PrecheckMode::BlockOnly,
                Some(Band::Harmful)
            ) | (PrecheckMode::Cascade, Some(Band::Harmless))
        );
        let (review, detectors) = if needs_detectors {
            let text = Arc::clone(&input.text);
            let request = match regions {
                Some(r) => DetectorRequest::of_spans(&gate.policy, text, r),
                None => DetectorRequest::new(&gate.policy, text),
            }
            .with_sections(&input.sections);
            let bytes = request.spans.iter().map(|s| s.end - s.start).sum();
            let mut review = ReviewReport {
                regions: request.spans.len(),
                bytes,
                text_bytes: input.text.len(),
                withheld: None,
            };
            let max = self.config.gate.max_review_bytes;
            // Over the budget, send nothing: half a review cannot allow.
            // Without a detector that would be asked (none configured, or
            // all remote under --local-only) there is no cost to bound, and
            // the detectors are listed as skipped as usual.
            if self.askable() && bytes > max {
                review.withheld = Some(format!(
                    "{bytes} bytes in {} region(s) need review, over max-review-bytes ({max}); no detector was asked. Raise [gate] max-review-bytes (and deadline-secs) to send them",
                    review.regions
                ));
                (Some(review), Vec::new())
            } else {
                (Some(review), self.run_detectors(request))
            }
        } else {
            (None, Vec::new())
        };
        self.policy_report(gate, band, precheck, review, detectors)
    }

    /// Whether some detector would be asked (one is configured and, under
    /// `--local-only`, on loopback).
    fn askable(&self) -> bool {
        self.detectors
            .iter()
            .any(|d| !self.local_only || d.is_local())
    }

    /// The policy's report: its reason decided from the pre-check band and
    /// the detectors' votes, with the quorum counted.
    fn policy_report(
        &self,
        gate: &PolicyGate,
        band: Option<Band>,
        precheck: PrecheckReport,
        review: Option<ReviewReport>,
        detectors: Vec<DetectorReport>,
    ) -> PolicyReport {
        let votes: Vec<Vote> = detectors.iter().map(|d| d.vote).collect();
        let quorum = self.config.gate.quorum;
        let reason = decide(self.config.precheck.mode, band, &votes, quorum);
        PolicyReport {
            id: gate.policy.id.clone(),
            decision: reason.decision(),
            reason,
            precheck,
            review,
            quorum: QuorumReport {
                required: quorum,
                harmful: count(&votes, Vote::Harmful),
                harmless: count(&votes, Vote::Harmless),
                failed: count(&votes, Vote::Failed),
                skipped: count(&votes, Vote::Skipped),
            },
            detectors,
        }
    }

    /// All detectors concurrently, each with its own timeout, all under one
    /// deadline. Non-loopback detectors are skipped under `--local-only`
    /// before anything is sent.
    fn run_detectors(&self, request: DetectorRequest) -> Vec<DetectorReport> {
        let deadline = Duration::from_secs(self.config.gate.deadline_secs);
        let request = Arc::new(request);
        let futures: Vec<_> = self
            .detectors
            .iter()
            .map(|d| {
                let d = Arc::clone(d);
                let req = Arc::clone(&request);
                let local_only = self.local_only;
                let limiter = Arc::clone(&self.limiter);
                async move {
                    if local_only && !d.is_local() {
                        return skipped(&*d, "skipped: local-only (endpoint is not loopback)");
                    }
                    let started = Instant::now();
                    let Ok(_permit) = limiter.acquire_owned().await else {
                        return failed(&*d, "concurrency limiter closed", started);
                    };
                    match tokio::time::timeout(deadline, d.vote(&req)).await {
                        Ok(outcome) => outcome.into_report(&*d),
                        Err(_) => failed(
                            &*d,
                            &format!("decision deadline of {}s passed", deadline.as_secs()),
                            started,
                        ),
                    }
                }
            })
            .collect();
        self.runtime.block_on(join_all(futures))
    }
}

async fn join_all<F: std::future::Future<Output = DetectorReport> + Send + 'static>(
    futures: Vec<F>,
) -> Vec<DetectorReport> {
    let handles: Vec<_> = futures.into_iter().map(tokio::spawn).collect();
    let mut out = Vec::with_capacity(handles.len());
    for h in handles {
        out.push(match h.await {
            Ok(r) => r,
            Err(e) => DetectorReport {
                id: "unknown".into(),
                model: String::new(),
                vote: Vote::Failed,
                error: Some(format!("detector task failed: {e}")),
                latency_ms: 0,
                calls: 0,
                usage: Default::default(),
            },
        });
    }
    out
}

fn count(votes: &[Vote], v: Vote) -> usize {
    votes.iter().filter(|x| **x == v).count()
}

fn skipped(d: &dyn Detector, why: &str) -> DetectorReport {
    DetectorReport {
        id: d.id().to_string(),
        model: d.model().to_string(),
        vote: Vote::Skipped,
        error: Some(why.to_string()),
        latency_ms: 0,
        calls: 0,
        usage: Default::default(),
    }
}

fn failed(d: &dyn Detector, why: &str, started: Instant) -> DetectorReport {
    DetectorReport {
        id: d.id().to_string(),
        model: d.model().to_string(),
        vote: Vote::Failed,
        error: Some(why.to_string()),
        latency_ms: started.elapsed().as_millis() as u64,
        calls: 1,
        usage: Default::default(),
    }
}

fn missing_policy(id: &str) -> PolicyReport {
    PolicyReport {
        id: id.to_string(),
        decision: Decision::Block,
        reason: Reason::Inconclusive,
        precheck: PrecheckReport::none(),
        review: None,
        detectors: Vec::new(),
        quorum: QuorumReport::default(),
    }
}

impl Input {
    pub fn info(&self) -> InputInfo {
        InputInfo {
            id: self.id.clone(),
            source: self.source.clone(),
            kind: self.kind.as_str().to_string(),
            sha256: self.sha256.clone(),
            bytes: self.bytes,
            base: self.base.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Text;
    use Vote::*;

    const ALL: [Vote; 4] = [Harmful, Harmless, Failed, Skipped];

    /// The cache keys on `CANARY_SOURCE_SHA256`; it must be the hash of the
    /// source this binary was built from, or a cached decision outlives a
    /// change to rendering or the gate. Recomputed here as build.rs does.
    #[test]
    fn the_cache_fingerprint_covers_the_source_it_was_built_from() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let files = crate::source_hash::source_files(root);
        assert!(files.iter().any(|(p, _)| p == "src/coordinator.rs"));
        assert_eq!(
            env!("CANARY_SOURCE_SHA256"),
            crate::source_hash::source_sha256(&files)
        );
    }

    /// Every combination of three detector votes, with quorum 2, when the
    /// pre-check sends the input to the detectors.
    #[test]
    fn quorum_table_for_three_detectors() {
        let mut combos = 0;
        for a in ALL {
            for b in ALL {
                for c in ALL {
                    let votes = [a, b, c];
                    let h = votes.iter().filter(|v| **v == Harmful).count();
                    let s = votes.iter().filter(|v| **v == Harmless).count();
                    let expected = match (h, s) {
                        (2.., _) => Reason::QuorumHarmful,
                        (_, 2..) => Reason::QuorumHarmless,
                        _ => Reason::Inconclusive,
                    };
                    for (mode, band) in [
                        (PrecheckMode::Cascade, Some(Band::Uncertain)),
                        (PrecheckMode::Cascade, None),
                        (PrecheckMode::BlockOnly, Some(Band::Harmless)),
                        (PrecheckMode::BlockOnly, Some(Band::Uncertain)),
                        (PrecheckMode::Off, Some(Band::Harmful)),
                        (PrecheckMode::Off, Some(Band::Harmless)),
                    ] {
                        let got = decide(mode, band, &votes, 2);
                        assert_eq!(got, expected, "{votes:?} {mode:?} {band:?}");
                        if got == Reason::QuorumHarmless {
                            assert!(s >= 2, "allowed without two harmless votes: {votes:?}");
                        }
                    }
                    combos += 1;
                }
            }
        }
        assert_eq!(combos, 64);
    }

    #[test]
    fn named_outcomes() {
        let q = |v: &[Vote]| decide(PrecheckMode::Cascade, Some(Band::Uncertain), v, 2);
        assert_eq!(q(&[Harmless, Harmless, Failed]), Reason::QuorumHarmless);
        assert_eq!(q(&[Harmful, Harmless, Failed]), Reason::Inconclusive);
        assert_eq!(q(&[Harmful, Harmful, Harmless]), Reason::QuorumHarmful);
        assert_eq!(q(&[Failed, Failed, Failed]), Reason::Inconclusive);
        assert_eq!(
            q(&[]),
            Reason::Inconclusive,
            "no detectors: uncertain blocks"
        );
        assert_eq!(q(&[Skipped, Skipped, Harmless]), Reason::Inconclusive);
        // A harmful quorum wins over a harmless one (five detectors).
        assert_eq!(
            q(&[Harmful, Harmful, Harmless, Harmless, Harmless]),
            Reason::QuorumHarmful
        );
        // Quorum 0 cannot allow with no votes.
        assert_eq!(
            decide(PrecheckMode::Cascade, None, &[], 0),
            Reason::Inconclusive
        );
    }

    #[test]
    fn bands_drive_the_cascade() {
        use PrecheckMode::*;
        let none: &[Vote] = &[];
        assert_eq!(
            decide(Cascade, Some(Band::Harmful), &[Harmless, Harmless], 2),
            Reason::PrecheckHarmful
        );
        assert_eq!(
            decide(Cascade, Some(Band::Harmless), none, 2),
            Reason::PrecheckHarmless
        );
        assert_eq!(
            decide(BlockOnly, Some(Band::Harmless), none, 2),
            Reason::Inconclusive,
            "block-only: a low score never allows on its own"
        );
        assert_eq!(
            decide(BlockOnly, Some(Band::Harmful), none, 2),
            Reason::PrecheckHarmful
        );
        assert_eq!(
            decide(Off, Some(Band::Harmless), none, 2),
            Reason::Inconclusive
        );
        assert_eq!(
            decide(Off, Some(Band::Harmful), &[Harmless, Harmless], 2),
            Reason::QuorumHarmless
        );
    }

    fn package(files: &[(&str, String)]) -> Input {
        let mut input = Input::from_text(None, "pkg.tar.gz", b"");
        let mut text = String::new();
        for (path, body) in files {
            input.sections.push((text.len(), path.to_string()));
            text.push_str(body);
        }
        input.text = Arc::new(Text::from(text));
        input
    }

    /// A coordinator for the malicious-package policy with the [`LEVELS`]
    /// pre-check and the given detectors.
    fn levels_coordinator(
        config: Config,
        detectors: Vec<Arc<dyn Detector>>,
        local_only: bool,
    ) -> Coordinator {
        Coordinator::new(
            config,
            vec![PolicyGate {
                policy: Policy::builtin("malicious-package").unwrap(),
                precheck: Some(Arc::new(LEVELS) as Arc<dyn Precheck>),
                veto: None,
            }],
            detectors,
            local_only,
        )
        .unwrap()
    }

    #[test]
    fn harmful_needs_code_lowers_a_harmful_score_on_data_alone() {
        let gate = |needs_code: bool| {
            let mut policy = Policy::builtin("malicious-package").unwrap();
            policy.harmful_needs_code = needs_code;
            PolicyGate {
                policy,
                precheck: Some(Arc::new(LEVELS) as Arc<dyn Precheck>),
                veto: None,
            }
        };
        let code = "x".repeat(64);
        let run = |needs_code: bool, input: &Input| {
            let c =
                Coordinator::new(Config::default(), vec![gate(needs_code)], vec![], true).unwrap();
            c.scan(input, &["malicious-package".to_string()]).policies[0].clone()
        };
        // The payload sits in a slice that holds only a data file.
        let data = package(&[
            ("setup.py", code.clone()),
            ("tests/data/blob.json", format!("{:-<57}PAYLOAD", "")),
        ]);
        let p = run(true, &data);
        assert_eq!(p.precheck.band, Band::Uncertain);
        assert_eq!(p.reason, Reason::Inconclusive);
        assert!(p
            .precheck
            .note
            .as_deref()
            .unwrap()
            .contains("documentation, data or test files"));
        let p = run(false, &data);
        assert_eq!(
            (p.precheck.band, p.reason),
            (Band::Harmful, Reason::PrecheckHarmful)
        );
        assert!(p.precheck.note.is_none());
        // In a test tree a sample of any other kind is data too (a parser's
        // error case, a lexer's example); a test script stays code.
        for (path, band) in [
            ("tests/data/case.loader-error", Band::Uncertain),
            ("tests/examplefiles/addon.toc", Band::Uncertain),
            ("tests/data/case.py", Band::Harmful),
            ("tests/run.sh", Band::Harmful),
            ("pkg/case.loader-error", Band::Harmful),
        ] {
            let input = package(&[
                ("setup.py", code.clone()),
                (path, format!("{:-<57}PAYLOAD", "")),
            ]);
            assert_eq!(run(true, &input).precheck.band, band, "{path}");
        }
        // A harmful slice holding code keeps the harmful band, and the report
        // points at it even when a data slice scores as high.
        let both = package(&[
            ("setup.py", format!("{:-<50}PAYLOAD{:-<7}", "", "")),
            ("tests/data/blob.json", format!("{:-<57}PAYLOAD", "")),
        ]);
        let p = run(true, &both);
        assert_eq!(
            (p.precheck.band, p.reason),
            (Band::Harmful, Reason::PrecheckHarmful)
        );
        assert_eq!(p.precheck.location.as_deref(), Some("setup.py:1"));
        assert!(p.precheck.note.is_none());
    }

    #[test]
    fn detectors_are_handed_the_input_text_without_a_copy() {
        // A rendered package can be hundreds of MB; a copy per scan doubled
        // the peak memory of every uncertain package.
        let input = package(&[("setup.py", format!("{:-<200}ODD", ""))]);
        let d = Arc::new(Recorder {
            local: true,
            ..Default::default()
        });
        let c = levels_coordinator(
            Config::default(),
            vec![d.clone() as Arc<dyn Detector>],
            true,
        );
        let r = c.scan(&input, &["malicious-package".to_string()]);
        // LEVELS scores "ODD" 0.5: uncertain, so the detector is asked.
        assert_eq!(r.policies[0].detectors.len(), 1);
        let texts = d.texts.lock().unwrap();
        assert_eq!(texts.len(), 1);
        assert!(Arc::ptr_eq(&texts[0], &input.text));
    }

    fn sp(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    #[test]
    fn review_regions_keep_what_the_precheck_did_not_clear() {
        // Slices of 10 bytes overlapping by 2 (step 8), as a model slices.
        let scores: Vec<(f32, Span)> = [0.01, 0.3, 0.6, 0.01, 0.01, f32::NAN, 0.02, 0.6]
            .iter()
            .enumerate()
            .map(|(i, s)| (*s, sp(i * 8, i * 8 + 10)))
            .collect();
        let regions = review_regions(&scores, 0.05);
        // NaN first; then the two regions topping at 0.6, earliest first.
        // Slices 1 and 2 overlap and merge; 0.02 < 0.05 is cleared.
        assert_eq!(regions, vec![sp(40, 50), sp(8, 26), sp(56, 66)]);
        // Every byte of an uncleared slice is in a region, and every region
        // byte lies in some uncleared slice.
        for (score, span) in &scores {
            for b in span.start..span.end {
                let in_region = regions.iter().any(|r| r.start <= b && b < r.end);
                if !clears(*score, 0.05) {
                    assert!(in_region, "byte {b} of an uncleared slice left out");
                }
            }
        }
        for r in &regions {
            for b in r.start..r.end {
                assert!(scores
                    .iter()
                    .any(|(s, x)| !clears(*s, 0.05) && x.start <= b && b < x.end));
            }
        }
        // A threshold at zero clears nothing: one region, the whole text.
        // One above every score clears all but the NaN slice.
        assert_eq!(review_regions(&scores, 0.0), vec![sp(0, 66)]);
        assert_eq!(review_regions(&scores, 1.0), vec![sp(40, 50)]);
        // Slices that only touch merge too; order does not depend on input order.
        let mut touching = vec![(0.5, sp(10, 20)), (0.4, sp(0, 10)), (0.9, sp(30, 40))];
        assert_eq!(review_regions(&touching, 0.1), vec![sp(30, 40), sp(0, 20)]);
        touching.reverse();
        assert_eq!(review_regions(&touching, 0.1), vec![sp(30, 40), sp(0, 20)]);
    }

    /// A stand-in model: a slice of `window` bytes scores the value of the
    /// first of `words` it holds, else `calm`.
    struct Words {
        id: &'static str,
        thresholds: crate::config::Thresholds,
        window: usize,
        words: &'static [(&'static [u8], f32)],
        calm: f32,
    }
    impl Precheck for Words {
        fn model_id(&self) -> &str {
            self.id
        }
        fn thresholds(&self) -> crate::config::Thresholds {
            self.thresholds
        }
        fn slice_rule(&self) -> crate::precheck::SliceRule {
            crate::precheck::SliceRule::bytes(self.window, 0)
        }
        fn slice_score(&self, slice: &[u8]) -> f32 {
            let has = |w: &[u8]| slice.windows(w.len()).any(|x| x == w);
            self.words
                .iter()
                .find(|(w, _)| has(w))
                .map_or(self.calm, |(_, score)| *score)
        }
    }

    /// [`Words`] read through a view, or scored off the exact path.
    struct Dressed {
        words: Words,
        view: crate::precheck::View,
        exact: bool,
    }
    impl Dressed {
        fn viewed(words: Words) -> Dressed {
            let view = crate::precheck::View::Capabilities;
            Dressed {
                words,
                view,
                exact: true,
            }
        }
        fn on_device(words: Words, exact: bool) -> Dressed {
            let view = crate::precheck::View::Text;
            Dressed { words, view, exact }
        }
    }
    impl Precheck for Dressed {
        fn model_id(&self) -> &str {
            self.words.model_id()
        }
        fn thresholds(&self) -> crate::config::Thresholds {
            self.words.thresholds()
        }
        fn slice_rule(&self) -> crate::precheck::SliceRule {
            self.words.slice_rule()
        }
        fn slice_score(&self, slice: &[u8]) -> f32 {
            self.words.slice_score(slice)
        }
        fn view(&self) -> crate::precheck::View {
            self.view
        }
        fn exact(&self) -> bool {
            self.exact
        }
    }

    /// 0.01 for calm text, 0.5 for a slice holding "ODD", 0.99 for
    /// "PAYLOAD", in 64-byte slices.
    const LEVELS: Words = Words {
        id: "levels",
        thresholds: crate::config::Thresholds {
            harmful_at: 0.9,
            harmless_below: 0.05,
        },
        window: 64,
        words: &[(b"PAYLOAD", 0.99), (b"ODD", 0.5)],
        calm: 0.01,
    };

    /// Records the text it is handed and the excerpt of every span it is
    /// asked to judge; votes harmless.
    #[derive(Default)]
    struct Recorder {
        local: bool,
        texts: std::sync::Mutex<Vec<Arc<Text>>>,
        seen: std::sync::Mutex<Vec<String>>,
    }
    impl Detector for Recorder {
        fn id(&self) -> &str {
            "recorder"
        }
        fn model(&self) -> &str {
            "none"
        }
        fn is_local(&self) -> bool {
            self.local
        }
        fn vote<'a>(&'a self, request: &'a DetectorRequest) -> crate::detector::VoteFuture<'a> {
            self.texts.lock().unwrap().push(Arc::clone(&request.text));
            for s in &request.spans {
                let t = request.excerpt(*s).into_owned();
                self.seen.lock().unwrap().push(t);
            }
            Box::pin(async {
                crate::detector::DetectorOutcome {
                    vote: Vote::Harmless,
                    error: None,
                    latency_ms: 0,
                    calls: 1,
                    usage: Default::default(),
                }
            })
        }
    }

    #[test]
    fn detectors_judge_only_the_slices_the_precheck_could_not_clear() {
        let calm = "c".repeat(64);
        let odd = format!("{:-<61}ODD", "");
        let text = format!("{calm}{calm}{odd}{calm}{odd}{calm}");
        let input = package(&[("pkg/mod.py", text.clone())]);
        let run = |config: Config, local: bool, local_only: bool| {
            let d = Arc::new(Recorder {
                local,
                ..Default::default()
            });
            let c = levels_coordinator(
                config,
                vec![d.clone() as Arc<dyn Detector>, d.clone(), d.clone()],
                local_only,
            );
            let p = c.scan(&input, &["malicious-package".to_string()]).policies[0].clone();
            let seen = d.seen.lock().unwrap().clone();
            (p, seen)
        };
        let (p, seen) = run(Config::default(), true, true);
        assert_eq!(p.reason, Reason::QuorumHarmless);
        let review = p.review.unwrap();
        assert_eq!(
            (review.regions, review.bytes, review.text_bytes),
            (2, 128, text.len())
        );
        assert_eq!(review.withheld, None);
        // Three detectors, each shown the two odd slices and nothing else,
        // each excerpt naming the file it starts inside.
        let named = format!("[canary: this excerpt begins inside pkg/mod.py, at line 1]\n{odd}");
        assert_eq!(seen, vec![named; 6]);

        // Block-only never lets a low score clear anything: the whole text.
        let mut block_only = Config::default();
        block_only.precheck.mode = PrecheckMode::BlockOnly;
        let (p, seen) = run(block_only, true, true);
        assert_eq!(p.review.unwrap().bytes, text.len());
        assert_eq!(
            seen,
            vec![text.clone(); 3],
            "from the file's start: no line"
        );

        // Over the budget nothing is sent, and the input blocks.
        let mut tight = Config::default();
        tight.gate.max_review_bytes = 127;
        let (p, seen) = run(tight.clone(), true, true);
        assert!(seen.is_empty(), "sent despite the budget: {seen:?}");
        assert_eq!(
            (p.decision, p.reason),
            (Decision::Block, Reason::Inconclusive)
        );
        assert!(p.detectors.is_empty());
        let why = p.review.unwrap().withheld.unwrap();
        assert!(
            why.contains("128 bytes") && why.contains("max-review-bytes (127)"),
            "{why}"
        );

        // With no detector that may be asked there is nothing to withhold:
        // remote detectors under --local-only are listed as skipped.
        let (p, seen) = run(tight, false, true);
        assert!(seen.is_empty());
        assert_eq!(p.review.unwrap().withheld, None);
        assert_eq!(p.quorum.skipped, 3);
        assert_eq!(p.reason, Reason::Inconclusive);
    }

    /// A veto that does not clear any 16-byte slice holding "HIDDEN"
    /// (0.5 against its harmless-below of 0.1), and NaN on "ERR".
    const HIDDEN: Words = Words {
        id: "hidden",
        thresholds: crate::config::Thresholds {
            harmful_at: 0.4,
            harmless_below: 0.1,
        },
        window: 16,
        words: &[(b"ERR", f32::NAN), (b"HIDDEN", 0.5)],
        calm: 0.0,
    };

    #[test]
    fn veto_band_only_withdraws_an_allow() {
        for cleared in [true, false] {
            assert_eq!(veto_band(Band::Harmful, cleared), Band::Harmful);
            assert_eq!(veto_band(Band::Uncertain, cleared), Band::Uncertain);
        }
        assert_eq!(veto_band(Band::Harmless, true), Band::Harmless);
        assert_eq!(veto_band(Band::Harmless, false), Band::Uncertain);
    }

    #[test]
    fn merged_regions_cover_both_lists_and_nothing_else() {
        let a = vec![sp(100, 120), sp(0, 10), sp(40, 50)];
        let b = vec![sp(8, 20), sp(60, 70), sp(20, 45)];
        let m = merge_regions(&a, &b);
        // 8..20 joins 0..10; 20..45 then joins that and 40..50.
        assert_eq!(m, vec![sp(100, 120), sp(0, 50), sp(60, 70)]);
        for x in 0..130 {
            let in_input = a.iter().chain(&b).any(|r| r.start <= x && x < r.end);
            let in_merged = m.iter().any(|r| r.start <= x && x < r.end);
            assert_eq!(in_input, in_merged, "byte {x}");
        }
        for (i, r) in m.iter().enumerate() {
            for q in &m[i + 1..] {
                assert!(
                    r.end < q.start || q.end < r.start,
                    "{r:?} and {q:?} overlap"
                );
            }
        }
        assert_eq!(merge_regions(&a, &[]), a);
        assert_eq!(merge_regions(&[], &b[..1]), vec![sp(8, 20)]);
    }

    #[test]
    fn a_veto_keeps_a_cleared_input_from_being_allowed_and_adds_its_regions() {
        let calm = "c".repeat(64);
        let gate = |veto: bool| PolicyGate {
            policy: Policy::builtin("malicious-package").unwrap(),
            precheck: Some(Arc::new(LEVELS) as Arc<dyn Precheck>),
            veto: veto.then(|| Arc::new(HIDDEN) as Arc<dyn Precheck>),
        };
        let run = |veto: bool, body: &str, detectors: bool| {
            let d = Arc::new(Recorder {
                local: true,
                ..Default::default()
            });
            let dets: Vec<Arc<dyn Detector>> = if detectors {
                vec![d.clone(), d.clone(), d.clone()]
            } else {
                Vec::new()
            };
            let c = Coordinator::new(Config::default(), vec![gate(veto)], dets, true).unwrap();
            let input = package(&[("pkg/mod.py", body.to_string())]);
            let p = c.scan(&input, &["malicious-package".to_string()]).policies[0].clone();
            let seen = d.seen.lock().unwrap().clone();
            (p, seen)
        };
        // "HIDDEN" in calm text: the main model clears it (0.01 < 0.05).
        let hidden = format!("{calm}{:-<58}HIDDEN{calm}", "");
        let (p, _) = run(false, &hidden, false);
        assert_eq!(p.reason, Reason::PrecheckHarmless, "no veto: allowed");
        let (p, _) = run(true, &hidden, false);
        assert_eq!(
            (p.decision, p.reason),
            (Decision::Block, Reason::Inconclusive),
            "the veto withdraws the allow"
        );
        assert_eq!(p.precheck.band, Band::Uncertain);
        let v = p.precheck.veto.clone().unwrap();
        assert!(!v.cleared && v.score == 0.5, "{v:?}");
        assert_eq!(v.location.as_deref(), Some("pkg/mod.py:1"));
        assert!(p.precheck.note.unwrap().contains("veto model hidden"));
        // With detectors, they review exactly the veto's uncleared slice
        // (HIDDEN ends the 16-byte slice at 112..128; the main model's
        // 64-byte slices are all cleared).
        let (p, seen) = run(true, &hidden, true);
        assert_eq!(p.reason, Reason::QuorumHarmless);
        assert_eq!(p.review.unwrap().bytes, 16);
        assert_eq!(seen.len(), 3, "{seen:?}");
        assert!(
            seen.iter().all(|s| s.ends_with("----------HIDDEN")),
            "{seen:?}"
        );
        // When the main model leaves the whole text to review, the veto has
        // nothing to add and is not run.
        let odd = format!("{:-<61}ODD", "").repeat(3);
        let (p, seen) = run(true, &odd, true);
        assert_eq!(p.reason, Reason::QuorumHarmless);
        assert_eq!(p.review.unwrap().bytes, odd.len());
        assert!(p.precheck.veto.is_none(), "{:?}", p.precheck.veto);
        assert_eq!(seen.len(), 3);
        // A veto that errs (NaN) never clears.
        let err = format!("{calm}ERR{calm}");
        let (p, _) = run(true, &err, false);
        assert_eq!(p.reason, Reason::Inconclusive);
        assert!(p.precheck.veto.unwrap().score.is_nan());
        // Text the veto clears stays allowed, and the report says so.
        let (p, _) = run(true, &format!("{calm}{calm}"), false);
        assert_eq!(p.reason, Reason::PrecheckHarmless);
        let v = p.precheck.veto.unwrap();
        assert!(v.cleared && v.location.is_none());
        // A harmful band is left alone: the veto is not even run.
        let (p, _) = run(true, &format!("{calm}PAYLOAD HIDDEN"), false);
        assert_eq!(p.reason, Reason::PrecheckHarmful);
        assert!(p.precheck.veto.is_none());
    }

    /// A veto that reads the capability view adds to the review the runs
    /// of lines its uncleared slice holds, not the source between them: the
    /// view never read that, and the main model cleared it.
    #[test]
    fn a_view_vetos_review_holds_its_lines_not_the_source_between() {
        let veto = Dressed::viewed(Words {
            id: "viewed",
            thresholds: crate::config::Thresholds {
                harmful_at: 0.9,
                harmless_below: 0.1,
            },
            window: 4096,
            words: &[(b"system", 0.5)],
            calm: 0.0,
        });
        let calm: String = (0..200)
            .map(|i| format!("+total_{i} = {i} * 2\n"))
            .collect();
        let body = format!(
            "--- /dev/null\n+++ b/pkg/m.py\n@@ -0,0 +1,602 @@\n{calm}+os.system(cmd)\n{calm}+x = os.environ['HOME']\n{calm}"
        );
        let d = Arc::new(Recorder {
            local: true,
            ..Default::default()
        });
        let c = Coordinator::new(
            Config::default(),
            vec![PolicyGate {
                policy: Policy::builtin("malicious-package").unwrap(),
                precheck: Some(Arc::new(LEVELS) as Arc<dyn Precheck>),
                veto: Some(Arc::new(veto) as Arc<dyn Precheck>),
            }],
            vec![d.clone() as Arc<dyn Detector>, d.clone(), d.clone()],
            true,
        )
        .unwrap();
        let input = package(&[("pkg/m.py", body.clone())]);
        let p = c.scan(&input, &["malicious-package".to_string()]).policies[0].clone();
        assert_eq!(p.reason, Reason::QuorumHarmless);
        assert!(!p.precheck.veto.as_ref().unwrap().cleared);
        let review = p.review.unwrap();
        // Two runs of five lines (a capability line and two lines either
        // side), where the view slice spans 200 lines between them.
        assert_eq!(review.regions, 2, "{review:?}");
        assert!(review.bytes < 250, "{review:?}");
        let seen = d.seen.lock().unwrap().clone();
        assert!(seen.iter().any(|s| s.contains("+os.system(cmd)\n")));
        assert!(seen.iter().any(|s| s.contains("os.environ['HOME']")));
        assert!(seen.iter().all(|s| !s.contains("total_100 ")), "{seen:?}");
    }

    /// A pre-check off the CPU path clears an input only by
    /// [`DEVICE_MARGIN`] under `harmless-below`, main model and veto alike;
    /// on the exact path the threshold stands as calibrated.
    #[test]
    fn scores_off_the_calibrated_path_clear_only_by_a_margin() {
        // Calm text scores 0.04999: under 0.05 by 2e-4 of it, less than
        // the margin; "QUIET" scores 0.01, far under.
        let near = |exact: bool| {
            Dressed::on_device(
                Words {
                    id: "near",
                    thresholds: crate::config::Thresholds {
                        harmful_at: 0.9,
                        harmless_below: 0.05,
                    },
                    window: 64,
                    words: &[(b"QUIET", 0.01)],
                    calm: 0.04999,
                },
                exact,
            )
        };
        let run = |main: Dressed, veto: Option<Dressed>, text: &str| {
            let c = Coordinator::new(
                Config::default(),
                vec![PolicyGate {
                    policy: Policy::builtin("malicious-package").unwrap(),
                    precheck: Some(Arc::new(main) as Arc<dyn Precheck>),
                    veto: veto.map(|v| Arc::new(v) as Arc<dyn Precheck>),
                }],
                vec![],
                true,
            )
            .unwrap();
            let input = package(&[("pkg/m.py", text.to_string())]);
            c.scan(&input, &["malicious-package".to_string()]).policies[0].clone()
        };
        let calm = "c".repeat(40);
        let quiet = format!("{calm}QUIET");
        // The main model.
        assert_eq!(
            run(near(true), None, &calm).reason,
            Reason::PrecheckHarmless
        );
        let p = run(near(false), None, &calm);
        assert_eq!(
            (p.precheck.band, p.reason),
            (Band::Uncertain, Reason::Inconclusive)
        );
        assert_eq!(
            run(near(false), None, &quiet).reason,
            Reason::PrecheckHarmless
        );
        // The veto, behind an exact main model that clears calm text.
        let p = run(near(true), Some(near(true)), &calm);
        assert_eq!(p.reason, Reason::PrecheckHarmless);
        let p = run(near(true), Some(near(false)), &calm);
        assert_eq!(p.reason, Reason::Inconclusive);
        assert!(!p.precheck.veto.as_ref().unwrap().cleared);
        let p = run(near(true), Some(near(false)), &quiet);
        assert_eq!(p.reason, Reason::PrecheckHarmless);
        // The pure rule: only harmless-below moves, and only off the path.
        let t = Thresholds {
            harmful_at: 0.9,
            harmless_below: 0.05,
        };
        assert_eq!(held_to(t, true), t);
        let off = held_to(t, false);
        assert_eq!(off.harmful_at, 0.9);
        assert!(off.harmless_below < 0.04999 && off.harmless_below > 0.0499);
    }

    #[test]
    fn an_unjudgeable_input_is_inconclusive_without_asking_anyone() {
        let odd = format!("{:-<61}ODD", "");
        let mut input = package(&[("pkg/mod.py", format!("{}{odd}", "c".repeat(64)))]);
        let run = |input: &Input| {
            let d = Arc::new(Recorder {
                local: true,
                ..Default::default()
            });
            let c = levels_coordinator(
                Config::default(),
                vec![d.clone() as Arc<dyn Detector>, d.clone(), d.clone()],
                true,
            );
            let r = c.scan(input, &["malicious-package".to_string()]);
            let asked = d.texts.lock().unwrap().len();
            (r, asked)
        };
        // Judged: uncertain, and three harmless votes allow it.
        let (r, asked) = run(&input);
        assert_eq!((r.reason, asked), (Reason::QuorumHarmless, 3));
        // Marked unjudgeable (an empty version diff): blocked, with the
        // reason, and neither the pre-check nor a detector was asked.
        input.unjudgeable = Some("the diff is empty".into());
        let (r, asked) = run(&input);
        assert_eq!(
            (r.decision, r.reason, asked),
            (Decision::Block, Reason::Inconclusive, 0)
        );
        let p = &r.policies[0];
        assert_eq!(p.reason, Reason::Inconclusive);
        assert_eq!((p.precheck.score, p.review.clone()), (None, None));
        assert_eq!(p.precheck.note.as_deref(), Some("the diff is empty"));
        assert!(p.detectors.is_empty());
    }

    #[test]
    fn a_cleared_or_harmful_input_has_no_review() {
        let c = levels_coordinator(Config::default(), vec![], true);
        for (body, reason) in [
            ("c".repeat(200), Reason::PrecheckHarmless),
            (
                format!("{}PAYLOAD", "c".repeat(200)),
                Reason::PrecheckHarmful,
            ),
        ] {
            let p = c
                .scan(
                    &package(&[("setup.py", body)]),
                    &["malicious-package".to_string()],
                )
                .policies[0]
                .clone();
            assert_eq!(p.reason, reason);
            assert_eq!(p.review, None);
        }
    }

    #[test]
    fn needs_code_only_lowers_harmful_and_only_to_uncertain() {
        use Band::*;
        for code in [None, Some(Harmful), Some(Uncertain), Some(Harmless)] {
            assert_eq!(needs_code_band(Harmless, code), Harmless);
            assert_eq!(needs_code_band(Uncertain, code), Uncertain);
        }
        assert_eq!(needs_code_band(Harmful, Some(Harmful)), Harmful);
        assert_eq!(needs_code_band(Harmful, Some(Uncertain)), Uncertain);
        assert_eq!(needs_code_band(Harmful, Some(Harmless)), Uncertain);
        assert_eq!(needs_code_band(Harmful, None), Uncertain);
    }

    #[test]
    fn band_thresholds() {
        assert_eq!(band(0.95, 0.9, 0.1), Band::Harmful);
        assert_eq!(band(0.9, 0.9, 0.1), Band::Harmful);
        assert_eq!(band(0.1, 0.9, 0.1), Band::Uncertain);
        assert_eq!(band(0.09, 0.9, 0.1), Band::Harmless);
        assert_eq!(band(f32::NAN, 0.9, 0.1), Band::Uncertain);
    }
}
