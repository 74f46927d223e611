#!/usr/bin/env python3
"""Download benign npm tarballs for the false-positive check of rules on
JavaScript packages.

Usage:
  fetch_npm.py LIST.txt DEST_DIR [--lock LOCKFILE]

LIST.txt has one package name per line (# comments allowed; scoped names
as `@scope/name`). With an existing LOCKFILE (lines `name version
filename sha256`), the locked versions are fetched and their sha256
checked; otherwise the latest release of each package is fetched, checked
against the registry's `dist.integrity` (sha512), and the lock file is
written. Tarballs are only downloaded, never unpacked, built or installed:
Canary reads them as bytes. Standard library only.
"""
import base64
import hashlib
import os
import sys
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fetch_sdists import get_json, read_lock, write_lock  # noqa: E402

REGISTRY = "https://registry.npmjs.org/"


def release(name, version):
    """The registry's document of `name` at `version` ('latest' allowed)."""
    quoted = urllib.parse.quote(name, safe="@")
    return get_json(f"{REGISTRY}{quoted}/{version}")


def file_name(name, version):
    return f"{name.replace('@', '').replace('/', '-')}-{version}.tgz"


def main(argv):
    if len(argv) not in (3, 5) or (len(argv) == 5 and argv[3] != "--lock"):
        sys.exit(__doc__)
    names = [
        line.split("#")[0].strip()
        for line in open(argv[1])
        if line.split("#")[0].strip()
    ]
    dest = argv[2]
    lock_path = argv[4] if len(argv) == 5 else None
    locked = read_lock(lock_path)
    os.makedirs(dest, exist_ok=True)
    rows = []
    for name in names:
        version = locked[name][0] if name in locked else "latest"
        doc = release(name, version)
        version = doc["version"]
        fname = file_name(name, version)
        path = os.path.join(dest, fname)
        if not os.path.exists(path):
            with urllib.request.urlopen(doc["dist"]["tarball"], timeout=300) as r:
                data = r.read()
            integrity = doc["dist"].get("integrity", "")
            if integrity.startswith("sha512-"):
                want = base64.b64decode(integrity[len("sha512-"):])
                if hashlib.sha512(data).digest() != want:
                    sys.exit(f"{name}: the tarball does not match its sha512 integrity")
            elif hashlib.sha1(data).hexdigest() != doc["dist"]["shasum"]:
                sys.exit(f"{name}: the tarball does not match its sha1 shasum")
            with open(path, "wb") as fh:
                fh.write(data)
        sha = hashlib.sha256(open(path, "rb").read()).hexdigest()
        if name in locked and locked[name][2] != sha:
            os.remove(path)
            sys.exit(f"{name}: sha256 {sha} does not match the lock's {locked[name][2]}")
        rows.append(f"{name} {version} {fname} {sha}")
        print(f"{name} {version}", file=sys.stderr)
    if lock_path and not locked:
        write_lock(lock_path, rows, "fetch_npm.py")


if __name__ == "__main__":
    main(sys.argv)
