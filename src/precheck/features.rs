//! Hashed text features shared by training and inference.
//!
//! Text is cut into tokens (runs of ASCII letters, digits and `_`, plus
//! non-ASCII bytes; every other non-space byte is a token of its own). Each
//! token gives a unigram feature, a bigram with the previous token, a shape
//! feature for long tokens (encoded blobs), and, for a small vocabulary of
//! behaviour words, a *concept* feature that is shared across ecosystems
//! (`subprocess` and `child_process` both give `spawn`), so weights learnt on
//! PyPI carry to npm. Features are bucket indices into the embedding table.
//!
//! This module must stay allocation-free per token: it is the hot path of
//! every scan, and training must see exactly the features a scan sees.

use std::collections::HashMap;
use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use serde::{Deserialize, Serialize};

/// Feature settings; stored in the model's `config.json` so scans and training agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FeatureConfig {
    /// Embedding rows = 2^buckets_log2.
    pub buckets_log2: u32,
    pub bigrams: bool,
    pub concepts: bool,
    pub shapes: bool,
    /// Pool over distinct features (presence) instead of every occurrence.
    #[serde(default)]
    pub distinct: bool,
}

impl Default for FeatureConfig {
    fn default() -> Self {
        FeatureConfig {
            buckets_log2: 17,
            bigrams: true,
            concepts: true,
            shapes: true,
            distinct: false,
        }
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

#[inline]
const fn mix(x: u64) -> u64 {
    // splitmix64 finaliser: spreads FNV's low-entropy high bits into the mask.
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Hash of a lowercased ASCII word, as the tokenizer computes it.
pub fn word_hash(word: &str) -> u64 {
    word.bytes().fold(FNV_OFFSET, |h, b| {
        (h ^ b.to_ascii_lowercase() as u64).wrapping_mul(FNV_PRIME)
    })
}

/// Behaviour concepts that carry across ecosystems. Order is part of the
/// model format: append only.
pub const CONCEPTS: &[(&str, &[&str])] = &[
    (
        "install-hook",
        &[
            "cmdclass",
            "postinstall",
            "preinstall",
            "prepublish",
            "preuninstall",
            "postuninstall",
            "prepare",
            "install_requires_hook",
            "bdist_egg",
            "egg_info",
        ],
    ),
    (
        "spawn",
        &[
            "subprocess",
            "child_process",
            "popen",
            "system",
            "execsync",
            "exec_sync",
            "spawn",
            "spawnsync",
            "execfile",
            "startfile",
            "powershell",
            "cmd",
            "bash",
            "wscript",
            "cscript",
            "osascript",
            "check_output",
            "check_call",
            "shell",
            "execa",
            "shelljs",
            "runtime",
        ],
    ),
    (
        "eval",
        &[
            "eval",
            "exec",
            "compile",
            "marshal",
            "__import__",
            "importlib",
            "vm",
            "runinthiscontext",
            "runinnewcontext",
            "new_function",
            "pickle",
        ],
    ),
    (
        "decode",
        &[
            "b64decode",
            "base64",
            "atob",
            "btoa",
            "fromcharcode",
            "unhexlify",
            "fromhex",
            "decompress",
            "zlib",
            "fernet",
            "rot13",
            "codecs",
            "decrypt",
            "xor",
            "b32decode",
            "a85decode",
            "lzma",
            "bz2",
            "gunzip",
            "inflate",
            "charcodeat",
            "unescape",
        ],
    ),
    (
        "fetch",
        &[
            "urlopen",
            "urlretrieve",
            "requests",
            "urllib",
            "urllib2",
            "urllib3",
            "fetch",
            "axios",
            "wget",
            "curl",
            "download",
            "socket",
            "httpx",
            "aiohttp",
            "xmlhttprequest",
            "got",
            "needle",
            "invoke_webrequest",
            "webclient",
            "downloadstring",
            "downloadfile",
        ],
    ),
    (
        "exfil",
        &[
            "webhook",
            "webhooks",
            "discord",
            "discordapp",
            "telegram",
            "pastebin",
            "ngrok",
            "hookbin",
            "pipedream",
            "burpcollaborator",
            "oastify",
            "interactsh",
            "ipinfo",
            "ifconfig",
            "requestbin",
            "beeceptor",
            "dnslog",
            "canarytokens",
            "transfer",
        ],
    ),
    (
        "credential",
        &[
            "token",
            "tokens",
            "password",
            "passwords",
            "passwd",
            "cookies",
            "cookie",
            "credentials",
            "ssh",
            "id_rsa",
            "aws",
            "npmrc",
            "pypirc",
            "wallet",
            "wallets",
            "keychain",
            "localstorage",
            "leveldb",
            "login",
            "secret",
            "secrets",
            "environ",
            "env",
            "appdata",
            "metamask",
            "exodus",
            "keyring",
            "shadow",
        ],
    ),
    (
        "host-recon",
        &[
            "hostname",
            "gethostname",
            "getuser",
            "getpass",
            "username",
            "userinfo",
            "homedir",
            "platform",
            "uname",
            "whoami",
            "networkinterfaces",
            "getlogin",
            "cpus",
        ],
    ),
    (
        "persist",
        &[
            "chmod",
            "crontab",
            "startup",
            "autorun",
            "regedit",
            "reg",
            "schtasks",
            "launchagents",
            "systemctl",
            "bashrc",
            "profile",
            "hidden",
            "attrib",
        ],
    ),
    (
        "ai-address",
        &[
            "assistant",
            "ai",
            "llm",
            "chatgpt",
            "gpt",
            "claude",
            "reviewer",
            "agent",
            "model",
            "bot",
            "copilot",
        ],
    ),
    (
        "override",
        &[
            "ignore",
            "disregard",
            "forget",
            "override",
            "bypass",
            "jailbreak",
            "dan",
            "unrestricted",
            "uncensored",
            "previous",
            "prior",
            "instructions",
            "instruction",
            "rules",
            "guidelines",
            "restrictions",
            "pretend",
        ],
    ),
    (
        "verdict",
        &[
            "verdict",
            "benign",
            "harmless",
            "safe",
            "approve",
            "approved",
            "malicious",
            "classify",
            "classification",
            "suppress",
            "report",
        ],
    ),
];

// Looked up once per word token, so not SipHash: the keys are already hashes
// of trusted vocabulary, and flooding the table would only slow one slice.
/// Bits of the word hashes of [`CONCEPTS`]' words, indexed by
/// [`concept_bit`]: a word whose bit is clear is no concept's, and most
/// words are none, so the table above is probed only for the few whose
/// bit is set.
fn concept_bits() -> &'static [u64; CONCEPT_BITS / 64] {
    static BITS: OnceLock<[u64; CONCEPT_BITS / 64]> = OnceLock::new();
    BITS.get_or_init(|| {
        let mut bits = [0u64; CONCEPT_BITS / 64];
        for h in concept_table().keys() {
            let i = concept_bit(*h);
            bits[i / 64] |= 1 << (i % 64);
        }
        bits
    })
}

/// 32 Kbit (4 KiB, in L1 cache) for about 200 words: a word of no
/// concept finds its bit set about once in 160.
const CONCEPT_BITS: usize = 1 << 15;

#[inline(always)]
fn concept_bit(h: u64) -> usize {
    // FNV's high bits, which depend on every byte of the word.
    (h >> (64 - 15)) as usize
}

fn concept_table() -> &'static FxHashMap<u64, u32> {
    static TABLE: OnceLock<FxHashMap<u64, u32>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut m = FxHashMap::default();
        for (i, (_, words)) in CONCEPTS.iter().enumerate() {
            for w in *words {
                m.entry(word_hash(w)).or_insert(i as u32);
            }
        }
        m
    })
}

