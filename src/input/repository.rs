//! Version-control repositories a package ships, and the settings in them
//! that make git or Mercurial run a command.
//!
//! Why: build backends ask the source tree's repository for the version.
//! setuptools-scm (through setuptools), pdm-backend's `scm` source and
//! poetry-dynamic-versioning run git, or Mercurial, in the unpacked
//! source package whenever it holds a `.git` or `.hg`. Both obey the
//! repository's own settings, and those name commands:
//!
//! - git's `core.fsmonitor`, a filter's `clean`, `diff.external`,
//!   `include.path` (more settings from any file);
//! - git's hooks (`post-index-change` runs at `git status`);
//! - Mercurial's `[hooks]` and `[extensions]` (a Python file it loads).
//!
//! Rendering drops a repository as junk, as the corpus does, so no reader
//! of the text ever sees these settings. cachetools' sdist with a `.git`
//! whose `config` set `core.fsmonitor` to a command was allowed by the
//! shipped gate, and `pip wheel` ran the command through setuptools-scm
//! (session 46; the same with a hook, an included file, a `.git` file or
//! link naming a repository under `tests/`, and Mercurial's hooks and
//! extensions).
//!
//! A repository is a folder named `.git` or `.hg` (any case, at any
//! depth: a build may run git in a subproject), the folder a `.git` file
//! names (`gitdir: tests/data/repo`, as git's submodules use), or the
//! target of a link named `.git` or `.hg`. In one, these count:
//!
//! - a git `config` (or `config.worktree`) setting any key outside the
//!   few `git clone` and `git init` write ([`PLAIN_GIT`]), or a line git's
//!   syntax reader here does not follow;
//! - any file in a `hooks` folder but git's own `*.sample`;
//! - git's `commondir` and Mercurial's `sharedpath`, which make either
//!   read another folder's settings;
//! - a Mercurial `hgrc` with any section but `[paths]`, or `[ui]`'s
//!   `username`, or an `%include`.
//!
//! A checkout made by `git clone` holds none of these, and a shipped
//! repository needs none.
//!
//! This module only reads text: it never runs git or Mercurial, and it
//! only ever adds reasons to block.

use std::collections::HashMap;

use super::render::file_name;

/// The settings `git clone`, `git init` and everyday commands write into
/// a repository's own `config` that run nothing: (section, whether a
/// subsection is named, keys). Everything else counts, since git has
/// dozens of settings that run a command, and a list of those would miss
/// the next one.
const PLAIN_GIT: &[(&str, bool, &[&str])] = &[
    (
        "core",
        false,
        &[
            "repositoryformatversion",
            "filemode",
            "bare",
            "logallrefupdates",
            "ignorecase",
            "precomposeunicode",
            "symlinks",
            "autocrlf",
            "eol",
            "safecrlf",
            "quotepath",
            "sharedrepository",
            "checkstat",
            "trustctime",
        ],
    ),
    ("extensions", false, &["objectformat", "refstorage"]),
    (
        "remote",
        true,
        &[
            "url",
            "pushurl",
            "fetch",
            "tagopt",
            "promisor",
            "partialclonefilter",
            "mirror",
            "prune",
        ],
    ),
    (
        "branch",
        true,
        &["remote", "merge", "rebase", "pushremote", "description"],
    ),
    ("submodule", true, &["url", "active", "branch", "shallow"]),
    ("user", false, &["name", "email"]),
    ("lfs", false, &["repositoryformatversion"]),
];

/// Bytes of a settings file kept for reading; past this the file counts
/// as unread (real ones hold a few hundred bytes).
const SETTINGS_CAP: usize = 16 * 1024;

/// The most findings one settings file gives: each distinct key once, and
/// one is enough to block; a crafted file of thousands of keys would
/// otherwise make as many strings, for every such file.
const KEYS_SHOWN: usize = 8;

/// Which version-control system reads a repository folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Vcs {
    Git,
    Mercurial,
}

/// What a package holds that could belong to a repository, gathered member
/// by member (paths as read) and judged once every member was seen
/// ([`Repositories::findings`]): only then is it known which folders a
/// `.git` file names.
#[derive(Debug, Default)]
pub struct Repositories {
    /// (path, first bytes, whether cut) of files a repository's reader
    /// takes for settings: `config`, `config.worktree`, `commondir`,
    /// `hgrc`, `hgrc-not-shared`, `sharedpath`, and `.git` files.
    files: Vec<(String, Vec<u8>, bool)>,
    /// Files in a `hooks` folder.
    hooks: Vec<String>,
}

