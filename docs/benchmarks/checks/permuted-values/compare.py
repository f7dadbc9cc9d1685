#!/usr/bin/env python3
"""Before/after ratios of one A/B run: compare.py BEFORE.csv[.gz] AFTER.csv[.gz] [--rows].

Prints, per variant and for `auto` per matrix, the geometric mean of before/after median times
(above 1: the after build is faster); --rows also prints every (matrix, K) pair of times in µs.
"""
import collections
import csv
import gzip
import math
import sys


def load(path):
    f = gzip.open(path, "rt") if path.endswith(".gz") else open(path)
    return {(r["matrix"][:30], int(r["k"]), r["variant"].replace("cuda.spmm.", "")): float(r["median_ms"]) * 1e3
            for r in csv.DictReader(f) if r["status"] == "ok"}


def gmean(x):
    return math.exp(sum(map(math.log, x)) / len(x))


before, after = load(sys.argv[1]), load(sys.argv[2])
variants = ("auto", "vdl", "row_csc", "row_split", "nnz_vsr", "cusparse")
matrices = list(dict.fromkeys(m for m, _, _ in before))
by_variant, auto_by_matrix = collections.defaultdict(list), collections.defaultdict(list)
for m in matrices:
    for k in sorted({k for mm, k, _ in before if mm == m}):
        cells = []
        for v in variants:
            o, n = before.get((m, k, v)), after.get((m, k, v))
            if o and n:
                cells.append(f"{v} {o:.1f}->{n:.1f}")
                by_variant[v].append(o / n)
                if v == "auto":
                    auto_by_matrix[m].append(o / n)
        if "--rows" in sys.argv and cells:
            print(f"{m:30s} K={k:3d} " + " | ".join(cells))
for v, x in by_variant.items():
    print(f"{v:10s} {len(x):3d} problems, before/after {gmean(x):.3f} (min {min(x):.2f}, max {max(x):.2f})")
for m, x in auto_by_matrix.items():
    print(f"  auto on {m:30s} {gmean(x):.3f} (min {min(x):.2f}, max {max(x):.2f})")
