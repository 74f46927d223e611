//! Folds the ways a line of code can spell a name in pieces back into the
//! name, so the capability lexicon ([`super::capabilities`]) matches
//! `o['home' + 'dir']()` as `o.homedir()`.
//!
//! Why: the lexicon is a list of names, and a payload that builds each
//! name from string pieces names none of them. With lexicon v2,
//! string-padder's stealer with every name split (`require('o' + 's')`,
//! `o['home' + 'dir']()`, `process['en' + 'v']`) had an empty capability
//! view, and the gate allowed it on the pre-check alone.
//!
//! What it folds, on one line, outside and inside string literals:
//! - escapes in a literal that stand for printable ASCII (`'\x63'`,
//!   `'\u0063'`, `'\u{63}'`, `'\143'`) into the character;
//! - `chr(N)` and `String.fromCharCode(N, …)` of printable ASCII codes into
//!   a literal;
//! - literals joined by `+` or written side by side (Python's implicit
//!   concatenation) into one;
//! - a subscript by an identifier-like literal (`o['env']`) and
//!   `getattr(o, 'env')` into an attribute (`o.env`);
//! - spaces around a dot between two names (`os . system`);
//! - `\u0065` escapes in JavaScript identifiers (`\u0065val(s)` is
//!   `eval(s)`);
//! - letters Python reads as ASCII in identifiers (it normalises them to
//!   NFKC): fullwidth forms, mathematical letters and digits, ligatures.
//!
//! It is not a parser: it reads one line at a time, never evaluates
//! anything, and may fold what a language would not (`'a' + 'b' * 3`).
//! Folding too much only puts a line before the veto that did not need to
//! be; it must never hide a name the line held before folding, so callers
//! match the line as written first and the folded line only in addition.

/// A piece of a line: a string literal (its decoded text and its quote) or
/// anything else, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Literal { quote: u8, text: Vec<u8> },
    Other(Vec<u8>),
}

/// The line folded, or `None` when folding changes nothing.
pub fn fold(line: &[u8]) -> Option<Vec<u8>> {
    match ascii_forms(line) {
        Some(plain) => Some(fold_ascii(&plain).unwrap_or(plain)),
        None => fold_ascii(line),
    }
}

/// The line with the letters Python reads as ASCII in identifiers written
/// as ASCII, or `None` when it has none. Python normalises identifiers to
/// NFKC (PEP 3131), so `os.ｓｙｓｔｅｍ(…)` (fullwidth) or `𝐞𝐱𝐞𝐜(…)`
/// (mathematical bold) runs `os.system` and `exec`, and an ASCII lexicon
/// saw neither. Only the compatibility forms that fold to ASCII letters and
/// digits are mapped, each to no more bytes than it takes.
fn ascii_forms(line: &[u8]) -> Option<Vec<u8>> {
    // The UTF-8 lead bytes of every form mapped below: ligatures (EF AC),
    // fullwidth forms (EF BC, EF BD), mathematical letters and digits
    // (F0 9D), the long s (C5 BF), the Kelvin sign (E2 84 AA). Other
    // non-ASCII text (accents, box drawing) stops here.
    let lead = |w: &[u8]| {
        matches!(
            w,
            [0xEF, 0xAC | 0xBC | 0xBD, _] | [0xF0, 0x9D, _] | [0xC5, 0xBF, _] | [0xE2, 0x84, 0xAA]
        )
    };
    if line.is_ascii() || !line.windows(3).any(lead) {
        return None;
    }
    let text = std::str::from_utf8(line).ok()?;
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    for c in text.chars() {
        match ascii_form(c) {
            Some(plain) => {
                out.push_str(plain);
                changed = true;
            }
            None => out.push(c),
        }
    }
    changed.then(|| out.into_bytes())
}

fn ascii_form(c: char) -> Option<&'static str> {
    const LETTERS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    const DIGITS: &str = "0123456789";
    const PRINTABLE: &str = "!\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~";
    let u = c as u32;
    let at = |s: &'static str, i: u32| s.get(i as usize..i as usize + 1);
    match u {
        // Fullwidth forms of printable ASCII.
        0xFF01..=0xFF5E => at(PRINTABLE, u - 0xFF01),
        // Mathematical alphanumeric symbols: thirteen alphabets of 52
        // letters from U+1D400, then five sets of ten digits.
        0x1D400..=0x1D6A3 => at(LETTERS, (u - 0x1D400) % 52),
        0x1D7CE..=0x1D7FF => at(DIGITS, (u - 0x1D7CE) % 10),
        // Latin ligatures and the long s.
        0xFB00 => Some("ff"),
        0xFB01 => Some("fi"),
        0xFB02 => Some("fl"),
        0xFB03 => Some("ffi"),
        0xFB04 => Some("ffl"),
        0xFB05 | 0xFB06 => Some("st"),
        0x017F => Some("s"),
        0x212A => Some("K"),
        _ => None,
    }
}

