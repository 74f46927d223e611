//! Package archive readers: npm `.tgz`, PyPI sdists (`.tar.gz`, `.zip`,
//! `.tar.bz2`), wheels (`.whl`), plain `.tar`, and unpacked directories.
//!
//! Archives are read in memory, streaming through the decompressor, and never
//! extracted to disk. Only regular files are collected; links and devices are
//! noted, never followed. A member that escapes the root (`..`, an absolute
//! path, a NUL byte) or is written through a link is an attack on whoever
//! unpacks the archive, and the whole archive is refused naming that member.
//! Every size cap (input, member, total, member count, compression ratio) is
//! enforced while reading, so memory stays bounded on a decompression bomb.

use std::collections::BTreeSet;
use std::io::{Cursor, Read};
use std::path::Path;

use crate::config::Limits;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveFormat {
    TarGz,
    TarBz2,
    Tar,
    Zip,
}

impl ArchiveFormat {
    pub fn from_path(path: &Path) -> Option<ArchiveFormat> {
        let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
        if name.ends_with(".tgz") || name.ends_with(".tar.gz") {
            Some(ArchiveFormat::TarGz)
        } else if name.ends_with(".tar.bz2") || name.ends_with(".tbz2") || name.ends_with(".tbz") {
            Some(ArchiveFormat::TarBz2)
        } else if name.ends_with(".tar") {
            Some(ArchiveFormat::Tar)
        } else if name.ends_with(".zip") || name.ends_with(".whl") {
            Some(ArchiveFormat::Zip)
        } else {
            None
        }
    }

    /// The format in words, for reports.
    pub fn describe(self) -> &'static str {
        match self {
            ArchiveFormat::TarGz => "gzip-compressed tar",
            ArchiveFormat::TarBz2 => "bzip2-compressed tar",
            ArchiveFormat::Tar => "tar",
            ArchiveFormat::Zip => "zip (or wheel)",
        }
    }

    /// The format the bytes say they are, when the name and content disagree.
    pub fn sniff(bytes: &[u8]) -> Option<ArchiveFormat> {
        if bytes.starts_with(&[0x1f, 0x8b]) {
            Some(ArchiveFormat::TarGz)
        } else if bytes.starts_with(b"BZh") {
            Some(ArchiveFormat::TarBz2)
        } else if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
            Some(ArchiveFormat::Zip)
        } else if bytes.len() > 262 && &bytes[257..262] == b"ustar" {
            Some(ArchiveFormat::Tar)
        } else {
            None
        }
    }
}

/// One regular file of a package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Path relative to the archive root, `/`-separated.
    pub path: String,
    pub data: Vec<u8>,
}

/// The regular files of a package, with what was seen but not read.
#[derive(Debug, Clone, Default)]
pub struct Package {
    pub members: Vec<Member>,
    pub notes: Vec<String>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ArchiveError {
    #[error("archive member {member:?} escapes the archive root ({why}); an archive that writes outside its folder is an attack on whoever unpacks it")]
    Escape { member: String, why: String },
    #[error("archive member {member:?} is written through the link {link:?}; an archive that writes through a link is an attack on whoever unpacks it")]
    ThroughLink { member: String, link: String },
    #[error(
        "archive member {member:?} appears twice; a later copy could overwrite what a reviewer saw"
    )]
    Duplicate { member: String },
    #[error("limit hit: {what} (limits.{key} = {limit}); the package was not fully read")]
    Limit {
        what: String,
        key: &'static str,
        limit: u64,
    },
    #[error("corrupt or truncated archive: {0}")]
    Corrupt(String),
    #[error("cannot read {0}")]
    Io(String),
}

/// Counts the decompressed bytes of the whole archive and stops at the total
/// and ratio caps, whichever comes first.
struct Budget {
    limits: Limits,
    compressed: u64,
    total: u64,
    members: u64,
}

impl Budget {
    fn new(limits: &Limits, compressed: u64) -> Budget {
        Budget {
            limits: *limits,
            compressed: compressed.max(1),
            total: 0,
            members: 0,
        }
    }

    fn total_cap(&self) -> u64 {
        // Small archives get the ratio computed on at least 64 KiB so that a
        // tiny but legitimate archive with text is not called a bomb.
        let ratio_cap = self
            .compressed
            .max(64 * 1024)
            .saturating_mul(self.limits.max_ratio);
        self.limits.max_total_bytes.min(ratio_cap)
    }

