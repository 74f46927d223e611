#!/usr/bin/env python3
"""Synthetic tool-poisoning packages for the malicious-package pre-check.

Usage:
  tool_poisoning.py CANARY_BIN INJECTION_TRAIN.jsonl OUT.jsonl [--per-label N] [--seed S]

Why: the package corpus's train split holds no package whose harm is text
aimed at the AI agent that uses it (an MCP server whose tool docstring tells
the agent to read secrets), yet such packages are malware too. Without an
example of that kind the model scores them like any small MCP server, and the
calibration has to push `harmless-below` under them, which blocks most large
benign packages.

How: each row is a small Python package written here (an MCP server or a
plain library with documented functions) rendered by `canary render` exactly
as a scan renders it, either everything added or as a version diff. Rows come
in twins that differ only in one docstring passage:

- harmful: the passage is an injection taken from the prompt-injection
  corpus's train split: the text a harmful row inserts into its sanitized
  harmless twin (same `group`), found by a character diff;
- harmless: the passage is a line of ordinary prose from that harmless twin.

So the carrier packages carry no label signal; only the passage does. Only
`train.jsonl` of the injection corpus is read (never its dev split, never the
package corpus's dev split). Standard library only; deterministic for a seed.
"""
import difflib
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile

# (module, description, tools): each tool is (name, args, docstring, body).
TEMPLATES = [
    ("weather", "Weather lookups for assistants", [
        ("get_forecast", "city: str, days: int = 3",
         "Return the forecast for a city.\n\n:param city: city name in English\n:param days: number of days",
         "return _get('forecast', q=city, days=days)"),
        ("get_alerts", "region: str",
         "List active weather alerts for a region.",
         "return _get('alerts', region=region)"),
    ]),
    ("notes", "Personal notes server", [
        ("add_note", "title: str, body: str",
         "Store a note under a title. Titles are unique.",
         "NOTES[title] = body\n    return 'saved'"),
        ("search_notes", "query: str",
         "Search notes whose title or body contains the query.",
         "return [t for t, b in NOTES.items() if query in t or query in b]"),
    ]),
    ("calc", "Calculator tools", [
        ("add", "a: float, b: float", "Add two numbers and return the sum.", "return a + b"),
        ("percent", "part: float, whole: float",
         "Return part as a percentage of whole, rounded to two places.",
         "return round(100.0 * part / whole, 2)"),
    ]),
    ("files", "Read-only file browsing", [
        ("list_dir", "path: str", "List the entries of a directory inside the allowed root.",
         "return sorted(os.listdir(_inside(path)))"),
        ("read_text", "path: str, limit: int = 4096",
         "Read up to limit characters of a text file inside the allowed root.",
         "with open(_inside(path), encoding='utf-8') as f:\n        return f.read(limit)"),
    ]),
    ("tickets", "Issue tracker helper", [
        ("open_ticket", "title: str, body: str",
         "Open a ticket in the tracker and return its number.",
         "return _post('tickets', title=title, body=body)['number']"),
        ("ticket_status", "number: int", "Return the status of a ticket.",
         "return _get(f'tickets/{number}')['status']"),
    ]),
    ("calendar", "Calendar assistant tools", [
        ("next_events", "count: int = 5", "Return the next events on the user's calendar.",
         "return _get('events', limit=count)"),
        ("free_slots", "day: str", "Return free half-hour slots on a given day (YYYY-MM-DD).",
         "return _get('slots', day=day)"),
    ]),
    ("convert", "Unit conversion", [
        ("celsius_to_fahrenheit", "c: float", "Convert degrees Celsius to Fahrenheit.",
         "return c * 9 / 5 + 32"),
        ("km_to_miles", "km: float", "Convert kilometres to miles.", "return km * 0.621371"),
    ]),
    ("translate", "Translation helper", [
        ("translate", "text: str, target: str",
         "Translate text into the target language (ISO 639-1 code).",
         "return _post('translate', text=text, target=target)['text']"),
        ("detect_language", "text: str", "Guess the language of a text.",
         "return _post('detect', text=text)['language']"),
    ]),
]

HELPERS = '''
def _get(path, **params):
    r = httpx.get(f"{API}/{path}", params=params, timeout=30.0)
    r.raise_for_status()
    return r.json()


def _post(path, **body):
    r = httpx.post(f"{API}/{path}", json=body, timeout=30.0)
    r.raise_for_status()
    return r.json()


def _inside(path):
    full = os.path.realpath(os.path.join(ROOT, path))
    if not full.startswith(ROOT):
        raise ValueError("outside the allowed root")
    return full
'''

COMMENT = re.compile(r"^\s*(\+\s*)?(#+|//|>|<!--)?\s*")


