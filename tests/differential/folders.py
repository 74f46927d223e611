"""Folder differential: a package unpacked by Python's tarfile or zipfile
and rendered as a folder must give the text its archive gives. See
README.md beside this file.

    python3 tests/differential/folders.py CANARY ARCHIVE...

Prints SAME or DIFF per archive, and for each DIFF writes both renderings
under $TMPDIR/canary-folders/. Archives are unpacked into a temporary
folder with tarfile's `data` filter (no links out, no devices) and only
read by Canary; nothing is run."""
import os, shutil, subprocess, sys, tarfile, tempfile, zipfile


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    canary, paths = sys.argv[1], sys.argv[2:]
    out = os.path.join(tempfile.gettempdir(), "canary-folders")
    same = diff = 0
    for p in paths:
        with tempfile.TemporaryDirectory() as d:
            try:
                if p.endswith((".whl", ".zip")):
                    with zipfile.ZipFile(p) as z:
                        z.extractall(d)
                else:
                    with tarfile.open(p) as t:
                        t.extractall(d, filter="data")
            except Exception as e:
                print("UNPACK-FAILED", p, e, flush=True)
                continue
            # An sdist or npm tarball has one top folder; render inside it,
            # as the archive's root is stripped.
            entries = os.listdir(d)
            root = d
            if len(entries) == 1 and os.path.isdir(os.path.join(d, entries[0])):
                root = os.path.join(d, entries[0])
            a = subprocess.run([canary, "render", p], capture_output=True)
            b = subprocess.run([canary, "render", root], capture_output=True)
        if a.stdout == b.stdout and a.returncode == b.returncode:
            same += 1
            print("SAME", os.path.basename(p), flush=True)
            continue
        diff += 1
        print("DIFF", os.path.basename(p), flush=True)
        os.makedirs(out, exist_ok=True)
        base = os.path.join(out, os.path.basename(p))
        with open(base + ".archive", "wb") as f:
            f.write(a.stdout + b"\n# stderr: " + a.stderr)
        with open(base + ".folder", "wb") as f:
            f.write(b.stdout + b"\n# stderr: " + b.stderr)
    print(f"{same} same, {diff} different", flush=True)


if __name__ == "__main__":
    main()
