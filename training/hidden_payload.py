#!/usr/bin/env python3
"""Rows for measuring recall on a payload hidden inside a large package.

    hidden_payload.py CANARY DEV.jsonl OUT.jsonl CARRIER... [--into-file]

A CARRIER that ends in `.jsonl` stands for its harmless version-diff rows
(already rendered; with --into-file, those without a `.py` section of 24
lines are skipped): a hijack seen as a version diff.

Dev samples are whole small packages (at most 64 KB), so dev metrics never
show what the pre-check does with a payload buried in a large, ordinary
package: the issue's "payload in the 200th file". This script renders each
CARRIER (a package archive Canary allows on its own) with `canary render`,
and for every harmful row of DEV writes one row whose text is the carrier's
rendered text with the harmful row's text inserted at the file-section
boundary nearest the middle. Score the rows with

    canary eval --policy malicious-package --data OUT.jsonl --scores S.jsonl

and count how many still score at or above `harmless-below` (blocked).

With --into-file the payload is not a file of its own but code spliced into
an existing one, as a hijacked release might patch a module: the added (`+`)
lines of the harmful row's `.py` sections (all its added lines if it has
none) go into the middle of the carrier's `.py` section (of at least 20
lines) that starts nearest the middle of the text, and that section's hunk
header counts them.

The harmful texts are real malware source: this script only copies them as
text from one JSONL file into another under /tmp. It never writes them into
the project, and nothing here executes, imports or installs them.
"""

import json
import subprocess
import sys

from splice_payloads import boundaries, payload_lines, splice_into_section


def splice_into_file(text, payload):
    """Carrier text with `payload` lines inside its .py section nearest the middle."""
    return splice_into_section(text, payload, lambda spans: min(
        spans, key=lambda sp: abs(sp[0] - len(text) // 2)))


def main():
    args = [a for a in sys.argv[1:] if a != "--into-file"]
    into_file = len(args) != len(sys.argv) - 1
    if len(args) < 4:
        sys.exit(__doc__)
    canary, dev, out = args[:3]
    carriers = args[3:]
    harmful = []
    with open(dev, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["label"] == "harmful":
                harmful.append(row)
    # (name, rendered text) of each carrier: an archive is rendered; a
    # JSONL file gives its harmless version-diff rows, already rendered.
    texts = []
    for carrier in carriers:
        if carrier.endswith(".jsonl"):
            with open(carrier, encoding="utf-8") as f:
                for line in f:
                    row = json.loads(line)
                    if row["label"] == "harmless" and row.get("base_version"):
                        texts.append((row["id"], row["text"], True))
            continue
        text = subprocess.run(
            [canary, "render", carrier], check=True, capture_output=True
        ).stdout.decode("utf-8")
        texts.append((carrier.rsplit("/", 1)[-1], text, False))
    n = 0
    with open(out, "w", encoding="utf-8") as o:
        for name, text, is_row in texts:
            starts = boundaries(text)
            middle = min(starts, key=lambda s: abs(s - len(text) // 2))
            if into_file and is_row and splice_into_file(text, ["+\n"]) is None:
                print(f"{name}: no .py section of 24 lines or more; skipped", file=sys.stderr)
                continue
            for row in harmful:
                payload = row["text"]
                if not payload.endswith("\n"):
                    payload += "\n"
                if into_file:
                    spliced = splice_into_file(text, payload_lines(payload))
                    if spliced is None:
                        sys.exit(f"{name}: no .py section of 24 lines or more to splice into")
                else:
                    spliced = text[:middle] + payload + text[middle:]
                o.write(
                    json.dumps(
                        {
                            "id": f"{name}+{row['id']}",
                            "policy": "malicious-package",
                            "label": "harmful",
                            "text": spliced,
                        }
                    )
                    + "\n"
                )
                n += 1
            where = "in the .py section nearest byte" if into_file else "at byte"
            print(f"{name}: {len(text)} bytes, payload {where} {middle}", file=sys.stderr)
    print(f"{n} rows", file=sys.stderr)


if __name__ == "__main__":
    main()
