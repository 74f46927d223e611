//! The command line: argument parsing, wiring of the library stages, output
//! and exit codes. Errors here carry context for the person at the terminal
//! (`anyhow`); the library's errors stay typed.
//!
//! Exit codes: 0 every input allowed; 1 something blocked as harmful; 2
//! something blocked as inconclusive or unreadable; 3 usage or config error
//! (nothing scanned). No error path returns 0.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use rayon::prelude::*;

use crate::config::Config;
use crate::coordinator::{Coordinator, PolicyGate};
use crate::detector::http::HttpDetector;
use crate::detector::Detector;
use crate::input::{self, Input};
use crate::policy::{Policy, PolicySet};
use crate::report::Report;

pub const EXIT_USAGE: i32 = 3;

#[derive(Parser, Debug)]
#[command(
    name = "canary",
    version,
    about = "Local-first harm gate: is this input safe enough, under a named harm policy, to go on?"
)]
struct Cli {
    /// Config file (default: the built-in defaults; a ./canary.toml is
    /// never read unless named here, so an untrusted checkout cannot
    /// loosen the gate that judges it).
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Scan files, diffs, packages, stdin (-) or a JSONL batch.
    Scan(ScanArgs),
    /// List, show or check policies.
    Policy {
        #[command(subcommand)]
        command: PolicyCommand,
    },
    /// Train a pre-check model from labelled JSONL.
    Train(TrainArgs),
    /// Evaluate the gate (pre-check, detectors, quorum) on labelled JSONL.
    Eval(EvalArgs),
    /// Print the diff text a package (or a version change) is judged on.
    Render {
        path: PathBuf,
        /// Earlier version to diff against.
        #[arg(long)]
        base: Option<PathBuf>,
        /// Apply the training corpus caps (16 KB per file, 64 KB per sample).
        #[arg(long)]
        corpus: bool,
        /// Print what a model with this view reads: the rendered text
        /// (`text`, the default) or only its capability lines with context
        /// (`capabilities`, what the malicious-package veto reads; nothing
        /// when there is no such line).
        #[arg(long, value_enum, default_value = "text")]
        view: ViewArg,
    },
    /// Probe the configured detectors with known inputs.
    Detectors {
        #[command(subcommand)]
        command: DetectorsCommand,
    },
    /// List quarantined artifacts and their reports.
    Review { dir: PathBuf },
}

#[derive(Subcommand, Debug)]
enum PolicyCommand {
    /// List the available policies.
    List,
    /// Print a policy as TOML.
    Show { id: String },
    /// Validate a policy file, reporting every problem.
    Check { file: PathBuf },
}

#[derive(Subcommand, Debug)]
enum DetectorsCommand {
    /// Send each detector known-harmful and known-harmless probes per policy.
    Check {
        /// Only loopback detectors.
        #[arg(long)]
        local_only: bool,
    },
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum SlicingArg {
    Bytes,
    Files,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ViewArg {
    Text,
    /// `capabilities/v7`: capability lines with context, file by file.
    Capabilities,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Human,
    Json,
    Jsonl,
    Sarif,
}

#[derive(Args, Debug)]
struct ScanArgs {
    /// Files, package archives, directories, or - for stdin.
    paths: Vec<PathBuf>,
    /// JSONL batch: one {"id": …, "text": …} per line.
    #[arg(long)]
    batch: Option<PathBuf>,
    /// Policies (ids or files), comma separated. Default by input kind.
    #[arg(long, value_delimiter = ',')]
    policy: Vec<String>,
    /// Output format (default: human on a terminal, json otherwise).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// No byte leaves the machine: only loopback detectors are called.
    #[arg(long)]
    local_only: bool,
    /// Append one JSON line per decision to this file.
    #[arg(long)]
    audit: Option<PathBuf>,
    /// Earlier version of the package to diff against (one NEW path).
    #[arg(long, conflicts_with = "accepted")]
    base: Option<PathBuf>,
    /// Folder of releases you have already accepted (reviewed, allowed or
    /// allowlisted): each package is judged as the change from the newest
    /// earlier final release of the same project and kind found there
    /// (by file name), and whole when there is none. Only what you accepted
    /// belongs there: the change is all that is judged.
    #[arg(long, value_name = "DIR")]
    accepted: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// Bypass the result cache.
    #[arg(long)]
    no_cache: bool,
    /// Copy blocked artifacts (read-only) with their reports here.
    #[arg(long)]
    quarantine: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct TrainArgs {
    #[arg(long)]
    policy: String,
    /// Training JSONL (repeatable); FILE:WEIGHT weights its examples.
    #[arg(long, required = true)]
    data: Vec<String>,
    #[arg(long)]
    dev: PathBuf,
    #[arg(long)]
    out: PathBuf,
    /// Where to train: cpu, cuda or metal (the last two need a build with
    /// that feature; the thresholds are calibrated on CPU scores either way).
    #[arg(long, default_value = "cpu")]
    device: String,
    #[arg(long)]
    epochs: Option<usize>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long)]
    dim: Option<usize>,
    #[arg(long)]
    hidden: Option<usize>,
    #[arg(long)]
    buckets_log2: Option<u32>,
    #[arg(long)]
    lr: Option<f64>,
    #[arg(long)]
    batch_size: Option<usize>,
    #[arg(long)]
    window: Option<usize>,
    /// Overlap between consecutive slices in bytes (default: window / 8).
    #[arg(long)]
    overlap: Option<usize>,
    /// Cut texts into slices by file section (`files`) or by length only
    /// (`bytes`, the default).
    #[arg(long, value_enum)]
    slicing: Option<SlicingArg>,
    /// With `--slicing files`: neighbouring file sections share a slice
    /// while together within this many bytes (default 0: each alone).
    #[arg(long)]
    pack: Option<usize>,
    /// What the model reads: the rendered text (`text`, the default) or only
    /// its capability lines with context (`capabilities`).
    #[arg(long, value_enum)]
    view: Option<ViewArg>,
    /// Pool over distinct features (presence) instead of every occurrence.
    #[arg(long)]
    distinct_pooling: bool,
    #[arg(long)]
    weight_decay: Option<f64>,
    /// Share of training slices whose token bag is dropped (concept channel alone).
    #[arg(long)]
    bag_dropout: Option<f32>,
    #[arg(long)]
    quiet: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum EvalFormat {
    Table,
    Json,
}

#[derive(Args, Debug)]
struct EvalArgs {
    #[arg(long, required = true)]
    data: Vec<PathBuf>,
    /// Policy to evaluate (default: the rows' `policy` field).
    #[arg(long)]
    policy: Option<String>,
    #[arg(long, value_enum, default_value = "table")]
    format: EvalFormat,
    /// Only loopback detectors.
    #[arg(long)]
    local_only: bool,
    /// Also write one JSON line per example (id, label, source, score, decision) here.
    #[arg(long)]
    scores: Option<PathBuf>,
}

/// Runs the CLI and returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => 0,
                _ => EXIT_USAGE,
            };
            let _ = e.print();
            return code;
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            crate::util::say(&format!("canary: error: {e:#}"));
            EXIT_USAGE
        }
    }
}

