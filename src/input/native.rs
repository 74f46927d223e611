//! What a compiled source hands a program runner: a C, C++, Objective-C,
//! CUDA or Cython source calling `system`, `popen`, the `exec*` family or
//! their Windows kin with a command it builds at run time, and a Rust
//! source running a shell or an interpreter on arguments, or a program on
//! its standard input, that it builds at run time.
//!
//! Why: an extension module's code runs when Python imports it (a C
//! constructor, a PyO3 module's init function), and a Cargo build script
//! runs when pip builds the package. The models read such sources as text
//! and the veto's lexicon knows Python's and JavaScript's names for
//! running a program, not C's or Rust's; a command decoded at run time is
//! text neither reads. A call whose program and arguments are all string
//! literals is text the models read, and does not count.
//!
//! What it must never do: evaluate, compile or run any of it. It reads
//! bytes and returns a line.

use std::collections::HashMap;
use std::sync::OnceLock;

use regex::bytes::Regex;

use super::code::Code;
use super::launched::SourceLanguage;
use super::render::{file_name, is_inert};

/// Where a compiled source (`code`) runs a command it builds at run time
/// ([`c_runs_built_command`], [`rust_runs_built_command`]): the 1-based
/// line, or `None`. Documentation and data are not read.
pub(super) fn runs_built_command(code: &Code) -> Option<usize> {
    let language = super::launched::source_language(&file_name(code.path).1)?;
    if is_inert(code.path) {
        return None;
    }
    match language {
        SourceLanguage::C | SourceLanguage::Cython => c_runs_built_command(code, language),
        SourceLanguage::Rust => rust_runs_built_command(code),
        SourceLanguage::Fortran | SourceLanguage::Assembly => None,
    }
}

/// Where a C, C++, Objective-C, CUDA or Cython source (`code`) hands a program
/// runner a command or arguments it builds at run time: C's `system`,
/// `popen` and the `exec*` family, `posix_spawn`, Windows'
/// `CreateProcess`, `ShellExecute`, `WinExec` and `_spawn*`, called with
/// anything but string literals (and `NULL`, `0`, or a `char *` cast of
/// them). The 1-based line, or `None`. An extension module runs its
/// constructors when Python imports it: cachetools built with a
/// `_speedups` extension whose header XOR-decoded `curl … | sh` into a
/// buffer and gave it to `system`, or to `execl("/bin/sh", "sh", "-c",
/// buf, NULL)` after a `fork`, ran it at import, and the shipped gate
/// allowed both (session 46): the veto's lexicon reads Python's and
/// JavaScript's names for these calls, not C's. A literal command is
/// text the models read; a member call (`obj.system(`, `p->exec(`) is
/// another function. Comments are skipped: lapack's say "system (A)".
fn c_runs_built_command(code: &Code, language: SourceLanguage) -> Option<usize> {
    static CALL: OnceLock<Regex> = OnceLock::new();
    // The names alone, spelled out, so the search runs on their literals
    // (lxml's 13 MB `etree.c` cost 40 ms more with the context and the
    // parenthesis in the pattern); what comes before and after a name is
    // checked after.
    let call = CALL.get_or_init(|| {
        // POSIX's runners, and Windows' and the C runtime's.
        let names = RUNNERS.iter().copied().chain([
            "_system",
            "_wsystem",
            "_popen",
            "_wpopen",
            "CreateProcess",
            "CreateProcessA",
            "CreateProcessW",
            "CreateProcessAsUser",
            "CreateProcessAsUserA",
            "CreateProcessAsUserW",
            "ShellExecute",
            "ShellExecuteA",
            "ShellExecuteW",
            "ShellExecuteEx",
            "ShellExecuteExA",
            "ShellExecuteExW",
            "WinExec",
            "_spawnl",
            "_spawnle",
            "_spawnlp",
            "_spawnlpe",
            "_spawnv",
            "_spawnve",
            "_spawnvp",
            "_spawnvpe",
            "_wspawnl",
            "_wspawnle",
            "_wspawnlp",
            "_wspawnlpe",
            "_wspawnv",
            "_wspawnve",
            "_wspawnvp",
            "_wspawnvpe",
        ]);
        let mut names: Vec<&str> = names.collect();
        // Longest first: leftmost-first alternation takes the first that fits.
        names.sort_by_key(|n| std::cmp::Reverse(n.len()));
        super::unread::build(&names.join("|"), false)
    });
    // A call of the name itself: not part of a longer name, not a member
    // (`obj.system(`, `p->exec(`, `ns::execv(`) but `std::system(`, and
    // followed by its parenthesis.
    let call_at = |text: &[u8], m: regex::bytes::Match| -> Option<usize> {
        let before = &text[..m.start()];
        let own = before.ends_with(b"std::")
            || !before
                .last()
                .is_some_and(|b| b.is_ascii_alphanumeric() || b"_.>:$".contains(b));
        let after = &text[m.end()..];
        let gap = after.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let named = !after.first().is_some_and(|&b| is_name_byte(b));
        (own && named && after.get(gap) == Some(&b'(')).then_some(m.end() + gap + 1)
    };
    let data = code.data;
    let mut calls = call
        .find_iter(data)
        .filter_map(|m| call_at(data, m))
        .peekable();
    calls.peek()?;
    // What lies in a comment or a literal is no call; a comment inside a
    // call's arguments makes them more than literals, which counts.
    let hidden = match language {
        SourceLanguage::Cython => cython_hidden(data),
        _ => c_hidden(data),
    };
    let in_hidden = |at: usize| {
        let k = hidden.partition_point(|r| r.1 <= at);
        hidden.get(k).is_some_and(|r| r.0 <= at)
    };
    calls
        .filter(|&open| !in_hidden(open - 1))
        .find(|&open| !c_literal_args(&data[open..]))
        .map(|open| code.line_of(open - 1))
}

