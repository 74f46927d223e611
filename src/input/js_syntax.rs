//! Whether a file named as documentation or data could run as JavaScript.
//!
//! Node runs any file it is told to load as JavaScript, whatever its
//! extension but `.json` and `.node`: `require('./docs/notes.txt')` runs
//! the notes. When the code names the file in literals, the scan follows
//! the path ([`super::launched`]); a path the code computes
//! (`['docs', 'notes.txt'].join('/')`, a template, a loop over a folder)
//! is not followed, and the notes were read as prose: a stealer in them
//! was allowed (session 40). A document that Node could not compile runs
//! nothing however it is reached, and almost every real one is such a
//! document, so the question this module answers is the cheap one: could
//! these bytes compile at all?
//!
//! [`could_be_javascript`] reads tokens from the start and answers `false`
//! only at a construct that no JavaScript grammar Node uses accepts:
//! CommonJS (a script, with its HTML-like comments) or, as Node 22 retries
//! a file CommonJS refuses, a module. Where it cannot tell (a `/` that
//! may start a regular expression, a template's `${`, a decorator, a
//! character it does not know) it stops and answers `true`: an answer of
//! `false` must be a proof, an answer of `true` only costs a review.
//! Prose fails within a few words (`The MIT License`: two names side by
//! side), Markdown at its first `#`, a source map or JSON object at its
//! first key, CSS at its first `.class` or `@rule`.
//!
//! It never runs, parses beyond tokens, or allocates more than a stack of
//! open brackets.

/// Words that may stand next to a name or a literal on one line in some
/// JavaScript (`typeof x`, `x in y`, `import x from 'y' assert {…}`,
/// `get x() {}`, `await using x = …`): reserved words, contextual
/// keywords, and a few more whose meaning differs between grammars.
/// A word missing here could make a valid file read as invalid; an extra
/// word only makes fewer files provably invalid.
const KEYWORDS: &[&[u8]] = &[
    b"accessor",
    b"as",
    b"assert",
    b"async",
    b"await",
    b"break",
    b"case",
    b"catch",
    b"class",
    b"const",
    b"continue",
    b"debugger",
    b"default",
    b"defer",
    b"delete",
    b"do",
    b"else",
    b"enum",
    b"export",
    b"extends",
    b"false",
    b"finally",
    b"for",
    b"from",
    b"function",
    b"get",
    b"if",
    b"implements",
    b"import",
    b"in",
    b"instanceof",
    b"interface",
    b"let",
    b"meta",
    b"new",
    b"null",
    b"of",
    b"package",
    b"private",
    b"protected",
    b"public",
    b"return",
    b"set",
    b"source",
    b"static",
    b"super",
    b"switch",
    b"target",
    b"this",
    b"throw",
    b"true",
    b"try",
    b"typeof",
    b"using",
    b"var",
    b"void",
    b"while",
    b"with",
    b"yield",
];

/// The words of [`KEYWORDS`] after which a `/` may open a regular
/// expression (`return /x/.test(s)`, `for (m of /x/g.exec(s))`; after
/// `break`, `continue` or `debugger` a line break ends the statement, and
/// the next may start with one). After the others it divides (`this / 2`;
/// `static`, `get` or `let` used as a name) or is an error either way
/// (`var /`).
const REGEX_AFTER: &[&[u8]] = &[
    b"await",
    b"break",
    b"case",
    b"continue",
    b"debugger",
    b"default",
    b"delete",
    b"do",
    b"else",
    b"extends",
    b"in",
    b"instanceof",
    b"new",
    b"of",
    b"return",
    b"throw",
    b"typeof",
    b"void",
    b"yield",
];

/// Symbols that are neither part of a name nor white space in
/// JavaScript, so one outside a string or comment is a syntax error:
/// typographic marks prose and licences use (`©`, `—`, `“`, `…`, `•`)
/// and whole blocks of arrows, mathematical operators, box drawing,
/// shapes, dingbats and emoji (general categories Sm, So, No, Sk).
fn is_foreign_symbol(c: char) -> bool {
    matches!(
        c,
        '\u{a9}' | '\u{ae}' | '\u{ab}' | '\u{bb}' | '\u{2013}' | '\u{2014}' | '\u{2018}'
            | '\u{2019}' | '\u{201c}' | '\u{201d}' | '\u{2022}' | '\u{2026}' | '\u{2122}'
            | '\u{2190}'..='\u{22ff}'
            | '\u{2500}'..='\u{27bf}'
            | '\u{1f300}'..='\u{1faff}'
    )
}

