//! Input sources: text files, unified diffs, stdin, JSONL batches, and
//! packages (archives and directories, rendered into diff text).
//!
//! Every reader records what it saw (sha256 and size of the raw bytes) and
//! turns bad content into an [`Input`] whose `error` is set, so the
//! coordinator blocks it with a reason. Only a path that does not exist or a
//! batch file that cannot be opened is a hard error (nothing was scanned). This
//! module never contacts a registry and never writes to disk.

pub mod agents;
pub mod archive;
pub mod code;
pub mod collection;
pub mod fetched;
pub mod js_syntax;
pub mod launched;
pub mod metadata;
mod native;
pub mod placement;
pub mod prose;
pub mod render;
pub mod repository;
pub mod spying;
pub mod text;
pub mod unread;
pub mod versions;

pub use text::Text;

/// Builds the patterns every package's code files are read with, so that
/// a thread with nothing else to do can build them while the first
/// package is still being read: built on first use instead, they are on
/// the path of every scan (a third of a small package's scan, is-number
/// with callgrind). Only a matter of time: each is built once either way.
pub fn warm_up() {
    spying::warm_up();
    unread::warm_up();
}

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use serde::Deserialize;

use crate::config::Limits;
use crate::util::sha256_hex;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    Text,
    Diff,
    Package,
    PackageDiff,
}

impl InputKind {
    pub fn as_str(self) -> &'static str {
        match self {
            InputKind::Text => "text",
            InputKind::Diff => "diff",
            InputKind::Package => "package",
            InputKind::PackageDiff => "package-diff",
        }
    }

    /// The built-in policies applied when `--policy` is not given.
    pub fn default_policies(self) -> &'static [&'static str] {
        match self {
            InputKind::Text => &["prompt-injection"],
            InputKind::Diff => &["malicious-package", "prompt-injection"],
            InputKind::Package | InputKind::PackageDiff => &["malicious-package"],
        }
    }
}

/// One thing to judge, with the text the pre-check and detectors see.
#[derive(Debug, Clone)]
pub struct Input {
    pub id: Option<String>,
    pub source: String,
    pub kind: InputKind,
    /// sha256 of the raw artifact bytes (for a version diff: of the new artifact).
    pub sha256: String,
    pub bytes: u64,
    /// Shared (not copied) with the detectors that are asked about it.
    pub text: Arc<Text>,
    pub notes: Vec<String>,
    /// Set when the input could not be read or rendered: the input is blocked.
    pub error: Option<String>,
    /// Set when the input was read but holds nothing a policy could judge (a
    /// version diff that renders empty): every policy reports it inconclusive
    /// with this reason, without a pre-check score or a detector call.
    pub unjudgeable: Option<String>,
    /// Set when a package holds code that runs and that no reader of its
    /// text can judge: compiled Python (`.pyc`, `.pyo`), which runs in place
    /// of its source, or with none; or a link that gives a document or data
    /// file a code file's name, where it runs though it was read as data. A policy whose harm is code
    /// (`harmful-needs-code`) cannot clear such an input, by the pre-check or
    /// by detectors (who read the same text): it blocks as inconclusive
    /// unless the text alone is harmful, and an allowlist entry is the way
    /// through after a review of the bytecode.
    pub opaque_code: Option<String>,
    /// Why a policy whose harm is code does not let the pre-check alone
    /// allow this input, one reason per rule, in this order (each names
    /// the files, and lines where it has them); detectors, who read the
    /// whole text, or an allowlist entry may. Empty for most inputs.
    /// - Installing the package runs its code: npm's `preinstall`,
    ///   `install` and `postinstall` scripts, or a `binding.gyp`, for
    ///   which npm runs `node-gyp rebuild`.
    /// - Code files run code they do not hold ([`unread`]): `exec` of a
    ///   file's contents or of a string built at run time, a file run by
    ///   its path. What runs may be text the pre-check never read as code.
    /// - Code watches the user or makes a program run again ([`spying`]):
    ///   keystrokes, the screen, browser secrets, autostart entries.
    pub not_on_scores_alone: Vec<String>,
    /// For rendered packages: byte offset of each file section and its path.
    pub sections: Vec<(usize, String)>,
    /// For a version diff: the earlier release it was rendered against
    /// (set once that release was read).
    pub base: Option<crate::report::BaseInfo>,
}

