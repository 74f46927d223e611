//! Small helpers shared by several stages: hashing, dates, loopback checks.
//! Nothing here performs I/O beyond what its name says.

use sha2::{Digest, Sha256};

/// The first `shown` names joined by ", ", then "and N more" for the rest:
/// how notes name what they are about without growing with the package.
pub fn first_few<S: AsRef<str>>(names: &[S], shown: usize) -> String {
    let mut out = names[..names.len().min(shown)]
        .iter()
        .map(AsRef::as_ref)
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > shown {
        out.push_str(&format!(" and {} more", names.len() - shown));
    }
    out
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Writes `name` in `dir` without writing through anything already there,
/// and without a reader ever seeing half a file: a new file under a name
/// no one else has (`create_new` refuses a link or file planted at it),
/// filled, then renamed over `name`, which replaces a link there instead
/// of writing to its target, and replaces a read-only file, which a write
/// could not. The temporary file is removed on failure.
pub fn write_via_rename(
    dir: &std::path::Path,
    name: &str,
    read_only: bool,
    fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let n = SEQ.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".canary-{}-{n}.tmp", std::process::id()));
    let written = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        fill(&mut f)?;
        if read_only {
            let mut perm = f.metadata()?.permissions();
            perm.set_readonly(true);
            f.set_permissions(perm)?;
        }
        std::fs::rename(&tmp, dir.join(name))
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// The most bytes of a config or policy file read. Real ones are a few KB;
/// the cap keeps `--config /dev/zero` (or a file named by mistake) from
/// growing without bound.
pub const MAX_SETTINGS_BYTES: u64 = 1 << 20;

/// Everything `reader` yields if that is at most `cap` bytes, `None` if it
/// yields more (reading stops one byte past the cap): how inputs,
/// settings and the reports Canary reads back (cache entries, quarantined
/// reports) are bounded when read whole.
pub fn read_at_most(reader: impl std::io::Read, cap: u64) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let mut buf = Vec::new();
    reader.take(cap.saturating_add(1)).read_to_end(&mut buf)?;
    Ok((buf.len() as u64 <= cap).then_some(buf))
}

/// The text of the file at `path` if it is at most `cap` bytes, `None` if
/// it is larger; text that is not UTF-8 is an `InvalidData` error, as
/// `std::fs::read_to_string` gives.
pub fn read_text_at_most(path: &std::path::Path, cap: u64) -> std::io::Result<Option<String>> {
    let Some(bytes) = read_at_most(std::fs::File::open(path)?, cap)? else {
        return Ok(None);
    };
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// Opens `path` for reading only if it is a regular file, without following
/// a link there and without waiting on a pipe (`O_NOFOLLOW | O_NONBLOCK`),
/// and checks the type of what was opened: a file swapped for a link or a
/// pipe after its type was looked at is not read.
pub fn open_regular_file(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    let not_regular = || std::io::Error::other("not a regular file (a link, pipe or device)");
    let mut open = std::fs::OpenOptions::new();
    open.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        open.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    #[cfg(not(unix))]
    if !std::fs::symlink_metadata(path)?.is_file() {
        return Err(not_regular());
    }
    let f = open.open(path)?;
    if f.metadata()?.is_file() {
        Ok(f)
    } else {
        Err(not_regular())
    }
}

/// Parses `YYYY-MM-DD` into a comparable (year, month, day).
pub fn parse_date(s: &str) -> Option<(i32, u32, u32)> {
    let mut it = s.trim().splitn(3, '-');
    let (y, m, d) = (it.next()?, it.next()?, it.next()?);
    if y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let (y, m, d): (i32, u32, u32) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&m) || d == 0 || d > days[(m - 1) as usize] {
        return None;
    }
    Some((y, m, d))
}

/// Today's UTC date, from the system clock (civil-from-days, Howard Hinnant).
pub fn today_utc() -> (i32, u32, u32) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    civil_from_days(secs.div_euclid(86_400))
}

pub fn civil_from_days(z: i64) -> (i32, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    ((if m <= 2 { y + 1 } else { y }) as i32, m, d)
}

