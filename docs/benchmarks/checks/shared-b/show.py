#!/usr/bin/env python3
"""shared_b against the best other kernel and cuSPARSE, per problem and by (op, K). show.py RUN.csv.gz"""
import collections
import csv
import gzip
import math
import sys

t, info = collections.defaultdict(dict), {}
for r in csv.DictReader(gzip.open(sys.argv[1], "rt")):
    if r["status"] != "ok":
        continue
    key = (r["matrix"], r["form"], int(r["k"]))
    t[key][r["variant"].replace("cuda.spmm.", "")] = float(r["median_ms"]) * 1e3
    info[key] = (int(r["m"]), int(r["n"]), int(r["nnz"]))
groups = collections.defaultdict(list)
for key in sorted(t):
    v = t[key]
    if "shared_b" not in v:
        continue
    others = {x: ms for x, ms in v.items() if x not in ("shared_b", "auto")}
    best = min(others, key=others.get)
    ratio = others[best] / v["shared_b"]
    groups[key[1:]].append(ratio)
    m, n, nnz = info[key]
    op = "S·B " if key[1] == "n" else "Sᵀ·B"
    print(f"{key[0][:40]:40} {op} K={key[2]:3} {m:6}x{n:6} nnz {nnz:7}  shared_b {v['shared_b']:7.1f} us  "
          f"cuSPARSE {v['cusparse']:7.1f}  best other {best} {others[best]:7.1f}  best/shared_b {ratio:.2f}")
for (form, k), rs in sorted(groups.items()):
    geo = math.exp(sum(map(math.log, rs)) / len(rs))
    print(f"{'S·B ' if form == 'n' else 'Sᵀ·B'} K={k:3}: best other / shared_b {geo:.2f} in geometric mean, "
          f"shared_b faster on {sum(r > 1 for r in rs)} of {len(rs)}")
