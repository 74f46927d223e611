//! Python's string statements: a string literal that stands alone as a
//! statement (a docstring, or a note between statements), whose text no
//! interpreter runs.
//!
//! Why: the rules that read code lines ([`super::unread`],
//! [`super::spying`], a download piped into a shell) matched the prose
//! of docstrings as code. packaging's `_structures.py` explains that
//! "`pickle.loads()` can resolve those references", msal's docstring
//! shows a recipe with `pickle.load(f)`, sqlalchemy's and jinja2's name
//! `pickle.loads()` and `eval(repr(x))`, and tornado's show a server's
//! `sock.bind(("", 8888))`: each such line held a package the pre-check
//! would otherwise clear (session 50: 12 of the 227 lines the held-out,
//! training and calibration sdists' notes named for code they do not
//! hold, and 19 of the 113 named for spying, lay in docstrings).
//!
//! A string statement's text is inert: Python evaluates the literal and
//! drops it. An f-string or t-string statement is not (its fields run),
//! and a string that is part of a larger statement (an argument, an
//! assignment, one piece of an implicit concatenation, a `"""…""".format(…)`)
//! is not a statement. Code that runs a docstring's text names it where it
//! runs it (`exec(__doc__)`, `os.system(f.__doc__)`), and that line is
//! code the rules read. Doctest lines (`>>>`, `...`) are prose only while
//! the file does not run its doctests ([`super::code::Code::is_prose`]).
//!
//! It must never call prose what Python runs: the spans come from a
//! lexer of Python's strings, comments, brackets and line structure
//! (PEP 701's nested f-strings included) that gives up, and calls
//! nothing prose in the file, wherever it is not sure it reads the
//! bytes as CPython does: a source encoding other than UTF-8, ASCII or
//! a single-byte Latin one (where a multi-byte character's second byte
//! may be a backslash or a quote), a string left open, unbalanced
//! brackets, a backslash not ending a line outside a string, or a
//! comment, backslash or line break where an f-string's format
//! specification would need them. It only reads text.

/// Whether a file's `coding` cookie, if any, names an encoding under
/// which every byte below 0x80 is that ASCII character and no byte
/// from 0x80 is part of one: UTF-8, ASCII and the single-byte Latin
/// encodings. Under Shift JIS, GBK or Big5 a character's second byte
/// may be `\` (0x5C), and the lexer would read an escape where Python
/// reads a closing quote.
fn lexable_encoding(data: &[u8]) -> bool {
    super::render::declared_encoding(data).map_or(true, |n| super::render::single_byte_or_utf8(&n))
}

/// The byte ranges of the string statements of a Python source: each
/// from its prefix (or opening quote) to past its closing quote, in
/// order; empty when the file holds none or the lexer gives up (the
/// module's doc).
pub fn string_statements(data: &[u8]) -> Vec<(usize, usize)> {
    read(data).strings
}

/// What the lexer found in a Python source: both empty when it gave up.
#[derive(Debug, Default)]
pub struct Statements {
    /// The string statements' byte ranges, in order.
    pub strings: Vec<(usize, usize)>,
    /// Where each statement that is one call of a bare name and nothing
    /// else starts (`compile(src, name, "eval")`, its value dropped),
    /// in order: the offset of the name.
    pub calls: Vec<usize>,
}

/// [`Statements`] of a Python source.
pub fn read(data: &[u8]) -> Statements {
    if !lexable_encoding(data) {
        return Statements::default();
    }
    statements(data).unwrap_or_default()
}

/// Python's keywords that can open a statement and be followed by `(`.
const KEYWORDS: [&[u8]; 17] = [
    b"assert", b"await", b"del", b"elif", b"else", b"except", b"for", b"from", b"if", b"import",
    b"lambda", b"not", b"raise", b"return", b"while", b"with", b"yield",
];

