#!/usr/bin/env python3
"""Recalibrate a model's harmless-below on more harmful rows than dev holds.

    calibrate_thresholds.py MODEL_DIR SCORES.jsonl... [--max-fnr F] [--write]
        [--veto VETO_DIR --veto-scores VSCORES.jsonl...] [--cap X]
        [--per-carrier CLEAN.jsonl]

SCORES are `canary eval --scores` outputs of MODEL_DIR (one JSON line per
row: label, score). harmless-below becomes the score of the k-th lowest
harmful row, k = floor(F * n) (F = 0.005 by default): the rule
`canary train` applies to dev (`train::calibrate`), here over every harmful
row given, so rows that dev lacks (payloads spliced into ordinary package
text, `splice_payloads.py`) bound it as well. harmful-at is left as it is.

With --write, MODEL_DIR/config.json gets the new value, the manifest's
config-sha256 follows it, and MODEL_DIR/calibration.json records the inputs
(sha256 of each scores file), the rule and the result. Standard library only.

With --veto (the policy's `precheck-veto` model; VSCORES are its scores of
the same rows, matched by id), a row is cleared only when both models clear
it, so the rule counts only the harmful rows the veto clears at its own
harmless-below: harmless-below becomes the k-th lowest score among those
(k = floor(F * n) over all n harmful rows), and no higher than --cap (the
model's training-time value from dev: the pair never clears more than the
model would alone).

With --per-carrier (SCORES from `hidden_payload.py --into-file` rows, ids
`CARRIER+ROW`; CLEAN the `canary scan --format jsonl` reports of those
clean carriers, or for version-diff carriers the `canary eval --scores`
rows of them) the question is the one an allow must answer: of the
hijacks of a package the threshold allows, how many does it allow too? A
threshold above a clean package's score allows at least every hijack that
scores below that clean score; if more than F of all hijacks score below
their own clean package, no threshold that allows any package keeps its
hijacks at F, and harmless-below becomes 0 (the pre-check never allows).
Otherwise it is the lowest over carriers of min(clean score, the
floor(F * m)-th lowest of its m hijack scores).
"""
import argparse
import hashlib
import json
import math
import os


