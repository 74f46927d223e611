#!/usr/bin/env python3
"""Render benign sdists with `canary render` and cut them into training rows.

Usage:
  sdist_windows.py CANARY_BIN LOCKFILE SDIST_DIR OUT.jsonl [--per-package K] [--skip-install-windows]
                   [--hardest H --model MODEL_DIR]

Each package is rendered exactly as `canary scan` renders it (everything
added, no 64 KB cap), then cut at file-section or line boundaries into
windows of at most 64 KB (the malicious-package model's slice length). Up to
K windows per package (default 12), evenly spaced through the text, become
rows labelled harmless with source `popular-sdist`, so the model sees the
middle and end of large real packages (tests, data tables, changelogs), not
only their first 64 KB. With --skip-install-windows, windows that hold an
install-relevant file (setup.py, setup.cfg, pyproject.toml, package.json, a
top-level *install* script) are left out, so "benign" is never taught on the
files where install-time malware lives. With --hardest H, the H windows of
each package that MODEL_DIR scores highest are added as well (hard
negatives: the slices a whole-package scan would block on). Standard
library only; deterministic for a given model.
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


def score(canary, model, texts):
    """Pre-check scores of texts under MODEL_DIR, via `canary scan --batch`."""
    if not texts:
        return []
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        batch, cfg = os.path.join(tmp, "b.jsonl"), os.path.join(tmp, "c.toml")
        with open(batch, "w") as f:
            for i, t in enumerate(texts):
                f.write(json.dumps({"id": str(i), "text": t}) + "\n")
        with open(cfg, "w") as f:
            f.write(f"[precheck.models]\nmalicious-package = {json.dumps(os.path.abspath(model))}\n")
        r = subprocess.run([canary, "--config", cfg, "scan", "--local-only", "--no-cache", "--quiet",
                            "--policy", "malicious-package", "--format", "jsonl", "--batch", batch],
                           capture_output=True, text=True)
    out = [1.0] * len(texts)
    for line in r.stdout.splitlines():
        rep = json.loads(line)
        pol = rep["policies"]
        out[int(rep["input"]["id"])] = pol[0]["precheck"]["score"] if pol else 1.0
    return out


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    canary, lock, sdir, out_path = sys.argv[1:5]
    rest = sys.argv[5:]
    k = int(rest[rest.index("--per-package") + 1]) if "--per-package" in rest else 12
    skip_install = "--skip-install-windows" in rest
    hardest = int(rest[rest.index("--hardest") + 1]) if "--hardest" in rest else 0
    model = rest[rest.index("--model") + 1] if "--model" in rest else None
    if hardest and not model:
        sys.exit("--hardest needs --model MODEL_DIR")
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
            all_ws = windows(r.stdout.decode("utf-8", "replace"))
            picked = list(range(len(all_ws)))
            if len(all_ws) > k:
                step = len(all_ws) / k
                picked = [int(i * step) for i in range(k)]
            if hardest:
                candidates = [i for i in range(len(all_ws))
                              if not (skip_install and INSTALL_FILE.search(all_ws[i]))]
                scores = score(canary, model, [all_ws[i] for i in candidates])
                ranked = sorted(zip(scores, candidates), key=lambda x: (-x[0], x[1]))
                picked = sorted(set(picked) | {i for _, i in ranked[:hardest]})
            for i in picked:
                w = all_ws[i]
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