/// How far the statement being read is one call of a bare name.
#[derive(Clone, Copy)]
enum Call {
    No,
    /// A name at the statement's start, at this offset.
    Name(usize),
    /// Inside the call's parentheses.
    Open(usize),
    /// The call closed; nothing else yet.
    Closed(usize),
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// The prefix of a string literal whose word runs from `start` to `end`
/// (a word's bytes, [`is_word`]), a quote at `end`: `(raw,
/// interpolates)`; `None` when no quote follows or the word is not a
/// prefix Python knows (then it is a name, and a string after it a
/// separate token).
fn quoted_prefix(data: &[u8], start: usize, end: usize) -> Option<(bool, bool)> {
    if !matches!(data.get(end), Some(b'\'' | b'"')) {
        return None;
    }
    let w = data[start..end].to_ascii_lowercase();
    let known = matches!(
        w.as_slice(),
        b"r" | b"u" | b"b" | b"f" | b"t" | b"br" | b"rb" | b"fr" | b"rf" | b"tr" | b"rt"
    );
    known.then(|| (w.contains(&b'r'), w.contains(&b'f') || w.contains(&b't')))
}

/// Past the end of the string whose opening quote is at `i`, `level`
/// deep in f-strings: an f-string or t-string ([`f_string`]) when it
/// `interpolates`, else a plain one ([`plain_string`]).
fn string_end(data: &[u8], i: usize, raw: bool, interpolates: bool, level: usize) -> Option<usize> {
    match interpolates {
        true => f_string(data, i, raw, level),
        false => plain_string(data, i),
    }
}

fn statements(data: &[u8]) -> Option<Statements> {
    let mut out = Vec::new();
    let mut calls = Vec::new();
    // Only a token at bracket depth 0 changes it, but for the call's
    // own parentheses.
    let mut call = Call::No;
    let mut depth = 0usize;
    // The next token starts a statement.
    let mut at_start = true;
    // A string that started a statement, until what follows it shows
    // whether it is the whole statement.
    let mut candidate: Option<(usize, usize)> = None;
    let mut i = if data.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    while i < data.len() {
        let b = data[i];
        match b {
            b' ' | b'\t' | 0x0C => i += 1,
            b'\n' | b'\r' => {
                // Python reads `\r\n` and a lone `\r` as line breaks.
                if depth == 0 {
                    out.extend(candidate.take());
                    calls.extend(closed(std::mem::replace(&mut call, Call::No)));
                    at_start = true;
                }
                i += 1;
            }
            b'#' => i = line_end(data, i),
            b'\\' => {
                i = continuation(data, i)?;
                candidate = None;
                at_start = false;
            }
            b'(' | b'[' | b'{' => {
                if depth == 0 {
                    call = match (call, b) {
                        (Call::Name(s), b'(') => Call::Open(s),
                        _ => Call::No,
                    };
                }
                depth += 1;
                candidate = None;
                at_start = false;
                i += 1;
            }
            b')' | b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    call = match (call, b) {
                        (Call::Open(s), b')') => Call::Closed(s),
                        _ => Call::No,
                    };
                }
                candidate = None;
                at_start = false;
                i += 1;
            }
            b';' if depth == 0 => {
                out.extend(candidate.take());
                calls.extend(closed(std::mem::replace(&mut call, Call::No)));
                at_start = true;
                i += 1;
            }
            b'\'' | b'"' => {
                if depth == 0 {
                    call = Call::No;
                }
                let end = plain_string(data, i)?;
                candidate = (at_start && depth == 0).then_some((i, end));
                at_start = false;
                i = end;
            }
            _ if is_word(b) => {
                let start = i;
                while i < data.len() && is_word(data[i]) {
                    i += 1;
                }
                candidate = None;
                let string = quoted_prefix(data, start, i);
                if depth == 0 {
                    // `return (a, b)` and `assert (x)` call nothing.
                    let keyword = KEYWORDS.contains(&&data[start..i]);
                    call = match at_start && string.is_none() && !keyword {
                        true => Call::Name(start),
                        false => Call::No,
                    };
                }
                if let Some((raw, interpolates)) = string {
                    let end = string_end(data, i, raw, interpolates, 0)?;
                    if at_start && depth == 0 && !interpolates {
                        candidate = Some((start, end));
                    }
                    i = end;
                }
                at_start = false;
            }
            _ => {
                if depth == 0 {
                    call = Call::No;
                }
                candidate = None;
                at_start = false;
                i += 1;
            }
        }
    }
    if depth != 0 {
        return None;
    }
    out.extend(candidate);
    calls.extend(closed(call));
    Some(Statements {
        strings: out,
        calls,
    })
}

/// Where a statement that ended as `call` stands, when it was one call
/// of a bare name and nothing else.
fn closed(call: Call) -> Option<usize> {
    match call {
        Call::Closed(s) => Some(s),
        _ => None,
    }
}

/// Where the line holding byte `i` ends (its `\n` or `\r`).
fn line_end(data: &[u8], i: usize) -> usize {
    memchr::memchr2(b'\n', b'\r', &data[i..]).map_or(data.len(), |e| i + e)
}

