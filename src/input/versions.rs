//! Releases named by their file names, so that a package can be judged as
//! the change from an earlier release the user already accepted
//! (`canary scan --accepted DIR`, a registry mirror's case).
//!
//! Only names are read here, never contents. A name that does not parse
//! pairs with nothing, and its package is then judged whole. This module
//! must never pick a base that is not strictly older, not a final release,
//! or of another project or distribution kind (a Linux wheel against a
//! Windows one, a wheel against an sdist): a wrong base makes a large
//! change look small, or a small one large.

use std::path::{Path, PathBuf};

/// One release file: its project, version and kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// Normalised as PyPI does (PEP 503): lowercase, runs of `-`, `_` and
    /// `.` as one `-`.
    pub project: String,
    /// The version's leading numbers (`2.31.0` → `[2, 31]`; trailing zeros
    /// are dropped so that `1.0` and `1.0.0` are the same release).
    pub release: Vec<u64>,
    /// Nothing follows the numbers (no `rc1`, `.post1`, `-beta`, `+local`).
    pub is_final: bool,
    /// `sdist` (`.tar.gz`, `.tar.bz2`, `.zip`, `.tar`), `npm` (`.tgz`), or
    /// `wheel:PY-ABI-PLATFORM`.
    pub kind: String,
    pub path: PathBuf,
}

const SDIST: &[&str] = &[".tar.gz", ".tar.bz2", ".zip", ".tar"];

/// The release a file name says it is, if it says.
pub fn parse(path: &Path) -> Option<Release> {
    let name = path.file_name()?.to_str()?;
    let lower = name.to_ascii_lowercase();
    let (project, version, kind) = if let Some(stem) = lower.strip_suffix(".whl") {
        let parts = wheel_fields(stem)?;
        let n = parts.len();
        let tags = format!("wheel:{}-{}-{}", parts[n - 3], parts[n - 2], parts[n - 1]);
        (parts[0], parts[1], tags)
    } else {
        let (stem, kind) = if let Some(stem) = lower.strip_suffix(".tgz") {
            (stem, "npm")
        } else {
            let ext = SDIST.iter().find(|e| lower.ends_with(*e))?;
            (&lower[..lower.len() - ext.len()], "sdist")
        };
        // The version starts after the last `-` that a digit follows:
        // `python-dateutil-2.8.2`, `foo-1.0-beta`.
        let cut = stem
            .match_indices('-')
            .map(|(i, _)| i)
            .rev()
            .find(|&i| stem[i + 1..].starts_with(|c: char| c.is_ascii_digit()))?;
        (&stem[..cut], &stem[cut + 1..], kind.to_string())
    };
    let (release, is_final) = parse_version(version)?;
    let project = normalise(project);
    if project.is_empty() {
        return None;
    }
    Some(Release {
        project,
        release,
        is_final,
        kind,
        path: path.to_path_buf(),
    })
}

/// The fields of a wheel's file name without `.whl`,
/// `name-version(-build)?-py-abi-platform`: five or six, or `None`.
fn wheel_fields(stem: &str) -> Option<Vec<&str>> {
    let parts: Vec<&str> = stem.split('-').collect();
    matches!(parts.len(), 5 | 6).then_some(parts)
}

fn normalise(project: &str) -> String {
    let mut out = String::with_capacity(project.len());
    for c in project.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out.trim_matches('-').to_string()
}

/// The leading `N(.N)*` of a version, without trailing zeros, and whether
/// nothing follows it.
fn parse_version(v: &str) -> Option<(Vec<u64>, bool)> {
    let digits_end = v
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(v.len());
    let head = v[..digits_end].trim_end_matches('.');
    let dotted_end = head.len();
    if head.is_empty() || head.split('.').any(str::is_empty) {
        return None;
    }
    let mut release: Vec<u64> = head
        .split('.')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    while release.last() == Some(&0) && release.len() > 1 {
        release.pop();
    }
    Some((release, dotted_end == v.len()))
}

/// The newest final release in `accepted` of the same project and kind as
/// `new` whose version is strictly lower. Among equals (`x-1.0.tar.gz` and
/// `x-1.0.zip`), the first by path, so that runs agree.
pub fn base_for<'a>(new: &Release, accepted: &'a [Release]) -> Option<&'a Release> {
    accepted
        .iter()
        .filter(|a| {
            a.project == new.project
                && a.kind == new.kind
                && a.is_final
                && a.release < new.release
                && a.path != new.path
        })
        .max_by(|a, b| a.release.cmp(&b.release).then(b.path.cmp(&a.path)))
}

