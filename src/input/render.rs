//! Rendering a package (or the change between two versions) into the
//! unified-diff text the pre-check was trained on, following the corpus rules
//! in `../shared/data/packages/README.md`: a single common top-level folder is
//! stripped, VCS/OS junk and generated `*.egg-info/` are dropped, files are
//! ordered by install relevance, binary files become one line, text is
//! decoded lossily with CRLF turned to LF, and long lines are cut.
//!
//! Two caps of the corpus (16 KB per file section, 64 KB per sample) exist
//! because they sufficed for training; a scan must see everything, so
//! [`RenderMode::Scan`] renders every file in full and the pre-check slices
//! the whole text. [`RenderMode::Corpus`] applies the caps, to reproduce the
//! training text exactly (`canary render --corpus`).
//!
//! A scan must also never drop in silence what could run: the corpus drops
//! compiled Python as junk, a scan keeps it as a `Binary file` line and
//! marks the input opaque ([`Input::opaque_code`](super::Input::opaque_code)),
//! as it does for a link that gives a document a code file's name. Junk
//! that a build obeys is looked at before it is dropped: a shipped
//! repository's settings and hooks ([`super::repository`]) and a shipped
//! `.egg-info` folder's entry points.

use rayon::prelude::*;
use std::borrow::Cow;
use std::path::Path;

use super::archive::{
    is_binary, read_archive_with, read_dir, ArchiveError, ArchiveFormat, Member, MemberSink,
    Package,
};
use super::placement::Placement;
use super::versions::WheelFolders;
use super::{Input, InputKind, Text, NOT_A_FILE};
use crate::config::Limits;
use crate::util::sha256_hex;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenderMode {
    /// Every file in full (what a scan judges).
    Scan,
    /// The corpus caps: 16 KB per file section, 64 KB per sample.
    Corpus,
}

const LINE_CAP: usize = 2048;
const FILE_CAP: usize = 16 * 1024;
const SAMPLE_CAP: usize = 64 * 1024;

/// A folder's identity, which the cache and `[[allow]]` entries key on as
/// they key on an archive's sha256: every regular file's path and bytes,
/// every link's path and the path it leads to, and every note the reader
/// made (links, entries that are not regular files, nested archives). What
/// can change a decision must change this hash: a link named `run.js` to
/// a README makes a package inconclusive, and with regular files alone a
/// cached or allowlisted allow of the folder before the link was added
/// was served for it.
pub fn folder_sha256(p: &Package) -> String {
    let mut all = Vec::new();
    let mut field = |tag: u8, a: &[u8], b: &[u8]| {
        // Tagged and NUL-separated: paths hold no NUL (the reader refuses
        // control characters), so no two entries serialise alike.
        all.push(tag);
        all.extend_from_slice(a);
        all.push(0);
        all.extend_from_slice(b);
        all.push(0);
    };
    let mut members: Vec<&Member> = p.members.iter().collect();
    members.sort_by(|a, b| a.path.cmp(&b.path));
    for m in &members {
        field(b'f', m.path.as_bytes(), sha256_hex(&m.data).as_bytes());
    }
    let mut links: Vec<&(String, String)> = p.links.iter().collect();
    links.sort();
    for (link, to) in links {
        field(b'l', link.as_bytes(), to.as_bytes());
    }
    let mut notes: Vec<&String> = p.notes.iter().collect();
    notes.sort();
    for n in notes {
        field(b'n', n.as_bytes(), b"");
    }
    sha256_hex(&all)
}

/// Reads a package from a path: archive (by name, or by content) or directory.
/// Returns the raw bytes' hash and size with the package or the error.
pub fn load_package(path: &Path, limits: &Limits) -> (String, u64, Result<Package, ArchiveError>) {
    load_package_with(path, limits, None)
}

/// As [`load_package`]; with a sink, the members go to it (see
/// [`read_archive_with`]) and the package comes back with its notes only.
fn load_package_with(
    path: &Path,
    limits: &Limits,
    sink: Option<MemberSink<'_>>,
) -> (String, u64, Result<Package, ArchiveError>) {
    if path.is_dir() {
        let mut result = read_dir(path, limits);
        let (sha, size) = match &result {
            Ok(p) => (
                folder_sha256(p),
                p.members.iter().map(|m| m.data.len() as u64).sum(),
            ),
            Err(_) => (String::new(), 0),
        };
        // Hashed from the members, so they reach the sink only now.
        if let (Some(sink), Ok(p)) = (sink, &mut result) {
            p.members.drain(..).for_each(sink);
        }
        return (sha, size, result);
    }
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => {
            return (
                String::new(),
                0,
                Err(ArchiveError::Io(format!("{}: {e}", path.display()))),
            )
        }
    };
    // Opening a pipe waits for a writer, for ever if none comes; a device
    // has no end. Only a regular file has a size to check against the caps.
    if !meta.is_file() {
        return (
            String::new(),
            0,
            Err(ArchiveError::Io(format!(
                "{}: {NOT_A_FILE}",
                path.display()
            ))),
        );
    }
    if meta.len() > limits.max_input_bytes {
        return (
            String::new(),
            meta.len(),
            Err(ArchiveError::Limit {
                what: format!(
                    "archive is {} bytes, more than {}",
                    meta.len(),
                    limits.max_input_bytes
                ),
                key: "max-input-bytes",
                limit: limits.max_input_bytes,
            }),
        );
    }
    // Map rather than read: a large archive costs address space, not heap.
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => {
            return (
                String::new(),
                meta.len(),
                Err(ArchiveError::Io(format!("{}: {e}", path.display()))),
            )
        }
    };
    // SAFETY: the map is read-only and dropped before this function returns;
    // a concurrent writer could change what we read, which the sha256 records.
    let map = match unsafe { memmap2::Mmap::map(&file) } {
        Ok(m) => m,
        Err(e) => {
            return (
                String::new(),
                meta.len(),
                Err(ArchiveError::Io(format!("{}: {e}", path.display()))),
            )
        }
    };
    let bytes: &[u8] = &map;
    let (sniffed, named) = (ArchiveFormat::sniff(bytes), ArchiveFormat::from_path(path));
    let format = sniffed.or(named);
    // Read by content either way; but a name that lies about its content
    // (a "wheel" that is a tarball) is how a package slips past tools that
    // pick their reader by extension, so the report says so.
    let mismatch = match (named, sniffed) {
        (Some(n), Some(s)) if n != s => Some(format!(
            "named as a {} archive, but its bytes are a {} archive: read by its content",
            n.describe(),
            s.describe()
        )),
        (None, Some(s)) => Some(format!(
            "not named as a package archive, but its bytes are a {} archive: read by its content",
            s.describe()
        )),
        _ => None,
    };
    let read = |sink| match format {
        Some(f) => read_archive_with(bytes, f, limits, sink),
        None => Err(ArchiveError::Corrupt(
            "not a tar, gzip, bzip2 or zip archive".into(),
        )),
    };
    // The hash and the decompression each take one core for a large archive.
    let (sha, result) = if (bytes.len() as u64) < SMALL_ARCHIVE {
        (sha256_hex(bytes), read(sink))
    } else {
        rayon::join(|| sha256_hex(bytes), || read(sink))
    };
    let result = match (result, mismatch) {
        (Ok(mut p), Some(note)) => {
            p.notes.insert(0, note);
            Ok(p)
        }
        (Err(ArchiveError::Corrupt(e)), Some(note)) => {
            Err(ArchiveError::Corrupt(format!("{e} ({note})")))
        }
        (r, _) => r,
    };
    (sha, bytes.len() as u64, result)
}

/// Strips a single common top-level folder and drops junk and generated
/// files (compiled Python too, in corpus mode only: see [`is_compiled`]).
fn normalise(mut package: Package, mode: RenderMode) -> Package {
    normalise_paths(&mut package.members, |m| &mut m.path, mode);
    package
}

/// [`normalise`] over anything that carries a member path.
fn normalise_paths<T>(items: &mut Vec<T>, path: impl Fn(&mut T) -> &mut String, mode: RenderMode) {
    if let Some(prefix) = common_root(items.iter_mut().map(|m| &*path(m))) {
        for m in items.iter_mut() {
            let p = path(m);
            *p = p[prefix.len()..].to_string();
        }
    }
    items.retain_mut(|m| !is_dropped(path(m), mode));
}

/// The single top-level folder (with its `/`) that every path lies under,
/// which rendering strips; `None` when there is none (a wheel's package and
/// metadata folders side by side).
fn common_root<'a>(mut paths: impl Iterator<Item = &'a String>) -> Option<String> {
    let prefix = format!("{}/", paths.next()?.split_once('/')?.0);
    paths.all(|p| p.starts_with(&prefix)).then_some(prefix)
}

/// Whether rendering leaves a (root-stripped) path out: junk, and in corpus
/// mode compiled Python. A scan keeps code under a junk folder: Node
/// requires `./.git/x.js` or `./__MACOSX/lib/x.js` and Python imports
/// `__MACOSX.x` as readily as any module, and an installer unpacks them,
/// so a stealer there with a plain `require` beside it was allowed unread.
fn is_dropped(path: &str, mode: RenderMode) -> bool {
    let kept_as_code =
        mode == RenderMode::Scan && (rank(path) <= 6 || extension(&file_name(path).1) == "pth");
    (is_junk(path) && !kept_as_code) || (mode == RenderMode::Corpus && is_compiled(path))
}

fn is_junk(path: &str) -> bool {
    path.split('/').any(|part| {
        matches!(
            part,
            ".git" | ".hg" | ".svn" | "__MACOSX" | ".DS_Store" | "Thumbs.db"
        ) || part.ends_with(".egg-info")
    })
}

/// Compiled Python: the corpus leaves it out as junk, but Python runs a
/// `.pyc` with no source beside it, and a cached one in `__pycache__` in
/// place of a source whose recorded size and time it matches. A scan keeps
/// it (as a `Binary file` line) and says so (`compiled_note`).
pub fn is_compiled(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".pyc")
        || lower.ends_with(".pyo")
        || path.split('/').any(|part| part == "__pycache__")
}

/// The kind of native machine code `data` starts as, by its magic bytes:
/// an ELF object (Linux `.so`, `.node`, executables), a Mach-O one (thin
/// or fat; a Java class file shares the fat magic but not its small
/// architecture count), a PE image (Windows `.dll`, `.pyd`, `.exe`:
/// `MZ` and a `PE` signature where its header says), or a WebAssembly
/// module (`\0asm`, version 1), which Node and Python runtimes such as
/// wasmtime compile and run, its imports calling back into the package's
/// code, as opaque as a `.node` addon.
pub fn native_code(data: &[u8]) -> Option<&'static str> {
    let u32_at = |at: usize, big: bool| {
        let b: [u8; 4] = data.get(at..at + 4)?.try_into().ok()?;
        Some(if big {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        })
    };
    match data.get(..4)? {
        b"\x7fELF" => Some("ELF"),
        [0xfe, 0xed, 0xfa, 0xce | 0xcf] | [0xce | 0xcf, 0xfa, 0xed, 0xfe] => Some("Mach-O"),
        [0xca, 0xfe, 0xba, 0xbe] if u32_at(4, true)? < 45 => Some("Mach-O"),
        b"\0asm" => (u32_at(4, false)? == 1).then_some("WebAssembly"),
        [b'M', b'Z', ..] => {
            let at = u32_at(0x3c, false)? as usize;
            (data.get(at..at.checked_add(4)?)? == b"PE\0\0").then_some("PE")
        }
        _ => None,
    }
}

/// Whether a code file (`path` Python or JavaScript by name) holds a
/// WebAssembly module written into its text: the module's first bytes
/// (`\0asm`, version 1) as base64 (`AGFzbQEAAAA`), hex (`0061736d01000000`)
/// or escapes (`\x00asm`, `\0asm`, `\u0000asm`), as bundlers inline one and
/// pass it to `WebAssembly.Module`. What it does is in those bytes, which
/// no reader of the text decodes ([`native_code`]'s file, inlined).
pub fn inline_wasm(path: &str, data: &[u8]) -> bool {
    use std::sync::OnceLock;
    static FORMS: OnceLock<aho_corasick::AhoCorasick> = OnceLock::new();
    super::unread::is_script(path)
        && FORMS
            .get_or_init(|| {
                aho_corasick::AhoCorasick::new([
                    &b"AGFzbQEAAAA"[..],
                    b"0061736d01000000",
                    b"0061736D01000000",
                    b"\\x00asm\\x01",
                    b"\\0asm\\x01",
                    b"\\0asm\\u0001",
                    b"\\u0000asm\\u0001",
                    b"\\x00\\x61\\x73\\x6d",
                ])
                .expect("inline WebAssembly forms compile")
            })
            .is_match(data)
}

/// Whether `path` is a type stub (`.pyi`, `.d.ts`, `.d.mts`, `.d.cts`),
/// which only describes code: nothing runs it.
pub(super) fn is_type_stub(path: &str) -> bool {
    let lower = file_name(path).1;
    [".pyi", ".d.ts", ".d.mts", ".d.cts"]
        .iter()
        .any(|s| lower.ends_with(s))
}

/// Compiled Python that makes an input opaque: not in a test tree, which
/// [`is_inert`] counts as data when it is not Python source (a test
/// fixture's `__pycache__`, importlib_metadata's sample eggs), as the
/// `harmful-needs-code` rule does for every other file there.
fn is_opaque(path: &str) -> bool {
    is_compiled(path) && !is_inert(path)
}

/// Links that give documentation or data a code file's name: unpacking
/// makes the link a second name for the file, and under a name such as
/// `setup.py` or a module's it runs, yet the pre-check read it as
/// documentation or data and the veto, which reads code only, not at all.
fn linked_note(links: &[(String, String)]) -> Option<String> {
    let bad: Vec<String> = links
        .iter()
        .filter(|(link, to)| !is_inert(link) && is_inert(to))
        .map(|(link, to)| format!("{link} -> {to}"))
        .collect();
    files_note(&bad, |n, names| {
        format!(
        "links give {n} documentation or data file(s) the name of a code file, where they run, but they were read as documentation or data ({names}); review them and allowlist the artifact by sha256"
    )
    })
}

/// A note naming files (the first few, then a count), or `None` when there
/// are none: `say(count, names)` words it.
fn files_note<S: AsRef<str>>(
    shown: &[S],
    say: impl FnOnce(usize, &str) -> String,
) -> Option<String> {
    const SHOWN: usize = 5;
    if shown.is_empty() {
        return None;
    }
    Some(say(shown.len(), &crate::util::first_few(shown, SHOWN)))
}

/// Every reason an input's code is opaque, when it has any.
fn opaque(reasons: impl IntoIterator<Item = Option<String>>) -> Option<String> {
    let all: Vec<String> = reasons.into_iter().flatten().collect();
    (!all.is_empty()).then(|| all.join("; "))
}

/// The note that makes an input's code opaque when code files hold a line
/// cut (at the corpus's 2,048 characters) with a capability past the cut:
/// the text every reader gets stops before it.
///
/// Only files that run with the package count. Tests and documentation
/// count when its code opens them in their language
/// ([`opened_by`](super::unread::opened_by)): a doc build's
/// `searchindex.js` and `jquery.js` (lxml, mako, SQLAlchemy, whose
/// `setup.py` puts `src` on Python's import path) made packages opaque
/// whose installed code nobody had to take on trust, and whose other text
/// detectors could have judged.
fn cut_note<'a>(paths: impl Iterator<Item = &'a str>, hidden: &HiddenCode) -> Option<String> {
    // Files that run: code and scripts by name, `.pth`, and files without
    // an extension (`bin/` commands). Not source maps or other data, whose
    // long lines hold code-like words but never run, nor type stubs
    // (`.d.ts`, `.pyi`), which only describe code.
    let runs = |p: &&str| {
        let ext = extension(&file_name(p).1).to_string();
        (rank(p) <= 6 || ext == "pth" || ext.is_empty()) && !is_type_stub(p)
    };
    let openers = || hidden.openings.iter().map(|(o, _)| o.as_str());
    let counts =
        |p: &&str| !super::unread::tests_or_docs(p) || super::unread::opened_by(p, openers());
    let paths: Vec<&str> = paths.filter(runs).filter(counts).collect();
    files_note(&paths, |n, names| {
        format!(
        "{n} code file(s) hold a line longer than {LINE_CAP} characters with a capability (process, network, dynamic code, environment, install hook or encoded data) past that point, where the text the pre-check and the detectors read is cut ({names}); review those lines and allowlist the artifact by sha256"
    )
    })
}

/// The note that makes an input's compiled code opaque (see
/// [`Input::opaque_code`](super::Input::opaque_code)), naming the first few files.
fn compiled_note<'a>(paths: impl Iterator<Item = &'a str>) -> Option<String> {
    let paths: Vec<&str> = paths.collect();
    files_note(&paths, |n, names| {
        format!(
        "holds {n} compiled Python file(s) that no reader of its text can judge ({names}): Python runs a .pyc with no source beside it, and a cached one in place of its source; review the bytecode and allowlist the artifact by sha256, or remove the files"
    )
    })
}

/// The distribution pip installs the file at `path` as, when it installs
/// it as a wheel: by its name alone (`NAME-VERSION-….whl`; any case here,
/// where pip compares exactly: a block costs less than a miss). pip checks
/// the wheel's `.dist-info` against this name.
fn wheel_name(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    let stem = name.strip_suffix(".whl")?;
    let dist = stem.split('-').next().unwrap_or(stem);
    Some(dist.replace(['_', '.'], "-"))
}

/// The file name of a member path, and its lowercase form.
pub(super) fn file_name(path: &str) -> (&str, String) {
    let name = path.rsplit('/').next().unwrap_or(path);
    (name, name.to_ascii_lowercase())
}

/// The extension of a file name, without the dot ("" when there is none).
pub(super) fn extension(name: &str) -> &str {
    name.rsplit_once('.').map(|(_, e)| e).unwrap_or("")
}

/// Install relevance, lower first.
fn rank(path: &str) -> u8 {
    let (name, lower) = file_name(path);
    let ext = extension(&lower);
    let stem = lower.split('.').next().unwrap_or("");
    match name {
        "setup.py" => return 0,
        "setup.cfg" => return 1,
        "pyproject.toml" => return 2,
        "__init__.py" => return 3,
        "package.json" => return 4,
        _ => {}
    }
    let script_ext = matches!(ext, "sh" | "bash" | "ps1" | "bat" | "cmd" | "vbs");
    // `.mts` and `.cts` too: Node runs them (stripping their types since
    // Node 22.18, as JavaScript before), so a test tree's `notes.cts`
    // required by a computed path ran while read as a test's data
    // (session 41).
    let code_ext = matches!(
        ext,
        "py" | "pyw" | "js" | "cjs" | "mjs" | "ts" | "mts" | "cts" | "jsx" | "tsx"
    );
    let doc_names = [
        "pkg-info",
        "metadata",
        "record",
        "wheel",
        "readme",
        "license",
        "licence",
        "copying",
        "changelog",
        "changes",
        "history",
        "authors",
        "notice",
        "contributing",
    ];
    // A document's name on a file that runs (`metadata.py`, `history.py`,
    // `readme.js`) does not make it a document: read as one, it was neither
    // ranked as code nor read by the veto, and a stealer named so was
    // allowed where the same file as `build.py` was not.
    // A source a build compiles is code too: sharp's `src/metadata.cc`,
    // compiled into its addon, was read as a document (session 44).
    let runs = code_ext
        || script_ext
        || matches!(ext, "pyi" | "pth")
        || super::launched::is_compiled_source(&lower);
    // `stem` is the name up to its first dot: `readme.txt` and `LICENSE`
    // alike.
    if !runs && (doc_names.contains(&stem) || matches!(ext, "md" | "rst")) {
        return 8;
    }
    let install_name = [
        "install",
        "preinstall",
        "postinstall",
        "setup",
        "build",
        "configure",
    ]
    .contains(&stem);
    if script_ext || (install_name && matches!(ext, "js" | "cjs" | "mjs" | "py")) {
        return 5;
    }
    if code_ext {
        return 6;
    }
    7
}

/// Documentation and data: files that installing, importing or building a
/// package never runs (prose, licences, tables, fixtures, service JSON, source maps, and
/// whatever lies in a test tree that is not Python, JavaScript or a shell
/// script: lexer samples, parser error cases). Code, configuration, scripts,
/// binaries and anything unrecognised outside a test tree are not inert, so
/// the list can only err towards treating a file as code.
pub fn is_inert(path: &str) -> bool {
    match rank(path) {
        8 => return true,
        // Install-relevant files (package.json is JSON, and runs scripts) and code.
        0..=6 => return false,
        _ => {}
    }
    let (_, lower) = file_name(path);
    // Before the test tree: a build runs a test folder's build script as
    // it runs the root's (see `is_build_script`).
    if is_build_script(&lower) {
        return false;
    }
    if in_test_tree(path) {
        return true;
    }
    if is_jupyter_json_named(path, &lower) {
        return false;
    }
    matches!(
        extension(&lower),
        "txt"
            | "json"
            | "dat"
            | "csv"
            | "tsv"
            | "xml"
            | "html"
            | "htm"
            | "svg"
            | "css"
            | "output"
            | "po"
            | "pot"
            | "tex"
            | "bib"
            | "rtf"
            // Source maps: JSON that tools read and no runtime executes.
            | "map"
            // Lock files (uv.lock, poetry.lock, yarn.lock, Cargo.lock):
            // dependency lists a resolver reads; dependency names such as
            // `websockets` or `cffi` in them are not code.
            | "lock"
    )
}

/// Whether the file at `path` is a Jupyter kernelspec or settings file
/// ([`is_jupyter_json_named`]) outside a test tree.
pub(super) fn is_jupyter_json(path: &str) -> bool {
    !in_test_tree(path) && is_jupyter_json_named(path, &file_name(path).1)
}

/// Whether a JSON file (`lower`, its lowercased name, at `path`) is one
/// that Jupyter acts on by itself: a kernelspec (`kernel.json`), whose
/// `argv` is the command Jupyter runs to start that kernel, or Jupyter's
/// configuration (`jupyter_*_config.json`, and the files of its
/// `jupyter_server_config.d`, `jupyter_notebook_config.d` and `nbconfig`
/// folders), which it reads at every start and which can name a command
/// (a terminal's shell) or a class to import. Such a file is code for
/// every reader; the veto reads its lines that name a capability. Found
/// by name, wherever it lies: an sdist maps it into `share/jupyter` or
/// `etc/jupyter` from any folder of its own.
fn is_jupyter_json_named(path: &str, lower: &str) -> bool {
    if extension(lower) != "json" {
        return false;
    }
    let config_dir = path.rsplit('/').skip(1).any(|d| {
        matches!(
            d.to_ascii_lowercase().as_str(),
            "jupyter_server_config.d" | "jupyter_notebook_config.d" | "nbconfig"
        )
    });
    lower == "kernel.json"
        || (lower.starts_with("jupyter_") && lower.ends_with("_config.json"))
        || config_dir
}

/// A build script's language ([`build_script`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Build {
    CMake,
    Meson,
    Make,
    Gyp,
    /// SCons' and waf's scripts, which are Python.
    SCons,
}

