#!/usr/bin/env python3
"""Harmful rows whose payload is hidden inside ordinary package text.

    splice_payloads.py HARMFUL.jsonl WINDOWS.jsonl OUT.jsonl --part train|calib|all
                       [--per-row K] [--seed S] [--windows-out FILE]
                       [--target-len MIN:MAX] [--into-file]

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
the ordinary text around it grows. `--into-file` patches the payload's
added `.py` lines into the middle of one of the window's `.py` sections
instead (a hijacked module rather than an added file; `--target-len` does
not apply).

The harmful texts are real malware source: this only copies them as text
between JSONL files under /tmp. Nothing here executes, imports or installs
them, and none of it is written into the project. Standard library only;
deterministic for a given seed.
"""
import argparse
import hashlib
import json
import random
import re


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


def payload_lines(text):
    """The added lines of a rendered sample's .py sections, else all of them."""
    py, every, in_py = [], [], False
    for line in text.splitlines(keepends=True):
        if line.startswith("+++ "):
            in_py = line.rstrip("\n").endswith(".py")
        elif line.startswith("+"):
            every.append(line)
            if in_py:
                py.append(line)
    return py or every


def splice_into_section(text, payload, pick):
    """`text` with the `payload` lines in the middle of the body of one of its
    `.py` file sections of at least 24 lines (the one `pick` chooses from
    their (start, end, lines)), that section's hunk header counting them;
    None when it has no such section."""
    starts = boundaries(text) + [len(text)]
    spans = []
    for a, b in zip(starts, starts[1:]):
        lines = text[a:b].splitlines(keepends=True)
        if len(lines) >= 24 and lines[0].startswith("--- ") and lines[1].rstrip("\n").endswith(".py"):
            spans.append((a, b, lines))
    if not spans:
        return None
    a, b, lines = pick(spans)
    body = 3 + (len(lines) - 3) // 2
    lines = lines[:body] + payload + lines[body:]
    lines[2] = re.sub(
        r"\+(\d+),(\d+) @@",
        lambda m: f"+{m.group(1)},{int(m.group(2)) + len(payload)} @@",
        lines[2],
        count=1,
    )
    return text[:a] + "".join(lines) + text[b:]


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
    ap.add_argument("--into-file", action="store_true")
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
                if a.into_file:
                    # A window with a .py section to patch (most have one).
                    for _ in range(100):
                        c = rng.choice(carriers)
                        text = splice_into_section(c["text"], payload_lines(payload), rng.choice)
                        if text is not None:
                            break
                    else:
                        raise SystemExit("no carrier window has a .py section of 24 lines")
                else:
                    c = rng.choice(carriers)
                    carrier = c["text"]
                    if a.target_len:
                        lo, hi = (int(x) for x in a.target_len.split(":"))
                        room = rng.randint(lo, hi) - len(payload.encode("utf-8"))
                        carrier = trim(carrier, max(room, 0))
                    at = rng.choice(boundaries(carrier))
                    text = carrier[:at] + payload + carrier[at:]
                key = f"{row['id']}|{c['id']}|{k}" + ("|into-file" if a.into_file else "")
                rid = hashlib.sha256(key.encode()).hexdigest()[:16]
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