/// JavaScript's white space beyond ASCII: no-break space, the byte-order
/// mark, and the space separators (Zs).
fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\u{a0}' | '\u{feff}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

fn is_line_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// The last token read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Last {
    /// Nothing yet.
    Nothing,
    /// A name that is not in [`KEYWORDS`], or a string or number literal:
    /// another such token right after it on one line is a syntax error.
    Operand,
    /// A word of [`KEYWORDS`]; `true` when it is one of [`REGEX_AFTER`].
    Keyword(bool),
    /// A punctuator, by its last byte.
    Punct(u8),
}

/// What reading a text under one grammar found.
#[derive(Debug, PartialEq, Eq)]
enum Reading {
    /// A syntax error: it cannot compile under that grammar.
    Cannot,
    /// No syntax error found; `acts` when it holds something that does
    /// something when run ([`holds_javascript`]), or may (beyond where
    /// reading stopped).
    Could { acts: bool },
}

/// Whether `data` could compile as JavaScript under CommonJS or as a
/// module (see the module's documentation): `false` is a proof that it
/// cannot, `true` that no proof was found.
pub fn could_be_javascript(data: &[u8]) -> bool {
    [false, true]
        .into_iter()
        .any(|module| Lexer::new(data, module).run() != Reading::Cannot)
}

struct Lexer<'a> {
    data: &'a [u8],
    i: usize,
    last: Last,
    /// The token before [`Self::last`], and whether no line break came
    /// between the two.
    before: Last,
    before_same_line: bool,
    /// [`Self::last`] is a string, number or template literal.
    literal: bool,
    /// [`Self::last`] is a name read right after a `.` (`a.b`).
    member: bool,
    /// A `?` or `case` was read: a `:` may close either.
    seen_choice: bool,
    /// [`Self::last`] is `from`, which a string may follow (`import x
    /// from 'y'`) but no name or number: as a name itself, it is one
    /// name next to another (Python's `from os import path`).
    after_from: bool,
    /// No line break since [`Self::last`]: two operands in a row are an
    /// error only on one line (a line break may end a statement).
    same_line: bool,
    /// No token yet on this line (where `-->` opens a comment).
    line_start: bool,
    /// Open brackets, innermost last.
    open: Vec<u8>,
    /// The first punctuator of the text, if it came first.
    first: Option<u8>,
    tokens: usize,
    /// After `class`, a `#` may be a private name.
    seen_class: bool,
    /// Read as a module: `<!--` and `-->` are operators, not comments.
    module: bool,
    /// A token that does something when run was read ([`holds_javascript`]).
    acts: bool,
}

/// Why reading stopped.
enum Stop {
    /// A syntax error: the text cannot compile.
    Invalid,
    /// A construct the lexer does not follow: no proof either way.
    Unknown,
}

impl<'a> Lexer<'a> {
    fn new(data: &'a [u8], module: bool) -> Lexer<'a> {
        Lexer {
            data,
            i: 0,
            last: Last::Nothing,
            before: Last::Nothing,
            before_same_line: false,
            literal: false,
            member: false,
            seen_choice: false,
            after_from: false,
            same_line: false,
            line_start: true,
            open: Vec::new(),
            first: None,
            tokens: 0,
            seen_class: false,
            module,
            acts: false,
        }
    }

    fn run(mut self) -> Reading {
        match self.read() {
            Ok(()) => Reading::Could { acts: self.acts },
            Err(Stop::Invalid) => Reading::Cannot,
            // What was not read may act.
            Err(Stop::Unknown) => Reading::Could {
                acts: self.acts || acts(&self.data[self.i..]),
            },
        }
    }

    fn rest(&self) -> &'a [u8] {
        &self.data[self.i..]
    }

    /// The character at the cursor and its length in bytes; `None` at the
    /// end or at bytes that are not UTF-8.
    fn char_here(&self) -> Option<(char, usize)> {
        let rest = self.rest();
        let len = match rest.first()? {
            b if *b < 0x80 => 1,
            b if *b >= 0xF0 => 4,
            b if *b >= 0xE0 => 3,
            _ => 2,
        };
        let s = std::str::from_utf8(rest.get(..len)?).ok()?;
        s.chars().next().map(|c| (c, len))
    }