/// The language of a build script, by its (lowercased) name, or `None`
/// for a file that is not one: CMake's (`CMakeLists.txt`, `*.cmake`),
/// Meson's (`meson.build`), GYP's (`*.gyp`, `*.gypi`), make's
/// (`Makefile`, `GNUmakefile`, `*.mk`, `*.mak`) or SCons' and waf's
/// (`SConstruct`, `SConscript`, `wscript`). A build backend
/// (scikit-build-core, meson-python, node-gyp, cmake-js) runs them when
/// it builds the package, and each language runs commands
/// (`execute_process`, `run_command`, `<!(…)`, `$(shell …)`). They are code
/// wherever they lie. CMake's as a `.txt` was read as a document, and its
/// `execute_process(COMMAND sh -c "curl … | sh")` allowed unread (session
/// 22); in a test tree, where what is not Python, JavaScript or a shell
/// script is data, so were all of them, though the root's script runs a
/// test folder's (`add_subdirectory(tests/cmake)`, `subdir('tests')`):
/// cachetools so changed, its build script sending the environment to a
/// server, was allowed (session 31).
pub(super) fn build_script(lower_name: &str) -> Option<Build> {
    Some(match lower_name {
        "cmakelists.txt" => Build::CMake,
        "meson.build" => Build::Meson,
        "makefile" | "gnumakefile" => Build::Make,
        "sconstruct" | "sconscript" | "wscript" => Build::SCons,
        _ => match extension(lower_name) {
            "cmake" => Build::CMake,
            "gyp" | "gypi" => Build::Gyp,
            "mk" | "mak" => Build::Make,
            _ => return None,
        },
    })
}

/// Whether a file with this (lowercased) name is a build script
/// ([`build_script`]).
pub(super) fn is_build_script(lower_name: &str) -> bool {
    build_script(lower_name).is_some()
}

/// Whether a directory of `path` is a test tree (`tests/`, `test/`,
/// `testing/`, `testdata/`, `test_data/`). Only called for files [`rank`]
/// did not find install-relevant or code: a test tree's `.py`, `.js` and
/// shell scripts stay code, since a setup script can import or run them.
pub(super) fn in_test_tree(path: &str) -> bool {
    let mut dirs = path.split('/').rev().skip(1);
    dirs.any(|d| {
        matches!(
            d.to_ascii_lowercase().as_str(),
            "tests" | "test" | "testing" | "testdata" | "test_data"
        )
    })
}

/// File order: install relevance, then depth; ties go by path.
fn sort_key(path: &str) -> (u8, usize) {
    (rank(path), path.matches('/').count())
}

/// Sorts into file order. Each key is computed once: `rank` lowercases the
/// name, and a comparison sort would do it twice per comparison.
fn sort_files<T>(items: &mut Vec<T>, path: impl Fn(&T) -> &str) {
    let mut keyed: Vec<((u8, usize), T)> =
        items.drain(..).map(|t| (sort_key(path(&t)), t)).collect();
    keyed.sort_by(|a, b| (a.0, path(&a.1)).cmp(&(b.0, path(&b.1))));
    items.extend(keyed.into_iter().map(|(_, t)| t));
}

#[cfg(test)]
fn order(members: &mut Vec<Member>) {
    sort_files(members, |m| &m.path);
}

/// The member as text: invalid UTF-8 replaced, CRLF made LF. Borrows when
/// nothing changes (nearly always), so a package's text is not copied once
/// more just to be read.
fn decode(data: &[u8]) -> Cow<'_, str> {
    // `from_utf8` checks ASCII a word at a time; the lossy decoder walks
    // byte by byte, so it only runs on the rare invalid member.
    let text = match std::str::from_utf8(data) {
        Ok(t) => Cow::Borrowed(t),
        Err(_) => String::from_utf8_lossy(data),
    };
    if memchr::memchr(b'\r', text.as_bytes()).is_some() {
        Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        text
    }
}

/// [`decode`] for a member at `path`; in a scan, a JavaScript file's
/// spacing is made ASCII first ([`js_spacing`](super::code::js_spacing)),
/// so the models read its tokens apart. The corpus renders bytes as they
/// are.
fn decode_as<'a>(path: &str, data: &'a [u8], mode: RenderMode) -> Cow<'a, str> {
    if mode == RenderMode::Scan {
        if let Some(spaced) = super::code::js_spacing(path, data) {
            return Cow::Owned(decode(&spaced).into_owned());
        }
    }
    decode(data)
}

/// Where the corpus cuts a line longer than `LINE_CAP` bytes: the last
/// character boundary at or before it.
fn cut_point(line: &str) -> usize {
    let mut end = LINE_CAP;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// The line, or its first `LINE_CAP` bytes with the corpus's truncation mark.
fn cut_line(line: &str) -> std::borrow::Cow<'_, str> {
    if line.len() <= LINE_CAP {
        return line.into();
    }
    let end = cut_point(line);
    format!(
        "{} [line truncated: {} chars]",
        &line[..end],
        line.chars().count()
    )
    .into()
}

/// One file section being written: a header, then body lines appended in
/// place (no string per line: rendering a large package is mostly this).
struct Section {
    s: String,
    mode: RenderMode,
    full: bool,
    /// An added line was cut (at the corpus's 2,048 characters) where the
    /// part cut off shows a capability, which no reader of the text sees.
    cut_capability: bool,
}

impl Section {
    fn new(header: String, mode: RenderMode) -> Section {
        Section {
            s: header,
            mode,
            full: false,
            cut_capability: false,
        }
    }

    /// A body line: `prefix` (`+`, `-`, ` `, or none for a hunk header)
    /// followed by the line, cut at the line cap. In corpus mode, stops at the
    /// per-file cap with the corpus's truncation marker.
    fn line(&mut self, prefix: Option<char>, line: &str) {
        if self.full {
            return;
        }
        let body = cut_line(line);
        // The text keeps the corpus's cut (the models were trained on it,
        // and whole minified lines turned popular bundles "harmful"), but a
        // scan looks past it: a capability there (a stealer after 2,100
        // characters of a string on one line was cut off and allowed)
        // makes the input's code opaque.
        if self.mode == RenderMode::Scan
            && prefix == Some('+')
            && !self.cut_capability
            && line.len() > LINE_CAP
        {
            self.cut_capability =
                crate::precheck::capabilities::is_capability(&line.as_bytes()[cut_point(line)..]);
        }
        let len = prefix.map_or(0, char::len_utf8) + body.len();
        if self.mode == RenderMode::Corpus && self.s.len() + len + 1 > FILE_CAP {
            self.s.push_str("\\ [truncated: file diff exceeds 16 KB]\n");
            self.full = true;
            return;
        }
        if let Some(c) = prefix {
            self.s.push(c);
            // A removed line `-- a/x` renders as `--- a/x`, which opens a
            // file section for every reader of the text: the section map
            // and the veto's view took the lines after it for another
            // file's (`++ b/README.md` after it, a README), so a release
            // could hide added code from the veto behind a line its
            // previous release had. Removed lines do not run; one that
            // would read as a header gets a `\` after its `-`.
            if c == '-' && (body.starts_with("-- a/") || body.starts_with("-- /dev/null")) {
                self.s.push('\\');
            }
        }
        self.s.push_str(&body);
        self.s.push('\n');
    }

    /// Every line of `text` as an added line: what `line(Some('+'), l)` for
    /// each line of [`lines_of`] writes, in a scan (no per-file cap). Why
    /// apart: a package's data files are millions of short lines (botocore's
    /// JSON, 3.2 million), and a call per line spent a seventh of that
    /// scan's time in small copies; here a line and its newline are one
    /// copy, and only a line over the cap goes through [`Section::line`].
    fn added_lines(&mut self, text: &str) {
        debug_assert_eq!(self.mode, RenderMode::Scan);
        let t = text.strip_suffix('\n').unwrap_or(text);
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', t.as_bytes()).chain([t.len()]) {
            let line = &t[start..end];
            if line.len() > LINE_CAP {
                self.line(Some('+'), line);
            } else {
                self.s.push('+');
                // The line with its newline, which `t` lacks only after its last.
                match t.get(start..=end) {
                    Some(with_newline) => self.s.push_str(with_newline),
                    None => {
                        self.s.push_str(line);
                        self.s.push('\n');
                    }
                }
            }
            start = end + 1;
        }
    }
}

/// The lines of a text (a final newline ends the last line, it does not
/// start another) and how many there are. Counted, not collected, and found
/// with the `memchr` crate's vector search: a large package has millions of
/// lines, and core's `split('\n')` searches a word at a time.
fn lines_of(text: &str) -> (usize, Lines<'_>) {
    let t = text.strip_suffix('\n').unwrap_or(text);
    let n = if text.is_empty() {
        0
    } else {
        memchr::memchr_iter(b'\n', t.as_bytes()).count() + 1
    };
    (n, Lines { rest: Some(t) })
}

/// The `\n`-separated pieces of a text, as `str::split('\n')` gives them.
struct Lines<'a> {
    rest: Option<&'a str>,
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let rest = self.rest?;
        match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(i) => {
                self.rest = Some(&rest[i + 1..]);
                Some(&rest[..i])
            }
            None => {
                self.rest = None;
                Some(rest)
            }
        }
    }
}

fn binary_added(path: &str) -> String {
    format!("Binary file b/{path} added\n")
}

fn empty_added(path: &str) -> String {
    format!("--- /dev/null\n+++ b/{path}\n")
}

fn added_header(path: &str, lines: usize) -> String {
    format!("--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{lines} @@\n")
}

/// The source encoding a Python file declares (PEP 263: a `coding`
/// cookie in its first two lines) when it is not one under which the
/// file's ASCII bytes read as the same ASCII text. Python decodes the file
/// with it before running it: under `utf-7`, `unicode_escape` or
/// `raw_unicode_escape` (each checked with Python 3.11) a line of base64 or
/// of `\x69\x6d…` escapes runs as `import os`, while the text every reader
/// of the scan gets shows the escapes.
fn foreign_encoding(path: &str, data: &[u8]) -> Option<String> {
    if !matches!(extension(&file_name(path).1), "py" | "pyw") {
        return None;
    }
    let name = declared_encoding(data)?;
    let norm = name.to_ascii_lowercase().replace('_', "-");
    // Multi-byte encodings whose bytes below 0x80 stand alone, and the
    // other single-byte ones.
    let transparent = single_byte_or_utf8(&name)
        || [
            "cp",
            "windows-",
            "euc-",
            "shift-jis",
            "gb",
            "big5",
            "koi8-",
            "mac-",
        ]
        .iter()
        .any(|p| norm.starts_with(p));
    (!transparent).then_some(name)
}

/// Whether the encoding a `coding` cookie names (as written; compared as
/// Python does, lowercased, `_` as `-`) reads every byte below 0x80 as
/// that ASCII character and never makes a byte from 0x80 part of one:
/// UTF-8, ASCII and the single-byte Latin encodings (`latin-1`,
/// `iso-8859-*`, `cp125*`, `windows-125*`).
pub(super) fn single_byte_or_utf8(name: &str) -> bool {
    let norm = name.to_ascii_lowercase().replace('_', "-");
    matches!(
        norm.as_str(),
        "utf-8" | "utf8" | "utf-8-sig" | "ascii" | "us-ascii" | "latin-1" | "latin1" | "l1"
    ) || ["iso-8859-", "iso8859-", "cp125", "windows-125"]
        .iter()
        .any(|p| norm.starts_with(p))
}

/// The source encoding a Python file's `coding` cookie names (PEP 263:
/// the first `coding:` or `coding=` on a comment line among its first
/// two, as the pattern `^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)` finds
/// it), as written; `None` when it names none.
pub(super) fn declared_encoding(data: &[u8]) -> Option<String> {
    let mut lines = data.split(|&b| b == b'\n');
    let head = [lines.next()?, lines.next().unwrap_or(&[])];
    for line in head {
        let text = String::from_utf8_lossy(line);
        let t = text.trim_start_matches([' ', '\t', '\x0c']);
        if !t.starts_with('#') {
            // Only a comment line can hold the cookie; a first line of
            // code ends the search.
            if !t.trim().is_empty() {
                return None;
            }
            continue;
        }
        let Some(rest) = t
            .match_indices("coding")
            .find_map(|(at, _)| t[at + "coding".len()..].strip_prefix([':', '=']))
        else {
            continue;
        };
        let name: String = rest
            .trim_start_matches([' ', '\t'])
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            .collect();
        return (!name.is_empty()).then_some(name);
    }
    None
}