    fn add_member(&mut self, name: &str) -> Result<(), ArchiveError> {
        self.members += 1;
        if self.members > self.limits.max_members {
            return Err(ArchiveError::Limit {
                what: format!(
                    "more than {} members (at {name:?})",
                    self.limits.max_members
                ),
                key: "max-members",
                limit: self.limits.max_members,
            });
        }
        Ok(())
    }

    /// Reads one member fully, enforcing the member and total caps as it goes.
    /// `declared` is the size the archive claims for it: a capacity hint only.
    fn read_member(
        &mut self,
        name: &str,
        reader: &mut dyn Read,
        declared: u64,
    ) -> Result<Vec<u8>, ArchiveError> {
        self.read_member_capped(name, reader, None, declared)
    }

    /// As [`Budget::read_member`], and also stops a member whose own
    /// compressed size is known (zip) once it inflates past the ratio cap, so
    /// a bomb is caught after a few MB instead of at the whole-archive cap.
    fn read_member_capped(
        &mut self,
        name: &str,
        reader: &mut dyn Read,
        member_compressed: Option<u64>,
        declared: u64,
    ) -> Result<Vec<u8>, ArchiveError> {
        let member_cap = member_compressed
            .map(|c| c.max(64 * 1024).saturating_mul(self.limits.max_ratio))
            .unwrap_or(u64::MAX);
        // Read at most one byte past the tightest cap: that byte proves the
        // cap is exceeded, and memory never holds more than the cap.
        let room = self.total_cap().saturating_sub(self.total);
        let limit = member_cap.min(self.limits.max_member_bytes).min(room);
        // The declared size saves regrowing (and copying) the buffer. It is
        // the archive's claim, so it is capped, and a buffer it oversized is
        // given back below.
        let hint = declared.min(limit).min(MAX_SIZE_HINT) as usize;
        let mut data = Vec::with_capacity(hint);
        reader
            .take(limit.saturating_add(1))
            .read_to_end(&mut data)
            .map_err(|e| ArchiveError::Corrupt(format!("reading member {name:?}: {e}")))?;
        if data.capacity() - data.len() > 64 * 1024 {
            data.shrink_to_fit();
        }
        let n = data.len() as u64;
        self.total += n;
        if n > member_cap {
            return Err(ArchiveError::Limit {
                what: format!(
                    "compression ratio above {} in member {name:?} ({} compressed bytes inflate past {member_cap}): a decompression bomb",
                    self.limits.max_ratio,
                    member_compressed.unwrap_or(0)
                ),
                key: "max-ratio",
                limit: self.limits.max_ratio,
            });
        }
        if n > self.limits.max_member_bytes {
            return Err(ArchiveError::Limit {
                what: format!(
                    "member {name:?} is larger than {} bytes",
                    self.limits.max_member_bytes
                ),
                key: "max-member-bytes",
                limit: self.limits.max_member_bytes,
            });
        }
        if self.total > self.total_cap() {
            let ratio = self.total / self.compressed;
            return Err(if self.total > self.limits.max_total_bytes {
                ArchiveError::Limit {
                    what: format!(
                        "more than {} uncompressed bytes (at {name:?})",
                        self.limits.max_total_bytes
                    ),
                    key: "max-total-bytes",
                    limit: self.limits.max_total_bytes,
                }
            } else {
                ArchiveError::Limit {
                    what: format!("compression ratio above {} (at least {ratio}:1 at {name:?}): a decompression bomb", self.limits.max_ratio),
                    key: "max-ratio",
                    limit: self.limits.max_ratio,
                }
            });
        }
        Ok(data)
    }
}

/// Largest buffer reserved on an archive's word before any byte is read.
const MAX_SIZE_HINT: u64 = 16 << 20;

/// Checks a member path and returns it normalised (no `./`, `/`-separated).
pub fn check_member_path(raw: &[u8]) -> Result<String, ArchiveError> {
    let shown = String::from_utf8_lossy(raw).into_owned();
    let escape = |why: &str| ArchiveError::Escape {
        member: shown.clone(),
        why: why.to_string(),
    };
    if raw.contains(&0) {
        return Err(escape("NUL byte in the path"));
    }
    let text = shown.replace('\\', "/");
    if text.starts_with('/') || (text.len() > 1 && text.as_bytes()[1] == b':') {
        return Err(escape("absolute path"));
    }
    let mut parts = Vec::new();
    for part in text.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(escape("`..` component")),
            p => parts.push(p),
        }
    }
    Ok(parts.join("/"))
}

