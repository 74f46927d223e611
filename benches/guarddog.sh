#!/usr/bin/env bash
# Side-by-side comparison of Canary and GuardDog on the same package files.
#
#   benches/guarddog.sh GUARDDOG_BIN CANARY_BIN PACKAGE...
#
# For each package, runs `guarddog pypi scan PATH` and
# `canary scan --local-only --no-cache PATH` one after the other under
# /usr/bin/time -v, and prints one TSV row: package, size, wall seconds and
# peak RSS (KiB) of each tool, the ratio of wall times, Canary's decision and
# reason, and how many GuardDog rules fired. Wall time is read from the
# clock in nanoseconds around each run (time -v prints hundredths, and a
# small package's scan now takes a few milliseconds); RSS from time -v. Set up GuardDog with
# `python3 -m venv /tmp/gd && /tmp/gd/bin/pip install "guarddog==3.2.*"`.
#
# REPEAT=N (default 1) runs each tool N times per package, alternating
# GuardDog and Canary, and reports the median wall time and the largest
# peak RSS of each: both tools' times move by a fifth between runs on a
# shared machine, so one run can put a package on either side of a ratio.
set -u
gd=$1; canary=$2; shift 2
printf 'package\tbytes\tgd_s\tgd_rss_kib\tcanary_s\tcanary_rss_kib\tratio\tcanary_decision\tgd_rules\n'
median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
rss() { awk -F': ' '/Maximum resident/ {print $2}' "$1"; }
for p in "$@"; do
  t1=$(mktemp); t2=$(mktemp); o1=$(mktemp); o2=$(mktemp)
  gs=(); cs=(); gr=0; cr=0
  for _ in $(seq "${REPEAT:-1}"); do
    s1=$(date +%s%N)
    /usr/bin/time -v -o "$t1" "$gd" pypi scan "$p" --output-format json > "$o1" 2>/dev/null
    s2=$(date +%s%N)
    /usr/bin/time -v -o "$t2" "$canary" scan --local-only --no-cache --quiet --format json "$p" > "$o2" 2>/dev/null
    s3=$(date +%s%N)
    gs+=("$(awk -v a="$s1" -v b="$s2" 'BEGIN { printf "%.6f", (b - a) / 1e9 }')")
    cs+=("$(awk -v a="$s2" -v b="$s3" 'BEGIN { printf "%.6f", (b - a) / 1e9 }')")
    r=$(rss "$t1"); [ "${r:-0}" -gt "$gr" ] && gr=$r
    r=$(rss "$t2"); [ "${r:-0}" -gt "$cr" ] && cr=$r
  done
  g=$(printf '%s\n' "${gs[@]}" | median)
  c=$(printf '%s\n' "${cs[@]}" | median)
  dec=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["decision"]+"/"+r["reason"])' "$o2" 2>/dev/null || echo error)
  rules=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r.get("issues", "?"))' "$o1" 2>/dev/null || echo error)
  ratio=$(awk -v g="$g" -v c="$c" 'BEGIN { if (c > 0) printf "%.1f", g / c; else print "inf" }')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(basename "$p")" "$(stat -c %s "$p")" "$g" "$gr" "$c" "$cr" "$ratio" "$dec" "$rules"
  rm -f "$t1" "$t2" "$o1" "$o2"
done
