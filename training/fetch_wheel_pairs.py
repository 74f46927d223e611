#!/usr/bin/env python3
"""Download the wheel pairs of a lock file, for wheel-upgrade scans.

Usage:
  fetch_wheel_pairs.py LOCKFILE NEW_DIR OLD_DIR

Each line of LOCKFILE is `name wheel sha256 previous-wheel sha256`
(`training/wheel-upgrades.lock`; `-` where a wheel has no previous one with
the same tags). Each file is fetched from the simple index and its sha256
checked; a file already there is only checked. Wheels are only downloaded,
never unpacked or installed: Canary reads them as bytes. Then:

    canary scan --local-only --no-cache --format jsonl --accepted OLD_DIR NEW_DIR

Standard library only.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fetch_sdists import download_checked, locked_url  # noqa: E402


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    lock, new_dir, old_dir = sys.argv[1:]
    for d in (new_dir, old_dir):
        os.makedirs(d, exist_ok=True)
    for line in open(lock):
        if not line.strip() or line.startswith("#"):
            continue
        name, new, new_sha, old, old_sha = line.split()
        for dest, filename, want in ((new_dir, new, new_sha), (old_dir, old, old_sha)):
            if filename == "-":
                continue
            path = os.path.join(dest, filename)
            url = None if os.path.exists(path) else locked_url(name, filename)
            download_checked(name, url, path, want)
            print(f"ok {filename}", file=sys.stderr)


if __name__ == "__main__":
    main()