/// [`fold`] of a line whose names are spelled in ASCII.
fn fold_ascii(line: &[u8]) -> Option<Vec<u8>> {
    if !may_fold(line) {
        return None;
    }
    fold_unfiltered(line)
}

fn is_quote(b: u8) -> bool {
    b == b'\'' || b == b'"' || b == b'`'
}

/// Whether [`fold_unfiltered`] could change an ASCII line: it holds an
/// escape, a literal joined to another or to a `+`, a subscript by a
/// literal, `getattr`, `chr(`, `fromCharCode`, or a space beside a dot.
/// Most lines of code hold none, and the veto's view of a large package
/// is built over every line (session 17: without this, 10.1 ms a MB of
/// code against 4.4 ms).
fn may_fold(line: &[u8]) -> bool {
    let spaces = |b: &u8| *b == b' ' || *b == b'\t';
    if memchr::memchr(b'\\', line).is_some() {
        return true;
    }
    let spaced_dot = memchr::memchr_iter(b'.', line)
        .any(|i| (i > 0 && spaces(&line[i - 1])) || line.get(i + 1).is_some_and(spaces));
    let joined = memchr::memchr3_iter(b'\'', b'"', b'`', line).any(|i| {
        let next = line[i + 1..].iter().find(|c| !spaces(c));
        let prev = line[..i].iter().rev().find(|c| !spaces(c));
        next.is_some_and(|&c| c == b'+' || is_quote(c))
            || prev.is_some_and(|&c| c == b'+' || c == b'[')
    });
    // Searchers built once: building one per line cost more than the
    // search.
    let named = || {
        static FINDERS: std::sync::OnceLock<[memchr::memmem::Finder<'static>; 3]> =
            std::sync::OnceLock::new();
        let f = FINDERS.get_or_init(|| {
            [
                memchr::memmem::Finder::new(b"chr("),
                memchr::memmem::Finder::new(b"getattr"),
                memchr::memmem::Finder::new(b"fromCharCode"),
            ]
        });
        f.iter().any(|f| f.find(line).is_some())
    };
    spaced_dot || joined || named()
}

/// [`fold_ascii`] without the [`may_fold`] check.
fn fold_unfiltered(line: &[u8]) -> Option<Vec<u8>> {
    let pieces = join_literals(split(line));
    let out = emit(&pieces);
    let out = close_dots(&out);
    (out != line).then_some(out)
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

fn printable(c: u32) -> Option<u8> {
    (0x20..0x7f).contains(&c).then_some(c as u8)
}

/// Splits a line into literals and the rest. A literal that does not close
/// on the line, a template with `${`, and a triple-quoted string are left
/// as written.
fn split(line: &[u8]) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut other = Vec::new();
    let mut i = 0;
    while i < line.len() {
        let b = line[i];
        if let Some((text, len)) = char_call(line, i) {
            flush(&mut pieces, &mut other);
            pieces.push(Piece::Literal { quote: b'\'', text });
            i += len;
            continue;
        }
        if b == b'\'' || b == b'"' || b == b'`' {
            if line[i..].starts_with(&[b, b, b]) {
                // A triple-quoted string: as written, to the end.
                other.extend_from_slice(&line[i..]);
                break;
            }
            match literal(line, i) {
                Some((text, len)) => {
                    flush(&mut pieces, &mut other);
                    pieces.push(Piece::Literal { quote: b, text });
                    i += len;
                }
                None => {
                    other.extend_from_slice(&line[i..]);
                    break;
                }
            }
            continue;
        }
        // JavaScript reads `\u0065val` in an identifier as `eval`.
        if b == b'\\' && line.get(i + 1) == Some(&b'u') {
            if let (Some(c), len) = escape(&line[i + 1..]) {
                if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' {
                    other.push(c);
                    i += 1 + len;
                    continue;
                }
            }
        }
        other.push(b);
        i += 1;
    }
    flush(&mut pieces, &mut other);
    pieces
}

