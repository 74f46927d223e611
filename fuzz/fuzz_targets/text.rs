//! Hostile texts and diffs, and hostile config and policy files.
//!
//! The first byte picks the use: a text or diff judged by both built-in
//! policies (local-only), or the rest parsed as a `canary.toml` or as a
//! policy file. What must hold: nothing panics; a text that could not be
//! read is blocked; a config or policy either loads or is refused with an
//! error, and one that loads serializes.
#![no_main]

use std::sync::OnceLock;

use canary::config::Config;
use canary::coordinator::Coordinator;
use canary::input::Input;
use canary::policy::{Policy, PolicySet};
use canary::report::Decision;
use libfuzzer_sys::fuzz_target;

const POLICIES: [&str; 2] = ["prompt-injection", "malicious-package"];

fn coordinator() -> &'static Coordinator {
    static C: OnceLock<Coordinator> = OnceLock::new();
    C.get_or_init(|| {
        let set = PolicySet::load(&[]).expect("built-in policies");
        let policies: Vec<Policy> = POLICIES
            .iter()
            .map(|p| set.resolve(p).expect("built-in policy"))
            .collect();
        canary::cli::build_coordinator(Config::default(), &policies, true).expect("coordinator")
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    match sel % 4 {
        0 | 1 => {
            let input = Input::from_text(None, "fuzz.txt", body);
            let ids: Vec<String> = POLICIES.iter().map(|p| p.to_string()).collect();
            let report = coordinator().scan(&input, &ids);
            if input.error.is_some() {
                assert_eq!(report.decision, Decision::Block);
            }
            serde_json::to_string(&report).expect("report serializes");
        }
        2 => {
            if let Ok(c) = Config::from_toml(&String::from_utf8_lossy(body), "fuzz.toml") {
                serde_json::to_string(&c).expect("config serializes");
            }
        }
        _ => {
            let _ = Policy::from_toml(&String::from_utf8_lossy(body), "fuzz-policy.toml");
        }
    }
});