fn run(cli: Cli) -> Result<i32> {
    let config = Config::discover(cli.config.as_deref())?;
    if let Some(local) = Config::ignored_local(cli.config.as_deref()) {
        crate::util::say(&format!(
            "canary: note: {} in the working directory is not read unless named; \
             pass --config {} to use it (built-in defaults apply)",
            local.display(),
            local.display()
        ));
    }
    match cli.command {
        Command::Scan(args) => scan(config, args),
        Command::Policy { command } => policy_cmd(&config, command),
        Command::Train(args) => train_cmd(args),
        Command::Eval(args) => eval_cmd(config, args),
        Command::Render {
            path,
            base,
            corpus,
            view,
        } => render_cmd(&config, &path, base.as_deref(), corpus, view),
        Command::Detectors {
            command: DetectorsCommand::Check { local_only },
        } => detectors_check(config, local_only),
        Command::Review { dir } => review_cmd(&dir),
    }
}

/// Loads the policies a run can use, with their pre-check models, and the
/// detectors. A model that fails to load stops the run: no scan without it.
pub fn build_coordinator(
    config: Config,
    policies: &[Policy],
    local_only: bool,
) -> Result<Coordinator> {
    let device = crate::precheck::device(config.precheck.device.as_deref())?;
    // A model named in the config resolves against the config's folder, one
    // named in a policy against the policy's.
    let config_dir = config
        .path
        .as_deref()
        .and_then(Path::parent)
        .map(Path::to_path_buf);
    let load = |reference: Option<(String, Option<PathBuf>)>, what: &str, policy: &str| {
        reference
            .map(|(r, base)| {
                crate::precheck::load(&r, base.as_deref(), &device)
                    .map(|m| m as Arc<dyn crate::precheck::Precheck>)
                    .with_context(|| format!("loading the {what} for policy `{policy}`"))
            })
            .transpose()
    };
    let mut gates = Vec::new();
    for p in policies {
        let model_ref = match config.precheck.models.get(&p.id) {
            Some(r) => Some((r.clone(), config_dir.clone())),
            None => p.precheck_model.clone().map(|r| (r, p.base_dir.clone())),
        };
        let veto_ref = match config.precheck.vetoes.get(&p.id) {
            Some(v) if v == "off" => None,
            Some(v) => Some((v.clone(), config_dir.clone())),
            None => p.precheck_veto.clone().map(|v| (v, p.base_dir.clone())),
        };
        let precheck = load(model_ref, "pre-check model", &p.id)?;
        let veto = load(veto_ref, "pre-check veto model", &p.id)?;
        gates.push(PolicyGate {
            policy: p.clone(),
            precheck,
            veto,
        });
    }
    let detectors: Vec<Arc<dyn Detector>> = config
        .detectors
        .iter()
        .map(|d| Arc::new(HttpDetector::new(d.clone())) as Arc<dyn Detector>)
        .collect();
    Ok(Coordinator::new(config, gates, detectors, local_only)?)
}