fn flush(pieces: &mut Vec<Piece>, other: &mut Vec<u8>) {
    if !other.is_empty() {
        pieces.push(Piece::Other(std::mem::take(other)));
    }
}

/// The literal opening at `start` (decoded) and its length with quotes.
fn literal(line: &[u8], start: usize) -> Option<(Vec<u8>, usize)> {
    let quote = line[start];
    let mut text = Vec::new();
    let mut i = start + 1;
    while i < line.len() {
        let b = line[i];
        if b == quote {
            return Some((text, i + 1 - start));
        }
        if quote == b'`' && b == b'$' && line.get(i + 1) == Some(&b'{') {
            return None;
        }
        if b == b'\\' && i + 1 < line.len() {
            let (c, len) = escape(&line[i + 1..]);
            match c {
                Some(c) => text.push(c),
                None => text.extend_from_slice(&line[i..i + 1 + len]),
            }
            i += 1 + len;
            continue;
        }
        text.push(b);
        i += 1;
    }
    None
}

/// The character an escape (after its backslash) stands for, when it is
/// printable ASCII, and the escape's length.
fn escape(s: &[u8]) -> (Option<u8>, usize) {
    let hex = |d: &[u8]| -> Option<u32> {
        let t = std::str::from_utf8(d).ok()?;
        u32::from_str_radix(t, 16).ok()
    };
    match s[0] {
        b'\\' | b'\'' | b'"' | b'`' => (Some(s[0]), 1),
        b'x' if s.len() >= 3 => match hex(&s[1..3]) {
            Some(c) => (printable(c), 3),
            None => (None, 1),
        },
        b'u' if s.get(1) == Some(&b'{') => match s.iter().position(|&b| b == b'}') {
            Some(end) if end > 2 => match hex(&s[2..end]) {
                Some(c) => (printable(c), end + 1),
                None => (None, 1),
            },
            _ => (None, 1),
        },
        b'u' if s.len() >= 5 => match hex(&s[1..5]) {
            Some(c) => (printable(c), 5),
            None => (None, 1),
        },
        b'0'..=b'7' => {
            let n = s
                .iter()
                .take(3)
                .take_while(|b| (b'0'..=b'7').contains(b))
                .count();
            let c = s[..n]
                .iter()
                .fold(0u32, |acc, &d| acc * 8 + u32::from(d - b'0'));
            (printable(c), n)
        }
        _ => (None, 1),
    }
}

/// `chr(N)` or `String.fromCharCode(N, …)` at `i`, every code printable
/// ASCII: the characters and the call's length.
fn char_call(line: &[u8], i: usize) -> Option<(Vec<u8>, usize)> {
    if i > 0 && (is_name_byte(line[i - 1])) {
        return None;
    }
    let rest = &line[i..];
    let (name_len, many) = if rest.starts_with(b"chr(") {
        (4, false)
    } else if rest.starts_with(b"String.fromCharCode(") {
        (20, true)
    } else {
        return None;
    };
    let close = rest.iter().position(|&b| b == b')')?;
    let args = std::str::from_utf8(&rest[name_len..close]).ok()?;
    let mut text = Vec::new();
    for arg in args.split(',') {
        let arg = arg.trim();
        let code = match arg.strip_prefix("0x").or_else(|| arg.strip_prefix("0X")) {
            Some(h) => u32::from_str_radix(h, 16).ok()?,
            None => arg.parse::<u32>().ok()?,
        };
        text.push(printable(code)?);
    }
    if text.is_empty() || (!many && text.len() != 1) {
        return None;
    }
    Some((text, close + 1))
}

/// Joins literals separated only by spaces and at most one `+`.
fn join_literals(pieces: Vec<Piece>) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::with_capacity(pieces.len());
    let mut iter = pieces.into_iter().peekable();
    while let Some(p) = iter.next() {
        if let Piece::Other(o) = &p {
            let joins = {
                let t = o.trim_ascii();
                t.is_empty() || t == b"+"
            };
            let between = matches!(out.last(), Some(Piece::Literal { .. }))
                && matches!(iter.peek(), Some(Piece::Literal { .. }));
            if joins && between {
                if let (
                    Some(Piece::Literal { text, .. }),
                    Some(Piece::Literal { text: next, .. }),
                ) = (out.last_mut(), iter.next())
                {
                    text.extend_from_slice(&next);
                }
                continue;
            }
        }
        if let (Piece::Literal { text: next, .. }, Some(Piece::Literal { text, .. })) =
            (&p, out.last_mut())
        {
            // Two literals with nothing between them ('a''b').
            text.extend_from_slice(next);
            continue;
        }
        out.push(p);
    }
    out
}

