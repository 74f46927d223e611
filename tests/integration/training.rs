//! Training on a small synthetic fixture: the loss falls, training is
//! deterministic for a seed, and the saved model reloads to identical scores.

use canary::precheck::Precheck;
use canary::train::{read_jsonl, score_all, train, TrainOptions};

use crate::{code, fixture, json, Canary};

fn options(out: &std::path::Path, seed: u64) -> TrainOptions {
    let mut o = TrainOptions::defaults("malicious-package");
    o.data = vec![(fixture("train/small.jsonl"), 1.0)];
    o.dev = fixture("train/small-dev.jsonl");
    o.out = out.to_path_buf();
    o.epochs = 2;
    o.seed = seed;
    o.features.buckets_log2 = 12;
    o.batch = 16;
    o.command = "test".into();
    o
}

#[test]
fn loss_falls_and_the_saved_model_reloads_to_identical_scores() {
    let dir = tempfile::tempdir().unwrap();
    let report = train(&options(&dir.path().join("m"), 5)).unwrap();
    assert_eq!(report.epochs.len(), 2);
    assert!(
        report.epochs[1].loss < report.epochs[0].loss,
        "{:?}",
        report.epochs
    );
    assert!(
        report.dev.auc > 0.9,
        "the synthetic task is easy: {:?}",
        report.dev
    );

    let model =
        canary::precheck::load_dir(&dir.path().join("m"), &candle_core::Device::Cpu).unwrap();
    let dev = read_jsonl(&fixture("train/small-dev.jsonl"), 1.0).unwrap();
    let scores = score_all(model.as_ref(), &dev);
    let labels: Vec<bool> = dev.iter().map(|e| e.harmful).collect();
    let m = canary::train::dev_metrics(&scores, &labels, model.thresholds());
    assert_eq!(
        m.auc, report.dev.auc,
        "reloaded scores differ from the trained model's"
    );
    assert_eq!(m.fnr, report.dev.fnr);
    assert_eq!(m.uncertain, report.dev.uncertain);
    // The candle path scores the same as the plain-Rust path.
    for e in dev.iter().take(10) {
        let a = model.score_slice(e.text.as_bytes());
        let b = model.score_slice_candle(e.text.as_bytes()).unwrap();
        assert!((a - b).abs() < 1e-5, "{a} vs {b}");
    }

    // Same seed, same bytes; another seed, other weights.
    let again = dir.path().join("again");
    train(&options(&again, 5)).unwrap();
    let w1 = std::fs::read(dir.path().join("m/model.safetensors")).unwrap();
    let w2 = std::fs::read(again.join("model.safetensors")).unwrap();
    assert!(w1 == w2, "training is not deterministic for a seed");
    let other = dir.path().join("other");
    train(&options(&other, 6)).unwrap();
    assert!(std::fs::read(other.join("model.safetensors")).unwrap() != w1);
}

#[test]
fn train_and_eval_cli_agree() {
    let c = Canary::new();
    let out = c.dir.path().join("model");
    let o = c.run(&[
        "train",
        "--policy",
        "malicious-package",
        "--data",
        fixture("train/small.jsonl").to_str().unwrap(),
        "--dev",
        fixture("train/small-dev.jsonl").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--epochs",
        "2",
        "--buckets-log2",
        "12",
        "--quiet",
    ]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let metrics: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("metrics.json")).unwrap()).unwrap();
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert!(manifest["command"]
        .as_str()
        .unwrap()
        .starts_with("canary train --policy malicious-package"));
    assert_eq!(manifest["data"][0]["rows"], 240);
    let cfg = c.write(
        "c.toml",
        &format!(
            "[precheck.models]\nmalicious-package = {:?}\n[precheck.vetoes]\nmalicious-package = \"off\"\n",
            out.display().to_string()
        ),
    );
    let o = c.run(&[
        "--config",
        cfg.to_str().unwrap(),
        "eval",
        "--policy",
        "malicious-package",
        "--format",
        "json",
        "--data",
        fixture("train/small-dev.jsonl").to_str().unwrap(),
    ]);
    let r = json(&o);
    assert_eq!(r["overall"]["auc"], metrics["dev"]["auc"]);
    assert_eq!(r["overall"]["fnr"], metrics["dev"]["fnr"]);
    assert_eq!(r["overall"]["fpr"], metrics["dev"]["fpr"]);
}

#[test]
fn bad_training_data_names_file_and_line() {
    let c = Canary::new();
    let bad = c.write(
        "bad.jsonl",
        "{\"text\": \"a\", \"label\": \"harmful\"}\n{\"text\": \"b\", \"label\": \"benign\"}\n",
    );
    let o = c.run(&[
        "train",
        "--policy",
        "malicious-package",
        "--data",
        bad.to_str().unwrap(),
        "--dev",
        bad.to_str().unwrap(),
        "--out",
        "m",
        "--quiet",
    ]);
    assert_eq!(code(&o), 3);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.jsonl:2") && err.contains("benign"),
        "{err}"
    );
    assert!(
        !c.dir.path().join("m").exists(),
        "no model is written from bad data"
    );
}