/// Past a backslash at `i` that continues a line outside a string;
/// `None` when no line break follows it (Python refuses that).
fn continuation(data: &[u8], i: usize) -> Option<usize> {
    match data.get(i + 1) {
        Some(b'\n') => Some(i + 2),
        Some(b'\r') if data.get(i + 2) == Some(&b'\n') => Some(i + 3),
        Some(b'\r') => Some(i + 2),
        _ => None,
    }
}

/// Past an escape at `i` (a backslash) in a string: the backslash and
/// the byte it escapes, a `\r\n` as one.
fn escape_end(data: &[u8], i: usize) -> usize {
    if data.get(i + 1) == Some(&b'\r') && data.get(i + 2) == Some(&b'\n') {
        i + 3
    } else {
        i + 2
    }
}

/// The quote at `i` (`'` or `"`), whether it opens a triple-quoted
/// string, and how many bytes its delimiter takes.
fn opening(data: &[u8], i: usize) -> (u8, bool, usize) {
    let q = data[i];
    let triple = data.get(i..i + 3) == Some(&[q, q, q][..]);
    (q, triple, if triple { 3 } else { 1 })
}

/// Whether the string opened by `q` (`triple` or not) closes at `j`.
fn closes(data: &[u8], j: usize, q: u8, triple: bool) -> bool {
    data[j] == q && (!triple || data.get(j..j + 3) == Some(&[q, q, q][..]))
}

/// Past the end of the string whose opening quote is at `i`, neither an
/// f-string nor a t-string: a backslash escapes the next byte (raw
/// strings too, as far as where they end goes). `None` when it does not
/// close, or a one-quote string meets a line break.
fn plain_string(data: &[u8], i: usize) -> Option<usize> {
    let (q, triple, len) = opening(data, i);
    let mut j = i + len;
    while j < data.len() {
        match data[j] {
            b'\\' => j = escape_end(data, j),
            b'\n' | b'\r' if !triple => return None,
            _ if closes(data, j, q, triple) => return Some(j + len),
            _ => j += 1,
        }
    }
    None
}

/// How deep f-strings, their fields and format specifications may nest
/// before the lexer gives up: CPython's tokenizer stops at 150 f-string
/// levels, and each level is a call here, on a stack a crafted file of
/// nested `f'{f'{…` must not exhaust.
const MAX_NESTING: usize = 64;

/// Past the end of the f-string or t-string whose opening quote is at
/// `i` (PEP 701), `level` deep in others: its literal text, `{{` and
/// `}}`, and each `{…}` field ([`field`]).
fn f_string(data: &[u8], i: usize, raw: bool, level: usize) -> Option<usize> {
    if level >= MAX_NESTING {
        return None;
    }
    let (q, triple, len) = opening(data, i);
    let mut j = i + len;
    while j < data.len() {
        match data[j] {
            // `\{` leaves the brace to open a field; `\N{…}` names a
            // character, except in a raw string.
            b'\\' => match data.get(j + 1) {
                Some(b'{' | b'}') => j += 1,
                Some(b'N') if !raw && data.get(j + 2) == Some(&b'{') => {
                    let close = memchr::memchr(b'}', &data[j..])?;
                    j += close + 1;
                }
                _ => j = escape_end(data, j),
            },
            b'\n' | b'\r' if !triple => return None,
            b'{' if data.get(j + 1) == Some(&b'{') => j += 2,
            b'}' if data.get(j + 1) == Some(&b'}') => j += 2,
            b'{' => j = field(data, j + 1, q, triple, level + 1)?,
            b'}' => return None,
            _ if closes(data, j, q, triple) => return Some(j + len),
            _ => j += 1,
        }
    }
    None
}