impl Repositories {
    /// Keeps the member at `path` if a repository's reader could take it
    /// for settings or a hook.
    pub fn look_at(&mut self, path: &str, data: &[u8]) {
        let name = file_name(path).1;
        if matches!(
            name.as_str(),
            "config"
                | "config.worktree"
                | "commondir"
                | "hgrc"
                | "hgrc-not-shared"
                | "sharedpath"
                | ".git"
        ) {
            let cut = data.len() > SETTINGS_CAP;
            let kept = data[..data.len().min(SETTINGS_CAP)].to_vec();
            self.files.push((path.to_string(), kept, cut));
        }
        let folders = path.rsplit_once('/').map_or("", |(d, _)| d);
        if folders
            .split('/')
            .any(|part| part.eq_ignore_ascii_case("hooks"))
        {
            self.hooks.push(path.to_string());
        }
    }

    pub fn extend(&mut self, other: Repositories) {
        self.files.extend(other.files);
        self.hooks.extend(other.hooks);
    }

    /// Each setting, hook or pointer in a repository the package holds
    /// that makes git or Mercurial run a command or read settings from
    /// elsewhere, as `path: what`, in path order. `links` are the
    /// package's links (link, target), as read.
    pub fn findings(&self, links: &[(String, String)]) -> Vec<String> {
        // Folders named as repositories by a `.git` file or a link, by
        // their lowercase paths: a package can name thousands, and each
        // file is looked up by its folders, not against every one.
        let mut named: HashMap<String, Vcs> = self
            .files
            .iter()
            .filter(|(p, _, _)| file_name(p).1 == ".git")
            .filter_map(|(p, data, _)| gitfile_target(p, data))
            .map(|t| (t.to_ascii_lowercase(), Vcs::Git))
            .collect();
        for (link, to) in links {
            match file_name(link).1.as_str() {
                ".git" => named.insert(to.to_ascii_lowercase(), Vcs::Git),
                ".hg" => named.insert(to.to_ascii_lowercase(), Vcs::Mercurial),
                _ => None,
            };
        }
        let mut out = Vec::new();
        for (path, data, cut) in &self.files {
            let Some((vcs, rel)) = in_repository(path, &named) else {
                continue;
            };
            let read: fn(&[u8]) -> Vec<String> = match (vcs, rel.to_ascii_lowercase().as_str()) {
                (Vcs::Git, "commondir") => {
                    |_| vec!["commondir (git reads the settings of the folder it names)".into()]
                }
                (Vcs::Mercurial, "sharedpath") => |_| {
                    vec![
                        "sharedpath (Mercurial reads the settings of the repository it names)"
                            .into(),
                    ]
                },
                (Vcs::Mercurial, "hgrc" | "hgrc-not-shared") => hgrc_findings,
                (Vcs::Git, r) if is_git_config(r) => git_config_findings,
                _ => continue,
            };
            let what = match cut {
                true => vec![format!(
                    "settings longer than {} KiB, not read",
                    SETTINGS_CAP / 1024
                )],
                false => read(data),
            };
            out.extend(what.into_iter().map(|w| format!("{path}: {w}")));
        }
        for path in &self.hooks {
            let Some((_, rel)) = in_repository(path, &named) else {
                continue;
            };
            let in_hooks = rel
                .rsplit_once('/')
                .is_some_and(|(d, _)| d.split('/').any(|p| p.eq_ignore_ascii_case("hooks")));
            if in_hooks && !file_name(path).1.ends_with(".sample") {
                out.push(format!("{path}: a hook"));
            }
        }
        out.sort();
        out.dedup();
        out
    }
}

/// Whether a path inside a git folder names its settings: `config` or
/// `config.worktree` at its top, or in a submodule's or worktree's folder
/// (`modules/NAME/config`), not a ref or log so named.
fn is_git_config(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let top = rel.split('/').next().unwrap_or(rel);
    matches!(name, "config" | "config.worktree")
        && !matches!(top, "refs" | "logs" | "objects" | "hooks")
}

