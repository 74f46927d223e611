#!/usr/bin/env python3
"""Recalibrate a model's harmless-below on more harmful rows than dev holds.

    calibrate_thresholds.py MODEL_DIR SCORES.jsonl... [--max-fnr F] [--write]

SCORES are `canary eval --scores` outputs of MODEL_DIR (one JSON line per
row: label, score). harmless-below becomes the score of the k-th lowest
harmful row, k = floor(F * n) (F = 0.005 by default): the rule
`canary train` applies to dev (`train::calibrate`), here over every harmful
row given, so rows that dev lacks (payloads spliced into ordinary package
text, `splice_payloads.py`) bound it as well. harmful-at is left as it is.

With --write, MODEL_DIR/config.json gets the new value, the manifest's
config-sha256 follows it, and MODEL_DIR/calibration.json records the inputs
(sha256 of each scores file), the rule and the result. Standard library only.
"""
import argparse
import hashlib
import json
import math
import os


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("scores", nargs="+")
    ap.add_argument("--max-fnr", type=float, default=0.005)
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    harmful, inputs = [], []
    for path in a.scores:
        with open(path, "rb") as f:
            raw = f.read()
        rows = [json.loads(l) for l in raw.decode("utf-8").splitlines() if l.strip()]
        scores = [r["score"] for r in rows if r["label"] == "harmful"]
        harmful += scores
        inputs.append({"path": path, "sha256": hashlib.sha256(raw).hexdigest(), "harmful_rows": len(scores)})
    harmful.sort()
    k = math.floor(a.max_fnr * len(harmful))
    value = harmful[min(k, len(harmful) - 1)]
    config_path = os.path.join(a.model, "config.json")
    with open(config_path, encoding="utf-8") as f:
        config = json.load(f)
    before = config["thresholds"]["harmless-below"]
    print(f"{len(harmful)} harmful rows, k = {k}: harmless-below {before} -> {value}")
    if value > config["thresholds"]["harmful-at"]:
        raise SystemExit("harmless-below would exceed harmful-at; not written")
    if not a.write:
        return
    config["thresholds"]["harmless-below"] = value
    text = json.dumps(config, indent=2)
    with open(config_path, "w", encoding="utf-8") as f:
        f.write(text)
    manifest_path = os.path.join(a.model, "manifest.json")
    with open(manifest_path, encoding="utf-8") as f:
        manifest = json.load(f)
    manifest["config-sha256"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    with open(manifest_path, "w", encoding="utf-8") as f:
        f.write(json.dumps(manifest, indent=2))
    with open(os.path.join(a.model, "calibration.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps({
            "rule": f"harmless-below = sorted(harmful scores)[k], k = floor({a.max_fnr} * n) = {k}, n = {len(harmful)}",
            "harmless-below": {"before": before, "after": value},
            "inputs": inputs,
        }, indent=2) + "\n")


if __name__ == "__main__":
    main()
