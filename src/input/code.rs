//! A code file as the rules on members read it ([`super::unread`],
//! [`super::spying`]): its bytes, and its Python or JavaScript lines as
//! [`fold`](crate::precheck::fold::fold) folds them, computed once.
//!
//! Why: each rule matches a line as written and as folded. Folding reads
//! every line, and three rules each folding every line of every code file
//! made packaging's scan 13 ms (a third) slower. Most lines fold to
//! themselves and are kept once, as written.
//!
//! It only reads text, and keeps nothing but the lines folding changed.

use super::render::is_inert;
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

/// A member's path and bytes, and its folded lines.
pub struct Code<'a> {
    pub path: &'a str,
    pub data: &'a [u8],
    folded: Vec<Folded<'a>>,
}

impl<'a> Code<'a> {
    /// Folds the lines of Python and JavaScript files that are not
    /// documentation or data, nor tests or docs; other files have no folded
    /// lines. Tests and docs count only when the package's code makes them
    /// importable, and folding them all for that case cost packaging's
    /// scan 4 ms (44.4 → 40.0 ms without, `perf stat -r 10`); they are
    /// read as written.
    pub fn new(path: &'a str, data: &'a [u8]) -> Code<'a> {
        let folded = if is_script(path) && !is_inert(path) && !tests_or_docs(path) {
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
        } else {
            Vec::new()
        };
        Code { path, data, folded }
    }

    /// The lines folding changed, in order.
    pub fn folded(&self) -> &[Folded<'a>] {
        &self.folded
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

    /// The first line, not a comment ([`is_comment_line`]), where `re`
    /// matches a command: as written with each continuation joined
    /// ([`logical_lines`](Self::logical_lines)), or as folded. `None` at
    /// once when the file holds `words` nowhere ([`holds`](Self::holds)),
    /// the search that spares reading nearly every file line by line.
    pub fn first_command_line(
        &self,
        words: &regex::bytes::Regex,
        re: &regex::bytes::Regex,
    ) -> Option<usize> {
        if !self.holds(words) {
            return None;
        }
        let written = self
            .logical_lines()
            .find(|(_, line)| !is_comment_line(line) && re.is_match(line))
            .map(|(n, _)| n);
        let folded = self
            .folded()
            .iter()
            .find(|f| !is_comment_line(f.line) && re.is_match(&f.text))
            .map(|f| f.n);
        written.into_iter().chain(folded).min()
    }

    /// The line that holds byte `at`, without its line break.
    pub fn line_at(&self, at: usize) -> &'a [u8] {
        let start = memchr::memrchr(b'\n', &self.data[..at]).map_or(0, |p| p + 1);
        let end = memchr::memchr(b'\n', &self.data[at..]).map_or(self.data.len(), |p| at + p);
        &self.data[start..end]
    }
}

/// Whether a line is a comment line in any language a package may hold:
/// `#` (Python, shell, make), `//`, `/*` and ` * ` (JavaScript, Rust, C
/// and kin), `REM` and `::` (batch files), and Python's doctest lines
/// (`>>>`), which run under doctest only.
pub fn is_comment_line(line: &[u8]) -> bool {
    let t = line.trim_ascii_start();
    [
        &b"#"[..],
        b"//",
        b"/*",
        b"*",
        b"::",
        b"REM ",
        b"rem ",
        b">>>",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

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
