#!/usr/bin/env python3
"""Download benign PyPI sdists for training and the false-positive check.

Usage:
  fetch_sdists.py LIST.txt DEST_DIR [--lock LOCKFILE]

LIST.txt has one project name per line (# comments allowed). With an
existing LOCKFILE (lines `name version filename sha256`), the locked versions
are fetched and their sha256 checked; otherwise the latest sdist of each
project is fetched and the lock file is written. Archives are only
downloaded, never unpacked, built or installed: Canary reads them as bytes.
Standard library only.
"""
import hashlib
import html.parser
import json
import os
import sys
import urllib.parse
import urllib.request


def get_json(url):
    with urllib.request.urlopen(url, timeout=60) as r:
        return json.load(r)


class Links(html.parser.HTMLParser):
    """The file links of a PEP 503 simple-index page."""

    def __init__(self):
        super().__init__()
        self.hrefs = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.hrefs += [v for k, v in attrs if k == "href" and v]


def locked_url(name, filename):
    """Where the simple index serves `filename`. The simple index, not the
    versioned JSON API: mirrors that serve only a project's latest JSON
    document still list every file there."""
    index = f"https://pypi.org/simple/{name}/"
    with urllib.request.urlopen(index, timeout=60) as r:
        page = Links()
        page.feed(r.read().decode("utf-8", "replace"))
    for href in page.hrefs:
        url = urllib.parse.urljoin(index, href)
        if urllib.parse.unquote(urllib.parse.urlsplit(url).path).endswith("/" + filename):
            return url.split("#")[0]
    raise LookupError(f"{filename} is not on {index}")


def read_lock(path):
    """{name: (version, filename, sha256)} of a lock file; {} if it is absent."""
    locked = {}
    if path and os.path.exists(path):
        for line in open(path):
            if line.strip() and not line.startswith("#"):
                n, v, f, s = line.split()
                locked[n] = (v, f, s)
    return locked


def write_lock(path, rows, script):
    """Writes `rows` (lines `name version filename sha256`) as the lock file
    at `path`, headed with the name of the script that wrote it."""
    with open(path, "w") as fh:
        fh.write(f"# name version filename sha256 (written by {script})\n")
        fh.write("\n".join(rows) + "\n")


def download_checked(name, url, path, want):
    """Download `url` to `path` unless it is there, then check its sha256
    against `want` (a mismatch removes the file and ends the run)."""
    if not os.path.exists(path):
        with urllib.request.urlopen(url, timeout=300) as r:
            data = r.read()
        with open(path, "wb") as fh:
            fh.write(data)
    sha = hashlib.sha256(open(path, "rb").read()).hexdigest()
    if sha != want:
        os.remove(path)
        sys.exit(f"{name}: sha256 {sha} does not match {want}")
    return sha


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    names = [l.strip() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
    dest = sys.argv[2]
    lock_path = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--lock" else None
    locked = read_lock(lock_path)
    os.makedirs(dest, exist_ok=True)
    out = []
    for name in names:
        try:
            if name in locked:
                version, filename, want = locked[name]
                path = os.path.join(dest, filename)
                url = None if os.path.exists(path) else locked_url(name, filename)
            else:
                meta_url = f"https://pypi.org/pypi/{name}/json"
                meta = get_json(meta_url)
                sdists = [u for u in meta["urls"] if u["packagetype"] == "sdist"]
                if not sdists:
                    print(f"skip {name}: no sdist", file=sys.stderr)
                    continue
                u = sdists[0]
                version, filename, want = (
                    meta["info"]["version"],
                    u["filename"],
                    u["digests"]["sha256"],
                )
                path = os.path.join(dest, filename)
                # Some mirrors answer with URLs relative to the JSON document.
                url = urllib.parse.urljoin(meta_url, u["url"])
            sha = download_checked(name, url, path, want)
            out.append(f"{name} {version} {filename} {sha}")
            print(f"ok {name} {version}", file=sys.stderr)
        except Exception as e:  # a missing project is reported, not fatal
            print(f"skip {name}: {e}", file=sys.stderr)
    if lock_path and not locked:
        write_lock(lock_path, out, "fetch_sdists.py")


if __name__ == "__main__":
    main()