fn policy_set(config: &Config) -> Result<PolicySet> {
    Ok(PolicySet::load(&config.gate.policy_files)?)
}

fn scan(config: Config, args: ScanArgs) -> Result<i32> {
    if args.paths.is_empty() && args.batch.is_none() {
        bail!("nothing to scan: give paths, - for stdin, or --batch FILE.jsonl");
    }
    if args.base.is_some() && args.paths.len() != 1 {
        bail!("--base OLD takes exactly one NEW path");
    }
    // The patterns every package is read with are built on a thread of
    // their own while the inputs are gathered and the first archive is
    // read, instead of by the first file that needs them while the other
    // threads wait. Only timing depends on it: a thread that cannot be
    // started leaves each to be built on first use, as before.
    for warm_up in [input::warm_up, crate::precheck::capabilities::warm_up] {
        let _ = std::thread::Builder::new()
            .name("canary-warm-up".into())
            .spawn(warm_up);
    }
    let set = policy_set(&config)?;
    // Resolve explicit policies first: an unknown policy is a usage error.
    let explicit: Vec<Policy> = args
        .policy
        .iter()
        .filter(|s| !s.trim().is_empty())
        .map(|s| set.resolve(s.trim()))
        .collect::<Result<_, _>>()?;

    // Gather inputs. A missing path is a usage error before anything is scanned.
    let limits = config.limits;
    let mut inputs: Vec<Input> = Vec::new();
    let mut pending: Vec<PathBuf> = Vec::new();
    // Entries of a package folder that may hold a package but were not read.
    let mut unread: Vec<Input> = Vec::new();
    for p in &args.paths {
        if p.as_os_str() == "-" {
            continue;
        }
        if std::fs::symlink_metadata(p).is_err() {
            bail!(input::InputError::NotFound(p.clone()));
        }
        // A folder named on the command line is read even through a link
        // (the user named it); links inside it are listed, not followed.
        let collection = if p.is_dir() {
            input::collection::collect(p)
        } else {
            None
        };
        if let Some(c) = collection {
            // Said whatever --quiet: a gate must not pass over files unseen.
            if let Some(line) = c.skipped_line(p) {
                crate::util::say(&format!("canary: warning: {line}"));
            }
            unread.extend(c.unread().map(|s| {
                let source = s.path.display().to_string();
                Input::unread(
                    &source,
                    format!(
                        "{source} was not scanned: {}; what it holds was never judged",
                        s.why
                    ),
                )
            }));
            pending.extend(c.packages);
        } else {
            pending.push(p.clone());
        }
    }
    if let Some(base) = &args.base {
        if std::fs::symlink_metadata(base).is_err() {
            bail!(input::InputError::NotFound(base.clone()));
        }
    }
    let accepted = match &args.accepted {
        Some(dir) => Some(accepted_releases(dir)?),
        None => None,
    };
    if args.paths.iter().any(|p| p.as_os_str() == "-") {
        inputs.push(input::read_stdin(&limits)?);
    }
    if let Some(batch) = &args.batch {
        inputs.extend(input::read_batch(batch, &limits)?);
    }
    if pending.is_empty() && inputs.is_empty() && unread.is_empty() {
        bail!("no inputs found in {:?}", args.paths);
    }

    // The policies every input may need.
    // Only packages: only their policies' models are loaded (loading is most
    // of a one-package scan's time).
    let package_only = inputs.is_empty()
        && (args.base.is_some()
            || pending
                .iter()
                .all(|p| p.is_dir() || crate::input::archive::package_format(p).is_some()));
    let needed: Vec<Policy> = if explicit.is_empty() {
        let kinds: &[input::InputKind] = if package_only {
            &[input::InputKind::Package]
        } else {
            &[input::InputKind::Text, input::InputKind::Diff]
        };
        let mut ids: Vec<&str> = kinds
            .iter()
            .flat_map(|k| k.default_policies().iter().copied())
            .collect();
        ids.sort();
        ids.dedup();
        ids.iter()
            .map(|id| set.resolve(id))
            .collect::<Result<_, _>>()?
    } else {
        explicit.clone()
    };
    let coord = build_coordinator(config, &needed, args.local_only)?;
    let format = args.format.unwrap_or(if std::io::stdout().is_terminal() {
        Format::Human
    } else {
        Format::Json
    });
    let audit = match &args.audit {
        Some(p) => Some(Mutex::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .with_context(|| format!("opening audit log {}", p.display()))?,
        )),
        None => None,
    };
    let policies_for = |inp: &Input| -> Vec<String> {
        if explicit.is_empty() {
            inp.kind
                .default_policies()
                .iter()
                .map(|s| s.to_string())
                .collect()
        } else {
            explicit.iter().map(|p| p.id.clone()).collect()
        }
    };
    let out = Mutex::new(Output::new(format));
    let total = (pending.len() + inputs.len() + unread.len()) as u64;
    let bar = if args.quiet || !std::io::stderr().is_terminal() || total < 2 {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new(total)
    };
    let emit = |report: Report, input: Option<&Input>, path: Option<&Path>| -> Result<()> {
        if let Some(a) = &audit {
            let mut f = a.lock().map_err(|_| anyhow!("audit log lock poisoned"))?;
            writeln!(f, "{}", report.to_json_line()).context("writing the audit log")?;
        }
        // A quarantine that fails stops the run (exit 3), as a failing
        // audit log does; a streamed report is written first, so the
        // package's decision is not lost with it.
        let held = match (&args.quarantine, path) {
            (Some(dir), Some(path)) if report.decision == crate::report::Decision::Block => {
                quarantine(dir, path, &report)
            }
            _ => Ok(()),
        };
        let _ = input;
        let mut out = out.lock().map_err(|_| anyhow!("output lock poisoned"))?;
        out.push(report, &bar);
        bar.inc(1);
        held?;
        // Nobody reads the decisions any more (`| head`): stop scanning
        // rather than judge a whole mirror for nothing. Exit 3 either way.
        match &out.write_error {
            Some(e) => Err(anyhow!(
                "cannot write reports to standard output ({e}); stopped scanning"
            )),
            None => Ok(()),
        }
    };
    for inp in &inputs {
        let r = coord.scan(inp, &policies_for(inp));
        emit(r, Some(inp), None)?;
    }
    for inp in &unread {
        let r = coord.scan(inp, &policies_for(inp));
        emit(r, Some(inp), Some(Path::new(&inp.source)))?;
    }
    let cache = if args.no_cache || pending.is_empty() {
        None
    } else {
        open_cache(&coord)
    };
    pending
        .par_iter()
        .map(|path| -> Result<()> {
            let accepted = args.accepted.as_deref().zip(accepted.as_deref());
            let (base, note) = match (&args.base, accepted) {
                (Some(b), _) => (Some(b.clone()), None),
                // Texts and diffs named beside packages are judged as usual.
                (None, Some((dir, releases)))
                    if path.is_dir() || crate::input::archive::package_format(path).is_some() =>
                {
                    accepted_base(dir, releases, path)
                }
                (None, _) => (None, None),
            };
            let source = path.display().to_string();
            let read = guarded(|| match &base {
                Some(b) => crate::input::render::render_package(Some(b), path, &limits),
                // Missing paths were refused before the scan; one that fails
                // now (removed, unreadable) blocks on its own instead of
                // ending the run and losing every other package's report.
                None => input::read_path(path, &limits)
                    .unwrap_or_else(|e| Input::unread(&source, e.to_string())),
            });
            let mut inp =
                read.unwrap_or_else(|panic| Input::unread(&source, internal_error(&panic)));
            inp.notes.extend(note);
            let ids = policies_for(&inp);
            // A folder's hash is of what its reader saw (files, links and
            // skipped entries: `render::folder_sha256`), so a folder, as a
            // package or as a base, is keyed as soundly as an archive.
            let cacheable = inp.error.is_none();
            let r = match &cache {
                Some(c) if cacheable => {
                    let base_sha = inp.base.as_ref().map(|b| b.sha256.as_str());
                    let key = c.key(&inp.sha256, base_sha, &ids);
                    match c.get(&key, &inp.sha256) {
                        Some(hit) => from_cache(hit, &inp, &coord),
                        None => {
                            let r = scan_guarded(&coord, &inp, &ids);
                            c.put(&key, &r);
                            r
                        }
                    }
                }
                _ => scan_guarded(&coord, &inp, &ids),
            };
            emit(r, Some(&inp), Some(path))
        })
        .collect::<Result<Vec<()>>>()?;
    bar.finish_and_clear();
    let out = out
        .into_inner()
        .map_err(|_| anyhow!("output lock poisoned"))?;
    Ok(out.finish())
}

