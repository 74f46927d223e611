"""Three-way reader differential: Python (tarfile/zipfile), npm's tar, and
`canary render`, over generated archives. See README.md beside this file."""
import argparse, glob, gzip, io, json, os, random, re, shutil, struct
import subprocess, sys, tarfile, tempfile, zipfile, zlib

MARK = re.compile(rb'marker_\d+_\d+')

# --- tar generation -------------------------------------------------------
TYPES = [b'N', b'0', b'\0', b'1', b'2', b'3', b'4', b'5', b'6', b'7', b'g', b'x', b'X',
         b'L', b'K', b'S', b'D', b'M', b'V', b'A', b'Z', b'I']
PAXKEYS = ['path', 'linkpath', 'size', 'GNU.sparse.name', 'GNU.sparse.size', 'charset',
           'hdrcharset', 'comment', 'uid', 'mtime', 'SCHILY.filetype', 'LIBARCHIVE.xattr.x']
NAMES = ['package/package.json', 'package/index.js', 'package/lib/a.js',
         'package/README.md', 'package/setup.py']


def pad(d):
    return d + b'\0' * (-len(d) % 512)


def checksum(h):
    h = bytearray(h)
    h[148:156] = b' ' * 8
    h[148:156] = b'%06o\0 ' % sum(h)
    return bytes(h)


def tar_header(name, size, typ, fmt, link=''):
    ti = tarfile.TarInfo(name)
    ti.size, ti.type, ti.linkname = size, tarfile.REGTYPE, link
    b = bytearray(ti.tobuf(fmt)[-512:])
    b[156:157] = typ
    return b


def pax_block(records, typ):
    body = b''
    for k, v in records:
        r = f' {k}={v}\n'.encode()
        n = len(r) + 1
        while len(str(n)) + len(r) != n:
            n += 1
        body += str(n).encode() + r
    return checksum(tar_header('pax', len(body), typ, tarfile.USTAR_FORMAT)) + pad(body)


def gen_tar(rng, i, rate):
    blocks, used = [], set()
    for j in range(rng.randint(2, 5)):
        name = rng.choice(NAMES) if rng.random() < 0.9 else 'package/' + rng.choice(
            ['x/', 'y.py/', './z.js', 'a//b.js'])
        while name in used:
            name = name.replace('package/', 'package/d%d/' % rng.randint(0, 99), 1)
        used.add(name)
        content = f'marker_{i}_{j} = "{name}"\n'.encode()
        fmt = rng.choice([tarfile.USTAR_FORMAT, tarfile.GNU_FORMAT, tarfile.PAX_FORMAT])
        typ = b'0' if rng.random() < 1 - rate / 3 else rng.choice(TYPES)
        size, data = len(content), content
        if rng.random() < rate * 0.3:
            size = rng.choice([0, 512, 1024, len(content) + 512])
        if typ in (b'1', b'2', b'3', b'4', b'5', b'6') and rng.random() < 0.5:
            size, data = 0, b''
        if rng.random() < rate * 0.5:
            recs = [(rng.choice(PAXKEYS), rng.choice(['package/lib/h.py', 'package/setup.py', '0',
                                                        str(len(content)), '512', 'x']))
                    for _ in range(rng.randint(1, 2))]
            blocks.append(pax_block(recs, rng.choice([b'x', b'x', b'g', b'X'])))
        if rng.random() < rate * 0.2:
            ln = rng.choice(NAMES).encode() + b'\0'
            blocks.append(checksum(tar_header('././@LongLink', len(ln), rng.choice([b'L', b'K']),
                                              rng.choice([tarfile.GNU_FORMAT, tarfile.USTAR_FORMAT])))
                          + pad(ln))
        link = ''
        if typ in (b'1', b'2') or rng.random() < 0.05:
            link = rng.choice(['package/index.js', '../x', 'index.js', ''])
        h = tar_header(name, size, typ, fmt, link)
        if rng.random() < rate * 0.1:
            h[345:352] = b'package'
        if rng.random() < rate * 0.1:
            h[257:265] = rng.choice([b'\0' * 8, b'ustar\x0000', b'ustar  \0', b'ustar\x00xx'])
        blocks.append(checksum(h) + pad(data))
        if rng.random() < rate * 0.05:
            blocks.append(b'\0' * 512)
    return gzip.compress(b''.join(blocks) + b'\0' * 1024), '.tgz'