/// Number of behaviour concepts.
pub const N_CONCEPTS: usize = CONCEPTS.len();
const N_PAIRS: usize = N_CONCEPTS * (N_CONCEPTS - 1) / 2;
/// Length of the concept channel: log-counts, document co-occurrence, line co-occurrence.
pub const CONCEPT_DIM: usize = N_CONCEPTS + 2 * N_PAIRS;

/// Ecosystem-neutral behaviour statistics of a slice: how often each concept
/// occurs, which concepts co-occur in the slice, and which co-occur on one
/// line (`os.system(base64.b64decode(…))`, `execSync(Buffer.from(…))`).
/// Unlike the mean-pooled token bag, this is not diluted by a large package.
#[derive(Debug, Clone, Default)]
pub struct ConceptStats {
    counts: [u32; N_CONCEPTS],
    line_mask: u32,
    /// Bit `pair_index(a, b)` set when a and b met on one line.
    line_pairs: u128,
}

fn pair_index(a: usize, b: usize) -> usize {
    let (a, b) = if a < b { (a, b) } else { (b, a) };
    // index of (a, b), a < b, in row-major upper-triangular order
    a * (2 * N_CONCEPTS - a - 1) / 2 + (b - a - 1)
}

impl ConceptStats {
    #[inline]
    fn hit(&mut self, c: usize) {
        self.counts[c] += 1;
        self.line_mask |= 1 << c;
    }