/// Runs `f`, turning a panic into the message it carried. A bug that one
/// hostile package trips in a reader must block that package, not end
/// the run and lose every other package's report (a fuzzed Rust source
/// once made a rule's pattern fail to compile, session 47).
fn guarded<T>(f: impl FnOnce() -> T) -> std::result::Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| {
        p.downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string())
    })
}

/// The error a package gets when Canary itself failed on it.
fn internal_error(panic: &str) -> String {
    format!(
        "Canary failed on this input (internal error: {panic}); it is blocked, not judged: please report it with the input"
    )
}

/// [`Coordinator::scan`](crate::coordinator::Coordinator::scan), a panic
/// in it turned into the report of an unread input ([`guarded`]): blocked.
fn scan_guarded(
    coord: &crate::coordinator::Coordinator,
    inp: &Input,
    ids: &[String],
) -> crate::report::Report {
    guarded(|| coord.scan(inp, ids)).unwrap_or_else(|panic| {
        coord.scan(&Input::unread(&inp.source, internal_error(&panic)), ids)
    })
}

/// The releases in an `--accepted` folder that name their project and
/// version (archives only, found as a folder scan finds them).
fn accepted_releases(dir: &Path) -> Result<Vec<input::versions::Release>> {
    if std::fs::symlink_metadata(dir).is_err() {
        bail!(input::InputError::NotFound(dir.to_path_buf()));
    }
    let found = if dir.is_dir() {
        input::collection::collect(dir)
    } else {
        None
    };
    let Some(c) = found else {
        bail!(
            "--accepted {} must be a folder of release files (such as six-1.16.0.tar.gz), not a package",
            dir.display()
        );
    };
    Ok(c.packages
        .iter()
        .filter(|p| p.is_file())
        .filter_map(|p| input::versions::parse(p))
        .collect())
}

