#!/usr/bin/env python3
"""Render benign sdists with `canary render` and cut them into training rows.

Usage:
  sdist_windows.py CANARY_BIN LOCKFILE SDIST_DIR OUT.jsonl [--per-package K] [--skip-install-windows]

Each package is rendered exactly as `canary scan` renders it (everything
added, no 64 KB cap), then cut at file-section or line boundaries into
windows of at most 64 KB (the malicious-package model's slice length). Up to
K windows per package (default 12), evenly spaced through the text, become
rows labelled harmless with source `popular-sdist`, so the model sees the
middle and end of large real packages (tests, data tables, changelogs), not
only their first 64 KB. With --skip-install-windows, windows that hold an
install-relevant file (setup.py, setup.cfg, pyproject.toml, package.json, a
top-level *install* script) are left out, so "benign" is never taught on the
files where install-time malware lives. Standard library only; deterministic.
"""
import hashlib
import json
import os
import re
import subprocess
import sys

WINDOW = 64 * 1024
INSTALL_FILE = re.compile(
    r"^\+\+\+ b/(setup\.py|setup\.cfg|pyproject\.toml|package\.json|[^/\n]*install[^/\n]*)$", re.M
)


def windows(text):
    data = text.encode("utf-8")
    out, start = [], 0
    while start < len(data):
        end = min(start + WINDOW, len(data))
        if end < len(data):
            cut = data.rfind(b"\ndiff --git ", start + WINDOW // 2, end)
            if cut < 0:
                cut = data.rfind(b"\n", start + 1, end)
            if cut > start:
                end = cut + 1
        out.append(data[start:end].decode("utf-8", "replace"))
        start = end
    return out


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    canary, lock, sdir, out_path = sys.argv[1:5]
    rest = sys.argv[5:]
    k = int(rest[rest.index("--per-package") + 1]) if "--per-package" in rest else 12
    skip_install = "--skip-install-windows" in rest
    rows = 0
    with open(out_path, "w") as out:
        for line in open(lock):
            if not line.strip() or line.startswith("#"):
                continue
            name, version, filename, sha = line.split()
            path = os.path.join(sdir, filename)
            r = subprocess.run([canary, "render", path], capture_output=True)
            if r.returncode != 0:
                print(f"skip {filename}: {r.stderr.decode(errors='replace').strip()}", file=sys.stderr)
                continue
            ws = windows(r.stdout.decode("utf-8", "replace"))
            if len(ws) > k:
                step = len(ws) / k
                ws = [ws[int(i * step)] for i in range(k)]
            for i, w in enumerate(ws):
                if skip_install and INSTALL_FILE.search(w):
                    continue
                rid = hashlib.sha256(f"{sha}|{i}".encode()).hexdigest()[:16]
                out.write(json.dumps({
                    "id": f"sdist-{rid}", "policy": "malicious-package", "label": "harmless",
                    "ecosystem": "pypi", "package": name, "version": version,
                    "base_version": None, "source": "popular-sdist", "text": w,
                }) + "\n")
                rows += 1
    print(f"wrote {rows} rows to {out_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
