#!/usr/bin/env python3
"""Calibrate the main model + capability veto pair on hijacked packages.

    calibrate_capability_veto.py MAIN_DIR VETO_DIR MAIN.scores VETO.scores PAYLOADS.scores
        [--main-below X] [--max-fnr F] [--write]

MAIN.scores and VETO.scores are `canary eval --scores` rows of the same
`hidden_payload.py --into-file` hijacks (ids CARRIER+ROW) by the main model
and by the capability-view model (vetoes off for both). PAYLOADS.scores
are the capability model's scores of each payload on its own
(`payload_rows.py`): exactly 0 when the payload holds no capability line.

An allow needs both models to clear. The main model keeps its threshold
(--main-below, default its training-time value from metrics.json). A
payload without a capability line is outside what a capability veto can
see, so the rule counts the other hijacks, n of them: the veto's
harmless-below becomes the (k+1)-th lowest veto score among those the main
model clears, k = floor(F * n) (F = 0.005), so at most k of the n are
cleared by both. The payloads without a capability line, and how many of
their hijacks the pair clears, are printed and recorded; they are not
hidden in the rule. With --write both config.json files, their manifests'
config-sha256 and VETO_DIR/calibration.json are updated. Standard library
only.
"""
import argparse
import hashlib
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from calibrate_thresholds import write_threshold  # noqa: E402


def load(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            out[r["id"]] = r["score"]
    return out


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("main_model")
    ap.add_argument("veto_model")
    ap.add_argument("main_scores")
    ap.add_argument("veto_scores")
    ap.add_argument("payload_scores")
    ap.add_argument("--main-below", type=float)
    ap.add_argument("--max-fnr", type=float, default=0.005)
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()

    main_s, veto_s, pay = load(a.main_scores), load(a.veto_scores), load(a.payload_scores)
    if a.main_below is None:
        with open(os.path.join(a.main_model, "metrics.json"), encoding="utf-8") as f:
            a.main_below = json.load(f)["dev"]["harmless_below"]
    blind = sorted(i for i, s in pay.items() if s == 0.0)
    ids = sorted(main_s)
    if set(ids) != set(veto_s):
        raise SystemExit("the two score files hold different rows")
    seen = [i for i in ids if i.split("+", 1)[1] not in blind]
    n = len(seen)
    k = math.floor(a.max_fnr * n)
    cleared_by_main = sorted(veto_s[i] for i in seen if main_s[i] < a.main_below)
    if len(cleared_by_main) <= k:
        raise SystemExit("the main model clears too few hijacks to bound the veto; give a higher --main-below")
    value = cleared_by_main[k]
    both = [i for i in ids if main_s[i] < a.main_below and veto_s[i] < value]
    blind_both = [i for i in both if i.split("+", 1)[1] in blind]
    rule = (f"main harmless-below {a.main_below}; veto harmless-below = the {k + 1}-th lowest veto score "
            f"among the {len(cleared_by_main)} of {n} hijacks with a capability line in their payload "
            f"that the main model clears (k = floor({a.max_fnr} * {n}))")
    print(rule)
    print(f"veto harmless-below {value}: both clear {len(both) - len(blind_both)} of {n} hijacks whose "
          f"payload has a capability line, and {len(blind_both)} of {len(ids) - n} whose payload has none "
          f"({len(blind)} payloads: {', '.join(blind)})")
    if not a.write:
        return
    main_before = write_threshold(a.main_model, a.main_below)
    veto_before = write_threshold(a.veto_model, value)
    record = {
        "rule": rule,
        "main-harmless-below": {"before": main_before, "after": a.main_below},
        "veto-harmless-below": {"before": veto_before, "after": value},
        "cleared": {
            "with-capability": [len(both) - len(blind_both), n],
            "without-capability": [len(blind_both), len(ids) - n],
            "payloads-without-capability": blind,
        },
        "inputs": [{"path": p, "sha256": sha(p)} for p in (a.main_scores, a.veto_scores, a.payload_scores)],
    }
    with open(os.path.join(a.veto_model, "calibration.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