/// The accepted release `path` is judged against, or a note on why it is
/// judged whole.
fn accepted_base(
    dir: &Path,
    releases: &[input::versions::Release],
    path: &Path,
) -> (Option<PathBuf>, Option<String>) {
    let Some(new) = input::versions::parse(path) else {
        return (
            None,
            Some(format!(
                "judged whole: its name gives no project and version to find an accepted earlier release in {}",
                dir.display()
            )),
        );
    };
    match input::versions::base_for(&new, releases) {
        Some(b) => (Some(b.path.clone()), None),
        None => (
            None,
            Some(format!(
                "judged whole: {} holds no accepted final release of {} ({}) older than this one",
                dir.display(),
                new.project,
                new.kind
            )),
        ),
    }
}

/// The result cache for this run. No cache (a warning, then a full scan)
/// when the directory cannot be made.
fn open_cache(coord: &crate::coordinator::Coordinator) -> Option<crate::cache::Cache> {
    let dir = crate::cache::default_dir()?;
    match crate::cache::Cache::open(&dir, coord.fingerprint()) {
        Ok(c) => Some(c),
        Err(e) => {
            crate::util::say(&format!(
                "canary: warning: result cache {} unavailable ({e}); scanning without it",
                dir.display()
            ));
            None
        }
    }
}

/// A cached report, re-addressed to this input. Nothing ran this time, so
/// this run's usage is zero; the votes it was decided on are kept. The
/// notes are this read's: one artifact under another name (a tarball named
/// `.whl`) is noted as such however it was named when the report was cached.
fn from_cache(mut r: Report, inp: &Input, coord: &crate::coordinator::Coordinator) -> Report {
    r.input = inp.info();
    r.notes = inp.notes.clone();
    // The key covers the config's content, not where it was read from.
    r.config = coord.config_info();
    r.usage = crate::report::Usage::default();
    r.elapsed_ms = 0;
    r.notes
        .push("cached: decision reused from an earlier scan of this artifact with the same models, policies and config (--no-cache to rescan)".into());
    r
}

/// Collects or streams reports in the chosen format.
struct Output {
    format: Format,
    reports: Vec<Report>,
    code: i32,
    write_error: Option<std::io::Error>,
}

impl Output {
    fn new(format: Format) -> Output {
        Output {
            format,
            reports: Vec::new(),
            code: 0,
            write_error: None,
        }
    }

    fn push(&mut self, r: Report, bar: &indicatif::ProgressBar) {
        self.code = self.code.max(r.exit_code());
        match self.format {
            Format::Jsonl => bar.suspend(|| self.write(&format!("{}\n", r.to_json_line()))),
            Format::Human => bar.suspend(|| self.write(&r.to_human())),
            _ => {}
        }
        self.reports.push(r);
    }

    fn finish(mut self) -> i32 {
        let n = self.reports.len();
        match self.format {
            Format::Json => {
                let text = if n == 1 {
                    self.reports[0].to_json_pretty()
                } else {
                    serde_json::to_string_pretty(&self.reports).expect("reports serialize")
                };
                self.write(&format!("{text}\n"));
            }
            Format::Sarif => self.write(&format!(
                "{}\n",
                crate::report::sarif::to_sarif(&self.reports)
            )),
            // The summary goes to stdout for people, to stderr beside JSONL
            // so that stdout stays one report per line.
            Format::Human if n > 1 => self.write(&format!("{}\n", summary(&self.reports))),
            Format::Jsonl if n > 1 => crate::util::say(&summary(&self.reports)),
            _ => {}
        }
        if n == 0 {
            crate::util::say("canary: no report was produced");
            return EXIT_USAGE;
        }
        if let Some(e) = self.write_error {
            // The decisions were made but not all delivered: not a clean exit.
            crate::util::say(&format!(
                "canary: error: cannot write reports to standard output: {e}"
            ));
            return EXIT_USAGE;
        }
        self.code
    }

    /// Writes to stdout, remembering the first failure (a closed pipe)
    /// instead of panicking; later writes are skipped.
    fn write(&mut self, text: &str) {
        if self.write_error.is_none() {
            if let Err(e) = write_stdout(text) {
                self.write_error = Some(e);
            }
        }
    }
}

/// Writes to stdout and flushes; a closed pipe is an error, never a panic.
fn write_stdout(text: &str) -> std::io::Result<()> {
    let mut o = std::io::stdout().lock();
    o.write_all(text.as_bytes())?;
    o.flush()
}

