//! Pre-check and package-scan benchmarks (criterion).
//!
//! Throughput figures quoted in the README and closing notes come from
//! `cargo bench --bench precheck`; nothing here is asserted by the test
//! suite (speed targets live in benchmarks, not in timed tests).
//!
//! Groups:
//! - `precheck/score`: the shipped models on a 64 KB diff and a 2 KB message.
//! - `precheck/load`: verifying and loading an embedded model.
//! - `capabilities/digest`: building the veto's capability view of 1 MB of
//!   code, ASCII and with non-ASCII text on most lines (rich's sdist was
//!   2.5× slower than GuardDog until the lexicon matched ASCII-only).
//! - `render`: reading and rendering fixture archives (bytes = archive size),
//!   and generated packages (bytes = their text): a large one
//!   (`synthetic-large`), two of 20,000 tiny files that guard against a
//!   cost per file per file (`synthetic-many-runs`,
//!   `synthetic-many-requirement-files`), and manifests of 20,000 keys
//!   and options that guard against a cost per value per value
//!   (`synthetic-many-manifest-keys`).
//! - `scan`: the same packages through the coordinator (read, render, score,
//!   decide), the figure compared with GuardDog.
//! - `train`: one epoch over the small training fixture.

use std::path::{Path, PathBuf};
use std::time::Duration;

use canary::config::{Config, Limits};
use canary::input::render::render_package;
use canary::input::Text;
use canary::policy::PolicySet;
use canary::precheck::{self, Precheck, PrecheckScore};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

/// A 64 KB diff built by repeating the bug-fix fixture (ordinary code, the
/// common case for a gate), and a 2 KB chat-like message.
fn inputs() -> (Vec<u8>, Vec<u8>) {
    let diff = std::fs::read(fixture("diffs/bugfix.diff")).expect("fixture");
    let mut big = Vec::with_capacity(64 * 1024);
    while big.len() < 64 * 1024 {
        big.extend_from_slice(&diff);
    }
    big.truncate(64 * 1024);
    let notes = std::fs::read(fixture("text/meeting-notes.txt")).expect("fixture");
    let mut msg = Vec::with_capacity(2048);
    while msg.len() < 2048 {
        msg.extend_from_slice(&notes);
    }
    msg.truncate(2048);
    (big, msg)
}

fn bench_score(c: &mut Criterion) {
    let (big, msg) = inputs();
    let mut g = c.benchmark_group("precheck/score");
    for name in ["malicious-package", "prompt-injection"] {
        let m = precheck::load(&format!("builtin:{name}"), None, &candle_core::Device::Cpu)
            .expect("shipped model");
        for (label, text) in [("diff-64KB", &big), ("message-2KB", &msg)] {
            g.throughput(Throughput::Bytes(text.len() as u64));
            // What the gate calls: every slice (in parallel when there are
            // many), then the top.
            let text = Text::from(String::from_utf8(text.clone()).expect("UTF-8 fixture"));
            g.bench_with_input(BenchmarkId::new(name, label), &text, |b, t| {
                b.iter(|| PrecheckScore::of(&m.slice_scores(std::hint::black_box(t))))
            });
        }
    }
    g.finish();
}

/// About 1 MB of a rendered code file: ordinary lines, a capability line
/// every 20, and (in the `non-ascii` case) box-drawing and accented text
/// on most lines.
fn code_text(non_ascii: bool) -> Vec<u8> {
    let mut t = b"--- /dev/null\n+++ b/pkg/console.py\n@@ -0,0 +1,1 @@\n".to_vec();
    let mut i = 0;
    while t.len() < 1 << 20 {
        let line = match (i % 20, non_ascii) {
            (0, _) => "+    token = os.environ.get('API_TOKEN')\n".to_string(),
            (_, true) => format!("+    print('━━ étape {i} terminée ✓ ━━')  # café\n"),
            (_, false) => format!("+    print('-- step {i} done --')  # note\n"),
        };
        t.extend_from_slice(line.as_bytes());
        i += 1;
    }
    t
}

fn bench_digest(c: &mut Criterion) {
    let mut g = c.benchmark_group("capabilities/digest");
    for (label, non_ascii) in [("ascii-1MB", false), ("non-ascii-1MB", true)] {
        let text = code_text(non_ascii);
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function(label, |b| {
            b.iter(|| precheck::capabilities::digest_of(std::hint::black_box(&text)))
        });
    }
    g.finish();
}

fn bench_load(c: &mut Criterion) {
    c.bench_function("precheck/load/malicious-package", |b| {
        b.iter(|| {
            precheck::load("builtin:malicious-package", None, &candle_core::Device::Cpu)
                .expect("shipped model")
        })
    });
}

