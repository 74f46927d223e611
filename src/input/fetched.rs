//! Dependencies an install fetches from outside a registry: a tarball
//! URL, a git repository or a local path named in a package's manifest
//! (`"helper": "https://host/helper.tgz"` or `"github:user/repo"` in a
//! `package.json`; `helper @ https://host/helper.whl` in a `pyproject.toml`,
//! `setup.cfg`, `setup.py`, the metadata's `Requires-Dist`, or a
//! requirements file one of them names; Poetry's `{ git = "…" }`), and a
//! Meson wrap that downloads a subproject's source ([`wrap_fetch`]).
//!
//! Why: npm and pip install such a dependency with the package, and run
//! its install scripts or build backend, but its code is in no file the
//! scan read, and unlike a registry release it can change at any time
//! without a new version of this package. is-number naming one, and tomli
//! with one in its `pyproject.toml`, were allowed on the pre-check's scores
//! (the capability view was empty). GuardDog flags the npm form as high
//! severity (`threat-npm-http-dependency`). Only the manifests of the
//! package itself count (at its root, or one folder down where an archive
//! keeps its files under a root folder), not those of test fixtures or of
//! bundled dependencies; only the sections an install reads (not npm's
//! `devDependencies`).
//!
//! This module only reads text: it never fetches, resolves or runs what a
//! manifest names.

use std::sync::OnceLock;

use regex::bytes::Regex;

use super::code::Code;
use super::render::file_name;

/// `package.json` sections whose dependencies `npm install` of the package
/// installs (npm 7 and later install peers too).
const NPM_SECTIONS: [&str; 3] = ["dependencies", "optionalDependencies", "peerDependencies"];

/// Whether an npm dependency spec names something other than a registry
/// release: a URL, a git repository (also GitHub's `user/repo` shorthand),
/// or a local path. Version ranges, tags and `npm:` aliases are the
/// registry's.
pub fn is_off_registry_npm(spec: &str) -> bool {
    let s = spec.trim();
    let lower = s.to_ascii_lowercase();
    const SCHEMES: [&str; 12] = [
        "http:",
        "https:",
        "git:",
        "git+",
        "ssh:",
        "file:",
        "link:",
        "github:",
        "gitlab:",
        "bitbucket:",
        "gist:",
        "portal:",
    ];
    if SCHEMES.iter().any(|p| lower.starts_with(p)) {
        return true;
    }
    if lower.starts_with("npm:") || lower.starts_with("workspace:") {
        return false;
    }
    // A path (`./lib`, `../x`, `/abs`, `~/x`), or `user/repo[#ref]`, which
    // npm fetches from GitHub: no version range or tag holds a `/`.
    s.contains('/')
}

/// A PEP 508 direct reference: `name @ URL` (also with extras).
fn direct_reference() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r#"(?i)\b[a-z0-9][a-z0-9._-]*\s*(?:\[[^\]\n]*\]\s*)?@\s*(?:(?:git|hg|svn|bzr)\+)?(?:https?|ssh|file|git|ftp)://[^\s'",;\]\)]+"#,
        )
        .expect("the direct-reference pattern compiles")
    })
}

/// Whether `path` is one of the package's own manifests: a file name this
/// module reads (checked first: every member of a package passes here), at
/// most one folder deep, and not in a test or documentation tree.
fn is_own_manifest(path: &str) -> bool {
    matches!(
        file_name(path).0,
        "package.json" | "pyproject.toml" | "setup.cfg" | "setup.py" | "PKG-INFO" | "METADATA"
    ) && path.matches('/').count() <= 1
        && !super::unread::tests_or_docs(path)
}

/// A TOML file (`pyproject.toml`, `Cargo.toml`), parsed. A file this
/// parser refuses names nothing to the rules that read it;
/// [`unparsed_pyproject`] keeps the package's own `pyproject.toml` from
/// being cleared then, as pip's parser may still read it. The rules on a
/// member reach it through [`Code::toml`], which parses a file once for
/// all of them.
pub(super) fn toml_table(data: &[u8]) -> Option<toml::Table> {
    toml::from_str(std::str::from_utf8(data).ok()?).ok()
}

/// A manifest as its installer reads it, written out again for rules that
/// read text: a `setup.cfg` with `configparser`'s interpolation done and
/// `[DEFAULT]`'s options under each section, a `pyproject.toml` parsed
/// and written with a line per value (`a.b.c = "…"`, a table of values
/// inline: `tool.setuptools.cmdclass = { build_py = "…" }`), its escapes
/// read and its tables however they were written. The rules read the
/// lines as written first; this counts where they find nothing: smmap
/// whose test module a build imports through `attr: smmap.%(t)s.lib.VERSION`
/// or `"smmap.t\u0065st.lib.VERSION"` passed the rule that reads it
/// (session 43).
pub(super) struct AsRead {
    pub text: Vec<u8>,
    /// For each line of `text`: the 1-based line of the manifest it comes
    /// from (`setup.cfg`), or the keys whose line to look for (TOML: the
    /// value's own, then a table's first), found only when asked
    /// ([`AsRead::line_in`]): a search per line of a large file would cost
    /// its size times its lines.
    from: Vec<(usize, Vec<String>)>,
}

impl AsRead {
    /// The manifest's line (`data`) that the byte at `at` of [`text`]
    /// comes from: line 1 when no line writes its key as read.
    ///
    /// [`text`]: AsRead::text
    pub fn line_in(&self, data: &[u8], at: usize) -> usize {
        let n = memchr::memchr_iter(b'\n', &self.text[..at.min(self.text.len())]).count();
        match self.from.get(n) {
            Some((line, _)) if *line > 0 => *line,
            Some((_, keys)) => keys
                .iter()
                .find_map(|k| written_as_key(data, k))
                .unwrap_or(1),
            None => 1,
        }
    }
}

/// [`AsRead`] for a `setup.cfg` or `pyproject.toml` (by file name); none
/// for another file or one that does not parse.
pub(super) fn manifest_as_read(code: &Code) -> Option<AsRead> {
    let mut out = AsRead {
        text: Vec::new(),
        from: Vec::new(),
    };
    let mut line = |text: String, from: (usize, Vec<String>)| {
        out.text.extend_from_slice(text.as_bytes());
        out.text.push(b'\n');
        out.from.push(from);
    };
    match file_name(code.path).0 {
        "setup.cfg" => {
            let mut section = None;
            for v in &code.setup_cfg().values {
                if section != Some(&v.section) {
                    line(format!("[{}]", v.section), (v.line, Vec::new()));
                    section = Some(&v.section);
                }
                let mut lines = v.value.lines();
                let first = lines.next().unwrap_or("");
                line(format!("{} = {first}", v.name), (v.line, Vec::new()));
                for more in lines {
                    line(format!("    {more}"), (v.line, Vec::new()));
                }
            }
        }
        "pyproject.toml" => {
            toml_lines(code.toml()?, "", &mut |text, keys| line(text, (0, keys)));
        }
        _ => return None,
    }
    Some(out)
}