    #[inline]
    fn end_line(&mut self) {
        let m = self.line_mask;
        if m & (m.wrapping_sub(1)) != 0 {
            for a in 0..N_CONCEPTS {
                if m & (1 << a) == 0 {
                    continue;
                }
                for b in a + 1..N_CONCEPTS {
                    if m & (1 << b) != 0 {
                        self.line_pairs |= 1u128 << pair_index(a, b);
                    }
                }
            }
        }
        self.line_mask = 0;
    }

    /// The channel's input vector (length [`CONCEPT_DIM`]).
    pub fn vector(&mut self) -> Vec<f32> {
        self.end_line();
        let mut v = vec![0f32; CONCEPT_DIM];
        for (c, n) in self.counts.iter().enumerate() {
            v[c] = (1.0 + *n as f32).ln();
        }
        for a in 0..N_CONCEPTS {
            for b in a + 1..N_CONCEPTS {
                let i = pair_index(a, b);
                if self.counts[a] > 0 && self.counts[b] > 0 {
                    v[N_CONCEPTS + i] = 1.0;
                }
                if self.line_pairs & (1u128 << i) != 0 {
                    v[N_CONCEPTS + N_PAIRS + i] = 1.0;
                }
            }
        }
        v
    }
}

const SALT_UNI: u64 = 0x1;
const SALT_BI: u64 = 0x2;
const SALT_SHAPE: u64 = 0x3;
const SALT_CONCEPT: u64 = 0x4;
const SALT_CONCEPT_BI: u64 = 0x5;

/// A punctuation byte's token hash, and its unigram feature before the
/// mask: punctuation is half the tokens of code, and a byte has only 256
/// values, so its unigram's mix is done once here and not per token.
static PUNCT_FEATURES: [(u64, u64); 256] = {
    let mut t = [(0u64, 0u64); 256];
    let mut b = 0;
    while b < 256 {
        let ph = (FNV_OFFSET ^ b as u64).wrapping_mul(FNV_PRIME) ^ 0xff00;
        t[b] = (ph, mix(ph ^ SALT_UNI));
        b += 1;
    }
    t
};

struct Tokenizer<'a> {
    cfg: &'a FeatureConfig,
    concepts: &'a FxHashMap<u64, u32>,
    concept_bits: &'a [u64; CONCEPT_BITS / 64],
    mask: u64,
    prev: u64,
    prev_concept: u64,
    stats: Option<&'a mut ConceptStats>,
}