#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("input path {0} does not exist (Canary reads local files only and never looks names up in a registry)")]
    NotFound(PathBuf),
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Why a pipe, socket or device named as an input is refused (reading one
/// could wait for ever or never end).
pub const NOT_A_FILE: &str = "not a regular file or folder (a pipe, socket or device): Canary reads files and folders only; pipe a text input to `canary scan -` instead";

/// The most rescorings one round of [`Input::hotspot`] makes.
const HOTSPOT_GROUPS: usize = 32;

impl Input {
    pub fn from_text(id: Option<String>, source: &str, raw: &[u8]) -> Input {
        let mut notes = Vec::new();
        let text = decode_lossy(raw, &mut notes);
        let kind = if looks_like_diff(&text) {
            InputKind::Diff
        } else {
            InputKind::Text
        };
        let error = if archive::is_binary(raw) {
            Some(format!(
                "{source} looks binary (NUL byte in the first 8 KB): not a text, diff or known package format; scan it as a package archive or convert it to text"
            ))
        } else {
            None
        };
        Input {
            id,
            source: source.to_string(),
            kind,
            sha256: sha256_hex(raw),
            bytes: raw.len() as u64,
            text: Arc::new(Text::from(text)),
            notes,
            error,
            unjudgeable: None,
            opaque_code: None,
            not_on_scores_alone: Vec::new(),
            sections: Vec::new(),
            base: None,
        }
    }

    pub fn failed(id: Option<String>, source: &str, raw: &[u8], error: String) -> Input {
        Input {
            id,
            source: source.to_string(),
            kind: InputKind::Text,
            sha256: sha256_hex(raw),
            bytes: raw.len() as u64,
            text: Default::default(),
            notes: Vec::new(),
            error: Some(error),
            unjudgeable: None,
            opaque_code: None,
            not_on_scores_alone: Vec::new(),
            sections: Vec::new(),
            base: None,
        }
    }

    /// A package path that could not be read at all: blocked, with `error`
    /// saying why. Its hash is that of no bytes, since none were read.
    pub fn unread(source: &str, error: String) -> Input {
        Input {
            kind: InputKind::Package,
            ..Input::failed(None, source, &[], error)
        }
    }

    /// Where in `span` to point a reader: the start of the file section
    /// (clipped to the span) whose removal lowers the span's score the most,
    /// so a report on a 64 KB slice of a package names the file that made it
    /// score. Removal, not each section scored alone: on its own a two-line
    /// `LICENSE` or `PKG-INFO` looks like a tiny malware sample and would win
    /// over the file that carries the payload. With more than
    /// [`HOTSPOT_GROUPS`] sections the search narrows through groups of
    /// neighbouring sections, so it is a bounded greedy search, not an
    /// exhaustive one. Plain inputs (no sections) and spans inside one section
    /// point at the span's start (or the section's).
    pub fn hotspot(&self, span: crate::report::Span, score: impl Fn(&[u8]) -> f32 + Sync) -> usize {
        let end = span.end.min(self.text.len());
        let pieces: Vec<(usize, usize)> = self
            .sections_touching(span)
            .map(|(a, b, _)| (a.max(span.start), b.min(end)))
            .filter(|(a, b)| a < b)
            .collect();
        if pieces.len() <= 1 {
            return pieces.first().map_or(span.start, |p| p.0);
        }
        // A slice of many tiny files would cost one rescoring per file (a
        // crafted package: 1,500 files, 120× the scan time). Remove them in at
        // most HOTSPOT_GROUPS contiguous groups, then search inside the group
        // whose removal lowered the score most: a few rounds, not one per file.
        // The rescorings of a round are independent: they run on every core
        // (a package's top slice often holds dozens of files, and this
        // search took as long as scoring the whole package). The winner is
        // picked in group order afterwards, exactly as a serial loop would.
        let mut cand = &pieces[..];
        loop {
            let size = cand.len().div_ceil(HOTSPOT_GROUPS);
            let scored: Vec<(f32, &[(usize, usize)])> = cand
                .par_chunks(size)
                .map(|group| {
                    let (a, b) = (group[0].0, group[group.len() - 1].1);
                    let mut rest = Vec::with_capacity(end.saturating_sub(span.start));
                    self.text.extend_into(span.start..a, &mut rest);
                    self.text.extend_into(b..end, &mut rest);
                    (score(&rest), group)
                })
                .collect();
            let mut best: Option<(f32, &[(usize, usize)])> = None;
            for (s, group) in scored {
                // NaN never wins.
                if !s.is_nan() && best.map_or(true, |(x, _)| s < x) {
                    best = Some((s, group));
                }
            }
            match best {
                // Every score NaN: no section is better than the span start.
                None => return span.start,
                Some((_, group)) if size == 1 => return group[0].0,
                Some((_, group)) => cand = group,
            }
        }
    }

    /// Whether `span` of the text may hold code that installing, importing
    /// or building the package runs: true for plain inputs (no sections)
    /// and for any span that touches a section whose file is not
    /// documentation, data or a test sample ([`render::is_inert`]) nor a
    /// wheel's file for the environment's `share/` folder
    /// ([`placement::in_shared_data`]: JupyterLab's minified browser
    /// bundles, whose upgrade 4.6.5 → 4.6.6 scored 0.99978 in one slice,
    /// past harmful-at, while the whole wheel's slices of the same files
    /// peaked at 0.95).
    pub fn span_holds_code(&self, span: crate::report::Span) -> bool {
        if self.sections.is_empty() {
            return true;
        }
        if span.start < self.sections[0].0 {
            return true;
        }
        self.sections_touching(span)
            .any(|(_, _, path)| !render::is_inert(path) && !placement::in_shared_data(path))
    }

    /// The sections `span` touches, as (start, end, path) in text order; an
    /// empty span touches the section it sits in.
    fn sections_touching(
        &self,
        span: crate::report::Span,
    ) -> impl Iterator<Item = (usize, usize, &str)> + '_ {
        let first = self
            .sections
            .partition_point(|(start, _)| *start <= span.start)
            .saturating_sub(1);
        let len = self.text.len();
        (first..self.sections.len())
            .map(move |i| {
                let next = self.sections.get(i + 1).map_or(len, |s| s.0);
                (self.sections[i].0, next, self.sections[i].1.as_str())
            })
            .take_while(move |(start, _, _)| *start < span.end.max(span.start + 1))
    }

    /// Maps a byte offset of the rendered text to `path:line` (packages only).
    pub fn locate(&self, offset: usize) -> Option<String> {
        locate_in(&self.sections, &self.text, offset).map(|(path, line)| format!("{path}:{line}"))
    }
}

