//! Folders of packages: which paths under a folder are scanned, as what, and
//! which are not and why.
//!
//! A registry mirror or a CI cache nests its archives (`packages/ab/cd/…`,
//! `pkg/-/pkg-1.0.0.tgz`), so the whole tree is searched. This module must
//! never follow a symbolic link, never read more of a file than the first
//! 8 KB that say whether a file not named as an archive is one (the readers
//! do the rest, under their limits), and never pass over an entry in silence:
//! everything it does not scan is listed in [`Collection::skipped`] with the
//! reason. An entry that may hold a package it did not read (a link, a
//! folder it could not read or did not search, a device) is
//! [`SkipKind::Unread`], which the caller must turn into a blocked report:
//! a gate that exits 0 over a folder whose packages it never opened fails
//! open.

use std::path::{Path, PathBuf};

use super::archive::{package_format, unreadable_package_format, ArchiveFormat};

/// How many levels of folders under the scanned one are searched.
pub const MAX_DEPTH: usize = 16;

/// Files whose presence at a folder's top makes it one unpacked package.
const MANIFESTS: [&str; 5] = [
    "setup.py",
    "setup.cfg",
    "pyproject.toml",
    "package.json",
    "PKG-INFO",
];

/// The packages found under a folder, in path order, and what was not scanned.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Collection {
    /// Archives (by name) and unpacked package folders.
    pub packages: Vec<PathBuf>,
    pub skipped: Vec<Skipped>,
}

/// An entry of a folder that is not scanned.
#[derive(Debug, PartialEq, Eq)]
pub struct Skipped {
    pub path: PathBuf,
    pub why: String,
    pub kind: SkipKind,
}

/// Why an entry was not scanned, as it bears on the decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipKind {
    /// A regular file whose name is not a package archive's (an index page,
    /// a checksum list): by its name not a package, so a warning suffices.
    NotAPackage,
    /// An entry that may be or hold a package and was not read (a symbolic
    /// link, an unreadable or too-deep folder, a device or pipe): it must
    /// block, since what it holds was never judged.
    Unread,
}

/// Whether `dir` is one unpacked package: a package manifest, or a wheel's
/// `*.dist-info` / an sdist's `*.egg-info` folder, at its top.
pub fn is_package_dir(dir: &Path) -> bool {
    if MANIFESTS.iter().any(|m| dir.join(m).exists()) {
        return true;
    }
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten().any(|e| {
                let name = e.file_name().to_string_lossy().to_ascii_lowercase();
                (name.ends_with(".dist-info") || name.ends_with(".egg-info"))
                    && e.file_type().is_ok_and(|t| t.is_dir())
            })
        })
        .unwrap_or(false)
}

/// The packages in `dir`'s tree when `dir` is a folder of packages: `None`
/// when it is itself an unpacked package, or holds none (then it is read as
/// one unpacked package, which is what it most likely is).
pub fn collect(dir: &Path) -> Option<Collection> {
    if is_package_dir(dir) {
        return None;
    }
    let mut c = Collection::default();
    walk(dir, 0, &mut c);
    (!c.packages.is_empty()).then_some(c)
}