/// Members whose code a reader of the text would not see as code: Python
/// files in a source encoding that hides it ([`foreign_encoding`]), and
/// files Node runs as JavaScript though their names say documentation or
/// data ([`node_entry_points`], [`super::launched`]). Paths are archive
/// paths.
#[derive(Default)]
struct HiddenCode {
    /// (file, declared encoding)
    encoded: Vec<(String, String)>,
    /// (package.json, a file it makes Node run)
    entries: Vec<(String, String)>,
    /// (code file, a file it requires, forks or runs by path), kept only if
    /// that file is a member:
    /// `require('./lib/metadata')` loads `metadata.js` or a folder's
    /// `index.js` when no file has that exact name.
    required: Vec<(String, String)>,
    /// In a version diff, (changed code file, an unchanged file named as
    /// documentation or data it requires, forks or runs by path): the
    /// file was accepted as a document, and the change makes it run.
    reached: Vec<(String, String)>,
    /// (compiled source, the file names it includes from the folders its
    /// build searches, [`searched_includes`](super::launched::searched_includes)),
    /// kept for each document whose path ends in one of them
    /// ([`searched_documents`]).
    searched: Vec<(String, Vec<String>)>,
    /// (compiled source, the file names whose bytes it puts into the
    /// object as they are,
    /// [`embedded_includes`](super::launched::embedded_includes)), kept for
    /// each member, of any kind, whose path ends in one of them
    /// ([`embedded_files`]).
    embedded: Vec<(String, Vec<String>)>,
    /// In a version diff, (changed source, unchanged file it embeds).
    embedded_reached: Vec<(String, String)>,
    /// Compiler flags that name a file
    /// ([`compiler_flags`](super::launched::compiler_flags)): a hook once
    /// the file is known to be a member
    /// ([`resolve_compiler_files`](Self::resolve_compiler_files)).
    compiler_files: Vec<FlagFile>,
    /// (compiled source, the macros it includes by,
    /// [`computed_includes`](super::launched::computed_includes)), names
    /// to search once the macros' values are known
    /// ([`resolve_computed`](Self::resolve_computed)).
    computed: Vec<(String, Vec<String>)>,
    /// (macro, a file name a member gives it as its value,
    /// [`include_macros`](super::launched::include_macros)).
    macros: Vec<(String, String)>,
    /// How many macros [`computed`](Self::computed) holds.
    computed_macros: usize,
    /// Where computed includes or macros' values became too many to
    /// follow ([`MAX_MACROS`](super::launched::MAX_MACROS)): the package
    /// is not cleared.
    macros_past: Option<String>,
    /// (build script, a build script in a test tree it runs), kept only if
    /// that script is a member.
    test_builds: Vec<(String, String)>,
    /// Files named as documentation or data that Node would run as
    /// JavaScript, whose text could compile and does something when run
    /// ([`holds_javascript`](super::js_syntax::holds_javascript)); they
    /// count in a package npm installs ([`npm`](Self::npm)). In a version
    /// diff, unchanged ones are marked so.
    js_documents: Vec<String>,
    /// Whether the package holds a `package.json` npm reads ([`npm_reads`]).
    npm: bool,
    /// Every member looked at.
    paths: std::collections::HashSet<String>,
    /// (file, what npm runs at install because of it)
    hooks: Vec<(String, String)>,
    /// (package.json npm reads, why it is not JSON to this parser): what
    /// npm runs at install because of it is not known.
    unparsed: Vec<(String, String)>,
    /// (code file, line where it runs code it does not hold)
    unread: Vec<(String, usize)>,
    /// (file for AI agents, line where it orders a download piped into a
    /// shell) ([`super::agents`]).
    agent_orders: Vec<(String, usize)>,
    /// (file, line, what it does) where code watches the user or makes a
    /// program run again ([`super::spying`]).
    spying: Vec<(String, usize, &'static str)>,
    /// [`unread`](Self::unread) and [`spying`](Self::spying) lines in
    /// files only a package's tests or documentation build run
    /// ([`tests_or_docs`](super::unread::tests_or_docs)); they count when
    /// the package's code can import those files ([`openings`](Self::openings)).
    tests_unread: Vec<(String, usize)>,
    tests_spying: Vec<(String, usize, &'static str)>,
    /// (code file, line) where package code makes its tests or docs
    /// importable ([`first_opening`](super::unread::first_opening)).
    openings: Vec<(String, usize)>,
    /// (code file, line, module key) for each import of a test-like
    /// module ([`test_module_imports`](super::unread::test_module_imports)),
    /// an opening when the package holds that module
    /// ([`open_by_imports`](Self::open_by_imports)).
    test_imports: Vec<(String, usize, String)>,
    /// The keys the package's test and documentation modules are imported
    /// by ([`test_module_keys`](super::unread::test_module_keys)).
    test_modules: std::collections::HashSet<String>,
    /// How many lines of tests and docs count because of `openings`.
    opened: usize,
    /// In a version diff, [`unread`](Self::unread) lines in files the
    /// change left as they were, kept when it altered files the pre-check
    /// does not read as code ([`altered_unread`](Self::altered_unread)).
    unread_unchanged: Vec<(String, usize)>,
    altered_unread: Vec<String>,
    /// (manifest, a dependency an install fetches from outside a registry)
    /// ([`super::fetched`]).
    fetched: Vec<(String, String)>,
    /// (Meson wrap file, what it fetches when its folder is missing)
    /// ([`wrap_fetch`](super::fetched::wrap_fetch)), a fetched dependency
    /// once the package is known to miss that folder
    /// ([`resolve_wraps`](Self::resolve_wraps)).
    wraps: Vec<(String, super::fetched::WrapFetch)>,
    /// (root `meson.build`, the folder it names its `subproject_dir`)
    /// ([`subproject_dir`](super::fetched::subproject_dir)).
    subproject_dirs: Vec<(String, String)>,
    /// (file, kind) of native machine code outside test trees
    /// ([`native_code`]).
    native: Vec<(String, &'static str)>,
    /// The same in test trees: they count when the package's code can
    /// import those files ([`openings`](Self::openings)).
    tests_native: Vec<(String, &'static str)>,
    /// Files a manifest makes its requirements
    /// ([`requirement_files`](super::fetched::requirement_files)), whose
    /// direct references count as fetched dependencies
    /// ([`resolve_named_files`](Self::resolve_named_files)).
    requirement_files: Vec<String>,
    /// Files a manifest makes its entry points
    /// ([`entry_point_files`](super::placement::entry_point_files)), whose
    /// scripts count as [`declared`](Self::declared)
    /// ([`resolve_named_files`](Self::resolve_named_files)).
    entry_point_files: Vec<String>,
    /// (member, what installing it does) for members a wheel would place
    /// over the environment's own files or where they run by themselves
    /// ([`super::placement`]); looked for only in a [`wheel`](Self::wheel).
    placed: Vec<(String, Placement)>,
    /// (member, what it would be) for files of a package built from
    /// source named as ones that run at every start or configure the
    /// environment
    /// ([`startup_or_config_file`](super::placement::startup_or_config_file)).
    startup_files: Vec<(String, &'static str)>,
    /// (manifest, line, what it declares) where a manifest names the
    /// environment's configuration files or commands
    /// ([`in_manifest`](super::placement::in_manifest)).
    declared: Vec<(String, usize, &'static str)>,
    /// (package.json, a command it links over the JavaScript toolchain's
    /// own) ([`npm_bins_over_toolchain`](super::placement::npm_bins_over_toolchain)).
    shadowing: Vec<(String, String)>,
    /// (package.json, the folder whose every file it links as a command)
    /// ([`npm_bin_dir`](super::placement::npm_bin_dir)).
    bin_dirs: Vec<(String, String)>,
    /// (member, the distribution that owns where it installs, what that
    /// place holds) ([`owner_of`](super::placement::owner_of)); looked for
    /// only in a wheel, and they count for a wheel of another distribution.
    owned: Vec<(String, &'static str, &'static str)>,
    /// The distribution a wheel installs as (from its file name), when pip
    /// installs the package as a wheel: it does so by the file name alone
    /// (`.whl`), and only then do `NAME.data/` folders and the top of the
    /// archive mean the environment's folders.
    wheel: Option<String>,
    /// What could be a shipped repository's settings or hooks
    /// ([`super::repository`]), which rendering drops as junk: judged
    /// from here only for a package rendered whole, whose members are
    /// looked at as read; a version diff looks at its new members before
    /// they are dropped ([`Unchanged::junk_seen`]).
    repositories: super::repository::Repositories,
}

impl HiddenCode {
    /// An empty account for the package file at `path`: a wheel's (by its
    /// name, as pip decides) or another kind's.
    fn for_package(path: &Path) -> HiddenCode {
        HiddenCode {
            wheel: wheel_name(path),
            ..HiddenCode::default()
        }
    }

    fn look_at(&mut self, m: &Member) {
        self.repositories.look_at(&m.path, &m.data);
        if let Some(e) = foreign_encoding(&m.path, &m.data) {
            self.encoded.push((m.path.clone(), e));
        }
        // Test trees are data, as for compiled Python (packaging's tests
        // carry ELF files to read their headers), unless the package's
        // code opens them.
        let inline = || inline_wasm(&m.path, &m.data).then_some("WebAssembly, inline");
        if let Some(kind) = native_code(&m.data).or_else(inline) {
            match in_test_tree(&m.path) {
                true => self.tests_native.push((m.path.clone(), kind)),
                false => self.native.push((m.path.clone(), kind)),
            }
        }
        // Read once for what it makes Node run, its install scripts and
        // the dependencies it fetches.
        // JavaScript as its engine spaces it, for every rule that reads
        // its lines.
        let spaced = super::code::js_spacing(&m.path, &m.data);
        let text: &[u8] = spaced.as_deref().unwrap_or(&m.data);
        let json = match parse_package_json(&m.path, &m.data) {
            Some(Ok(json)) => Some(json),
            Some(Err(e)) => {
                if npm_reads(&m.path) {
                    self.unparsed.push((m.path.clone(), e.to_string()));
                }
                None
            }
            None => None,
        };
        // Every rule below reads the member through `code`, which parses
        // a manifest once for all of them. Its bytes are the member's own
        // but for JavaScript's spacing, and no manifest or build script is
        // JavaScript.
        let code = super::code::Code::new(&m.path, text);
        let unparsed = super::fetched::unparsed_pyproject(&code)
            .or_else(|| super::fetched::unparsed_setup_cfg(&code));
        if let Some(e) = unparsed {
            self.unparsed.push((m.path.clone(), e));
        }
        if let Some(json) = &json {
            let targets = node_entry_targets(&m.path, json);
            for target in node_entry_points(&targets) {
                self.entries.push((m.path.clone(), target.clone()));
            }
            if let Some(line) = entry_in_tests_or_docs(&targets, &code) {
                self.openings.push((m.path.clone(), line));
            }
            if let Some(h) = install_scripts(json) {
                self.hooks.push((m.path.clone(), h));
            }
            for command in super::placement::npm_bins_over_toolchain(json) {
                self.shadowing.push((m.path.clone(), command));
            }
            if let Some(dir) = super::placement::npm_bin_dir(&m.path, json) {
                self.bin_dirs.push((m.path.clone(), dir));
            }
        }
        for dep in super::fetched::off_registry_dependencies(&code, json.as_ref()) {
            self.fetched.push((m.path.clone(), dep));
        }
        // pip installs a wheel as built: nothing in it is built again.
        if self.wheel.is_none() {
            for dep in super::fetched::cargo_fetched(&code) {
                self.fetched.push((m.path.clone(), dep));
            }
            if let Some(wrap) = super::fetched::wrap_fetch(&m.path, &m.data) {
                self.wraps.push((m.path.clone(), wrap));
            }
            if let Some(dir) = super::fetched::subproject_dir(&m.path, &m.data) {
                self.subproject_dirs.push((m.path.clone(), dir));
            }
        }
        let dir = m.path.rsplit_once('/').map_or("", |(d, _)| d);
        for file in super::fetched::requirement_files(&code) {
            self.requirement_files.extend(resolve_from(dir, &file));
        }
        for file in super::placement::entry_point_files(&code) {
            self.entry_point_files.extend(resolve_from(dir, &file));
        }
        // npm's default install script for a package with a binding.gyp,
        // and node-gyp runs the `<!(…)` commands in it.
        if file_name(&m.path).0 == "binding.gyp" {
            self.hooks.push((m.path.clone(), "node-gyp rebuild".into()));
        }
        for hook in super::launched::manifest_build_hooks(&code) {
            self.hooks.push((m.path.clone(), hook));
        }
        for file in super::placement::force_included_as_code(&code) {
            self.required.push((m.path.clone(), file));
        }
        // Where a member installs: a wheel's files go where their paths
        // say ([`in_wheel`]), and pip installs a package as a wheel by its
        // file name alone; a package built from source puts them where
        // its build's rules say, which a file's name alone may betray.
        if self.wheel.is_some() {
            if let Some(p) = super::placement::in_wheel(&m.path, &m.data) {
                self.placed.push((m.path.clone(), p));
            }
            if let Some((owner, what)) = super::placement::owner_of(&m.path) {
                self.owned.push((m.path.clone(), owner, what));
            }
        } else if let Some(what) = super::placement::startup_or_config_file(&m.path, &m.data) {
            self.startup_files.push((m.path.clone(), what));
        }
        if let Some((line, what)) = super::placement::in_manifest(&code) {
            self.declared.push((m.path.clone(), line, what));
        }
        for target in launched_but_read_inert(&m.path, text) {
            self.required.push((m.path.clone(), target));
        }
        if runs_as_js_but_reads_inert(&m.path)
            && super::js_syntax::holds_javascript(&m.path, &m.data)
        {
            self.js_documents.push(m.path.clone());
        }
        if file_name(&m.path).0 == "package.json" && npm_reads(&m.path) {
            self.npm = true;
        }
        let (names, embedded) = super::launched::compiled_source_names(&m.path, &m.data);
        if !names.is_empty() {
            self.searched.push((m.path.clone(), names));
        }
        if !embedded.is_empty() {
            self.embedded.push((m.path.clone(), embedded));
        }
        // A wheel is installed as built: no compiler runs.
        let flags = match self.wheel {
            None => super::launched::compiler_flags_in(&code),
            Some(_) => Default::default(),
        };
        for run in flags.runs {
            self.hooks.push((m.path.clone(), run));
        }
        if !flags.includes.is_empty() {
            self.searched.push((m.path.clone(), flags.includes));
        }
        for dep in flags.fetched {
            self.fetched.push((m.path.clone(), dep));
        }
        for (candidates, flag, options) in flags.files {
            self.compiler_files.push(FlagFile {
                script: m.path.clone(),
                candidates,
                flag,
                options,
                unchanged: false,
            });
        }
        let macros = super::launched::computed_includes(&m.path, &m.data);
        if !macros.is_empty() {
            self.computed_macros += macros.len();
            self.computed.push((m.path.clone(), macros));
        }
        self.macros
            .extend(super::launched::include_macros(&m.path, &m.data));
        self.bound_macros(&m.path);
        let (included, test_builds) = build_runs(&code);
        for target in included {
            self.required.push((m.path.clone(), target));
        }
        for target in test_builds {
            self.test_builds.push((m.path.clone(), target));
        }
        let tests = super::unread::tests_or_docs(&m.path);
        if let Some(line) = super::unread::first_unread_run_in(&code) {
            let to = if tests {
                &mut self.tests_unread
            } else {
                &mut self.unread
            };
            to.push((m.path.clone(), line));
        }
        // Wherever it lies: an agent loads a test folder's AGENTS.md when
        // it works there.
        if let Some(line) = super::agents::first_fetched_order_in(&code) {
            self.agent_orders.push((m.path.clone(), line));
        }
        if let Some((line, what)) = super::spying::first_spying_line_in(&code) {
            let to = if tests {
                &mut self.tests_spying
            } else {
                &mut self.spying
            };
            to.push((m.path.clone(), line, what));
        }
        if let Some(line) = super::unread::first_opening_in(&code) {
            self.openings.push((m.path.clone(), line));
        }
        for (line, key) in super::unread::test_module_imports(&m.path, &m.data) {
            self.test_imports.push((m.path.clone(), line, key));
        }
        self.test_modules
            .extend(super::unread::test_module_keys(&m.path));
        self.paths.insert(m.path.clone());
    }

    fn extend(&mut self, other: HiddenCode) {
        self.encoded.extend(other.encoded);
        self.entries.extend(other.entries);
        self.required.extend(other.required);
        self.reached.extend(other.reached);
        self.searched.extend(other.searched);
        self.embedded.extend(other.embedded);
        self.embedded_reached.extend(other.embedded_reached);
        self.compiler_files.extend(other.compiler_files);
        self.computed.extend(other.computed);
        self.computed_macros += other.computed_macros;
        self.macros.extend(other.macros);
        self.macros_past = self.macros_past.take().or(other.macros_past);
        self.bound_macros("its files together");
        self.test_builds.extend(other.test_builds);
        self.js_documents.extend(other.js_documents);
        self.npm |= other.npm;
        self.paths.extend(other.paths);
        self.hooks.extend(other.hooks);
        self.unparsed.extend(other.unparsed);
        self.unread.extend(other.unread);
        self.agent_orders.extend(other.agent_orders);
        self.unread_unchanged.extend(other.unread_unchanged);
        self.altered_unread.extend(other.altered_unread);
        self.fetched.extend(other.fetched);
        self.wraps.extend(other.wraps);
        self.subproject_dirs.extend(other.subproject_dirs);
        self.native.extend(other.native);
        self.tests_native.extend(other.tests_native);
        self.requirement_files.extend(other.requirement_files);
        self.entry_point_files.extend(other.entry_point_files);
        self.spying.extend(other.spying);
        self.tests_unread.extend(other.tests_unread);
        self.tests_spying.extend(other.tests_spying);
        self.openings.extend(other.openings);
        self.test_imports.extend(other.test_imports);
        self.test_modules.extend(other.test_modules);
        self.placed.extend(other.placed);
        self.startup_files.extend(other.startup_files);
        self.owned.extend(other.owned);
        self.declared.extend(other.declared);
        self.shadowing.extend(other.shadowing);
        self.bin_dirs.extend(other.bin_dirs);
        self.repositories.extend(other.repositories);
    }

    /// Counts the lines of tests and docs as the package's own when its
    /// code can import them: `sys.path.insert(0, …/tests)` then `import
    /// _keys`, or `from .tests import _util`, runs a test file's keylogger
    /// or `exec` at import, which the exemption for tests would otherwise
    /// hide. Called once every member was looked at.
    fn count_tests_if_opened(&mut self) {
        self.open_by_imports();
        if self.openings.is_empty() {
            return;
        }
        self.opened = self.tests_unread.len() + self.tests_spying.len();
        self.unread.append(&mut self.tests_unread);
        self.spying.append(&mut self.tests_spying);
        self.native.append(&mut self.tests_native);
    }

    /// Adds an opening for each file that imports one of the package's
    /// own test or documentation modules through a name the opening
    /// patterns do not know (`from .testing import helpers`), at its first
    /// such line, unless the file opens them already.
    fn open_by_imports(&mut self) {
        let mut imports = std::mem::take(&mut self.test_imports);
        imports.sort();
        let mut opens: std::collections::HashSet<String> =
            self.openings.iter().map(|(o, _)| o.clone()).collect();
        for (path, line, key) in imports {
            if self.test_modules.contains(&key) && opens.insert(path.clone()) {
                self.openings.push((path, line));
            }
        }
    }

    /// Counts the direct references of the requirement files manifests
    /// name as fetched dependencies, and the scripts of the entry-point
    /// files they name as declared, reading each file's text with
    /// `text_of(path)`. Called once every member was looked at: which files
    /// a manifest names is known only then, and only those are read.
    fn resolve_named_files(&mut self, text_of: impl Fn(&str) -> Option<Vec<u8>>) {
        let mut files = std::mem::take(&mut self.requirement_files);
        files.sort();
        files.dedup();
        for file in files {
            for dep in text_of(&file)
                .map(|t| super::fetched::direct_references_in(&t))
                .unwrap_or_default()
            {
                self.fetched.push((file.clone(), dep));
            }
        }
        let mut files = std::mem::take(&mut self.entry_point_files);
        files.sort();
        files.dedup();
        for file in files {
            let text = text_of(&file).unwrap_or_default();
            if let Some((line, what)) = super::placement::in_entry_point_file(&text) {
                self.declared.push((file, line, what));
            }
        }
    }

    /// Past [`MAX_MACROS`](super::launched::MAX_MACROS) computed includes
    /// or macros' values, marks the package (naming `path`, the file
    /// looked at last) and lets go of them: following them would cost
    /// more than any real package needs.
    fn bound_macros(&mut self, path: &str) {
        use super::launched::MAX_MACROS;
        let past = self.macros.len() > MAX_MACROS || self.computed_macros > MAX_MACROS;
        if self.macros_past.is_some() || past {
            self.macros_past.get_or_insert_with(|| path.to_string());
            self.macros = Vec::new();
            self.computed = Vec::new();
        }
    }

    /// Turns each computed include into the names its macro's values give
    /// ([`computed_names`]), to search as an include's are.
    fn resolve_computed(&mut self) {
        let names = computed_names(&self.computed, self.macros.iter());
        self.searched.extend(names);
    }

    /// Counts each compiler flag that names a member among `paths` (every
    /// member of the package, in a version diff the unchanged ones too)
    /// as an install hook: the compiler reads that file as options
    /// (`@FILE`) or runs it as one of its programs (`-B`).
    fn resolve_compiler_files<'a>(&mut self, paths: impl Iterator<Item = &'a str>) {
        if self.compiler_files.is_empty() {
            return;
        }
        let paths: std::collections::HashSet<&str> = paths.collect();
        for f in std::mem::take(&mut self.compiler_files) {
            let Some(member) = f.candidates.iter().find(|c| paths.contains(c.as_str())) else {
                continue;
            };
            let flag = &f.flag;
            let mut hook = match f.options {
                true => format!("the compiler reads more options from {member} (`{flag}`), and an option can make it run any program (`-wrapper`)"),
                false => format!("the compiler runs {member} in place of its own program (`{flag}`)"),
            };
            if f.unchanged {
                hook.push_str(" (unchanged)");
            }
            self.hooks.push((f.script, hook));
        }
    }

    /// Counts each Meson wrap whose project has a `meson.build` and whose
    /// folder holds no file among `paths` (every member of the package,
    /// in a version diff the unchanged ones too) as a fetched dependency:
    /// Meson downloads it then, and not when the package ships its source.
    fn resolve_wraps<'a>(&mut self, paths: impl Iterator<Item = &'a str>) {
        if self.wraps.is_empty() {
            return;
        }
        let mut paths: Vec<&str> = paths.collect();
        paths.sort_unstable();
        for (path, wrap) in std::mem::take(&mut self.wraps) {
            // A `subprojects` folder's wrap, read by the project's
            // `meson.build` if it has one; or one in the folder a root
            // `meson.build` names its `subproject_dir`.
            let meson = match &wrap.project {
                Some(project) => format!("{project}meson.build"),
                None => match self.subproject_dirs.iter().find(|(_, d)| *d == wrap.folder) {
                    Some((meson, _)) => meson.clone(),
                    None => continue,
                },
            };
            if paths.binary_search(&meson.as_str()).is_ok() && !any_under(&paths, &wrap.directory) {
                self.fetched.push((path, wrap_description(&wrap)));
            }
        }
    }

    /// Puts what was found in path order: members are looked at in batches
    /// on several threads, and a note listing files in the order batches
    /// finished would change from run to run.
    fn sort(&mut self) {
        self.encoded.sort();
        self.entries.sort();
        self.required.sort();
        self.reached.sort();
        self.searched.sort();
        self.embedded.sort();
        self.embedded_reached.sort();
        self.computed.sort();
        self.macros.sort();
        self.test_builds.sort();
        self.js_documents.sort();
        self.hooks.sort();
        self.unparsed.sort();
        self.unread.sort();
        self.agent_orders.sort();
        self.unread_unchanged.sort();
        self.altered_unread.sort();
        self.fetched.sort();
        self.native.sort();
        self.spying.sort();
        self.openings.sort();
        self.placed.sort();
        self.startup_files.sort();
        self.owned.sort();
        self.declared.sort();
        self.shadowing.sort();
        self.bin_dirs.sort();
    }

    /// Adds what members a version diff left as they were make run, where
    /// the change can alter what runs. Only changed members render, so the
    /// pre-check never reads an unchanged line; without this, an unchanged
    /// `eval(fs.readFileSync('docs/notes.md'))` whose notes became a
    /// stealer was allowed on the notes' score as a document (0.00014), and
    /// an unchanged `postinstall` ran changed code.
    ///
    /// `base` holds the base's members that `changed` replaced or removed.
    fn add_unchanged(
        &mut self,
        mut same: HiddenCode,
        changed: &[Member],
        base: &[Member],
        unchanged: &[Member],
        folders: &WheelFolders,
    ) {
        if changed.is_empty() {
            return;
        }
        // The hook runs the package's code, which the change altered.
        self.hooks.extend(
            same.hooks
                .into_iter()
                .map(|(p, h)| (p, format!("{h} (unchanged)"))),
        );
        // Text read as code by the veto is judged there; documents, data
        // and binary files are not, and an unchanged line may run them.
        // Not the metadata's version bump, which every release makes and
        // which adds no text that could be code ([`super::metadata`]).
        if !same.unread.is_empty() {
            let files = std::cell::OnceCell::new();
            let member = |p: &str| {
                files
                    .get_or_init(|| {
                        changed
                            .iter()
                            .chain(unchanged)
                            .map(|m| (m.path.as_str(), &m.data[..]))
                            .collect::<std::collections::HashMap<&str, &[u8]>>()
                    })
                    .get(p)
                    .copied()
            };
            let bumped = |m: &Member| {
                super::metadata::is_release_metadata(&m.path)
                    && base
                        .iter()
                        .find(|b| folders.key(&b.path) == m.path)
                        .is_some_and(|old| {
                            super::metadata::adds_no_free_text(&m.path, &old.data, &m.data, member)
                        })
            };
            let altered: Vec<String> = changed
                .iter()
                .filter(|m| is_inert(&m.path) || is_binary(&m.data))
                .filter(|m| !bumped(m))
                .map(|m| m.path.clone())
                .collect();
            if !altered.is_empty() {
                self.unread_unchanged = same.unread;
                self.altered_unread = altered;
            }
        }
        // An unchanged package.json or script that makes Node run a
        // changed file named as documentation or data: `runs_as_js` keeps
        // `required` targets among the changed members (`paths`) only.
        let changed_paths: std::collections::HashSet<&str> =
            changed.iter().map(|m| m.path.as_str()).collect();
        self.entries.extend(
            same.entries
                .into_iter()
                .filter(|(_, t)| changed_paths.contains(t.as_str())),
        );
        // A changed script that makes Node run an unchanged document
        // (is-number 7.0.1 shipped `docs/notes.txt`, 7.0.2 added
        // `require('./docs/notes.txt')`: allowed before session 40).
        let reached = self
            .required
            .iter()
            .filter(|(_, t)| same.paths.contains(t))
            .cloned()
            .collect::<Vec<_>>();
        self.reached.extend(reached);
        // A computed include names what its macro's values name: a
        // changed source's by every value, an unchanged one's by a changed
        // value (matched against every document, as a changed source's
        // names are) or by an unchanged one (against changed documents).
        self.macros_past = self.macros_past.take().or(same.macros_past.take());
        let every = self.macros.iter().chain(&same.macros);
        let names = computed_names(&self.computed, every);
        self.searched.extend(names);
        let names = computed_names(&same.computed, self.macros.iter());
        self.searched.extend(names);
        let names = computed_names(&same.computed, same.macros.iter());
        same.searched.extend(names);
        // The same for a changed source that includes an unchanged
        // document from a searched folder, and an unchanged source that
        // includes a changed one (`runs_as_js` matches `searched` against
        // the changed members).
        let reached = searched_documents(&self.searched, &same.paths);
        self.reached.extend(reached);
        self.searched.extend(same.searched);
        // And for a file's bytes embedded: a changed source's of an
        // unchanged file, an unchanged source's of a changed one.
        let reached = embedded_files(&self.embedded, &same.paths);
        self.embedded_reached.extend(reached);
        self.embedded.extend(same.embedded);
        // A flag naming a file counts once the file is known to be a
        // member, changed or not ([`resolve_compiler_files`](Self::resolve_compiler_files)).
        self.compiler_files
            .extend(same.compiler_files.into_iter().map(|f| FlagFile {
                unchanged: true,
                ..f
            }));
        self.required.extend(same.required);
        self.test_builds.extend(same.test_builds);
        // A changed script may start to run an unchanged document that
        // holds JavaScript by a path it computes, which no edge names.
        self.npm |= same.npm;
        if changed.iter().any(|m| !is_inert(&m.path)) {
            self.js_documents.extend(
                same.js_documents
                    .into_iter()
                    .map(|p| format!("{p} (unchanged)")),
            );
        }
        self.requirement_files.extend(same.requirement_files);
        self.subproject_dirs.extend(same.subproject_dirs);
        // An unchanged wrap whose folder the base shipped and the change
        // removed: Meson downloads it now ([`resolve_wraps`](Self::resolve_wraps)
        // finds the folder missing).
        if !same.wraps.is_empty() {
            let mut gone: Vec<String> = base
                .iter()
                .map(|b| folders.key(&b.path).into_owned())
                .collect();
            gone.sort_unstable();
            self.wraps.extend(
                same.wraps
                    .into_iter()
                    .filter(|(_, w)| any_under(&gone, &w.directory)),
            );
        }
        // An unchanged manifest's entry-point file counts when the change
        // altered it, as a changed manifest's counts whatever it holds.
        self.entry_point_files.extend(
            same.entry_point_files
                .into_iter()
                .filter(|f| changed_paths.contains(f.as_str())),
        );
        // A changed import of an unchanged test module opens the tests as
        // the patterns' openings do, and so does an unchanged import of
        // a changed one.
        self.test_modules.extend(same.test_modules);
        self.open_by_imports();
        // A changed line that opens the tests makes unchanged test code
        // importable; an unchanged one, the changed test code.
        if !self.openings.is_empty() {
            self.tests_unread.extend(same.tests_unread);
            self.tests_spying.extend(same.tests_spying);
        }
        self.openings.extend(same.openings);
        self.test_imports.extend(same.test_imports);
        // A file added to an unchanged package.json's bin folder is linked
        // as a command all the same.
        self.bin_dirs.extend(same.bin_dirs);
    }

    /// The note that makes the package's code opaque when a compiled
    /// source puts a shipped file's bytes into the object as they are
    /// ([`embedded`](Self::embedded)).
    fn embedded_note(&self) -> Option<String> {
        let mut pairs: Vec<(String, String)> = embedded_files(&self.embedded, &self.paths);
        pairs.extend(self.embedded_reached.iter().cloned());
        pairs.sort();
        pairs.dedup();
        let shown: Vec<String> = pairs.iter().map(|(s, f)| format!("{s} -> {f}")).collect();
        files_note(&shown, |n, names| {
            format!(
                "its compiled sources put {n} shipped file(s) into the extension byte for byte (an assembler's `.incbin`, C's `#embed`: {names}); placed in code, the bytes are machine code that runs with the package, and no reader of its text reads them: review them and allowlist the artifact by sha256"
            )
        })
    }

    /// Why the package's code is opaque ([`Input::opaque_code`]), from what
    /// its members hold, in the order notes list them; the caller puts
    /// its own reasons (compiled files, links, cut lines) first.
    fn opaque_notes(&self) -> [Option<String>; 7] {
        [
            encoding_note(&self.encoded),
            entry_note(&self.runs_as_js()),
            fetched_note(&self.fetched),
            native_note(&self.native),
            self.embedded_note(),
            self.replaces_note(),
            self.shadowing_note(),
        ]
    }

    /// Why a policy whose harm is code does not let the pre-check alone
    /// allow the package ([`Input::not_on_scores_alone`]).
    fn not_on_scores_alone(&self) -> Vec<String> {
        [
            hooks_note(&self.hooks),
            agent_orders_note(&self.agent_orders),
            unparsed_note(&self.unparsed),
            unread_note(self),
            spying_note(&self.spying),
            opened_note(self),
            self.runs_by_itself_note(),
            startup_files_note(&self.startup_files),
            declared_note(&self.declared),
            self.test_builds_note(),
            macros_note(self.macros_past.as_deref()),
            self.js_documents_note(),
            self.root_note(),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// Why a package whose one top folder is named as a test or
    /// documentation tree (`tests/`, `docs/`) is not cleared: every rule
    /// that leaves tests and docs to the models reads each of its files so,
    /// though pip installs a source archive whatever its top folder is
    /// called. cachetools repacked under `tests/` or `docs/`, its
    /// `setup.py` loading `docs/notes.txt` as Python, was allowed by the
    /// shipped gate, and under its own name was not (session 44).
    fn root_note(&self) -> Option<String> {
        let root = common_root(self.paths.iter())?;
        super::unread::tests_or_docs(&format!("{root}x.py")).then(|| {
            format!(
                "every file of this package lies under its top folder {root}, named as a test or documentation tree, so the rules read each one as a test's or a document; pip installs a source archive whatever its top folder is called: the pre-check alone does not allow it: left to detectors, or review it and allowlist the artifact by sha256"
            )
        })
    }

    /// The build scripts in a test tree that the package's build runs. The
    /// veto reads them as code, but both models read a test tree's path as
    /// a test's: cachetools with a `tests/cmake/CMakeLists.txt` sending the
    /// environment to a server, run by `add_subdirectory(tests/cmake)`, was
    /// allowed at veto 0.0013, where the same script in `src/ext/` scores
    /// 0.0030, past harmless-below (session 31).
    fn test_builds_note(&self) -> Option<String> {
        // Each pattern is matched against every member: past this many, a
        // pattern is named as written, as if it matched (a crafted package
        // could otherwise make the match cost patterns times members).
        const MATCHED_PATTERNS: usize = 64;
        let mut shown: Vec<String> = Vec::new();
        let mut patterns = 0;
        for (p, t) in &self.test_builds {
            if !t.contains(['*', '?']) {
                if self.paths.contains(t) {
                    shown.push(format!("{p} -> {t}"));
                }
                continue;
            }
            patterns += 1;
            if patterns > MATCHED_PATTERNS {
                shown.push(format!("{p} -> {t}"));
                continue;
            }
            let mut hits: Vec<&String> = self
                .paths
                .iter()
                .filter(|m| glob_matches(t.as_bytes(), m.as_bytes()))
                .collect();
            hits.sort();
            shown.extend(hits.into_iter().map(|m| format!("{p} -> {m}")));
        }
        shown.dedup();
        files_note(&shown, |n, names| {
            format!(
                "the package's build runs or compiles {n} file(s) in a test tree ({names}), which the pre-check reads as tests though building the package runs them; the pre-check alone does not allow it: left to detectors, or review them and allowlist the artifact by sha256"
            )
        })
    }

    /// The documents of a package npm installs that could run as
    /// JavaScript. Node runs any file code requires as JavaScript, and a
    /// path the code computes (`['docs', 'notes.txt'].join('/')`, a
    /// template, a loop over a folder) is not followed to its file, so
    /// the pre-check, reading such a file as prose, allowed a stealer in
    /// `docs/notes.txt` that `index.js` required so (session 40). Real
    /// documents cannot compile as JavaScript ([`super::js_syntax`]).
    fn js_documents_note(&self) -> Option<String> {
        if !self.npm {
            return None;
        }
        files_note(&self.js_documents, |n, names| {
            format!(
                "{n} file(s) named as documentation or data hold JavaScript that could run ({names}): Node runs any file the package's code requires, by a path it may compute, as JavaScript, and the pre-check reads these as documentation; the pre-check alone does not allow it: left to detectors, or review them and allowlist the artifact by sha256"
            )
        })
    }

    /// The members a wheel places where they run by themselves.
    fn runs_by_itself_note(&self) -> Option<String> {
        let shown = self.placed_where(|p| matches!(p, Placement::RunsByItself(_)));
        files_note(&shown, |n, names| {
            format!(
                "installing this wheel adds {n} file(s) that run by themselves, not when the package is used ({names}); the pre-check alone does not allow code that runs at every start: left to detectors, or review it and allowlist the artifact by sha256"
            )
        })
    }

    /// The note that makes a wheel opaque when installing it replaces the
    /// environment's configuration or commands.
    fn replaces_note(&self) -> Option<String> {
        let mut shown = self.placed_where(|p| matches!(p, Placement::Replaces(_)));
        let foreign = self
            .owned
            .iter()
            .filter(|(_, owner, _)| self.wheel.as_deref().is_some_and(|w| w != *owner));
        shown.extend(foreign.map(|(path, owner, what)| {
            format!("{path}: a file of another distribution, {owner} ({what})")
        }));
        files_note(&shown, |n, names| {
            format!(
                "installing this wheel replaces {n} file(s) that the environment or another distribution owns ({names}): pip writes a wheel's NAME.data/data/ files into the environment's folder, NAME.data/scripts/ among its commands and the rest into site-packages, and no reader of the text can judge what a file replaces; no package needs to do this: review the files and allowlist the artifact by sha256, or remove them"
            )
        })
    }

    /// The note that makes a package opaque when its `package.json` links
    /// commands over the JavaScript toolchain's own.
    fn shadowing_note(&self) -> Option<String> {
        let mut shown: Vec<String> = self
            .shadowing
            .iter()
            .map(|(p, c)| format!("{p}: bin {c}"))
            .collect();
        for (p, dir) in &self.bin_dirs {
            let prefix = format!("{dir}/");
            let mut linked: Vec<&String> = self
                .paths
                .iter()
                .filter(|f| {
                    f.starts_with(&prefix) && super::placement::toolchain_command(file_name(f).0)
                })
                .collect();
            linked.sort();
            shown.extend(
                linked
                    .into_iter()
                    .map(|f| format!("{p}: directories.bin {f}")),
            );
        }
        files_note(&shown, |n, names| {
            format!(
                "its package.json links {n} command(s) over the JavaScript toolchain's own or the system's ({names}): npm puts node_modules/.bin first on the PATH of every script it runs for the project, and a global install links them into a folder every shell searches, so each runs in place of that command, and no reader of the text can judge what it replaces; no package needs to do this: review them and allowlist the artifact by sha256"
            )
        })
    }

    /// `member: what it becomes` for the placements `kind` picks.
    fn placed_where(&self, kind: impl Fn(&Placement) -> bool) -> Vec<String> {
        self.placed
            .iter()
            .filter(|(_, p)| kind(p))
            .map(|(path, p)| format!("{path}: {}", p.what()))
            .collect()
    }

    /// (package.json or script, a file named as documentation or data that
    /// it makes Node run as JavaScript).
    fn runs_as_js(&self) -> Vec<(String, String)> {
        let required = self.required.iter().filter(|(_, t)| self.paths.contains(t));
        let mut all: Vec<(String, String)> = self
            .entries
            .iter()
            .chain(required)
            .chain(&self.reached)
            .cloned()
            .chain(searched_documents(&self.searched, &self.paths))
            .collect();
        // A source's `#include "…"` of a document beside it is found both
        // as a path and as a searched name.
        all.sort();
        all.dedup();
        all
    }
}

/// The note that keeps the pre-check from clearing a package whose
/// computed includes could not all be followed (`past`: where).
fn macros_note(past: Option<&str>) -> Option<String> {
    past.map(|at| {
        format!(
            "its compiled sources include files by more macros, or give macros more values naming documents, than Canary follows ({} of each, past them at {at}): a computed include (`#include NAME`) compiles whatever file the macro names, a document too, and the pre-check reads documents as prose; the pre-check alone does not allow it: left to detectors, or review them and allowlist the artifact by sha256",
            super::launched::MAX_MACROS
        )
    })
}

/// (source, the file names the macros it includes by are given among
/// `values`: (macro, file name)) for each of `computed` (source, macros)
/// that gets any.
fn computed_names<'a>(
    computed: &[(String, Vec<String>)],
    values: impl Iterator<Item = &'a (String, String)>,
) -> Vec<(String, Vec<String>)> {
    if computed.is_empty() {
        return Vec::new();
    }
    let mut by_macro: std::collections::HashMap<&str, Vec<&str>> = Default::default();
    for (name, value) in values {
        by_macro.entry(name).or_default().push(value);
    }
    computed
        .iter()
        .filter_map(|(source, macros)| {
            let mut names: Vec<String> = macros
                .iter()
                .filter_map(|m| by_macro.get(m.as_str()))
                .flatten()
                .map(|v| v.to_string())
                .collect();
            names.sort_unstable();
            names.dedup();
            (!names.is_empty()).then(|| (source.clone(), names))
        })
        .collect()
}

/// Whether a path of `sorted` (in order) starts with `prefix`: the first
/// one at or after it does if any does.
fn any_under<S: AsRef<str>>(sorted: &[S], prefix: &str) -> bool {
    let at = sorted.partition_point(|p| p.as_ref() < prefix);
    sorted
        .get(at)
        .is_some_and(|p| p.as_ref().starts_with(prefix))
}

/// (source, document) for each document among `paths` (named as
/// documentation or data, outside a test tree) whose path ends in a name
/// a source includes from the folders its build searches (`searched`:
/// (source, lowercased names)), at a folder's boundary: `#include <notes.txt>` with
/// `include_dirs=['docs']` compiles `docs/notes.txt` into the extension.
/// Which folders are searched is not followed, so any document so named
/// counts, by its name in any case (Windows' and macOS's file systems
/// match names so). A test tree's file so named does not: numpy's highway and
/// scipy's unuran include their own `tests/…` headers by a searched name.
/// At most 1,000 pairs ([`by_tails`]): one is enough to count, and a
/// crafted package of many sources and many same-named documents would
/// otherwise make sources times documents of them.
fn searched_documents(
    searched: &[(String, Vec<String>)],
    paths: &std::collections::HashSet<String>,
) -> Vec<(String, String)> {
    by_tails(searched, paths, |p| is_inert(p) && !in_test_tree(p))
}

/// (source, file) for each member among `paths`, of any kind and
/// wherever it lies, whose path ends in a name a source embeds the bytes
/// of (`embedded`: (source, lowercased names),
/// [`embedded_includes`](super::launched::embedded_includes)), matched as
/// [`searched_documents`] matches; at most 1,000 pairs.
fn embedded_files(
    embedded: &[(String, Vec<String>)],
    paths: &std::collections::HashSet<String>,
) -> Vec<(String, String)> {
    by_tails(embedded, paths, |_| true)
}

/// (source, member) for each member among `paths` that `counts` keeps
/// whose lowercased path ends in one of a source's `names` at a folder's
/// boundary; at most `MAX_PAIRS`.
fn by_tails(
    names: &[(String, Vec<String>)],
    paths: &std::collections::HashSet<String>,
    counts: impl Fn(&str) -> bool,
) -> Vec<(String, String)> {
    const MAX_PAIRS: usize = 1000;
    if names.is_empty() {
        return Vec::new();
    }
    // Every member kept by each of its lowercased path's tails
    // (`a/docs/notes.txt` by `notes.txt`, `docs/notes.txt` and itself):
    // one lookup per name, and as many entries as the members' paths
    // have folders.
    let documents: Vec<(String, &str)> = paths
        .iter()
        .filter(|p| counts(p))
        .map(|p| (p.to_lowercase(), p.as_str()))
        .collect();
    let mut by_tail: std::collections::HashMap<&str, Vec<&str>> = Default::default();
    for (lower, p) in &documents {
        let tails = lower.match_indices('/').map(|(i, _)| &lower[i + 1..]);
        for tail in std::iter::once(lower.as_str()).chain(tails) {
            by_tail.entry(tail).or_default().push(p);
        }
    }
    let mut out = Vec::new();
    let names = names
        .iter()
        .flat_map(|(s, names)| names.iter().map(move |n| (s, n)));
    for (source, name) in names {
        for doc in by_tail.get(name.as_str()).into_iter().flatten() {
            if out.len() == MAX_PAIRS {
                return out;
            }
            out.push((source.clone(), doc.to_string()));
        }
    }
    out
}

/// A `package.json` member, parsed; `None` for any other file, or one
/// that is not JSON ([`parse_package_json`]).
#[cfg(test)]
fn package_json(path: &str, data: &[u8]) -> Option<serde_json::Value> {
    parse_package_json(path, data)?.ok()
}

/// A `package.json` member parsed as npm reads it, after a byte-order
/// mark (npm's parser strips one; is-number whose `package.json` began
/// with one ran a `postinstall` no rule saw, session 33), or why it is not
/// JSON; `None` for any other file.
fn parse_package_json(
    path: &str,
    data: &[u8],
) -> Option<Result<serde_json::Value, serde_json::Error>> {
    if file_name(path).0 != "package.json" {
        return None;
    }
    let data = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    Some(serde_json::from_slice(data))
}

/// Whether npm reads the `package.json` at `path` when it installs the
/// package: the package's own, at the top of the archive (npm drops the
/// archive's first folder, whatever its name), or a bundled dependency's
/// (`node_modules/NAME/` or `node_modules/@SCOPE/NAME/`). Others (a test
/// fixture's, a template's) it never reads.
fn npm_reads(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let n = parts.len();
    let at = |back: usize| n.checked_sub(back).map(|i| parts[i]);
    n <= 2
        || at(3) == Some("node_modules")
        || (at(4) == Some("node_modules") && at(3).is_some_and(|s| s.starts_with('@')))
}

/// What npm runs at install because of a `package.json`: its `preinstall`,
/// `install` and `postinstall` scripts. One at any depth counts: npm runs
/// the scripts of bundled dependencies too.
fn install_scripts(json: &serde_json::Value) -> Option<String> {
    let scripts = json.get("scripts")?;
    let run: Vec<String> = ["preinstall", "install", "postinstall"]
        .iter()
        .filter_map(|k| {
            let cmd = scripts.get(*k)?.as_str()?.trim();
            (!cmd.is_empty()).then(|| format!("{k} `{cmd}`"))
        })
        .collect();
    (!run.is_empty()).then(|| run.join(", "))
}

/// (file, line) pairs as `file:line`, as the notes name them.
fn at_lines(found: &[(String, usize)]) -> Vec<String> {
    found.iter().map(|(p, n)| format!("{p}:{n}")).collect()
}

/// (file, line, what is there) triples as `file:line what`.
fn at_lines_saying(found: &[(String, usize, &str)]) -> Vec<String> {
    found
        .iter()
        .map(|(p, n, what)| format!("{p}:{n} {what}"))
        .collect()
}

/// The note that keeps a pre-check from allowing code that runs text it
/// does not hold ([`super::unread`]).
fn unread_note(hidden: &HiddenCode) -> Option<String> {
    let unchanged = unread_unchanged_note(&hidden.unread_unchanged, &hidden.altered_unread);
    opaque([changed_unread_note(&hidden.unread), unchanged])
}

/// The reason for lines a version diff left as they were: they run text
/// that the change altered and the pre-check read as documentation, data
/// or bytes.
fn unread_unchanged_note(found: &[(String, usize)], altered: &[String]) -> Option<String> {
    let shown = at_lines(found);
    let altered = crate::util::first_few(altered, 5);
    files_note(&shown, |n, names| {
        format!(
            "{n} unchanged code file(s) run code they do not hold ({names}), and the change alters files the pre-check reads as documentation, data or bytes, not as code ({altered}); the pre-check alone does not allow code it has not read: left to detectors, or review it and allowlist the artifact by sha256"
        )
    })
}

/// The reason for changed (or, without a base, any) code files that run
/// code they do not hold.
fn changed_unread_note(found: &[(String, usize)]) -> Option<String> {
    let shown = at_lines(found);
    files_note(&shown, |n, names| {
        format!(
            "{n} code file(s) run code they do not hold (a file run by its path, a string built at run time passed to exec, eval, Function or the like, bytes given to a loader that runs what they say, such as pickle, a command built at run time handed to a shell or to system() and its kin, or a download piped into a shell: {names}); the pre-check alone does not allow code it has not read: left to detectors, or review it and allowlist the artifact by sha256"
        )
    })
}

/// Why lines of tests and docs are among those the notes name.
fn opened_note(hidden: &HiddenCode) -> Option<String> {
    if hidden.opened == 0 {
        return None;
    }
    let shown = at_lines(&hidden.openings);
    files_note(&shown, |_, names| {
        format!(
            "{} of those lines are in tests or documentation, and count because the package's code makes them importable ({names}: a write to the import path, an import from them, or a setting that makes a build, an entry point, Jupyter or Node run them)",
            hidden.opened
        )
    })
}

/// The reason the pre-check alone does not allow a package whose code
/// watches the user or makes a program run again.
fn spying_note(found: &[(String, usize, &str)]) -> Option<String> {
    let shown = at_lines_saying(found);
    files_note(&shown, |n, names| {
        format!(
            "{n} file(s) hold code that spies on the user or the machine, makes a program run again, runs a command past subprocess, waits for connections, or writes into another installed package, an installer's configuration or a shell's startup file ({names}), which a library rarely needs and stealers and implants are made of; the pre-check alone does not allow it: left to detectors, or review it and allowlist the artifact by sha256"
        )
    })
}

/// The reason the pre-check alone does not allow a package whose manifests
/// name the environment's configuration files or commands.
fn declared_note(found: &[(String, usize, &str)]) -> Option<String> {
    let shown = at_lines_saying(found);
    files_note(&shown, |n, names| {
        format!(
            "{n} manifest(s) may place files over the environment's own or where Python, Jupyter, a shell, systemd or D-Bus runs them by themselves ({names}): setuptools installs data files relative to the environment's folder, a .pth file or sitecustomize module in site-packages (or, on Windows, the environment's folder) runs whenever Python starts, and pip writes a launcher for each console script among its commands; the pre-check alone does not allow it: left to detectors, or review it and allowlist the artifact by sha256"
        )
    })
}

/// The note that makes an input's code opaque when it holds native machine
/// code ([`native_code`]).
fn native_note(found: &[(String, &'static str)]) -> Option<String> {
    let shown: Vec<String> = found.iter().map(|(p, k)| format!("{p} ({k})")).collect();
    files_note(&shown, |n, names| {
        format!(
            "holds {n} file(s) of native machine code or WebAssembly that no reader of its text can judge ({names}): Python and Node load extension modules and WebAssembly modules as they are, and a package runs the executables it ships; review the binaries, or scan the source they were built from, and allowlist the artifact by sha256"
        )
    })
}

/// How a fetched note names a Meson wrap: its URL, and whether a hash or
/// a commit id pins what it fetches.
fn wrap_description(wrap: &super::fetched::WrapFetch) -> String {
    match wrap.pinned {
        true => format!("Meson wrap {} (pinned by a hash)", wrap.url),
        false => format!("Meson wrap {}", wrap.url),
    }
}

/// A compiler flag in a manifest or build script that names a file: the
/// compiler reads it as more options (`@FILE`) or runs it as one of its
/// programs (`-B`).
struct FlagFile {
    /// The manifest or build script.
    script: String,
    /// The archive paths the flag may name; the first that is a member
    /// counts.
    candidates: Vec<String>,
    /// The flag as written.
    flag: String,
    /// Whether the compiler reads the file as options.
    options: bool,
    /// Whether a version diff left the script as it was.
    unchanged: bool,
}

/// The note that makes an input's code opaque when installing it fetches
/// dependencies from outside a registry ([`super::fetched`]).
fn fetched_note(found: &[(String, String)]) -> Option<String> {
    let shown: Vec<String> = found.iter().map(|(p, d)| format!("{p}: {d}")).collect();
    files_note(&shown, |n, names| {
        format!(
            "installing this package fetches {n} dependenc(y/ies) from outside a registry ({names}), whose code no reader of this package's text can judge and which, unless pinned by a hash, can change without a new release; review what it fetches and allowlist the artifact by sha256"
        )
    })
}

/// The reason the pre-check alone does not allow a package whose install
/// runs its code.
fn hooks_note(hooks: &[(String, String)]) -> Option<String> {
    let shown: Vec<String> = hooks.iter().map(|(p, h)| format!("{p}: {h}")).collect();
    files_note(&shown, |n, names| {
        format!(
            "installing this package runs its code ({n} install hook(s): {names}); the pre-check alone does not allow install-time code, as pnpm and Bun do not run it without consent: left to detectors, or review it and allowlist the artifact by sha256"
        )
    })
}

/// The reason the pre-check alone does not allow a package whose files
/// for AI agents order a download run ([`super::agents`]).
fn agent_orders_note(orders: &[(String, usize)]) -> Option<String> {
    let shown: Vec<String> = orders.iter().map(|(p, l)| format!("{p}:{l}")).collect();
    files_note(&shown, |n, names| {
        format!(
            "{n} file(s) written for AI coding agents order a download piped into a shell ({names}); an agent that works in the unpacked package follows them with its own tools, and what it would run is fetched when it runs: left to detectors, or review them and allowlist the artifact by sha256"
        )
    })
}

/// The note for `package.json` files npm reads that are not JSON to this
/// parser, and a `pyproject.toml` pip reads that is not TOML to it
/// ([`unparsed_pyproject`](super::fetched::unparsed_pyproject)). npm's
/// parser is JavaScript's, which takes what serde's refuses (lone
/// surrogate escapes such as `"\\ud800"`, nesting past 128 levels, bytes
/// that are not UTF-8 inside a string), and pip's is Python's `tomllib`,
/// which takes deeper nesting than this one, so such a file may still name
/// install scripts or dependencies an install runs that no rule here has
/// seen.
fn startup_files_note(files: &[(String, &str)]) -> Option<String> {
    let shown: Vec<String> = files
        .iter()
        .map(|(p, what)| format!("{p}: {what}"))
        .collect();
    files_note(&shown, |n, names| {
        format!(
            "{n} file(s) of this package would run by themselves, configure the environment or replace a command if its build installed them where their names take effect ({names}): a build can place any of a source package's files, its tests' and docs' too, by a folder or a pattern that no rule follows (flit's external-data, Hatch's shared-data and shared-scripts, a glob among setuptools' data files), and no package needs to install such a file; the pre-check alone does not allow it: left to detectors, or review it and allowlist the artifact by sha256"
        )
    })
}

fn unparsed_note(files: &[(String, String)]) -> Option<String> {
    let shown: Vec<String> = files.iter().map(|(p, e)| format!("{p}: {e}")).collect();
    files_note(&shown, |n, names| {
        format!(
            "{n} manifest(s) that npm or pip reads could not be parsed here ({names}); their parsers accept some text this one refuses, so what they make an install run or fetch is not known: left to detectors, or review them and allowlist the artifact by sha256"
        )
    })
}

/// `target` (a path as a `package.json` or a `require` writes it) from the
/// folder `dir`, or `None` when it climbs out of the archive.
pub(super) fn resolve_from(dir: &str, target: &str) -> Option<String> {
    super::archive::walk_from(dir.split('/').filter(|p| !p.is_empty()).collect(), target)
}

/// Whether Node runs `path` as JavaScript when told to load it (any
/// extension but `.json` and `.node`), or a program runs it as a script,
/// though its name says documentation or data, so the scan reads it as
/// such.
fn runs_as_js_but_reads_inert(path: &str) -> bool {
    let ext = extension(&file_name(path).1).to_string();
    is_inert(path) && ext != "json" && ext != "node"
}

/// The files code at `path` runs by their path ([`super::launched`]) whose
/// names say documentation or data.
fn launched_but_read_inert(path: &str, data: &[u8]) -> Vec<String> {
    let mut found = super::launched::launched_paths(path, data);
    found.retain(|t| runs_as_js_but_reads_inert(t));
    found
}

/// What the build runs because of the file at `path` that no reader judges
/// as code the build runs: (the documents and data it includes, which a
/// build system reads as more of the script whatever their names, JSON
/// too; the files in a test tree it runs or compiles). The latter are the
/// build scripts it runs (`add_subdirectory(tests/cmake)`,
/// `subdir('tests')`, `include(tests/helpers.cmake)`;
/// [`super::launched::run_by_build`]) and the sources it compiles
/// (`sources=['tests/data/speed.c']`;
/// [`super::launched::compiled_sources`]; a `*` or `?` in one is matched
/// against the members later, [`HiddenCode::test_builds_note`]).
fn build_runs(file: &super::code::Code) -> (Vec<String>, Vec<String>) {
    let path = file.path;
    let (mut included, code): (Vec<String>, Vec<String>) = super::launched::run_by_build(file)
        .into_iter()
        .partition(|t| is_inert(t));
    // The files its commands run ([`super::launched::run_by_build_commands`])
    // and Cargo compiles whatever their names: a document among them runs
    // as code no reader saw, and a test tree's file, of any kind, is read
    // as tests.
    let ran = super::launched::run_by_build_commands(file);
    let document = |t: &String| is_inert(t) && !in_test_tree(t);
    included.extend(ran.iter().filter(|t| document(t)).cloned());
    // A test tree's script that runs another adds nothing: it runs only if
    // a script outside the tree runs it, and that edge is counted.
    if in_test_tree(path) {
        return (included, Vec::new());
    }
    let mut tests: Vec<String> = code
        .into_iter()
        .filter(|t| in_test_tree(t) && is_build_script(&file_name(t).1))
        .collect();
    tests.extend(ran.into_iter().filter(|t| in_test_tree(t)));
    let compiled = super::launched::compiled_sources(path, file.data);
    included.extend(compiled.iter().filter(|t| document(t)).cloned());
    tests.extend(compiled.into_iter().filter(|t| in_test_tree(t)));
    (included, tests)
}

/// Whether `path` matches `pattern`, where `*` stands for any run of
/// characters and `?` for one, neither of them `/` (Python's `glob`
/// without `**`).
fn glob_matches(pattern: &[u8], path: &[u8]) -> bool {
    // Where the last `*` was, in both: on a mismatch, let it take one more
    // character. Linear in practice, never more than |pattern| * |path|.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < path.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(&c) if c == path[t] || (c == b'?' && path[t] != b'/') => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) if path[st] != b'/' => {
                    star = Some((sp, st + 1));
                    p = sp + 1;
                    t = st + 1;
                }
                _ => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// Of the files a `package.json` makes Node run (`targets`, its
/// [`node_entry_targets`]), those whose names say documentation or data:
/// Node loads a `main`
/// of any extension but `.json` and `.node` as JavaScript, so
/// `"main": "docs/notes.txt"` ran a stealer that was read as prose
/// (allowed before session 16), and so does `require('#m')` through
/// `"imports": {"#m": "./docs/notes.txt"}` (allowed before session 27;
/// Node 20 runs such a file). An `imports` target not starting with `./`
/// names another package, not a file of this one.
fn node_entry_points(targets: &[String]) -> impl Iterator<Item = &String> {
    targets
        .iter()
        .filter(|full| runs_as_js_but_reads_inert(full))
}

/// Where a `package.json` (`code`) makes an entry point of a file in the
/// tests or docs (`targets`, its [`node_entry_targets`]): the 1-based line
/// that names the first, or `None`. Node runs it when the package is used,
/// so its lines are the package's own: is-number whose `"main"` (or `bin`,
/// or `exports`) was `test/entry.js`, an `eval` of a decoded string in it,
/// was allowed by every rule (session 31), the test file's line not
/// counting.
fn entry_in_tests_or_docs(targets: &[String], code: &super::code::Code) -> Option<usize> {
    // A fixture's package.json in the tests names its own files.
    if super::unread::tests_or_docs(code.path) {
        return None;
    }
    let first = targets.iter().find(|t| super::unread::tests_or_docs(t))?;
    let name = file_name(first).0;
    let at = memchr::memmem::find(code.data, name.as_bytes()).unwrap_or(0);
    Some(code.line_of(at))
}

/// Every file a `package.json` at `path` makes Node run (its `main`, its
/// `bin` commands, its `exports` and its `imports`) or a bundler or CDN
/// serve as the package's code ([`BUNDLER_ENTRIES`]), from the archive
/// root ([`node_entry_points`] keeps those named as documentation or data).
fn node_entry_targets(path: &str, json: &serde_json::Value) -> Vec<String> {
    fn strings<'a>(v: &'a serde_json::Value, out: &mut Vec<&'a str>) {
        match v {
            serde_json::Value::String(s) => out.push(s),
            serde_json::Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
            // Export conditions Node never loads (stylesheets and type
            // declarations for bundlers and editors): tailwindcss's
            // `"style": "./index.css"` is not code.
            serde_json::Value::Object(o) => o
                .iter()
                .filter(|(k, _)| {
                    !matches!(k.as_str(), "style" | "sass" | "less" | "types" | "typings")
                })
                .for_each(|(_, v)| strings(v, out)),
            _ => {}
        }
    }
    let mut targets = Vec::new();
    for key in ["main", "bin", "exports"] {
        if let Some(v) = json.get(key) {
            strings(v, &mut targets);
        }
    }
    if let Some(v) = json.get("imports") {
        let mut imports = Vec::new();
        strings(v, &mut imports);
        targets.extend(imports.into_iter().filter(|t| t.starts_with("./")));
    }
    let mut bundled = Vec::new();
    for key in BUNDLER_ENTRIES {
        match json.get(key) {
            // A replacement map (`"browser": {"./lib/node.js":
            // "./lib/browser.js", "fs": false}`): its values are what the
            // bundle holds, a file where one starts with `./` or `../`,
            // another package where it does not.
            Some(v @ serde_json::Value::Object(_)) if matches!(key, "browser" | "react-native") => {
                let mut replacements = Vec::new();
                strings(v, &mut replacements);
                bundled.extend(
                    replacements
                        .into_iter()
                        .filter(|t| t.starts_with("./") || t.starts_with("../")),
                );
            }
            // A path, or `"esnext": {"main": …, "browser": …}`: paths.
            Some(v) => {
                let mut paths = Vec::new();
                strings(v, &mut paths);
                bundled.extend(paths);
            }
            None => {}
        }
    }
    // A CSS framework's `"unpkg": "dist/x.min.css"` is its stylesheet.
    let stylesheet =
        |t: &str| matches!(extension(&file_name(t).1), "css" | "scss" | "sass" | "less");
    targets.extend(bundled.into_iter().filter(|t| !stylesheet(t)));
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    targets
        .into_iter()
        .filter_map(|t| resolve_from(dir, t))
        .collect()
}

/// The `package.json` fields that name the file a bundler (webpack,
/// rollup, browserify, Metro) builds into the apps that use the package,
/// or a CDN serves for a `<script>` tag, in place of `main`: their code
/// runs in those apps and their users' browsers (the drainers of npm's
/// 2025 account takeovers were browser code). Webpack and rollup read a
/// file of any extension as JavaScript, so `"browser": "docs/notes.txt"`
/// is code; a stylesheet is not.
const BUNDLER_ENTRIES: [&str; 10] = [
    "browser",
    "module",
    "jsnext:main",
    "jsnext",
    "es2015",
    "esnext",
    "react-native",
    "umd:main",
    "unpkg",
    "jsdelivr",
];

/// The note that makes an input's code opaque when a `package.json` or a
/// `require` makes Node run files whose names say documentation or data.
fn entry_note(entries: &[(String, String)]) -> Option<String> {
    let shown: Vec<String> = entries.iter().map(|(p, t)| format!("{p} -> {t}")).collect();
    files_note(&shown, |n, names| {
        format!(
        "{n} file(s) named as documentation or data are run as code (a package.json's main, bin, exports, imports or bundler entry such as browser or module, code that requires, forks or runs them by path, a build script or compiled source that includes or runs them, or a manifest that installs them under a code file's name: {names}), but were read as documentation or data; review them and allowlist the artifact by sha256"
    )
    })
}

/// The note that makes an input's code opaque when Python files declare a
/// source encoding under which their bytes may run as other text.
fn encoding_note(files: &[(String, String)]) -> Option<String> {
    let shown: Vec<String> = files.iter().map(|(p, e)| format!("{p} ({e})")).collect();
    files_note(&shown, |n, names| {
        format!(
        "{n} Python file(s) declare a source encoding under which their bytes run as other text than the scan reads ({names}): Python decodes them first, so `+AGkAbQBw…` (utf-7) or `\\x69\\x6d…` (unicode_escape) runs as code; review them and allowlist the artifact by sha256"
    )
    })
}

/// Whether a file renders as one `Binary file` line: a NUL byte in its
/// first 8 KB, as the corpus decides, except in a scan for a file that runs
/// with one: Node runs a `.js` with a NUL in a comment and bash a script,
/// so such a file of is-number holding string-padder's stealer after
/// `// \0` was one line and allowed. (Python refuses source with a NUL.)
fn renders_as_binary(path: &str, data: &[u8], mode: RenderMode) -> bool {
    if !is_binary(data) {
        return false;
    }
    let ext = file_name(path).1;
    let runs =
        matches!(extension(&ext), "js" | "cjs" | "mjs" | "sh" | "bash") || data.starts_with(b"#!");
    mode == RenderMode::Corpus || !runs
}

/// An added file's section, and whether a line of it was cut where the
/// part cut off shows a capability (see `Section::cut_capability`).
fn added(m: &Member, mode: RenderMode) -> (String, bool) {
    match AddedBody::render(&m.path, &m.data, mode, |n| added_header(&m.path, n)) {
        AddedBody::Binary => (binary_added(&m.path), false),
        AddedBody::Empty => (empty_added(&m.path), false),
        AddedBody::Lines { body, cut, .. } => (body, cut),
    }
}

/// An added file's rendering. [`added`] renders it with its header;
/// [`AddedBody::of`] renders only the body, before the package's final
/// paths are known (root stripping depends on every member), which is
/// right in scan mode only: the corpus's per-file cap counts the header.
enum AddedBody {
    Binary,
    Empty,
    /// `cut`: see `Section::cut_capability`.
    Lines {
        n: usize,
        body: String,
        cut: bool,
    },
}

impl AddedBody {
    fn of(path: &str, data: &[u8]) -> AddedBody {
        AddedBody::render(path, data, RenderMode::Scan, |_| String::new())
    }

    /// The file's text as rendered (each line without its `+`), or `None`
    /// for a binary or empty file.
    fn text(&self) -> Option<Vec<u8>> {
        let AddedBody::Lines { body, .. } = self else {
            return None;
        };
        let mut out = Vec::with_capacity(body.len());
        for line in body.split_inclusive('\n') {
            out.extend_from_slice(line.strip_prefix('+').unwrap_or(line).as_bytes());
        }
        Some(out)
    }

    /// The `+` lines of an added file, after `start(line count)`: the
    /// header for [`added`], nothing for a body whose header comes later.
    fn render(
        path: &str,
        data: &[u8],
        mode: RenderMode,
        start: impl FnOnce(usize) -> String,
    ) -> AddedBody {
        if renders_as_binary(path, data, mode) {
            return AddedBody::Binary;
        }
        let text = decode_as(path, data, mode);
        let (n, lines) = lines_of(&text);
        if n == 0 {
            return AddedBody::Empty;
        }
        let start = start(n);
        let mut body = String::with_capacity(start.len() + text.len() + n);
        body.push_str(&start);
        let mut s = Section::new(body, mode);
        if mode == RenderMode::Scan {
            s.added_lines(&text);
        } else {
            for l in lines.take(n) {
                s.line(Some('+'), l);
            }
        }
        AddedBody::Lines {
            n,
            cut: s.cut_capability,
            body: s.s,
        }
    }

    /// Appends the section as [`added`] writes it in scan mode: the header,
    /// then the body, moved rather than copied.
    fn push_to(self, path: &str, out: &mut Text) {
        match self {
            AddedBody::Binary => out.push(binary_added(path)),
            AddedBody::Empty => out.push(empty_added(path)),
            AddedBody::Lines { n, body, .. } => {
                out.push(added_header(path, n));
                out.push(body);
            }
        }
    }
}

fn deleted(m: &Member, mode: RenderMode) -> String {
    if renders_as_binary(&m.path, &m.data, mode) {
        return format!("Binary file a/{} deleted\n", m.path);
    }
    let text = decode_as(&m.path, &m.data, mode);
    let (n, lines) = lines_of(&text);
    if n == 0 {
        return format!("--- a/{}\n+++ /dev/null\n", m.path);
    }
    let header = format!("--- a/{}\n+++ /dev/null\n@@ -1,{} +0,0 @@\n", m.path, n);
    let mut s = Section::new(header, mode);
    for l in lines.take(n) {
        s.line(Some('-'), l);
    }
    s.s
}

/// A changed file's section (see [`added`] for the flag).
fn modified(old: &Member, new: &Member, mode: RenderMode) -> Option<(String, bool)> {
    if old.data == new.data {
        return None;
    }
    if renders_as_binary(&old.path, &old.data, mode)
        || renders_as_binary(&new.path, &new.data, mode)
    {
        return Some((
            format!("Binary files a/{} and b/{} differ\n", old.path, new.path),
            false,
        ));
    }
    let (a, b) = (
        decode_as(&old.path, &old.data, mode),
        decode_as(&new.path, &new.data, mode),
    );
    if a == b {
        return None;
    }
    let diff = similar::TextDiff::from_lines(&a, &b);
    let mut s = Section::new(format!("--- a/{}\n+++ b/{}\n", old.path, new.path), mode);
    for hunk in diff.unified_diff().context_radius(3).iter_hunks() {
        s.line(None, &hunk.header().to_string());
        for change in hunk.iter_changes() {
            let sign = match change.tag() {
                similar::ChangeTag::Delete => '-',
                similar::ChangeTag::Insert => '+',
                similar::ChangeTag::Equal => ' ',
            };
            let v = change.value();
            s.line(Some(sign), v.strip_suffix('\n').unwrap_or(v));
        }
    }
    Some((s.s, s.cut_capability))
}

/// The rendered text and the byte offset of each file section.
pub struct Rendered {
    pub text: String,
    pub sections: Vec<(usize, String)>,
    /// Files with a line cut where the part cut off shows a capability.
    pub cut_capability: Vec<String>,
}

/// Renders a package, or the change from `base` to `new`. Takes the
/// packages by value: each chunk of members is dropped as soon as it is
/// rendered, so peak memory is about the package or the text, not both.
pub fn render(base: Option<Package>, new: Package, mode: RenderMode) -> Rendered {
    render_paired(base, new, mode, &WheelFolders::default())
}

/// [`render`], with a base member paired to the new member at the path
/// `folders` gives it.
fn render_paired(
    base: Option<Package>,
    new: Package,
    mode: RenderMode,
    folders: &WheelFolders,
) -> Rendered {
    let mut old_by_path: std::collections::HashMap<String, Member> = base
        .map(|b| {
            b.members
                .into_iter()
                .map(|m| (folders.key(&m.path).into_owned(), m))
                .collect()
        })
        .unwrap_or_default();
    type File = (String, Option<Member>, Option<Member>);
    let mut files: Vec<File> = new
        .members
        .into_iter()
        .map(|m| (m.path.clone(), old_by_path.remove(&m.path), Some(m)))
        .collect();
    files.extend(old_by_path.into_iter().map(|(p, o)| (p, Some(o), None)));
    sort_files(&mut files, |f| &f.0);
    // Last-first, so chunks come off the end in render order.
    files.reverse();
    let mut text = String::new();
    let mut sections = Vec::new();
    let mut cut_capability = Vec::new();
    let total = files.len();
    let mut done = 0;
    let mut freed = 0usize;
    // Files render independently, so each chunk renders in parallel.
    const CHUNK: usize = 64;
    while !files.is_empty() {
        let mut chunk = files.split_off(files.len().saturating_sub(CHUNK));
        chunk.reverse();
        let one = |(_, old, new): &File| match (old, new) {
            (None, Some(n)) => Some(added(n, mode)),
            (Some(o), None) => Some((deleted(o, mode), false)),
            (Some(o), Some(n)) => modified(o, n, mode),
            (None, None) => None,
        };
        // Small packages (most of them) render faster without the thread hop.
        let rendered: Vec<Option<(String, bool)>> = if total >= 32 {
            chunk.par_iter().map(one).collect()
        } else {
            chunk.iter().map(one).collect()
        };
        for (j, ((path, _, _), s)) in chunk.iter().zip(rendered).enumerate() {
            let Some((s, cut)) = s else { continue };
            if mode == RenderMode::Corpus && text.len() + s.len() > SAMPLE_CAP {
                text.push_str(&format!(
                    "\\ [truncated: diff exceeds 64 KB; {} more file(s) omitted]\n",
                    total - (done + j)
                ));
                return Rendered {
                    text,
                    sections,
                    cut_capability,
                };
            }
            if cut {
                cut_capability.push(path.clone());
            }
            sections.push((text.len(), path.clone()));
            text.push_str(&s);
        }
        done += chunk.len();
        freed += chunk
            .iter()
            .flat_map(|(_, o, n)| [o, n])
            .flatten()
            .map(|m| m.data.len())
            .sum::<usize>();
        drop(chunk);
        // Trimming walks the whole heap: worth it only for large packages.
        if freed >= TRIM_EVERY {
            release_freed_memory();
            freed = 0;
        }
    }
    Rendered {
        text,
        sections,
        cut_capability,
    }
}

/// Each path's first item, for lookups by path: a search of the whole list
/// per lookup is quadratic in what a crafted package controls.
fn first_by_path<'a, T>(
    items: impl Iterator<Item = (&'a str, T)>,
) -> std::collections::HashMap<&'a str, T> {
    let mut map = std::collections::HashMap::new();
    for (path, item) in items {
        map.entry(path).or_insert(item);
    }
    map
}

/// Archives smaller than this are read, hashed and rendered on one thread.
const SMALL_ARCHIVE: u64 = 32 * 1024;

fn is_small_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() < SMALL_ARCHIVE)
}

/// Members handed to one rendering task: enough to amortise the hand-off,
/// few enough that a package of many small files still spreads over cores.
const BATCH_MEMBERS: usize = 16;
const BATCH_BYTES: usize = 128 << 10;

/// Scan mode, one package, no base: what `render(None, package, Scan)`
/// gives, byte for byte, but each member is rendered while the archive is
/// still being decompressed (one core) by the others, and its bytes are
/// dropped as soon as its section body is written. Only the headers wait
/// for the end, since root stripping and file order depend on every member.
fn render_streamed(path: &Path, limits: &Limits) -> Input {
    let source = path.display().to_string();
    let bodies = std::sync::Mutex::new(Vec::<(String, AddedBody)>::new());
    let hidden = std::sync::Mutex::new(HiddenCode::for_package(path));
    let render_batch = |batch: Vec<Member>| {
        let mut found = HiddenCode::for_package(path);
        let done: Vec<(String, AddedBody)> = batch
            .into_iter()
            .map(|m| {
                found.look_at(&m);
                let body = AddedBody::of(&m.path, &m.data);
                (m.path, body)
            })
            .collect();
        if let Ok(mut all) = hidden.lock() {
            all.extend(found);
        }
        // Only a panic while holding the lock poisons it (and a scope
        // re-raises a task's panic). A poisoned lock stays poisoned, so the
        // package is refused below, never rendered from part of its members.
        if let Ok(mut all) = bodies.lock() {
            all.extend(done);
        }
    };
    let (sha, bytes, package) = if is_small_file(path) {
        // Most packages: the hand-offs would cost more than they save.
        load_package_with(path, limits, Some(&mut |m: Member| render_batch(vec![m])))
    } else {
        rayon::scope(|scope| {
            let render_batch = &render_batch;
            let spawn = |batch: Vec<Member>| scope.spawn(move |_| render_batch(batch));
            let mut batch = Vec::new();
            let mut batch_bytes = 0;
            let loaded = load_package_with(
                path,
                limits,
                Some(&mut |m: Member| {
                    batch_bytes += m.data.len();
                    batch.push(m);
                    if batch.len() >= BATCH_MEMBERS || batch_bytes >= BATCH_BYTES {
                        spawn(std::mem::take(&mut batch));
                        batch_bytes = 0;
                    }
                }),
            );
            spawn(batch);
            loaded
        })
    };
    let kind = InputKind::Package;
    let fail = |error: String, notes| package_input(&source, kind, &sha, bytes, notes, Err(error));
    let (notes, links) = match package {
        Ok(p) => (p.notes, p.links),
        Err(e) => return fail(format!("{source}: {e}"), Vec::new()),
    };
    let Ok(mut files) = bodies.into_inner() else {
        return fail(
            format!("{source}: rendering failed (internal error); the package was not scanned"),
            notes,
        );
    };
    // What the members hold, refused as the bodies are when a worker
    // panicked: a partial account could allow what it missed.
    let Ok(mut hidden) = hidden.into_inner() else {
        return fail(
            format!("{source}: rendering failed (internal error); the package was not scanned"),
            notes,
        );
    };
    // A manifest's requirement files, read from their rendered bodies
    // while the paths are still as the manifests were read.
    // By path, once: a search of every file per requirement file made a
    // package naming 40,000 of them quadratic (4 s, in string compares).
    let by_path = first_by_path(files.iter().map(|f| (f.0.as_str(), &f.1)));
    hidden.resolve_named_files(|p| by_path.get(p).and_then(|body| body.text()));
    hidden.resolve_wraps(by_path.keys().copied());
    hidden.resolve_compiler_files(by_path.keys().copied());
    drop(by_path);
    hidden.resolve_computed();
    hidden.count_tests_if_opened();
    hidden.sort();
    normalise_paths(&mut files, |f| &mut f.0, RenderMode::Scan);
    // File order before anything is listed from them: bodies arrive in
    // the order the workers finish them, and a note listing files in that
    // order differed from run to run (webpack's cut-line note did).
    sort_files(&mut files, |f| &f.0);
    let opaque_compiled =
        compiled_note(files.iter().map(|f| f.0.as_str()).filter(|p| is_opaque(p)));
    let opaque_cut = cut_note(
        files
            .iter()
            .filter(|f| matches!(f.1, AddedBody::Lines { cut: true, .. }))
            .map(|f| f.0.as_str()),
        &hidden,
    );
    if files.is_empty() {
        return fail(
            format!("{source}: the package holds no regular files"),
            notes,
        );
    }
    let n_files = files.len();
    // The bodies become the text's pieces in file order: no copy.
    let mut text = Text::default();
    let mut sections = Vec::with_capacity(files.len());
    for (path, body) in files {
        sections.push((text.len(), path));
        body.push_to(&sections[sections.len() - 1].1, &mut text);
    }
    let mut input = package_input(&source, kind, &sha, bytes, notes, Ok((text, sections)));
    let repositories = super::repository::note(&hidden.repositories.findings(&links));
    input.opaque_code = opaque(
        [
            opaque_compiled,
            linked_note(&links),
            repositories,
            opaque_cut,
        ]
        .into_iter()
        .chain(hidden.opaque_notes()),
    );
    input.not_on_scores_alone = hidden.not_on_scores_alone();
    if !holds_content(&input.text) {
        input.unjudgeable = Some(format!(
            "the package holds no readable text: its {n_files} file(s) are all binary or empty, so the pre-check and the detectors would judge file names alone; review its files by hand, or allowlist the artifact by sha256"
        ));
    }
    input
}

/// Whether a rendered text holds any line of a file's content (added,
/// removed or context), not only headers, hunk ranges, markers and
/// `Binary file …` lines. A text without one gives the pre-check nothing
/// but file names: an empty `setup.py` scored as harmful, and a package of
/// binaries alone (or a release that changes only binaries) as harmless.
pub fn holds_content(text: &Text) -> bool {
    text.pieces().any(|piece| {
        piece.lines().any(|l| match l.as_bytes() {
            [b'+', b'+', b'+', b' ', ..] | [b'-', b'-', b'-', b' ', ..] => false,
            [b'+' | b'-' | b' ', ..] => true,
            _ => false,
        })
    })
}

/// The input a package scan hands on: its text, or the error that blocks it.
fn package_input(
    source: &str,
    kind: InputKind,
    sha256: &str,
    bytes: u64,
    notes: Vec<String>,
    rendered: Result<(Text, Vec<(usize, String)>), String>,
) -> Input {
    let (text, sections, error) = match rendered {
        Ok((text, sections)) => (text, sections, None),
        Err(e) => (Text::default(), Vec::new(), Some(e)),
    };
    Input {
        id: None,
        source: source.to_string(),
        kind,
        sha256: sha256.to_string(),
        bytes,
        text: std::sync::Arc::new(text),
        notes,
        error,
        unjudgeable: None,
        opaque_code: None,
        not_on_scores_alone: Vec::new(),
        sections,
        base: None,
    }
}

/// Member bytes rendered (and dropped) between two heap trims.
const TRIM_EVERY: usize = 32 << 20;

/// Hands the members just rendered back to the OS. glibc keeps freed heap
/// memory for reuse, so without this a package's members and its text are
/// both resident at the end of rendering (botocore: ~290 MiB, not ~150).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn release_freed_memory() {
    // SAFETY: malloc_trim only returns free pages; it touches no live data.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn release_freed_memory() {}

/// A version diff's new members as they arrive: each one equal to the
/// base's member at its path is set aside (its bytes dropped) as unchanged.
/// Paths are compared as rendering will name them, with the package's root
/// folder stripped, and that root is only known for sure at the end, so it
/// is guessed: none when the base had none (a wheel: a root guessed from its
/// first member failed at the second folder, and every unchanged member of
/// a wheel upgrade was then judged as changed), else from the first member;
/// [`Unchanged::finish`] checks the guess and, when it was wrong, puts every
/// member back as it was read.
#[derive(Default)]
struct Unchanged {
    /// The base's paths share no root folder: guess that the new's do not.
    base_rootless: bool,
    /// `Some(root)` once the first member arrived (`None` inside: no root).
    root: Option<Option<String>>,
    root_holds: bool,
    kept: Vec<Member>,
    /// (path as read, the base's equal member).
    same: Vec<(String, Member)>,
}

impl Unchanged {
    fn take(&mut self, m: Member, old: &mut std::collections::HashMap<String, Member>) {
        let base_rootless = self.base_rootless;
        let root = self.root.get_or_insert_with(|| {
            self.root_holds = true;
            if base_rootless {
                None
            } else {
                m.path.split_once('/').map(|(r, _)| format!("{r}/"))
            }
        });
        let key = match root {
            Some(r) => match m.path.strip_prefix(r.as_str()) {
                Some(k) => k,
                None => {
                    self.root_holds = false;
                    &m.path
                }
            },
            None => &m.path,
        };
        if old.get(key).is_some_and(|o| o.data == m.data) {
            let mut o = old.remove(key).expect("just found");
            // Named as the new release names it (a wheel's own folders
            // are named after its release: `WheelFolders`).
            if o.path != key {
                o.path = key.to_string();
            }
            self.same.push((m.path, o));
        } else {
            self.kept.push(m);
        }
    }

    /// Whether the root guess held. A guess of no root fails when every
    /// member, changed or not, lies under one folder, which rendering
    /// strips.
    fn holds(&self) -> bool {
        let as_read = self.kept.iter().map(|m| &m.path);
        let as_read = as_read.chain(self.same.iter().map(|(p, _)| p));
        self.root_holds && (!self.base_rootless || common_root(as_read).is_none())
    }

    /// What the new release's members that rendering drops as junk tell,
    /// looked at before they are dropped (a package rendered whole is
    /// looked at as read, junk and all; a version diff drops its junk
    /// before its changed members are looked at), given the package's
    /// `links`:
    ///
    /// - the note on the repositories it ships ([`super::repository`]),
    ///   judged whole: its build runs git in them whatever changed, and
    ///   the base's were never rendered, so never judged;
    /// - where a shipped `.egg-info` folder's entry points, which
    ///   setuptools' legacy build imports, open the tests or docs
    ///   (`unread::is_metadata_folder`): (path as read, line).
    fn junk_seen(&self, links: &[(String, String)]) -> (Option<String>, Vec<(String, usize)>) {
        let mut repositories = super::repository::Repositories::default();
        let as_read = self.kept.iter().map(|m| (&m.path, &m.data));
        for (path, data) in as_read.chain(self.same.iter().map(|(p, o)| (p, &o.data))) {
            repositories.look_at(path, data);
        }
        let openings = self
            .kept
            .iter()
            .filter(|m| is_junk(&m.path))
            .filter_map(|m| {
                let code = super::code::Code::new(&m.path, &m.data);
                super::unread::first_opening_in(&code).map(|line| (m.path.clone(), line))
            })
            .collect();
        (
            super::repository::note(&repositories.findings(links)),
            openings,
        )
    }

    /// What the members left as they were make run ([`HiddenCode`]), by
    /// their root-stripped paths, as the changed ones are looked at. None
    /// when the root guess failed: [`finish`](Self::finish) then renders
    /// every member as changed. Read as members of the package at `path`
    /// are: a wheel's build settings are not read, as nothing builds it
    /// (cmake's wheel ships CMake's own modules, which set compiler
    /// launchers from the environment).
    fn hidden(&self, path: &Path) -> HiddenCode {
        if !self.holds() {
            return HiddenCode::for_package(path);
        }
        self.same
            .par_iter()
            .fold(
                || HiddenCode::for_package(path),
                |mut found, (_, o)| {
                    found.look_at(o);
                    found
                },
            )
            .reduce(
                || HiddenCode::for_package(path),
                |mut a, b| {
                    a.extend(b);
                    a
                },
            )
    }

    /// The new package to render (`None` when it holds no regular file),
    /// the base to render it against, what compiled code the change adds
    /// or alters, and the members left as they were (the base's, by their
    /// root-stripped paths; none when the root guess failed). Rendering the
    /// first two gives the very text rendering both whole packages would:
    /// an unchanged file renders nothing.
    fn finish(
        mut self,
        new: Package,
        mut old: std::collections::HashMap<String, Member>,
        has_base: bool,
        mode: RenderMode,
        folders: &WheelFolders,
    ) -> (
        Option<Package>,
        Option<Package>,
        Option<String>,
        Vec<Member>,
    ) {
        let (notes, links) = (new.notes, new.links);
        let holds = self.holds();
        if !holds && !self.same.is_empty() {
            // The guess was wrong: nothing is stripped, so nothing was
            // known to be unchanged. Back as read, in archive order.
            for (path, o) in self.same.drain(..) {
                self.kept.push(Member {
                    path,
                    data: o.data.clone(),
                });
                old.insert(folders.key(&o.path).into_owned(), o);
            }
        }
        let unchanged = self
            .same
            .iter()
            .filter(|(_, o)| !is_dropped(&o.path, mode))
            .count();
        let linked = linked_note(&links);
        let mut new = Package {
            members: self.kept,
            notes,
            links,
        };
        if holds && self.base_rootless {
            // Rootless, as guessed: the changed members alone may all lie
            // under one folder, which is not the package's root.
            new.members.retain(|m| !is_dropped(&m.path, mode));
        } else {
            new = normalise(new, mode);
        }
        // Compiled files the change adds or alters; one the accepted base
        // already held unchanged was accepted with it.
        let compiled = compiled_note(
            new.members
                .iter()
                .filter(|m| {
                    is_opaque(&m.path) && old.get(&m.path).map_or(true, |o| o.data != m.data)
                })
                .map(|m| m.path.as_str()),
        );
        let holds_files = !new.members.is_empty() || unchanged > 0;
        let old = has_base.then(|| Package {
            members: old.into_values().collect(),
            ..Package::default()
        });
        let same = self.same.into_iter().map(|(_, o)| o).collect();
        (
            holds_files.then_some(new),
            old,
            opaque([compiled, linked]),
            same,
        )
    }
}

/// Reads and renders a package (or the change from `base`), as an [`Input`]
/// that is blocked with a reason when anything about it is wrong.
pub fn render_package(base: Option<&Path>, path: &Path, limits: &Limits) -> Input {
    render_package_mode(base, path, limits, RenderMode::Scan)
}

pub fn render_package_mode(
    base: Option<&Path>,
    path: &Path,
    limits: &Limits,
    mode: RenderMode,
) -> Input {
    let source = path.display().to_string();
    if mode == RenderMode::Scan && base.is_none() {
        return render_streamed(path, limits);
    }
    let kind = if base.is_some() {
        InputKind::PackageDiff
    } else {
        InputKind::Package
    };
    // The base first: a new member equal to the base's at the same path is
    // unchanged and renders nothing, so it is dropped as it arrives instead
    // of being held beside the base (botocore's upgrade: 300 MB peak, about
    // the two packages, before).
    let mut split = Unchanged::default();
    let (base_sha, old) = match base {
        None => (None, None),
        Some(b) => {
            let (s, _, r) = load_package(b, limits);
            let r = r.map(|p| {
                split.base_rootless = common_root(p.members.iter().map(|m| &m.path)).is_none();
                normalise(p, mode)
            });
            (Some(s), Some(r))
        }
    };
    // A wheel's own folders are named after its release: paired, so that
    // its metadata renders as changed lines.
    let folders = match (base, &old) {
        (Some(b), Some(Ok(p))) => {
            WheelFolders::between(b, path, p.members.iter().map(|m| m.path.as_str()))
        }
        _ => WheelFolders::default(),
    };
    let (mut old_by_path, old_notes) = match old {
        Some(Ok(p)) => (
            p.members
                .into_iter()
                .map(|m| (folders.key(&m.path).into_owned(), m))
                .collect::<std::collections::HashMap<String, Member>>(),
            Some(Ok(p.notes)),
        ),
        Some(Err(e)) => (Default::default(), Some(Err(e))),
        None => (Default::default(), None),
    };
    let (sha, bytes, new) = {
        let sink = &mut |m: Member| split.take(m, &mut old_by_path);
        load_package_with(path, limits, Some(sink))
    };
    let fail = |error: String, notes| package_input(&source, kind, &sha, bytes, notes, Err(error));
    let new = match new {
        Ok(p) => p,
        Err(e) => return fail(format!("{source}: {e}"), Vec::new()),
    };
    let mut notes = new.notes.clone();
    match (base, old_notes) {
        (Some(b), Some(Err(e))) => return fail(format!("{} (base): {e}", b.display()), notes),
        (_, Some(Ok(n))) => notes.extend(n.iter().map(|n| format!("base: {n}"))),
        _ => {}
    }
    let (same, (repositories, junk_openings)) = match mode {
        RenderMode::Scan => (split.hidden(path), split.junk_seen(&new.links)),
        RenderMode::Corpus => (HiddenCode::default(), (None, Vec::new())),
    };
    let (new, old, opaque_change, unchanged) =
        split.finish(new, old_by_path, base.is_some(), mode, &folders);
    if new.is_none() {
        return fail(
            format!("{source}: the package holds no regular files"),
            notes,
        );
    }
    let new = new.unwrap_or_default();
    let mut hidden = HiddenCode::for_package(path);
    if mode == RenderMode::Scan {
        new.members.iter().for_each(|m| hidden.look_at(m));
        hidden.openings.extend(junk_openings);
        let base_members = old.as_ref().map_or(&[][..], |p| &p.members[..]);
        hidden.add_unchanged(same, &new.members, base_members, &unchanged, &folders);
        hidden.count_tests_if_opened();
        // A requirement file may be left as it was while a changed
        // manifest starts to name it: its lines become requirements all
        // the same.
        let by_path = first_by_path(
            new.members
                .iter()
                .chain(&unchanged)
                .map(|m| (m.path.as_str(), m)),
        );
        hidden.resolve_named_files(|p| by_path.get(p).map(|m| m.data.clone()));
        hidden.resolve_wraps(by_path.keys().copied());
        hidden.resolve_compiler_files(by_path.keys().copied());
        hidden.sort();
    }
    drop(unchanged);
    let r = render_paired(old, new, mode, &folders);
    let empty = base.is_some() && r.text.is_empty();
    if let Some(b) = base {
        notes.push(format!("rendered as the change from {}", b.display()));
    }
    let mut input = package_input(
        &source,
        kind,
        &sha,
        bytes,
        notes,
        Ok((r.text.into(), r.sections)),
    );
    let cut = cut_note(r.cut_capability.iter().map(String::as_str), &hidden);
    input.opaque_code = opaque(
        [opaque_change, repositories, cut]
            .into_iter()
            .chain(hidden.opaque_notes()),
    );
    input.not_on_scores_alone = hidden.not_on_scores_alone();
    input.base = base
        .zip(base_sha.clone())
        .map(|(b, sha256)| crate::report::BaseInfo {
            source: b.display().to_string(),
            sha256,
        });
    // A scan without a base was rendered by `render_streamed`, which makes
    // the same check; here only a version diff is left.
    if !empty && mode == RenderMode::Scan && !holds_content(&input.text) {
        input.unjudgeable = Some(
            "the change holds no readable text: only binary or empty files differ between the two versions, so the pre-check and the detectors would judge file names alone; review the changed files by hand".into(),
        );
    }
    if empty {
        // Not a reason to allow: rendering normalises line endings, replaces
        // invalid UTF-8 and shows neither file modes nor skipped members, so
        // equal text is not equal packages; and nothing is left to judge.
        // A directory's sha256 is of what its reader saw, not of bytes, so
        // only two archives with one hash are known to be the very same.
        let same_file = !path.is_dir()
            && base.is_some_and(|b| !b.is_dir())
            && base_sha.as_deref() == Some(sha.as_str());
        input.unjudgeable = Some(if same_file {
            "the two versions are the same file (equal sha256): the diff is empty, so there is nothing to judge; scan the package without --base".into()
        } else {
            "no file differs between the two versions as rendered: the diff is empty, so there is nothing to judge (line endings, invalid UTF-8, file modes and skipped members are not rendered, and the artifacts' sha256 differ); scan the new version without --base".into()
        });
    }
    input
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One seeded damage to an archive's bytes: what a truncated download,
    /// a flipped bit or a hand-made hostile member header does.
    fn damage(rng: &mut rand::rngs::StdRng, data: &mut Vec<u8>) {
        use rand::Rng;
        for _ in 0..rng.random_range(1..5) {
            if data.is_empty() {
                data.push(0);
            }
            let len = data.len();
            let at = rng.random_range(0..len);
            match rng.random_range(0..6) {
                0 => data[at] ^= 1 << rng.random_range(0..8),
                1 => data.truncate(at),
                2 => {
                    // A piece copied elsewhere: a member header repeated.
                    let piece = data[at..(at + rng.random_range(1..600)).min(len)].to_vec();
                    let to = rng.random_range(0..=len);
                    data.splice(to..to, piece);
                }
                3 => {
                    // A tar header field: size, type flag, name, link name.
                    let block = at / 512 * 512;
                    let field = [124, 156, 0, 157][rng.random_range(0..4)];
                    let value: &[u8; 12] = [
                        b"77777777777\0",
                        b"\x80\0\0\0\0\0\0\0\xff\xff\xff\xff",
                        b"../../etc/x\0",
                        b"2\0\0\0\0\0\0\0\0\0\0\0",
                        b"L\0\0\0\0\0\0\0\0\0\0\0",
                    ][rng.random_range(0..5)];
                    if block + field + 12 <= len {
                        data[block + field..block + field + 12].copy_from_slice(value);
                    }
                }
                4 => {
                    // A zip field: a size, an offset or a count.
                    let v = [0u32, u32::MAX, 1, 0x7fff_ffff][rng.random_range(0..4)];
                    if at + 4 <= len {
                        data[at..at + 4].copy_from_slice(&v.to_le_bytes());
                    }
                }
                _ => data.extend(std::iter::repeat_n(0u8, rng.random_range(1..2048))),
            }
        }
    }

    /// Where `archive::tests::damaged_archives_never_panic` damages the
    /// bytes as stored (which, under gzip, mostly fails the checksum before
    /// tar reads a header), this damages the tar inside the gzip and
    /// compresses it again, and runs the whole render a scan runs (readers,
    /// rules on members, sections). Session 21 rendered 396,481 such inputs
    /// from all 17 fixtures (some as version diffs against another damaged
    /// fixture) in a fuzzing harness: no panic, none slower than 2 s.
    #[test]
    fn damaged_archives_end_blocked_or_judged_and_never_panic() {
        use rand::{Rng, SeedableRng};
        use std::io::{Read, Write};
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/packages");
        let fixtures: Vec<(String, Vec<u8>)> = [
            "benign/is-number-7.0.0.tgz",
            "benign/left-pad-1.3.0.tgz",
            "benign/six-1.16.0-py2.py3-none-any.whl",
            "benign/six-1.16.0-repacked.zip",
            "malicious/requestz-2.31.0.tar.gz",
            "malicious/colour_tools-0.3.0-py3-none-any.whl",
        ]
        .iter()
        .map(|f| {
            (
                f.rsplit('/').next().unwrap().to_string(),
                std::fs::read(dir.join(f)).unwrap(),
            )
        })
        .collect();
        let tmp = tempfile::tempdir().unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(21);
        let (mut blocked, mut judged) = (0, 0);
        for i in 0..300 {
            let (name, raw) = &fixtures[i % fixtures.len()];
            // Damage under the gzip layer as well as in it: a damaged
            // gzip stream mostly fails its checksum before tar sees it.
            let bytes = if name.ends_with(".tgz") || name.ends_with(".tar.gz") {
                let mut tar = Vec::new();
                flate2::read::GzDecoder::new(&raw[..])
                    .read_to_end(&mut tar)
                    .unwrap();
                if rng.random_bool(0.8) {
                    damage(&mut rng, &mut tar);
                    let mut gz =
                        flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                    gz.write_all(&tar).unwrap();
                    gz.finish().unwrap()
                } else {
                    let mut gz = raw.clone();
                    damage(&mut rng, &mut gz);
                    gz
                }
            } else {
                let mut zip = raw.clone();
                damage(&mut rng, &mut zip);
                zip
            };
            let path = tmp.path().join(name);
            std::fs::write(&path, &bytes).unwrap();
            let input = render_package(None, &path, &Limits::default());
            match &input.error {
                Some(e) => {
                    assert!(!e.trim().is_empty(), "{name} #{i}: an empty error");
                    blocked += 1;
                }
                None => {
                    // Read: there is text to judge, or the report says why not.
                    assert!(
                        !input.text.is_empty() || input.unjudgeable.is_some(),
                        "{name} #{i}: read, with nothing to judge and no reason"
                    );
                    judged += 1;
                }
            }
        }
        // Both ends are reached: damage that readers refuse, and damage
        // they read past (an appended zero block, a flipped bit in a name).
        assert!(
            blocked > 50 && judged > 20,
            "{blocked} blocked, {judged} judged"
        );
    }

    fn m(path: &str, data: &str) -> Member {
        Member {
            path: path.into(),
            data: data.as_bytes().to_vec(),
        }
    }

    #[test]
    fn install_relevance_order() {
        let mut v = vec![
            m("README.md", ""),
            m("pkg/core.py", ""),
            m("setup.py", ""),
            m("PKG-INFO", ""),
            m("pkg/__init__.py", ""),
            m("MANIFEST.in", ""),
            m("pyproject.toml", ""),
            m("scripts/postinstall.js", ""),
            m("package.json", ""),
            m("setup.cfg", ""),
            m("LICENSE", ""),
            m("a.py", ""),
        ];
        order(&mut v);
        let got: Vec<&str> = v.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(
            got,
            [
                "setup.py",
                "setup.cfg",
                "pyproject.toml",
                "pkg/__init__.py",
                "package.json",
                "scripts/postinstall.js",
                "a.py",
                "pkg/core.py",
                "MANIFEST.in",
                "LICENSE",
                "PKG-INFO",
                "README.md",
            ]
        );
    }

    #[test]
    fn added_modified_binary_and_caps() {
        let new = Package {
            members: vec![
                m("setup.py", "a\r\nb\n"),
                m("x.bin", "\0\0"),
                m("big.txt", &"y".repeat(3000)),
            ],
            notes: vec![],
            links: Vec::new(),
        };
        let r = render(None, new, RenderMode::Scan);
        assert!(
            r.text
                .starts_with("--- /dev/null\n+++ b/setup.py\n@@ -0,0 +1,2 @@\n+a\n+b\n"),
            "{}",
            r.text
        );
        assert!(r.text.contains("Binary file b/x.bin added\n"));
        assert!(r.text.contains(" [line truncated: 3000 chars]\n"));
        let old = Package {
            members: vec![m("setup.py", "a\nb\n"), m("gone.py", "x\n")],
            notes: vec![],
            links: Vec::new(),
        };
        let new = Package {
            members: vec![m("setup.py", "a\nc\n")],
            notes: vec![],
            links: Vec::new(),
        };
        let r = render(Some(old), new, RenderMode::Scan);
        assert_eq!(r.text, "--- a/setup.py\n+++ b/setup.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n--- a/gone.py\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-x\n");
        assert_eq!(r.sections.len(), 2);
    }

    #[test]
    fn corpus_mode_caps_files_and_samples_but_scan_mode_does_not() {
        let body: String = (0..3000).map(|i| format!("line {i}\n")).collect();
        let members: Vec<Member> = (0..10).map(|i| m(&format!("m{i}.py"), &body)).collect();
        let p = Package {
            members,
            notes: vec![],
            links: Vec::new(),
        };
        let corpus = render(None, p.clone(), RenderMode::Corpus).text;
        assert!(corpus.contains("\\ [truncated: file diff exceeds 16 KB]\n"));
        assert!(
            corpus.ends_with("more file(s) omitted]\n"),
            "{}",
            &corpus[corpus.len() - 100..]
        );
        assert!(corpus.len() <= SAMPLE_CAP + 100);
        let scan = render(None, p, RenderMode::Scan).text;
        assert!(scan.contains("+line 2999\n") && scan.contains("+++ b/m9.py"));
    }

    #[test]
    fn inert_files_are_docs_and_data_only() {
        for p in [
            "README.md",
            "docs/index.rst",
            "LICENSE",
            "pkg/data/service-2.json",
            "tests/examplefiles/x.output",
            "scipy/stats/tests/data/SmLs03.dat",
            "dist/esm/server/send-response.js.map",
            // Test trees: samples and error cases whatever their extension.
            "tests/legacy_tests/data/invalid-utf8-byte.loader-error",
            "tests/examplefiles/wowtoc/files.toc",
            "pkg/Test/data/sample.c",
            "testdata/blob",
            "requirements.txt",
            // JSON Jupyter reads as data, or a kernelspec in a test tree.
            "x-1.data/data/share/jupyter/lab/schemas/@x/plugin.json",
            "x-1.data/data/etc/jupyter/labconfig/page_config.json",
            "tests/data/kernel.json",
            "pkg/kernel.json.txt",
        ] {
            assert!(is_inert(p), "{p}");
        }
        for p in [
            "setup.py",
            "setup.cfg",
            "pyproject.toml",
            "package.json",
            "pkg/__init__.py",
            "tests/conftest.py",
            "install.sh",
            "src/mod.c",
            "lib/index.js",
            "pkg/_native.so",
            "Makefile",
            "bin/run",
            "pkg/payload.txt.py",
            "config.yaml",
            // Code under a document's name is code.
            "pkg/metadata.py",
            "pkg/history.py",
            "lib/readme.js",
            "pip/_internal/models/wheel.py",
            "LICENSE.sh",
            "pkg/record.pyx",
            "pkg/changes.pth",
            // And a source a build compiles (sharp's `src/metadata.cc`).
            "src/metadata.cc",
            "src/license.c",
            "src/history.rs",
            // TypeScript Node runs, in a test tree too (a stealer in
            // `test/notes.cts` a computed path required was allowed as a
            // test's data before session 41).
            "test/notes.cts",
            "test/fixtures/notes.mts",
            "lib/index.d.cts",
            // CMake's build script, which a scikit-build backend runs.
            "CMakeLists.txt",
            "src/ext/CMakeLists.txt",
            "cmake/FindThing.cmake",
            // Build scripts are code in a test tree too: the root's runs
            // them (`add_subdirectory`, `subdir`, `include`).
            "tests/cmake/CMakeLists.txt",
            "tests/helpers.cmake",
            "tests/meson.build",
            "test/fixtures/common.gypi",
            "tests/certs/Makefile",
            "tests/rules.mk",
            "tests/SConscript",
            // A test tree's code stays code; only whole directory names count.
            "tests/__init__.py",
            "tests/run_all.sh",
            "test/helper.js",
            "tests/examplefiles/x.py",
            "testsuite/x.toc",
            "contests/x.toc",
            "pkg/tests",
            // JSON Jupyter acts on: a kernelspec's command, its settings.
            "x-1.data/data/share/jupyter/kernels/x/kernel.json",
            "data_kernelspec/Kernel.JSON",
            "x-1.data/data/etc/jupyter/jupyter_server_config.d/x.json",
            "jupyter-config/jupyter_notebook_config.d/x.json",
            "x-1.data/data/etc/jupyter/nbconfig/notebook.d/x.json",
            "x-1.data/data/etc/jupyter/jupyter_server_config.json",
        ] {
            assert!(!is_inert(p), "{p}");
        }
    }

    /// Past 64 patterns, a pattern is named as written, matched or not;
    /// below, only a pattern that matches a member is named.
    #[test]
    fn many_source_patterns_are_named_not_matched() {
        let mut h = HiddenCode::default();
        h.paths.insert("p/tests/a.c".to_string());
        for i in 0..70 {
            h.test_builds
                .push(("p/setup.py".into(), format!("p/tests/{i}*.c")));
        }
        h.test_builds
            .push(("p/setup.py".into(), "p/tests/*.c".into()));
        let note = h.test_builds_note().unwrap();
        // The 65th to the 71st, past the bound; none of the first 64
        // matches a member.
        assert!(note.contains("runs or compiles 7 file(s)"), "{note}");
        assert!(note.contains("p/setup.py -> p/tests/64*.c"), "{note}");
        let mut h = HiddenCode::default();
        h.paths.insert("p/tests/a.c".to_string());
        h.test_builds
            .push(("p/setup.py".into(), "p/tests/b*.c".into()));
        assert_eq!(h.test_builds_note(), None);
    }

    /// A searched name matches a document whose path ends in it at a
    /// folder's boundary; not code, not a test tree's file, not a longer
    /// name; and the pairs are bounded.
    #[test]
    fn searched_names_match_documents_by_their_paths_tails() {
        let paths: std::collections::HashSet<String> = [
            "p/docs/notes.txt",
            "p/share/extra/notes.txt",
            "p/docs/mynotes.txt",
            "p/tests/notes.txt",
            "p/include/m.h",
            "p/data/table.json",
        ]
        .map(str::to_string)
        .into();
        let src = "p/src/m.c";
        let searched = |names: &[&str]| -> Vec<(String, Vec<String>)> {
            vec![(
                src.to_string(),
                names.iter().map(|n| n.to_lowercase()).collect(),
            )]
        };
        let found = |names: &[&str]| {
            let mut got: Vec<String> = searched_documents(&searched(names), &paths)
                .into_iter()
                .map(|(s, d)| {
                    assert_eq!(s, src);
                    d
                })
                .collect();
            got.sort();
            got
        };
        assert_eq!(
            found(&["notes.txt"]),
            ["p/docs/notes.txt", "p/share/extra/notes.txt"]
        );
        assert_eq!(found(&["extra/notes.txt"]), ["p/share/extra/notes.txt"]);
        assert_eq!(found(&["p/data/table.json"]), ["p/data/table.json"]);
        assert_eq!(found(&["DOCS/Notes.TXT"]), ["p/docs/notes.txt"]);
        for none in ["tes.txt", "m.h", "ra/notes.txt", "notes", "notes.txt/"] {
            assert!(found(&[none]).is_empty(), "{none}");
        }
        // Many sources, many documents of one name: bounded.
        let many: std::collections::HashSet<String> =
            (0..2000).map(|i| format!("p/d{i}/notes.txt")).collect();
        let sources: Vec<(String, Vec<String>)> = (0..2000)
            .map(|i| (format!("p/src/{i}.c"), vec!["notes.txt".to_string()]))
            .collect();
        assert_eq!(searched_documents(&sources, &many).len(), 1000);
        // Through the note: a source's include beside it and by its name
        // is one edge.
        let h = HiddenCode {
            paths: paths.clone(),
            searched: searched(&["notes.txt"]),
            required: vec![(src.to_string(), "p/docs/notes.txt".to_string())],
            ..HiddenCode::default()
        };
        assert_eq!(
            h.runs_as_js(),
            [
                (src.to_string(), "p/docs/notes.txt".to_string()),
                (src.to_string(), "p/share/extra/notes.txt".to_string()),
            ]
        );
    }

    /// A computed include names what its macro's values name; past the
    /// bound on macros, the package is not cleared, naming where.
    #[test]
    fn computed_includes_name_their_macros_values_within_a_bound() {
        use super::super::launched::MAX_MACROS;
        let mut h = HiddenCode::default();
        let member = |path: &str, text: &str| Member {
            path: path.to_string(),
            data: text.as_bytes().to_vec(),
        };
        h.look_at(&member("p/docs/notes.txt", "x\n"));
        h.look_at(&member("p/src/m.c", "#include NOTES\n"));
        h.look_at(&member("p/src/config.h", "#define NOTES <notes.txt>\n"));
        h.resolve_computed();
        assert_eq!(
            h.runs_as_js(),
            [("p/src/m.c".to_string(), "p/docs/notes.txt".to_string())]
        );
        assert_eq!(macros_note(h.macros_past.as_deref()), None);
        // Batches that each stay within the bound, merged past it.
        let half: String = (0..MAX_MACROS / 2 + 1)
            .map(|i| format!("#define M{i} <d{i}/notes.txt>\n"))
            .collect();
        let (mut a, mut b) = (HiddenCode::default(), HiddenCode::default());
        a.look_at(&member("p/src/a.h", &half));
        b.look_at(&member("p/src/b.h", &half));
        assert!(a.macros_past.is_none() && b.macros_past.is_none());
        a.extend(b);
        assert!(a.macros.is_empty());
        let note = macros_note(a.macros_past.as_deref()).unwrap();
        assert!(note.contains("past them at its files together"), "{note}");
        // One file past it.
        let many: String = (0..MAX_MACROS + 1)
            .map(|i| format!("#include M{i}\n"))
            .collect();
        let mut h = HiddenCode::default();
        h.look_at(&member("p/src/m.c", &many));
        let note = macros_note(h.macros_past.as_deref()).unwrap();
        assert!(note.contains("past them at p/src/m.c"), "{note}");
        assert!(h.computed.is_empty());
    }

    #[test]
    fn globs_match_within_one_folder() {
        for (pattern, path, want) in [
            ("pkg/tests/*.c", "pkg/tests/speed.c", true),
            ("pkg/tests/*.c", "pkg/tests/data/speed.c", false),
            ("pkg/tests/*/*.c", "pkg/tests/data/speed.c", true),
            ("pkg/tests/sp??d.c", "pkg/tests/speed.c", true),
            ("pkg/tests/sp?d.c", "pkg/tests/speed.c", false),
            ("pkg/*", "pkg/", true),
            ("pkg/*a*b*c", "pkg/xaxbxc", true),
            ("pkg/*a*b*c", "pkg/xaxbx/c", false),
            ("pkg/tests/speed.c", "pkg/tests/speed.c", true),
        ] {
            assert_eq!(
                glob_matches(pattern.as_bytes(), path.as_bytes()),
                want,
                "{pattern} {path}"
            );
        }
        // Many stars over a long name that does not match: bounded work.
        let pattern = format!("{}b", "*a".repeat(50));
        assert!(!glob_matches(
            pattern.as_bytes(),
            "a".repeat(5000).as_bytes()
        ));
    }

    #[test]
    fn root_folder_is_stripped_and_junk_dropped() {
        let p = Package {
            members: vec![
                m("pkg-1.0/setup.py", "x"),
                m("pkg-1.0/pkg.egg-info/PKG-INFO", "y"),
                m("pkg-1.0/.DS_Store", "z"),
            ],
            notes: vec![],
            links: Vec::new(),
        };
        let n = normalise(p, RenderMode::Scan);
        let paths: Vec<&str> = n.members.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(paths, ["setup.py"]);
    }

    /// Code under a junk folder can be required or imported (`./.git/x.js`,
    /// `__MACOSX.lib.x`) and is unpacked with the rest: a scan reads it,
    /// the corpus (which never held any) leaves it out.
    #[test]
    fn code_under_a_junk_folder_is_read_in_scans() {
        let p = || Package {
            members: vec![
                m("pkg-1.0/index.js", "x"),
                m("pkg-1.0/__MACOSX/lib/metrics.js", "y"),
                m("pkg-1.0/.git/hooks/run.py", "y"),
                m("pkg-1.0/.git/config", "z"),
                m("pkg-1.0/__MACOSX/._index.js.txt", "z"),
                m("pkg-1.0/x.egg-info/startup.pth", "y"),
            ],
            notes: vec![],
            links: Vec::new(),
        };
        let paths = |mode| -> Vec<String> {
            normalise(p(), mode)
                .members
                .into_iter()
                .map(|m| m.path)
                .collect()
        };
        assert_eq!(
            paths(RenderMode::Scan),
            [
                "index.js",
                "__MACOSX/lib/metrics.js",
                ".git/hooks/run.py",
                "x.egg-info/startup.pth"
            ]
        );
        assert_eq!(paths(RenderMode::Corpus), ["index.js"]);
    }

    #[test]
    fn native_code_is_known_by_its_magic_bytes() {
        let mut pe = b"MZ".to_vec();
        pe.resize(0x80, 0);
        pe[0x3c] = 0x40;
        pe[0x40..0x44].copy_from_slice(b"PE\0\0");
        let cases: [(&[u8], Option<&str>); 13] = [
            (b"\x7fELF\x02\x01\x01\0", Some("ELF")),
            (b"\xcf\xfa\xed\xfe\x07\0\0\x01", Some("Mach-O")),
            (b"\xfe\xed\xfa\xce\0\0\0\x12", Some("Mach-O")),
            // Fat Mach-O: two architectures; a Java class file: version 52.
            (b"\xca\xfe\xba\xbe\0\0\0\x02", Some("Mach-O")),
            (b"\xca\xfe\xba\xbe\0\0\0\x34", None),
            (&pe, Some("PE")),
            // `MZ` without a PE header where it points: text, or a stub.
            (b"MZ is a two-letter code.\n", None),
            (&pe[..0x42], None),
            (b"\x7fEL", None),
            (b"", None),
            // WebAssembly, version 1; another version, or the bare magic.
            (b"\0asm\x01\0\0\0\x01\x04", Some("WebAssembly")),
            (b"\0asm\x02\0\0\0", None),
            (b"\0asm", None),
        ];
        for (data, want) in cases {
            assert_eq!(native_code(data), want, "{data:?}");
        }
        let mut far = pe.clone();
        far[0x3c..0x40].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(native_code(&far), None);
    }

    /// A WebAssembly module written into code as base64, hex or escapes
    /// counts as the module would; the same text in data or documentation,
    /// or a mention of WebAssembly, does not.
    #[test]
    fn inline_webassembly_is_known_in_code() {
        for (path, text) in [
            (
                "lib/md4.js",
                "const wasm = Buffer.from('AGFzbQEAAAABCAJgAX8AYAAAAwUE', 'base64');",
            ),
            (
                "m.py",
                "W = bytes.fromhex('0061736d0100000001070160027f7f017f')",
            ),
            ("m.py", "W = b'\\x00asm\\x01\\x00\\x00\\x00\\x01\\x07'"),
            (
                "x.mjs",
                "const w = new Uint8Array([...'\\0asm\\x01\\0\\0\\0']);",
            ),
            ("x.ts", "const w = '\\u0000asm\\u0001\\u0000';"),
            ("x.cjs", "'\\x00\\x61\\x73\\x6d\\x01'"),
        ] {
            assert!(inline_wasm(path, text.as_bytes()), "{path}: {text}");
        }
        for (path, text) in [
            (
                "docs/wasm.md",
                "AGFzbQEAAAABCAJg is how a module starts in base64",
            ),
            ("data/w.json", "{\"w\": \"AGFzbQEAAAAB\"}"),
            (
                "lib/w.js",
                "await WebAssembly.instantiate(bytes); // \\0asm magic",
            ),
            ("lib/w.js", "const magic = 'AGFzbQ'; // version unknown"),
        ] {
            assert!(!inline_wasm(path, text.as_bytes()), "{path}: {text}");
        }
    }

    #[test]
    fn compiled_python_is_kept_in_scans_and_opaque_unless_the_base_held_it() {
        let with = |pyc: &[u8]| Package {
            members: vec![
                m("pkg-1.0/setup.py", "x"),
                Member {
                    path: "pkg-1.0/pkg/__pycache__/mod.cpython-312.pyc".into(),
                    data: pyc.to_vec(),
                },
            ],
            notes: vec![],
            links: Vec::new(),
        };
        let kept = |mode| normalise(with(b"\0a"), mode).members.len();
        assert_eq!((kept(RenderMode::Scan), kept(RenderMode::Corpus)), (2, 1));
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, pyc: &[u8], setup: &str| {
            let files = [
                ("pkg-1.0/setup.py".to_string(), setup.as_bytes().to_vec()),
                ("pkg-1.0/pkg/mod.pyc".to_string(), pyc.to_vec()),
            ];
            tar_gz(dir.path(), name, &files)
        };
        let limits = Limits::default();
        let old = write("a.tar.gz", b"\0old", "setup()\n");
        let why = render_package(None, &old, &limits)
            .opaque_code
            .expect("a .pyc");
        assert!(why.contains("pkg/mod.pyc"), "{why}");
        // The change leaves the accepted .pyc as it was: nothing opaque in it.
        let same = write("b.tar.gz", b"\0old", "setup(name='x')\n");
        assert_eq!(render_package(Some(&old), &same, &limits).opaque_code, None);
        let changed = write("c.tar.gz", b"\0new", "setup(name='x')\n");
        assert!(render_package(Some(&old), &changed, &limits)
            .opaque_code
            .is_some());
        // A test tree's compiled files are data, as its other non-source files.
        assert!(is_opaque("pkg/mod.pyc") && is_opaque("pkg/__pycache__/m.cpython-312.pyc"));
        assert!(!is_opaque(
            "tests/data/example.egg/example/__pycache__/__init__.cpython-36.pyc"
        ));
    }

    /// Node runs a package's `main`, `bin`, `exports` and `imports`
    /// whatever their extension (but `.json` and `.node`): a `main` of
    /// `docs/notes.txt` ran a stealer read as prose.
    #[test]
    fn files_a_package_json_makes_node_run_are_named_when_named_as_docs() {
        let pj = |json: &str| {
            package_json("package/package.json", json.as_bytes()).map_or_else(Vec::new, |j| {
                let targets = node_entry_targets("package/package.json", &j);
                node_entry_points(&targets).cloned().collect()
            })
        };
        assert_eq!(
            pj(r#"{"main": "docs/notes.txt"}"#),
            ["package/docs/notes.txt"]
        );
        assert_eq!(
            pj(
                r#"{"bin": {"a": "./bin/a.md", "b": "bin/b.js"}, "exports": {".": {"require": "./x.css"}}}"#
            ),
            ["package/bin/a.md", "package/x.css"]
        );
        assert!(
            pj(r#"{"exports": {".": {"style": "./index.css", "types": "./a.d.txt"}}}"#).is_empty()
        );
        assert_eq!(
            pj(
                r##"{"imports": {"#m": "./docs/notes.txt", "#c": {"node": "./data/c.csv", "default": "./c.js"}, "#dep": "readme"}}"##
            ),
            // In key order: serde_json sorts an object's keys.
            ["package/data/c.csv", "package/docs/notes.txt"]
        );
        // What a bundler builds into apps, or a CDN serves: a browser
        // drainer in `docs/notes.txt` was allowed before session 33.
        for (json, named) in [
            (r#"{"browser": "docs/notes.txt"}"#, "package/docs/notes.txt"),
            (
                r#"{"module": "./docs/notes.txt"}"#,
                "package/docs/notes.txt",
            ),
            (r#"{"unpkg": "dist/x.txt"}"#, "package/dist/x.txt"),
            (r#"{"jsnext:main": "a.md"}"#, "package/a.md"),
            (
                r#"{"browser": {"./index.js": "./docs/shim.txt", "fs": false, "net": "net-shim.txt"}}"#,
                "package/docs/shim.txt",
            ),
            (
                r#"{"react-native": {"./index.js": "../package/data/rn.csv"}}"#,
                "package/data/rn.csv",
            ),
            (
                r#"{"esnext": {"main": "docs/e.txt"}}"#,
                "package/docs/e.txt",
            ),
        ] {
            assert_eq!(pj(json), [named], "{json}");
        }
        for json in [
            // Code, a stylesheet, another package, a removed module.
            r#"{"browser": "browser.js", "module": "./dist/index.mjs"}"#,
            r#"{"unpkg": "dist/bulma.min.css", "jsdelivr": "dist/x.scss"}"#,
            r#"{"browser": {"fs": "browserify-fs.txt", "./node.js": false}}"#,
            // Not an entry: a bundler never reads `style` or `types`.
            r#"{"style": "docs/notes.txt", "types": "docs/x.txt"}"#,
        ] {
            assert!(pj(json).is_empty(), "{json}");
        }
        for json in [
            r#"{"main": "index.js"}"#,
            r#"{"main": "data.json", "bin": "cli"}"#,
            r#"{"main": "../../outside.txt"}"#,
            r#"{"name": "x"}"#,
            "not json",
        ] {
            assert!(pj(json).is_empty(), "{json}");
        }
        assert!(package_json("package/README.md", br#"{"main": "a.txt"}"#).is_none());
        // npm strips a byte-order mark; so does the scan.
        assert_eq!(
            pj("\u{feff}{\"main\": \"docs/notes.txt\"}"),
            ["package/docs/notes.txt"]
        );
    }

    /// The `package.json` files npm reads: the package's own and its
    /// bundled dependencies', not a fixture's or a front end's in a
    /// Python package's folders.
    #[test]
    fn npm_reads_its_own_and_bundled_package_json() {
        for path in [
            "package/package.json",
            "package.json",
            "package/node_modules/dep/package.json",
            "package/node_modules/@s/dep/node_modules/d2/package.json",
        ] {
            assert!(npm_reads(path), "{path}");
        }
        for path in [
            "package/test/fixtures/package.json",
            "pkg-1.0/frontend/package.json",
            "package/node_modules/dep/fixtures/x/package.json",
        ] {
            assert!(!npm_reads(path), "{path}");
        }
    }

    /// Node runs a required file of any extension but `.json` and `.node`
    /// as JavaScript: `require('../docs/notes.txt')` ran a stealer read as
    /// prose. Code, JSON, native addons, packages and folders are not
    /// named.
    #[test]
    fn files_a_script_requires_are_named_when_named_as_docs() {
        let req = |path: &str, js: &str| launched_but_read_inert(path, js.as_bytes());
        assert_eq!(
            req(
                "package/lib/util.js",
                "require('../docs/notes.txt');\nconst l = require( \"./LICENSE\" );\nrequire('../docs/notes.txt');\n"
            ),
            ["package/docs/notes.txt", "package/lib/LICENSE"]
        );
        for js in [
            "require('./helper.js'); require('../data/config.json');",
            "require('./native.node'); require('lodash'); require('./lib');",
            "require('../../../outside.txt');",
            "const t = fs.readFileSync('./notes.txt');",
            "require('child_process').fork('./worker.js');",
        ] {
            assert!(req("package/lib/util.js", js).is_empty(), "{js}");
        }
        // Only scripts Node runs are read for requires.
        assert!(req("package/README.md", "require('./notes.txt')").is_empty());
    }

    #[test]
    fn python_source_encodings_that_hide_code_are_named() {
        let enc = |path: &str, head: &str| foreign_encoding(path, head.as_bytes());
        for (head, want) in [
            ("# coding: utf-7\n+AGkAbQBw-\n", "utf-7"),
            (
                "#!/usr/bin/env python\n# -*- coding: unicode_escape -*-\n",
                "unicode_escape",
            ),
            (
                "# vim: set fileencoding=raw-unicode-escape :\n",
                "raw-unicode-escape",
            ),
            ("# a coding note, coding: punycode\n", "punycode"),
        ] {
            assert_eq!(enc("pkg/m.py", head).as_deref(), Some(want), "{head:?}");
        }
        for head in [
            "# -*- coding: utf-8 -*-\n",
            "# coding=latin-1\n",
            "# coding: iso-8859-15\n",
            "# coding: big5\n",
            "import os\n# coding: utf-7\n",
            "x = 1\n",
            "\n\n# coding: utf-7\n",
        ] {
            assert_eq!(enc("pkg/m.py", head), None, "{head:?}");
        }
        assert_eq!(enc("pkg/m.txt", "# coding: utf-7\n"), None);
    }

    /// Node runs a `.js` with a NUL byte in a comment, and bash a script:
    /// in a scan such a file is text, not one `Binary file` line (the
    /// stealer after `// \0` was never read). Python refuses source with a
    /// NUL, so a `.py` stays binary, and the corpus mode is unchanged.
    #[test]
    fn code_that_runs_with_a_nul_byte_is_read_as_text() {
        let js = Member {
            path: "lib/m.js".into(),
            data: b"// \0\nrequire('child_process').exec(x);\n".to_vec(),
        };
        let (text, _) = added(&js, RenderMode::Scan);
        assert!(
            text.contains("+require('child_process').exec(x);"),
            "{text}"
        );
        let (text, _) = added(&js, RenderMode::Corpus);
        assert_eq!(text, "Binary file b/lib/m.js added\n");
        for (path, data) in [
            ("bin/tool", &b"#!/bin/sh\n# \0\ncurl x | sh\n"[..]),
            ("install.sh", b"# \0\ncurl x | sh\n"),
        ] {
            let m = Member {
                path: path.into(),
                data: data.to_vec(),
            };
            assert!(
                added(&m, RenderMode::Scan).0.contains("+curl x | sh"),
                "{path}"
            );
        }
        let py = Member {
            path: "pkg/m.py".into(),
            data: b"# \0\nimport os\n".to_vec(),
        };
        assert_eq!(
            added(&py, RenderMode::Scan).0,
            "Binary file b/pkg/m.py added\n"
        );
    }

    /// The text keeps the corpus's 2,048-character cut, but a capability in
    /// the part cut off makes the code opaque: a stealer after 2,100
    /// characters of a string on one line was allowed unread. Whole
    /// packages and version diffs alike; data files, corpus mode, and
    /// lines whose cut part holds no capability are left as they were.
    #[test]
    fn a_capability_past_the_line_cut_makes_the_code_opaque() {
        let pad = "a".repeat(2100);
        let hidden = format!("var pad = \"{pad}\"; require('child_process').exec(x);\n");
        let plain = format!("var pad = \"{pad}\"; var y = 1;\n");
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, files: &[(&str, &str)]| tar_gz_text(dir.path(), name, files);
        let limits = Limits::default();
        let code = write(
            "a.tar.gz",
            &[("pkg/index.js", "x = 1;\n"), ("pkg/lib/m.js", &hidden)],
        );
        let why = render_package(None, &code, &limits)
            .opaque_code
            .expect("cut capability");
        assert!(why.contains("lib/m.js") && why.contains("2048"), "{why}");
        let input = render_package(None, &code, &limits);
        assert!(
            input.text.contiguous().contains("[line truncated: "),
            "the text keeps the cut"
        );
        for (name, files) in [
            (
                "b.tar.gz",
                vec![
                    ("pkg/index.js", "x = 1;\n"),
                    ("pkg/lib/m.js", plain.as_str()),
                ],
            ),
            (
                "c.tar.gz",
                vec![
                    ("pkg/index.js", "x = 1;\n"),
                    ("pkg/data/m.json", hidden.as_str()),
                ],
            ),
        ] {
            let p = write(name, &files);
            assert_eq!(
                render_package(None, &p, &limits).opaque_code,
                None,
                "{name}"
            );
        }
        let corpus = render_package_mode(None, &code, &limits, RenderMode::Corpus);
        assert_eq!(corpus.opaque_code, None);
        // A version diff: the line added in the new release counts.
        let base = write(
            "d.tar.gz",
            &[("pkg/index.js", "x = 1;\n"), ("pkg/lib/m.js", "y = 2;\n")],
        );
        let why = render_package(Some(&base), &code, &limits)
            .opaque_code
            .expect("in the change");
        assert!(why.contains("lib/m.js"), "{why}");
    }

    /// A cut line counts only in files that run with the package: in
    /// tests and documentation (a doc build's `jquery.js`, a test's long
    /// literal) only when the package's code opens them, as for the other
    /// rules on unread code; in a type stub never. Whole packages and
    /// version diffs alike.
    #[test]
    fn a_cut_line_in_tests_docs_or_stubs_counts_only_where_they_run() {
        let pad = "a".repeat(2100);
        let hidden = format!("var pad = \"{pad}\"; require('child_process').exec(x);\n");
        let py = format!("pad = \"{pad}\"; import os; os.system(x)\n");
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits::default();
        let write = |name: &str, files: &[(&str, &str)]| tar_gz_text(dir.path(), name, files);
        let base = write("base.tar.gz", &[("pkg/index.js", "x = 1;\n")]);
        for (i, at) in [
            "pkg/docs/_static/jquery.js",
            "pkg/doc/html/searchindex.js",
            "pkg/test/fixture.js",
            "pkg/lib/m.test.js",
            "pkg/types/index.d.ts",
        ]
        .into_iter()
        .enumerate()
        {
            let p = write(
                &format!("{i}.tar.gz"),
                &[("pkg/index.js", "x = 1;\n"), (at, &hidden)],
            );
            for b in [None, Some(base.as_path())] {
                let input = render_package(b, &p, &limits);
                assert_eq!(input.opaque_code, None, "{at} (base {b:?})");
                assert!(input.text.contiguous().contains("[line truncated: "));
            }
        }
        // The package's code opens its tests: their cut line is its own.
        // An opening in another language does not run them.
        let opener = |code: &'static str| {
            [
                ("pkg/index.js", "x = 1;\n"),
                (code, "import sys\nsys.path.insert(0, 'tests')\n"),
            ]
        };
        for (name, files) in [
            (
                "js.tar.gz",
                vec![
                    ("pkg/index.js", "require('./test/fixture.js');\n"),
                    ("pkg/test/fixture.js", hidden.as_str()),
                ],
            ),
            (
                "py.tar.gz",
                [
                    &opener("pkg/setup.py")[..],
                    &[("pkg/tests/t.py", py.as_str())],
                ]
                .concat(),
            ),
        ] {
            let p = write(name, &files);
            for b in [None, Some(base.as_path())] {
                let why = render_package(b, &p, &limits)
                    .opaque_code
                    .expect("opened tests count");
                assert!(why.contains("fixture.js") || why.contains("t.py"), "{why}");
            }
        }
        let other = write(
            "other.tar.gz",
            &[
                &opener("pkg/setup.py")[..],
                &[("pkg/docs/_static/jquery.js", hidden.as_str())],
            ]
            .concat(),
        );
        assert_eq!(render_package(None, &other, &limits).opaque_code, None);
    }

    /// Requirements a manifest takes from another file count as its own:
    /// tomli with `dependencies = { file = ["requirements.txt"] }` and a
    /// `helper @ https://…` line there was allowed (session 22). The same
    /// line in a file no manifest names (a developer's requirements) does
    /// not count, whole or in a version diff; in a diff, a file left as it
    /// was counts once a changed manifest names it.
    #[test]
    fn requirement_files_a_manifest_names_are_read_for_fetched_dependencies() {
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits::default();
        let pyproject = "[project]\nname = \"p\"\ndynamic = [\"dependencies\"]\n[tool.setuptools.dynamic]\ndependencies = { file = [\"requirements.txt\"] }\n";
        let line = "helper @ https://files.example.net/helper-1.0-py3-none-any.whl\n";
        let write = |name: &str, files: &[(&str, &str)]| tar_gz_text(dir.path(), name, files);
        let named = write(
            "a.tar.gz",
            &[
                ("p-1.0/pyproject.toml", pyproject),
                ("p-1.0/requirements.txt", line),
                ("p-1.0/p/__init__.py", "x = 1\n"),
            ],
        );
        let why = render_package(None, &named, &limits)
            .opaque_code
            .expect("a fetched dependency");
        assert!(
            why.contains("p-1.0/requirements.txt: helper @ https://files.example.net/"),
            "{why}"
        );
        let base = write(
            "b.tar.gz",
            &[
                ("p-1.0/pyproject.toml", pyproject),
                ("p-1.0/requirements.txt", "requests>=2\n"),
                ("p-1.0/p/__init__.py", "x = 1\n"),
            ],
        );
        let why = render_package(Some(&base), &named, &limits)
            .opaque_code
            .expect("in the change");
        assert!(why.contains("requirements.txt: helper @ "), "{why}");
        // The requirement file left as it was, a changed manifest naming
        // it: the unchanged file renders nothing, yet its line is now a
        // requirement (this was missed: only changed files were read).
        let unnamed_before = write(
            "d.tar.gz",
            &[
                ("p-1.0/pyproject.toml", "[project]\nname = \"p\"\n"),
                ("p-1.0/requirements.txt", line),
                ("p-1.0/p/__init__.py", "x = 1\n"),
            ],
        );
        let why = render_package(Some(&unnamed_before), &named, &limits)
            .opaque_code
            .expect("an unchanged file the change names");
        assert!(why.contains("requirements.txt: helper @ "), "{why}");
        let unnamed = write(
            "c.tar.gz",
            &[
                ("p-1.0/pyproject.toml", "[project]\nname = \"p\"\n"),
                ("p-1.0/requirements-dev.txt", line),
                ("p-1.0/p/__init__.py", "x = 1\n"),
            ],
        );
        assert_eq!(render_package(None, &unnamed, &limits).opaque_code, None);
    }

    /// A package whose top folder is named as tests or docs is not cleared
    /// (session 44); under its own name, no such note.
    #[test]
    fn a_package_under_a_top_folder_named_as_tests_is_not_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits::default();
        let root = |name: &str, top: &str| {
            let p = tar_gz_text(
                dir.path(),
                name,
                &[
                    (&format!("{top}/setup.py") as &str, "x = 1\n"),
                    (&format!("{top}/p/__init__.py"), "y = 2\n"),
                ],
            );
            render_package(None, &p, &limits)
                .not_on_scores_alone
                .join("; ")
        };
        assert!(root("t.tar.gz", "tests").contains("under its top folder tests/"));
        assert!(root("d.tar.gz", "docs").contains("under its top folder docs/"));
        assert!(!root("o.tar.gz", "p-1.0").contains("top folder"));
    }

    /// An entry-points file a `setup.cfg` names (`entry_points = file:
    /// …`) declares commands as the manifest itself would: flake8 naming
    /// one that declares `pip` was allowed before session 43. In a version
    /// diff it counts when the manifest or the file changed, as a
    /// manifest's own scripts count only when it changed.
    #[test]
    fn entry_point_files_a_manifest_names_declare_its_commands() {
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits::default();
        let cfg = "[metadata]\nname = p\n[options]\npackages = find:\nentry_points = file: entry_points.cfg\n";
        let pip = "[console_scripts]\np = p.cli:main\npip = p.cli:main\n";
        let own = "[console_scripts]\np = p.cli:main\n";
        let write = |name: &str, cfg: &str, eps: &str, code: &str| {
            tar_gz_text(
                dir.path(),
                name,
                &[
                    ("p-1.0/setup.cfg", cfg),
                    ("p-1.0/entry_points.cfg", eps),
                    ("p-1.0/p/__init__.py", code),
                ],
            )
        };
        let declared = |base: Option<&Path>, new: &Path| {
            render_package(base, new, &limits)
                .not_on_scores_alone
                .join("; ")
                // A version diff names files without the package's root.
                .contains("entry_points.cfg:3 declares a console script named as one of the environment's own commands")
        };
        let named = write("a.tar.gz", cfg, pip, "x = 1\n");
        let why = render_package(None, &named, &limits)
            .not_on_scores_alone
            .join("; ");
        assert!(why.contains("(p-1.0/entry_points.cfg:3 declares"), "{why}");
        let unnamed = write("b.tar.gz", "[metadata]\nname = p\n", pip, "x = 1\n");
        assert!(!declared(None, &unnamed));
        let ordinary = write("c.tar.gz", cfg, own, "x = 1\n");
        assert!(!declared(None, &ordinary));
        // The file changed under an unchanged manifest; the manifest
        // changed to name an unchanged file; neither changed.
        assert!(declared(Some(&ordinary), &named));
        assert!(declared(Some(&unnamed), &named));
        let next = write("d.tar.gz", cfg, pip, "x = 2\n");
        assert!(!declared(Some(&named), &next));
    }

    /// A `setup.cfg` whose interpolation goes past the reader's bounds
    /// (Python follows on) is not cleared, naming the file; the same
    /// interpolation within them is read.
    #[test]
    fn a_setup_cfg_interpolated_past_the_bounds_is_not_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits::default();
        let cfg = |per_value: usize| {
            let mut cfg = String::from("[DEFAULT]\nv0 = x\n");
            for level in 1..=10 {
                let named = format!("%(v{})s", level - 1);
                cfg += &format!("v{level} = {}\n", named.repeat(per_value));
            }
            cfg + "[metadata]\nname = p\n"
        };
        let why = |name: &str, cfg: &str| {
            let p = tar_gz_text(
                dir.path(),
                name,
                &[("p-1.0/setup.cfg", cfg), ("p-1.0/p/__init__.py", "x = 1\n")],
            );
            render_package(None, &p, &limits)
                .not_on_scores_alone
                .join("; ")
        };
        let past = why("a.tar.gz", &cfg(40));
        assert!(
            past.contains("p-1.0/setup.cfg: its interpolation goes past what this reader follows"),
            "{past}"
        );
        assert!(!why("b.tar.gz", &cfg(1)).contains("setup.cfg"));
    }

    /// pip reads the root `pyproject.toml` with Python's `tomllib`, which
    /// takes nesting this parser refuses: tomli with a build requirement
    /// fetched from a URL and an array 80 deep elsewhere was allowed (its
    /// requirement unseen) before session 42. Such a file, or one that is
    /// not UTF-8, keeps the package from being cleared, naming it; the same
    /// file 60 deep parses and shows the requirement; a broken one in the
    /// tests is no file pip reads.
    #[test]
    fn a_pyproject_this_parser_refuses_is_not_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits::default();
        let pyproject = |depth: usize| {
            format!(
                "[build-system]\nrequires = [\"setuptools\", \"helper @ https://files.example.net/helper-1.0-py3-none-any.whl\"]\n\n[project]\nname = \"p\"\n\n[tool.pad]\nx = {}{}\n",
                "[".repeat(depth),
                "]".repeat(depth)
            )
        };
        // The not-on-scores-alone notes, joined, and the opaque note.
        let scan = |name: &str, path: &str, data: &[u8]| {
            let files = [
                (path.to_string(), data.to_vec()),
                ("p-1.0/p/__init__.py".to_string(), b"x = 1\n".to_vec()),
            ];
            let input = render_package(None, &tar_gz(dir.path(), name, &files), &limits);
            (input.not_on_scores_alone.join("; "), input.opaque_code)
        };
        let root = "p-1.0/pyproject.toml";
        let (deep, _) = scan("deep.tar.gz", root, pyproject(80).as_bytes());
        assert!(
            deep.contains("p-1.0/pyproject.toml: recursion limit exceeded")
                && deep.contains("npm or pip reads"),
            "{deep}"
        );
        let (shallow, opaque) = scan("shallow.tar.gz", root, pyproject(60).as_bytes());
        assert_eq!(shallow, "");
        let opaque = opaque.expect("the requirement is read");
        assert!(
            opaque.contains("helper @ https://files.example.net/"),
            "{opaque}"
        );
        let (latin1, _) = scan("latin1.tar.gz", root, b"[project]\nname = \"p\xe9\"\n");
        assert!(
            latin1.contains("p-1.0/pyproject.toml: not UTF-8"),
            "{latin1}"
        );
        let in_tests = "p-1.0/tests/pyproject.toml";
        let (in_tests, _) = scan("tests.tar.gz", in_tests, pyproject(80).as_bytes());
        assert_eq!(in_tests, "");
    }

    /// A version diff drops unchanged members as they arrive; its text must
    /// be the very text of rendering both whole packages, including when the
    /// root guessed from the first member turns out wrong (`pkg/x.py` then
    /// `x.py`), and for root-less packages (a wheel's `pkg/` and
    /// `pkg-1.0.dist-info/`).
    #[test]
    fn a_version_diff_streamed_renders_as_both_whole_packages_would() {
        let dir = tempfile::tempdir().unwrap();
        let f = |p: &str, d: &str| (p.to_string(), d.as_bytes().to_vec());
        let cases = [
            (
                vec![
                    f("a-1/setup.py", "v1\n"),
                    f("a-1/a/x.py", "same\n"),
                    f("a-1/a/gone.py", "g\n"),
                ],
                vec![
                    f("a-2/setup.py", "v2\n"),
                    f("a-2/a/x.py", "same\n"),
                    f("a-2/a/new.py", "n\n"),
                ],
            ),
            (
                vec![f("pkg/x.py", "same\n"), f("pkg-1.dist-info/RECORD", "r1\n")],
                vec![f("pkg/x.py", "same\n"), f("pkg-2.dist-info/RECORD", "r2\n")],
            ),
            (
                vec![f("x.py", "same\n"), f("y.py", "1\n")],
                vec![f("x.py", "same\n"), f("y.py", "2\n")],
            ),
            // The guess pairs pkg/x.py with the base's x.py (equal bytes)
            // before x.py shows there is no root: put back, paired rightly.
            (
                vec![
                    f("pkg/x.py", "same\n"),
                    f("x.py", "same\n"),
                    f("y.py", "1\n"),
                ],
                vec![
                    f("pkg/x.py", "same\n"),
                    f("x.py", "same\n"),
                    f("y.py", "2\n"),
                ],
            ),
            // A root-less base: no root is guessed, and the changed
            // members, all under pkg/, keep it (pkg/ is no root).
            (
                vec![f("pkg/x.py", "1\n"), f("meta/RECORD", "same\n")],
                vec![f("pkg/x.py", "2\n"), f("meta/RECORD", "same\n")],
            ),
            // A root-less base and a new release under one root: the guess
            // of no root fails, and every member is put back.
            (
                vec![f("x.py", "same\n"), f("y.py", "1\n")],
                vec![f("r/x.py", "same\n"), f("r/y.py", "2\n")],
            ),
        ];
        let limits = Limits::default();
        for (i, (old, new)) in cases.iter().enumerate() {
            let a = tar_gz(dir.path(), &format!("old{i}.tar.gz"), old);
            let b = tar_gz(dir.path(), &format!("new{i}.tar.gz"), new);
            let streamed = render_package(Some(&a), &b, &limits);
            let whole = |p: &Path| normalise(load_package(p, &limits).2.unwrap(), RenderMode::Scan);
            let want = render(Some(whole(&a)), whole(&b), RenderMode::Scan).text;
            let got: String = streamed.text.pieces().collect();
            assert_eq!(got, want, "case {i}");
            assert!(!got.is_empty() && !got.contains("same"), "case {i}: {got}");
        }
    }

    #[test]
    fn lines_split_like_str_split_and_count_right() {
        for text in ["", "\n", "a", "a\n", "a\n\nb", "\n\n", "a\nb\n\n", "é\n€"] {
            let (n, lines) = lines_of(text);
            let got: Vec<&str> = lines.take(n).collect();
            let t = text.strip_suffix('\n').unwrap_or(text);
            let want: Vec<&str> = if text.is_empty() {
                Vec::new()
            } else {
                t.split('\n').collect()
            };
            assert_eq!(got, want, "{text:?}");
        }
    }

    #[test]
    fn added_lines_write_what_a_line_at_a_time_writes() {
        let long = "x".repeat(LINE_CAP + 10);
        let capability = format!("s = '{}'; import os; os.system(cmd)", "a".repeat(LINE_CAP));
        let at_cap = "y".repeat(LINE_CAP);
        let wide = format!("{}é", "z".repeat(LINE_CAP - 1));
        for text in [
            "\n".to_string(),
            "a".to_string(),
            "a\n".to_string(),
            "a\n\nb".to_string(),
            "\n\n".to_string(),
            "é\n€\n\n".to_string(),
            "-- a/x\n".to_string(),
            format!("{long}\nb\n"),
            format!("a\n{capability}"),
            format!("{at_cap}\n{wide}\n"),
        ] {
            let (n, lines) = lines_of(&text);
            let mut want = Section::new("@@\n".into(), RenderMode::Scan);
            lines.take(n).for_each(|l| want.line(Some('+'), l));
            let mut got = Section::new("@@\n".into(), RenderMode::Scan);
            got.added_lines(&text);
            assert_eq!(got.s, want.s, "{text:?}");
            assert_eq!(got.cut_capability, want.cut_capability, "{text:?}");
        }
        let mut cut = Section::new(String::new(), RenderMode::Scan);
        cut.added_lines(&format!("a\n{capability}"));
        assert!(cut.cut_capability && cut.s.contains("[line truncated: "));
    }

    #[test]
    fn decode_borrows_clean_text_and_mends_the_rest() {
        assert!(matches!(decode(b"plain\ntext\n"), Cow::Borrowed(_)));
        assert_eq!(decode(b"a\r\nb\r\n"), "a\nb\n");
        assert_eq!(decode(b"caf\xe9\r\n"), "caf\u{fffd}\n");
    }

    /// [`tar_gz`] of text files.
    fn tar_gz_text(dir: &Path, name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
        let files: Vec<(String, Vec<u8>)> = files
            .iter()
            .map(|(p, d)| (p.to_string(), d.as_bytes().to_vec()))
            .collect();
        tar_gz(dir, name, &files)
    }

    /// Writes a `.tar.gz` of `files` and returns its path (in `dir`).
    fn tar_gz(dir: &Path, name: &str, files: &[(String, Vec<u8>)]) -> std::path::PathBuf {
        let path = dir.join(name);
        let gz = flate2::write::GzEncoder::new(
            std::fs::File::create(&path).unwrap(),
            flate2::Compression::fast(),
        );
        let mut b = tar::Builder::new(gz);
        for (p, data) in files {
            let mut h = tar::Header::new_gnu();
            h.set_size(data.len() as u64);
            h.set_mode(0o644);
            h.set_cksum();
            b.append_data(&mut h, p, data.as_slice()).unwrap();
        }
        b.into_inner().unwrap().finish().unwrap();
        path
    }

    #[test]
    fn an_empty_diff_says_whether_the_artifacts_are_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let files = vec![("pkg-1.0/setup.py".to_string(), b"x = 1\n".to_vec())];
        let a = tar_gz(dir.path(), "a.tar.gz", &files);
        // The same member plus a symlink, which is skipped and not rendered:
        // different bytes, the same text.
        let b = dir.path().join("b.tar.gz");
        {
            let gz = flate2::write::GzEncoder::new(
                std::fs::File::create(&b).unwrap(),
                flate2::Compression::fast(),
            );
            let mut t = tar::Builder::new(gz);
            let mut h = tar::Header::new_gnu();
            h.set_size(6);
            h.set_mode(0o644);
            h.set_cksum();
            t.append_data(&mut h, "pkg-1.0/setup.py", &b"x = 1\n"[..])
                .unwrap();
            let mut l = tar::Header::new_gnu();
            l.set_entry_type(tar::EntryType::Symlink);
            l.set_size(0);
            t.append_link(&mut l, "pkg-1.0/link", "setup.py").unwrap();
            t.into_inner().unwrap().finish().unwrap();
        }
        let limits = Limits::default();
        let same = render_package(Some(&a), &a, &limits);
        let why = same.unjudgeable.expect("same file: unjudgeable");
        assert!(why.contains("the same file (equal sha256)"), "{why}");
        let differ = render_package(Some(&a), &b, &limits);
        assert!(differ.error.is_none(), "{:?}", differ.error);
        let why = differ.unjudgeable.expect("same text: unjudgeable");
        assert!(why.contains("the artifacts' sha256 differ"), "{why}");
        // A real change is judged.
        let c = tar_gz(
            dir.path(),
            "c.tar.gz",
            &[("pkg-1.0/setup.py".to_string(), b"x = 2\n".to_vec())],
        );
        assert!(render_package(Some(&a), &c, &limits).unjudgeable.is_none());
    }

    #[test]
    fn a_package_or_change_without_readable_text_is_unjudgeable() {
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits::default();
        let blob = |seed: u8| {
            let mut b: Vec<u8> = (0..4096u32).map(|i| (i as u8).wrapping_mul(seed)).collect();
            b[10] = 0; // a NUL in the first 8 KB: binary
            b
        };
        let f = |p: &str, d: Vec<u8>| (p.to_string(), d);
        let binaries = tar_gz(
            dir.path(),
            "bin-1.0.tar.gz",
            &[f("bin-1.0/lib.so", blob(3)), f("bin-1.0/data.bin", blob(5))],
        );
        let empty = tar_gz(
            dir.path(),
            "empty-1.0.tar.gz",
            &[f("empty-1.0/setup.py", vec![])],
        );
        let text = tar_gz(
            dir.path(),
            "text-1.0.tar.gz",
            &[
                f("text-1.0/lib.so", blob(3)),
                f("text-1.0/setup.py", b"x = 1\n".to_vec()),
            ],
        );
        // Header-shaped lines inside a file are content ("+--- x").
        let dashes = tar_gz(
            dir.path(),
            "dash-1.0.tar.gz",
            &[f("dash-1.0/notes.txt", b"--- x\n".to_vec())],
        );
        for (pkg, want) in [
            (&binaries, true),
            (&empty, true),
            (&text, false),
            (&dashes, false),
        ] {
            let inp = render_package(None, pkg, &limits);
            assert!(inp.error.is_none(), "{:?}", inp.error);
            assert_eq!(
                inp.unjudgeable.is_some(),
                want,
                "{}: {:?}",
                pkg.display(),
                inp.unjudgeable
            );
            if let Some(why) = inp.unjudgeable {
                assert!(why.contains("no readable text"), "{why}");
            }
        }
        // A release that changes only a binary: the diff is one
        // `Binary files … differ` line, with nothing to read.
        let swapped = tar_gz(
            dir.path(),
            "bin-1.1.tar.gz",
            &[f("bin-1.0/lib.so", blob(7)), f("bin-1.0/data.bin", blob(5))],
        );
        let change = render_package(Some(&binaries), &swapped, &limits);
        assert!(!change.text.is_empty());
        let why = change.unjudgeable.expect("binary-only change: unjudgeable");
        assert!(why.contains("only binary or empty files differ"), "{why}");
        // The same release plus one line of text is judged.
        let with_text = tar_gz(
            dir.path(),
            "bin-1.2.tar.gz",
            &[
                f("bin-1.0/lib.so", blob(7)),
                f("bin-1.0/setup.py", b"x = 1\n".to_vec()),
            ],
        );
        assert!(render_package(Some(&binaries), &with_text, &limits)
            .unjudgeable
            .is_none());
    }

    #[test]
    fn streamed_rendering_gives_the_same_text_and_sections() {
        let dir = tempfile::tempdir().unwrap();
        let mut files: Vec<(String, Vec<u8>)> = vec![
            ("setup.py".into(), b"import os\nos.system('x')\n".to_vec()),
            ("crlf.py".into(), b"a = 1\r\nb = 2\r\n".to_vec()),
            ("latin1.txt".into(), b"caf\xe9\n".to_vec()),
            ("blob.bin".into(), b"\x00\x01\x02".to_vec()),
            ("empty.py".into(), Vec::new()),
            (
                "long.js".into(),
                format!("{}\n", "x".repeat(5000)).into_bytes(),
            ),
            (".DS_Store".into(), b"junk".to_vec()),
            ("pkg.egg-info/PKG-INFO".into(), b"Name: pkg\n".to_vec()),
            // Over one batch's byte budget on its own.
            ("pkg/big.py".into(), "y = 2\n".repeat(300_000).into_bytes()),
        ];
        // More members than one batch holds.
        for i in 0..150 {
            files.push((format!("pkg/mod_{i}.py"), format!("v = {i}\n").into_bytes()));
        }
        let rooted: Vec<(String, Vec<u8>)> = files
            .iter()
            .map(|(p, d)| (format!("pkg-1.0/{p}"), d.clone()))
            .collect();
        let limits = Limits::default();
        for (name, set) in [("rooted.tar.gz", &rooted), ("flat.tar.gz", &files)] {
            let path = tar_gz(dir.path(), name, set);
            let streamed = render_streamed(&path, &limits);
            assert!(streamed.error.is_none(), "{:?}", streamed.error);
            let (sha, _, package) = load_package(&path, &limits);
            let whole = render(
                None,
                normalise(package.unwrap(), RenderMode::Scan),
                RenderMode::Scan,
            );
            assert_eq!(streamed.sha256, sha);
            assert!(*streamed.text == *whole.text, "{name}: texts differ");
            assert!(streamed.text.pieces().count() > 1, "{name}: kept as pieces");
            assert_eq!(streamed.sections, whole.sections, "{name}");
            let text = streamed.text.contiguous();
            assert!(text.starts_with("--- /dev/null\n+++ b/setup.py\n"));
            assert!(!text.contains("DS_Store"));
        }
        // A bad archive is still refused after the sink has seen members: a
        // second copy of a file, last, so every other member went before.
        let mut bad = rooted.clone();
        bad.push(("pkg-1.0/setup.py".into(), b"print('other')\n".to_vec()));
        let path = tar_gz(dir.path(), "bad.tar.gz", &bad);
        let input = render_streamed(&path, &limits);
        assert!(input.text.is_empty() && input.sections.is_empty());
        let error = input.error.unwrap();
        assert!(
            error.contains("\"pkg-1.0/setup.py\" appears twice"),
            "{error}"
        );
    }
}
