//! SARIF 2.1.0 output: one result per blocked input per policy, located at
//! the top-scoring slice's file and line when the input is a rendered package.

use serde_json::{json, Value};

use super::{Decision, Report};

pub fn to_sarif(reports: &[Report]) -> String {
    let mut results = Vec::new();
    let mut rules: Vec<Value> = Vec::new();
    let mut rule_ids: Vec<String> = Vec::new();
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
                    .map(|s| format!(", pre-check score {s:.4}"))
                    .unwrap_or_default();
                (
                    p.id.clone(),
                    format!(
                        "{} blocked under policy `{}`: {}{score}",
                        r.input.source,
                        p.id,
                        p.reason.as_str()
                    ),
                    p.precheck.location.clone(),
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
            let mut artifact = r.input.source.clone();
            let mut line = 1u64;
            if let Some(loc) = location {
                if let Some((path, l)) = loc.rsplit_once(':') {
                    artifact = format!("{}/{}", r.input.source, path);
                    line = l.parse().unwrap_or(1);
                }
            }
            results.push(json!({
                "ruleId": rule,
                "level": "error",
                "message": {"text": message},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": artifact},
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
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&doc).expect("sarif serializes")
}
