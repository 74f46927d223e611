#!/usr/bin/env python3
"""Rows for measuring recall on a payload hidden inside a large package.

    hidden_payload.py CANARY DEV.jsonl OUT.jsonl CARRIER...

Dev samples are whole small packages (at most 64 KB), so dev metrics never
show what the pre-check does with a payload buried in a large, ordinary
package: the issue's "payload in the 200th file". This script renders each
CARRIER (a package archive Canary allows on its own) with `canary render`,
and for every harmful row of DEV writes one row whose text is the carrier's
rendered text with the harmful row's text inserted at the file-section
boundary nearest the middle. Score the rows with

    canary eval --policy malicious-package --data OUT.jsonl --scores S.jsonl

and count how many still score at or above `harmless-below` (blocked).

The harmful texts are real malware source: this script only copies them as
text from one JSONL file into another under /tmp. It never writes them into
the project, and nothing here executes, imports or installs them.
"""

import json
import subprocess
import sys

from splice_payloads import boundaries


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    canary, dev, out = sys.argv[1:4]
    carriers = sys.argv[4:]
    harmful = []
    with open(dev, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["label"] == "harmful":
                harmful.append(row)
    n = 0
    with open(out, "w", encoding="utf-8") as o:
        for carrier in carriers:
            text = subprocess.run(
                [canary, "render", carrier], check=True, capture_output=True
            ).stdout.decode("utf-8")
            starts = boundaries(text)
            middle = min(starts, key=lambda s: abs(s - len(text) // 2))
            name = carrier.rsplit("/", 1)[-1]
            for row in harmful:
                payload = row["text"]
                if not payload.endswith("\n"):
                    payload += "\n"
                o.write(
                    json.dumps(
                        {
                            "id": f"{name}+{row['id']}",
                            "policy": "malicious-package",
                            "label": "harmful",
                            "text": text[:middle] + payload + text[middle:],
                        }
                    )
                    + "\n"
                )
                n += 1
            print(f"{name}: {len(text)} bytes, payload at byte {middle}", file=sys.stderr)
    print(f"{n} rows", file=sys.stderr)


if __name__ == "__main__":
    main()