/// Whether a URL's host is on this machine (127.0.0.0/8, ::1, localhost),
/// decided from the text of the URL alone: no DNS lookup is made.
pub fn is_loopback_url(url: &str) -> bool {
    let Some(rest) = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
    else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.contains('@') {
        // userinfo can disguise the real host; refuse rather than parse cleverly.
        return false;
    }
    let host = if let Some(v6) = authority.strip_prefix('[') {
        match v6.split_once(']') {
            Some((h, _)) => h,
            None => return false,
        }
    } else {
        authority.rsplit_once(':').map_or(authority, |(h, _)| h)
    };
    let host = host.to_ascii_lowercase();
    if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" {
        return true;
    }
    match host.parse::<std::net::Ipv4Addr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => false,
    }
}

/// Writes one line to standard error, ignoring a failure to write.
/// `eprintln!` panics when stderr is closed (`canary scan … 2>&1 | head`),
/// which ended a scan with exit 101 whatever its decisions; what Canary says
/// on stderr is advice, and its exit code must stay one of the documented.
pub fn say(line: &str) {
    use std::io::Write;
    let mut e = std::io::stderr().lock();
    let _ = e
        .write_all(line.as_bytes())
        .and_then(|()| e.write_all(b"\n"));
}

/// The bytes of every file under `dirs` (folders of the crate's root), for
/// tests that check the crate's patterns against its own sources and tests,
/// which spell out what each pattern is for.
#[cfg(test)]
pub(crate) fn crate_files(dirs: &[&str]) -> Vec<Vec<u8>> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs: Vec<_> = dirs.iter().map(|d| root.join(d)).collect();
    let mut files = Vec::new();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                files.push(bytes);
            }
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_few_names_then_a_count() {
        assert_eq!(first_few(&["a", "b"], 5), "a, b");
        assert_eq!(first_few(&["a", "b", "c"], 2), "a, b and 1 more");
        assert_eq!(first_few::<&str>(&[], 2), "");
    }

    #[test]
    fn reads_stop_one_byte_past_the_cap() {
        assert_eq!(read_at_most(&b"abc"[..], 3).unwrap(), Some(b"abc".to_vec()));
        assert_eq!(read_at_most(&b"abcd"[..], 3).unwrap(), None);
        assert_eq!(read_at_most(&b""[..], 0).unwrap(), Some(Vec::new()));
        // An endless reader ends at the cap.
        assert_eq!(read_at_most(std::io::repeat(0), 1 << 20).unwrap(), None);
    }

    #[test]
    fn only_a_regular_file_is_opened() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, b"x").unwrap();
        assert!(open_regular_file(&file).is_ok());
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(open_regular_file(&link).is_err(), "a link is not followed");
        assert!(open_regular_file(dir.path()).is_err(), "a folder");
        // A pipe with no writer: opened without waiting, then refused.
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let err = open_regular_file(&fifo).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
    }

    #[test]
    fn dates() {
        assert_eq!(parse_date("2024-02-29"), Some((2024, 2, 29)));
        assert_eq!(parse_date("2023-02-29"), None);
        assert_eq!(parse_date("2024-13-01"), None);
        assert_eq!(parse_date("24-01-01"), None);
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_414), (2025, 11, 22));
    }

    #[test]
    fn loopback_is_decided_without_dns() {
        for url in [
            "http://127.0.0.1:11434/v1",
            "http://127.8.9.10/v1",
            "http://localhost:8080",
            "https://LOCALHOST/v1",
            "http://[::1]:8000/v1",
        ] {
            assert!(is_loopback_url(url), "{url}");
        }
        for url in [
            "https://api.anthropic.com/v1",
            "http://10.0.0.1/v1",
            "http://localhost.evil.example/v1",
            "http://127.0.0.1@evil.example/v1",
            "http://[::2]/",
            "ftp://127.0.0.1/",
            "http://0.0.0.0:80/",
        ] {
            assert!(!is_loopback_url(url), "{url}");
        }
    }
}