/// `println!` for commands: an error (exit 3) instead of a panic when
/// stdout is closed, as in `canary render PKG | head`.
macro_rules! outln {
    ($($arg:tt)*) => {
        write_stdout(&format!("{}\n", format_args!($($arg)*)))
            .context("cannot write to standard output")
    };
}

/// `print!` counterpart of [`outln!`].
macro_rules! out {
    ($($arg:tt)*) => {
        write_stdout(&format!($($arg)*)).context("cannot write to standard output")
    };
}

/// `N input(s): A allowed, B blocked (H harmful, I inconclusive, E unreadable)`.
fn summary(reports: &[Report]) -> String {
    let count = |f: &dyn Fn(&Report) -> bool| reports.iter().filter(|r| f(r)).count();
    let allowed = count(&|r| r.decision == crate::report::Decision::Allow);
    let harmful = count(&|r| r.reason.is_harmful());
    let unreadable = count(&|r| r.reason == crate::report::Reason::InputError);
    let inconclusive = count(&|r| r.reason == crate::report::Reason::Inconclusive);
    format!(
        "{} input(s): {allowed} allowed, {} blocked ({harmful} harmful, {inconclusive} inconclusive, {unreadable} unreadable)",
        reports.len(),
        reports.len() - allowed
    )
}

fn quarantine(dir: &Path, path: &Path, report: &Report) -> Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("creating quarantine {}", dir.display()))?;
    let id = match report.input.sha256.get(..16) {
        Some(prefix) => prefix.to_string(),
        // An input that could not be read (a folder with a link out of
        // it) has no hash: named by its path's, so it is still held.
        None => format!(
            "unread-{}",
            &crate::util::sha256_hex(report.input.source.as_bytes())[..9]
        ),
    };
    let name = format!(
        "{id}-{}",
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "input".into())
    );
    // Never through a link (one swapped in after the scan would be copied,
    // target and all) and never blocking on a pipe.
    if let Ok(mut artifact) = crate::util::open_regular_file(path) {
        write_in_quarantine(dir, &name, true, |f| {
            std::io::copy(&mut artifact, f).map(|_| ())
        })?;
    }
    write_in_quarantine(dir, &format!("{name}.report.json"), false, |f| {
        f.write_all(report.to_json_pretty().as_bytes())
    })
}