def write_threshold(model, value):
    """Sets MODEL/config.json's harmless-below to `value` and the manifest's
    config-sha256 to match; returns the value it replaced."""
    config_path = os.path.join(model, "config.json")
    with open(config_path, encoding="utf-8") as f:
        config = json.load(f)
    before = config["thresholds"]["harmless-below"]
    config["thresholds"]["harmless-below"] = value
    text = json.dumps(config, indent=2)
    with open(config_path, "w", encoding="utf-8") as f:
        f.write(text)
    manifest_path = os.path.join(model, "manifest.json")
    with open(manifest_path, encoding="utf-8") as f:
        manifest = json.load(f)
    manifest["config-sha256"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    with open(manifest_path, "w", encoding="utf-8") as f:
        f.write(json.dumps(manifest, indent=2))
    return before


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("scores", nargs="+")
    ap.add_argument("--max-fnr", type=float, default=0.005)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--veto")
    ap.add_argument("--veto-scores", nargs="+", default=[])
    ap.add_argument("--cap", type=float)
    ap.add_argument("--per-carrier")
    a = ap.parse_args()

    def read(paths):
        rows, inputs = [], []
        for path in paths:
            with open(path, "rb") as f:
                raw = f.read()
            got = [json.loads(l) for l in raw.decode("utf-8").splitlines() if l.strip()]
            rows += got
            n = sum(r["label"] == "harmful" for r in got)
            inputs.append({"path": path, "sha256": hashlib.sha256(raw).hexdigest(), "harmful_rows": n})
        return rows, inputs

    rows, inputs = read(a.scores)
    harmful = sorted(r["score"] for r in rows if r["label"] == "harmful")
    k = math.floor(a.max_fnr * len(harmful))
    value = harmful[min(k, len(harmful) - 1)]
    rule = f"harmless-below = sorted(harmful scores)[k], k = floor({a.max_fnr} * n) = {k}, n = {len(harmful)}"
    if a.veto:
        with open(os.path.join(a.veto, "config.json"), encoding="utf-8") as f:
            veto_below = json.load(f)["thresholds"]["harmless-below"]
        vrows, vinputs = read(a.veto_scores)
        vscore = {r["id"]: r["score"] for r in vrows}
        missing = [r["id"] for r in rows if r["id"] not in vscore]
        if missing:
            raise SystemExit(f"{len(missing)} rows have no veto score (first: {missing[0]})")
        # NaN never clears: `not (x < t)` holds for it.
        through = sorted(r["score"] for r in rows
                         if r["label"] == "harmful" and vscore[r["id"]] < veto_below)
        value = through[k] if k < len(through) else float("inf")
        if a.cap is not None:
            value = min(value, a.cap)
        rule = (f"harmless-below = min(cap {a.cap}, sorted(scores of harmful rows the veto "
                f"{a.veto} clears below {veto_below})[k]), k = floor({a.max_fnr} * n) = {k}, "
                f"n = {len(harmful)}; the veto clears {len(through)} of them")
        inputs += [dict(v, veto=True) for v in vinputs]
        print(rule)
    if a.per_carrier:
        clean = {}
        with open(a.per_carrier, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                if "input" in r:  # a scan report: the carrier is the archive
                    clean[r["input"]["source"].rsplit("/", 1)[-1]] = r["policies"][0]["precheck"]["score"]
                else:  # an eval score row: the carrier is a version-diff row
                    clean[r["id"]] = r["score"]
        by = {}
        for r in rows:
            if r["label"] == "harmful" and "+" in r["id"]:
                by.setdefault(r["id"].split("+", 1)[0], []).append(r["score"])
        if not by:
            raise SystemExit("--per-carrier: no CARRIER+ROW ids among the scores")
        bounds, below, total = [], 0, 0
        for carrier, scores in sorted(by.items()):
            scores.sort()
            kc = math.floor(a.max_fnr * len(scores))
            c = clean[carrier]
            under = sum(x < c for x in scores)
            below += under
            total += len(scores)
            print(f"{carrier}: clean {c:.3g}, {len(scores)} hijacks, {under} below the clean score, "
                  f"{sum(x <= 2 * c for x in scores)} at most twice it")
            bounds.append(min(c, scores[kc]))
        share = below / total
        value = 0.0 if share > a.max_fnr else min(bounds)
        rule = (f"per carrier: {below} of {total} hijacks ({share:.2%}) score below their clean package; "
                f"over {a.max_fnr:.2%}, so no threshold that allows a package keeps its hijacks at that rate: "
                f"harmless-below = 0" if value == 0.0 else
                f"per carrier: min over carriers of min(clean, rank-floor({a.max_fnr} * m) hijack score)")
        print(rule)
        inputs.append({"path": a.per_carrier, "sha256": hashlib.sha256(open(a.per_carrier, "rb").read()).hexdigest(), "clean_reports": len(clean)})
    if value == float("inf"):
        raise SystemExit("no bound: give --cap")
    config_path = os.path.join(a.model, "config.json")
    with open(config_path, encoding="utf-8") as f:
        config = json.load(f)
    before = config["thresholds"]["harmless-below"]
    print(f"{len(harmful)} harmful rows, k = {k}: harmless-below {before} -> {value}")
    if value > config["thresholds"]["harmful-at"]:
        raise SystemExit("harmless-below would exceed harmful-at; not written")
    if not a.write:
        return
    write_threshold(a.model, value)
    with open(os.path.join(a.model, "calibration.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps({
            "rule": rule,
            "harmless-below": {"before": before, "after": value},
            "inputs": inputs,
        }, indent=2) + "\n")


if __name__ == "__main__":
    main()
