#!/usr/bin/env python3
"""Each harmful row's payload on its own, as `hidden_payload.py --into-file`
splices it (its added `.py` lines, else all its added lines), in one `.py`
file section: score them with the capability-view model to learn which
payloads hold no capability line (they score exactly 0).

    payload_rows.py DATA.jsonl OUT.jsonl
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from splice_payloads import payload_lines  # noqa: E402


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as out:
        for line in f:
            r = json.loads(line)
            if r["label"] != "harmful":
                continue
            lines = payload_lines(r["text"])
            text = f"--- /dev/null\n+++ b/payload.py\n@@ -0,0 +1,{len(lines)} @@\n" + "".join(lines)
            out.write(json.dumps({"id": r["id"], "policy": r["policy"], "label": "harmful", "text": text}) + "\n")


if __name__ == "__main__":
    main()