/// Writes each value of `table` as a line `prefix.key = value`, with the
/// keys (lower case) a file writes it under: its own, and an inline
/// table's first (`[….cmdclass]` is a header; `build_py = …` below it is
/// a key). A table of plain values (strings, numbers, arrays of them) is
/// written inline, as a map is (`package-dir = { "" = "src" }`); any
/// other table, and each table of an array, gets lines of its own, so
/// that a line holds one setting as in the file (towncrier's
/// `package_dir = "src"` beside its sections' `directory = …` read as one
/// line made a map of folders).
fn toml_lines(table: &toml::Table, prefix: &str, line: &mut impl FnMut(String, Vec<String>)) {
    fn plain(v: &toml::Value) -> bool {
        match v {
            toml::Value::Table(_) => false,
            toml::Value::Array(items) => items.iter().all(plain),
            _ => true,
        }
    }
    for (key, v) in table {
        let full = format!("{prefix}{}", toml_key(key));
        match v {
            toml::Value::Table(t) if !t.values().all(plain) => {
                toml_lines(t, &format!("{full}."), line)
            }
            toml::Value::Array(items) if !plain(v) => {
                for item in items {
                    match item {
                        toml::Value::Table(t) => toml_lines(t, &format!("{full}."), line),
                        other => line(format!("{full} = {}", toml_value(other)), vec![]),
                    }
                }
            }
            v => {
                let inner = v.as_table().and_then(|t| t.keys().next());
                // An empty key (`"" = "src"`) would match any line.
                let keys = std::iter::once(key).chain(inner).filter(|k| !k.is_empty());
                line(
                    format!("{full} = {}", toml_value(v)),
                    keys.map(|k| k.to_lowercase()).collect(),
                )
            }
        }
    }
}

fn toml_key(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if bare {
        key.to_string()
    } else {
        format!("{key:?}")
    }
}

/// A value on one line: strings quoted with their line breaks escaped.
fn toml_value(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("{s:?}"),
        toml::Value::Array(items) => {
            let items: Vec<String> = items.iter().map(toml_value).collect();
            format!("[{}]", items.join(", "))
        }
        toml::Value::Table(t) => {
            // Quoted, as the pairs of a map are read (`{ "LICENSE" =
            // "share/doc/…" }`: a destination, not a lone path).
            let items: Vec<String> = t
                .iter()
                .map(|(k, v)| format!("{k:?} = {}", toml_value(v)))
                .collect();
            format!("{{ {} }}", items.join(", "))
        }
        other => other.to_string(),
    }
}

/// The 1-based line where `name` (lower case) is written as a key (`name
/// =`, `"name" =`, `.name =`), compared without case; none when it is
/// written otherwise (escaped, or built by interpolation).
pub(super) fn written_as_key(data: &[u8], name: &str) -> Option<usize> {
    let lower = data.to_ascii_lowercase();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    for (i, line) in lower.split(|&b| b == b'\n').enumerate() {
        for at in memchr::memmem::find_iter(line, name.as_bytes()) {
            let before = at.checked_sub(1).map(|j| line[j]);
            let after = line[at + name.len()..]
                .iter()
                .find(|b| !matches!(b, b'"' | b'\'' | b' ' | b'\t'));
            if !before.is_some_and(word) && after == Some(&b'=') {
                return Some(i + 1);
            }
        }
    }
    None
}

/// Why the package's own `pyproject.toml` at `path` (`data`) is not TOML
/// to this parser, if it is not. pip reads it with Python's `tomllib`,
/// which takes deeper nesting than this parser (an array 80 levels deep is
/// refused here, 60 read; `tomllib` reads 300): tomli with a
/// `helper @ https://…` build requirement and an array 80 deep elsewhere
/// in the file was allowed, its fetched dependency unseen (session 42). A
/// file neither parser reads fails to install, so refusing it costs no
/// working package.
pub fn unparsed_pyproject(code: &Code) -> Option<String> {
    if file_name(code.path).0 != "pyproject.toml"
        || !is_own_manifest(code.path)
        || code.toml().is_some()
    {
        return None;
    }
    let text = match std::str::from_utf8(code.data) {
        Ok(text) => text,
        Err(e) => return Some(format!("not UTF-8 ({e})")),
    };
    // Parsed again for the message only where the parse failed.
    let e = toml::from_str::<toml::Table>(text).err()?;
    // The parser's message quotes the offending lines; its first line
    // says what failed.
    Some(e.message().lines().next().unwrap_or("not TOML").to_string())
}

/// The dependencies the manifest `code` (and `json` when it is a parsed
/// `package.json`) makes an install fetch from outside a registry, as
/// `section.name = spec` or `name @ URL`.
pub fn off_registry_dependencies(code: &Code, json: Option<&serde_json::Value>) -> Vec<String> {
    let (path, data) = (code.path, code.data);
    if !is_own_manifest(path) {
        return Vec::new();
    }
    if let Some(json) = json {
        return NPM_SECTIONS
            .iter()
            .filter_map(|section| Some((section, json.get(section)?.as_object()?)))
            .flat_map(|(section, deps)| {
                deps.iter().filter_map(move |(name, spec)| {
                    let spec = spec.as_str()?;
                    is_off_registry_npm(spec).then(|| format!("{section}.{name} = {spec}"))
                })
            })
            .collect();
    }
    let (name, _) = file_name(path);
    fn named<S: AsRef<str>>(texts: Vec<S>) -> Vec<String> {
        texts.iter().flat_map(|t| references(t.as_ref())).collect()
    }
    match name {
        "pyproject.toml" => code
            .toml()
            .map(pyproject_requirements)
            .map_or_else(Vec::new, named),
        "setup.cfg" => named(setup_cfg_requirements(code.setup_cfg())),
        // Code: any line that is not a comment (a requirement list may be
        // built anywhere in it), as a requirements file is read.
        "setup.py" => direct_references_in(data),
        "PKG-INFO" => named(requires_dist(data)),
        "METADATA" if path.contains(".dist-info/") => named(requires_dist(data)),
        _ => Vec::new(),
    }
}

/// The dependencies a `Cargo.toml` outside a test tree takes from a git
/// repository or a registry other than crates.io: a `git` or `registry`
/// (`registry-index`) key in `[dependencies]`, `[build-dependencies]`,
/// `[dev-dependencies]`, their `[target.…]` and `[workspace]` forms, a
/// `[patch.…]` or the old `[replace]`. Cargo fetches them when maturin or
/// setuptools-rust builds the package, and a build script among them
/// runs then; the rules read none of their code. crates.io refuses a
/// crate with such a dependency, so a vendored crate's manifest never
/// names one: no `Cargo.toml` of the 403 real sdists does (session 49).
/// A `rev` that is a full commit id is marked pinned.
pub fn cargo_fetched(code: &Code) -> Vec<String> {
    if file_name(code.path).0 != "Cargo.toml" || super::render::in_test_tree(code.path) {
        return Vec::new();
    }
    let Some(doc) = code.toml() else {
        return Vec::new();
    };
    const SECTIONS: [&str; 3] = ["dependencies", "build-dependencies", "dev-dependencies"];
    let mut tables: Vec<(String, &toml::Value)> = Vec::new();
    for section in SECTIONS {
        tables.extend(doc.get(section).map(|t| (section.to_string(), t)));
        let workspace = doc.get("workspace").and_then(|w| w.get(section));
        tables.extend(workspace.map(|t| (format!("workspace.{section}"), t)));
    }
    if let Some(targets) = doc.get("target").and_then(toml::Value::as_table) {
        for (target, t) in targets {
            for section in SECTIONS {
                tables.extend(
                    t.get(section)
                        .map(|d| (format!("target.{target}.{section}"), d)),
                );
            }
        }
    }
    if let Some(patches) = doc.get("patch").and_then(toml::Value::as_table) {
        tables.extend(patches.iter().map(|(r, t)| (format!("patch.{r}"), t)));
    }
    tables.extend(doc.get("replace").map(|t| ("replace".to_string(), t)));
    let mut out = Vec::new();
    for (section, table) in tables {
        let Some(table) = table.as_table() else {
            continue;
        };
        for (name, spec) in table {
            if let Some(source) = cargo_source(spec) {
                out.push(format!("Cargo's `[{section}.{name}]` from {source}"));
            }
        }
    }
    out
}

