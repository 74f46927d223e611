//! Evaluation of a whole gate setup (pre-check + detectors + quorum) on a
//! labelled JSONL file: the original evaluation's table (n, harmful,
//! harmless, FN, FP, FNR, FPR, accuracy) plus AUC of the pre-check score, the
//! uncertain share, detector calls, tokens and cost, overall and per `source`.
//!
//! Every example goes through the real coordinator, so an uncertain input
//! with no detectors counts as blocked, exactly as a scan would decide it.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::Serialize;

use crate::coordinator::Coordinator;
use crate::input::Input;
use crate::report::{Band, Decision, Report};
use crate::train::{auc, Example};

#[derive(Debug, Clone, Default, Serialize)]
pub struct EvalRow {
    pub n: usize,
    pub harmful: usize,
    pub harmless: usize,
    #[serde(rename = "FN")]
    pub fn_: usize,
    #[serde(rename = "FP")]
    pub fp: usize,
    pub fnr: f64,
    pub fpr: f64,
    pub accuracy: f64,
    pub auc: Option<f64>,
    pub uncertain: f64,
    #[serde(flatten)]
    pub usage: crate::report::Usage,
    pub cost: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct EvalResult {
    pub policy: String,
    pub overall: EvalRow,
    pub by_source: BTreeMap<String, EvalRow>,
    /// Packages only: all-added (single release) vs version diff.
    pub by_shape: BTreeMap<String, EvalRow>,
    /// Cost per detector setup, from the configured prices.
    pub cost_by_detector: BTreeMap<String, f64>,
}

struct Outcome<'a> {
    example: &'a Example,
    report: Report,
}

/// One example's outcome, for `canary eval --scores`.
#[derive(Debug, Clone, Serialize)]
pub struct ExampleScore {
    pub id: String,
    pub label: &'static str,
    pub source: String,
    pub score: Option<f32>,
    pub decision: Decision,
    pub reason: crate::report::Reason,
    pub bytes: usize,
}

/// Runs every example through the coordinator under `policy`.
pub fn evaluate(coord: &Coordinator, examples: &[Example], policy: &str) -> EvalResult {
    evaluate_with_scores(coord, examples, policy).0
}

/// As [`evaluate`], with each example's score and decision.
pub fn evaluate_with_scores(
    coord: &Coordinator,
    examples: &[Example],
    policy: &str,
) -> (EvalResult, Vec<ExampleScore>) {
    let ids = vec![policy.to_string()];
    let outcomes: Vec<Outcome> = examples
        .par_iter()
        .enumerate()
        .map(|(i, e)| {
            let id = e.id.clone().unwrap_or_else(|| format!("row-{}", i + 1));
            let input = Input::from_text(Some(id), "eval", e.text.as_bytes());
            Outcome {
                example: e,
                report: coord.scan(&input, &ids),
            }
        })
        .collect();
    let prices: BTreeMap<&str, crate::config::Price> = coord
        .config
        .detectors
        .iter()
        .map(|d| (d.id.as_str(), d.price.unwrap_or_default()))
        .collect();
    let mut cost_by_detector: BTreeMap<String, f64> = BTreeMap::new();
    for o in &outcomes {
        for p in &o.report.policies {
            for d in &p.detectors {
                let c = prices
                    .get(d.id.as_str())
                    .map(|pr| pr.cost(d.calls as u64, d.usage.input_tokens, d.usage.output_tokens))
                    .unwrap_or(0.0);
                *cost_by_detector.entry(d.id.clone()).or_default() += c;
            }
        }
    }
    let all: Vec<&Outcome> = outcomes.iter().collect();
    let mut by_source: BTreeMap<String, Vec<&Outcome>> = BTreeMap::new();
    let mut by_shape: BTreeMap<String, Vec<&Outcome>> = BTreeMap::new();
    for o in &outcomes {
        by_source
            .entry(o.example.source.clone())
            .or_default()
            .push(o);
        if let Some(all_added) = o.example.all_added {
            let k = if all_added {
                "all-added"
            } else {
                "version-diff"
            };
            by_shape.entry(k.to_string()).or_default().push(o);
        }
    }
    let per_example = outcomes
        .iter()
        .map(|o| ExampleScore {
            id: o.report.input.id.clone().unwrap_or_default(),
            label: if o.example.harmful {
                "harmful"
            } else {
                "harmless"
            },
            source: o.example.source.clone(),
            score: o.report.policies.first().and_then(|p| p.precheck.score),
            decision: o.report.decision,
            reason: o.report.reason,
            bytes: o.example.text.len(),
        })
        .collect();
    let result = EvalResult {
        policy: policy.to_string(),
        overall: row(&all, &prices),
        by_source: by_source
            .iter()
            .map(|(k, v)| (k.clone(), row(v, &prices)))
            .collect(),
        by_shape: by_shape
            .iter()
            .map(|(k, v)| (k.clone(), row(v, &prices)))
            .collect(),
        cost_by_detector,
    };
    (result, per_example)
}