/// [`crate::util::write_via_rename`] in the quarantine, which may be a
/// folder others can write to.
fn write_in_quarantine(
    dir: &Path,
    name: &str,
    read_only: bool,
    fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<()> {
    crate::util::write_via_rename(dir, name, read_only, fill)
        .with_context(|| format!("writing {name} in quarantine {}", dir.display()))
}

/// Lists a quarantine's reports. The folder may hold what others put
/// there: a report that is not a regular file (a link to `/dev/zero`, a
/// pipe) is not read, and one that does not parse, is too large or cannot
/// be listed is named as unreadable, the others still listed; any such
/// entry makes the exit status 2.
fn review_cmd(dir: &Path) -> Result<i32> {
    let mut entries = Vec::new();
    let mut unreadable = Vec::new();
    for e in
        std::fs::read_dir(dir).with_context(|| format!("reading quarantine {}", dir.display()))?
    {
        match e {
            Ok(e) if e.file_name().to_string_lossy().ends_with(".report.json") => {
                entries.push(e.path())
            }
            Ok(_) => {}
            Err(err) => unreadable.push((
                dir.to_path_buf(),
                format!("an entry cannot be listed: {err}"),
            )),
        }
    }
    entries.sort();
    let mut listed = 0;
    for p in &entries {
        let r = match read_held_report(p) {
            Ok(r) => r,
            Err(why) => {
                unreadable.push((p.clone(), why));
                continue;
            }
        };
        let top = r
            .policies
            .iter()
            .filter_map(|p| p.precheck.location.clone())
            .next()
            .unwrap_or_default();
        outln!(
            "{}  {}  {}  {}  {}",
            r.input.sha256.get(..16).unwrap_or(""),
            r.reason.as_str(),
            r.input.source,
            top,
            r.error.unwrap_or_default()
        )?;
        listed += 1;
    }
    for (p, why) in &unreadable {
        outln!("-  unreadable  {}  -  {why}", p.display())?;
    }
    outln!("{listed} quarantined artifact(s)")?;
    if unreadable.is_empty() {
        Ok(0)
    } else {
        outln!("{} entr(y/ies) could not be read", unreadable.len())?;
        Ok(2)
    }
}

/// A quarantined report: a regular file (not followed through a link), at
/// most [`crate::report::FILE_MAX`] bytes, that parses as a Canary report.
fn read_held_report(path: &Path) -> std::result::Result<Report, String> {
    const MAX: u64 = crate::report::FILE_MAX;
    let f = crate::util::open_regular_file(path).map_err(|e| {
        format!("not a regular file that can be opened (a link, pipe or device is not read): {e}")
    })?;
    let text = crate::util::read_at_most(f, MAX)
        .map_err(|e| format!("cannot be read: {e}"))?
        .ok_or(format!(
            "larger than {MAX} bytes, not a report Canary wrote"
        ))?;
    serde_json::from_slice(&text).map_err(|e| format!("not a Canary report: {e}"))
}

fn policy_cmd(config: &Config, command: PolicyCommand) -> Result<i32> {
    match command {
        PolicyCommand::List => {
            for p in policy_set(config)?.all() {
                let first = p.harm_definition.split(". ").next().unwrap_or("");
                outln!(
                    "{:<20} {:<10} {}",
                    p.id,
                    if p.origin == "builtin" {
                        "built-in"
                    } else {
                        "file"
                    },
                    first
                )?;
            }
            Ok(0)
        }
        PolicyCommand::Show { id } => {
            let p = policy_set(config)?.resolve(&id)?;
            outln!(
                "{}",
                toml::to_string_pretty(&p).context("rendering the policy")?
            )?;
            Ok(0)
        }
        PolicyCommand::Check { file } => match Policy::from_file(&file) {
            Ok(p) => {
                outln!("{}: ok (policy `{}`)", file.display(), p.id)?;
                Ok(0)
            }
            Err(e) => {
                crate::util::say(&e.to_string());
                Ok(EXIT_USAGE)
            }
        },
    }
}

fn train_cmd(a: TrainArgs) -> Result<i32> {
    let mut o = crate::train::TrainOptions::defaults(&a.policy);
    o.data = a
        .data
        .iter()
        .map(|d| crate::train::parse_data_arg(d))
        .collect();
    o.dev = a.dev;
    o.out = a.out;
    o.device = crate::precheck::device(Some(&a.device))?;
    o.seed = a.seed;
    if let Some(v) = a.epochs {
        o.epochs = v;
    }
    if let Some(v) = a.dim {
        o.dim = v;
    }
    if let Some(v) = a.hidden {
        o.hidden = v;
    }
    if let Some(v) = a.buckets_log2 {
        if !(8..=24).contains(&v) {
            bail!("--buckets-log2 must lie in 8..=24");
        }
        o.features.buckets_log2 = v;
    }
    if let Some(v) = a.lr {
        o.lr = v;
    }
    if let Some(v) = a.weight_decay {
        o.weight_decay = v;
    }
    if let Some(v) = a.bag_dropout {
        o.bag_dropout = v.clamp(0.0, 0.95);
    }
    o.features.distinct = a.distinct_pooling;
    if let Some(v) = a.batch_size {
        o.batch = v.max(1);
    }
    if let Some(v) = a.slicing {
        o.slicing = match v {
            SlicingArg::Bytes => crate::precheck::Slicing::Bytes,
            SlicingArg::Files => crate::precheck::Slicing::Files,
        };
    }
    if let Some(v) = a.window {
        o.window = v.max(256);
        o.overlap = o.window / 8;
    }
    if let Some(v) = a.overlap {
        o.overlap = v;
    }
    if let Some(v) = a.pack {
        o.pack = v;
    }
    if let Some(v) = a.view {
        o.view = match v {
            ViewArg::Text => crate::precheck::View::Text,
            ViewArg::Capabilities => crate::precheck::View::Capabilities,
        };
    }
    if o.overlap >= o.window {
        bail!(
            "--overlap {} must be smaller than the window ({} bytes)",
            o.overlap,
            o.window
        );
    }
    o.progress = !a.quiet && std::io::stderr().is_terminal();
    o.log = !a.quiet;
    let args: Vec<String> = std::env::args().collect();
    o.command = args
        .iter()
        .map(|s| {
            if s.contains(' ') {
                format!("{s:?}")
            } else {
                s.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(first) = o.command.split(' ').next() {
        // Record the command as a user runs it, not the build path of the binary.
        if first.ends_with("/canary") {
            o.command = format!("canary{}", &o.command[first.len()..]);
        }
    }
    let report = crate::train::train(&o)?;
    let d = &report.dev;
    outln!(
        "trained {} on {} rows in {:.1}s; dev n={} AUC {:.4} harmful-at {:.4} harmless-below {:.4} FNR {:.2}% FPR {:.2}% uncertain {:.2}% (uncertain counted as blocked)",
        report.policy, report.train_rows, report.train_seconds, d.n, d.auc, d.harmful_at, d.harmless_below,
        100.0 * d.fnr, 100.0 * d.fpr, 100.0 * d.uncertain
    )?;
    outln!("wrote {}", o.out.display())?;
    Ok(0)
}

fn eval_cmd(config: Config, a: EvalArgs) -> Result<i32> {
    let mut rows = Vec::new();
    for p in &a.data {
        rows.extend(crate::train::read_jsonl(p, 1.0)?);
    }
    let policy_id = match a.policy {
        Some(p) => p,
        None => {
            let mut ids: Vec<&str> = rows.iter().filter_map(|r| r.policy.as_deref()).collect();
            ids.sort();
            ids.dedup();
            match ids.as_slice() {
                [one] => one.to_string(),
                [] => bail!("the data has no `policy` field; pass --policy ID"),
                many => bail!("the data mixes policies {many:?}; pass --policy ID"),
            }
        }
    };
    let set = policy_set(&config)?;
    let policy = set.resolve(&policy_id)?;
    let id = policy.id.clone();
    let coord = build_coordinator(config, &[policy], a.local_only)?;
    let (result, per_example) = crate::eval::evaluate_with_scores(&coord, &rows, &id);
    if let Some(path) = &a.scores {
        let mut text = String::new();
        for line in per_example {
            text.push_str(&serde_json::to_string(&line)?);
            text.push('\n');
        }
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    match a.format {
        EvalFormat::Table => out!("{}", crate::eval::to_table(&result))?,
        EvalFormat::Json => outln!("{}", serde_json::to_string_pretty(&result)?)?,
    }
    Ok(0)
}

fn render_cmd(
    config: &Config,
    path: &Path,
    base: Option<&Path>,
    corpus: bool,
    view: ViewArg,
) -> Result<i32> {
    for p in std::iter::once(path).chain(base) {
        if std::fs::symlink_metadata(p).is_err() {
            bail!(input::InputError::NotFound(p.to_path_buf()));
        }
    }
    let mode = if corpus {
        crate::input::render::RenderMode::Corpus
    } else {
        crate::input::render::RenderMode::Scan
    };
    let inp = crate::input::render::render_package_mode(base, path, &config.limits, mode);
    // Written as is: formatting would copy a text of hundreds of MB.
    let mut o = std::io::stdout().lock();
    match view {
        ViewArg::Text => inp
            .text
            .pieces()
            .try_for_each(|p| o.write_all(p.as_bytes())),
        ViewArg::Capabilities => {
            o.write_all(&crate::precheck::capabilities::digest(inp.text.pieces_at()).text)
        }
    }
    .and_then(|()| o.flush())
    .context("cannot write to standard output")?;
    drop(o);
    for n in &inp.notes {
        crate::util::say(&format!("note: {n}"));
    }
    if let Some(e) = &inp.error {
        crate::util::say(&format!("canary: {e}"));
        return Ok(2);
    }
    Ok(0)
}

fn detectors_check(config: Config, local_only: bool) -> Result<i32> {
    if config.detectors.is_empty() {
        bail!("no [[detectors]] are configured; see README.md, section \"Detectors\"");
    }
    let set = policy_set(&config)?;
    let probes = crate::detector::probes();
    let mut all_ok = true;
    let detectors: Vec<HttpDetector> = config
        .detectors
        .iter()
        .cloned()
        .map(HttpDetector::new)
        .collect();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    for d in &detectors {
        if local_only && !d.is_local() {
            outln!(
                "{:<16} skipped: local-only (endpoint is not loopback)",
                d.id()
            )?;
            continue;
        }
        let (mut right, mut total) = (0, 0);
        let mut problems = Vec::new();
        for (policy_id, text, expected) in &probes {
            let policy = set.resolve(policy_id)?;
            let req = crate::detector::DetectorRequest::new(&policy, Arc::new((*text).into()));
            let out = rt.block_on(d.vote(&req));
            total += 1;
            if out.vote == *expected {
                right += 1;
            } else {
                problems.push(format!(
                    "{policy_id}: expected {expected:?}, got {:?}{}",
                    out.vote,
                    out.error.map(|e| format!(" ({e})")).unwrap_or_default()
                ));
            }
        }
        all_ok &= right == total;
        outln!(
            "{:<16} {:<24} {right}/{total} correct and in protocol",
            d.id(),
            d.model()
        )?;
        for p in problems {
            outln!("    {p}")?;
        }
    }
    Ok(if all_ok { 0 } else { 2 })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A panic while one package is read or judged becomes that package's
    /// blocked report, the panic named, and the run goes on.
    #[test]
    fn a_panic_on_one_input_blocks_that_input() {
        assert_eq!(guarded(|| 7), Ok(7));
        assert_eq!(
            guarded(|| -> u8 { panic!("boom {}", 1) }),
            Err("boom 1".to_string())
        );
        assert_eq!(
            guarded(|| -> u8 { panic!("plain") }),
            Err("plain".to_string())
        );
        let policy = Policy::builtin("malicious-package").expect("a built-in policy");
        let coord = build_coordinator(Config::default(), &[policy], true).expect("a coordinator");
        let ids = vec!["malicious-package".to_string()];
        let panicked = guarded(|| -> Input { panic!("a reader's bug") }).unwrap_err();
        let r = coord.scan(
            &Input::unread("pkg.tar.gz", internal_error(&panicked)),
            &ids,
        );
        assert_eq!(r.decision, crate::report::Decision::Block);
        let text = serde_json::to_string(&r).unwrap();
        assert!(text.contains("internal error: a reader's bug"), "{text}");
        // The scan's own guard: a plain input is judged as before.
        let plain = Input::unread("other.tar.gz", "truncated gzip".to_string());
        let guarded_report = scan_guarded(&coord, &plain, &ids);
        assert_eq!(
            serde_json::to_value(&guarded_report).unwrap()["decision"],
            serde_json::to_value(coord.scan(&plain, &ids)).unwrap()["decision"]
        );
    }
}