    fn read(&mut self) -> Result<(), Stop> {
        if self.rest().starts_with(b"\xEF\xBB\xBF") {
            self.i += 3;
        }
        if self.rest().starts_with(b"#!") {
            self.skip_line();
        }
        while self.i < self.data.len() {
            let b = self.data[self.i];
            let rest = self.rest();
            match b {
                b'\n' | b'\r' => {
                    self.line_break();
                    self.i += 1;
                }
                b' ' | b'\t' | 0x0B | 0x0C => self.i += 1,
                _ if rest.starts_with(b"//") => self.skip_line(),
                // HTML-like comments are comments in a CommonJS script but
                // operators in a module (`a <!--b` is `a < !--b`), and Node
                // may read the file either way: each reading is tried.
                _ if !self.module && rest.starts_with(b"<!--") => self.skip_line(),
                _ if !self.module && self.line_start && rest.starts_with(b"-->") => {
                    self.skip_line()
                }
                _ if rest.starts_with(b"/*") => self.block_comment()?,
                b'\'' | b'"' => {
                    self.operand()?;
                    self.literal = true;
                    self.string(b)?;
                    self.json_key()?;
                }
                b'`' => self.template()?,
                _ if is_name_byte(b) && !b.is_ascii_digit() => self.name()?,
                b'0'..=b'9' => {
                    self.not_after_from()?;
                    self.operand()?;
                    self.literal = true;
                    self.number();
                }
                b'.' if rest.get(1).is_some_and(u8::is_ascii_digit) => {
                    self.not_after_from()?;
                    self.operand()?;
                    self.literal = true;
                    self.number();
                }
                b'#' if self.seen_class => return Err(Stop::Unknown),
                // Outside a class body, `#` starts nothing: Markdown's
                // headings fail here.
                b'#' => return Err(Stop::Invalid),
                b'@' => self.decorator()?,
                b'/' => {
                    // After an operand `/` divides; elsewhere it may open a
                    // regular expression, which this lexer does not follow.
                    // (`a\n/b/g` divides too: no line break ends a statement
                    // before `/`.)
                    let divides = matches!(
                        self.last,
                        Last::Operand | Last::Punct(b']') | Last::Keyword(false)
                    );
                    if divides {
                        self.punct(b'/');
                        self.i += 1;
                    } else {
                        return Err(Stop::Unknown);
                    }
                }
                b'.' => self.dot()?,
                b'\\' => return Err(Stop::Unknown),
                // Nothing starts with `<` (Node reads no JSX): HTML fails
                // at its first tag.
                b'<' if matches!(
                    self.last,
                    Last::Nothing | Last::Punct(b'(' | b'[' | b'{' | b',' | b';')
                ) =>
                {
                    return Err(Stop::Invalid)
                }
                // Operators that start nothing, at the start of the text or
                // right after an opening bracket, `,` or `;` (CSS's
                // `:root {`, `|` tables).
                b':' | b'%' | b'=' | b'>' | b'?' | b'|' | b'&' | b'^'
                    if matches!(
                        self.last,
                        Last::Nothing | Last::Punct(b'(' | b'[' | b'{' | b',' | b';')
                    ) =>
                {
                    return Err(Stop::Invalid)
                }
                b':' if self.colon_closes_nothing() => return Err(Stop::Invalid),
                // A name or literal then `{` on one line opens a class
                // body (`class A extends B {`) or nothing (CSS's `body {`).
                b'{' if self.last == Last::Operand && self.same_line && !self.seen_class => {
                    return Err(Stop::Invalid)
                }
                // An empty element is an array's alone (`[a, , b]`); in
                // parentheses, braces or at the top it is an error (a
                // wheel's `RECORD` ends `…/RECORD,,`).
                b',' if matches!(
                    self.last,
                    Last::Nothing | Last::Punct(b',' | b'(' | b'{' | b';')
                ) && self.open.last() != Some(&b'[') =>
                {
                    return Err(Stop::Invalid)
                }
                b'=' if self.assigns_or_updates() && !self.assignable() => {
                    return Err(Stop::Invalid)
                }
                b'(' | b'[' | b'{' => {
                    if self.tokens == 0 {
                        self.first = Some(b);
                    }
                    self.acts |= b == b'(';
                    self.open.push(b);
                    self.punct(b);
                    self.i += 1;
                }
                b')' | b']' | b'}' => {
                    let opener = match b {
                        b')' => b'(',
                        b']' => b'[',
                        _ => b'{',
                    };
                    if self.open.pop() != Some(opener) {
                        return Err(Stop::Invalid);
                    }
                    self.punct(b);
                    self.i += 1;
                }
                b';' | b',' | b'<' | b'>' | b'+' | b'-' | b'*' | b'%' | b'&' | b'|' | b'^'
                | b'!' | b'~' | b'?' | b':' | b'=' => {
                    self.acts |= self.assigns_or_updates();
                    self.seen_choice |= b == b'?';
                    self.punct(b);
                    self.i += 1;
                }
                // Control characters outside a string or comment.
                0x00..=0x7F => return Err(Stop::Invalid),
                _ => self.non_ascii()?,
            }
        }
        if self.open.is_empty() {
            Ok(())
        } else {
            Err(Stop::Invalid)
        }
    }