/// The repository `path` lies in, and its path there: under a `.git` or
/// `.hg` folder (the first on its path), or under a folder in `named`.
/// Names are compared without case, as a file system that ignores it
/// would find them.
fn in_repository<'a>(path: &'a str, named: &HashMap<String, Vcs>) -> Option<(Vcs, &'a str)> {
    let lower = path.to_ascii_lowercase();
    // Each folder on the path, outermost first: (its end, its name).
    let folders = path.match_indices('/').map(|(end, _)| {
        let start = path[..end].rfind('/').map_or(0, |s| s + 1);
        (end, &path[start..end])
    });
    for (end, part) in folders {
        let vcs = match part.to_ascii_lowercase().as_str() {
            ".git" => Some(Vcs::Git),
            ".hg" => Some(Vcs::Mercurial),
            _ => named.get(&lower[..end]).copied(),
        };
        if let Some(vcs) = vcs {
            return Some((vcs, &path[end + 1..]));
        }
    }
    None
}

/// The folder a `.git` file at `path` makes git take for the repository
/// (`gitdir: PATH`, relative to the file's folder), when it lies inside
/// the package: an absolute one is outside it, and git then finds no
/// repository the package could have written.
fn gitfile_target(path: &str, data: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(data).ok()?;
    let target = text.strip_prefix("gitdir:")?.trim();
    // Windows' git takes backslashes too.
    let target = target.replace('\\', "/");
    let absolute = target.starts_with('/')
        || target.as_bytes().get(1) == Some(&b':')
        || target.starts_with("//");
    if target.is_empty() || absolute {
        return None;
    }
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    super::render::resolve_from(dir, &target).filter(|t| !t.is_empty())
}

/// What a git `config` sets beyond [`PLAIN_GIT`]: each such key as
/// `section.subsection.key`, and any line this reader does not follow
/// (`line N: …`), which git might.
fn git_config_findings(data: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    // (section, subsection) of the lines that follow.
    let mut section: Option<(String, Option<String>)> = None;
    let mut lines = data.split(|&b| b == b'\n').enumerate();
    while let Some((i, raw)) = lines.next() {
        let line = trim_start(strip_cr(raw));
        let rest = match line.first() {
            None | Some(b'#' | b';') => continue,
            Some(b'[') => match header(line) {
                Some((s, sub, rest)) => {
                    section = Some((s, sub));
                    rest
                }
                None => {
                    out.push(format!(
                        "line {} is not a section header git's syntax allows",
                        i + 1
                    ));
                    // What follows would be read under the wrong section.
                    return out;
                }
            },
            Some(_) => line,
        };
        let rest = trim_start(rest);
        if matches!(rest.first(), None | Some(b'#' | b';')) {
            continue;
        }
        let Some((key, value)) = key_of(rest) else {
            out.push(format!("line {}: not a setting", i + 1));
            return out;
        };
        let Some((s, sub)) = &section else {
            out.push(format!("line {}: a setting outside any section", i + 1));
            return out;
        };
        if !plain_git(s, sub.is_some(), &key) {
            let name = match sub {
                Some(sub) => format!("{s}.{sub}.{key}"),
                None => format!("{s}.{key}"),
            };
            if !out.contains(&name) && out.len() < KEYS_SHOWN {
                out.push(name);
            }
        }
        // A value whose line ends in an odd backslash goes on: its next
        // lines are the value's, not settings.
        let mut continues = ends_escaped(value);
        while continues {
            match lines.next() {
                Some((_, next)) => continues = ends_escaped(strip_cr(next)),
                None => break,
            }
        }
    }
    out
}

