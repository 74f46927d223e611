//! A release's own metadata (an sdist's `PKG-INFO`; a wheel's
//! `*.dist-info/METADATA`, `WHEEL` and `RECORD`): whether a release changed
//! it only where every release does.
//!
//! Why: in a version diff, a line the change left as it was that runs
//! text it does not hold (`marshal.loads`, `eval`, [`super::unread`])
//! keeps a package from being allowed whenever the change alters a file
//! the pre-check reads as documentation or data, since that file may be
//! the text it runs. The metadata is such a file, and code can read it
//! (`importlib.metadata`), but every release changes its `Version:` line:
//! counted as an altered document, it blocked every upgrade of any
//! package with such a line (rich 14.3.4 → 15.0.0, whose metadata changed
//! its version, its `Requires-Python` and dropped a classifier).
//!
//! What passes is narrow: the description (everything after the headers'
//! blank line) is byte for byte the same, and every header line the new
//! release adds is `Metadata-Version`, `Version` or `Requires-Python` with
//! a value in a small character set (no quotes, brackets or parentheses,
//! so nothing that could be run as code). Lines removed only take away
//! text the accepted release already had. Any other added line, a
//! classifier, a dependency or a changed description, counts as altered.
//!
//! A wheel's `WHEEL` file names the tool that built it (`Generator:
//! setuptools (84.2.1)`), and its `RECORD` lists each file with its sha256
//! and size, so both change with every release too. A `WHEEL` passes as
//! the metadata does, with its own fields (`Wheel-Version`, `Generator`,
//! `Root-Is-Purelib`, `Tag`, `Build`, values in a small character set). A
//! `RECORD` passes when each row it adds is `PATH,sha256=DIGEST,SIZE`, the
//! path in a small character set, and the release holds a file at `PATH`
//! with that very digest and size (or is the row of the `RECORD` itself or
//! its signature, with neither): its
//! text is then fixed by the files, which are judged themselves, and holds
//! nothing chosen for code to run. setuptools 84.2.0 → 84.2.1 as wheels
//! was blocked for fourteen unchanged lines beside its altered `RECORD`
//! and `WHEEL`.
//!
//! This module only reads bytes; it never parses the metadata as anything
//! but lines.

use std::collections::HashMap;

use super::render::file_name;

/// Whether `path` names core metadata: `PKG-INFO` (an sdist's, or an
/// `*.egg-info` folder's) or `METADATA` in a `*.dist-info` folder.
pub fn is_core_metadata(path: &str) -> bool {
    let (name, _) = file_name(path);
    let parent = path
        .rsplit('/')
        .nth(1)
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    name == "PKG-INFO" || (name == "METADATA" && parent.ends_with(".dist-info"))
}

/// Whether `path` names a file [`adds_no_free_text`] may pass: core
/// metadata, or a `WHEEL` or `RECORD` in a top-level `*.dist-info` folder.
pub fn is_release_metadata(path: &str) -> bool {
    is_core_metadata(path) || wheel_file(path).is_some()
}

/// `WHEEL` or `RECORD`, when `path` is one in a top-level `*.dist-info`.
fn wheel_file(path: &str) -> Option<&str> {
    let (folder, name) = path.split_once('/')?;
    (folder.to_ascii_lowercase().ends_with(".dist-info") && matches!(name, "WHEEL" | "RECORD"))
        .then_some(name)
}

/// Whether the change from `old` to `new` at `path` adds no text a
/// release's code could be made to run ([module docs](self)); `member`
/// gives the new release's file at a path, for a `RECORD`'s rows.
pub fn adds_no_free_text<'a>(
    path: &str,
    old: &[u8],
    new: &[u8],
    member: impl Fn(&str) -> Option<&'a [u8]>,
) -> bool {
    match wheel_file(path) {
        Some("WHEEL") => only_fields_changed(old, new, is_build_field),
        Some(_) => record_adds_only_hashes(path, old, new, member),
        None => only_version_fields_changed(path, old, new),
    }
}

/// Whether the change from `old` to `new` (both core metadata at `path`)
/// only removed header lines and added version fields
/// ([module docs](self)).
pub fn only_version_fields_changed(path: &str, old: &[u8], new: &[u8]) -> bool {
    is_core_metadata(path) && only_fields_changed(old, new, is_version_field)
}