    /// Whether the punctuator byte at the cursor is an assignment's `=`
    /// (`=`, `+=`, `>>=`; not `==`, `<=`, `=>`) or starts `++` or `--`.
    fn assigns_or_updates(&self) -> bool {
        let at = |k: usize| self.data.get(k).copied();
        let b = self.data[self.i];
        let next = at(self.i + 1);
        match b {
            b'+' | b'-' => next == Some(b),
            b'=' => {
                let prev = self.i.checked_sub(1).and_then(at);
                let before = self.i.checked_sub(2).and_then(at);
                let compares = matches!(next, Some(b'=' | b'>'))
                    || matches!(prev, Some(b'=' | b'!'))
                    || (matches!(prev, Some(b'<' | b'>')) && before != prev);
                !compares
            }
            _ => false,
        }
    }

    fn line_break(&mut self) {
        self.same_line = false;
        self.line_start = true;
    }

    /// A token was read: `last` is what it was.
    /// Whether a `:` here closes no `?` or `case` and ends no label or
    /// key: one after `a.b`, or after a name an operator took on its line
    /// (`a - b:`), when the text so far has no `?` or `case` (an entry
    /// point's `module.path:function`, a wheel's `Root-Is-Purelib: true`).
    fn colon_closes_nothing(&self) -> bool {
        if self.last != Last::Operand || self.seen_choice {
            return false;
        }
        let bound = matches!(
            self.before,
            Last::Punct(
                b'-' | b'+'
                    | b'*'
                    | b'%'
                    | b'&'
                    | b'|'
                    | b'^'
                    | b'!'
                    | b'~'
                    | b'<'
                    | b'>'
                    | b'/'
                    | b'='
            )
        );
        self.member || (bound && self.before_same_line)
    }

    /// Whether what was read last may take an assignment's `=`: not a
    /// literal outside a class body (`"key" = 1`), nor a name that an operator binding tighter
    /// than `=` took on its line (TOML's `requires-python = …` is
    /// `requires - python = …`). A name after `++` or `--` on the line
    /// before is a new statement (`a--\nb = 1`).
    fn assignable(&self) -> bool {
        if self.last != Last::Operand {
            return true;
        }
        // In a class body a literal names a field (`'@@observable' = …`).
        if self.literal && !self.seen_class {
            return false;
        }
        let bound = matches!(
            self.before,
            Last::Punct(b'-' | b'+' | b'%' | b'&' | b'|' | b'^' | b'!' | b'~' | b'<' | b'/')
        );
        !(bound && self.before_same_line)
    }

    fn token(&mut self, last: Last) {
        self.before = self.last;
        self.before_same_line = self.same_line;
        self.last = last;
        self.literal = false;
        self.member = false;
        self.after_from = false;
        self.same_line = true;
        self.line_start = false;
        self.tokens += 1;
    }

    fn punct(&mut self, b: u8) {
        self.token(Last::Punct(b));
    }

    /// An operand is about to be read: refused right after another one on
    /// the same line (`The MIT`, `'a' 'b'`, `3 apples`).
    fn operand(&mut self) -> Result<(), Stop> {
        if self.last == Last::Operand && self.same_line {
            return Err(Stop::Invalid);
        }
        self.token(Last::Operand);
        Ok(())
    }

    /// A name or number is about to be read: refused right after `from`
    /// on its line ([`Self::after_from`]).
    fn not_after_from(&self) -> Result<(), Stop> {
        if self.after_from && self.same_line {
            return Err(Stop::Invalid);
        }
        Ok(())
    }

    /// After a string: a text that opens with `{` opens a block, where a
    /// string followed by `:` is an error. A JSON object (a source map, a
    /// `.babelrc` named `.txt`) fails here.
    fn json_key(&mut self) -> Result<(), Stop> {
        if self.first != Some(b'{') || self.tokens != 2 {
            return Ok(());
        }
        let after = self.rest().iter().find(|b| !b.is_ascii_whitespace());
        if after == Some(&b':') {
            return Err(Stop::Invalid);
        }
        Ok(())
    }

    /// Skips to the end of the line; a `//` comment ends at any line
    /// terminator, U+2028 and U+2029 included.
    fn skip_line(&mut self) {
        while self.i < self.data.len() {
            let rest = self.rest();
            if matches!(rest[0], b'\n' | b'\r')
                || rest.starts_with("\u{2028}".as_bytes())
                || rest.starts_with("\u{2029}".as_bytes())
            {
                return;
            }
            self.i += 1;
        }
    }

