//! A code file as the rules on members read it ([`super::unread`],
//! [`super::spying`]): its bytes, and its Python or JavaScript lines as
//! [`fold`](crate::precheck::fold::fold) folds them, computed once.
//!
//! Why: each rule matches a line as written and as folded. Folding reads
//! every line, and three rules each folding every line of every code file
//! made packaging's scan 13 ms (a third) slower. Most lines fold to
//! themselves and are kept once, as written.
//!
//! A manifest (`pyproject.toml`, `setup.cfg`) is parsed here too, at most
//! once and only when a rule first asks ([`Code::toml`],
//! [`Code::setup_cfg`]): up to six rules read the package's own manifest,
//! and each parsing it again made a crafted 4 MB `pyproject.toml` cost
//! 1.6 s to scan where one parse costs 1.0 s (session 43).
//!
//! It only reads text, and keeps nothing but the lines folding changed
//! and the parsed manifest.

use std::cell::OnceCell;

use super::fetched::CfgValues;
use super::render::{extension, file_name, is_inert};
use super::unread::{is_script, tests_or_docs};

/// A line that folding changed.
pub struct Folded<'a> {
    /// 1-based line number.
    pub n: usize,
    /// The line as written.
    pub line: &'a [u8],
    /// The line as folded.
    pub text: Vec<u8>,
}

/// A member's path and bytes, its folded lines, and the bytes parsed as
/// a manifest once a rule asks.
pub struct Code<'a> {
    pub path: &'a str,
    pub data: &'a [u8],
    folded: Vec<Folded<'a>>,
    toml: OnceCell<Option<toml::Table>>,
    setup_cfg: OnceCell<CfgValues>,
    prose: OnceCell<super::prose::Statements>,
    runs_doctests: OnceCell<bool>,
}

/// Whether [`Code::new`] folds the lines of the file at `path`.
fn folds_lines(path: &str) -> bool {
    is_script(path) && !is_inert(path) && !tests_or_docs(path)
}

/// The lines of `data` that folding changes, in order.
fn fold_lines(data: &[u8]) -> Vec<Folded<'_>> {
    data.split(|&b| b == b'\n')
        .enumerate()
        .filter_map(|(i, line)| {
            crate::precheck::fold::fold(line).map(|text| Folded {
                n: i + 1,
                line,
                text,
            })
        })
        .collect()
}