/// Where a Cargo dependency (a `Cargo.toml`'s, or a `[patch]` or
/// `[source]` table of a Cargo configuration) comes from when that is
/// outside crates.io: `git URL`, `registry NAME` or `registry-index URL`,
/// marked "(pinned by a hash)" for a git `rev` that is a full commit id;
/// `None` for a version, a path or a vendored directory.
pub(super) fn cargo_source(spec: &toml::Value) -> Option<String> {
    let (kind, source) = ["git", "registry", "registry-index"]
        .into_iter()
        .find_map(|k| Some((k, spec.get(k)?.as_str()?)))?;
    let pinned = kind == "git"
        && spec
            .get("rev")
            .and_then(toml::Value::as_str)
            .is_some_and(is_commit_id);
    Some(format!(
        "{kind} {source}{}",
        if pinned { " (pinned by a hash)" } else { "" }
    ))
}

/// Whether `v` is a full git commit id (40 hexadecimal digits).
fn is_commit_id(v: &str) -> bool {
    v.len() == 40 && v.bytes().all(|b| b.is_ascii_hexdigit())
}

/// What a Meson wrap file makes a build fetch: the URL, the folder the
/// fetched source would lie in (it is fetched only when no file lies
/// there), and the folder of the project whose `meson.build` reads it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct WrapFetch {
    /// Where Meson unpacks the source, an archive path ending in `/`.
    pub directory: String,
    /// The folder holding the `subprojects` folder, `""` or ending in `/`;
    /// `None` for a wrap in another folder, which counts only if the
    /// project names that folder its `subproject_dir`
    /// ([`subproject_dir`]).
    pub project: Option<String>,
    /// The wrap's folder, ending in `/`.
    pub folder: String,
    /// What it fetches: `source_url` (or its fallback, or `patch_url`) of
    /// a `[wrap-file]`; `url` of a `[wrap-git]`, `[wrap-hg]` or
    /// `[wrap-svn]`.
    pub url: String,
    /// Whether what it fetches is pinned: a `[wrap-file]` whose
    /// `source_hash` (and `patch_hash`, with a patch) Meson checks, or a
    /// `[wrap-git]` whose `revision` is a full commit id. Its code is
    /// unread all the same; it only cannot change without a new release.
    pub pinned: bool,
}

/// What the Meson wrap file at `path`, outside a test tree, fetches. It
/// is Meson's when it lies in the `subprojects` folder of the package's
/// project (at its root, or one folder down where an archive keeps its
/// files under a root folder) or of a subproject in it ([`WrapFetch`]'s
/// `project`), or in the folder the project names its `subproject_dir`. Meson, under meson-python
/// when pip builds the package, downloads a subproject whose folder is
/// missing and builds it, running its `meson.build`: a package whose
/// wrap's `source_url` named a server on 127.0.0.1 ran the fetched
/// `run_command` at `pip wheel`, and the rules alone allowed it (session
/// 48). The source is in no file the scan read, as for a `name @ URL`
/// requirement. Only a wrap's first section counts, as Meson reads it;
/// a `[wrap-redirect]` names another wrap, read where it lies.
pub fn wrap_fetch(path: &str, data: &[u8]) -> Option<WrapFetch> {
    let (dir, file) = path.rsplit_once('/')?;
    let stem = file.strip_suffix(".wrap")?;
    let folders: Vec<&str> = dir.split('/').collect();
    if super::render::in_test_tree(path) {
        return None;
    }
    let first = folders.iter().position(|f| *f == "subprojects");
    let project =
        (first.is_some_and(|f| f <= 1) && folders.last() == Some(&"subprojects")).then(|| {
            folders[..folders.len() - 1]
                .iter()
                .map(|f| format!("{f}/"))
                .collect()
        });
    // Meson reads a wrap with Python's `configparser`, as setuptools
    // reads a `setup.cfg`: its first section, options as written.
    let cfg = setup_cfg(data);
    let (kind, options) = cfg.sections.first()?;
    let option = |key: &str| {
        let found = options.iter().find(|(name, _, _)| name == key);
        found
            .map(|(_, value, _)| value.trim())
            .filter(|v| !v.is_empty())
    };
    let urls: &[&str] = match kind.as_str() {
        "wrap-file" => &[
            "source_url",
            "source_fallback_url",
            "patch_url",
            "patch_fallback_url",
        ],
        "wrap-git" | "wrap-hg" | "wrap-svn" => &["url", "patch_url", "patch_fallback_url"],
        _ => return None,
    };
    let url = urls.iter().find_map(|k| option(k))?;
    let directory = option("directory").unwrap_or(stem);
    let hashed = |url: &str, hash: &str| option(url).is_none() || option(hash).is_some();
    let pinned = match kind.as_str() {
        "wrap-file" => {
            option("source_url").is_some()
                && hashed("source_url", "source_hash")
                && hashed("patch_url", "patch_hash")
        }
        "wrap-git" => {
            option("revision").is_some_and(is_commit_id) && hashed("patch_url", "patch_hash")
        }
        _ => false,
    };
    Some(WrapFetch {
        directory: format!("{dir}/{}/", directory.trim_end_matches('/')),
        project,
        folder: format!("{dir}/"),
        url: url.to_string(),
        pinned,
    })
}

/// The folder (an archive path ending in `/`) a project's root
/// `meson.build` at `path` (at the package's root, or one folder down)
/// names its `subproject_dir` in `project(…)`, where Meson then looks for
/// wraps instead of `subprojects/`: a wrap there fetches as one in
/// `subprojects/` does.
pub fn subproject_dir(path: &str, data: &[u8]) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let dir = match path.rsplit_once('/') {
        Some((dir, "meson.build")) if !dir.contains('/') => format!("{dir}/"),
        None if path == "meson.build" => String::new(),
        _ => return None,
    };
    let re = RE.get_or_init(|| {
        Regex::new(r#"\bsubproject_dir\s*:\s*['"]([^'"\n]+)['"]"#)
            .expect("the subproject_dir pattern compiles")
    });
    let value = std::str::from_utf8(&re.captures(data)?[1])
        .ok()?
        .trim_matches('/')
        .to_string();
    Some(format!("{dir}{value}/"))
}

fn lines(data: &[u8]) -> impl Iterator<Item = &str> {
    data.split(|&b| b == b'\n')
        .filter_map(|l| std::str::from_utf8(l).ok())
}

/// The metadata's `Requires-Dist` lines (an sdist's `PKG-INFO`, a wheel's
/// `METADATA`), not its description.
fn requires_dist(data: &[u8]) -> Vec<&str> {
    lines(data)
        .filter_map(|l| l.strip_prefix("Requires-Dist:"))
        .collect()
}

