//! Integration tests: the real `canary` binary on real fixture files, in one
//! test binary (every extra test binary links candle again).

mod cli;
mod detectors;
mod packages;
mod training;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

/// The binary, run in a fresh temporary directory (its files are the test's own).
pub struct Canary {
    pub dir: tempfile::TempDir,
}

impl Default for Canary {
    fn default() -> Self {
        Canary::new()
    }
}

impl Canary {
    pub fn new() -> Canary {
        Canary {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    pub fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_canary"));
        c.current_dir(self.dir.path());
        c.env_remove("CANARY_TEST_KEY");
        // Keep the result cache inside this test's directory.
        c.env("CANARY_CACHE_DIR", self.dir.path().join("cache"));
        c
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).stdin(Stdio::null()).output().unwrap()
    }

    /// The binary with `args`, stdin empty and stdout and stderr piped, for
    /// tests that close a pipe while it runs.
    pub fn spawn_piped<I, S>(&self, args: I) -> std::process::Child
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.cmd()
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

/// A named pipe at `path` (a reader that opens it waits for a writer).
pub fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

pub fn code(o: &Output) -> i32 {
    o.status.code().expect("exited with a code")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            stdout(o),
            stderr(o)
        )
    })
}

/// `canary render ARGS…`: the text, once the command succeeded.
pub fn render_text(c: &Canary, args: &[&str]) -> String {
    let mut full = vec!["render"];
    full.extend_from_slice(args);
    let o = c.run(&full);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    stdout(&o)
}

/// `canary scan --local-only --format json FIXTURE`: the output and its report.
pub fn scan_local_json(c: &Canary, rel: &str) -> (Output, serde_json::Value) {
    let path = fixture(rel).display().to_string();
    let o = c.run(&["scan", "--local-only", "--format", "json", &path]);
    let r = json(&o);
    (o, r)
}

/// `canary scan --local-only --no-cache --format json PATH`, for a file the
/// test made.
pub fn scan_path_json(c: &Canary, path: &Path) -> (Output, serde_json::Value) {
    scan_json(c, &[], path)
}

/// [`scan_path_json`] under `--config CONFIG`.
pub fn scan_path_json_under(c: &Canary, config: &Path, path: &Path) -> (Output, serde_json::Value) {
    scan_json(c, &["--config", config.to_str().unwrap()], path)
}

/// `canary scan --local-only --no-cache --format json --base BASE NEW`
/// on its own: the exit status and the one report.
pub fn scan_diff_json(c: &Canary, base: &Path, new: &Path) -> (Output, serde_json::Value) {
    scan_diff_json_with(c, &[], base, new)
}

/// [`scan_diff_json`] under `--config CONFIG`.
pub fn scan_diff_json_under(
    c: &Canary,
    config: &Path,
    base: &Path,
    new: &Path,
) -> (Output, serde_json::Value) {
    scan_diff_json_with(c, &["--config", config.to_str().unwrap()], base, new)
}

fn scan_diff_json_with(
    c: &Canary,
    global: &[&str],
    base: &Path,
    new: &Path,
) -> (Output, serde_json::Value) {
    let mut args = global.to_vec();
    args.extend([
        "scan",
        "--local-only",
        "--no-cache",
        "--format",
        "json",
        "--base",
        base.to_str().unwrap(),
        new.to_str().unwrap(),
    ]);
    let o = c.run(&args);
    let r = json(&o);
    (o, r)
}

fn scan_json(c: &Canary, global: &[&str], path: &Path) -> (Output, serde_json::Value) {
    let mut args = global.to_vec();
    args.extend([
        "scan",
        "--local-only",
        "--no-cache",
        "--format",
        "json",
        path.to_str().unwrap(),
    ]);
    let o = c.run(&args);
    let r = json(&o);
    (o, r)
}

/// A config with session 12's malicious-package thresholds: the pre-check
/// never allows a package on its own (harmless-below 0).
pub const NEVER_ALLOW_PACKAGES: &str =
    "[precheck.thresholds.malicious-package]\nharmful-at = 0.9996155\nharmless-below = 0.0\n";

/// The exit code a report calls for (README, "Exit codes").
pub fn exit_of(r: &serde_json::Value) -> i32 {
    match r["reason"].as_str().unwrap() {
        "precheck-harmless" | "quorum-harmless" | "allowlisted" => 0,
        "precheck-harmful" | "quorum-harmful" => 1,
        _ => 2,
    }
}

/// One report per stdout line.
/// A report without its timing, for comparing two runs' reports.
pub fn timeless(mut report: serde_json::Value) -> serde_json::Value {
    report
        .as_object_mut()
        .expect("a report is an object")
        .remove("elapsed_ms");
    report
}

pub fn jsonl(o: &Output) -> Vec<serde_json::Value> {
    stdout(o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