# --- zip generation -------------------------------------------------------
ZNAMES = ['pkg/__init__.py', 'pkg/setup.py', 'pkg/README.md', 'pkg/lib/a.py',
          'pkg/data/x.json', 'pkg-1.0.dist-info/RECORD']
FIELDS = {b'PK\x03\x04': [6, 8, 14, 18, 22, 26, 28],
          b'PK\x01\x02': [8, 10, 16, 20, 24, 28, 30, 32, 38, 42],
          b'PK\x05\x06': [8, 10, 12, 16, 20]}
WIDE = {b'PK\x03\x04': {14, 18, 22}, b'PK\x01\x02': {16, 20, 24, 38, 42}, b'PK\x05\x06': {12, 16}}


def gen_zip(rng, i, rate):
    b = io.BytesIO()
    with zipfile.ZipFile(b, 'w') as z:
        used = set()
        for j in range(rng.randint(2, 5)):
            name = rng.choice(ZNAMES)
            while name in used:
                name = 'pkg/d%d/' % rng.randint(0, 999) + name
            used.add(name)
            if rng.random() < rate / 3:
                name = rng.choice([name + '/', name.replace('/', '\\'), name + '\\', './' + name])
            zi = zipfile.ZipInfo(name)
            zi.compress_type = rng.choice([0, 8, 8, 8])
            if rng.random() < rate / 3:
                zi.external_attr = rng.choice([0o120777 << 16, 0o040755 << 16, 0x10])
                zi.create_system = rng.choice([0, 3, 11])
            if rng.random() < rate / 4:
                alt = rng.choice(['pkg/other.py', 'pkg/README.md', name])
                d = struct.pack('<BL', 1, zlib.crc32(name.encode())) + alt.encode()
                zi.extra = struct.pack('<HH', 0x7075, len(d)) + d
            z.writestr(zi, f'marker_{i}_{j} = "{name}"\n')
        if rng.random() < rate / 3:
            z.comment = rng.choice([b'hi', b'PK\x05\x06' + b'\0' * 18])
    data = bytearray(b.getvalue())
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        sig = rng.choice(list(FIELDS))
        spots = [k for k in range(len(data)) if data[k:k + 4] == sig]
        if not spots:
            continue
        k, f = rng.choice(spots), rng.choice(FIELDS[sig])
        w = 4 if f in WIDE[sig] else 2
        v = rng.choice([0, 1, 8, 0xFFFF, 0xFFFFFFFF, rng.randint(0, 70000)]) & ((1 << (8 * w)) - 1)
        data[k + f:k + f + w] = v.to_bytes(w, 'little')
    if rng.random() < 0.05:
        data = bytearray(b'#!/usr/bin/env python\n') + data
    return bytes(data), '.zip'


# --- readers ----------------------------------------------------------------
def python_list(path):
    """Regular files Python unpacks: [(name, bytes)], or None if it refuses."""
    try:
        if path.endswith('.zip'):
            z = zipfile.ZipFile(path)
            return [(zi.filename, z.read(zi)) for zi in z.infolist() if not zi.is_dir()]
        t = tarfile.open(path)
        return [(m.name, t.extractfile(m).read()) for m in t.getmembers() if m.isreg()]
    except Exception:
        return None