/// The folders a wheel names after its own release (`NAME-VERSION.dist-info`
/// and `NAME-VERSION.data`), paired across two releases of one project, so
/// that a version diff shows `METADATA` or a script under `.data/scripts`
/// as changed, not as one file deleted and another added: unchanged
/// licences then render nothing, and the change is the lines that changed.
///
/// Pairing renames nothing: [`key`](Self::key) gives the path a base
/// member would have in the new release, to look it up by, and the member
/// keeps its own path for the diff's `--- a/` line. It pairs only when both
/// files are named as wheels of one project, the base holds exactly one
/// `.dist-info` folder of that project, and no base path already lies
/// under a folder of the new release (else two base members would share a
/// key, and one would be lost). When the new wheel's folders are not named
/// as its file is, nothing pairs, and the folders render deleted and added
/// as before.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WheelFolders {
    /// (the base's folder, the new release's), each with its trailing `/`.
    pairs: Vec<(String, String)>,
}

impl WheelFolders {
    /// The pairing between a base wheel at `base` holding `base_paths`
    /// (root-stripped, as rendered) and a new wheel at `new`; empty when
    /// either is not a wheel of the same project.
    pub fn between<'a>(
        base: &Path,
        new: &Path,
        base_paths: impl Iterator<Item = &'a str> + Clone,
    ) -> Self {
        let (Some((old_name, _)), Some((new_name, new_version))) =
            (wheel_name_version(base), wheel_name_version(new))
        else {
            return Self::default();
        };
        if normalise(old_name) != normalise(new_name) {
            return Self::default();
        }
        let mut info: Vec<&str> = base_paths
            .clone()
            .filter_map(|p| p.split_once('/').map(|(top, _)| top))
            .filter(|top| {
                top.strip_suffix(".dist-info")
                    .and_then(|stem| stem.split_once('-'))
                    .is_some_and(|(name, _)| normalise(name) == normalise(new_name))
            })
            .collect();
        info.sort_unstable();
        info.dedup();
        let [old_info] = info[..] else {
            return Self::default();
        };
        let old_stem = &old_info[..old_info.len() - ".dist-info".len()];
        let new_stem = format!("{new_name}-{new_version}");
        if old_stem == new_stem {
            return Self::default();
        }
        let pairs: Vec<(String, String)> = [".dist-info/", ".data/"]
            .iter()
            .map(|suffix| (format!("{old_stem}{suffix}"), format!("{new_stem}{suffix}")))
            .collect();
        if base_paths
            .into_iter()
            .any(|p| pairs.iter().any(|(_, to)| p.starts_with(to.as_str())))
        {
            return Self::default();
        }
        Self { pairs }
    }

    /// The path a base member is looked up by among the new release's.
    pub fn key<'a>(&self, base_path: &'a str) -> std::borrow::Cow<'a, str> {
        for (from, to) in &self.pairs {
            if let Some(rest) = base_path.strip_prefix(from.as_str()) {
                return format!("{to}{rest}").into();
            }
        }
        base_path.into()
    }
}