/// One package the `render` and `scan` groups measure.
struct Case {
    name: String,
    path: PathBuf,
    /// What the throughput counts: the archive's bytes for a fixture, the
    /// text's for the generated package.
    bytes: u64,
    /// Slow enough that criterion's default 100 samples would take minutes.
    large: bool,
}

/// The fixture packages, then the generated ones.
fn packages() -> Vec<Case> {
    let mut cases: Vec<Case> = [
        "packages/benign/six-1.16.0.tar.gz",
        "packages/benign/idna-3.7.tar.gz",
        "packages/benign/idna-3.7-py3-none-any.whl",
        "packages/benign/left-pad-1.3.0.tgz",
    ]
    .iter()
    .map(|p| {
        let path = fixture(p);
        Case {
            name: path.file_name().unwrap().to_string_lossy().to_string(),
            bytes: std::fs::metadata(&path).expect("fixture").len(),
            path,
            large: false,
        }
    })
    .collect();
    for (name, (path, bytes)) in [
        ("synthetic-large", large_package()),
        ("synthetic-many-runs", many_runs_package()),
        (
            "synthetic-many-requirement-files",
            many_requirement_files_package(),
        ),
        ("synthetic-many-manifest-keys", many_manifest_keys_package()),
    ] {
        cases.push(Case {
            name: name.into(),
            path: path.clone(),
            bytes: *bytes,
            large: true,
        });
    }
    cases
}

/// Writes a generated `.tar.gz` of `files` (path, text) to Cargo's temp
/// folder for benches. Returns the archive and its uncompressed member bytes.
fn write_package(name: &str, files: impl Iterator<Item = (String, String)>) -> (PathBuf, u64) {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let gz = flate2::write::GzEncoder::new(
        std::fs::File::create(&path).expect("bench temp file"),
        flate2::Compression::default(),
    );
    let mut tar = tar::Builder::new(gz);
    let mut total = 0u64;
    for (member, text) in files {
        let mut h = tar::Header::new_gnu();
        h.set_size(text.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        tar.append_data(&mut h, &member, text.as_bytes())
            .expect("bench archive");
        total += text.len() as u64;
    }
    tar.into_inner()
        .expect("bench archive")
        .finish()
        .expect("bench archive");
    (path, total)
}

/// A generated sdist-like `.tar.gz` of ordinary code and service-style JSON
/// (18.8 MiB of text in 300 files), the shape of the large packages that
/// dominate scan time (botocore, lxml). Deterministic; written once per run.
fn large_package() -> &'static (PathBuf, u64) {
    static LARGE: std::sync::OnceLock<(PathBuf, u64)> = std::sync::OnceLock::new();
    LARGE.get_or_init(|| {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let files = (0..300).map(|f| {
            let mut text = String::new();
            let (name, json) = if f % 3 == 0 {
                (format!("pkg-1.0/pkg/data/service_{f}.json"), true)
            } else {
                (format!("pkg-1.0/pkg/mod_{f}.py"), false)
            };
            while text.len() < 64 * 1024 {
                let (a, b, c) = (next(5000), next(5000), next(100_000));
                if json {
                    text.push_str(&format!(
                        "  \"Operation{a}\": {{\"http\": {{\"method\": \"POST\", \"requestUri\": \"/v{b}/items/{{Id}}\"}}, \"input\": {{\"shape\": \"Shape{c}Request\"}}}},\n"
                    ));
                } else {
                    text.push_str(&format!(
                        "def handle_{a}(request, value={c}):\n    result = helper_{b}(request.items[{c}], value)\n    return result + {a}\n\n"
                    ));
                }
            }
            (name, text)
        });
        write_package("synthetic-large-1.0.tar.gz", files)
    })
}

/// How many files the two many-file packages hold: within the default
/// `max-members`, and where a cost per file per file shows (each was
/// quadratic before session 42: 2.6 s and 4 s at 40,000).
const MANY: usize = 20_000;

/// 20,000 tiny modules, each with a line the veto's capability view keeps:
/// the main model clears the package, and the veto reads 20,000 slices,
/// each mapped back to the text.
fn many_runs_package() -> &'static (PathBuf, u64) {
    static MANY_RUNS: std::sync::OnceLock<(PathBuf, u64)> = std::sync::OnceLock::new();
    MANY_RUNS.get_or_init(|| {
        let files = (0..MANY).map(|i| {
            (
                format!("many-1.0/many/m{i}.py"),
                format!(
                    "from . import m{}\nexec(open('docs/n{i}.txt').read())\n",
                    (i + 1) % MANY
                ),
            )
        });
        let manifest = std::iter::once((
            "many-1.0/pyproject.toml".to_string(),
            "[project]\nname = \"many\"\nversion = \"1.0\"\n".to_string(),
        ));
        write_package("synthetic-many-runs-1.0.tar.gz", manifest.chain(files))
    })
}