impl<'a> Tokenizer<'a> {
    /// A tokenizer at the start of a text: no previous token or concept.
    fn new(cfg: &'a FeatureConfig, stats: Option<&'a mut ConceptStats>) -> Tokenizer<'a> {
        Tokenizer {
            cfg,
            concepts: concept_table(),
            concept_bits: concept_bits(),
            mask: (1u64 << cfg.buckets_log2) - 1,
            prev: 0,
            prev_concept: u64::MAX,
            stats,
        }
    }

    #[inline(always)]
    fn finish<F: FnMut(u32)>(&mut self, h: u64, word: &[u8], emit: &mut F) {
        let mask = self.mask;
        let len = word.len();
        emit((mix(h ^ SALT_UNI) & mask) as u32);
        if self.cfg.bigrams {
            emit((mix(self.prev.rotate_left(17) ^ h ^ SALT_BI) & mask) as u32);
        }
        if self.cfg.shapes && len >= 20 {
            // Long tokens: encoded blobs, keys, hashes. Class by length and
            // digit / upper-case share, not by content.
            // Counted here, not per byte as the word is hashed: few
            // tokens are this long.
            let digits = word.iter().filter(|b| b.is_ascii_digit()).count();
            let upper = word.iter().filter(|b| b.is_ascii_uppercase()).count();
            let len_class = (usize::BITS - len.leading_zeros()) as u64;
            let digit_class = (digits * 4 / len) as u64;
            let upper_class = (upper * 4 / len) as u64;
            emit(
                (mix((len_class << 8 | digit_class << 4 | upper_class) ^ SALT_SHAPE) & mask) as u32,
            );
        }
        let bit = concept_bit(h);
        let may_be_concept = self.concept_bits[bit / 64] & (1 << (bit % 64)) != 0;
        if self.cfg.concepts && len > 0 && may_be_concept {
            if let Some(c) = self.concepts.get(&h) {
                if let Some(st) = self.stats.as_deref_mut() {
                    st.hit(*c as usize);
                }
                let c = *c as u64;
                emit((mix(c ^ SALT_CONCEPT) & mask) as u32);
                if self.prev_concept != u64::MAX {
                    emit((mix((self.prev_concept << 8 | c) ^ SALT_CONCEPT_BI) & mask) as u32);
                }
                self.prev_concept = c;
            }
        }
        self.prev = h;
    }

    /// [`finish`](Self::finish) for a punctuation token: no shape, no
    /// concept, its unigram from [`PUNCT_FEATURES`].
    #[inline(always)]
    fn punct<F: FnMut(u32)>(&mut self, b: u8, emit: &mut F) {
        let (ph, uni) = PUNCT_FEATURES[b as usize];
        let mask = self.mask;
        emit((uni & mask) as u32);
        if self.cfg.bigrams {
            emit((mix(self.prev.rotate_left(17) ^ ph ^ SALT_BI) & mask) as u32);
        }
        self.prev = ph;
    }
}

const WORD: u8 = 1;
/// Neither a word byte nor ASCII whitespace: a token of its own.
const PUNCT: u8 = 2;

/// Per byte: part of a word token (ASCII letters, digits, `_`, non-ASCII)
/// or punctuation. A table, not range tests: this loop runs once per byte
/// of every scan.
static BYTE_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 {
            t[b] = WORD;
        } else if !c.is_ascii_whitespace() {
            t[b] = PUNCT;
        }
        b += 1;
    }
    t
};

/// Each byte lowercased (ASCII letters only), by table for the same reason.
static LOWER: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (b as u8).to_ascii_lowercase();
        b += 1;
    }
    t
};

/// Calls `emit(bucket)` for every feature of `text`, in order.
#[inline]
pub fn for_each_feature(text: &[u8], cfg: &FeatureConfig, emit: impl FnMut(u32)) {
    scan_features(text, cfg, None, emit)
}

/// As [`for_each_feature`], also gathering the concept channel's statistics.
#[inline]
pub fn scan_features(
    text: &[u8],
    cfg: &FeatureConfig,
    stats: Option<&mut ConceptStats>,
    mut emit: impl FnMut(u32),
) {
    let track_lines = stats.is_some();
    let mut t = Tokenizer::new(cfg, stats);
    let mut rest = text;
    while let Some((&b, tail)) = rest.split_first() {
        let class = BYTE_CLASS[b as usize];
        if class & WORD != 0 {
            // The whole word in a loop of its own, hashed as it is
            // measured. The byte loop this replaced, which asked at every
            // byte whether a word had just ended, took 9 % longer over
            // 40 MB of botocore's text (87 against 80 ms).
            let mut h = FNV_OFFSET;
            let len = rest
                .iter()
                .take_while(|&&c| BYTE_CLASS[c as usize] & WORD != 0)
                .map(|&c| h = (h ^ LOWER[c as usize] as u64).wrapping_mul(FNV_PRIME))
                .count();
            t.finish(h, &rest[..len], &mut emit);
            rest = &rest[len..];
            continue;
        }
        if class & PUNCT != 0 {
            // Punctuation is a token of its own ("|", "(", "=").
            t.punct(b, &mut emit);
        } else if b == b'\n' && track_lines {
            if let Some(st) = t.stats.as_deref_mut() {
                st.end_line();
            }
        }
        rest = tail;
    }
}