/// The file of a rendered text holding `offset`, and the line of that file
/// there: `sections` are the text's (start, path) file sections in order.
/// `None` before the first section or past the text.
pub fn locate_in<'a>(
    sections: &'a [(usize, String)],
    text: &Text,
    offset: usize,
) -> Option<(&'a str, usize)> {
    let idx = sections.partition_point(|(start, _)| *start <= offset);
    let (start, path) = sections.get(idx.checked_sub(1)?)?;
    if *start > text.len() || offset > text.len() {
        return None;
    }
    // Lines of the section before the offset, less the 3 header lines.
    let line = text.count(*start..offset, b'\n');
    Some((path, line.saturating_sub(2).max(1)))
}

fn decode_lossy(raw: &[u8], notes: &mut Vec<String>) -> String {
    match std::str::from_utf8(raw) {
        Ok(s) => s.to_string(),
        Err(_) => {
            notes.push(
                "input is not valid UTF-8; invalid bytes were replaced and the text scanned".into(),
            );
            String::from_utf8_lossy(raw).into_owned()
        }
    }
}

/// A unified diff: a `diff --git` header, or `---`/`+++` followed by a hunk.
pub fn looks_like_diff(text: &str) -> bool {
    if text.starts_with("diff --git ") || text.contains("\ndiff --git ") {
        return true;
    }
    let mut saw_minus = false;
    let mut saw_plus = false;
    for line in text.lines().take(20_000) {
        if line.starts_with("--- ") {
            saw_minus = true;
        } else if saw_minus && line.starts_with("+++ ") {
            saw_plus = true;
        } else if saw_plus && line.starts_with("@@ ") {
            return true;
        }
    }
    false
}