/// Past the `}` that closes an f-string's field whose expression starts
/// at `j`, inside a string opened by `q` (`triple` or not). The
/// expression holds names, operators, brackets and strings of any
/// quote (PEP 701); at its own bracket depth, `!` (not `!=`) starts a
/// conversion and `:` a format specification ([`format_spec`]). `None`
/// on a comment or a backslash outside a nested string, which only a
/// multi-line expression may hold and none needs to.
fn field(data: &[u8], mut j: usize, q: u8, triple: bool, level: usize) -> Option<usize> {
    if level >= MAX_NESTING {
        return None;
    }
    let mut depth = 0usize;
    while j < data.len() {
        let b = data[j];
        match b {
            b'#' | b'\\' => return None,
            b'(' | b'[' | b'{' => {
                depth += 1;
                j += 1;
            }
            b')' | b']' => {
                depth = depth.checked_sub(1)?;
                j += 1;
            }
            b'}' if depth == 0 => return Some(j + 1),
            b'}' => {
                depth -= 1;
                j += 1;
            }
            b'!' if depth == 0 && data.get(j + 1) != Some(&b'=') => {
                j += 1;
                while j < data.len() && is_word(data[j]) {
                    j += 1;
                }
                match data.get(j) {
                    Some(b'}') => return Some(j + 1),
                    Some(b':') => return format_spec(data, j + 1, q, triple, level + 1),
                    _ => return None,
                }
            }
            b':' if depth == 0 => return format_spec(data, j + 1, q, triple, level + 1),
            b'\'' | b'"' => j = plain_string(data, j)?,
            _ if is_word(b) => {
                let start = j;
                while j < data.len() && is_word(data[j]) {
                    j += 1;
                }
                if let Some((raw, interpolates)) = quoted_prefix(data, start, j) {
                    j = string_end(data, j, raw, interpolates, level + 1)?;
                }
            }
            _ => j += 1,
        }
    }
    None
}

