#!/usr/bin/env python3
"""The veto's gate for `view_cnn.py` scores (session 35, training/README.md).

    view_gate.py VIEWS_DIR VETO_OFF_CALIB.scores VETO_OFF_HELDIN.scores VETO_OFF_HELDOUT.jsonl SCORES.jsonl... [--alone]

VIEWS_DIR holds the uncompressed views (`calib-hijack.jsonl`,
`calib-pkg.jsonl`, `heldout.jsonl`, `heldout-hijack-in.jsonl`). A hijack
counts for calibration when its payload adds a line to the view (its view
has more added lines than its carrier's) and the main model and rules allow
it (`canary --config VETO-OFF.toml eval --scores`: decision `allow`). The
candidate's harmless-below is the 5th lowest such score (k = 4, session
13's rule); a package or hijack is allowed when the main model and rules
allow it (VETO_OFF_HELDOUT.jsonl: `canary --config VETO-OFF.toml scan
--format jsonl` of the held-out sdists) and the candidate scores it below
that. With --alone the candidate is the only gate: every such hijack
calibrates and every package counts. Standard library only.
"""
import json
import os
import sys


def plus(view):
    return sum(1 for l in view.split("\n") if l.startswith("+") and not l.startswith("+++"))


def rows(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def main():
    args = [a for a in sys.argv[1:] if a != "--alone"]
    # --alone: the candidate as the only gate (every hijack whose payload
    # is in the view calibrates; every package counts).
    alone = len(args) < len(sys.argv) - 1
    views, calib_main, heldin_main, heldout_off = args[:4]
    carrier = {}
    for f in ("calib-pkg.jsonl", "heldout.jsonl"):
        carrier.update({r["id"]: plus(r["view"]) for r in rows(os.path.join(views, f))})
    visible = set()
    for f in ("calib-hijack.jsonl", "heldout-hijack-in.jsonl"):
        for r in rows(os.path.join(views, f)):
            if plus(r["view"]) > carrier[r["id"].split("+")[0]]:
                visible.add((r["set"], r["id"]))
    cal = {r["id"]: alone or r["decision"] == "allow" for r in rows(calib_main)}
    hin = {r["id"]: alone or r["decision"] == "allow" for r in rows(heldin_main)}
    off = {
        os.path.basename(r["input"]["source"]): alone or r["decision"] == "allow"
        for r in rows(heldout_off)
    }
    print("packages counted:" if alone else "main model and rules allow:", " ".join(sorted(k for k, v in off.items() if v)))
    for f in args[4:]:
        by = {(r["set"], r["id"]): r["score"] for r in rows(f)}
        passed = sorted(
            by[("calib-hijack", i)] for i, ok in cal.items() if ok and ("calib-hijack", i) in visible
        )
        t = passed[4]
        ho = sorted(k for k, ok in off.items() if ok and by[("heldout", k)] < t)
        ca = sum(1 for i, ok in cal.items() if ok and by[("calib-hijack", i)] < t)
        hh = [i for i, ok in hin.items() if ok and by[("heldout-hijack-in", i)] < t]
        hv = sum(("heldout-hijack-in", i) in visible for i in hh)
        print(
            f"{os.path.basename(f)}: {len(passed)} calibration hijacks, harmless-below {t:.2g}; "
            f"held-out allowed {len(ho)} ({' '.join(ho)}); calibration hijacks allowed {ca}; "
            f"held-out in-file hijacks allowed {len(hh)} ({hv} with the payload in the view)"
        )


if __name__ == "__main__":
    main()