/// Why a package archive in a format Canary cannot open is not scanned.
pub fn unreadable_archive(what: &str) -> String {
    format!(
        "{what} archive, which Canary cannot read (it reads .tgz, .tar.gz, .tar.bz2, .tar, .zip, .whl and .egg): recompress it as .tar.gz, or unpack it and scan the folder"
    )
}

/// Reads one path: a package archive or directory, or a text/diff file.
pub fn read_path(path: &Path, limits: &Limits) -> Result<Input, InputError> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => InputError::NotFound(path.to_path_buf()),
        _ => InputError::Io {
            path: path.to_path_buf(),
            source: e,
        },
    })?;
    let source = path.display().to_string();
    // A link the user named is followed; what it leads to must be a file or
    // a folder.
    let target = if meta.is_symlink() {
        std::fs::metadata(path).map_err(|source| InputError::Io {
            path: path.to_path_buf(),
            source,
        })?
    } else {
        meta
    };
    // The package reader refuses what is not a regular file itself.
    if target.is_dir() || archive::package_format(path).is_some() {
        return Ok(render::render_package(None, path, limits));
    }
    if !target.is_file() {
        return Ok(Input::failed(
            None,
            &source,
            &[],
            format!("{source}: {NOT_A_FILE}"),
        ));
    }
    if let Some(what) = archive::unreadable_package_format(path) {
        return Ok(Input::failed(
            None,
            &source,
            &[],
            format!("{source}: {}", unreadable_archive(what)),
        ));
    }
    let raw = read_capped(path, limits.max_input_bytes)?;
    Ok(match raw {
        Ok(raw) => Input::from_text(None, &source, &raw),
        Err(size) => Input::failed(
            None,
            &source,
            &[],
            format!(
                "{source} is {size} bytes, over the {} byte input limit (limits.max-input-bytes)",
                limits.max_input_bytes
            ),
        ),
    })
}

/// Reads a file unless it is larger than `cap`; `Ok(Err(size))` when it is.
fn read_capped(path: &Path, cap: u64) -> Result<Result<Vec<u8>, u64>, InputError> {
    let io = |source| InputError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    match crate::util::read_at_most(file, cap).map_err(io)? {
        Some(buf) => Ok(Ok(buf)),
        None => Ok(Err(std::fs::metadata(path)
            .map(|m| m.len())
            .unwrap_or(cap + 1))),
    }
}

/// Reads standard input as one text input.
pub fn read_stdin(limits: &Limits) -> Result<Input, InputError> {
    let read = crate::util::read_at_most(std::io::stdin().lock(), limits.max_input_bytes).map_err(
        |source| InputError::Io {
            path: PathBuf::from("-"),
            source,
        },
    )?;
    let Some(buf) = read else {
        return Ok(Input::failed(
            None,
            "-",
            &[],
            format!(
                "standard input is over the {} byte input limit (limits.max-input-bytes)",
                limits.max_input_bytes
            ),
        ));
    };
    Ok(Input::from_text(None, "-", &buf))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BatchLine {
    id: serde_json::Value,
    text: String,
}

/// Reads one line of `r` through its `\n` into `line`, stopping once it is
/// longer than `cap` bytes (a batch of `/dev/zero` has no line end).
/// Returns the bytes read and whether the line was over `cap`.
fn read_line_capped(
    r: &mut impl BufRead,
    line: &mut Vec<u8>,
    cap: u64,
) -> std::io::Result<(usize, bool)> {
    let mut read = 0usize;
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok((read, false));
        }
        let (n, end) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        if (line.len() + n) as u64 > cap {
            return Ok((read + n, true));
        }
        line.extend_from_slice(&buf[..n]);
        r.consume(n);
        read += n;
        if end {
            return Ok((read, false));
        }
    }
}