impl<'a> Code<'a> {
    /// Folds the lines of Python and JavaScript files that are not
    /// documentation or data, nor tests or docs; other files have no folded
    /// lines. Tests and docs count only when the package's code makes them
    /// importable, and folding them all for that case cost packaging's
    /// scan 4 ms (44.4 → 40.0 ms without, `perf stat -r 10`); they are
    /// read as written.
    pub fn new(path: &'a str, data: &'a [u8]) -> Code<'a> {
        let folded = match folds_lines(path) {
            true => fold_lines(data),
            false => Vec::new(),
        };
        Code {
            path,
            data,
            folded,
            toml: OnceCell::new(),
            setup_cfg: OnceCell::new(),
            prose: OnceCell::new(),
            runs_doctests: OnceCell::new(),
        }
    }

    /// The bytes parsed as TOML, whatever the file's name (callers look
    /// at the name first): `None` where they are not UTF-8 or not TOML.
    pub fn toml(&self) -> Option<&toml::Table> {
        self.toml
            .get_or_init(|| super::fetched::toml_table(self.data))
            .as_ref()
    }

    /// The bytes read as a `setup.cfg` is, whatever the file's name:
    /// every option's value as setuptools gets it
    /// ([`super::fetched::SetupCfg::values`]).
    pub(super) fn setup_cfg(&self) -> &CfgValues {
        self.setup_cfg
            .get_or_init(|| super::fetched::setup_cfg(self.data).values())
    }

    /// The lines folding changed, in order.
    pub fn folded(&self) -> &[Folded<'a>] {
        &self.folded
    }

    /// The whole text with every line folding changes written folded, of
    /// a file of any kind: the lines [`new`](Self::new) folded, or for a
    /// file whose lines it does not fold (a manifest, a build script), each
    /// line folded now. `None` when folding changes no line.
    pub fn folded_text(&self) -> Option<Vec<u8>> {
        let folded_now;
        let folded = match folds_lines(self.path) {
            true => &self.folded,
            false => {
                folded_now = fold_lines(self.data);
                &folded_now
            }
        };
        if folded.is_empty() {
            return None;
        }
        let mut changed = folded.iter().peekable();
        let mut out = Vec::with_capacity(self.data.len());
        for (i, line) in self.data.split(|&b| b == b'\n').enumerate() {
            if i > 0 {
                out.push(b'\n');
            }
            match changed.next_if(|f| f.n == i + 1) {
                Some(f) => out.extend_from_slice(&f.text),
                None => out.extend_from_slice(line),
            }
        }
        Some(out)
    }

    /// The 1-based line of byte `at`.
    pub fn line_of(&self, at: usize) -> usize {
        memchr::memchr_iter(b'\n', &self.data[..at]).count() + 1
    }

    /// The file's lines with each backslash-newline continuation joined
    /// (a shell's, make's, a C macro's), as (1-based number of the first
    /// line, text): `curl … \` then `| sh` on the next line is one
    /// command to a shell, and one line to a rule that reads it. A line
    /// without a continuation is borrowed as it is.
    pub fn logical_lines(&self) -> impl Iterator<Item = (usize, std::borrow::Cow<'a, [u8]>)> {
        let continued = |l: &[u8]| l.strip_suffix(b"\r").unwrap_or(l).ends_with(b"\\");
        let mut lines = self.data.split(|&b| b == b'\n').enumerate();
        std::iter::from_fn(move || {
            let (i, first) = lines.next()?;
            if !continued(first) {
                return Some((i + 1, std::borrow::Cow::Borrowed(first)));
            }
            let mut text = first.to_vec();
            while continued(&text) {
                let Some((_, next)) = lines.next() else {
                    break;
                };
                if text.ends_with(b"\r") {
                    text.pop();
                }
                text.pop();
                text.push(b' ');
                text.extend_from_slice(next);
            }
            Some((i + 1, std::borrow::Cow::Owned(text)))
        })
    }

    /// Whether `found` is true of the file's text as written, or of one
    /// of its folded lines.
    pub fn holds_where(&self, found: impl Fn(&[u8]) -> bool) -> bool {
        found(self.data) || self.folded().iter().any(|f| found(&f.text))
    }

    /// Whether `re` matches the file anywhere, as written or folded.
    pub fn holds(&self, re: &regex::bytes::Regex) -> bool {
        self.holds_where(|text| re.is_match(text))
    }

    /// The first line, not a comment ([`is_comment`](Self::is_comment)), where `re`
    /// matches a command: as written with each continuation joined
    /// ([`logical_lines`](Self::logical_lines)), or as folded. `None` at
    /// once when the file holds `words` nowhere ([`holds`](Self::holds)),
    /// the search that spares reading nearly every file line by line.
    pub fn first_command_line(
        &self,
        words: &regex::bytes::Regex,
        re: &regex::bytes::Regex,
    ) -> Option<usize> {
        self.first_line_where(words, re, |line| !self.is_comment(line))
    }

    /// [`first_command_line`](Self::first_command_line) with every line
    /// read, comment lines too: for a reader to whom `#` opens no comment
    /// (an AI agent reading Markdown, where it opens a heading).
    pub fn first_line_matching(
        &self,
        words: &regex::bytes::Regex,
        re: &regex::bytes::Regex,
    ) -> Option<usize> {
        self.first_line_where(words, re, |_| true)
    }

    /// The first line, as written (continuations joined) or as folded,
    /// that `counts` (given the line as written) and `re` matches.
    fn first_line_where(
        &self,
        words: &regex::bytes::Regex,
        re: &regex::bytes::Regex,
        counts: impl Fn(&[u8]) -> bool,
    ) -> Option<usize> {
        if !self.holds(words) {
            return None;
        }
        let written = self
            .logical_lines()
            .find(|(_, line)| re.is_match(line) && counts(line))
            .map(|(n, _)| n);
        let folded = self
            .folded()
            .iter()
            .find(|f| re.is_match(&f.text) && counts(f.line))
            .map(|f| f.n);
        written.into_iter().chain(folded).min()
    }

    /// Whether `line`, one of this file's lines (a slice of its text), is
    /// a comment line ([`is_comment_line`]), or a block comment's: one that
    /// opens with `/*`, or with `*` below such an opening that no line
    /// between has closed, and holds no code after the comment closes.
    /// `/* note */ eval(x)` runs the `eval`, and a line that opens with
    /// `*` below code is code (`a\n  * eval(x)` multiplies): every rule
    /// skipped both as comments before session 33. A line not of this
    /// text (a joined continuation) opening with `*` is taken for code.
    /// A Python string statement's line is prose ([`is_prose`](Self::is_prose)),
    /// read as a comment.
    pub fn is_comment(&self, line: &[u8]) -> bool {
        self.is_comment_as_written(line) || self.is_prose(line)
    }

    /// [`is_comment`](Self::is_comment) without prose.
    fn is_comment_as_written(&self, line: &[u8]) -> bool {
        if holds_line_break(line) {
            return false;
        }
        let t = line.trim_ascii_start();
        if let Some(body) = t.strip_prefix(b"/*") {
            return !code_after_close(body);
        }
        if t.starts_with(b"*") {
            return self
                .offset_of(line)
                .is_some_and(|start| self.block_opened_above(start) && !code_after_close(t));
        }
        is_comment_line(line)
    }

    /// Whether the lines above the one starting at byte `start`, nearest
    /// first, read as a block comment's (lines opening with `*`, blank
    /// lines) up to one that opens it with `/*`, none closing it. At most
    /// 1,000 lines up; past that, no.
    fn block_opened_above(&self, start: usize) -> bool {
        let mut end = start;
        for _ in 0..1000 {
            let Some(newline) = end.checked_sub(1) else {
                return false;
            };
            let from = memchr::memrchr(b'\n', &self.data[..newline]).map_or(0, |p| p + 1);
            let line = &self.data[from..newline];
            let t = line.trim_ascii_start();
            if memchr::memmem::find(t, b"*/").is_some() {
                return false;
            }
            if t.starts_with(b"/*") {
                return true;
            }
            if !t.is_empty() && !t.starts_with(b"*") {
                return false;
            }
            end = from;
        }
        false
    }

    /// Whether `line`, one of this file's lines (a slice of its text),
    /// is prose: in a Python file (`.py`, `.pyw`, `.pyi`), every byte of
    /// it but its leading and trailing spacing lies in one string
    /// statement ([`prose::string_statements`](super::prose::string_statements)),
    /// which Python evaluates and drops. A doctest line there (`>>>`,
    /// `...`) is prose only while the file does not run its doctests
    /// ([`doctest_runner`](super::unread::doctest_runner)). The spans are
    /// found once, on the first asking: only a file a rule matched asks.
    pub fn is_prose(&self, line: &[u8]) -> bool {
        let Some(start) = self.offset_of(line) else {
            return false;
        };
        let spans = &self.statements().strings;
        let lead = line.len() - line.trim_ascii_start().len();
        let t = line.trim_ascii();
        if spans.is_empty() || t.is_empty() {
            return false;
        }
        let (from, to) = (start + lead, start + lead + t.len());
        let within = match spans.partition_point(|&(s, _)| s <= from) {
            0 => false,
            n => to <= spans[n - 1].1,
        };
        let doctest = t.starts_with(b">>>") || t.starts_with(b"...");
        within && !(doctest && self.runs_doctests())
    }

    /// Whether the file names a doctest runner
    /// ([`doctest_runner`](super::unread::doctest_runner)), which makes
    /// its `>>>` lines code; searched once, on the first asking.
    pub fn runs_doctests(&self) -> bool {
        *self
            .runs_doctests
            .get_or_init(|| super::unread::doctest_runner().is_match(self.data))
    }

    /// Where `part`, a slice of this file's text, starts in it; `None`
    /// for bytes held elsewhere (a joined continuation, a folded line).
    pub fn offset_of(&self, part: &[u8]) -> Option<usize> {
        let start = (part.as_ptr() as usize).wrapping_sub(self.data.as_ptr() as usize);
        (start <= self.data.len() && start + part.len() <= self.data.len()).then_some(start)
    }

    /// Whether byte `at` starts a statement that is one call of a bare
    /// name and nothing else, in a Python file (`compile(s, f, "eval")`,
    /// its value dropped): [`prose::read`](super::prose::read).
    pub fn is_dropped_call(&self, at: usize) -> bool {
        self.statements().calls.binary_search(&at).is_ok()
    }

    /// The lexer's reading of a Python file (`.py`, `.pyw`, `.pyi`),
    /// done on the first asking; nothing for another file.
    fn statements(&self) -> &super::prose::Statements {
        self.prose.get_or_init(|| {
            let python = matches!(extension(&file_name(self.path).1), "py" | "pyw" | "pyi");
            if python {
                super::prose::read(self.data)
            } else {
                Default::default()
            }
        })
    }

    /// The line that holds byte `at`, without its line break.
    pub fn line_at(&self, at: usize) -> &'a [u8] {
        let start = memchr::memrchr(b'\n', &self.data[..at]).map_or(0, |p| p + 1);
        let end = memchr::memchr(b'\n', &self.data[at..]).map_or(self.data.len(), |p| at + p);
        &self.data[start..end]
    }
}