/// The byte ranges of `data` that C reads as comments (`/* … */`,
/// `// …`) or as the text of string and character literals, in order and
/// apart: a call there is none. A line ends a literal; an escape takes the
/// byte after it. Ranges, not a blanked copy: lxml's 13 MB `etree.c`
/// names `system (` in two docstrings, and copying it for them cost more
/// than the search.
fn c_hidden(data: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    // From one byte that can open a comment or a literal to the next: a
    // generated source is mostly neither.
    while let Some(k) = memchr::memchr3(b'/', b'"', b'\'', &data[i..]) {
        i += k;
        match (data[i], data.get(i + 1)) {
            (b'/', Some(b'/')) => {
                let end = memchr::memchr(b'\n', &data[i..]).map_or(data.len(), |e| i + e);
                out.push((i, end));
                i = end;
            }
            (b'/', Some(b'*')) => {
                let end = memchr::memmem::find(&data[i + 2..], b"*/")
                    .map_or(data.len(), |e| i + 2 + e + 2);
                out.push((i, end));
                i = end;
            }
            (q @ (b'"' | b'\''), _) => {
                let mut j = i + 1;
                let end = loop {
                    match memchr::memchr3(q, b'\\', b'\n', &data[j.min(data.len())..]) {
                        None => break data.len(),
                        Some(e) if data[j + e] == b'\\' => j += e + 2,
                        Some(e) => break j + e,
                    }
                };
                out.push((i + 1, end));
                i = match data.get(end) {
                    Some(&b) if b == q => end + 1,
                    _ => end,
                };
            }
            _ => i += 1,
        }
        if i >= data.len() {
            break;
        }
    }
    out
}

/// [`c_hidden`] for Cython: `#` comments, and the text of string
/// literals, triple-quoted ones (docstrings) across lines included
/// (lxml's `xslt.pxi` documents a "file system (see …)").
fn cython_hidden(data: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(k) = memchr::memchr3(b'#', b'"', b'\'', &data[i..]) {
        i += k;
        match data[i] {
            b'#' => {
                let end = memchr::memchr(b'\n', &data[i..]).map_or(data.len(), |e| i + e);
                out.push((i, end));
                i = end;
            }
            q => {
                let triple = data.get(i..i + 3) == Some(&[q, q, q][..]);
                let open = if triple { 3 } else { 1 };
                let mut j = i + open;
                let end = loop {
                    match data.get(j) {
                        None => break data.len(),
                        Some(b'\\') => j += 2,
                        Some(b'\n') if !triple => break j,
                        Some(&b)
                            if b == q
                                && (!triple || data.get(j..j + 3) == Some(&[q, q, q][..])) =>
                        {
                            break j
                        }
                        Some(_) => j += 1,
                    }
                };
                let end = end.min(data.len());
                out.push((i + open, end));
                i = (end + open).min(data.len());
            }
        }
        if i >= data.len() {
            break;
        }
    }
    out
}

/// Whether the arguments after a call's `(` (`rest`) are only string
/// literals (adjacent ones joined, with C's `L`, `u8`, `u`, `U` prefixes),
/// `NULL`, `nullptr`, `0`, and casts of them to a character pointer, up to
/// the closing `)`. Unclosed within 4 KB: not literal.
fn c_literal_args(rest: &[u8]) -> bool {
    let rest = &rest[..rest.len().min(4096)];
    let mut i = 0;
    loop {
        while rest
            .get(i)
            .is_some_and(|b| b.is_ascii_whitespace() || *b == b',')
        {
            i += 1;
        }
        let word_end = |i: usize| i + rest[i..].iter().take_while(|&&b| is_name_byte(b)).count();
        match rest.get(i) {
            None => return false,
            Some(b')') => return true,
            Some(b'"') => {
                i += 1;
                while rest.get(i).is_some_and(|b| *b != b'"') {
                    i += if rest[i] == b'\\' { 2 } else { 1 };
                }
                if i >= rest.len() {
                    return false;
                }
                i += 1;
            }
            Some(b'(') => {
                // A cast to a character pointer: `(char *)`, `(const wchar_t*)`.
                let close = match memchr::memchr(b')', &rest[i..]) {
                    Some(c) => i + c,
                    None => return false,
                };
                let inner = String::from_utf8_lossy(&rest[i + 1..close]);
                let words: Vec<&str> = inner
                    .split(|c: char| c.is_whitespace() || c == '*')
                    .filter(|w| !w.is_empty())
                    .collect();
                let cast = inner.contains('*')
                    && words
                        .iter()
                        .all(|w| matches!(*w, "const" | "char" | "wchar_t" | "WCHAR" | "TCHAR"));
                if !cast {
                    return false;
                }
                i = close + 1;
            }
            Some(_) => {
                let end = word_end(i);
                let word = &rest[i..end];
                match word {
                    b"NULL" | b"nullptr" | b"0" => i = end,
                    b"L" | b"u8" | b"u" | b"U" if rest.get(end) == Some(&b'"') => i = end,
                    _ => return false,
                }
            }
        }
    }
}

