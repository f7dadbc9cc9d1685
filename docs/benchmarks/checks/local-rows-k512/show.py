#!/usr/bin/env python3
"""Each problem of a run.sh set: every variant's time over the best, auto's pick. show.py SET.csv.gz"""
import collections
import csv
import gzip
import sys

d, pick, info = collections.defaultdict(dict), {}, {}
for r in csv.DictReader(gzip.open(sys.argv[1], "rt")):
    if r["status"] != "ok":
        continue
    key = (r["matrix"], int(r["k"]))
    d[key][r["variant"].replace("cuda.spmm.", "")] = float(r["median_ms"]) * 1e3
    info[key] = (int(r["m"]), int(r["nnz"]))
    if r["variant"] == "auto":
        pick[key] = r["chosen"].replace("cuda.spmm.", "")
for key, v in sorted(d.items()):
    best = min(t for x, t in v.items() if x != "auto")
    rows, nnz = info[key]
    print(f"{key[0][:44]:44} K={key[1]:4} rows {rows:5} mean {nnz / rows:5.0f} auto={pick[key]:9} "
          + " ".join(f"{x}={t / best:.2f}" for x, t in sorted(v.items(), key=lambda x: x[1]) if x != "auto")
          + f"  best {best:.1f} us")
