#!/usr/bin/env python3
"""Tables of checks/vendor-on-transpose: per (matrix, K) auto's pick and time, the fastest of the
other variants, cuda.spmm.cusparse_on_transpose ("on_t"), and for the held-out set how the rule's
pick compares with nnz_vsr (the pick before the rule).
  python3 show.py every-variant-A.csv.gz every-variant-B.csv.gz   # the fit
  python3 show.py --held-out held-out-C.csv.gz                    # the validation"""
import collections, csv, gzip, math, sys

ON_T = "cuda.spmm.cusparse_on_transpose"

def load(path):
    rows = collections.defaultdict(dict)
    shape = {}
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        for r in csv.DictReader(f):
            if r["status"] != "ok":
                continue
            rows[(r["matrix"], int(r["k"]))][r["variant"]] = (float(r["median_ms"]) * 1e3, r["chosen"])
            shape[r["matrix"]] = (int(r["m"]), int(r["n"]), int(r["nnz"]))
    return rows, shape

def short(name):
    return name.split(".")[-1]

held_out = "--held-out" in sys.argv
for path in [a for a in sys.argv[1:] if not a.startswith("--")]:
    rows, shape = load(path)
    print(f"== {path} (µs)")
    ratios, within = [], 0
    for (m, k), v in rows.items():
        auto_us, pick = v["auto"]
        others = {n: t for n, (t, _) in v.items() if n not in ("auto", ON_T)}
        best = min(others, key=others.get)
        rows_t, nnz = shape[m][1], shape[m][2]
        line = (f"{m[-40:]:40} Sᵀ {rows_t:7} rows of {nnz / rows_t:7.1f} K {k:4}  auto {auto_us:9.1f} "
                f"{short(pick):22} best other {others[best]:9.1f} {short(best):10}")
        if ON_T in v:
            line += f" on_t {v[ON_T][0]:9.1f} (others' best / on_t {others[best] / v[ON_T][0]:5.2f})"
        if held_out:
            before = v["cuda.spmm.nnz_vsr"][0]
            every = min(t for n, (t, _) in v.items() if n != "auto")
            ratios.append(before / auto_us)
            within += auto_us <= 1.1 * every
            line += f" nnz_vsr / auto {before / auto_us:5.2f}, auto / best {auto_us / every:5.2f}"
        print(line)
    if held_out and ratios:
        print(f"nnz_vsr / auto: geometric mean {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f} "
              f"({min(ratios):.2f}-{max(ratios):.2f}) over {len(ratios)}; auto within 10% of the best on {within}")