/// Whether a link target, relative to the link's folder, leaves the root.
fn link_escapes(link_path: &str, target: &str) -> bool {
    let target = target.replace('\\', "/");
    if target.starts_with('/') {
        return true;
    }
    let mut depth: i64 = link_path.matches('/').count() as i64;
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                depth -= 1;
                if depth < 0 {
                    return true;
                }
            }
            _ => depth += 1,
        }
    }
    false
}

/// Where each regular file goes as soon as it is read and checked.
pub type MemberSink<'a> = &'a mut (dyn FnMut(Member) + Send);

struct Collector<'a> {
    package: Package,
    seen: BTreeSet<String>,
    links: BTreeSet<String>,
    /// Takes the members instead of `package.members` when set.
    sink: Option<MemberSink<'a>>,
}

impl<'a> Collector<'a> {
    fn new(sink: Option<MemberSink<'a>>) -> Collector<'a> {
        Collector {
            package: Package::default(),
            seen: BTreeSet::new(),
            links: BTreeSet::new(),
            sink,
        }
    }

    fn through_link(&self, path: &str) -> Option<String> {
        let mut prefix = String::new();
        for part in path.split('/') {
            if !prefix.is_empty() {
                prefix.push('/');
            }
            prefix.push_str(part);
            if prefix.len() < path.len() && self.links.contains(&prefix) {
                return Some(prefix);
            }
        }
        None
    }

    fn file(&mut self, path: String, data: Vec<u8>) -> Result<(), ArchiveError> {
        if let Some(link) = self.through_link(&path) {
            return Err(ArchiveError::ThroughLink { member: path, link });
        }
        if !self.seen.insert(path.clone()) {
            return Err(ArchiveError::Duplicate { member: path });
        }
        let m = Member { path, data };
        match self.sink.as_mut() {
            Some(sink) => sink(m),
            None => self.package.members.push(m),
        }
        Ok(())
    }

    fn link(&mut self, path: String, target: &str, hard: bool) -> Result<(), ArchiveError> {
        if let Some(link) = self.through_link(&path) {
            return Err(ArchiveError::ThroughLink { member: path, link });
        }
        if link_escapes(&path, target) {
            return Err(ArchiveError::Escape {
                member: path,
                why: format!(
                    "{} to {target:?} points outside the archive",
                    if hard { "hard link" } else { "symlink" }
                ),
            });
        }
        self.package.notes.push(format!(
            "{} {path} -> {target} not followed",
            if hard { "hard link" } else { "symlink" }
        ));
        self.links.insert(path);
        Ok(())
    }
}

/// Reads an archive from memory.
pub fn read_archive(
    bytes: &[u8],
    format: ArchiveFormat,
    limits: &Limits,
) -> Result<Package, ArchiveError> {
    read_archive_with(bytes, format, limits, None)
}

/// As [`read_archive`]; with a sink, each regular file goes to it as soon as
/// it is read (in archive order), and the package comes back with its notes
/// only. Every check runs exactly as without one; on an error the sink has
/// seen some members, and the caller must discard what it made of them.
pub fn read_archive_with(
    bytes: &[u8],
    format: ArchiveFormat,
    limits: &Limits,
    sink: Option<MemberSink<'_>>,
) -> Result<Package, ArchiveError> {
    let mut budget = Budget::new(limits, bytes.len() as u64);
    let mut c = Collector::new(sink);
    match format {
        ArchiveFormat::TarGz => read_tar(flate2::read::GzDecoder::new(bytes), &mut budget, &mut c)?,
        ArchiveFormat::TarBz2 => read_tar(bzip2::read::BzDecoder::new(bytes), &mut budget, &mut c)?,
        ArchiveFormat::Tar => read_tar(bytes, &mut budget, &mut c)?,
        ArchiveFormat::Zip => read_zip(bytes, &mut budget, &mut c)?,
    }
    Ok(c.package)
}

fn read_tar<R: Read>(
    reader: R,
    budget: &mut Budget,
    c: &mut Collector,
) -> Result<(), ArchiveError> {
    let mut archive = tar::Archive::new(reader);
    let entries = archive
        .entries()
        .map_err(|e| ArchiveError::Corrupt(e.to_string()))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| ArchiveError::Corrupt(e.to_string()))?;
        let raw_path = entry.path_bytes().into_owned();
        let name = String::from_utf8_lossy(&raw_path).into_owned();
        budget.add_member(&name)?;
        let kind = entry.header().entry_type();
        if kind.is_pax_global_extensions()
            || kind.is_pax_local_extensions()
            || kind.is_gnu_longname()
            || kind.is_gnu_longlink()
        {
            continue;
        }
        let path = check_member_path(&raw_path)?;
        if kind.is_dir() {
            if let Some(link) = c.through_link(&format!("{path}/x")) {
                return Err(ArchiveError::ThroughLink { member: name, link });
            }
            continue;
        }
        if kind.is_symlink() || kind.is_hard_link() {
            let target = entry
                .link_name_bytes()
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            if target.contains('\0') {
                return Err(ArchiveError::Escape {
                    member: name,
                    why: "NUL byte in the link target".into(),
                });
            }
            c.link(path, &target, kind.is_hard_link())?;
            continue;
        }
        if !(kind.is_file()
            || kind == tar::EntryType::Continuous
            || kind == tar::EntryType::GNUSparse)
        {
            c.package
                .notes
                .push(format!("{path}: not a regular file ({kind:?}), skipped"));
            continue;
        }
        if path.is_empty() {
            continue;
        }
        let declared = entry.size();
        let data = budget.read_member(&path, &mut entry, declared)?;
        c.file(path, data)?;
    }
    Ok(())
}