/// Where a Rust source (`code`) runs a command it builds at run time: a
/// `Command::new` (or an alias of `Command`) of a shell or an interpreter
/// named by a literal ([`runs_code`]: `sh`, `bash`, `cmd`, `powershell`,
/// `python3`, `/usr/bin/env`, …) given an argument that is not a literal
/// (`.arg(s)`, `.args(["-c", &s])`), or its standard input piped (the
/// program is written to it), on the call's own chain or on the name it is
/// bound to (`let mut c = Command::new("sh"); c.arg(s);`, in that block),
/// also where a function of the file makes it and returns it
/// ([`shell_helpers`]: `fn shell() -> Command`, then `shell().arg(s)`);
/// and `libc::` or `nix::unistd::` `system`, `popen`, `exec*` and
/// `posix_spawn*`, called at all. The 1-based line, or `None`. A maturin
/// sdist whose `build.rs` XOR-decoded `touch …` and ran it with `sh -c`,
/// `bash -c`, `/usr/bin/env sh -c`, `libc::system`, or wrote it to
/// `python3`'s standard input, or whose PyO3 module's init function ran
/// it, was allowed by the shipped gate and by the rules alone, and pip
/// ran each (session 47). A program that is not a literal is no shell by
/// this rule: every vendored crate's build script runs `rustc` or a
/// compiler from a variable, and cryptography's runs the Python it was
/// handed with `-c` and a script from a variable.
fn rust_runs_built_command(code: &Code) -> Option<usize> {
    let data = code.data;
    static LIBC: OnceLock<Regex> = OnceLock::new();
    let libc = LIBC.get_or_init(|| {
        super::unread::build(
            &format!(
                r"\b(?:libc|nix\s*::\s*unistd)\s*::\s*(?:{})\s*\(",
                RUNNERS.join("|")
            ),
            false,
        )
    });
    static IMPORT: OnceLock<Regex> = OnceLock::new();
    let import = IMPORT.get_or_init(|| {
        super::unread::build(
            r"\buse\s+(?:::\s*)?(?:libc|nix\s*::\s*unistd)\s*::\s*(\{[^}]*\}|\*|[A-Za-z_][A-Za-z0-9_]*(?:\s+as\s+[A-Za-z_][A-Za-z0-9_]*)?)",
            false,
        )
    });
    // Before the copy: the libc crate's own sources name `libc::` in
    // every file, and few files name `Command` at all.
    if memchr::memmem::find(data, b"Command").is_none()
        && !libc.is_match(data)
        && !import.is_match(data)
    {
        return None;
    }
    let text = rust_blanked(data);
    let text = &text[..];
    let mut found = imported_runner_call(text, import);
    found = found
        .into_iter()
        .chain(libc.find(text).map(|m| m.end() - 1))
        .min();
    static NEW: OnceLock<Regex> = OnceLock::new();
    static ALIAS: OnceLock<Regex> = OnceLock::new();
    let new = NEW.get_or_init(|| super::unread::build(r"\bCommand\s*::\s*new\s*\(", false));
    let alias = ALIAS
        .get_or_init(|| super::unread::build(r"\bCommand\s+as\s+([A-Za-z_][A-Za-z0-9_]*)", false));
    // `use std::process::Command as Run;` then `Run::new("sh")`.
    let aliased: Option<Regex> = {
        let names: Vec<String> = alias
            .captures_iter(text)
            .filter_map(|c| std::str::from_utf8(&c[1]).ok().map(str::to_string))
            .collect();
        (!names.is_empty()).then(|| {
            super::unread::build(
                &format!(r"\b(?:{})\s*::\s*new\s*\(", names.join("|")),
                false,
            )
        })
    };
    let calls = new
        .find_iter(text)
        .chain(aliased.iter().flat_map(|a| a.find_iter(text)));
    // Read when a program is first named by a variable.
    let mut bindings: Option<HashMap<&[u8], String>> = None;
    let mut shells = 0usize;
    let mut shell_starts = Vec::new();
    let mut calls: Vec<_> = calls.collect();
    calls.sort_by_key(|m| m.start());
    for m in calls {
        // The first line is the one reported.
        if found.is_some_and(|f| f < m.start()) {
            break;
        }
        let open = m.end() - 1;
        // Fail closed: a program's name no reader can find (its
        // parenthesis unclosed within [`closing`]'s reach, as padding
        // would make it) counts, as do more shells than any build runs,
        // which would make the bindings' reading quadratic.
        let Some(close) = closing(text, open) else {
            found = found.into_iter().chain([open]).min();
            continue;
        };
        let program = literal_string(data, text, open + 1, close).or_else(|| {
            let name = bare_name(text, open + 1, close)?;
            bindings
                .get_or_insert_with(|| literal_bindings(data, text))
                .get(name)
                .cloned()
        });
        if !program.is_some_and(|p| runs_code(&p)) {
            continue;
        }
        shells += 1;
        if shells > MAX_SHELLS {
            found = found.into_iter().chain([open]).min();
            break;
        }
        shell_starts.push(m.start());
        found = found
            .into_iter()
            .chain(shell_runs_built(data, text, m.start(), close))
            .min();
    }
    if found.is_some() || shell_starts.is_empty() {
        return found.map(|at| code.line_of(at));
    }
    // A function that makes the shell's `Command` and returns it (`fn
    // shell() -> Command { Command::new("sh") }`): its callers hand it
    // the arguments.
    let helpers = match shell_helpers(text, &shell_starts) {
        Ok(helpers) => helpers,
        Err(at) => return Some(code.line_of(at)),
    };
    if helpers.is_empty() {
        return None;
    }
    let helpers: Vec<String> = helpers
        .iter()
        .map(|h| String::from_utf8_lossy(h).into_owned())
        .collect();
    for (start, open) in name_calls(text, &helpers) {
        shells += 1;
        let Some(close) = closing(text, open).filter(|_| shells <= MAX_SHELLS) else {
            return Some(code.line_of(open));
        };
        if let Some(at) = shell_runs_built(data, text, start, close) {
            return Some(code.line_of(at));
        }
    }
    None
}

/// The calls in `text` of a function named by one of `names` (the
/// offsets of the name and of its `(`), definitions (`fn NAME(`) left
/// out. The names are escaped into the pattern.
fn name_calls(text: &[u8], names: &[String]) -> Vec<(usize, usize)> {
    let names: Vec<String> = names.iter().map(|n| regex::escape(n)).collect();
    let call = super::unread::build(&format!(r"\b(?:{})\s*\(", names.join("|")), false);
    let calls = call.find_iter(text).filter_map(|m| {
        let head = text[..m.start()].trim_ascii_end();
        let defined = head
            .strip_suffix(b"fn")
            .is_some_and(|keyword| !keyword.last().is_some_and(|&b| is_name_byte(b)));
        (!defined).then_some((m.start(), m.end() - 1))
    });
    calls.collect()
}

/// Whether `b` can be part of a Rust or C name.
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Where a shell's `Command` made by the expression at `start..=close`
/// (`Command::new("sh")`, or a helper's call) is handed a built argument
/// or a pipe: on its own chain, or on the name it is bound to in its
/// block.
fn shell_runs_built(data: &[u8], text: &[u8], start: usize, close: usize) -> Option<usize> {
    let at = chain_runs_built(data, text, close + 1);
    let bound =
        bound_name(text, start).and_then(|name| uses_run_built(data, text, close + 1, name));
    at.into_iter().chain(bound).min()
}

