#!/usr/bin/env python3
"""Download the release before each locked sdist, for version-diff scans.

Usage:
  fetch_previous.py LOCKFILE DEST_DIR --lock PREV_LOCKFILE

For each `name version filename sha256` line of LOCKFILE, the previous
final release of the project that has an sdist (the newest one uploaded
before the locked version's sdist; versions with letters, such as
`2.0rc1`, are passed over) is downloaded into DEST_DIR and its sha256
checked against PyPI's. PREV_LOCKFILE gets the same four columns. When
PREV_LOCKFILE already exists, the versions it names are fetched again and
checked instead, so a rerun gets the same files. Archives are only
downloaded, never unpacked, built or installed: Canary reads them as
bytes. Then, for example:

    canary scan --local-only --no-cache --format jsonl --base OLD NEW

Standard library only.
"""
import os
import re
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fetch_sdists import (  # noqa: E402
    download_checked,
    get_json,
    locked_url,
    read_lock,
    write_lock,
)

FINAL = re.compile(r"^\d+(\.\d+)*$")


def sdist_of(files):
    s = [f for f in files if f["packagetype"] == "sdist" and not f.get("yanked")]
    return s[0] if s else None


def previous(name, version):
    """(version, filename, sha256, url) of the release before `version`."""
    meta_url = f"https://pypi.org/pypi/{name}/json"
    meta = get_json(meta_url)
    releases = meta["releases"]
    current = sdist_of(releases.get(version, []))
    if current is None:
        raise LookupError(f"{name} {version} has no sdist on PyPI")
    before = current["upload_time_iso_8601"]
    best = None
    for v, files in releases.items():
        f = sdist_of(files)
        if v == version or f is None or not FINAL.match(v):
            continue
        t = f["upload_time_iso_8601"]
        if t < before and (best is None or t > best[0]):
            best = (t, v, f)
    if best is None:
        raise LookupError(f"{name}: no final release with an sdist before {version}")
    _, v, f = best
    return v, f["filename"], f["digests"]["sha256"], urllib.parse.urljoin(meta_url, f["url"])


def main():
    if len(sys.argv) != 5 or sys.argv[3] != "--lock":
        sys.exit(__doc__)
    lock, dest, prev_lock = sys.argv[1], sys.argv[2], sys.argv[4]
    pinned = read_lock(prev_lock)
    os.makedirs(dest, exist_ok=True)
    out = []
    for name, (version, _, _) in read_lock(lock).items():
        try:
            if name in pinned:
                v, filename, want = pinned[name]
                path = os.path.join(dest, filename)
                url = None if os.path.exists(path) else locked_url(name, filename)
            else:
                v, filename, want, url = previous(name, version)
                path = os.path.join(dest, filename)
            sha = download_checked(name, url, path, want)
            out.append(f"{name} {v} {filename} {sha}")
            print(f"ok {name} {v} (before {version})", file=sys.stderr)
        except Exception as e:  # a project without a previous sdist is reported, not fatal
            print(f"skip {name}: {e}", file=sys.stderr)
    if not pinned:
        write_lock(prev_lock, out, "fetch_previous.py")


if __name__ == "__main__":
    main()