    fn block_comment(&mut self) -> Result<(), Stop> {
        let body = &self.data[self.i + 2..];
        let Some(end) = memchr::memmem::find(body, b"*/") else {
            return Err(Stop::Invalid);
        };
        let inside = &body[..end];
        // A comment that holds a line break counts as one.
        if inside.iter().any(|&b| b == b'\n' || b == b'\r')
            || memchr::memmem::find(inside, "\u{2028}".as_bytes()).is_some()
            || memchr::memmem::find(inside, "\u{2029}".as_bytes()).is_some()
        {
            self.line_break();
        }
        self.i += 2 + end + 2;
        Ok(())
    }

    /// A string literal opened by `quote`: it may not hold a raw line
    /// break (an apostrophe in prose opens one that never closes).
    fn string(&mut self, quote: u8) -> Result<(), Stop> {
        let mut j = self.i + 1;
        loop {
            match self.data.get(j) {
                None | Some(b'\n') | Some(b'\r') => return Err(Stop::Invalid),
                Some(b'\\') => {
                    j += if self.data[j + 1..].starts_with(b"\r\n") {
                        3
                    } else {
                        2
                    };
                }
                Some(&b) if b == quote => break,
                Some(_) => j += 1,
            }
        }
        self.i = j + 1;
        Ok(())
    }

    /// A template literal without substitutions, read as a string that
    /// may span lines; one with `${` is not followed. A template right
    /// after an operand is a tagged template, so it is not refused there.
    fn template(&mut self) -> Result<(), Stop> {
        let mut j = self.i + 1;
        loop {
            match self.data.get(j) {
                None => return Err(Stop::Invalid),
                Some(b'\\') => j += 2,
                Some(b'`') => break,
                Some(b'$') if self.data.get(j + 1) == Some(&b'{') => return Err(Stop::Unknown),
                Some(_) => j += 1,
            }
        }
        self.i = j + 1;
        // Whatever follows on the template's last line follows it.
        self.token(Last::Operand);
        self.literal = true;
        // A tagged template is a call.
        self.acts = true;
        Ok(())
    }

    fn name(&mut self) -> Result<(), Stop> {
        let start = self.i;
        let mut j = start;
        while j < self.data.len() && is_name_byte(self.data[j]) {
            j += 1;
        }
        // A name that goes on in letters beyond ASCII is read by
        // [`Self::non_ascii`]: its start is read here, the rest there,
        // without a token in between.
        let word = &self.data[start..j];
        self.i = j;
        if word == b"class" {
            self.seen_class = true;
        }
        self.acts |= matches!(word, b"new" | b"import" | b"export" | b"delete");
        self.seen_choice |= word == b"case";
        if KEYWORDS.contains(&word) {
            // Keywords may follow `from` (`import from from 'y'` binds
            // the name `from`).
            self.token(Last::Keyword(REGEX_AFTER.contains(&word)));
            self.after_from = word == b"from";
            Ok(())
        } else {
            self.not_after_from()?;
            let member = self.last == Last::Punct(b'.');
            self.operand()?;
            self.member = member;
            Ok(())
        }
    }

    /// A number, read loosely to its end (`0x1F`, `1e-3`, `1_000n`): a
    /// name character right after a number is an error that is not
    /// claimed here, only two operands in a row.
    fn number(&mut self) {
        let mut j = self.i + 1;
        while j < self.data.len() {
            let b = self.data[j];
            let exponent_sign = matches!(b, b'+' | b'-') && matches!(self.data[j - 1], b'e' | b'E');
            if is_name_byte(b) || b == b'.' || exponent_sign {
                j += 1;
            } else {
                break;
            }
        }
        self.i = j;
    }

    /// `...` spreads; `.` after an operand, a keyword (`this.x`,
    /// `import.meta`), a closing bracket or `?` (`a?.b`) reads a
    /// property, on the same line or the next (a chained call); any other
    /// `.` starts nothing (CSS's `.class`).
    fn dot(&mut self) -> Result<(), Stop> {
        if self.rest().starts_with(b"...") {
            self.punct(b'.');
            self.i += 3;
            return Ok(());
        }
        let follows = matches!(
            self.last,
            Last::Operand | Last::Keyword(_) | Last::Punct(b')' | b']' | b'}' | b'?')
        );
        if !follows {
            return Err(Stop::Invalid);
        }
        self.punct(b'.');
        self.i += 1;
        Ok(())
    }

