#!/usr/bin/env python3
"""Per (matrix, K): auto's pick and time, every variant's, and row_csc / nnz_vsr.
  python3 show.py fit.csv.gz held-out.csv.gz"""
import collections, csv, gzip, sys

for path in sys.argv[1:]:
    rows = collections.defaultdict(dict)
    with gzip.open(path, "rt") if path.endswith(".gz") else open(path) as f:
        for r in csv.DictReader(f):
            if r["status"] == "ok":
                rows[(r["matrix"], int(r["k"]))][r["variant"].split(".")[-1]] = (
                    float(r["median_ms"]) * 1e3, r["chosen"].split(".")[-1])
    print(f"== {path} (µs)")
    for (m, k), v in rows.items():
        others = {n: t for n, (t, _) in v.items() if n != "auto"}
        best = min(others, key=others.get)
        times = " ".join(f"{n} {t:.0f}" for n, t in sorted(others.items()))
        print(f"{m[:44]:44} K {k:3}  auto {v['auto'][1]} {v['auto'][0]:.0f} | {times} | auto / best "
              f"{v['auto'][0] / others[best]:.2f}, row_csc / nnz_vsr {v['row_csc'][0] / v['nnz_vsr'][0]:.2f}")