/// The functions of this file that return a `Command` (`-> Command`, `->
/// io::Result<Command>`) and make a shell's in their body (one of
/// `shell_starts`): their names. More such functions than
/// [`MAX_SHELLS`] (each body is read up to 256 KB, and bodies can nest)
/// is an `Err` at the one past it: the caller counts it.
fn shell_helpers<'t>(text: &'t [u8], shell_starts: &[usize]) -> Result<Vec<&'t [u8]>, usize> {
    static FN: OnceLock<Regex> = OnceLock::new();
    let header = FN.get_or_init(|| {
        super::unread::build(
            r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?:<[^>{;]*>)?\s*\(",
            false,
        )
    });
    let mut out = Vec::new();
    let mut returning = 0usize;
    for c in header.captures_iter(text) {
        let whole = c.get(0).expect("the match");
        let Some(params) = closing(text, whole.end() - 1) else {
            continue;
        };
        let rest = &text[params + 1..];
        let Some(body) = memchr::memchr2(b'{', b';', rest).filter(|&b| rest[b] == b'{') else {
            continue;
        };
        let returns = &rest[..body];
        let command = memchr::memmem::find_iter(returns, b"Command").any(|i| {
            !returns[..i].last().is_some_and(|&b| is_name_byte(b))
                && !returns.get(i + 7).is_some_and(|&b| is_name_byte(b))
        });
        if !command || !returns.trim_ascii_start().starts_with(b"->") {
            continue;
        }
        let open = params + 1 + body;
        returning += 1;
        if returning > MAX_SHELLS {
            return Err(open);
        }
        // Read as far as [`uses_run_built`] reads a block.
        let end = block_end(text, open + 1).unwrap_or(text.len().min(open + 256 * 1024));
        let lo = shell_starts.partition_point(|&s| s < open);
        if shell_starts.get(lo).is_some_and(|&s| s < end) {
            let name = c.get(1).expect("the name");
            out.push(&text[name.start()..name.end()]);
        }
    }
    Ok(out)
}

/// POSIX's program runners: what C calls ([`c_runs_built_command`], with
/// Windows' own), and what libc and nix's `unistd` give Rust
/// ([`rust_runs_built_command`], counted however they are called).
const RUNNERS: &[&str] = &[
    "system",
    "popen",
    "execl",
    "execlp",
    "execle",
    "execv",
    "execvp",
    "execvpe",
    "execve",
    "fexecve",
    "posix_spawn",
    "posix_spawnp",
];

/// Where a program runner imported from libc or nix (`use
/// libc::system;`, `use libc::{popen, system as run};`, `use libc::*;`,
/// matched by `import`) is called by its local name: the offset of the
/// call's `(`. A definition (`fn system(`) or a method (`x.system(`) is
/// no call.
fn imported_runner_call(text: &[u8], import: &Regex) -> Option<usize> {
    let mut local: Vec<String> = Vec::new();
    for c in import.captures_iter(text) {
        let what = String::from_utf8_lossy(&c[1]);
        let what = what.trim_matches(|c| c == '{' || c == '}');
        for item in what.split(',') {
            let words: Vec<&str> = item.split_whitespace().collect();
            // Only names: what else the braces hold (a hostile file's
            // `{system as s;;(}`) is no import, and no pattern.
            if !words
                .iter()
                .all(|w| *w == "*" || super::unread::is_identifier(w))
            {
                continue;
            }
            match words.as_slice() {
                ["*"] => local.extend(RUNNERS.iter().map(|r| r.to_string())),
                [name] if RUNNERS.contains(name) => local.push(name.to_string()),
                [name, "as", alias] if RUNNERS.contains(name) => local.push(alias.to_string()),
                _ => {}
            }
        }
    }
    if local.is_empty() {
        return None;
    }
    // A method of another type (`x.system(`, `T::system(`) is no call.
    name_calls(text, &local)
        .into_iter()
        .find(|&(start, _)| {
            !text[..start]
                .trim_ascii_end()
                .last()
                .is_some_and(|b| b".:".contains(b))
        })
        .map(|(_, open)| open)
}

/// The bare identifier `text[from..to]` is (`&` allowed), or `None`.
fn bare_name(text: &[u8], from: usize, to: usize) -> Option<&[u8]> {
    let (from, to) = unborrowed(text, from, to);
    let name = &text[from..to];
    std::str::from_utf8(name)
        .is_ok_and(super::unread::is_identifier)
        .then_some(name)
}

/// The literals this file binds names to (`let sh = "sh";`, `const SH:
/// &str = "/bin/sh";`, `static`), the first binding of each name, found
/// in one pass: a program named by a bare identifier ([`bare_name`]) is
/// looked up there. One step only: a name bound to another name, or to a
/// call's result, is not followed.
fn literal_bindings<'t>(data: &[u8], text: &'t [u8]) -> HashMap<&'t [u8], String> {
    static BIND: OnceLock<Regex> = OnceLock::new();
    let bind = BIND.get_or_init(|| {
        super::unread::build(
            r"\b(?:let\s+(?:mut\s+)?|const\s+|static\s+)([A-Za-z_][A-Za-z0-9_]*)\s*(?::[^=;]*)?=([^;]*);",
            false,
        )
    });
    let mut out = HashMap::new();
    for c in bind.captures_iter(text) {
        let (name, value) = (c.get(1).expect("group 1"), c.get(2).expect("group 2"));
        if let Some(literal) = literal_string(data, text, value.start(), value.end()) {
            out.entry(&text[name.start()..name.end()])
                .or_insert(literal);
        }
    }
    out
}

/// How many shells and interpreters one Rust source may start before it
/// counts for that alone (uv's sources start a handful each).
const MAX_SHELLS: usize = 1000;

