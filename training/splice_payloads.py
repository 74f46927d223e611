#!/usr/bin/env python3
"""Harmful rows whose payload is hidden inside ordinary package text.

    splice_payloads.py HARMFUL.jsonl WINDOWS.jsonl OUT.jsonl --part train|calib|all
                       [--per-row K] [--seed S] [--windows-out FILE]
                       [--target-len MIN:MAX]

The corpus's harmful samples are whole small packages, and a model trained
on them alone learns "small package = malware": a real sample inserted into
the middle of an ordinary 60 KB package scored below `harmless-below` 40 %
of the time (session 11, `hidden_payload.py`). This writes harmful rows that
look like the deployment case instead: each harmful row of HARMFUL.jsonl,
K times (default 1), inserted at a file-section boundary of a harmless
64 KB window of a popular sdist (WINDOWS.jsonl, from `sdist_windows.py`).

The windows' packages are split by a hash of the package name: one in eight
is `calib`, the rest `train`. `--part train` uses the train packages as
carriers; `--part calib` the calib ones, for calibration rows spliced from
the dev split, so calibration never sees a carrier that training saw.
`--part all` takes every window (carriers from a list of their own, such as
`benign-sdists-calib.txt`). `--windows-out` writes the part's windows
unchanged (the harmless rows to train on, without the calib packages).
`--target-len MIN:MAX` trims each carrier at a line boundary so that the row
is about a length drawn from that range (the payload is never cut): rows of
one slice whose length is known, to see how the score of a payload falls as
the ordinary text around it grows.

The harmful texts are real malware source: this only copies them as text
between JSONL files under /tmp. Nothing here executes, imports or installs
them, and none of it is written into the project. Standard library only;
deterministic for a given seed.
"""
import argparse
import hashlib
import json
import random


def part_of(package):
    return "calib" if hashlib.sha256(package.encode()).digest()[0] % 8 == 0 else "train"


def trim(text, size):
    """The first `size` bytes of `text` or less, cut after a line."""
    data = text.encode("utf-8")
    if len(data) <= size:
        return text
    cut = data.rfind(b"\n", 0, size)
    return data[: cut + 1].decode("utf-8", "ignore") if cut >= 0 else ""


def boundaries(text):
    """Offsets where a file section starts, else line starts."""
    starts, lines, pos = [], [], 0
    for line in text.splitlines(keepends=True):
        if line.startswith("--- ") or line.startswith("Binary file"):
            starts.append(pos)
        lines.append(pos)
        pos += len(line)
    return starts or lines or [0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("harmful")
    ap.add_argument("windows")
    ap.add_argument("out")
    ap.add_argument("--part", choices=["train", "calib", "all"], required=True)
    ap.add_argument("--target-len")
    ap.add_argument("--per-row", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--windows-out")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    carriers = []
    with open(a.windows, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if a.part == "all" or part_of(row["package"]) == a.part:
                carriers.append(row)
    if not carriers:
        raise SystemExit(f"no {a.part} windows in {a.windows}")
    if a.windows_out:
        with open(a.windows_out, "w", encoding="utf-8") as f:
            for row in carriers:
                f.write(json.dumps(row) + "\n")
    n = 0
    with open(a.harmful, encoding="utf-8") as f, open(a.out, "w", encoding="utf-8") as o:
        for line in f:
            row = json.loads(line)
            if row["label"] != "harmful":
                continue
            payload = row["text"] if row["text"].endswith("\n") else row["text"] + "\n"
            for k in range(a.per_row):
                c = rng.choice(carriers)
                carrier = c["text"]
                if a.target_len:
                    lo, hi = (int(x) for x in a.target_len.split(":"))
                    room = rng.randint(lo, hi) - len(payload.encode("utf-8"))
                    carrier = trim(carrier, max(room, 0))
                at = rng.choice(boundaries(carrier))
                text = carrier[:at] + payload + carrier[at:]
                rid = hashlib.sha256(f"{row['id']}|{c['id']}|{k}".encode()).hexdigest()[:16]
                o.write(json.dumps({
                    "id": f"splice-{rid}", "policy": "malicious-package", "label": "harmful",
                    "ecosystem": "pypi", "package": row.get("package"),
                    "base_version": row.get("base_version"),
                    "source": "spliced-malware",
                    "text": text,
                }) + "\n")
                n += 1
    print(f"wrote {n} rows ({len(carriers)} {a.part} carrier windows)")


if __name__ == "__main__":
    main()