NODE = r"""
const tar = require(process.argv[1]); const fs = require('fs'); const res = {};
for (const p of process.argv.slice(2)) {
  const out = [];
  try {
    tar.t({file: p, sync: true, onReadEntry: e => {
      const chunks = []; e.on('data', c => chunks.push(c));
      e.on('end', () => { if (['File', 'OldFile', 'ContiguousFile'].includes(e.type))
        out.push([e.path, Buffer.concat(chunks).toString('latin1')]); });
    }});
    res[p] = out;
  } catch (e) { res[p] = null; }
}
process.stdout.write(JSON.stringify(res));
"""


def node_tar_module():
    npm = shutil.which('npm')
    if not npm or not shutil.which('node'):
        return None
    root = os.path.dirname(os.path.dirname(os.path.realpath(npm)))
    mod = os.path.join(root, 'node_modules', 'tar')
    return mod if os.path.isdir(mod) else None


def node_list(paths):
    mod = node_tar_module()
    if mod is None:
        return {}
    out = subprocess.run(['node', '-e', NODE, mod] + paths, capture_output=True, check=True)
    return {p: (None if v is None else [(n, c.encode('latin1')) for n, c in v])
            for p, v in json.loads(out.stdout).items()}


def canary_markers(canary, path):
    """Marker -> path Canary renders it under, or None if Canary refuses."""
    r = subprocess.run([canary, 'render', path], capture_output=True)
    if r.returncode != 0:
        return None
    where, current = {}, None
    for line in r.stdout.split(b'\n'):
        if line.startswith(b'+++ b/'):
            current = line[6:].decode('utf-8', 'replace')
        elif line.startswith(b'Binary file'):
            current = None
        for m in MARK.findall(line):
            if current is not None:
                where.setdefault(m.decode(), current)
    return where


def extension(path):
    name = path.rstrip('/\\').replace('\\', '/').rsplit('/', 1)[-1]
    return name.rsplit('.', 1)[-1] if '.' in name else ''


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('canary')
    ap.add_argument('--kind', choices=['tar', 'zip'], default='tar')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=200)
    ap.add_argument('--rate', type=float, default=0.25, help='how often headers are mutated')
    ap.add_argument('--keep', help='write the archives here instead of a temporary folder')
    a = ap.parse_args()
    rng = random.Random(a.seed)
    folder = a.keep or tempfile.mkdtemp(prefix='canary-diff-')
    os.makedirs(folder, exist_ok=True)
    gen = gen_tar if a.kind == 'tar' else gen_zip
    paths = []
    for i in range(a.count):
        data, ext = gen(rng, i, a.rate)
        p = os.path.join(folder, f'{a.kind}{a.seed}-{i:04d}{ext}')
        with open(p, 'wb') as f:
            f.write(data)
        paths.append(p)
    node = node_list(paths) if a.kind == 'tar' else {}
    counts = {'read': 0, 'refused': 0, 'unseen': 0, 'renamed': 0}
    for p in paths:
        where = canary_markers(a.canary, p)
        if where is None:
            counts['refused'] += 1
            continue
        counts['read'] += 1
        for reader, listing in (('python', python_list(p)), ('npm', node.get(p))):
            for name, content in listing or []:
                if b'\0' in content[:8192]:
                    continue  # binary to every reader
                for m in MARK.findall(content):
                    m = m.decode()
                    if m not in where:
                        counts['unseen'] += 1
                        print(f'unseen  {reader:6} {os.path.basename(p)} {name!r} {m}')
                    elif extension(where[m]) != extension(name):
                        counts['renamed'] += 1
                        print(f'renamed {reader:6} {os.path.basename(p)} {name!r} -> {where[m]!r}')
    readers = 'python, npm' if node else ('python (npm tar not found)' if a.kind == 'tar' else 'python')
    print(json.dumps(counts), 'readers:', readers)
    if not a.keep:
        shutil.rmtree(folder)
    return 1 if counts['unseen'] else 0


if __name__ == '__main__':
    sys.exit(main())