fn read_zip(bytes: &[u8], budget: &mut Budget, c: &mut Collector) -> Result<(), ArchiveError> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| ArchiveError::Corrupt(e.to_string()))?;
    if zip.len() as u64 > budget.limits.max_members {
        return Err(ArchiveError::Limit {
            what: format!(
                "{} members, more than {}",
                zip.len(),
                budget.limits.max_members
            ),
            key: "max-members",
            limit: budget.limits.max_members,
        });
    }
    for i in 0..zip.len() {
        let mut f = zip
            .by_index(i)
            .map_err(|e| ArchiveError::Corrupt(e.to_string()))?;
        let raw = f.name_raw().to_vec();
        let name = String::from_utf8_lossy(&raw).into_owned();
        budget.add_member(&name)?;
        let path = check_member_path(&raw)?;
        if f.is_dir() || path.is_empty() {
            continue;
        }
        if f.is_symlink() {
            let mut target = Vec::new();
            f.by_ref()
                .take(4096)
                .read_to_end(&mut target)
                .map_err(|e| ArchiveError::Corrupt(e.to_string()))?;
            c.link(path, &String::from_utf8_lossy(&target), false)?;
            continue;
        }
        if f.size() > budget.limits.max_member_bytes {
            return Err(ArchiveError::Limit {
                what: format!(
                    "member {path:?} declares {} bytes, more than {}",
                    f.size(),
                    budget.limits.max_member_bytes
                ),
                key: "max-member-bytes",
                limit: budget.limits.max_member_bytes,
            });
        }
        let compressed = f.compressed_size();
        let declared = f.size();
        let data = budget.read_member_capped(&path, &mut f, Some(compressed), declared)?;
        c.file(path, data)?;
    }
    Ok(())
}

