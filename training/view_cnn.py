#!/usr/bin/env python3
"""Experiment: a convolutional model over the capability view (PyTorch, GPU).

    view_cnn.py DATA_DIR OUT_DIR --name NAME [--epochs N] [--seed S] [--dim D] [--channels C] ...

The shipped veto (`models/malicious-package-capabilities`) is a bag of the
view's tokens, mean-pooled over 4 KB file slices: a few patched lines are
averaged with the module around them (training/README.md, "Hijacked
modules": "What would lift it: a model that sees a few patched lines among
many"). This model reads the view as a token sequence: hashed token
embeddings, dilated 1-D convolutions (a receptive field of a few lines), a
logit per position, and the input's score is the maximum over positions
(multiple-instance learning: an input is harmful when some place in it is).
A payload added to a package can then only raise its score, never be
diluted by it.

DATA_DIR holds `*.jsonl.gz` rows `{set, id, label, view, ...}` written by
`training/dump_views.rs` (rows whose `set` starts with `train` are trained on; every
row is scored). OUT_DIR gets `scores-NAME.jsonl` (every row with its score). This is a
measurement, not the shipped path:
nothing here is read by `canary`.

The harmful texts are real malware source turned into capability views;
this only reads them as text and hashes their tokens.
"""
import argparse
import glob
import gzip
import hashlib
import json
import math
import os
import random
import re
import time
from multiprocessing import Pool

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

BUCKETS = 1 << 18
TOK = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|\n|[^\sA-Za-z0-9_]")


def bucket(t: bytes) -> int:
    if len(t) > 24:
        t = b"<long:%d%d%d>" % (
            any(c.isdigit() for c in t[:64].decode("latin1")),
            any(c.isupper() for c in t[:64].decode("latin1")),
            any(c.islower() for c in t[:64].decode("latin1")),
        )
    return int.from_bytes(hashlib.blake2b(t, digest_size=8).digest(), "little") % (BUCKETS - 1) + 1


def tokenize(view: str) -> np.ndarray:
    cache = {}
    out = []
    for m in TOK.finditer(view.encode("utf-8", "replace")):
        t = m.group()
        b = cache.get(t)
        if b is None:
            b = cache[t] = bucket(t)
        out.append(b)
    return np.asarray(out, dtype=np.int32)


def load(data_dir):
    rows = []
    for f in sorted(glob.glob(os.path.join(data_dir, "*.jsonl.gz"))):
        with gzip.open(f, "rt", encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                rows.append(r)
    with Pool(16) as p:
        toks = p.map(tokenize, [r["view"] for r in rows], chunksize=16)
    for r, t in zip(rows, toks):
        r["tok"] = t
        del r["view"]
    return rows


class PosModel(nn.Module):
    """A logit per position; the input's logit is the maximum."""

    def __init__(self, d, c, layers, dropout):
        super().__init__()
        self.emb = nn.Embedding(BUCKETS, d, padding_idx=0)
        self.inp = nn.Conv1d(d, c, 3, padding=1)
        self.convs = nn.ModuleList(
            nn.Conv1d(c, c, 3, padding=2 ** i, dilation=2 ** i) for i in range(1, layers)
        )
        self.drop = nn.Dropout(dropout)
        self.out = nn.Conv1d(c, 1, 1)

    def forward(self, x):  # x: [B, L] int, 0 = padding
        h = self.drop(self.emb(x)).transpose(1, 2)
        h = F.gelu(self.inp(h))
        for conv in self.convs:
            h = h + F.gelu(conv(h))
        logit = self.out(h).squeeze(1)  # [B, L]
        return logit.masked_fill(x == 0, -1e4).amax(dim=1)


def chunks(tok, length, overlap):
    if len(tok) == 0:
        return [np.zeros(1, dtype=np.int32)]
    step = length - overlap
    out = []
    for s in range(0, max(1, len(tok) - overlap), step):
        out.append(tok[s : s + length])
        if s + length >= len(tok):
            break
    return out


def batch_logits(model, samples, length, overlap, device):
    """Max logit per sample over its chunks."""
    pieces, owner = [], []
    for i, tok in enumerate(samples):
        for c in chunks(tok, length, overlap):
            pieces.append(c)
            owner.append(i)
    out = torch.full((len(samples),), -1e4, device=device)
    bs = 256
    for s in range(0, len(pieces), bs):
        part = pieces[s : s + bs]
        L = max(len(p) for p in part)
        x = np.zeros((len(part), L), dtype=np.int64)
        for j, p in enumerate(part):
            x[j, : len(p)] = p
        lg = model(torch.from_numpy(x).to(device))
        own = torch.tensor(owner[s : s + bs], device=device)
        out = out.scatter_reduce(0, own, lg, reduce="amax")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("out")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dim", type=int, default=32)
    ap.add_argument("--channels", type=int, default=64)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--chunk", type=int, default=2048)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--name", default="pos")
    ap.add_argument("--neg-weight", type=float, default=1.0)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    random.seed(a.seed)
    dev = torch.device("cuda")
    t0 = time.time()
    rows = load(a.data)
    print(f"loaded {len(rows)} rows, {sum(len(r['tok']) for r in rows)} tokens in {time.time()-t0:.1f}s", flush=True)
    train = [r for r in rows if r["set"].startswith("train") and len(r["tok"]) > 0]
    pos = sum(r["label"] == "harmful" for r in train)
    neg = len(train) - pos
    print(f"train rows {len(train)}: {pos} harmful, {neg} harmless", flush=True)
    model = PosModel(a.dim, a.channels, a.layers, a.dropout).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.01)
    steps = a.epochs * math.ceil(len(train) / a.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, total_steps=steps, pct_start=0.1)
    wpos, wneg = len(train) / (2 * pos), a.neg_weight * len(train) / (2 * neg)
    for ep in range(a.epochs):
        model.train()
        random.shuffle(train)
        tot = 0.0
        for s in range(0, len(train), a.batch):
            b = train[s : s + a.batch]
            y = torch.tensor([r["label"] == "harmful" for r in b], dtype=torch.float32, device=dev)
            w = torch.where(y > 0.5, wpos, wneg)
            lg = batch_logits(model, [r["tok"] for r in b], a.chunk, 64, dev)
            loss = (F.binary_cross_entropy_with_logits(lg, y, reduction="none") * w).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += loss.item() * len(b)
        print(f"epoch {ep+1}: loss {tot/len(train):.4f} ({time.time()-t0:.0f}s)", flush=True)
    model.eval()
    with torch.no_grad():
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, f"scores-{a.name}.jsonl"), "w") as fh:
            for s in range(0, len(rows), 64):
                b = rows[s : s + 64]
                lg = batch_logits(model, [r["tok"] for r in b], a.chunk, 64, dev)
                for r, l in zip(b, lg.tolist()):
                    sc = 0.0 if len(r["tok"]) == 0 else 1 / (1 + math.exp(-max(min(l, 60), -60)))
                    o = {k: v for k, v in r.items() if k != "tok"}
                    o["score"] = sc
                    o["logit"] = l if len(r["tok"]) else None
                    fh.write(json.dumps(o) + "\n")
    print(f"scored in {time.time()-t0:.0f}s", flush=True)


if __name__ == "__main__":
    main()