/// Whether a program named by `program` (a literal's text) runs code it is
/// handed: a shell, a scripting language's interpreter, or `env`, which
/// runs the program its arguments name. By the name after the last `/` or
/// `\`, lowercased, without `.exe`.
fn runs_code(program: &str) -> bool {
    let name = program
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(program)
        .to_ascii_lowercase();
    let name = name.strip_suffix(".exe").unwrap_or(&name);
    let python = name
        .strip_prefix("python")
        .or_else(|| name.strip_prefix("pypy"))
        .is_some_and(|v| {
            v.is_empty() || v == "w" || v.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        });
    python
        || matches!(
            name,
            "sh" | "bash"
                | "zsh"
                | "dash"
                | "ksh"
                | "mksh"
                | "ash"
                | "fish"
                | "csh"
                | "tcsh"
                | "busybox"
                | "cmd"
                | "powershell"
                | "pwsh"
                | "py"
                | "perl"
                | "ruby"
                | "node"
                | "nodejs"
                | "deno"
                | "bun"
                | "php"
                | "lua"
                | "tclsh"
                | "osascript"
                | "wscript"
                | "cscript"
                | "mshta"
                | "env"
        )
}

/// The name a `Command::new` at `at` is bound to (`let mut c =
/// Command::new(…)`, `c = Command::new(…)`), read back from `at` to the
/// statement's start.
fn bound_name(text: &[u8], at: usize) -> Option<&[u8]> {
    let from = text[..at]
        .iter()
        .rposition(|b| b";{}".contains(b))
        .map_or(0, |i| i + 1);
    static BIND: OnceLock<Regex> = OnceLock::new();
    let bind = BIND.get_or_init(|| {
        super::unread::build(
            r"^\s*(?:let\s+(?:mut\s+)?)?([A-Za-z_][A-Za-z0-9_]*)\s*(?::[^=;]*)?=\s*(?:(?:std\s*::\s*)?process\s*::\s*|tokio\s*::\s*process\s*::\s*)?(?:[A-Za-z_][A-Za-z0-9_]*\s*::\s*)?$",
            false,
        )
    });
    // The pattern ends at the type's `::`: what precedes `new(` is
    // `Command::` or an alias's name and `::`.
    let head = &text[from..at];
    bind.captures(head).map(|c| {
        let g = c.get(1).expect("the pattern's group");
        &head[g.start()..g.end()]
    })
}

/// Where, after `from` and in the block it lies in, a use of `name` as a
/// receiver (`name.arg(…)`) hands its command a built argument or a pipe
/// ([`chain_runs_built`]).
fn uses_run_built(data: &[u8], text: &[u8], from: usize, name: &[u8]) -> Option<usize> {
    // A block longer than this is read that far.
    let end = block_end(text, from).unwrap_or(text.len().min(from + 256 * 1024));
    memchr::memmem::find_iter(&text[from..end], name)
        .map(|i| from + i)
        .filter(|&i| {
            !text[..i]
                .last()
                .is_some_and(|&b| is_name_byte(b) || b == b'.')
        })
        .filter(|&i| !text.get(i + name.len()).is_some_and(|&b| is_name_byte(b)))
        .find_map(|i| chain_runs_built(data, text, i + name.len()))
}

/// The offset of the `}` that closes the block `from` lies in, read up
/// to 256 KB; `None` past that.
fn block_end(text: &[u8], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    let end = text.len().min(from + 256 * 1024);
    for (i, b) in text[from..end].iter().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' if depth == 0 => return Some(from + i),
            b'}' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Where the method chain that starts at `at` (`.arg(…).args(…)?.stdin(…)`)
/// hands a command an argument that is not a literal ([`literal_args`]) or
/// pipes its standard input: the offset of that call's `(`, or `None`.
fn chain_runs_built(data: &[u8], text: &[u8], mut at: usize) -> Option<usize> {
    let skip = |mut i: usize| {
        while text.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
            i += 1;
        }
        i
    };
    loop {
        at = skip(at);
        match text.get(at) {
            Some(b'?') => at += 1,
            Some(b'.') => {
                let start = skip(at + 1);
                let end = start
                    + text[start..]
                        .iter()
                        .take_while(|&&b| is_name_byte(b))
                        .count();
                let method = &text[start..end];
                let open = skip(end);
                if method == b"await" {
                    at = end;
                    continue;
                }
                if text.get(open) != Some(&b'(') {
                    return None;
                }
                // Unclosed within reach: fail closed, whatever the method.
                let Some(close) = closing(text, open) else {
                    return Some(open);
                };
                let inner = &text[open + 1..close];
                let built = match method {
                    b"arg" | b"args" => !literal_args(data, text, open + 1, close),
                    b"stdin" => memchr::memmem::find(inner, b"piped").is_some(),
                    _ => false,
                };
                if built {
                    return Some(open);
                }
                at = close + 1;
            }
            _ => return None,
        }
    }
}

