#!/usr/bin/env python3
"""Replays the `auto` rules against measured fk-bench CSVs (scripts/replay_rules.sh runs it).

Inputs: the measured CSVs (every variant's median per problem) and a picks CSV from
`fk-bench --explain-auto` (what the rules in the current build choose). For each problem the
time of the new pick is its measured median; where the pick equals what `auto` chose when it was
measured, the measured `auto` row is used instead (timed in turn with the baseline, and at SpMM
K = 1 it is the SpMV path that the plain cuSPARSE variant row does not time).

Prints per (op, form, K) and per (op, form): geometric-mean speedup of the picks over cuSPARSE,
the slowest problem, how many problems the pick is within 10% of the best variant, and then every
problem that misses either (slower than cuSPARSE by over 3%, or over 10% behind the best).
"""
import argparse
import collections
import csv
import gzip
import math
import sys

BASELINES = {"sddmm": "cuda.sddmm.cusparse", "spmm": "cuda.spmm.cusparse"}


def open_csv(path):
    """A CSV file, or a gzip-compressed one (.gz), as text."""
    return gzip.open(path, "rt", newline="") if path.endswith(".gz") else open(path, newline="")


def load_measured(paths):
    runs = collections.defaultdict(dict)  # (op, form, matrix, k) -> {variant: ms}
    chosen = {}
    for path in paths:
        with open_csv(path) as f:
            for r in csv.DictReader(f):
                if r.get("device") != "gpu" or r.get("status") != "ok":
                    continue
                key = (r["op"], r["form"], r["matrix"], int(r["k"]))
                runs[key][r["variant"]] = float(r["median_ms"])
                if r["variant"] == "auto":
                    chosen[key] = r["chosen"]
    return runs, chosen


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--picks", required=True, help="CSV written by fk-bench --explain-auto --csv")
    ap.add_argument("--misses", action="store_true", help="list every problem that misses a target")
    ap.add_argument("measured", nargs="+", help="fk-bench CSVs (or .csv.gz) with every variant timed")
    args = ap.parse_args()

    runs, chosen = load_measured(args.measured)
    groups = collections.defaultdict(list)
    missing = 0
    with open(args.picks, newline="") as f:
        for p in csv.DictReader(f):
            key = (p["op"], p["form"], p["matrix"], int(p["k"]))
            times = runs.get(key)
            pick = p["auto_pick"]
            base = BASELINES[p["op"]]
            if not times or base not in times:
                missing += 1
                continue
            if chosen.get(key) == pick and "auto" in times:
                t = times["auto"]
            elif pick in times:
                t = times[pick]
            else:
                missing += 1
                continue
            variants = {v: ms for v, ms in times.items() if v != "auto"}
            best = min(variants, key=variants.get)
            groups[(p["op"], p["form"], int(p["k"]))].append(
                dict(matrix=p["matrix"], pick=pick, ms=t, base=times[base], best=best, best_ms=variants[best],
                     rows=p["rows"], mean=float(p["row_mean"]), nnz=p["nnz"]))
    if missing:
        print(f"({missing} picks had no measured time for the picked variant or the baseline)")

    def summary(label, items):
        sp = [i["base"] / i["ms"] for i in items]
        gm = math.exp(sum(map(math.log, sp)) / len(sp))
        within = sum(i["ms"] <= 1.10 * i["best_ms"] for i in items)
        print(f"{label:24s} n={len(items):3d}  geomean x{gm:.3f}  slowest x{min(sp):.2f}  within 10% of best {within}/{len(items)}")

    by_op = collections.defaultdict(list)
    for (op, form, k), items in sorted(groups.items()):
        summary(f"{op} {form} K={k}", items)
        by_op[(op, form)] += items
    print()
    for (op, form), items in sorted(by_op.items()):
        summary(f"{op} {form} (all K)", items)
    if args.misses:
        print("\nmisses (pick over 3% slower than cuSPARSE, or over 10% behind the best):")
        for (op, form, k), items in sorted(groups.items()):
            for i in items:
                if i["base"] / i["ms"] < 0.97 or i["ms"] > 1.10 * i["best_ms"]:
                    print(f"  {op} {form} K={k:<4d} {i['matrix'][:44]:44s} rows {i['rows']:>7s} mean {i['mean']:8.1f} "
                          f"nnz {i['nnz']:>9s}  {i['pick'].split('.')[-1]:9s} {i['ms']*1000:8.1f} us  "
                          f"cuSPARSE x{i['base']/i['ms']:.2f}  best {i['best'].split('.')[-1]} x{i['ms']/i['best_ms']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