    /// A decorator (`@name`, `@a.b(…)`) comes before `class`, `export`,
    /// another decorator or a class member, never right after an operand
    /// on its line; before any `class`, one followed on its line by
    /// something else is an error (CSS's `@media screen`, `@font-face`,
    /// `debug@2.6.9`).
    fn decorator(&mut self) -> Result<(), Stop> {
        let after_operand =
            self.last == Last::Operand || matches!(self.last, Last::Punct(b')' | b']'));
        if after_operand && self.same_line {
            return Err(Stop::Invalid);
        }
        if self.seen_class {
            return Err(Stop::Unknown);
        }
        let mut j = self.i + 1;
        while j < self.data.len() && (is_name_byte(self.data[j]) || self.data[j] == b'.') {
            j += 1;
        }
        if j == self.i + 1 {
            return Err(Stop::Unknown);
        }
        while j < self.data.len() && matches!(self.data[j], b' ' | b'\t') {
            j += 1;
        }
        // `@name(…)`: what follows the call counts (CSS's
        // `@media (…) {`); a call this scan cannot close on its line
        // proves nothing.
        if self.data.get(j) == Some(&b'(') {
            let mut depth = 0usize;
            loop {
                match self.data.get(j) {
                    Some(b'(') => depth += 1,
                    Some(b')') => {
                        depth -= 1;
                        if depth == 0 {
                            j += 1;
                            break;
                        }
                    }
                    Some(b'\'' | b'"' | b'`' | b'/' | b'\n' | b'\r') | None => {
                        return Err(Stop::Unknown)
                    }
                    Some(_) => {}
                }
                j += 1;
            }
            while j < self.data.len() && matches!(self.data[j], b' ' | b'\t') {
                j += 1;
            }
        }
        let next = &self.data[j..];
        let allowed = next.is_empty()
            || matches!(next[0], b'@' | b'\n' | b'\r')
            || next.starts_with(b"class")
            || next.starts_with(b"export")
            || next.starts_with(b"//")
            || next.starts_with(b"/*");
        if allowed {
            Err(Stop::Unknown)
        } else {
            Err(Stop::Invalid)
        }
    }

    /// A character beyond ASCII outside strings and comments: white
    /// space, a line break, part of a name (letters and digits of any
    /// script), a symbol that is none of these (an error), or one this
    /// lexer does not know.
    fn non_ascii(&mut self) -> Result<(), Stop> {
        // Node decodes a file as UTF-8 and puts U+FFFD for bytes that are
        // not, a symbol that no token holds (a `.pyc`, a PNG).
        let Some((c, len)) = self.char_here() else {
            return Err(Stop::Invalid);
        };
        if is_line_break(c) {
            self.line_break();
            self.i += len;
            return Ok(());
        }
        if is_js_space(c) {
            self.i += len;
            return Ok(());
        }
        if is_foreign_symbol(c) {
            return Err(Stop::Invalid);
        }
        if c.is_alphanumeric() {
            // A name, or the rest of one that began in ASCII: read it
            // whole, letters of any script and ASCII alike.
            let continues = self.last == Last::Operand
                && self.same_line
                && self.i > 0
                && (is_name_byte(self.data[self.i - 1]) || self.data[self.i - 1] >= 0x80);
            if !continues {
                self.operand()?;
            }
            self.i += len;
            while let Some((c, len)) = self.char_here() {
                if c.is_ascii() && !is_name_byte(c as u8) {
                    break;
                }
                if !c.is_ascii() && !c.is_alphanumeric() {
                    break;
                }
                self.i += len;
            }
            return Ok(());
        }
        Err(Stop::Unknown)
    }
}

/// Whether `data`, a file named as documentation or data at `path`, could
/// run as JavaScript and do something when it runs: it could compile
/// ([`could_be_javascript`]) and holds a call, a template, an assignment,
/// `new`, `import`, `export`, `delete` or an update (`++`, `--`). A text of
/// names, literals and operators alone (a CSV of numbers) does nothing
/// when run. TypeScript by name (`.mts`, `.cts`, `.ts`) is left out: Node
/// strips its types, so the tokens of a valid file are not JavaScript's,
/// and such a file is code, not a document.
pub fn holds_javascript(path: &str, data: &[u8]) -> bool {
    let lower = path.to_ascii_lowercase();
    if [".ts", ".mts", ".cts"].iter().any(|e| lower.ends_with(e)) {
        return false;
    }
    [false, true]
        .into_iter()
        .any(|module| Lexer::new(data, module).run() == Reading::Could { acts: true })
}