fn is_identifier(t: &[u8]) -> bool {
    !t.is_empty() && !t[0].is_ascii_digit() && t.iter().all(|&b| is_name_byte(b))
}

/// Writes the pieces back, with `o['name']` as `o.name` and
/// `getattr(o, 'name')` as `o.name`.
fn emit(pieces: &[Piece]) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::new();
    // Bytes of the next Other piece to skip (a closing `]` or `)`).
    let mut skip_next: Option<usize> = None;
    for (k, p) in pieces.iter().enumerate() {
        match p {
            Piece::Other(o) => {
                let from = skip_next.take().unwrap_or(0).min(o.len());
                out.extend_from_slice(&o[from..]);
            }
            Piece::Literal { quote, text } => {
                let next = match pieces.get(k + 1) {
                    Some(Piece::Other(o)) => Some(o.as_slice()),
                    _ => None,
                };
                if is_identifier(text) {
                    if let (Some(cut), Some(close)) =
                        (subscript_open(&out), next.and_then(|n| closer(n, b']')))
                    {
                        out.truncate(cut);
                        out.push(b'.');
                        out.extend_from_slice(text);
                        skip_next = Some(close);
                        continue;
                    }
                    if let (Some((cut, object)), Some(close)) =
                        (getattr_open(&out), next.and_then(getattr_close))
                    {
                        out.truncate(cut);
                        out.extend_from_slice(&object);
                        out.push(b'.');
                        out.extend_from_slice(text);
                        skip_next = Some(close);
                        continue;
                    }
                }
                out.push(*quote);
                out.extend_from_slice(text);
                out.push(*quote);
            }
        }
    }
    out
}

/// Where `X[` (spaces allowed after `[`) begins its `[`, when `out` ends
/// with one whose `X` ends a name, a call or a subscript.
fn subscript_open(out: &[u8]) -> Option<usize> {
    let t = out.trim_ascii_end();
    let open = t.len().checked_sub(1)?;
    if t[open] != b'[' {
        return None;
    }
    let before = t[..open].trim_ascii_end();
    let last = *before.last()?;
    (is_name_byte(last) || last == b')' || last == b']').then_some(before.len())
}

/// The length of `other` up to and including its first byte, `want`, when
/// only spaces come before it.
fn closer(other: &[u8], want: u8) -> Option<usize> {
    let skip = other.len() - other.trim_ascii_start().len();
    (other.get(skip) == Some(&want)).then_some(skip + 1)
}

/// When `out` ends with `getattr(OBJECT,` (spaces allowed), where it
/// begins and OBJECT (a dotted name).
fn getattr_open(out: &[u8]) -> Option<(usize, Vec<u8>)> {
    let t = out.trim_ascii_end();
    let t = t.strip_suffix(b",")?.trim_ascii_end();
    let start = t
        .iter()
        .rposition(|&b| !(is_name_byte(b) || b == b'.'))
        .map_or(0, |p| p + 1);
    let object = &t[start..];
    let head = t[..start]
        .trim_ascii_end()
        .strip_suffix(b"(")?
        .trim_ascii_end();
    let head = head.strip_suffix(b"getattr")?;
    if object.is_empty() || head.last().is_some_and(|&b| is_name_byte(b) || b == b'.') {
        return None;
    }
    Some((head.len(), object.to_vec()))
}