/// Reads an unpacked package directory. Links are noted, never followed.
pub fn read_dir(root: &Path, limits: &Limits) -> Result<Package, ArchiveError> {
    let mut budget = Budget::new(limits, u64::MAX / 2);
    let mut c = Collector::new(None);
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .map_err(|e| ArchiveError::Io(format!("{}: {e}", dir.display())))?
            .flatten()
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let p = e.path();
            let rel = p
                .strip_prefix(root)
                .unwrap_or(&p)
                .to_string_lossy()
                .replace('\\', "/");
            budget.add_member(&rel)?;
            let ft = e
                .file_type()
                .map_err(|err| ArchiveError::Io(format!("{rel}: {err}")))?;
            if ft.is_symlink() {
                let target = std::fs::read_link(&p)
                    .map(|t| t.display().to_string())
                    .unwrap_or_default();
                c.package
                    .notes
                    .push(format!("symlink {rel} -> {target} not followed"));
            } else if ft.is_dir() {
                stack.push(p);
            } else if ft.is_file() {
                let mut f = std::fs::File::open(&p)
                    .map_err(|err| ArchiveError::Io(format!("{rel}: {err}")))?;
                let declared = f.metadata().map(|m| m.len()).unwrap_or(0);
                let data = budget.read_member(&rel, &mut f, declared)?;
                c.file(rel, data)?;
            } else {
                c.package
                    .notes
                    .push(format!("{rel}: not a regular file, skipped"));
            }
        }
    }
    Ok(c.package)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_paths() {
        assert_eq!(
            check_member_path(b"pkg-1.0/./setup.py").unwrap(),
            "pkg-1.0/setup.py"
        );
        for bad in [
            &b"../evil"[..],
            b"/etc/passwd",
            b"a/../../b",
            b"a\0b",
            b"C:\\x",
            b"a\\..\\..\\b",
        ] {
            assert!(
                check_member_path(bad).is_err(),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn link_targets() {
        assert!(!link_escapes("pkg/lib/a", "../b"));
        assert!(link_escapes("pkg/a", "../../etc"));
        assert!(link_escapes("pkg/a", "/etc"));
        assert!(!link_escapes("pkg/a", "sub/b"));
    }

    #[test]
    fn formats() {
        assert_eq!(
            ArchiveFormat::from_path(Path::new("x-1.0.tgz")),
            Some(ArchiveFormat::TarGz)
        );
        assert_eq!(
            ArchiveFormat::from_path(Path::new("X-1.0-py3-none-any.WHL")),
            Some(ArchiveFormat::Zip)
        );
        assert_eq!(
            ArchiveFormat::from_path(Path::new("x.tar.bz2")),
            Some(ArchiveFormat::TarBz2)
        );
        assert_eq!(ArchiveFormat::from_path(Path::new("x.diff")), None);
        assert_eq!(
            ArchiveFormat::sniff(b"PK\x03\x04rest"),
            Some(ArchiveFormat::Zip)
        );
    }

    /// A reader of `len` bytes that counts how many were asked of it.
    struct Counted {
        left: u64,
        read: u64,
    }

    impl Read for Counted {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = (buf.len() as u64).min(self.left) as usize;
            buf[..n].fill(b'a');
            self.left -= n as u64;
            self.read += n as u64;
            Ok(n)
        }
    }

    #[test]
    fn declared_sizes_are_hints_and_caps_bound_what_is_read() {
        let limits = Limits {
            max_member_bytes: 1 << 20,
            ..Limits::default()
        };
        // An archive that claims far more than it holds: the data comes back
        // whole and the oversized buffer is given back.
        let mut b = Budget::new(&limits, 1 << 20);
        let mut r = Counted { left: 10, read: 0 };
        let data = b.read_member("small", &mut r, u64::MAX).unwrap();
        assert_eq!(data, b"aaaaaaaaaa");
        assert!(data.capacity() <= 64 * 1024, "{}", data.capacity());
        // A member past the cap: refused naming the cap, and not read further
        // than one byte past it, whatever it declares.
        for declared in [0, 10, u64::MAX] {
            let mut b = Budget::new(&limits, 1 << 30);
            let mut r = Counted {
                left: 8 << 20,
                read: 0,
            };
            match b.read_member("big", &mut r, declared) {
                Err(ArchiveError::Limit { key, .. }) => assert_eq!(key, "max-member-bytes"),
                other => panic!("expected the member cap, got {other:?}"),
            }
            assert!(r.read <= (1 << 20) + 64 * 1024, "read {} bytes", r.read);
        }
        // The whole-archive cap counts across members.
        let limits = Limits {
            max_total_bytes: 100,
            ..limits
        };
        let mut b = Budget::new(&limits, 1 << 20);
        b.read_member("one", &mut Counted { left: 60, read: 0 }, 60)
            .unwrap();
        match b.read_member("two", &mut Counted { left: 60, read: 0 }, 60) {
            Err(ArchiveError::Limit { key, what, .. }) => {
                assert_eq!(key, "max-total-bytes");
                assert!(what.contains("\"two\""), "{what}");
            }
            other => panic!("expected the total cap, got {other:?}"),
        }
    }
}