/// Whether text the lexer did not read may do something when run (see
/// [`holds_javascript`]); read over the raw bytes, so a comment or string
/// that holds one counts too, which only errs towards counting.
fn acts(data: &[u8]) -> bool {
    use std::sync::OnceLock;
    static ACTS: OnceLock<regex::bytes::Regex> = OnceLock::new();
    let re = ACTS.get_or_init(|| {
        regex::bytes::Regex::new(
            r"[(`]|\+\+|--|\b(?:new|import|export|delete)\b|(?:^|[^=!<>])=(?:[^=>]|$)",
        )
        .expect("static pattern")
    });
    re.is_match(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_markdown_json_css_and_html_cannot_compile() {
        let cases: &[&str] = &[
            "The MIT License (MIT)\n\nCopyright (c) 2014 Jon Schlinkert\n",
            "# is-number [![NPM version](https://img.shields.io/npm/v/is-number.svg)]\n",
            "Don't use this in production\n",
            "Copyright \u{a9} 2020 Someone\n",
            "\u{1f525} fast\n",
            "{\"version\":3,\"file\":\"index.js\",\"mappings\":\"AAAA\"}",
            "{ \"name\": \"x\" }\n",
            "{\n  \"presets\": [\"env\"]\n}\n",
            ".btn { color: red; }\n",
            "@font-face { font-family: x; }\n",
            "@media screen { a { b: c } }\n",
            "  * deps: debug@2.6.9\n",
            "<!DOCTYPE html>\n<html><body>hi</body></html>\n",
            "<html>\n  <head>\n  <script>(function(){ run() })()</script>\n",
            "<!--\n  -- This file is auto-generated.\n  -->\n# Mime\n",
            "<!-- BEGIN BLOCK -->\n\n## Security\n",
            "1.4.7 / 2024-10-08\n==================\n\n  * deps: cookie@0.7.2\n",
            "`fs-extra` adds file system methods\n",
            "f(a))\n",
            "f(a\n",
            "/* never closed\n",
            "'a' 'b'\n",
            "x = 3 apples\n",
            "a = 1\n\u{0}\n",
            "/* theme */\n:root { --x: 1 }\n",
            "body {\n  margin: 0;\n}\n",
            "@media (prefers-color-scheme: dark) {\n  a { b: c }\n}\n",
            "[console_scripts]\ndjango-admin = django.core.management:execute_from_command_line\n",
            "version = 1\nrequires-python = \">=3.9\"\n",
            "\"key\" = 1\n",
            "| a | b |\n",
            "a/b.py,sha256=x,12\na/RECORD,,\n",
            "Wheel-Version: 1.0\nRoot-Is-Purelib: true\n",
            "f(a, , b)\n",
            "from django.utils.translation import gettext as _\n",
            "English | [\u{7b80}\u{4f53}\u{4e2d}\u{6587}](./docs/zh-CN/README.zh-CN.md)\n",
        ];
        for text in cases {
            assert!(!could_be_javascript(text.as_bytes()), "{text:?}");
        }
        // Bytes that are not UTF-8 decode to U+FFFD (a `.pyc`), except in
        // a string or comment.
        assert!(!could_be_javascript(b"\xcb\x0d\x0d\x0a\x00\x00"));
        assert!(could_be_javascript(b"x = '\xcb'\n// \xff\n"));
    }

    #[test]
    fn javascript_and_what_cannot_be_told_could_compile() {
        let cases: &[&str] = &[
            "const cp = require('child_process');\ncp.exec('x')\n",
            "#!/usr/bin/env node\nmain()\n",
            "\u{feff}module.exports = 1\n",
            // Names next to names only across lines (a line break ends a
            // statement) or through keywords.
            "a\nb\n",
            "if (typeof x === 'string') return void 0\n",
            "for (const k of Object.keys(o)) delete o[k]\n",
            "import x from 'y' assert { type: 'json' }\n",
            "import from from 'from'\nfrom = 1\n",
            "export { a as \"b-c\" } from './d'\n",
            "class A { static x = 1; get y() { return this.#z } #z = 2 }\n",
            "await using h = open()\n",
            "x = a?.b ?? [...c]\n",
            "x = [a, , b, [, c]]\n",
            "let s = `multi\nline ${x}`\n",
            "let s = `multi\nline` + tag`t`\n",
            "x = a / b / 2\n",
            "y = /re/g.test(z)\n",
            "<!-- a comment in a script -->\nrun()\n",
            "x = 1\n--> a comment in a script\nrun()\n",
            // As a module, `a < !--b`.
            "x = (a <!--b)\n",
            "x = 1 /* a\nb */ y = 2\n",
            "promise\n  .then(f)\n  .catch(g)\n",
            "x = this / 2 / static\n",
            "for (;;) { break\n/a b/.test(s) }\nfor (;;) { continue\n/a b/.test(s) }\n",
            "debugger\n/a b/.test(s)\n",
            "a--\nb = 1\n",
            "x = c ? a.b : d\n",
            "a--\nb: for (;;) break b\n",
            "x = { a, b: 1, ...c, d: e }\n",
            "switch (x) { case a.b: break }\n",
            "class A extends B {}\nclass C extends D.E { static { f() } }\n",
            "f = x => y = 1\n",
            "a.b = c[d] = e\n",
            "x = { a: 1, 'b': 2, [c]: 3 }\n",
            "@dec(1) class A {}\n",
            "@dec(1)\nexport class A {}\n",
            // A field named by a literal (inquirer's `observable.js`).
            "class O {\n  '@@observable' = () => this;\n  1 = 2\n}\n",
            "x = a\n/b/g.test(c)\n",
            "x\n@dec class A {}\n",
            "const \u{e9}t\u{e9} = 1\n",
            "caf\u{e9} = 1\n",
            "s = 'it\\'s'\n",
            "s = 'a\\\nb'\n",
            "n = 0x1F + 1e-3 + 1_000n + .5\n",
            "@dec\nclass A {}\n",
            "a\u{2028}b\n",
            "",
        ];
        for text in cases {
            assert!(could_be_javascript(text.as_bytes()), "{text:?}");
        }
    }

    /// Every JavaScript file of the fixture packages could compile (a
    /// claim of `false` on one is a lexer bug), and none of their
    /// documents holds JavaScript. By hand, the same held for all 24,433
    /// `.js`, `.cjs` and `.mjs` files of `training/npm-sample.lock` and
    /// 2,406 of the sdists and this machine's `node_modules`, but for 5
    /// that Node refuses too (`[%FRAMEWORKS%]` templates, django's
    /// gettext test input); docs/packages.md, session 41.
    #[test]
    fn the_fixture_packages_code_could_compile_and_their_documents_hold_none() {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/packages/benign");
        let limits = crate::config::Limits::default();
        let (mut scripts, mut documents) = (0, 0);
        for entry in std::fs::read_dir(root).unwrap() {
            let path = entry.unwrap().path();
            let (_, _, package) = crate::input::render::load_package(&path, &limits);
            for m in package.unwrap().members {
                let lower = m.path.to_ascii_lowercase();
                if [".js", ".cjs", ".mjs"].iter().any(|e| lower.ends_with(e)) {
                    scripts += 1;
                    assert!(
                        could_be_javascript(&m.data),
                        "{}: {}",
                        path.display(),
                        m.path
                    );
                } else if crate::input::render::is_inert(&m.path) {
                    documents += 1;
                    assert!(
                        !holds_javascript(&m.path, &m.data),
                        "{}: {}",
                        path.display(),
                        m.path
                    );
                }
            }
        }
        assert!(
            scripts >= 4 && documents >= 10,
            "{scripts} scripts, {documents} documents"
        );
    }

    #[test]
    fn a_document_holds_javascript_when_it_could_compile_and_acts() {
        let stealer = "const p = require('path');\nrequire('child_process').execSync(Buffer.from('6375726c', 'hex').toString())\n";
        assert!(holds_javascript("docs/notes.txt", stealer.as_bytes()));
        assert!(holds_javascript(
            "data/x.csv",
            b"process.env.NODE_OPTIONS = '--require ./y'\n"
        ));
        assert!(holds_javascript("LICENSE", b"new Function(atob('eA=='))\n"));
        assert!(holds_javascript("notes.txt", b"x = 1\ny >>= 2\n"));
        assert!(holds_javascript("notes.txt", b"x = tag`a`\n"));
        // What is not read may act.
        assert!(holds_javascript("notes.txt", b"x = /re/.exec(y)\n"));
        // Could compile, but only names, literals and operators.
        assert!(!holds_javascript("data/table.csv", b"1,2,3\n4,5,6\n"));
        assert!(!holds_javascript(
            "requirements.txt",
            b"requests >= 2\nidna <= 3\n"
        ));
        assert!(!holds_javascript("notes.txt", b"a == b\nf => 1\nx !== y\n"));
        // Comments alone (a licence as `//` lines) do nothing.
        assert!(!holds_javascript(
            "LICENSE",
            b"// Copyright (c) 2010\n// Permission (the Software) = x\n"
        ));
        // Cannot compile.
        assert!(!holds_javascript("README.md", b"# Title\n\nrun(x)\n"));
        // TypeScript by name is code, not a document.
        assert!(!holds_javascript("test/x.mts", stealer.as_bytes()));
    }
}