/// `depth`: how many levels `dir` is below the scanned folder.
fn walk(dir: &Path, depth: usize, c: &mut Collection) {
    let mut entries = match std::fs::read_dir(dir) {
        Ok(rd) => rd.collect::<Vec<_>>(),
        Err(e) => {
            c.skipped.push(Skipped {
                path: dir.to_path_buf(),
                why: format!("folder cannot be read: {e}"),
                kind: SkipKind::Unread,
            });
            return;
        }
    };
    entries.sort_by_cached_key(|e| e.as_ref().ok().map(|e| e.path()));
    for entry in entries {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                c.skipped.push(Skipped {
                    path: dir.to_path_buf(),
                    why: format!("an entry of this folder cannot be read: {e}"),
                    kind: SkipKind::Unread,
                });
                continue;
            }
        };
        let path = entry.path();
        let unread = |why: &str| Skipped {
            path: path.clone(),
            why: why.to_string(),
            kind: SkipKind::Unread,
        };
        // DirEntry::file_type does not follow links.
        match entry.file_type() {
            Err(e) => c.skipped.push(unread(&format!("cannot be read: {e}"))),
            Ok(t) if t.is_symlink() => c.skipped.push(unread(
                "symbolic link, not followed (scan its target by its own path)",
            )),
            Ok(t) if t.is_dir() => {
                if is_package_dir(&path) {
                    c.packages.push(path);
                } else if depth < MAX_DEPTH {
                    walk(&path, depth + 1, c);
                } else {
                    c.skipped.push(unread(&format!(
                        "folder more than {MAX_DEPTH} levels deep, not searched (scan it by its own path)"
                    )));
                }
            }
            Ok(t) if t.is_file() => {
                if ArchiveFormat::from_path(&path).is_some() {
                    c.packages.push(path);
                } else if let Some(what) = unreadable_package_format(&path) {
                    // A package all the same: passing it over as "not a
                    // package" would let a mirror's .tar.xz through unread.
                    c.skipped.push(unread(&super::unreadable_archive(what)));
                } else if !is_known_text(&path) && package_format(&path).is_some() {
                    // An archive under a name that does not say so (a
                    // content-addressed cache): judged by its content.
                    c.packages.push(path);
                } else {
                    c.skipped.push(Skipped {
                        path: path.clone(),
                        why: "not a package archive by name (.tgz, .tar.gz, .tar.bz2, .tar, .zip, .whl or .egg) or by content".into(),
                        kind: SkipKind::NotAPackage,
                    });
                }
            }
            Ok(_) => c.skipped.push(unread("not a regular file, folder or link")),
        }
    }
}

/// Names a mirror holds by the hundred thousand that are never packages
/// (index pages, metadata, signatures, checksums): not opened to look for
/// an archive inside, which an installer would not look for either. A file
/// with any other name, or none (a content-addressed cache's), is.
fn is_known_text(path: &Path) -> bool {
    const TEXT: &[&str] = &[
        "html", "htm", "json", "txt", "md", "rst", "xml", "css", "asc", "sig", "sha256", "sha512",
        "md5", "metadata", "yml", "yaml", "toml", "cfg", "ini", "log", "lock",
    ];
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .is_some_and(|e| TEXT.contains(&e.as_str()))
}

impl Collection {
    /// The entries that must each block: what they hold was never read.
    pub fn unread(&self) -> impl Iterator<Item = &Skipped> {
        self.skipped.iter().filter(|s| s.kind == SkipKind::Unread)
    }