/// Past the `}` that closes a field whose format specification starts
/// at `j`: literal text in which `{` opens a nested field and `}` closes
/// this one. The enclosing string's quote closes that string (leaving
/// the field open: Python refuses it), so it, a line break in a
/// one-quote string, and a backslash, give up.
fn format_spec(data: &[u8], mut j: usize, q: u8, triple: bool, level: usize) -> Option<usize> {
    if level >= MAX_NESTING {
        return None;
    }
    while j < data.len() {
        match data[j] {
            b'}' => return Some(j + 1),
            b'{' => j = field(data, j + 1, q, triple, level + 1)?,
            b'\\' => return None,
            b'\n' | b'\r' if !triple => return None,
            _ if closes(data, j, q, triple) => return None,
            _ => j += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text of each string statement `src` holds.
    fn prose(src: &str) -> Vec<&str> {
        string_statements(src.as_bytes())
            .into_iter()
            .map(|(s, e)| &src[s..e])
            .collect()
    }

    #[test]
    fn string_statements_are_found() {
        let cases: &[(&str, &[&str])] = &[
            (
                "\"\"\"Module doc.\"\"\"\nimport os\n",
                &["\"\"\"Module doc.\"\"\""],
            ),
            (
                "def f():\n    r'''Use pickle.loads(x).\n    '''\n    return 1\n",
                &["r'''Use pickle.loads(x).\n    '''"],
            ),
            ("class A:\n    'doc'  # note\n", &["'doc'"]),
            ("x = 1; \"note\"\n", &["\"note\""]),
            ("\u{feff}\"doc\"", &["\"doc\""]),
            (
                "if x:\n    pass\n\"\"\"a\nb\"\"\"\r\nexec(s)\n",
                &["\"\"\"a\nb\"\"\""],
            ),
            ("B'bytes'\n", &["B'bytes'"]),
            // A string after a line continued inside brackets or a
            // string is not the statement's start; one after the
            // statement ends is.
            (
                "x = (1,\n     'in')\ny = f'{a!r:>{w}}' '''x\n'''\n'doc'\n",
                &["'doc'"],
            ),
            // PEP 701: a nested string of the enclosing quote does not
            // end the f-string, nor does a `}` in a nested string.
            ("x = f\"{d[\"k\"]}\"\n\"doc\"\n", &["\"doc\""]),
            ("x = f'{\"}\"}' \n'doc'\n", &["'doc'"]),
            ("x = f\"{d[\"}\"]}\"\n\"doc\"\n", &["\"doc\""]),
            ("x = rf'\\N{d[\"}\"]}'\n'doc'\n", &["'doc'"]),
            ("x = rf'\\{y}'\n'doc'\n", &["'doc'"]),
            ("x = f'\\N{BULLET} {y}'\n'doc'\n", &["'doc'"]),
            ("x = f'{y:{z}.{p}f}' f'{{{w}}}'\n'doc'\n", &["'doc'"]),
            ("x = f'''{y\n+ 1}'''\n'doc'\n", &["'doc'"]),
            ("x = f'{a != b}'\n'doc'\n", &["'doc'"]),
            ("x = '\\\\'\n'doc'\n", &["'doc'"]),
            ("x = 'a\\\n b'\n'doc'\n", &["'doc'"]),
            ("x = 1 + \\\n  2\n'doc'\n", &["'doc'"]),
        ];
        for (src, want) in cases {
            assert_eq!(prose(src), *want, "{src:?}");
        }
    }

    #[test]
    fn strings_that_are_not_whole_statements_are_not_prose() {
        for src in [
            // Part of a statement: an argument, an assignment, an
            // operand, a concatenation's piece, a method's receiver.
            "exec(\n    \"\"\"import os\"\"\"\n)\n",
            "s = \"\"\"pickle.loads(b)\"\"\"\n",
            "s = \\\n\"\"\"pickle.loads(b)\"\"\"\n",
            "\"\"\"a\"\"\" \"b\"\n",
            "\"\"\"{}\"\"\".format(x)\n",
            "\"\"\"a\"\"\" \\\n.format(x)\n",
            "x = 1 +\\\n'a'\n",
            "if x: 'a'\n",
            "return'a'\n",
            // Fields run: f-strings and t-strings are code.
            "f\"\"\"{exec(s)}\"\"\"\n",
            "T'{run()}'\n",
            "Rf'{run()}'\n",
            // A name that is no prefix, then a string.
            "ur'a'\n",
        ] {
            assert_eq!(prose(src), Vec::<&str>::new(), "{src:?}");
        }
    }

    /// A statement that is one call of a bare name and nothing else is
    /// found where its name starts; a keyword's parenthesis, a dotted
    /// name, a call called or used on, and a call inside brackets are
    /// not.
    #[test]
    fn bare_call_statements_are_found() {
        let src = "compile(a, 'x', 'eval')\nf (x)  # c\ny = 1; g(\n  z,\n)\nreturn (a)\nassert (b)\n\
                   m.compile(a)\nh(a)(b)\nk(a).c\n[l(a)]\nawait n(a)\nlambda: p(a)\nq(a) if r else s\nt(a), u(b)\nv(a)";
        let calls: Vec<&str> = read(src.as_bytes())
            .calls
            .iter()
            .map(|&at| &src[at..at + 1])
            .collect();
        assert_eq!(calls, ["c", "f", "g", "v"]);
        assert!(read(b"# coding: gbk\ncompile(a)\n").calls.is_empty());
    }

    /// Where the lexer cannot be sure it reads the file as Python does,
    /// nothing in the file is prose, the strings it did read included.
    #[test]
    fn the_lexer_gives_up_where_unsure() {
        for src in [
            // An encoding whose second bytes may be a backslash: Shift
            // JIS's 0x95 0x5C is one character, not an escape.
            "# coding: shift_jis\n'doc'\n",
            "#!/usr/bin/env python\n# -*- coding: gbk -*-\n'doc'\n",
            "# vim: set fileencoding=big5 :\n'doc'\n",
            "# coding: utf-7\n'doc'\n",
            // Left open, or unbalanced.
            "'doc'\n'open\n",
            "'doc'\n'''open\n",
            "'doc'\nx = (1,\n",
            "'doc'\nx = 1)\n",
            // A backslash outside a string that continues no line.
            "'doc'\nx = 1 \\ + 2\n",
            // f-string fields: a comment, a backslash, a lone `}`, a
            // quote of the enclosing kind in a format specification.
            "'doc'\nx = f'''{y # c\n}'''\n",
            "'doc'\nx = f'{y \\\n}'\n",
            "'doc'\nx = f'a}b'\n",
            "'doc'\nx = f\"{y:\"}\"\n",
            "'doc'\nx = f'{y:\\n}'\n",
        ] {
            assert_eq!(prose(src), Vec::<&str>::new(), "{src:?}");
        }
        // Nesting past what the lexer follows, which a crafted file could
        // make deep enough to exhaust its stack; within it, read.
        let nested = |n: usize| format!("'doc'\nx = {}y{}\n", "f'{".repeat(n), "}'".repeat(n));
        assert_eq!(prose(&nested(200_000)), Vec::<&str>::new());
        let spec = format!(
            "'doc'\nx = f'{{y{}}}'\n",
            ":{y".repeat(100_000) + &"}".repeat(100_000)
        );
        assert_eq!(prose(&spec), Vec::<&str>::new());
        assert_eq!(prose(&nested(8)), vec!["'doc'"]);
        // A Latin or UTF-8 cookie is read as written.
        for src in [
            "# -*- coding: latin-1 -*-\n'doc'\n",
            "# coding=utf_8\n'doc'\n",
        ] {
            assert_eq!(prose(src), vec!["'doc'"], "{src:?}");
        }
    }
}