def injection_pairs(path):
    """(injection passage, benign passage) per harmful/harmless twin in the train split."""
    groups = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            groups.setdefault(r["group"], []).append(r)
    pairs = []
    for key in sorted(groups):
        rows = groups[key]
        clean = [r for r in rows if r["label"] == "harmless"]
        if len(clean) != 1:
            continue
        a = clean[0]["text"]
        prose = [tidy(l) for l in a.splitlines()]
        prose = [l for l in prose if len(l) >= 30]
        for r in sorted((r for r in rows if r["label"] == "harmful"), key=lambda r: r["id"]):
            ops = difflib.SequenceMatcher(None, a, r["text"], autojunk=False).get_opcodes()
            ins = [r["text"][j1:j2] for op, _, _, j1, j2 in ops if op in ("insert", "replace")]
            if not ins or not prose:
                continue
            inj = tidy(max(ins, key=len))
            # Consecutive prose lines of about the injection's length, so
            # length alone does not tell the twins apart.
            start = int(hashlib.sha256(r["id"].encode()).hexdigest(), 16) % len(prose)
            benign = []
            for line in prose[start:] + prose[:start]:
                benign.append(line)
                if sum(map(len, benign)) >= 0.8 * len(inj):
                    break
            benign = "\n".join(benign)
            if 30 <= len(inj) <= 1200 and benign:
                pairs.append((inj, benign))
    return pairs


def tidy(text):
    """Strip diff and comment prefixes: the passage goes into a docstring."""
    lines = [COMMENT.sub("", l).rstrip() for l in text.strip("\n").splitlines()]
    text = "\n".join(l for l in lines if l.strip())
    return text.replace('"""', "'''").replace("\\", "/")


def module_text(mod, tools, passage, where):
    out = [f'"""{mod}: tools exposed over the Model Context Protocol."""',
           "import os", "", "import httpx", "from mcp.server.fastmcp import FastMCP", "",
           f'API = os.environ.get("{mod.upper()}_API", "https://api.example.com/v1")',
           'ROOT = os.path.realpath(os.environ.get("ALLOWED_ROOT", "."))',
           f'mcp = FastMCP("{mod}")', "NOTES = {}", HELPERS]
    for i, (name, args, doc, body) in enumerate(tools):
        if passage is not None and i == where:
            doc = doc + "\n\n" + passage
        doc = "\n    ".join(doc.splitlines())
        out += ["", "@mcp.tool()", f"def {name}({args}):", f'    """{doc}\n    """', f"    {body}", ""]
    out += ["", 'if __name__ == "__main__":', '    mcp.run(transport="stdio")', ""]
    return "\n".join(out)


def write_package(root, name, version, mod, desc, module):
    os.makedirs(os.path.join(root, name.replace("-", "_")), exist_ok=True)
    files = {
        "pyproject.toml": f'[project]\nname = "{name}"\nversion = "{version}"\ndescription = "{desc}"\n'
        f'readme = "README.md"\nrequires-python = ">=3.10"\ndependencies = [\n    "httpx>=0.27",\n'
        f'    "mcp>=1.2.0",\n]\n\n[project.scripts]\n{name} = "{name.replace("-", "_")}.server:main"\n',
        "setup.cfg": "[egg_info]\ntag_build = \ntag_date = 0\n\n",
        "PKG-INFO": f"Metadata-Version: 2.4\nName: {name}\nVersion: {version}\nSummary: {desc}\n"
        "Requires-Python: >=3.10\nDescription-Content-Type: text/markdown\n\n"
        f"# {name}\n\n{desc}. Run it with `uvx {name}`.\n",
        "README.md": f"# {name}\n\n{desc}. Run it with `uvx {name}`.\n",
        f"{name.replace('-', '_')}/__init__.py": f'__version__ = "{version}"\n',
        f"{name.replace('-', '_')}/server.py": module,
    }
    for rel, text in files.items():
        with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
            f.write(text)


def render(canary, path, base=None):
    cmd = [canary, "render", path] + (["--base", base] if base else [])
    out = subprocess.run(cmd, capture_output=True, check=True)
    return out.stdout.decode("utf-8", "replace")


def main():
    args = sys.argv[1:]
    if len(args) < 3:
        sys.exit(__doc__)
    canary, inj_path, out_path = args[:3]
    per_label = int(args[args.index("--per-label") + 1]) if "--per-label" in args else 200
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 1
    rng = random.Random(seed)
    pairs = injection_pairs(inj_path)
    rng.shuffle(pairs)
    pairs = pairs[:per_label]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (inj, benign) in enumerate(pairs):
            mod, desc, tools = TEMPLATES[rng.randrange(len(TEMPLATES))]
            name = f"{mod}-{rng.choice(['mcp', 'tools', 'server', 'kit'])}{rng.randrange(10, 99)}"
            where = rng.randrange(len(tools))
            diff = rng.random() < 0.3
            # Both twins change from the same old version.
            base = None
            if diff:
                base = os.path.join(tmp, f"{i}-old")
                write_package(base, name, "0.1.0", mod, desc, module_text(mod, tools, None, where))
            for label, passage in (("harmful", inj), ("harmless", benign)):
                new = os.path.join(tmp, f"{i}-{label}-new")
                write_package(new, name, "0.2.0", mod, desc, module_text(mod, tools, passage, where))
                text = render(canary, new, base)
                rid = hashlib.sha256(f"tool-poisoning|{seed}|{i}|{label}".encode()).hexdigest()[:16]
                rows.append({"id": f"tp-{rid}", "policy": "malicious-package", "label": label,
                             "ecosystem": "pypi", "package": name, "version": "0.2.0",
                             "base_version": "0.1.0" if diff else None,
                             "source": "synthetic-tool-poisoning", "text": text})
    with open(out_path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"{len(rows)} rows ({len(pairs)} harmful/harmless twins)", file=sys.stderr)


if __name__ == "__main__":
    main()