/// Whether the body is the same and every header line added passes `field`.
fn only_fields_changed(old: &[u8], new: &[u8], field: fn(&[u8]) -> bool) -> bool {
    let (old_head, old_body) = split(old);
    let (new_head, new_body) = split(new);
    if old_body != new_body {
        return false;
    }
    let mut had = Lines::of(old_head);
    new_head
        .into_iter()
        .all(|line| had.take(line) || field(line))
}

/// A multiset of the old file's lines: each may stand for one new line.
struct Lines<'a>(HashMap<&'a [u8], usize>);

impl<'a> Lines<'a> {
    fn of(lines: impl IntoIterator<Item = &'a [u8]>) -> Self {
        let mut had: HashMap<&[u8], usize> = HashMap::new();
        for line in lines {
            *had.entry(line).or_default() += 1;
        }
        Self(had)
    }

    fn take(&mut self, line: &[u8]) -> bool {
        match self.0.get_mut(line) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }
}

/// Whether every row of the new `RECORD` is one of the old one's, or the
/// sha256 and size of the file of the release it names ([module
/// docs](self)).
fn record_adds_only_hashes<'a>(
    path: &str,
    old: &[u8],
    new: &[u8],
    member: impl Fn(&str) -> Option<&'a [u8]>,
) -> bool {
    use base64::Engine as _;
    use sha2::Digest as _;
    let folder = &path[..path.len() - "RECORD".len()];
    let mut had = Lines::of(rows(old));
    rows(new).all(|row| {
        if had.take(row) {
            return true;
        }
        let Ok(row) = std::str::from_utf8(row) else {
            return false;
        };
        // A quoted field (a path with a comma) is not worth parsing here.
        let fields: Vec<&str> = row.split(',').collect();
        let [file, hash, size] = fields[..] else {
            return false;
        };
        if hash.is_empty() && size.is_empty() {
            return file
                .strip_prefix(folder)
                .is_some_and(|name| matches!(name, "RECORD" | "RECORD.jws" | "RECORD.p7s"));
        }
        // A path is text too: one named to be run (`import os;…`) is not
        // passed, however well its digest matches.
        let plain = |b: u8| b.is_ascii_alphanumeric() || b"._-/+".contains(&b);
        if !file.bytes().all(plain) {
            return false;
        }
        let (Some(digest), Some(data)) = (hash.strip_prefix("sha256="), member(file)) else {
            return false;
        };
        size == data.len().to_string()
            && digest
                == base64::engine::general_purpose::URL_SAFE_NO_PAD
                    .encode(sha2::Sha256::digest(data))
    })
}

/// A `RECORD`'s lines, `\r` trimmed, without the empty piece after the last
/// line's newline.
fn rows(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    let data = data.strip_suffix(b"\n").unwrap_or(data);
    data.split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .filter(move |_| !data.is_empty())
}

/// The header lines (up to the first empty line, `\r` trimmed) and the
/// bytes from that empty line on (empty when there is none).
fn split(data: &[u8]) -> (Vec<&[u8]>, &[u8]) {
    let mut head = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let end = memchr::memchr(b'\n', &data[at..]).map_or(data.len(), |i| at + i);
        let line = data[at..end].strip_suffix(b"\r").unwrap_or(&data[at..end]);
        if line.is_empty() {
            return (head, &data[at..]);
        }
        head.push(line);
        at = end + 1;
    }
    (head, &[])
}

/// A header line's field and value (`Field: value`).
fn header(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let at = memchr::memmem::find(line, b": ")?;
    Some((&line[..at], &line[at + 2..]))
}

/// A byte of a version as releases write them (`1.2.3rc1.post2+local.7`).
fn is_version_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"._-+!".contains(&b)
}

/// A header line that every release may change and that holds no code:
/// `Metadata-Version: 2.4`, `Version: 1.2.3rc1.post2+local.7`,
/// `Requires-Python: >=3.9, !=3.10.*`.
fn is_version_field(line: &[u8]) -> bool {
    let Some((field, value)) = header(line) else {
        return false;
    };
    let allowed: fn(u8) -> bool = match field {
        b"Metadata-Version" => |b: u8| b.is_ascii_digit() || b == b'.',
        b"Version" => is_version_byte,
        b"Requires-Python" => |b: u8| b.is_ascii_digit() || b" .,*<>=!~".contains(&b),
        _ => return false,
    };
    !value.is_empty() && value.len() <= 64 && value.iter().all(|&b| allowed(b))
}