fn plain_git(section: &str, has_sub: bool, key: &str) -> bool {
    PLAIN_GIT
        .iter()
        .any(|(s, sub, keys)| *s == section && *sub == has_sub && keys.contains(&key))
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn trim_start(line: &[u8]) -> &[u8] {
    let n = line
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count();
    &line[n..]
}

/// A section header at the start of `line`: (section, lowercase; its
/// subsection, as written; what follows the `]`). Both of git's forms:
/// `[section "sub"]` and the older `[section.sub]`.
fn header(line: &[u8]) -> Option<(String, Option<String>, &[u8])> {
    let inner = line.strip_prefix(b"[")?;
    let n = inner
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.'))
        .count();
    let name = std::str::from_utf8(&inner[..n]).ok()?.to_ascii_lowercase();
    if name.is_empty() {
        return None;
    }
    let after = &inner[n..];
    if let Some(rest) = after.strip_prefix(b"]") {
        return Some(match name.split_once('.') {
            Some((s, sub)) => (s.to_string(), Some(sub.to_string()), rest),
            None => (name, None, rest),
        });
    }
    if name.contains('.') {
        return None;
    }
    let quoted = trim_start(after).strip_prefix(b"\"")?;
    let mut sub = Vec::new();
    let mut bytes = quoted.iter().enumerate();
    while let Some((i, &b)) = bytes.next() {
        match b {
            b'\\' => sub.push(*bytes.next()?.1),
            b'"' => {
                let rest = quoted[i + 1..].strip_prefix(b"]")?;
                return Some((name, Some(String::from_utf8_lossy(&sub).into_owned()), rest));
            }
            _ => sub.push(b),
        }
    }
    None
}

/// A setting's key (lowercase) and the rest of its line (its value, if
/// any): a key is a letter, then letters, digits and dashes.
fn key_of(line: &[u8]) -> Option<(String, &[u8])> {
    if !line.first()?.is_ascii_alphabetic() {
        return None;
    }
    let n = line
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-')
        .count();
    let key = String::from_utf8_lossy(&line[..n]).to_ascii_lowercase();
    let rest = trim_start(&line[n..]);
    match rest.first() {
        None | Some(b'#' | b';') => Some((key, b"")),
        Some(b'=') => Some((key, &rest[1..])),
        Some(_) => None,
    }
}

/// Whether a value's line ends in a backslash that is not itself escaped
/// (outside a comment), so git reads the next line as more of it.
fn ends_escaped(value: &[u8]) -> bool {
    let mut quoted = false;
    let mut escaped = false;
    for &b in value {
        if escaped {
            escaped = false;
            continue;
        }
        match b {
            b'\\' => escaped = true,
            b'"' => quoted = !quoted,
            b'#' | b';' if !quoted => return false,
            _ => {}
        }
    }
    escaped
}

/// What a Mercurial `hgrc` sets beyond `[paths]` and `[ui]`'s
/// `username` (what `hg clone` writes): each other section once, as
/// `[section]`, `ui`'s other keys, and `%include` or `%unset` lines.
fn hgrc_findings(data: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut section: Option<String> = None;
    for (i, raw) in data.split(|&b| b == b'\n').enumerate() {
        let raw = strip_cr(raw);
        // A line starting with white space continues the value above.
        if matches!(raw.first(), Some(b' ' | b'\t')) {
            if trim_start(raw).is_empty() || section.is_some() {
                continue;
            }
            out.push(format!("line {}: not a setting", i + 1));
            continue;
        }
        let line = raw;
        match line.first() {
            None | Some(b'#' | b';') => {}
            Some(b'%') => out.push(
                String::from_utf8_lossy(line.split(|&b| b == b' ').next().unwrap_or(line))
                    .into_owned(),
            ),
            Some(b'[') => {
                let end = line.iter().position(|&b| b == b']');
                let name = end.map(|e| String::from_utf8_lossy(&line[1..e]).trim().to_string());
                match name {
                    Some(name) => {
                        if name != "paths" && name != "ui" {
                            out.push(format!("[{name}]"));
                        }
                        section = Some(name);
                    }
                    None => out.push(format!("line {}: not a section header", i + 1)),
                }
            }
            Some(_) => {
                let key = line
                    .iter()
                    .position(|&b| b == b'=')
                    .map(|e| String::from_utf8_lossy(&line[..e]).trim().to_string());
                match (section.as_deref(), key) {
                    (Some("paths"), Some(_)) => {}
                    (Some("ui"), Some(k)) if k == "username" => {}
                    (Some("ui"), Some(k)) => out.push(format!("ui.{k}")),
                    (Some(_), Some(_)) => {}
                    _ => out.push(format!("line {}: not a setting", i + 1)),
                }
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|f| seen.insert(f.clone()));
    out.truncate(KEYS_SHOWN);
    out
}

/// The note that makes a package's code opaque when it ships a repository
/// whose settings or hooks make git or Mercurial run a command.
pub fn note(found: &[String]) -> Option<String> {
    if found.is_empty() {
        return None;
    }
    let names = crate::util::first_few(found, 5);
    Some(format!(
        "holds {n} version-control setting(s) or hook(s) that make git or Mercurial run a command or read settings from elsewhere ({names}): a build that asks the package's repository for its version (setuptools-scm, pdm-backend, poetry-dynamic-versioning) runs git or Mercurial in the unpacked package, and they run what the repository's own settings and hooks name; the scan does not render a repository, so no reader of the text sees them, and no package needs them: remove the repository, or review it and allowlist the artifact by sha256",
        n = found.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(members: &[(&str, &str)], links: &[(&str, &str)]) -> Vec<String> {
        let mut r = Repositories::default();
        for (p, d) in members {
            r.look_at(p, d.as_bytes());
        }
        let links: Vec<(String, String)> = links
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        r.findings(&links)
    }

    const CLONED: &str = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n[remote \"origin\"]\n\turl = https://github.com/x/y.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n";

    /// What `git clone` and `git init` write runs nothing; each setting
    /// that names a command, or more settings, counts, in either header
    /// form, in any case, after a header on its line, or with no value.
    #[test]
    fn git_settings_that_run_commands_are_found() {
        assert_eq!(git_config_findings(CLONED.as_bytes()), Vec::<String>::new());
        assert_eq!(
            git_config_findings(b"[core]\n\trepositoryformatversion = 0\n[extensions]\n\tobjectformat = sha256\n; a comment\n# another\n\n"),
            Vec::<String>::new()
        );
        let cases: [(&str, &[&str]); 10] = [
            (
                "[core]\n\tfsmonitor = \"touch /tmp/x; false\"\n",
                &["core.fsmonitor"],
            ),
            ("[Core]\n\tFSMonitor = x\n", &["core.fsmonitor"]),
            ("[core] fsmonitor = x\n", &["core.fsmonitor"]),
            (
                "[filter \"crlf\"]\n\tclean = sh x\n",
                &["filter.crlf.clean"],
            ),
            ("[filter.crlf]\n\tclean = sh x\n", &["filter.crlf.clean"]),
            ("[include]\n\tpath = ../docs/style.txt\n", &["include.path"]),
            (
                "[includeIf \"gitdir:/\"]\n\tpath = x\n",
                &["includeif.gitdir:/.path"],
            ),
            (
                "[core]\n\thooksPath = tests/hooks\n\tbare\n",
                &["core.hookspath"],
            ),
            (
                "[diff]\n\texternal = x\n[gpg]\n\tprogram = y\n",
                &["diff.external", "gpg.program"],
            ),
            // A plain key under a subsection, or with one it has not.
            (
                "[remote]\n\turl = x\n[core \"x\"]\n\tbare = true\n",
                &["remote.url", "core.x.bare"],
            ),
        ];
        for (text, want) in cases {
            assert_eq!(git_config_findings(text.as_bytes()), want, "{text}");
        }
        // includeIf's subsection is kept as written.
        assert_eq!(
            git_config_findings(b"[includeIf \"gitdir:~/w/\"]\npath = x\n"),
            ["includeif.gitdir:~/w/.path"]
        );
    }

    /// A continued value is one setting, whatever its next lines look
    /// like; a line this reader does not follow counts, and stops the
    /// reading (what follows could be under another section for git).
    #[test]
    fn git_settings_are_read_strictly() {
        assert_eq!(
            git_config_findings(
                b"[remote \"o\"]\n\turl = a\\\n[core]\\\n\tfsmonitor = x\n\tfetch = y\n"
            ),
            Vec::<String>::new()
        );
        // An escaped backslash ends the value.
        assert_eq!(
            git_config_findings(b"[user]\n\tname = a\\\\\n[core]\n\tfsmonitor = x\n"),
            ["core.fsmonitor"]
        );
        // A backslash in a comment continues nothing.
        assert_eq!(
            git_config_findings(b"[user]\n\tname = a # b\\\n[core]\n\tfsmonitor = x\n"),
            ["core.fsmonitor"]
        );
        assert_eq!(
            git_config_findings(b"fsmonitor = x\n"),
            ["line 1: a setting outside any section"]
        );
        assert_eq!(
            git_config_findings(b"[core]\n\tbare = false\n\t*fsmonitor = x\n"),
            ["line 3: not a setting"]
        );
        assert_eq!(
            git_config_findings(b"[core\n\tfsmonitor = x\n"),
            ["line 1 is not a section header git's syntax allows"]
        );
        assert_eq!(
            git_config_findings(b"[core]\r\n\tfsmonitor = x\r\n"),
            ["core.fsmonitor"]
        );
    }

    #[test]
    fn mercurial_settings_beyond_paths_are_found() {
        let cloned = "# example repository config\n[paths]\ndefault = https://hg.example.org/x\n\n# default:pushurl = ssh://x\n[ui]\n# username = Jane\nusername = a <a@b>\n";
        assert_eq!(hgrc_findings(cloned.as_bytes()), Vec::<String>::new());
        assert_eq!(
            hgrc_findings(
                b"[paths]\ndefault = x\n[hooks]\npre-identify = touch /tmp/x\npre-log = y\n"
            ),
            ["[hooks]"]
        );
        assert_eq!(
            hgrc_findings(b"[extensions]\nnotes = docs/notes.txt\n%include ../docs/more.rc\n[ui]\nssh = sh x\n"),
            ["[extensions]", "%include", "ui.ssh"]
        );
        assert_eq!(hgrc_findings(b"default = x\n"), ["line 1: not a setting"]);
    }

    /// Where a repository lies, and which of its files count.
    #[test]
    fn a_shipped_repository_s_commands_are_found() {
        let fs = "[core]\n\tfsmonitor = x\n";
        let hook = "#!/bin/sh\ntouch /tmp/x\n";
        // A clone's repository, with git's sample hooks, counts for nothing.
        assert!(found(
            &[
                ("p-1/.git/config", CLONED),
                ("p-1/.git/hooks/pre-commit.sample", hook),
                ("p-1/.git/HEAD", "ref: refs/heads/main\n"),
                ("p-1/.git/refs/heads/config", "0123\n"),
                ("p-1/.hg/hgrc", "[paths]\ndefault = x\n"),
                ("p-1/src/config", fs),
                ("p-1/hooks/post-index-change", hook),
            ],
            &[]
        )
        .is_empty());
        // (members, links, findings)
        type Case<'a> = (
            &'a [(&'a str, &'a str)],
            &'a [(&'a str, &'a str)],
            &'a [&'a str],
        );
        let cases: [Case; 10] = [
            (&[("p-1/.git/config", fs)], &[], &["p-1/.git/config: core.fsmonitor"]),
            (&[("p-1/.GIT/Config", fs)], &[], &["p-1/.GIT/Config: core.fsmonitor"]),
            (
                &[("p-1/vendor/sub/.git/config", fs)],
                &[],
                &["p-1/vendor/sub/.git/config: core.fsmonitor"],
            ),
            (
                &[("p-1/.git/modules/sub/config", fs)],
                &[],
                &["p-1/.git/modules/sub/config: core.fsmonitor"],
            ),
            (
                &[("p-1/.git/hooks/post-index-change", hook)],
                &[],
                &["p-1/.git/hooks/post-index-change: a hook"],
            ),
            (
                &[("p-1/.git/commondir", "../docs/common\n")],
                &[],
                &["p-1/.git/commondir: commondir (git reads the settings of the folder it names)"],
            ),
            // A `.git` file naming a repository in the tests, and a link.
            (
                &[
                    ("p-1/.git", "gitdir: tests/data/repo\n"),
                    ("p-1/tests/data/repo/config", fs),
                    ("p-1/tests/data/repo/hooks/post-checkout", hook),
                    ("p-1/tests/data/other/config", fs),
                ],
                &[],
                &[
                    "p-1/tests/data/repo/config: core.fsmonitor",
                    "p-1/tests/data/repo/hooks/post-checkout: a hook",
                ],
            ),
            (
                &[("p-1/.git", "gitdir: ..\\p-1\\docs\\repo"), ("p-1/docs/repo/config", fs)],
                &[],
                &["p-1/docs/repo/config: core.fsmonitor"],
            ),
            (
                &[("p-1/tests/repo/config", fs)],
                &[("p-1/.git", "p-1/tests/repo")],
                &["p-1/tests/repo/config: core.fsmonitor"],
            ),
            (
                &[("p-1/.hg/hgrc", "[hooks]\npre-id = x\n"), ("p-1/.hg/sharedpath", "/x")],
                &[],
                &[
                    "p-1/.hg/hgrc: [hooks]",
                    "p-1/.hg/sharedpath: sharedpath (Mercurial reads the settings of the repository it names)",
                ],
            ),
        ];
        for (members, links, want) in cases {
            assert_eq!(found(members, links), want, "{members:?} {links:?}");
        }
        // A submodule's `.git` file naming its parent's folder, which the
        // package does not hold, and one outside the package: nothing.
        assert!(found(
            &[
                ("p-1/suite/.git", "gitdir: ../.git/modules/suite\n"),
                ("p-1/x/.git", "gitdir: /home/u/repo/.git\n"),
                ("p-1/y/.git", "gitdir: C:\\repo\\.git\n"),
            ],
            &[]
        )
        .is_empty());
        // Settings too long to read count.
        let long = format!("[core]\n{}", "\tbare = false\n".repeat(2000));
        assert_eq!(
            found(&[("p-1/.git/config", &long)], &[]),
            ["p-1/.git/config: settings longer than 16 KiB, not read"]
        );
    }
}
