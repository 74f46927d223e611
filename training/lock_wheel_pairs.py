#!/usr/bin/env python3
"""Lock the wheels of two releases of each project, for wheel-upgrade scans.

Usage:
  lock_wheel_pairs.py NEW_LOCK PREV_LOCK OUT_LOCK

NEW_LOCK and PREV_LOCK are `name version filename sha256` locks of two
releases per project (`training/benign-sdists-train.lock` and
`training/benign-sdists-train-prev.lock`). For each project in both, the
newer release's wheel is picked (`py3-none-any` first, else the first
CPython 3.11 manylinux x86-64 one), and the previous release's wheel whose
name ends in the same tags; a project without such a pair is skipped and
reported. OUT_LOCK gets `name wheel sha256 previous-wheel sha256` lines,
the format `fetch_wheel_pairs.py` reads:

    python3 training/fetch_wheel_pairs.py OUT_LOCK NEW_DIR OLD_DIR

Only PyPI's JSON API is read here; nothing is downloaded. Standard library
only.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fetch_sdists import get_json, read_lock  # noqa: E402


def wheels(releases, version):
    """{tags: (filename, sha256)} of a release's wheels, tags being the part
    of the file name after `name-version-`."""
    out = {}
    for f in releases.get(version, []):
        if f["packagetype"] != "bdist_wheel" or f.get("yanked"):
            continue
        parts = f["filename"][: -len(".whl")].split("-")
        if len(parts) not in (5, 6):
            continue
        out["-".join(parts[-3:])] = (f["filename"], f["digests"]["sha256"])
    return out


def pick(tags):
    if "py3-none-any" in tags:
        return "py3-none-any"
    if "py2.py3-none-any" in tags:
        return "py2.py3-none-any"
    linux = sorted(t for t in tags if t.startswith("cp311-cp311-manylinux") and "x86_64" in t)
    return linux[0] if linux else None


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    new_lock, prev_lock, out_path = sys.argv[1:]
    new, prev = read_lock(new_lock), read_lock(prev_lock)
    lines = [
        "# name wheel sha256 previous-wheel sha256 (written by lock_wheel_pairs.py"
        f" from {os.path.basename(new_lock)} and {os.path.basename(prev_lock)})"
    ]
    for name, (version, _, _) in new.items():
        if name not in prev:
            continue
        try:
            releases = get_json(f"https://pypi.org/pypi/{name}/json")["releases"]
            now = wheels(releases, version)
            tag = pick(now)
            if tag is None:
                raise LookupError(f"{version} has no py3-none-any or cp311 manylinux wheel")
            before = wheels(releases, prev[name][0])
            if tag not in before:
                raise LookupError(f"{prev[name][0]} has no wheel tagged {tag}")
            (nf, ns), (of, os_) = now[tag], before[tag]
            lines.append(f"{name} {nf} {ns} {of} {os_}")
            print(f"ok {name} {tag}", file=sys.stderr)
        except Exception as e:  # reported, not fatal
            print(f"skip {name}: {e}", file=sys.stderr)
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