/// A `pyproject.toml` naming 20,000 requirement files, each of which the
/// scan looks up among the package's files.
fn many_requirement_files_package() -> &'static (PathBuf, u64) {
    static MANY_REQS: std::sync::OnceLock<(PathBuf, u64)> = std::sync::OnceLock::new();
    MANY_REQS.get_or_init(|| {
        let names: Vec<String> = (0..MANY).map(|i| format!("\"req/r{i}.txt\"")).collect();
        let manifest = std::iter::once((
            "reqs-1.0/pyproject.toml".to_string(),
            format!(
                "[project]\nname = \"reqs\"\nversion = \"1.0\"\ndynamic = [\"dependencies\"]\n\n[tool.setuptools.dynamic]\ndependencies = {{ file = [{}] }}\n",
                names.join(",")
            ),
        ));
        let files =
            (0..MANY).map(|i| (format!("reqs-1.0/req/r{i}.txt"), format!("package-{i}>=1.0\n")));
        write_package("synthetic-many-requirement-files-1.0.tar.gz", manifest.chain(files))
    })
}

/// A `pyproject.toml` and a `setup.cfg` of 20,000 values each (a data
/// file per key, a console script per option, half of them
/// interpolated), each read as its installer reads it: a search for
/// each value's line made such a file of 200,000 keys take over a minute
/// (session 43, before it was made only for the value a rule reports).
fn many_manifest_keys_package() -> &'static (PathBuf, u64) {
    static MANY_KEYS: std::sync::OnceLock<(PathBuf, u64)> = std::sync::OnceLock::new();
    MANY_KEYS.get_or_init(|| {
        let keys: String = (0..MANY)
            .map(|i| format!("\"share/k{i}\" = [\"data/k{i}.txt\"]\n"))
            .collect();
        let options: String = (0..MANY)
            .map(|i| match i % 2 {
                0 => format!("    c{i} = keys.cli:main\n"),
                _ => format!("    %(c)s{i} = keys.cli:main\n"),
            })
            .collect();
        let files = [
            (
                "keys-1.0/pyproject.toml".to_string(),
                format!("[project]\nname = \"keys\"\nversion = \"1.0\"\n\n[tool.setuptools.data-files]\n{keys}"),
            ),
            (
                "keys-1.0/setup.cfg".to_string(),
                format!("[options.entry_points]\nc = cmd\nconsole_scripts =\n{options}"),
            ),
            (
                "keys-1.0/keys/__init__.py".to_string(),
                "def main():\n    return 0\n".to_string(),
            ),
        ];
        write_package("synthetic-many-manifest-keys-1.0.tar.gz", files.into_iter())
    })
}

fn bench_render(c: &mut Criterion) {
    let limits = Limits::default();
    let mut g = c.benchmark_group("render");
    for case in packages() {
        g.throughput(Throughput::Bytes(case.bytes));
        g.sample_size(if case.large { 10 } else { 100 });
        g.bench_function(&case.name, |b| {
            b.iter(|| {
                let input = render_package(None, &case.path, &limits);
                assert!(input.error.is_none());
                input
            })
        });
    }
    g.finish();
}

fn bench_scan(c: &mut Criterion) {
    let set = PolicySet::load(&[]).expect("built-in policies");
    let policy = set.resolve("malicious-package").expect("built-in policy");
    let coord =
        canary::cli::build_coordinator(Config::default(), &[policy], true).expect("coordinator");
    let ids = vec!["malicious-package".to_string()];
    let limits = Limits::default();
    let mut g = c.benchmark_group("scan");
    for case in packages() {
        g.throughput(Throughput::Bytes(case.bytes));
        g.sample_size(if case.large { 10 } else { 100 });
        g.bench_function(&case.name, |b| {
            b.iter(|| {
                let input = render_package(None, &case.path, &limits);
                coord.scan(&input, &ids)
            })
        });
    }
    g.finish();
}

fn bench_train(c: &mut Criterion) {
    let out = tempfile::tempdir().expect("temp dir");
    let mut g = c.benchmark_group("train");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function("epoch/small-fixture", |b| {
        b.iter(|| {
            let mut o = canary::train::TrainOptions::defaults("prompt-injection");
            o.data = vec![(fixture("train/small.jsonl"), 1.0)];
            o.dev = fixture("train/small.jsonl");
            o.out = out.path().join("m");
            o.epochs = 1;
            canary::train::train(&o).expect("training")
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    bench_score,
    bench_digest,
    bench_load,
    bench_render,
    bench_scan,
    bench_train
);
criterion_main!(benches);