/// Reads a JSONL batch: one `{"id": …, "text": …}` per line. A malformed line
/// becomes an input-error input (blocked); the others go on. Blank lines are
/// skipped. A line over `limits.max-input-bytes` is blocked and ends the
/// batch.
pub fn read_batch(path: &Path, limits: &Limits) -> Result<Vec<Input>, InputError> {
    let file = std::fs::File::open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => InputError::NotFound(path.to_path_buf()),
        _ => InputError::Io {
            path: path.to_path_buf(),
            source: e,
        },
    })?;
    let mut out = Vec::new();
    let mut reader = std::io::BufReader::new(file);
    let mut line = Vec::new();
    let mut n = 0usize;
    loop {
        line.clear();
        let (read, over) = read_line_capped(&mut reader, &mut line, limits.max_input_bytes)
            .map_err(|source| InputError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        if read == 0 {
            break;
        }
        n += 1;
        if over {
            out.push(Input::failed(
                Some(format!("line-{n}")),
                &format!("{}:{n}", path.display()),
                &[],
                format!(
                    "batch line {n} of {} is over the {} byte input limit (limits.max-input-bytes), and the batch is not read past it: the lines after it are not judged; split the text or raise the limit",
                    path.display(),
                    limits.max_input_bytes
                ),
            ));
            break;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let source = format!("{}:{n}", path.display());
        let parsed = std::str::from_utf8(&line)
            .map_err(|e| format!("not UTF-8: {e}"))
            .and_then(|s| serde_json::from_str::<BatchLine>(s).map_err(|e| e.to_string()));
        out.push(match parsed {
            Ok(b) => {
                let id = match b.id {
                    serde_json::Value::String(s) => s,
                    other => other.to_string(),
                };
                Input::from_text(Some(id), &source, b.text.as_bytes())
            }
            Err(e) => Input::failed(
                Some(format!("line-{n}")),
                &source,
                &line,
                format!(
                    "malformed batch line {n} of {}: {e}; expected {{\"id\": …, \"text\": …}}",
                    path.display()
                ),
            ),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn span_holds_code_unless_every_touched_file_is_docs_or_data() {
        let mut i = Input::from_text(None, "t", b"");
        i.text = Arc::new(Text::from("a".repeat(300)));
        i.sections = vec![
            (0, "setup.py".into()),
            (100, "docs/a.rst".into()),
            (200, "data/b.json".into()),
        ];
        let sp = |start, end| crate::report::Span { start, end };
        assert!(i.span_holds_code(sp(0, 50)));
        assert!(i.span_holds_code(sp(90, 150)));
        assert!(!i.span_holds_code(sp(100, 300)));
        assert!(!i.span_holds_code(sp(150, 250)));
        assert!(!i.span_holds_code(sp(250, 250)));
        // A wheel's file for the environment's share/ folder, beside its
        // own module.
        i.sections = vec![
            (0, "a-1.data/data/share/a/b.js".into()),
            (100, "a/b.js".into()),
        ];
        assert!(!i.span_holds_code(sp(0, 90)));
        assert!(i.span_holds_code(sp(50, 150)));
        // Plain inputs have no sections: always code.
        i.sections.clear();
        assert!(i.span_holds_code(sp(150, 250)));
    }

    #[test]
    fn diff_detection() {
        assert!(looks_like_diff("diff --git a/x b/x\n"));
        assert!(looks_like_diff("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"));
        assert!(!looks_like_diff("--- title ---\nsome prose\n"));
    }

    #[test]
    fn lossy_and_binary() {
        let i = Input::from_text(None, "x", b"caf\xe9 au lait");
        assert!(i.error.is_none());
        assert!(i.text.contiguous().contains("caf\u{fffd}"));
        assert_eq!(i.notes.len(), 1);
        let b = Input::from_text(None, "x", b"\x7fELF\0\0\0");
        assert!(b.error.as_deref().unwrap().contains("binary"));
    }

    #[test]
    fn locate_maps_offsets_to_file_lines() {
        let text = "--- /dev/null\n+++ b/a.py\n@@ -0,0 +1,2 @@\n+one\n+two\n--- /dev/null\n+++ b/b.js\n@@ -0,0 +1,1 @@\n+three\n";
        let second = text.find("--- /dev/null\n+++ b/b.js").unwrap();
        let mut i = Input::from_text(None, "x", text.as_bytes());
        i.sections = vec![(0, "a.py".into()), (second, "b.js".into())];
        let two = text.find("+two").unwrap();
        assert_eq!(i.locate(two).as_deref(), Some("a.py:2"));
        assert_eq!(
            i.locate(text.find("+three").unwrap()).as_deref(),
            Some("b.js:1")
        );
    }

    #[test]
    fn hotspot_names_the_section_whose_removal_lowers_the_score_most() {
        let text = "--- /dev/null\n+++ b/LICENSE\n@@ -0,0 +1,1 @@\n+MIT\n--- /dev/null\n+++ b/b.py\n@@ -0,0 +1,4 @@\n+evil\n+evil\n+evil\n+evil\n--- /dev/null\n+++ b/c.py\n@@ -0,0 +1,4 @@\n+fine\n+fine\n+fine\n+fine\n";
        let b = text.find("--- /dev/null\n+++ b/b.py").unwrap();
        let c = text.find("--- /dev/null\n+++ b/c.py").unwrap();
        let mut i = Input::from_text(None, "x", text.as_bytes());
        i.sections = vec![
            (0, "LICENSE".into()),
            (b, "b.py".into()),
            (c, "c.py".into()),
        ];
        // Like the model: any short text looks alarming on its own; otherwise
        // the score is the share of lines that are "evil".
        let score = |t: &[u8]| {
            if t.len() < 60 {
                return 0.9;
            }
            let lines = t.split(|c| *c == b'\n').filter(|l| !l.is_empty());
            let (n, evil) = lines.fold((0, 0), |(n, e), l| (n + 1, e + (l == b"+evil") as u32));
            evil as f32 / n as f32
        };
        // Scored alone, the one-line LICENSE would win (0.9 against 0.57).
        assert!(score(&text.as_bytes()[..b]) > score(&text.as_bytes()[b..c]));
        let all = crate::report::Span {
            start: 0,
            end: text.len(),
        };
        assert_eq!(i.hotspot(all, score), b);
        assert_eq!(i.locate(i.hotspot(all, score)).as_deref(), Some("b.py:1"));
        // A span that starts inside LICENSE and ends before b.py: the span start.
        let first = crate::report::Span { start: 5, end: b };
        assert_eq!(i.hotspot(first, score), 5);
        // A span from inside b.py to the end: b.py's part, clipped to the span.
        let tail = crate::report::Span {
            start: b + 30,
            end: text.len(),
        };
        assert_eq!(i.hotspot(tail, score), b + 30);
        // Scores that are all NaN never pick a section: the span start.
        assert_eq!(i.hotspot(tail, |_| f32::NAN), b + 30);
        // No sections: the span start.
        i.sections.clear();
        assert_eq!(i.hotspot(all, score), 0);
    }

    #[test]
    fn hotspot_finds_one_file_among_many_with_bounded_rescoring() {
        let mut text = String::new();
        let mut i = Input::from_text(None, "x", b"");
        for k in 0..1500 {
            i.sections.push((text.len(), format!("m{k}.py")));
            let body = if k == 1234 { "+evil" } else { "+fine" };
            text.push_str(&format!("+++ b/m{k}.py\n{body}\n"));
        }
        i.text = Arc::new(Text::from(text));
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let score = |t: &[u8]| {
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            t.windows(5).filter(|w| w == b"+evil").count() as f32
        };
        let all = crate::report::Span {
            start: 0,
            end: i.text.len(),
        };
        let at = i.hotspot(all, score);
        assert_eq!(i.locate(at).as_deref(), Some("m1234.py:1"));
        // 1,500 files: three rounds of at most 32, not 1,500 rescorings.
        let calls = calls.into_inner();
        assert!(calls <= 3 * HOTSPOT_GROUPS, "{calls} calls");
    }
}