/// Whether `line` (a line as split at `\n`) holds another line break
/// that Python or JavaScript honours: a carriage return anywhere but at
/// its end (both run what follows one as the next line). What follows
/// runs, so such a line is no comment, whatever it starts with:
/// cachetools whose `__init__.py` ended in `# note\rexec(…)` ran the
/// `exec`, which every rule skipped as part of a comment (session 33).
/// JavaScript's U+2028 and U+2029 are carriage returns by then
/// ([`js_spacing`]).
pub fn holds_line_break(line: &[u8]) -> bool {
    let body = line.strip_suffix(b"\r").unwrap_or(line);
    memchr::memchr(b'\r', body).is_some()
}

/// The text of a JavaScript or TypeScript file (by its extension) with
/// the spacing JavaScript reads as ASCII's written as ASCII: each Unicode
/// space (U+00A0, U+1680, U+2000 to U+200A, U+202F, U+205F, U+3000, and
/// U+FEFF) as a space, each line or paragraph separator (U+2028, U+2029)
/// as a carriage return; `None` when the file is not one or holds none.
///
/// Why: JavaScript separates tokens with them, and nothing else here does.
/// Every byte from 0x80 is part of a word to the models' tokenizer, and
/// the rules' patterns match ASCII spacing: is-number whose `index.js`
/// ran `\u{a0}eval\u{a0}(\u{a0}Buffer\u{a0}.from(…))` had neither model
/// see the `eval` and no rule match it, and was allowed (session 33). A
/// space inside a string changes nothing a reader judges.
pub fn js_spacing(path: &str, data: &[u8]) -> Option<Vec<u8>> {
    if !super::unread::is_javascript(path) {
        return None;
    }
    // The lead bytes of every such character: most files hold none.
    let lead = |b: &u8| matches!(b, 0xC2 | 0xE1 | 0xE2 | 0xE3 | 0xEF);
    let first = data.iter().position(lead)?;
    let spacing = |rest: &[u8]| -> Option<(usize, u8)> {
        match rest {
            [0xC2, 0xA0, ..] => Some((2, b' ')),
            [0xE1, 0x9A, 0x80, ..] => Some((3, b' ')),
            [0xE2, 0x80, 0x80..=0x8A, ..] | [0xE2, 0x80, 0xAF, ..] | [0xE2, 0x81, 0x9F, ..] => {
                Some((3, b' '))
            }
            [0xE2, 0x80, 0xA8 | 0xA9, ..] => Some((3, b'\r')),
            [0xE3, 0x80, 0x80, ..] | [0xEF, 0xBB, 0xBF, ..] => Some((3, b' ')),
            _ => None,
        }
    };
    let mut out: Option<Vec<u8>> = None;
    let mut i = first;
    let mut copied = 0;
    while i < data.len() {
        if lead(&data[i]) {
            if let Some((len, with)) = spacing(&data[i..]) {
                let o = out.get_or_insert_with(|| Vec::with_capacity(data.len()));
                o.extend_from_slice(&data[copied..i]);
                o.push(with);
                i += len;
                copied = i;
                continue;
            }
        }
        i += 1;
    }
    let mut out = out?;
    out.extend_from_slice(&data[copied..]);
    Some(out)
}

