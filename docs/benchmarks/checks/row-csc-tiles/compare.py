#!/usr/bin/env python3
"""row_csc before/after of run.sh: compare.py BEFORE.csv.gz AFTER.csv.gz [--rows].

Prints the geometric mean of before/after median times (above 1: the after build is faster) of
cuda.spmm.row_csc per op and K, and of the cuSPARSE baseline timed beside it (the machine's drift);
--rows prints every problem whose row_csc time moved by more than 5%, with its output rows.
"""
import collections
import csv
import gzip
import math
import sys


def load(path):
    out = {}
    for r in csv.DictReader(gzip.open(path, "rt")):
        if r["status"] != "ok":
            continue
        rows = int(r["m"]) if r["form"] == "n" else int(r["n"])
        out[(r["matrix"], r["form"], int(r["k"]), r["variant"])] = (float(r["median_ms"]) * 1e3, rows)
    return out


before, after = load(sys.argv[1]), load(sys.argv[2])
groups = collections.defaultdict(list)
for key, (t0, rows) in before.items():
    if key in after:
        groups[(key[3], key[1], key[2])].append((t0 / after[key][0], key, t0, after[key][0], rows))
for (variant, op, k), xs in sorted(groups.items()):
    g = math.exp(sum(math.log(x[0]) for x in xs) / len(xs))
    print(f"{variant:20} {'S·B ' if op == 'n' else 'Sᵀ·B'} K={k:5} {len(xs):3} problems, "
          f"before/after {g:.3f} (min {min(x[0] for x in xs):.2f}, max {max(x[0] for x in xs):.2f})")
if "--rows" in sys.argv:
    for (variant, op, k), xs in sorted(groups.items()):
        for r, key, t0, t1, rows in sorted(xs):
            if variant.endswith("row_csc") and abs(r - 1) > 0.05:
                print(f"  {op} K={k:5} {key[0][:44]:44} rows {rows:6}  {t0:8.1f} -> {t1:8.1f} us  x{r:.2f}")