fn row(outcomes: &[&Outcome], prices: &BTreeMap<&str, crate::config::Price>) -> EvalRow {
    let mut r = EvalRow {
        n: outcomes.len(),
        ..Default::default()
    };
    let mut scores = Vec::new();
    let mut labels = Vec::new();
    let mut uncertain = 0;
    for o in outcomes {
        let harmful = o.example.harmful;
        if harmful {
            r.harmful += 1;
        } else {
            r.harmless += 1;
        }
        let allowed = o.report.decision == Decision::Allow;
        r.fn_ += (harmful && allowed) as usize;
        r.fp += (!harmful && !allowed) as usize;
        r.usage += o.report.usage;
        for p in &o.report.policies {
            if p.precheck.band == Band::Uncertain {
                uncertain += 1;
            }
            if let Some(s) = p.precheck.score {
                scores.push(s);
                labels.push(harmful);
            }
            for d in &p.detectors {
                if let Some(pr) = prices.get(d.id.as_str()) {
                    r.cost += pr.cost(d.calls as u64, d.usage.input_tokens, d.usage.output_tokens);
                }
            }
        }
    }
    let n = r.n.max(1) as f64;
    r.fnr = r.fn_ as f64 / r.harmful.max(1) as f64;
    r.fpr = r.fp as f64 / r.harmless.max(1) as f64;
    r.accuracy = (r.n - r.fn_ - r.fp) as f64 / n;
    r.uncertain = uncertain as f64 / n;
    let a = auc(&scores, &labels);
    r.auc = (!a.is_nan()).then_some(a);
    r
}

/// The evaluation as a text table.
pub fn to_table(r: &EvalResult) -> String {
    let mut s = format!("policy {}\n", r.policy);
    s.push_str(&format!(
        "{:<28} {:>6} {:>7} {:>8} {:>5} {:>5} {:>7} {:>7} {:>8} {:>7} {:>9} {:>7} {:>10} {:>8} {:>9}\n",
        "slice", "n", "harmful", "harmless", "FN", "FP", "FNR", "FPR", "accuracy", "AUC", "uncertain", "calls", "in tokens", "out tok", "cost"
    ));
    let line = |name: &str, x: &EvalRow| {
        format!(
            "{:<28} {:>6} {:>7} {:>8} {:>5} {:>5} {:>6.2}% {:>6.2}% {:>7.2}% {:>7} {:>8.2}% {:>7} {:>10} {:>8} {:>9.4}\n",
            name,
            x.n,
            x.harmful,
            x.harmless,
            x.fn_,
            x.fp,
            100.0 * x.fnr,
            100.0 * x.fpr,
            100.0 * x.accuracy,
            x.auc.map_or("-".to_string(), |a| format!("{a:.4}")),
            100.0 * x.uncertain,
            x.usage.detector_calls,
            x.usage.input_tokens,
            x.usage.output_tokens,
            x.cost
        )
    };
    s.push_str(&line("overall", &r.overall));
    for (k, v) in &r.by_shape {
        s.push_str(&line(&format!("shape:{k}"), v));
    }
    for (k, v) in &r.by_source {
        s.push_str(&line(&format!("source:{k}"), v));
    }
    if !r.cost_by_detector.is_empty() {
        s.push_str("\ncost by detector setup:\n");
        for (k, v) in &r.cost_by_detector {
            s.push_str(&format!("  {k:<20} {v:.4}\n"));
        }
    }
    s
}