/// Whether `line` opens (past its indentation) with one of `prefixes`, a
/// rule's comment markers, and holds no other line break
/// ([`holds_line_break`]): the one test every rule's comment check
/// makes, whichever markers its languages use.
pub fn opens_with_comment(line: &[u8], prefixes: &[&[u8]]) -> bool {
    let t = line.trim_ascii_start();
    !holds_line_break(line) && prefixes.iter().any(|p| t.starts_with(p))
}

/// Whether a line is a comment line in any language a package may hold,
/// read alone: `#` (Python, shell, make), `//` and a `/*` comment with no
/// code after it closes (JavaScript, Rust, C and kin), `REM` and `::`
/// (batch files), and Python's doctest lines (`>>>`), which run under
/// doctest only; never one that holds another line break
/// ([`holds_line_break`]). A block comment's inner lines (` * …`) need
/// the lines above them: [`Code::is_comment`].
pub fn is_comment_line(line: &[u8]) -> bool {
    if holds_line_break(line) {
        return false;
    }
    let t = line.trim_ascii_start();
    if let Some(body) = t.strip_prefix(b"/*") {
        return !code_after_close(body);
    }
    opens_with_comment(line, &[b"#", b"//", b"::", b"REM ", b"rem ", b">>>"])
}

/// Whether code follows where a block comment in `text` closes (`*/`),
/// past any further comments on the line.
fn code_after_close(text: &[u8]) -> bool {
    let mut rest = text;
    loop {
        let Some(at) = memchr::memmem::find(rest, b"*/") else {
            return false;
        };
        let after = rest[at + 2..].trim_ascii();
        if after.is_empty() || after.starts_with(b"//") {
            return false;
        }
        match after.strip_prefix(b"/*") {
            Some(inner) => rest = inner,
            None => return true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A manifest is parsed on the first rule's asking and kept: every
    /// later rule reads the same parse.
    #[test]
    fn a_manifest_is_parsed_once_for_every_rule() {
        let code = Code::new("p/pyproject.toml", b"[project]\nname = \"p\"\n");
        let first = code.toml().expect("TOML");
        assert_eq!(first["project"]["name"].as_str(), Some("p"));
        assert!(std::ptr::eq(first, code.toml().unwrap()));
        let code = Code::new("p/setup.cfg", b"[options]\nx = %(y)s\ny = 1\n");
        let cfg = code.setup_cfg();
        assert!(std::ptr::eq(cfg, code.setup_cfg()));
        let x = cfg.values.iter().find(|v| v.name == "x").unwrap();
        assert_eq!(x.value, "1");
        // Not TOML: none, and asked again, still none.
        let text = Code::new("p/setup.cfg", b"[options]\nx = [\n");
        assert!(text.toml().is_none() && text.toml().is_none());
    }

    /// A Python string statement's lines are prose, its doctest lines
    /// too unless the file runs its doctests; a string that is part of a
    /// statement is not, nor a line holding more than the string, nor any
    /// line of a file in another language.
    #[test]
    fn a_string_statement_s_lines_are_prose() {
        let src = "\"\"\"Use pickle.loads(b).\n  eval(s)\n\"\"\"\nx = 1\ns = '''\nexec(s)\n'''\n\
            def f():\n    \"\"\"\n    >>> exec(s)\n    \"\"\"  # note\n";
        let prose = |path: &str, text: &str| {
            let code = Code::new(path, text.as_bytes());
            // `Code::new` reads `text`'s own bytes: each line is a slice of them.
            text.split('\n')
                .enumerate()
                .filter(|(_, line)| code.is_prose(line.as_bytes()))
                .map(|(i, _)| i + 1)
                .collect::<Vec<_>>()
        };
        assert_eq!(prose("pkg/m.py", src), [1, 2, 3, 9, 10]);
        let runs = format!("{src}import doctest\ndoctest.testmod()\n");
        assert_eq!(prose("pkg/m.py", &runs), [1, 2, 3, 9]);
        assert_eq!(prose("pkg/m.js", src), Vec::<usize>::new());
        assert_eq!(prose("pkg/m.pyx", src), Vec::<usize>::new());
        // A line that is not the file's own is never prose.
        let code = Code::new("pkg/m.py", src.as_bytes());
        assert!(!code.is_prose(b"  eval(s)"));
        assert!(code.is_comment(code.line_at(src.find("eval").unwrap())));
    }

    /// JavaScript's Unicode spacing comes out as ASCII, byte for byte
    /// elsewhere, and only in JavaScript and TypeScript files.
    #[test]
    fn javascript_spacing_is_written_as_ascii() {
        let js = "const\u{a0}run\u{3000}=\u{2009}eval;\u{feff}\n// c\u{2028}run(x)\u{2029}\n";
        assert_eq!(
            js_spacing("lib/a.js", js.as_bytes()).unwrap(),
            b"const run = eval; \n// c\rrun(x)\r\n"
        );
        for ext in ["cjs", "mjs", "jsx", "ts", "tsx", "cts", "mts"] {
            assert!(js_spacing(&format!("a.{ext}"), "a\u{a0}b".as_bytes()).is_some());
        }
        // Other text, other files, and files with none are left alone.
        let kept = "é ü 日本語 — “quoted” €\u{200b}\u{2060}";
        assert_eq!(js_spacing("a.js", kept.as_bytes()), None);
        assert_eq!(js_spacing("a.py", "a\u{a0}b".as_bytes()), None);
        assert_eq!(js_spacing("a.js", b"plain ascii"), None);
        // A lead byte at the end, or cut short, is copied as it is.
        assert_eq!(
            js_spacing("a.js", b"x\xc2\xa0y\xe2\x80").unwrap(),
            b"x y\xe2\x80"
        );
    }

    /// A block comment's lines are comments as long as no code follows
    /// where it closes; a line opening with `*` is one only below a `/*`
    /// that no line between has closed.
    #[test]
    fn block_comments_are_read_with_the_lines_above() {
        let text = b"/**\n * Uses eval(code).\n *\n\n * @returns x\n */\nconst k = 2\n  * eval(s);\n/* a */ eval(s);\n/* a */ /* b */ // c\n/*\n * done */ eval(s)\n";
        let code = Code::new("lib/a.js", text);
        let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
        let comments: Vec<usize> = (0..lines.len())
            .filter(|&i| !lines[i].is_empty() && code.is_comment(lines[i]))
            .map(|i| i + 1)
            .collect();
        assert_eq!(comments, [1, 2, 3, 5, 6, 10, 11]);
        // A line not of the text (a joined continuation) opening with `*`
        // is code; one opening with `/*` is read alone.
        assert!(!code.is_comment(b" * Uses eval(code)."));
        assert!(code.is_comment(b"/* a */"));
        assert!(!is_comment_line(b"/* a */ eval(s)"));
        assert!(!is_comment_line(b" * a"));
    }

    /// A carriage return inside a line starts another that runs; one
    /// ending the line (CRLF) does not.
    #[test]
    fn a_comment_line_holding_a_line_break_is_no_comment() {
        assert!(is_comment_line(b"# note\r"));
        assert!(is_comment_line(b"  // note"));
        assert!(!is_comment_line(b"# note\rexec(x)"));
        assert!(!is_comment_line(b"// note\reval(x)\r"));
        assert!(holds_line_break(b"a\rb"));
        assert!(!holds_line_break(b"a b\r"));
    }

    #[test]
    fn continued_lines_are_joined() {
        let code = Code::new(
            "ci.sh",
            b"a\ncurl -fsSL https://x \\\r\n  | sh\nb \\\nc \\\n",
        );
        let lines: Vec<(usize, Vec<u8>)> = code
            .logical_lines()
            .map(|(n, l)| (n, l.into_owned()))
            .collect();
        assert_eq!(
            lines,
            [
                (1, b"a".to_vec()),
                (2, b"curl -fsSL https://x    | sh".to_vec()),
                (4, b"b  c  ".to_vec()),
            ]
        );
    }

    #[test]
    fn only_lines_folding_changes_are_kept() {
        let code = Code::new("pkg/m.py", b"import os\nx = 'a' + 'b'\ny = 1\n");
        let n: Vec<usize> = code.folded().iter().map(|f| f.n).collect();
        assert_eq!(n, [2]);
        assert_eq!(code.folded()[0].text, b"x = 'ab'");
        assert_eq!(code.folded()[0].line, b"x = 'a' + 'b'");
        // Not a script, or documentation: nothing folded.
        assert!(Code::new("build.sh", b"x='a''b'\n").folded().is_empty());
        assert!(Code::new("docs/a.md", b"x = 'a' + 'b'\n")
            .folded()
            .is_empty());
        assert!(Code::new("tests/test_a.py", b"x = 'a' + 'b'\n")
            .folded()
            .is_empty());
        assert_eq!(code.line_of(12), 2);
        assert_eq!(code.line_at(12), b"x = 'a' + 'b'");
    }
}