/// The offset of the bracket that closes the one at `open` in `text`
/// (blanked, [`rust_blanked`]), or `None` within 16 KB (no call's
/// arguments run so long; the callers count what they cannot close).
fn closing(text: &[u8], open: usize) -> Option<usize> {
    if !matches!(text.get(open), Some(b'(' | b'[' | b'{')) {
        return None;
    }
    let mut depth = 0usize;
    for (i, b) in text[open..].iter().enumerate().take(16 * 1024) {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether `text[from..to]` (the arguments of `.arg(…)` or `.args(…)`) is
/// only literals: a string literal, raw or not, borrowed or not; an array,
/// slice or `vec!` of them; `env!` and `concat!` of literals (compile-time
/// text); `OsStr::new` or `Path::new` of one.
fn literal_args(data: &[u8], text: &[u8], from: usize, to: usize) -> bool {
    let (from, to) = unborrowed(text, from, to);
    let rest = &text[from..to];
    let list = if rest.starts_with(b"[") {
        Some(from + 1)
    } else if rest.starts_with(b"vec!") {
        let open = from
            + 4
            + rest[4..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
        (text.get(open) == Some(&b'[')).then_some(open + 1)
    } else {
        None
    };
    match list {
        Some(start) => {
            let Some(close) = closing(text, start - 1) else {
                return false;
            };
            trim(text, close + 1, to).0 == to
                && split_top(text, start, close)
                    .into_iter()
                    .all(|(a, b)| a == b || literal_item(data, text, a, b))
        }
        None => literal_item(data, text, from, to),
    }
}

/// One literal of [`literal_args`].
fn literal_item(data: &[u8], text: &[u8], from: usize, to: usize) -> bool {
    let (from, to) = unborrowed(text, from, to);
    if from >= to {
        return false;
    }
    if literal_string(data, text, from, to).is_some() {
        return true;
    }
    let rest = &text[from..to];
    for wrapper in [
        &b"env!"[..],
        b"concat!",
        b"OsStr::new",
        b"std::ffi::OsStr::new",
        b"Path::new",
        b"std::path::Path::new",
    ] {
        if let Some(after) = rest.strip_prefix(wrapper) {
            let open =
                to - after.len() + after.iter().take_while(|b| b.is_ascii_whitespace()).count();
            if !matches!(text.get(open), Some(b'(')) {
                return false;
            }
            let Some(close) = closing(text, open) else {
                return false;
            };
            return trim(text, close + 1, to).0 == to
                && split_top(text, open + 1, close)
                    .into_iter()
                    .all(|(a, b)| a == b || literal_item(data, text, a, b));
        }
    }
    false
}

/// The contents of the one string literal `text[from..to]` spans
/// (trimmed; `"…"`, `r"…"`, `r#"…"#`, with `b` or `c` before), read from
/// `data`, or `None` if it is anything else.
fn literal_string(data: &[u8], text: &[u8], from: usize, to: usize) -> Option<String> {
    let (from, to) = trim(text, from, to);
    let t = &text[from..to];
    let t = t
        .strip_prefix(b"b")
        .or_else(|| t.strip_prefix(b"c"))
        .unwrap_or(t);
    let t = t.strip_prefix(b"r").unwrap_or(t);
    let hashes = t.iter().take_while(|b| **b == b'#').count();
    let body = &t[hashes..];
    let start = to - body.len();
    // Blanked, a literal's text holds no quote: the next one closes it.
    if body.first() != Some(&b'"') {
        return None;
    }
    let end = memchr::memchr(b'"', &body[1..])? + 1;
    if body[end + 1..].iter().any(|b| *b != b'#') || body.len() - end - 1 != hashes {
        return None;
    }
    Some(String::from_utf8_lossy(&data[start + 1..start + end]).into_owned())
}

/// [`trim`], then past the `&`s that borrow the value.
fn unborrowed(text: &[u8], from: usize, to: usize) -> (usize, usize) {
    let (mut from, to) = trim(text, from, to);
    while from < to && text[from] == b'&' {
        from += 1;
    }
    (from, to)
}

/// `from..to` without the whitespace at either end.
fn trim(text: &[u8], mut from: usize, mut to: usize) -> (usize, usize) {
    while from < to && text[from].is_ascii_whitespace() {
        from += 1;
    }
    while to > from && text[to - 1].is_ascii_whitespace() {
        to -= 1;
    }
    (from, to)
}

/// The comma-separated items of `text[from..to]` at its own bracket
/// depth, as ranges (an empty last one after a trailing comma included).
fn split_top(text: &[u8], from: usize, to: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, from);
    for i in from..to {
        match text[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => {
                out.push(trim(text, start, i));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(trim(text, start, to));
    out
}

/// A copy of a Rust source with its comments blanked and the text of its
/// string and character literals blanked (delimiters kept, newlines kept,
/// so offsets and lines stay): a call in a comment or a string is none,
/// and a literal's quote or bracket is no delimiter. Block comments nest;
/// raw strings (`r#"…"#`) hold quotes; `'a` is a lifetime or a label, not
/// a character literal (`'l: loop { … }` hides nothing).
fn rust_blanked(data: &[u8]) -> Vec<u8> {
    let mut out = data.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for b in &mut out[from..to.min(data.len())] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let ident = is_name_byte;
    let mut i = 0;
    while i < data.len() {
        match data[i] {
            b'/' if data.get(i + 1) == Some(&b'/') => {
                let end = memchr::memchr(b'\n', &data[i..]).map_or(data.len(), |e| i + e);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if data.get(i + 1) == Some(&b'*') => {
                let (mut j, mut depth) = (i + 2, 1usize);
                while j < data.len() && depth > 0 {
                    match (data[j], data.get(j + 1)) {
                        (b'/', Some(b'*')) => {
                            depth += 1;
                            j += 2;
                        }
                        (b'*', Some(b'/')) => {
                            depth -= 1;
                            j += 2;
                        }
                        _ => j += 1,
                    }
                }
                blank(&mut out, i, j);
                i = j;
            }
            b'r' if (i == 0
                || !ident(data[i - 1])
                || matches!(data[i - 1], b'b' | b'c') && (i < 2 || !ident(data[i - 2])))
                && matches!(data.get(i + 1), Some(b'"' | b'#')) =>
            {
                let hashes = data[i + 1..].iter().take_while(|b| **b == b'#').count();
                let open = i + 1 + hashes;
                if data.get(open) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let mut close = vec![b'"'];
                close.resize(1 + hashes, b'#');
                let end = memchr::memmem::find(&data[open + 1..], &close)
                    .map_or(data.len(), |e| open + 1 + e);
                blank(&mut out, open + 1, end);
                i = end + close.len();
            }
            b'"' => {
                let mut j = i + 1;
                while j < data.len() && data[j] != b'"' {
                    j += if data[j] == b'\\' { 2 } else { 1 };
                }
                blank(&mut out, i + 1, j);
                i = j + 1;
            }
            b'\'' => {
                // A character literal: an escape, or one character, then
                // its quote. Anything else is a lifetime or a label.
                let end = if data.get(i + 1) == Some(&b'\\') {
                    memchr::memchr(
                        b'\'',
                        &data[(i + 3).min(data.len())..(i + 14).min(data.len())],
                    )
                    .map(|e| i + 3 + e)
                } else {
                    let rest = &data[i + 1..(i + 6).min(data.len())];
                    let len = match rest.first() {
                        Some(b) if *b < 0x80 => 1,
                        Some(b) if *b >= 0xF0 => 4,
                        Some(b) if *b >= 0xE0 => 3,
                        Some(_) => 2,
                        None => 0,
                    };
                    (len > 0 && data.get(i + 1 + len) == Some(&b'\'')).then_some(i + 1 + len)
                };
                match end {
                    Some(end) => {
                        blank(&mut out, i + 1, end);
                        i = end + 1;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A compiled source handing a program runner a command or arguments
    /// it builds counts (session 46: a `system` of an XOR-decoded buffer
    /// in a C extension's constructor ran at import); literal commands,
    /// member calls, comments, strings and declarations do not.
    #[test]
    fn a_native_source_running_a_built_command_counts() {
        let c = |path: &str, code: &str| runs_built_command(&Code::new(path, code.as_bytes()));
        for (path, code, line) in [
            ("src/x/_speedups.h", "#include <stdlib.h>\nstatic void f(void) {\n  system(b);\n}\n", 3),
            ("src/x/ext.c", "if (fork() == 0) execl(\"/bin/sh\", \"sh\", \"-c\", cmd, (char *)0);\n", 1),
            ("src/x/ext.cc", "std::system(cmd.c_str());\n", 1),
            ("src/x/ext.cpp", "FILE *p = popen(buf, \"r\");\n", 1),
            ("src/x/ext.c", "execve(\"/bin/sh\", (char *[]){\"sh\", 0}, 0);\n", 1),
            ("src/x/win.c", "CreateProcessW(NULL, line, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi);\n", 1),
            ("src/x/win.c", "ShellExecuteA(NULL, \"open\", url, NULL, NULL, SW_HIDE);\n", 1),
            ("src/x/m.pyx", "from libc.stdlib cimport system\nsystem(cmd)\n", 2),
            ("src/x/m.pyx", "def f():\n    \"\"\"Runs\n    a system (x) call.\"\"\"\n    # system(y)\n    s = '#'\n    system(cmd)\n", 6),
            ("src/x/ext.c", "/* system(a) */ int x;\n// popen(b)\nposix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);\n", 3),
        ] {
            assert_eq!(c(path, code), Some(line), "{path}: {code}");
        }
        for (path, code) in [
            (
                "src/x/ext.c",
                "system(\"uname -a\");\nexecl(\"/bin/true\", \"true\", (char *)NULL);\n",
            ),
            (
                "src/x/ext.c",
                "execlp(\"ls\", \"ls\", \"-l\" \" -a\", NULL);\n",
            ),
            (
                "src/x/ext.c",
                "self->system(a); obj.popen(b); ns::execv(c);\n",
            ),
            (
                "src/x/lapack.c",
                "/* solve the system (A) using a factorization */\n",
            ),
            ("src/x/xslt.pxi", "    \"\"\"Keyword arguments:\n    - access_control: restrictions for network or file\n      system (see `XSLTAccessControl`)\n    \"\"\"\n"),
            ("src/x/ext.c", "printf(\"call system(x)\\n\");\n"),
            ("src/x/ext.c", "int my_system(const char *c);\n"),
            // Not a compiled source, or a document.
            ("src/x/notes.txt", "system(b);\n"),
        ] {
            assert_eq!(c(path, code), None, "{path}: {code}");
        }
    }

    /// A Rust source running a shell or an interpreter on an argument it
    /// builds, or on its piped standard input, counts, through the call's
    /// chain or the name it is bound to (session 47: maturin sdists whose
    /// `build.rs` or PyO3 init function ran an XOR-decoded command were
    /// allowed, and pip ran them); `libc::system` and its kin count.
    #[test]
    fn a_rust_source_running_a_built_command_counts() {
        let c = |path: &str, code: &str| runs_built_command(&Code::new(path, code.as_bytes()));
        for (path, code, line) in [
            ("build.rs", "fn main() {\n    let _ = Command::new(\"sh\").arg(\"-c\").arg(&s).status();\n}\n", 2),
            ("build.rs", "let mut c = Command::new(\"bash\");\nc.args([\"-c\", &s]);\nlet _ = c.status();\n", 2),
            ("build.rs", "let mut child = Command::new(\"python3\").stdin(Stdio::piped()).spawn()?;\n", 1),
            ("build.rs", "'l: loop { let _ = Command::new(\"/bin/sh\").args(&[\"-c\", s.as_str()]).status(); break 'l; }\n", 1),
            ("build.rs", "let _ = Command::new(\"/usr/bin/env\")\n    .arg(\"sh\")\n    .arg(\"-c\")\n    .arg(s)\n    .output();\n", 4),
            ("build.rs", "let c = CString::new(s).unwrap();\nunsafe { libc::system(c.as_ptr()); }\n", 2),
            ("src/lib.rs", "use std::process::{Command as Run, Stdio};\nRun::new(\"cmd.exe\").arg(\"/C\").arg(line).spawn();\n", 2),
            ("src/lib.rs", "std::process::Command::new(r#\"powershell\"#).arg(format!(\"-Command {x}\"));\n", 1),
            ("src/lib.rs", "// Command::new(\"sh\").arg(s)\nlet t = \"Command::new(\\\"sh\\\").arg(s)\";\nCommand::new(\"sh\").arg(s);\n", 3),
            ("src/lib.rs", "let mut cmd = Command::new(\"sh\");\ncmd.arg(\"-c\");\ncmd.arg(script);\n", 3),
            ("src/lib.rs", "let q = '\"'; Command::new(\"sh\").arg(q);\n", 1),
            ("src/lib.rs", "Command::new(\"Python3.11\").args(vec![\"-c\", code]).status();\n", 1),
            ("src/lib.rs", "nix::unistd::execv(&prog, &argv)?;\n", 1),
            ("build.rs", "fn main() {\n    use libc::system;\n    unsafe { system(c.as_ptr()); }\n}\n", 3),
            ("build.rs", "use libc::{c_char, popen as run};\nfn f() { let p = unsafe { run(cmd.as_ptr(), m) }; }\n", 2),
            ("build.rs", "use nix::unistd::*;\n\nexecvp(&p, &a);\n", 3),
            ("build.rs", "const SH: &str = \"/bin/sh\";\nfn main() {\n    let _ = Command::new(SH).args([\"-c\", &s]).status();\n}\n", 3),
            ("build.rs", "let sh = \"bash\";\nlet mut c = Command::new(&sh);\nc.arg(\"-c\").arg(&s);\n", 3),
            ("build.rs", "fn main() {\n    let _ = shell().arg(\"-c\").arg(&s).status();\n}\nfn shell() -> Command {\n    Command::new(\"sh\")\n}\n", 2),
            ("build.rs", "fn py<'a>(v: &'a str) -> std::io::Result<Command> {\n    let mut c = Command::new(\"python3\");\n    c.arg(\"-\");\n    Ok(c)\n}\nfn main() {\n    let mut p = py(\"3\")?;\n    p.stdin(Stdio::piped());\n}\n", 8),
        ] {
            assert_eq!(c(path, code), Some(line), "{path}: {code}");
        }
        for (path, code) in [
            ("build.rs", "Command::new(\"sh\").arg(\"-c\").arg(\"echo building\").status();\n"),
            // A program that is not a literal: vendored crates' build
            // scripts run `rustc` so; cryptography's runs its Python so.
            ("build.rs", "let output = Command::new(rustc).arg(\"--version\").output().ok()?;\n"),
            ("build.rs", "let out = Command::new(interpreter)\n    .arg(\"-c\")\n    .arg(script)\n    .output();\n"),
            ("build.rs", "let python = env::var(\"PYO3_PYTHON\").unwrap_or(\"python3\".into());\nCommand::new(&python).arg(\"-c\").arg(script);\n"),
            // Not a shell or an interpreter.
            ("build.rs", "Command::new(\"git\").args([\"rev-parse\", \"HEAD\"]).arg(&dir).output();\n"),
            ("benches/d.rs", "Command::new(\"python3\").arg(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/benches/prep.py\")).status();\n"),
            ("build.rs", "Command::new(\"sh\").args(&[\"-c\", \"true\",]).arg(OsStr::new(\"x\")).env(\"K\", v).current_dir(d);\n"),
            // Out of the binding's block, `c` is another.
            ("src/lib.rs", "fn a() {\n    let mut c = Command::new(\"sh\");\n    c.arg(\"-c\").arg(\"true\");\n}\nfn b(c: &mut Command) {\n    c.arg(x);\n}\n"),
            ("src/lib.rs", "/* Command::new(\"sh\").arg(s) */\nlet s = r#\"Command::new(\"sh\").arg(x)\"#;\n"),
            ("src/libc/unix.rs", "extern \"C\" {\n    pub fn system(command: *const c_char) -> c_int;\n}\n"),
            ("src/lib.rs", "use libc::{c_char, getpid};\nfn system(x: u8) {}\nsystem(1);\n"),
            // Not Rust, and no pattern: a fuzzed file whose braces held
            // this made the import's pattern fail to compile (a panic).
            ("build.rs", "use libc::{system as s;;(fn};\nfn main() { s(x); }\n"),
            ("src/lib.rs", "use libc::system;\nextern \"C\" { fn system(c: *const c_char) -> c_int; }\nlet n = os.system(2);\n"),
            ("docs/notes.txt", "Command::new(\"sh\").arg(s);\n"),
            // A helper that returns a shell's command, only ever given
            // literals; one that returns something else.
            ("build.rs", "fn shell() -> Command {\n    Command::new(\"sh\")\n}\nfn main() {\n    shell().arg(\"-c\").arg(\"true\");\n}\n"),
            ("build.rs", "fn run(s: &str) -> bool {\n    Command::new(\"sh\").arg(\"-c\").arg(\"true\").status().is_ok()\n}\nfn main() {\n    run(&s);\n}\n"),
        ] {
            assert_eq!(c(path, code), None, "{path}: {code}");
        }
    }

    /// What the Rust reader cannot close or bound counts: a program or a
    /// call padded past the reader's reach (here with a comment, blanked
    /// to spaces), and more shells in one file than any build starts.
    #[test]
    fn a_rust_source_the_reader_cannot_bound_counts() {
        let c = |code: &str| runs_built_command(&Code::new("build.rs", code.as_bytes()));
        let pad = format!("/*{}*/", " ".repeat(20 * 1024));
        assert_eq!(
            c(&format!("Command::new({pad}\"sh\").arg(\"-c\");\n")),
            Some(1)
        );
        assert_eq!(
            c(&format!(
                "Command::new(\"sh\")\n.env(\"K\", {pad})\n.arg(s);\n"
            )),
            Some(2)
        );
        // Closed in reach, the same calls are read: literal, no count.
        assert_eq!(
            c("Command::new(/* sh */ \"sh\")\n.env(\"K\", \"v\")\n.arg(\"-c\");\n"),
            None
        );
        // A helper's calls count against the same cap, and so do the
        // functions that return a `Command`.
        let helper = "fn sh() -> Command {\n    Command::new(\"sh\")\n}\n";
        let calls = "sh().arg(\"true\");\n".repeat(MAX_SHELLS - 1);
        assert_eq!(c(&format!("{helper}{calls}")), None);
        assert_eq!(
            c(&format!("{helper}{calls}sh().arg(\"true\");\n")),
            Some(MAX_SHELLS + 3)
        );
        let returning = "fn f() -> Command {\n    g()\n}\n".repeat(MAX_SHELLS);
        assert_eq!(c(&format!("{helper}{returning}")), Some(3 * MAX_SHELLS + 1));
        let many = "Command::new(\"sh\").arg(\"true\");\n".repeat(MAX_SHELLS);
        assert_eq!(c(&many), None);
        assert_eq!(
            c(&format!("{many}Command::new(\"sh\").arg(\"true\");\n")),
            Some(MAX_SHELLS + 1)
        );
    }
}