    /// One line naming the files passed over as not packages (the first few,
    /// then a count), or `None` when there were none. Unread entries are not
    /// in it: each gets a blocked report of its own.
    pub fn skipped_line(&self, dir: &Path) -> Option<String> {
        const SHOWN: usize = 5;
        let skipped: Vec<&Skipped> = self
            .skipped
            .iter()
            .filter(|s| s.kind == SkipKind::NotAPackage)
            .collect();
        if skipped.is_empty() {
            return None;
        }
        let names: Vec<String> = skipped
            .iter()
            .take(SHOWN)
            .map(|s| {
                let rel = s.path.strip_prefix(dir).unwrap_or(&s.path);
                format!("{} ({})", rel.display(), s.why)
            })
            .collect();
        let more = skipped.len().saturating_sub(SHOWN);
        Some(format!(
            "{}: {} file{} not scanned: {}{}",
            dir.display(),
            skipped.len(),
            if skipped.len() == 1 { "" } else { "s" },
            names.join("; "),
            if more > 0 {
                format!("; and {more} more")
            } else {
                String::new()
            }
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(p: &Path) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, b"x").unwrap();
    }

    #[test]
    fn a_mirror_tree_is_searched_and_every_other_entry_named() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        touch(&d.join("top-1.0.tgz"));
        touch(&d.join("packages/ab/cd/deep-2.0.tar.gz"));
        touch(&d.join("packages/ab/wheel-1.0-py3-none-any.whl"));
        touch(&d.join("README.txt"));
        touch(&d.join("unpacked-1.0/setup.py"));
        // An unpacked package's own archives are its members, not packages.
        touch(&d.join("unpacked-1.0/tests/data/fixture.tar.gz"));
        touch(&d.join("wheelish/pkg-1.0.dist-info/METADATA"));
        // A content-addressed cache names archives by hash: found by their
        // bytes. A gzip stream that holds no tar is not a package.
        let gz = |data: &[u8]| {
            use std::io::Write;
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        };
        let mut tar = tar::Builder::new(Vec::new());
        let mut h = tar::Header::new_gnu();
        h.set_size(1);
        h.set_path("package/index.js").unwrap();
        h.set_cksum();
        tar.append(&h, &b"x"[..]).unwrap();
        let cache = d.join("cache/sha512/ab");
        std::fs::create_dir_all(&cache).unwrap();
        let tgz = gz(&tar.into_inner().unwrap());
        std::fs::write(cache.join("cd01"), &tgz).unwrap();
        // Under a name that is never a package's, it is not opened.
        std::fs::write(cache.join("page.html"), &tgz).unwrap();
        std::fs::write(cache.join("cd02"), b"PK\x03\x04 a zip by its bytes").unwrap();
        std::fs::write(cache.join("index.json.gz"), gz(b"{\"a\": 1}")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("/etc", d.join("etc-link")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(d.join("top-1.0.tgz"), d.join("alias.tgz")).unwrap();
        let c = collect(d).unwrap();
        let rel: Vec<_> = c
            .packages
            .iter()
            .map(|p| p.strip_prefix(d).unwrap().to_string_lossy().to_string())
            .collect();
        assert_eq!(
            rel,
            [
                "cache/sha512/ab/cd01",
                "cache/sha512/ab/cd02",
                "packages/ab/cd/deep-2.0.tar.gz",
                "packages/ab/wheel-1.0-py3-none-any.whl",
                "top-1.0.tgz",
                "unpacked-1.0",
                "wheelish",
            ]
        );
        let skipped: Vec<_> = c
            .skipped
            .iter()
            .map(|s| {
                (
                    s.path
                        .strip_prefix(d)
                        .unwrap()
                        .to_string_lossy()
                        .to_string(),
                    s.why.split([' ', ',']).next().unwrap().to_string(),
                    s.kind,
                )
            })
            .collect();
        // Byte order of paths: upper case first.
        let mut want = vec![
            (
                "README.txt".to_string(),
                "not".to_string(),
                SkipKind::NotAPackage,
            ),
            (
                "cache/sha512/ab/index.json.gz".to_string(),
                "not".to_string(),
                SkipKind::NotAPackage,
            ),
            (
                "cache/sha512/ab/page.html".to_string(),
                "not".to_string(),
                SkipKind::NotAPackage,
            ),
        ];
        if cfg!(unix) {
            // A link may lead to a package outside the tree: never judged,
            // so it must block, not merely be mentioned.
            want.push(("alias.tgz".into(), "symbolic".into(), SkipKind::Unread));
            want.push(("etc-link".into(), "symbolic".into(), SkipKind::Unread));
        }
        want.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(skipped, want);
        assert_eq!(c.unread().count(), want.len() - 3);
        let line = c.skipped_line(d).unwrap();
        assert!(
            line.contains("3 files not scanned: README.txt (not a package archive by name"),
            "{line}"
        );
        assert!(!line.contains("link"), "unread entries get reports: {line}");
    }

    #[test]
    fn a_package_or_a_folder_without_archives_is_not_a_collection() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        touch(&d.join("pkg/__init__.py"));
        assert_eq!(collect(d), None, "no archive: one unpacked package");
        touch(&d.join("vendor/dep-1.0.tgz"));
        assert!(collect(d).is_some());
        touch(&d.join("PKG-INFO"));
        assert_eq!(collect(d), None, "a manifest at the top: one package");
    }

    #[test]
    fn the_search_stops_at_its_depth_and_says_so() {
        let t = tempfile::tempdir().unwrap();
        let mut edge = t.path().to_path_buf();
        for i in 0..MAX_DEPTH {
            edge.push(format!("e{i}"));
        }
        touch(&edge.join("edge-1.0.tgz"));
        let mut deep = t.path().to_path_buf();
        for i in 0..=MAX_DEPTH {
            deep.push(format!("d{i}"));
        }
        touch(&deep.join("lost-1.0.tgz"));
        touch(&t.path().join("found-1.0.tgz"));
        let c = collect(t.path()).unwrap();
        assert_eq!(
            c.packages,
            [edge.join("edge-1.0.tgz"), t.path().join("found-1.0.tgz")]
        );
        assert_eq!(c.skipped.len(), 1);
        assert!(c.skipped[0].why.contains("levels deep"), "{:?}", c.skipped);
        // What lies deeper may be a package: it blocks, and is not a mere
        // warning line.
        assert_eq!(c.skipped[0].kind, SkipKind::Unread);
        assert_eq!(c.skipped_line(t.path()), None);
    }
}