/// A wheel file's name and version as its name writes them (`Foo_Bar`,
/// `1.2.0`), which is how the wheel's own folders are named.
fn wheel_name_version(path: &Path) -> Option<(&str, &str)> {
    let stem = path.file_name()?.to_str()?.strip_suffix(".whl")?;
    let parts = wheel_fields(stem)?;
    Some((parts[0], parts[1])).filter(|(n, v)| !n.is_empty() && !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folders(base: &str, new: &str, paths: &[&str]) -> WheelFolders {
        WheelFolders::between(Path::new(base), Path::new(new), paths.iter().copied())
    }

    #[test]
    fn a_wheel_s_own_folders_pair_across_releases() {
        let base = [
            "foo/__init__.py",
            "foo-1.0.dist-info/METADATA",
            "foo-1.0.data/scripts/foo",
        ];
        let f = folders(
            "d/foo-1.0-py3-none-any.whl",
            "foo-1.1-py3-none-any.whl",
            &base,
        );
        assert_eq!(
            f.key("foo-1.0.dist-info/METADATA"),
            "foo-1.1.dist-info/METADATA"
        );
        assert_eq!(
            f.key("foo-1.0.data/scripts/foo"),
            "foo-1.1.data/scripts/foo"
        );
        assert_eq!(f.key("foo/__init__.py"), "foo/__init__.py");
        // Only a folder at the top: the same name deeper is the package's.
        assert_eq!(
            f.key("foo/foo-1.0.dist-info/METADATA"),
            "foo/foo-1.0.dist-info/METADATA"
        );
    }

    #[test]
    fn wheel_folders_pair_nothing_when_in_doubt() {
        let base: &[&str] = &["foo/__init__.py", "foo-1.0.dist-info/METADATA"];
        let (old, new) = ("foo-1.0-py3-none-any.whl", "foo-1.1-py3-none-any.whl");
        for (old, new, paths) in [
            // Another project, or not two wheels.
            (old, "bar-1.1-py3-none-any.whl", base),
            ("foo-1.0.tar.gz", new, base),
            (old, "foo-1.1", base),
            // Two .dist-info folders of the project: which one pip reads
            // is not this module's to guess.
            (
                old,
                new,
                &["foo-1.0.dist-info/METADATA", "foo-0.9.dist-info/METADATA"],
            ),
            // The base already holds the new release's folder: pairing
            // would give two of its members one key.
            (
                old,
                new,
                &["foo-1.0.dist-info/METADATA", "foo-1.1.dist-info/METADATA"],
            ),
            (old, new, &["foo-1.0.dist-info/METADATA", "foo-1.1.data/x"]),
            // The same release: nothing to pair.
            (old, "x/foo-1.0-py3-none-any.whl", base),
        ] {
            assert_eq!(
                folders(old, new, paths),
                WheelFolders::default(),
                "{old} -> {new} over {paths:?}"
            );
        }
    }

    #[test]
    fn wheel_folders_match_projects_as_pypi_does() {
        let base = ["Foo_Bar-1.0.dist-info/RECORD"];
        let f = folders(
            "foo.bar-1.0-py3-none-any.whl",
            "Foo_Bar-2.0-py3-none-any.whl",
            &base,
        );
        assert_eq!(
            f.key("Foo_Bar-1.0.dist-info/RECORD"),
            "Foo_Bar-2.0.dist-info/RECORD"
        );
    }

    fn rel(name: &str) -> Release {
        parse(Path::new(name)).unwrap_or_else(|| panic!("{name} should parse"))
    }

    #[test]
    fn names_give_project_version_and_kind() {
        let r = rel("python_dateutil-2.8.2.tar.gz");
        assert_eq!(
            (
                r.project.as_str(),
                r.release.as_slice(),
                r.is_final,
                r.kind.as_str()
            ),
            ("python-dateutil", &[2, 8, 2][..], true, "sdist")
        );
        assert_eq!(rel("Python-DateUtil-2.8.2.zip").project, "python-dateutil");
        assert_eq!(
            rel("six-1.16.0-py2.py3-none-any.whl").kind,
            "wheel:py2.py3-none-any"
        );
        assert_eq!(
            rel("numpy-2.0.0-1-cp312-cp312-manylinux_x86_64.whl").release,
            [2]
        );
        assert_eq!(rel("left-pad-1.3.0.tgz").kind, "npm");
        assert_eq!(rel("left-pad-1.3.0.tgz").project, "left-pad");
        let pre = rel("foo-2.0rc1.tar.gz");
        assert_eq!((pre.release.as_slice(), pre.is_final), (&[2][..], false));
        assert!(!rel("foo-1.0-beta.tgz").is_final);
        assert!(!rel("foo-1.0.post1.tar.gz").is_final);
        for bad in [
            "README.md",
            "foo.tar.gz",
            "foo-bar.tar.gz",
            "foo-.1.tar.gz",
            "x-1.whl",
            "-1.0.tar.gz",
        ] {
            assert!(parse(Path::new(bad)).is_none(), "{bad}");
        }
    }

    #[test]
    fn the_base_is_the_newest_strictly_older_final_release_of_the_same_kind() {
        let accepted: Vec<Release> = [
            "six-1.14.0.tar.gz",
            "six-1.15.0.tar.gz",
            "six-1.16.0.tar.gz",
            "six-1.17.0rc1.tar.gz",
            "six-1.17.0.zip",
            "six-1.15.0-py2.py3-none-any.whl",
            "sixer-1.16.0.tar.gz",
        ]
        .iter()
        .map(|n| rel(n))
        .collect();
        let base = |n: &str| base_for(&rel(n), &accepted).map(|r| r.path.display().to_string());
        assert_eq!(
            base("six-1.16.1.tar.gz").as_deref(),
            Some("six-1.16.0.tar.gz")
        );
        // Equal is not older; a pre-release is never a base; the kinds of
        // sdist archive pair with each other.
        assert_eq!(
            base("six-1.16.0.tar.gz").as_deref(),
            Some("six-1.15.0.tar.gz")
        );
        assert_eq!(base("six-1.18.0.tar.gz").as_deref(), Some("six-1.17.0.zip"));
        assert_eq!(
            base("six-1.17.0.tar.gz").as_deref(),
            Some("six-1.16.0.tar.gz")
        );
        assert_eq!(base("six-1.14.0.tar.gz"), None);
        // A wheel pairs with a wheel of the same tags only.
        assert_eq!(
            base("six-1.16.0-py2.py3-none-any.whl").as_deref(),
            Some("six-1.15.0-py2.py3-none-any.whl")
        );
        assert_eq!(base("six-1.16.0-py3-none-any.whl"), None);
        assert_eq!(base("six_compat-2.0.tar.gz"), None);
        // 1.16 and 1.16.0 are one release.
        assert_eq!(
            base("six-1.16.tar.gz").as_deref(),
            Some("six-1.15.0.tar.gz")
        );
    }
}
