//! Core metadata (an sdist's `PKG-INFO`, a wheel's `*.dist-info/METADATA`):
//! whether a release changed it only where every release does.
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

/// Whether the change from `old` to `new` (both core metadata at `path`)
/// only removed header lines and added version fields
/// ([module docs](self)).
pub fn only_version_fields_changed(path: &str, old: &[u8], new: &[u8]) -> bool {
    if !is_core_metadata(path) {
        return false;
    }
    let (old_head, old_body) = split(old);
    let (new_head, new_body) = split(new);
    if old_body != new_body {
        return false;
    }
    let mut had: HashMap<&[u8], usize> = HashMap::new();
    for line in old_head {
        *had.entry(line).or_default() += 1;
    }
    new_head.into_iter().all(|line| match had.get_mut(line) {
        Some(n) if *n > 0 => {
            *n -= 1;
            true
        }
        _ => is_version_field(line),
    })
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

/// A header line that every release may change and that holds no code:
/// `Metadata-Version: 2.4`, `Version: 1.2.3rc1.post2+local.7`,
/// `Requires-Python: >=3.9, !=3.10.*`.
fn is_version_field(line: &[u8]) -> bool {
    let Some(at) = memchr::memmem::find(line, b": ") else {
        return false;
    };
    let (field, value) = (&line[..at], &line[at + 2..]);
    let allowed: fn(u8) -> bool = match field {
        b"Metadata-Version" => |b: u8| b.is_ascii_digit() || b == b'.',
        b"Version" => |b: u8| b.is_ascii_alphanumeric() || b"._-+!".contains(&b),
        b"Requires-Python" => |b: u8| b.is_ascii_digit() || b" .,*<>=!~".contains(&b),
        _ => return false,
    };
    !value.is_empty() && value.len() <= 64 && value.iter().all(|&b| allowed(b))
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