/// The requirements an install reads from a `pyproject.toml`: the
/// project's dependencies and extras, and the build backend's requirements
/// (fetched to build an sdist), and Poetry's, which poetry-core makes the
/// metadata's. Not `[dependency-groups]` or another tool's tables (hatch's
/// environments), which an install of the package never reads.
fn pyproject_requirements(doc: &toml::Table) -> Vec<String> {
    let strings = |v: Option<&toml::Value>| -> Vec<String> {
        v.and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|r| r.as_str().map(str::to_string))
            .collect()
    };
    let project = doc.get("project");
    let mut out = strings(project.and_then(|p| p.get("dependencies")));
    if let Some(extras) = project
        .and_then(|p| p.get("optional-dependencies"))
        .and_then(toml::Value::as_table)
    {
        for list in extras.values() {
            out.extend(strings(Some(list)));
        }
    }
    out.extend(strings(
        doc.get("build-system").and_then(|b| b.get("requires")),
    ));
    // Poetry's own tables, which poetry-core turns into the metadata's
    // requirements: a dependency given as a git repository, a URL or a
    // path (`helper = { git = "https://…" }`), in the main dependencies or
    // the main group (other groups are a developer's, not installed).
    let poetry = doc.get("tool").and_then(|t| t.get("poetry"));
    let main_group = poetry
        .and_then(|p| p.get("group"))
        .and_then(|g| g.get("main"))
        .and_then(|m| m.get("dependencies"));
    for deps in [poetry.and_then(|p| p.get("dependencies")), main_group]
        .into_iter()
        .flatten()
        .filter_map(toml::Value::as_table)
    {
        for (name, spec) in deps {
            let specs = match spec {
                toml::Value::Array(a) => a.iter().collect(),
                other => vec![other],
            };
            for spec in specs {
                for (key, prefix) in [("git", "git+"), ("url", ""), ("path", "file://")] {
                    if let Some(at) = spec.get(key).and_then(toml::Value::as_str) {
                        // `git@host:user/repo.git`, scp's form, has no scheme.
                        let prefix = match key {
                            "git" if !at.contains("://") => "git+ssh://",
                            _ => prefix,
                        };
                        out.push(format!("{name} @ {prefix}{at}"));
                    }
                }
            }
        }
    }
    out
}

/// Files whose lines a manifest at `path` makes its requirements, as
/// paths relative to the manifest's folder: setuptools' `dynamic`
/// dependencies and extras from files (`[tool.setuptools.dynamic]
/// dependencies = { file = ["requirements.txt"] }` in a `pyproject.toml`,
/// `install_requires = file: requirements.txt` in a `setup.cfg`), and
/// hatch-requirements-txt's ([`hatch_requirements_files`]). Their
/// direct references count as the manifest's own
/// ([`direct_references_in`]): an install reads them just the same.
pub fn requirement_files(code: &Code) -> Vec<String> {
    if !is_own_manifest(code.path) {
        return Vec::new();
    }
    match file_name(code.path).0 {
        "pyproject.toml" => {
            let Some(doc) = code.toml() else {
                return Vec::new();
            };
            let dynamic = setuptools_dynamic(doc);
            let mut specs: Vec<&toml::Value> = dynamic
                .and_then(|d| d.get("dependencies"))
                .into_iter()
                .collect();
            if let Some(extras) = dynamic
                .and_then(|d| d.get("optional-dependencies"))
                .and_then(toml::Value::as_table)
            {
                specs.extend(extras.values());
            }
            let mut files: Vec<String> = specs.into_iter().flat_map(dynamic_files).collect();
            files.extend(hatch_requirements_files(doc));
            files
        }
        "setup.cfg" => setup_cfg_requirements(code.setup_cfg())
            .iter()
            .filter_map(|v| v.strip_prefix("file:"))
            .flat_map(|files| files.split(',').map(|f| f.trim().to_string()))
            .filter(|f| !f.is_empty())
            .collect(),
        _ => Vec::new(),
    }
}

/// The requirements files hatch-requirements-txt makes a `pyproject.toml`'s
/// dependencies and extras (`[tool.hatch.metadata.hooks.requirements_txt]`:
/// `files`, the older `filename`, `requirements.txt` when neither is
/// given, and each extra's files under `optional-dependencies`).
/// annotated-types so naming a file with `helper @ https://…` built a
/// wheel whose metadata requires it, and was allowed (session 44).
fn hatch_requirements_files(doc: &toml::Table) -> Vec<String> {
    let Some(hook) = doc
        .get("tool")
        .and_then(|t| t.get("hatch"))
        .and_then(|h| h.get("metadata"))
        .and_then(|m| m.get("hooks"))
        .and_then(|h| h.get("requirements_txt"))
    else {
        return Vec::new();
    };
    let mut out = match (hook.get("files"), hook.get("filename")) {
        (None, None) => vec!["requirements.txt".to_string()],
        (files, filename) => [one_or_many(files), one_or_many(filename)].concat(),
    };
    if let Some(extras) = hook
        .get("optional-dependencies")
        .and_then(toml::Value::as_table)
    {
        out.extend(extras.values().flat_map(|f| one_or_many(Some(f))));
    }
    out
}

/// The parsed `pyproject.toml` at the package's root (at most one folder
/// deep), when `code` is one that parses: where a build reads its hooks
/// and file mappings.
pub(super) fn root_pyproject<'c>(code: &'c Code) -> Option<&'c toml::Table> {
    (file_name(code.path).1 == "pyproject.toml" && code.path.matches('/').count() <= 1)
        .then(|| code.toml())
        .flatten()
}

/// Hatch's build table (`[tool.hatch.build]`) and each target's
/// (`[tool.hatch.build.targets.NAME]`): either may set the build hooks,
/// `force-include` and `shared-data`.
pub(super) fn hatch_build_tables(doc: &toml::Table) -> impl Iterator<Item = &toml::Value> {
    let build = doc
        .get("tool")
        .and_then(|t| t.get("hatch"))
        .and_then(|h| h.get("build"));
    let targets = build
        .and_then(|b| b.get("targets"))
        .and_then(toml::Value::as_table)
        .into_iter()
        .flat_map(|t| t.values());
    build.into_iter().chain(targets)
}

/// A `pyproject.toml`'s `[tool.setuptools.dynamic]` table.
pub(super) fn setuptools_dynamic(doc: &toml::Table) -> Option<&toml::Value> {
    doc.get("tool")
        .and_then(|t| t.get("setuptools"))
        .and_then(|s| s.get("dynamic"))
}

/// The files a `[tool.setuptools.dynamic]` field reads (`{ file = "a" }`
/// or `{ file = ["a", "b"] }`).
pub(super) fn dynamic_files(field: &toml::Value) -> Vec<String> {
    one_or_many(field.get("file"))
}