/// Distinct features of a text with their share of all feature occurrences
/// (the weights of the mean-pooled embedding bag), and the concept vector.
/// Used by training.
pub fn weighted_features(text: &[u8], cfg: &FeatureConfig) -> (Vec<u32>, Vec<f32>, Vec<f32>) {
    let mut counts: HashMap<u32, u32> = HashMap::new();
    let mut total = 0u32;
    let mut stats = ConceptStats::default();
    scan_features(text, cfg, Some(&mut stats), |f| {
        *counts.entry(f).or_insert(0) += 1;
        total += 1;
    });
    let mut pairs: Vec<(u32, u32)> = counts.into_iter().collect();
    pairs.sort_unstable();
    let n = if cfg.distinct {
        pairs.len().max(1) as f32
    } else {
        total.max(1) as f32
    };
    (
        pairs.iter().map(|(f, _)| *f).collect(),
        pairs
            .iter()
            .map(|(_, c)| if cfg.distinct { 1.0 / n } else { *c as f32 / n })
            .collect(),
        stats.vector(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feats(s: &str) -> Vec<u32> {
        let mut v = Vec::new();
        for_each_feature(s.as_bytes(), &FeatureConfig::default(), |f| v.push(f));
        v
    }

    /// The tokenizer as it was written before session 38 (a byte loop that
    /// ends a word at the first byte that is not one): the features are
    /// part of the shipped models, so the loop that replaced it must emit
    /// exactly these, in this order.
    fn reference_features(text: &[u8], cfg: &FeatureConfig) -> (Vec<u32>, Vec<f32>) {
        let mut stats = ConceptStats::default();
        let mut out = Vec::new();
        let mut emit = |f| out.push(f);
        let mut t = Tokenizer::new(cfg, Some(&mut stats));
        let mut h = FNV_OFFSET;
        let mut len = 0usize;
        for (i, &b) in text.iter().enumerate() {
            let class = BYTE_CLASS[b as usize];
            if class & WORD != 0 {
                h = (h ^ LOWER[b as usize] as u64).wrapping_mul(FNV_PRIME);
                len += 1;
                continue;
            }
            if len > 0 {
                t.finish(h, &text[i - len..i], &mut emit);
                h = FNV_OFFSET;
                len = 0;
            }
            if class & PUNCT != 0 {
                t.punct(b, &mut emit);
            } else if b == b'\n' {
                if let Some(st) = t.stats.as_deref_mut() {
                    st.end_line();
                }
            }
        }
        if len > 0 {
            t.finish(h, &text[text.len() - len..], &mut emit);
        }
        (out, stats.vector())
    }

    #[test]
    fn features_are_the_reference_tokenizer_s() {
        use rand::{Rng, SeedableRng};
        let cfg = FeatureConfig::default();
        let check = |text: &[u8]| {
            let mut stats = ConceptStats::default();
            let mut got = Vec::new();
            scan_features(text, &cfg, Some(&mut stats), |f| got.push(f));
            let (want, want_stats) = reference_features(text, &cfg);
            assert_eq!(got, want, "{:?}", String::from_utf8_lossy(text));
            assert_eq!(
                stats.vector(),
                want_stats,
                "{:?}",
                String::from_utf8_lossy(text)
            );
            // Without the concept channel, the same features.
            let mut plain = Vec::new();
            for_each_feature(text, &cfg, |f| plain.push(f));
            assert_eq!(plain, want);
        };
        for text in [
            "",
            "a",
            " ",
            "\n",
            "os.system(base64.b64decode(x))\nsubprocess.Popen(['sh'])\n",
            "word",
            "  trailing_word",
            "é€ mixed_ÄSCII\tand\r\nbytes",
            "aVeryLongTokenOfMoreThanTwentyBytes12345 AAAABBBB==",
        ] {
            check(text.as_bytes());
        }
        // Every fixture text the tests read, whole.
        let fixtures = crate::util::crate_files(&["tests/fixtures"]);
        for data in &fixtures {
            check(data);
        }
        assert!(fixtures.len() > 20, "{} fixture files", fixtures.len());
        // Random mixes of word bytes, punctuation, spaces, line breaks and
        // non-ASCII bytes, with concept words among them.
        let alphabet: &[&[u8]] = &[
            b"a",
            b"Z",
            b"_",
            b"7",
            b"\xc3\xa9",
            b"\xff",
            b" ",
            b"\t",
            b"\n",
            b"(",
            b".",
            b"=",
            b"\"",
            b"exec",
            b"base64",
            b"subprocess",
            b"curl",
            b"child_process",
        ];
        let mut rng = rand::rngs::StdRng::seed_from_u64(38);
        for _ in 0..2000 {
            let mut text = Vec::new();
            for _ in 0..rng.random_range(0..200) {
                text.extend_from_slice(alphabet[rng.random_range(0..alphabet.len())]);
            }
            check(&text);
        }
    }

    #[test]
    fn case_insensitive_and_deterministic() {
        assert_eq!(feats("Hello World"), feats("hello world"));
        assert_eq!(feats("a  b\n\tc"), feats("a b c"));
        assert_ne!(feats("a b"), feats("b a"));
    }

    #[test]
    fn concepts_carry_across_ecosystems() {
        let cfg = FeatureConfig::default();
        let concept = |s: &str| {
            let mut v = Vec::new();
            for_each_feature(s.as_bytes(), &cfg, |f| v.push(f));
            v
        };
        // "subprocess" and "child_process" share the spawn concept feature.
        let py = concept("subprocess");
        let js = concept("child_process");
        let shared: Vec<_> = py.iter().filter(|f| js.contains(f)).collect();
        assert!(!shared.is_empty(), "{py:?} {js:?}");
        // Plain words do not.
        let a = concept("banana");
        assert!(!a.iter().any(|f| js.contains(f)));
    }

    #[test]
    fn concept_channel_sees_same_line_pairs_in_any_ecosystem() {
        let idx = |name: &str| CONCEPTS.iter().position(|(n, _)| *n == name).unwrap();
        let (spawn, decode, fetch) = (idx("spawn"), idx("decode"), idx("fetch"));
        let line_pair = |a, b| N_CONCEPTS + N_PAIRS + pair_index(a, b);
        let doc_pair = |a, b| N_CONCEPTS + pair_index(a, b);
        let cfg = FeatureConfig::default();
        for text in [
            &b"os.system(base64.b64decode(blob))\n"[..],
            b"execSync(atob(blob));\n",
        ] {
            let (_, _, v) = weighted_features(text, &cfg);
            assert_eq!(
                v[line_pair(spawn, decode)],
                1.0,
                "{}",
                String::from_utf8_lossy(text)
            );
            assert!(v[spawn] > 0.0 && v[decode] > 0.0);
        }
        // Same concepts on different lines: a document pair, not a line pair.
        let (_, _, v) = weighted_features(b"import subprocess\nfrom urllib import request\n", &cfg);
        assert_eq!(v[doc_pair(spawn, fetch)], 1.0);
        assert_eq!(v[line_pair(spawn, fetch)], 0.0);
        let mut seen = std::collections::HashSet::new();
        for a in 0..N_CONCEPTS {
            for b in a + 1..N_CONCEPTS {
                assert!(seen.insert(pair_index(a, b)) && pair_index(a, b) < N_PAIRS);
            }
        }
    }

    #[test]
    fn long_tokens_get_a_shape() {
        let short = feats("abc");
        let long = feats("aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQ");
        assert_eq!(short.len(), 2);
        assert_eq!(long.len(), 3);
    }

    #[test]
    fn weights_sum_to_one() {
        let (ids, w, c) =
            weighted_features(b"import os; os.system('x')", &FeatureConfig::default());
        assert_eq!(ids.len(), w.len());
        assert_eq!(c.len(), CONCEPT_DIM);
        assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        let (ids, w, _) = weighted_features(b"", &FeatureConfig::default());
        assert!(ids.is_empty() && w.is_empty());
    }
}