/// A `WHEEL` line that every build may change and that holds no code:
/// `Wheel-Version: 1.0`, `Generator: setuptools (84.2.1)`, `Generator:
/// hatchling 1.27.0`, `Root-Is-Purelib: true`, `Tag: cp311-cp311-manylinux_2_17_x86_64`.
fn is_build_field(line: &[u8]) -> bool {
    let Some((field, value)) = header(line) else {
        return false;
    };
    let word = |v: &[u8]| {
        !v.is_empty()
            && v.iter()
                .all(|&b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    };
    let version = |v: &[u8]| {
        v.first().is_some_and(u8::is_ascii_digit) && v.iter().all(|&b| is_version_byte(b))
    };
    let ok = match field {
        b"Wheel-Version" => {
            version(value) && value.iter().all(|&b| b.is_ascii_digit() || b == b'.')
        }
        b"Root-Is-Purelib" => matches!(value, b"true" | b"false"),
        b"Tag" => word(value),
        b"Build" => version(value),
        // `NAME`, `NAME VERSION` or `NAME (VERSION)`.
        b"Generator" => match memchr::memchr(b' ', value) {
            None => word(value),
            Some(i) => {
                let rest = &value[i + 1..];
                let rest = rest
                    .strip_prefix(b"(")
                    .and_then(|r| r.strip_suffix(b")"))
                    .unwrap_or(rest);
                word(&value[..i]) && version(rest)
            }
        },
        _ => false,
    };
    ok && value.len() <= 64
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "Metadata-Version: 2.4\nName: rich\nVersion: 14.3.4\nRequires-Python: >=3.8.0\nClassifier: Programming Language :: Python :: 3.8\nClassifier: Programming Language :: Python :: 3.9\n\n# Rich\n\nRender rich text.\n";

    fn changed(new: &str) -> bool {
        only_version_fields_changed("PKG-INFO", OLD.as_bytes(), new.as_bytes())
    }

    #[test]
    fn a_version_bump_with_removed_lines_is_only_version_fields() {
        let bump = "Metadata-Version: 2.4\nName: rich\nVersion: 15.0.0\nRequires-Python: >=3.9.0\nClassifier: Programming Language :: Python :: 3.9\n\n# Rich\n\nRender rich text.\n";
        assert!(changed(bump));
        let crlf = |s: &str| s.replace('\n', "\r\n");
        assert!(only_version_fields_changed(
            "PKG-INFO",
            crlf(OLD).as_bytes(),
            crlf(bump).as_bytes()
        ));
        assert!(changed(
            &OLD.replace("Version: 14.3.4", "Version: 15.0.0rc1.post2+local.7")
        ));
        assert!(changed(
            &OLD.replace("Metadata-Version: 2.4", "Metadata-Version: 2.5")
        ));
        assert!(changed(OLD), "no change at all");
        // Also as an egg-info's and a wheel's metadata.
        for path in [
            "src/rich.egg-info/PKG-INFO",
            "rich-15.0.0.dist-info/METADATA",
        ] {
            assert!(
                only_version_fields_changed(path, OLD.as_bytes(), bump.as_bytes()),
                "{path}"
            );
        }
    }

    #[test]
    fn any_other_added_text_is_a_change() {
        for new in [
            // A new classifier, dependency or summary: free text.
            OLD.replace("Name: rich\n", "Name: rich\nClassifier: Typing :: Typed\n"),
            OLD.replace(
                "Name: rich\n",
                "Name: rich\nRequires-Dist: evil @ https://x.test/e.whl\n",
            ),
            OLD.replace("Name: rich\n", "Name: rich\nSummary: exec\n"),
            // A version field whose value could be code, or is too long.
            OLD.replace("Version: 14.3.4", "Version: __import__('os')"),
            OLD.replace("Version: 14.3.4", "Version: 1 if os.system else 2"),
            OLD.replace("Requires-Python: >=3.8.0", "Requires-Python: >=3.8;x"),
            OLD.replace("Version: 14.3.4", &format!("Version: {}", "1".repeat(65))),
            OLD.replace("Version: 14.3.4", "Version: "),
            OLD.replace("Version: 14.3.4", "Version:15.0.0"),
            // A header line repeated: the second copy is new text.
            OLD.replace("Name: rich\n", "Name: rich\nName: rich\n"),
            // The description changed, or lost its blank line.
            OLD.replace("Render rich text.", "Render rich text. exec(x)"),
            OLD.replace("\n\n# Rich", "\n# Rich"),
        ] {
            assert!(!changed(&new), "{new:?}");
        }
    }

    const WHEEL: &str = "Wheel-Version: 1.0\nGenerator: setuptools (84.2.0)\nRoot-Is-Purelib: true\nTag: py3-none-any\n";

    fn wheel(new: &str) -> bool {
        adds_no_free_text(
            "x-1.dist-info/WHEEL",
            WHEEL.as_bytes(),
            new.as_bytes(),
            |_| None,
        )
    }

    #[test]
    fn a_wheel_file_passes_with_build_fields_only() {
        assert!(wheel(&WHEEL.replace("(84.2.0)", "(84.2.1)")));
        assert!(wheel(
            &WHEEL.replace("setuptools (84.2.0)", "hatchling 1.27.0")
        ));
        assert!(wheel(&format!("{WHEEL}Build: 1abc\n")));
        assert!(wheel(
            &WHEEL.replace("py3-none-any", "cp311-cp311-manylinux_2_17_x86_64")
        ));
        for new in [
            WHEEL.replace("setuptools (84.2.0)", "exec(payload)"),
            WHEEL.replace("setuptools (84.2.0)", "setuptools (x)"),
            WHEEL.replace("true", "yes"),
            format!("{WHEEL}Tag: py3-none-any; import os\n"),
            format!("{WHEEL}Note: hello\n"),
            format!("{WHEEL}\nexec(payload)\n"),
        ] {
            assert!(!wheel(&new), "{new:?}");
        }
        // A file named WHEEL elsewhere is not the wheel's.
        assert!(!adds_no_free_text(
            "x/WHEEL",
            WHEEL.as_bytes(),
            WHEEL.replace("(84.2.0)", "(84.2.1)").as_bytes(),
            |_| None
        ));
    }

    #[test]
    fn a_record_passes_when_its_new_rows_are_the_files_hashes() {
        let files: HashMap<&str, &[u8]> = [
            ("x/__init__.py", &b"x = 2\n"[..]),
            ("x-1.1.dist-info/METADATA", b"Version: 1.1\n"),
            ("x/exec(x)#.py", b"x = 2\n"),
        ]
        .into_iter()
        .collect();
        let member = |p: &str| files.get(p).copied();
        // sha256 of the bytes above, URL-safe base64 without padding.
        let init = "x/__init__.py,sha256=QgXEgJqxsID9Mra_lkDl_qptG2m_n6aElUq3EBV-wUE,6";
        let meta = "x-1.1.dist-info/METADATA,sha256=eReL5Hu_XHxyEdPLRObUc7rW36206G_XR3vFFPEDcV8,13";
        let kept = "x/util.py,sha256=AAAA,10";
        let old = format!("x/__init__.py,sha256=OLD,6\n{kept}\nx-1.0.dist-info/RECORD,,\n");
        let record = |rows: &[&str]| {
            let new = rows.iter().map(|r| format!("{r}\n")).collect::<String>();
            adds_no_free_text(
                "x-1.1.dist-info/RECORD",
                old.as_bytes(),
                new.as_bytes(),
                member,
            )
        };
        let own = "x-1.1.dist-info/RECORD,,";
        assert!(record(&[init, kept, meta, own]));
        assert!(record(&[init, "x-1.1.dist-info/RECORD.jws,,", own]));
        for rows in [
            // A digest or size that is not the file's: free text.
            [init.replace("QgX", "QgY"), own.into()],
            [init.replace(",6", ",7"), own.into()],
            [init.replace("sha256", "sha512"), own.into()],
            // A row for a file the release does not hold, or without a
            // digest, or not a row at all.
            ["x/gone.py,sha256=AAAA,1".into(), own.into()],
            // A file named as code: its row is text, however well it hashes.
            [init.replace("x/__init__.py", "x/exec(x)#.py"), own.into()],
            ["x/__init__.py,,".into(), own.into()],
            ["other/RECORD,,".into(), own.into()],
            [format!("{init},extra"), own.into()],
            ["exec(payload)".into(), own.into()],
        ] {
            let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
            assert!(!record(&rows), "{rows:?}");
        }
        // An old row stands for one new row only.
        assert!(!record(&[kept, kept, own]));
    }

    #[test]
    fn only_core_metadata_counts() {
        let bump = OLD.replace("Version: 14.3.4", "Version: 15.0.0");
        for path in [
            "README.md",
            "docs/PKG-INFO.txt",
            "rich/METADATA",
            "METADATA",
        ] {
            assert!(
                !only_version_fields_changed(path, OLD.as_bytes(), bump.as_bytes()),
                "{path}"
            );
        }
    }
}
