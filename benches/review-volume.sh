#!/usr/bin/env bash
# Detector calls and bytes each package needs, counted by a stand-in detector
# on loopback (benches/count_detector.py, which answers harmless to
# everything: this measures volume, not verdicts).
#
#   benches/review-volume.sh CANARY CONFIG PACKAGE...
#
# CONFIG names one openai detector at http://127.0.0.1:18555/v1. Prints one
# tab-separated row per package: name, reason, review bytes (from the
# report), withheld or -, the server's {"calls", "bytes"}.
set -euo pipefail
canary=$1; config=$2; shift 2
here=$(dirname "$0")
python3 "$here/count_detector.py" 18555 & server=$!
trap 'kill $server' EXIT
sleep 1
for f in "$@"; do
  curl -s 127.0.0.1:18555/reset > /dev/null
  row=$("$canary" --config "$config" scan --local-only --no-cache --format json "$f" 2>/dev/null \
    | python3 -c 'import json,sys; r=json.load(sys.stdin); p=r["policies"][0]; v=p.get("review") or {}; print(r["reason"], v.get("bytes","-"), "withheld" if v.get("withheld") else "-", sep="\t")' || true)
  printf '%s\t%s\t%s\n' "$(basename "$f")" "$row" "$(curl -s 127.0.0.1:18555/)"
done