/// After `getattr(o, 'name'`: how much of the rest to drop, through the
/// call's `)` (a default value included).
fn getattr_close(other: &[u8]) -> Option<usize> {
    let skip = other.len() - other.trim_ascii_start().len();
    match other.get(skip)? {
        b')' => Some(skip + 1),
        b',' => {
            let mut depth = 0usize;
            for (i, &b) in other.iter().enumerate().skip(skip + 1) {
                match b {
                    b'(' | b'[' | b'{' => depth += 1,
                    b')' if depth == 0 => return Some(i + 1),
                    b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
            None
        }
        _ => None,
    }
}

/// `a . b` as `a.b` where both sides are names.
fn close_dots(line: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(line.len());
    let mut i = 0;
    while i < line.len() {
        let b = line[i];
        if b == b'.' {
            let left_spaces = out.len() - out.trim_ascii_end().len();
            let right = line[i + 1..]
                .iter()
                .take_while(|c| c.is_ascii_whitespace())
                .count();
            let left = out.trim_ascii_end();
            let name_start = left
                .iter()
                .rposition(|&c| !is_name_byte(c))
                .map_or(0, |p| p + 1);
            // A name, not a number (`3 . real`).
            let left_name = left.get(name_start).is_some_and(|c| !c.is_ascii_digit());
            let right_name = line.get(i + 1 + right).is_some_and(|&c| is_name_byte(c));
            if (left_spaces > 0 || right > 0) && left_name && right_name {
                out.truncate(out.len() - left_spaces);
                out.push(b'.');
                i += 1 + right;
                continue;
            }
        }
        out.push(b);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::fold;

    fn f(s: &str) -> String {
        String::from_utf8(fold(s.as_bytes()).unwrap_or_else(|| s.as_bytes().to_vec())).unwrap()
    }

    #[test]
    fn names_in_pieces_fold_into_the_name() {
        let cases = [
            ("const o = require('o' + 's');", "const o = require('os');"),
            (
                "k = p.join(o['home' + 'dir'](), '.npm' + 'rc');",
                "k = p.join(o.homedir(), '.npmrc');",
            ),
            ("e: process['en' + 'v'] })", "e: process.env })"),
            ("getattr(os, 'sys' + 'tem')('id')", "os.system('id')"),
            ("getattr(os, 'sys' 'tem', None)(cmd)", "os.system(cmd)"),
            ("x = getattr( os , \"popen\" )", "x = os.popen"),
            ("require('\\x63hild_process')", "require('child_process')"),
            (
                "require(\"\\u0063hild_\\u{70}rocess\")",
                "require(\"child_process\")",
            ),
            ("m = '\\157\\163'", "m = 'os'"),
            ("__import__(chr(111) + chr(115))", "__import__('os')"),
            ("String.fromCharCode(101, 118, 97, 108)", "'eval'"),
            ("os . system('id')", "os.system('id')"),
            ("process\t.env.TOKEN", "process.env.TOKEN"),
            ("a['b']['c']", "a.b.c"),
            ("__import__(chr(111)+chr(115))", "__import__('os')"),
            // Python reads identifiers as NFKC: these run os.system and exec.
            ("os.ｓｙｓｔｅｍ('id')", "os.system('id')"),
            ("𝐞𝐱𝐞𝐜(code)", "exec(code)"),
            ("𝚎𝚟𝚊𝚕(ſrc)", "eval(src)"),
            // JavaScript reads escapes in identifiers as the letters.
            ("\\u0065val(s)", "eval(s)"),
            ("\\u{65}\\u{76}al(s)", "eval(s)"),
        ];
        for (line, want) in cases {
            assert_eq!(f(line), want, "{line}");
        }
    }

    #[test]
    fn ordinary_lines_are_left_alone() {
        for line in [
            "x = 1",
            "print('hello, world')",
            "d = {'a': 'b'}",
            "items = ['a', 'b']",
            "s = f'{a}' if x else \"y\"",
            "return \"\"\"doc\"\"\" + 'x'",
            "n = 3 . real",
            "const t = `${a}b` + 'c';",
            "parts = ['FREQ=' + name]",
            "x = a[i] + 'b'",
            "chr(200)",
            "unterminated = 'abc",
        ] {
            assert!(fold(line.as_bytes()).is_none(), "{line:?} -> {}", f(line));
        }
    }

    #[test]
    fn folding_never_panics_on_odd_bytes() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(17);
        let alphabet: Vec<char> = "'\"`\\x0u{}[]()+ .,getattrchrString.fromCharCode$_ab1ｓｙ𝐞ﬃſé"
            .chars()
            .collect();
        for _ in 0..20_000 {
            let len = rng.random_range(0..40);
            let line: String = (0..len)
                .map(|_| alphabet[rng.random_range(0..alphabet.len())])
                .collect();
            let line = line.into_bytes();
            // Folding never lengthens a line: the view maps its bytes
            // back into the line as written.
            if let Some(out) = fold(&line) {
                assert!(out.len() <= line.len(), "{line:?} -> {out:?}");
            }
            // The quick check never skips a line folding would change.
            if line.is_ascii() && super::fold_unfiltered(&line).is_some() {
                assert!(super::may_fold(&line), "{line:?}");
            }
        }
    }
}
