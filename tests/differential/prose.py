"""Prose differential: where Canary reads a Python line as prose (a
string statement's, `src/input/prose.rs`), Python must not run it. See
README.md beside this file.

    python3.13 tests/differential/prose.py CANARY [--seed N] [--count N]

Generates Python modules of random pieces (quotes, f-strings and their
fields, brackets, escapes, comments, line breaks, continuations) around
one marker line, `pickle.loads(b)`, keeps those the running Python parses
(3.12 or later: PEP 701's f-strings), and scans each, as a tiny sdist,
under thresholds that clear any score and no veto. Python's `ast` says
whether the marker is a call (code) or text inside a string. A module
whose marker is a call and that Canary allows is a FAIL-OPEN, printed
with its source; a marker Canary counts though it is only text is
conservative. Nothing is run: the modules are parsed, never executed."""
import argparse, ast, io, json, os, random, subprocess, sys, tarfile, tempfile, warnings

PIECES = [
    '"', "'", '"""', "'''", "f'", 'f"', "rf'", "t'", "b'", "f'''", "f'{",
    'f"{', "f'{x:", "'doc'\n", '"""doc"""\n', "{", "}", "{{", "}}", "(",
    ")", "[", "]", "\\", "\\\n", "\n", "\r", "\r\n", "#", ":", "!r", "!=",
    "=", ";", ",", ".", "x", " ", "\n    ", "if x:", "\\N{BULLET}", '\\"',
    "\\'", "N",
]
# Whole constructs where a lexer can lose its place: nested quotes of the
# enclosing kind (PEP 701), a brace or a quote inside a nested string or
# a format specification, named escapes, raw strings, continuations,
# quotes in comments.
CONSTRUCTS = [
    r'''f"{d["}"]}"''', r"""f'{d['\'']}'""", r"""f'{"'"}'""", r"""rf'\N{d["}"]}'""",
    r"f'\N{BULLET}{x}'", "f'{x:{y}}'", "f'{x!r:>{w}}'", "f'''{x\n}'''",
    "t'{x}'", "x = (\n", "\n)", '"""', "'''", '\n"""', "\n'''", '\n"""\n',
    r"r'\''", r"'\\'", "x = \\\n", "# '''", '# """', ";", "\nif x:\n    ",
]
# Openers and closers put around the marker: strings it may lie in, and
# fields and brackets where it runs.
AROUND = [
    ("'''", "'''"), ('"""', '"""'), ("f'''{", "}'''"), ('f"""{', '}"""'),
    ("t'''{", "}'''"), ("rf'''{", "}'''"), ("f'''{x:{", "}}'''"),
    ("f'''{x!r:{", "}}'''"), ("x = (", ")"), ("'''", "# '''"),
    ("\\\n'''", "'''"), ("b'''", "'''"), ("Rb'''", "'''"), ("u'''", "'''"),
]
MARKER = "pickle.loads(b)"
CONFIG = (
    "[precheck.thresholds.malicious-package]\nharmful-at = 1.0\n"
    "harmless-below = 1.0\n[precheck.vetoes]\nmalicious-package = \"off\"\n"
)


def runs_marker(tree):
    """Whether the module calls `pickle.loads`."""
    for n in ast.walk(tree):
        f = getattr(n, "func", None)
        if (
            isinstance(n, ast.Call)
            and isinstance(f, ast.Attribute)
            and f.attr == "loads"
            and isinstance(f.value, ast.Name)
            and f.value.id == "pickle"
        ):
            return True
    return False


def module(rng):
    pick = lambda: rng.choice(CONSTRUCTS if rng.random() < 0.4 else PIECES)
    side = lambda: "".join(pick() for _ in range(rng.randint(0, 12)))
    if rng.random() < 0.6:
        opener, closer = rng.choice(AROUND)
        return side() + opener + "\n" + MARKER + "\n" + closer + side()
    return side() + "\n" + MARKER + "\n" + side()


def sdist(path, name, source):
    files = {
        f"{name}-1.0/PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
        f"{name}-1.0/setup.py": f'from setuptools import setup\nsetup(name="{name}", version="1.0", packages=["{name}"])\n',
        f"{name}-1.0/{name}/__init__.py": source,
    }
    with tarfile.open(path, "w:gz") as t:
        for p, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(p)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("canary")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=500)
    a = ap.parse_args()
    if sys.version_info < (3, 12):
        sys.exit("needs Python 3.12 or later (PEP 701's f-strings)")
    rng = random.Random(a.seed)
    # Invalid escapes in the generated strings warn; they parse.
    warnings.filterwarnings("ignore")
    with tempfile.TemporaryDirectory() as d:
        indir = os.path.join(d, "in")
        os.makedirs(indir)
        cases = {}
        tries = 0
        while len(cases) < a.count and tries < 1000 * a.count:
            tries += 1
            src = module(rng)
            try:
                tree = ast.parse(src)
            except (SyntaxError, ValueError):
                continue
            name = f"fz{len(cases)}"
            sdist(os.path.join(indir, f"{name}-1.0.tar.gz"), name, src)
            cases[f"{name}-1.0.tar.gz"] = (src, runs_marker(tree))
        config = os.path.join(d, "rules-alone.toml")
        with open(config, "w") as f:
            f.write(CONFIG)
        out = subprocess.run(
            [a.canary, "--config", config, "scan", "--local-only", "--no-cache",
             "--quiet", "--format", "jsonl", indir],
            capture_output=True, text=True,
        ).stdout
    tally = {"code": 0, "text": 0, "fail-open": 0, "conservative": 0}
    for line in out.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        name = os.path.basename(r.get("input", {}).get("source", ""))
        if name not in cases:
            continue
        src, runs = cases[name]
        allowed = r.get("decision") == "allow"
        tally["code" if runs else "text"] += 1
        if runs and allowed:
            tally["fail-open"] += 1
            print("FAIL-OPEN", repr(src), flush=True)
        if not runs and not allowed:
            tally["conservative"] += 1
    print(f"{len(cases)} modules ({tries} tried), " + ", ".join(f"{k} {v}" for k, v in tally.items()))


if __name__ == "__main__":
    main()