/// A TOML value given as one string or an array of them (other items of
/// the array left out); nothing for any other value.
fn one_or_many(v: Option<&toml::Value>) -> Vec<String> {
    match v {
        Some(toml::Value::String(one)) => vec![one.clone()],
        Some(toml::Value::Array(many)) => many
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

/// The direct references (`name @ URL`) on the requirement lines of a text
/// file: a requirements file a manifest names ([`requirement_files`]).
pub fn direct_references_in(data: &[u8]) -> Vec<String> {
    lines(data)
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(references)
        .collect()
}

/// Every direct reference in `text`, as written.
fn references(text: &str) -> Vec<String> {
    direct_reference()
        .find_iter(text.as_bytes())
        .map(|m| String::from_utf8_lossy(m.as_bytes()).into_owned())
        .collect()
}

/// The requirements an install reads from a `setup.cfg`:
/// `install_requires` and `setup_requires` under `[options]`, and every
/// extra under `[options.extras_require]`, as setuptools gets them from
/// Python's `configparser` ([`setup_cfg`]).
fn setup_cfg_requirements(cfg: &CfgValues) -> Vec<String> {
    cfg.values
        .iter()
        .filter(|v| match v.section.as_str() {
            "options" => matches!(v.key().as_str(), "install_requires" | "setup_requires"),
            "options.extras_require" => true,
            _ => false,
        })
        .flat_map(|v| {
            v.value
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// A `setup.cfg` as Python's `configparser` reads it for setuptools
/// (`ConfigParser`, its default interpolation), in the respects that
/// decide what a value holds. A section header is the text between a
/// line's first `[` and its last `]`: `[options] ; see docs` is
/// `options`, and the value below it was read as nothing before session
/// 42 (tomli-like `p` with a requirement fetched from a URL was allowed).
/// A line indented deeper than its option's line goes on with the value.
/// Section and option names compare without case (and, where setuptools
/// reads an option by name, with `-` as `_`), more loosely than
/// setuptools, so nothing it reads is missed. The same reading serves the
/// entry-point files setuptools reads with `configparser` too.
pub(super) struct SetupCfg {
    /// Sections in file order, each with its options. A section or option
    /// named twice is kept twice: `configparser` refuses the file then, and
    /// the install fails.
    sections: Vec<(String, Vec<CfgOption>)>,
}

/// An option as written: name in lower case, value with its lines joined
/// with `\n`, the 1-based line of its name.
type CfgOption = (String, String, usize);

/// An option as setuptools gets it from a [`SetupCfg`]: the value
/// interpolated, a `[DEFAULT]` option under every section that does not
/// set its own.
pub(super) struct CfgValue {
    /// The section's name, in lower case.
    pub section: String,
    /// The option's name, in lower case, as written.
    pub name: String,
    /// The value after interpolation.
    pub value: String,
    /// The 1-based line the option's name is written on.
    pub line: usize,
}

impl CfgValue {
    /// The name as setuptools matches option names (`install-requires` is
    /// `install_requires`).
    pub fn key(&self) -> String {
        self.name.replace('-', "_")
    }
}

pub(super) fn setup_cfg(data: &[u8]) -> SetupCfg {
    let mut sections: Vec<(String, Vec<CfgOption>)> = Vec::new();
    // The indent of the open option's line, while an option is open.
    let mut open: Option<usize> = None;
    // Every line counts toward the numbering, UTF-8 or not.
    for (n, line) in data.split(|&b| b == b'\n').enumerate() {
        let Ok(line) = std::str::from_utf8(line) else {
            continue;
        };
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with(';') {
            continue;
        }
        let indent = line.chars().take_while(|c| c.is_whitespace()).count();
        let last = sections.last_mut().and_then(|s| s.1.last_mut());
        if let (Some((_, value, _)), Some(at)) = (last, open) {
            if indent > at {
                value.push('\n');
                value.push_str(t);
                continue;
            }
        }
        open = None;
        if let Some((header, _)) = t.strip_prefix('[').and_then(|r| r.rsplit_once(']')) {
            sections.push((header.trim().to_lowercase(), Vec::new()));
            continue;
        }
        let Some((_, options)) = sections.last_mut() else {
            continue;
        };
        let (k, v) = t.split_once(['=', ':']).unwrap_or((t, ""));
        options.push((k.trim().to_lowercase(), v.trim().to_string(), n + 1));
        open = Some(indent);
    }
    SetupCfg { sections }
}

impl SetupCfg {
    /// The options of `[DEFAULT]`.
    fn defaults(&self) -> impl Iterator<Item = &CfgOption> {
        self.sections
            .iter()
            .filter(|(s, _)| s == "default")
            .flat_map(|(_, o)| o)
    }

    /// Every option of every section but `[DEFAULT]`, in file order, as
    /// setuptools gets it: interpolated, and `[DEFAULT]`'s options under
    /// each section that does not set its own.
    ///
    /// Interpolation follows `BasicInterpolation`: each `%(name)s` is the
    /// value of `name` in the same section or `[DEFAULT]`, `%%` is `%`, 10
    /// levels deep. Where `configparser` would fail (an unknown name, a
    /// lone `%`, deeper nesting), setuptools fails and installs nothing;
    /// the value is then kept as written. The reading is bounded for the
    /// whole file: 100,000 replacements, 16 MiB of values (`[DEFAULT]`'s
    /// repeated under each section included) and 100,000 values. Names
    /// that each name several others multiply at every level (Python
    /// itself would take hours on 40 per value over 10 levels), and a
    /// `[DEFAULT]` of many options is every section's. Past a bound the
    /// rest is kept as written and [`CfgValues::cut`] says so: Python
    /// follows further, so the package's own file is then not cleared
    /// ([`unparsed_setup_cfg`]).
    pub fn values(&self) -> CfgValues {
        const VALUES_MAX: usize = 100_000;
        let defaults: Vec<&CfgOption> = self.defaults().collect();
        let mut budget = Budget {
            steps: 100_000,
            bytes: 16 << 20,
        };
        let mut out = CfgValues {
            values: Vec::new(),
            cut: false,
        };
        for (section, options) in &self.sections {
            if section == "default" {
                continue;
            }
            // By name, the section's own first: a search per replacement
            // would cost the options' count each time.
            let mut names: std::collections::HashMap<&str, &str> = defaults
                .iter()
                .map(|(k, v, _)| (k.as_str(), v.as_str()))
                .collect();
            names.extend(options.iter().map(|(k, v, _)| (k.as_str(), v.as_str())));
            let own: std::collections::HashSet<&str> =
                options.iter().map(|(k, ..)| k.as_str()).collect();
            let inherited = defaults.iter().filter(|(k, ..)| !own.contains(k.as_str()));
            for (name, value, line) in options.iter().chain(inherited.copied()) {
                if out.values.len() >= VALUES_MAX {
                    out.cut = true;
                    return out;
                }
                let mut done = String::new();
                let value = match interpolate(value, &names, 1, &mut budget, &mut done) {
                    Ok(()) => done,
                    Err(Stop::Fails) => value.clone(),
                    Err(Stop::Spent) => {
                        out.cut = true;
                        value.clone()
                    }
                };
                match budget.bytes.checked_sub(value.len()) {
                    Some(left) => budget.bytes = left,
                    None => {
                        out.cut = true;
                        return out;
                    }
                }
                out.values.push(CfgValue {
                    section: section.clone(),
                    name: name.clone(),
                    value,
                    line: *line,
                });
            }
        }
        out
    }
}

/// What [`SetupCfg::values`] read.
pub(super) struct CfgValues {
    pub values: Vec<CfgValue>,
    /// Whether the reading stopped at one of its bounds, leaving values
    /// as written that Python would interpolate, or values out.
    pub cut: bool,
}

/// What is left of [`SetupCfg::values`]' bounds.
struct Budget {
    steps: usize,
    bytes: usize,
}

/// Why a value is kept as written.
enum Stop {
    /// `configparser` would fail: setuptools installs nothing.
    Fails,
    /// The bounds were reached.
    Spent,
}

/// Appends `value` to `out` with its interpolation done, looking names up
/// in `names` (at `depth`, 1 for an option's own value).
fn interpolate(
    value: &str,
    names: &std::collections::HashMap<&str, &str>,
    depth: usize,
    budget: &mut Budget,
    out: &mut String,
) -> Result<(), Stop> {
    const MAX_DEPTH: usize = 10;
    let mut rest = value;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        if let Some(after) = rest.strip_prefix("%%") {
            out.push('%');
            rest = after;
        } else {
            budget.steps = budget.steps.checked_sub(1).ok_or(Stop::Spent)?;
            let (var, after) = rest
                .strip_prefix("%(")
                .and_then(|r| r.split_once(")s"))
                .ok_or(Stop::Fails)?;
            let var = var.trim().to_lowercase();
            let v = names.get(var.as_str()).ok_or(Stop::Fails)?;
            if v.contains('%') {
                if depth >= MAX_DEPTH {
                    return Err(Stop::Fails);
                }
                interpolate(v, names, depth + 1, budget, out)?;
            } else {
                out.push_str(v);
            }
            rest = after;
        }
        if out.len() > budget.bytes {
            return Err(Stop::Spent);
        }
    }
    out.push_str(rest);
    Ok(())
}

/// Why the package's own `setup.cfg` at `path` (`data`) is not read whole,
/// if it is not: its interpolation goes past the bounds of
/// [`SetupCfg::values`], where Python's `configparser` follows on, so a
/// value the rules read as written may be a requirement or a command once
/// setuptools reads it. Like a `pyproject.toml` this parser refuses
/// ([`unparsed_pyproject`]), it keeps the package from being cleared.
pub fn unparsed_setup_cfg(code: &Code) -> Option<String> {
    if file_name(code.path).0 != "setup.cfg" || !is_own_manifest(code.path) {
        return None;
    }
    code.setup_cfg().cut.then(|| {
        "its interpolation goes past what this reader follows (100,000 replacements, 16 MiB or 100,000 values), where Python's configparser goes on".to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cargo_manifest_s_git_and_registry_dependencies_are_read() {
        let fetched = |path: &str, text: &str| cargo_fetched(&Code::new(path, text.as_bytes()));
        let manifest = "[package]\nname = \"m\"\n\n[dependencies]\nserde = \"1\"\nlocal = { path = \"vendor/local\" }\nevil = { git = \"https://h/evil.git\" }\n\
                        [build-dependencies.gen]\ngit = \"https://h/gen.git\"\nrev = \"0123456789abcdef0123456789abcdef01234567\"\n\
                        [target.'cfg(unix)'.dependencies]\nx = { version = \"1\", registry = \"corp\" }\n\
                        [workspace.dependencies]\nw = { git = \"https://h/w.git\", branch = \"main\" }\n\
                        [patch.crates-io]\nlibc = { git = \"https://h/libc.git\" }\n";
        assert_eq!(
            fetched("p-1/rust/Cargo.toml", manifest),
            [
                "Cargo's `[dependencies.evil]` from git https://h/evil.git",
                "Cargo's `[workspace.dependencies.w]` from git https://h/w.git",
                "Cargo's `[build-dependencies.gen]` from git https://h/gen.git (pinned by a hash)",
                "Cargo's `[target.cfg(unix).dependencies.x]` from registry corp",
                "Cargo's `[patch.crates-io.libc]` from git https://h/libc.git",
            ]
        );
        // Not a test tree's manifest, another file, or what is not TOML.
        assert!(fetched("p-1/tests/crate/Cargo.toml", manifest).is_empty());
        assert!(fetched("p-1/docs/Cargo.txt", manifest).is_empty());
        assert!(fetched("p-1/Cargo.toml", "[dependencies\nevil = {").is_empty());
    }

    #[test]
    fn a_meson_wrap_that_downloads_is_read() {
        let wrap = |path: &str, text: &str| wrap_fetch(path, text.as_bytes());
        let file = "[wrap-file]\ndirectory = evil-1.0\nsource_url = https://h/evil.tgz\nsource_hash = 00\n";
        assert_eq!(
            wrap("p-1/subprojects/evil.wrap", file),
            Some(WrapFetch {
                directory: "p-1/subprojects/evil-1.0/".into(),
                project: Some("p-1/".into()),
                folder: "p-1/subprojects/".into(),
                url: "https://h/evil.tgz".into(),
                pinned: true,
            })
        );
        // Git, its folder by the file's name; a subproject's own wraps;
        // an unpacked tree without a root folder; `:` for `=`, comments,
        // keys in any case.
        let git = "# fetched\n[wrap-git]\nURL: https://h/evil.git\nrevision = head\n";
        let got = wrap("p-1/subprojects/highs/subprojects/evil.wrap", git).unwrap();
        assert_eq!(got.directory, "p-1/subprojects/highs/subprojects/evil/");
        assert_eq!(got.project.as_deref(), Some("p-1/subprojects/highs/"));
        assert_eq!(got.url, "https://h/evil.git");
        assert_eq!(
            wrap("subprojects/evil.wrap", git)
                .unwrap()
                .project
                .as_deref(),
            Some("")
        );
        // Pinned by a hash Meson checks, or a full commit id; a patch
        // needs its own hash.
        for (text, pinned) in [
            ("[wrap-file]\nsource_url = https://h/x.tgz\n", false),
            ("[wrap-file]\nsource_url = https://h/x.tgz\nsource_hash = 00\npatch_url = https://h/p.zip\n", false),
            ("[wrap-file]\nsource_url = https://h/x.tgz\nsource_hash = 00\npatch_url = https://h/p.zip\npatch_hash = 01\n", true),
            ("[wrap-git]\nurl = https://h/x.git\nrevision = head\n", false),
            ("[wrap-git]\nurl = https://h/x.git\nrevision = 0123456789abcdef0123456789abcdef01234567\n", true),
            ("[wrap-hg]\nurl = https://h/x\nrevision = 0123456789abcdef0123456789abcdef01234567\n", false),
        ] {
            assert_eq!(wrap("p-1/subprojects/x.wrap", text).unwrap().pinned, pinned, "{text}");
        }
        // A patch fetched over a local folder counts too.
        let patch = "[wrap-file]\ndirectory = x\npatch_url = https://h/p.zip\n";
        assert_eq!(
            wrap("p-1/subprojects/x.wrap", patch).unwrap().url,
            "https://h/p.zip"
        );
        // Read as `configparser` reads it: a header with text after its
        // `]`, a value on the lines after its name.
        for text in [
            "[wrap-file] ; from wrapdb\nsource_url = https://h/x.tgz\n",
            "[wrap-git]\nurl =\n    https://h/x.git\n",
        ] {
            assert!(wrap("p-1/subprojects/x.wrap", text).is_some(), "{text}");
        }
        // Nothing fetched: a redirect, a local folder only, another
        // section first, an empty URL.
        for text in [
            "[wrap-redirect]\nfilename = a/subprojects/b.wrap\n",
            "[wrap-file]\ndirectory = x\n",
            "[provide]\nx = x_dep\n[wrap-file]\nsource_url = https://h/x.tgz\n",
            "[wrap-git]\nurl =\n",
        ] {
            assert_eq!(wrap("p-1/subprojects/x.wrap", text), None, "{text}");
        }
        // Not a project's `subprojects` folder (deeper, or another
        // folder): read, to count only if a root `meson.build` names its
        // folder its `subproject_dir`.
        for (path, folder) in [
            (
                "p-1/numpy/src/highway/subprojects/gtest.wrap",
                "p-1/numpy/src/highway/subprojects/",
            ),
            ("p-1/wraps/x.wrap", "p-1/wraps/"),
        ] {
            let got = wrap(path, file).unwrap();
            assert_eq!((got.project, got.folder.as_str()), (None, folder), "{path}");
        }
        // Not a wrap: a test tree's, another name.
        for path in [
            "p-1/subprojects/tests/subprojects/x.wrap",
            "p-1/tests/subprojects/x.wrap",
            "p-1/subprojects/x.wrap.txt",
        ] {
            assert_eq!(wrap(path, file), None, "{path}");
        }
        // The folder a root `meson.build` names its `subproject_dir`.
        let dir = |path: &str, text: &str| subproject_dir(path, text.as_bytes());
        assert_eq!(
            dir(
                "p-1/meson.build",
                "project('p', 'c',\n  subproject_dir : 'third/party/')\n"
            )
            .as_deref(),
            Some("p-1/third/party/")
        );
        assert_eq!(
            dir("meson.build", "project('p', subproject_dir: \"w\")\n").as_deref(),
            Some("w/")
        );
        assert_eq!(dir("p-1/meson.build", "project('p')\n"), None);
        assert_eq!(
            dir("p-1/sub/meson.build", "project('s', subproject_dir: 'w')\n"),
            None
        );
    }

    fn npm(deps: &str) -> Vec<String> {
        let text = format!("{{\"name\": \"x\", {deps}}}");
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        off_registry_dependencies(
            &Code::new("package/package.json", text.as_bytes()),
            Some(&json),
        )
    }

    #[test]
    fn npm_dependencies_from_outside_the_registry_are_named() {
        for spec in [
            "https://files.example.net/helper-1.0.0.tgz",
            "http://10.0.0.1/h.tgz",
            "git+https://example.net/x/helper.git",
            "git+ssh://git@github.com/x/helper.git#v1",
            "git://example.net/helper.git",
            "github:user/helper",
            "user/helper#main",
            "file:../helper",
            "./vendor/helper",
        ] {
            let found = npm(&format!("\"dependencies\": {{\"helper\": \"{spec}\"}}"));
            assert_eq!(found, [format!("dependencies.helper = {spec}")], "{spec}");
        }
        assert_eq!(
            npm(
                r#""optionalDependencies": {"a": "github:u/a"}, "peerDependencies": {"b": "https://h/b.tgz"}"#
            ),
            [
                "optionalDependencies.a = github:u/a",
                "peerDependencies.b = https://h/b.tgz"
            ]
        );
    }

    #[test]
    fn registry_releases_and_dev_dependencies_do_not_count() {
        for spec in [
            "^1.2.3",
            "~1.0",
            "1.x || >=2.5.0",
            "1.0.0 - 2.9999.9999",
            "latest",
            "*",
            "",
            "npm:@scope/real@^1",
            "workspace:*",
        ] {
            let deps = format!("\"dependencies\": {{\"helper\": \"{spec}\"}}");
            assert!(npm(&deps).is_empty(), "{spec}");
        }
        assert!(npm(r#""devDependencies": {"t": "github:u/t"}"#).is_empty());
        // A test fixture's manifest, or a bundled dependency's.
        let json: serde_json::Value =
            serde_json::from_str(r#"{"dependencies": {"h": "github:u/h"}}"#).unwrap();
        for path in [
            "package/test/fixtures/package.json",
            "package/node_modules/h/package.json",
        ] {
            assert!(
                off_registry_dependencies(&Code::new(path, b""), Some(&json)).is_empty(),
                "{path}"
            );
        }
    }

    #[test]
    fn python_direct_references_are_named() {
        let cases: [(&str, &str, &str); 6] = [
            (
                "tomli-2.5.0/pyproject.toml",
                "[project]\ndependencies = [\"helper @ https://files.example.net/helper-1.0-py3-none-any.whl\"]\n",
                "helper @ https://files.example.net/helper-1.0-py3-none-any.whl",
            ),
            (
                "pkg-1.0/setup.cfg",
                "[options]\ninstall_requires =\n    helper[fast] @ git+https://example.net/helper.git@v1\n",
                "helper[fast] @ git+https://example.net/helper.git@v1",
            ),
            (
                "pkg-1.0/pyproject.toml",
                "[build-system]\nrequires = [\"setuptools\", \"backend @ https://h/backend.tgz\"]\n[project.optional-dependencies]\nfast = [\"x>=1\"]\n",
                "backend @ https://h/backend.tgz",
            ),
            (
                "pkg-1.0/setup.py",
                "setup(install_requires=['helper@file:///tmp/helper'])\n",
                "helper@file:///tmp/helper",
            ),
            (
                "pkg-1.0.dist-info/METADATA",
                "Name: pkg\nRequires-Dist: helper @ https://h/helper.whl ; python_version >= '3.8'\n",
                "helper @ https://h/helper.whl",
            ),
            (
                "pkg-1.0/PKG-INFO",
                "Requires-Dist: helper @ ssh://git@h/helper\n",
                "helper @ ssh://git@h/helper",
            ),
        ];
        for (path, text, want) in cases {
            assert_eq!(
                off_registry_dependencies(&Code::new(path, text.as_bytes()), None),
                [want],
                "{path}"
            );
        }
    }

    #[test]
    fn poetry_dependencies_from_outside_a_registry_are_named() {
        let text = r#"
[tool.poetry.dependencies]
python = "^3.8"
requests = "^2.31"
helper = { git = "https://example.net/x/helper.git", branch = "main" }
scp = { git = "git@example.net:x/scp.git" }
wheel = { url = "https://h/wheel-1.0-py3-none-any.whl" }
local = [{ path = "../local", markers = "sys_platform == 'linux'" }, { version = "^1" }]

[tool.poetry.group.main.dependencies]
grouped = { git = "https://example.net/x/grouped.git" }

[tool.poetry.group.dev.dependencies]
devtool = { git = "https://example.net/x/devtool.git" }
"#;
        let found =
            off_registry_dependencies(&Code::new("p/pyproject.toml", text.as_bytes()), None);
        assert_eq!(
            found,
            [
                "helper @ git+https://example.net/x/helper.git",
                "local @ file://../local",
                "scp @ git+ssh://git@example.net:x/scp.git",
                "wheel @ https://h/wheel-1.0-py3-none-any.whl",
                "grouped @ git+https://example.net/x/grouped.git",
            ]
        );
    }

    /// `setup.cfg` is read as `configparser` reads it for setuptools: each
    /// of these names the URL requirement setuptools installs (checked
    /// against Python 3.11's `configparser` when written); before session
    /// 42 the header with a comment after it, and the interpolations, hid
    /// it. A value setuptools cannot read (an unknown name) stays as
    /// written, and names that multiply at every level end in bounded time.
    #[test]
    fn setup_cfg_is_read_as_configparser_reads_it() {
        let url = "helper @ https://h/helper-1.0-py3-none-any.whl";
        let refs =
            |cfg: &str| off_registry_dependencies(&Code::new("p/setup.cfg", cfg.as_bytes()), None);
        for cfg in [
            format!("[options] ; see docs\ninstall_requires =\n    {url}\n"),
            "[options]\nbase = https://h\ninstall_requires =\n    helper @ %(base)s/helper-1.0-py3-none-any.whl\n".to_string(),
            "[DEFAULT]\nhost = h\n[options]\ninstall_requires = helper @ https://%(host)s/helper-1.0-py3-none-any.whl\n".to_string(),
            format!("[DEFAULT]\ndep = {url}\n[options]\ninstall_requires = %(dep)s\n"),
            format!("[DEFAULT]\ninstall-requires = {url}\n[options]\npackages = find:\n"),
            format!("[DEFAULT]\na = {url}\nb = %(a)s\n[options.extras_require]\nfast = %(b)s\n"),
            format!("[options]\ninstall_requires = requests\n    {url}\n  python_requires = >=3.8\n"),
        ] {
            // `[DEFAULT]`'s options are extras too, as setuptools reads them.
            let mut found = refs(&cfg);
            found.dedup();
            assert_eq!(found, [url], "{cfg}");
        }
        // `%%` is a percent sign; a value indented no deeper than its key's
        // line is an option of its own, not a requirement.
        assert_eq!(
            setup_cfg_requirements(
                &setup_cfg(b"[options]\ninstall_requires = a%%b\nsetup_requires = x\n").values()
            ),
            ["a%b", "x"]
        );
        let flat = format!("[options]\ninstall_requires =\n{url}\n");
        assert!(refs(&flat).is_empty(), "{:?}", refs(&flat));
        assert_eq!(
            setup_cfg_requirements(
                &setup_cfg(b"[options]\ninstall_requires = %(nowhere)s\n").values()
            ),
            ["%(nowhere)s"]
        );
        // 40 names to a value, 10 levels: 40^10 replacements in Python.
        let mut cfg = String::from("[DEFAULT]\nv0 = x\n");
        for level in 1..=10 {
            cfg += &format!("v{level} = {}\n", format!("%(v{})s", level - 1).repeat(40));
        }
        cfg += "[options]\ninstall_requires = %(v10)s\n";
        assert_eq!(
            setup_cfg_requirements(&setup_cfg(cfg.as_bytes()).values()),
            ["%(v10)s"]
        );
        // Python would follow on: the package's own file is not cleared.
        assert!(unparsed_setup_cfg(&Code::new("p/setup.cfg", cfg.as_bytes())).is_some());
        assert_eq!(
            unparsed_setup_cfg(&Code::new("p/tests/setup.cfg", cfg.as_bytes())),
            None
        );
        // Where configparser fails, nothing is left to follow.
        let fails = b"[options]\ninstall_requires = %(nowhere)s\n";
        assert_eq!(unparsed_setup_cfg(&Code::new("p/setup.cfg", fails)), None);
        // A `[DEFAULT]` of 1,000 options under 200 sections: 200,000
        // values, past the bound.
        let mut wide = String::from("[DEFAULT]\n");
        (0..1000).for_each(|i| wide += &format!("d{i} = x\n"));
        (0..200).for_each(|i| wide += &format!("[s{i}]\n"));
        assert!(unparsed_setup_cfg(&Code::new("p/setup.cfg", wide.as_bytes())).is_some());
        let narrow = wide
            .replace("[s1]\n", "")
            .split("[s2]")
            .next()
            .unwrap()
            .to_string();
        assert_eq!(
            unparsed_setup_cfg(&Code::new("p/setup.cfg", narrow.as_bytes())),
            None
        );
        assert_eq!(
            requirement_files(&Code::new(
                "p/setup.cfg",
                b"[DEFAULT]\nreq = requirements.txt\n[options]\ninstall_requires = file: %(req)s\n"
            )),
            ["requirements.txt"]
        );
    }

    #[test]
    fn requirement_files_a_manifest_names_are_found() {
        // hatch-requirements-txt's files, its default, an extra's.
        for (table, want) in [
            ("files = [\"req/base.txt\"]\n", &["req/base.txt"][..]),
            ("", &["requirements.txt"]),
            ("filename = \"reqs.in\"\n", &["reqs.in"]),
            ("files = []\n[tool.hatch.metadata.hooks.requirements_txt.optional-dependencies]\nfast = [\"f.txt\"]\n", &["f.txt"]),
        ] {
            let text = format!("[tool.hatch.metadata.hooks.requirements_txt]\n{table}");
            assert_eq!(requirement_files(&Code::new("p/pyproject.toml", text.as_bytes())), want, "{text}");
        }
        let pyproject = "[project]\ndynamic = [\"dependencies\"]\n[tool.setuptools.dynamic]\ndependencies = { file = [\"requirements.txt\", \"req/extra.in\"] }\noptional-dependencies.fast = { file = \"fast.txt\" }\n";
        assert_eq!(
            requirement_files(&Code::new("p/pyproject.toml", pyproject.as_bytes())),
            ["requirements.txt", "req/extra.in", "fast.txt"]
        );
        let cfg = "[options]\ninstall_requires = file: requirements.txt, more.txt\n[options.extras_require]\nfast = file: fast.txt\n";
        assert_eq!(
            requirement_files(&Code::new("p/setup.cfg", cfg.as_bytes())),
            ["requirements.txt", "more.txt", "fast.txt"]
        );
        // Not a test fixture's manifest, nor one naming no file.
        assert!(
            requirement_files(&Code::new("p/tests/pyproject.toml", pyproject.as_bytes()))
                .is_empty()
        );
        assert!(
            requirement_files(&Code::new("p/pyproject.toml", b"[project]\nname = \"p\"\n"))
                .is_empty()
        );
        assert_eq!(
            direct_references_in(
                b"# helper @ https://h/x.whl\nrequests>=2\nhelper @ https://h/helper.whl\n"
            ),
            ["helper @ https://h/helper.whl"]
        );
    }

    #[test]
    fn python_requirements_from_an_index_and_other_files_do_not_count() {
        let ordinary = "[project]\ndependencies = [\"requests>=2\", \"tomli; python_version < '3.11'\"]\nurls = { Home = \"https://example.net\" }\nauthors = [{ email = \"me@example.net\" }]\n";
        assert!(off_registry_dependencies(
            &Code::new("p/pyproject.toml", ordinary.as_bytes()),
            None
        )
        .is_empty());
        // Groups and a tool's environments are not installed with the
        // package (black's `diff-shades` group, soupsieve's hatch docs
        // environment).
        let dev = "[dependency-groups]\ndiff = [\"diff-shades @ https://h/stable.zip\"]\n[tool.hatch.envs.docs]\ndependencies = [\"theme @ git+https://h/theme.git\"]\n";
        assert!(
            off_registry_dependencies(&Code::new("p/pyproject.toml", dev.as_bytes()), None)
                .is_empty()
        );
        let cfg = "[options.extras_require]\n[testenv]\ndeps = helper @ https://h/helper.whl\n";
        assert!(
            off_registry_dependencies(&Code::new("p/setup.cfg", cfg.as_bytes()), None).is_empty()
        );
        let commented = "# helper @ https://h/helper.whl\n";
        assert!(off_registry_dependencies(
            &Code::new("p/pyproject.toml", commented.as_bytes()),
            None
        )
        .is_empty());
        // Only `Requires-Dist` lines of metadata; not a description naming one.
        let described = "Description: install helper @ https://h/helper.whl by hand\n";
        assert!(
            off_registry_dependencies(&Code::new("p/PKG-INFO", described.as_bytes()), None)
                .is_empty()
        );
        // Other files, and manifests of tests.
        let dep = "helper @ https://h/helper.whl\n";
        for path in [
            "p/requirements.txt",
            "p/tests/data/pyproject.toml",
            "p/src/pkg/setup.py",
        ] {
            assert!(
                off_registry_dependencies(&Code::new(path, dep.as_bytes()), None).is_empty(),
                "{path}"
            );
        }
    }
}
