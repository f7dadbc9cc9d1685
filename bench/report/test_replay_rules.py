#!/usr/bin/env python3
"""Checks bench/report/replay_rules.py on made-up CSVs (fixtures, not results): the pick's time is
the measured median of the picked variant, or the measured `auto` row when the pick is what `auto`
chose then; the summary lines (geometric mean over cuSPARSE, slowest problem, picks within 10% of
the best) and --misses come out right; gzip-compressed measurements read the same.

Run by ctest (replay_rules_checks). Needs only python3's standard library.
"""
import csv
import gzip
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPLAY = os.path.join(HERE, "replay_rules.py")

MEASURED = [  # op, form, matrix, k, variant, chosen, median_ms
    ("sddmm", "scaled", "a", 32, "cuda.sddmm.cusparse", "", 2.0),
    ("sddmm", "scaled", "a", 32, "cuda.sddmm.convert", "", 1.0),
    ("sddmm", "scaled", "a", 32, "auto", "cuda.sddmm.cusparse", 2.1),
    ("sddmm", "scaled", "b", 32, "cuda.sddmm.cusparse", "", 1.0),
    ("sddmm", "scaled", "b", 32, "cuda.sddmm.preds", "", 0.5),
    ("sddmm", "scaled", "b", 32, "auto", "cuda.sddmm.cusparse", 0.8),
    ("spmm", "t", "a", 4, "cuda.spmm.cusparse", "", 3.0),
    ("spmm", "t", "a", 4, "cuda.spmm.vdl", "", 1.5),
    ("spmm", "t", "a", 4, "auto", "cuda.spmm.vdl", 1.5),
]
PICKS = [  # op, form, matrix, k, auto_pick (what the rules of "this build" say)
    ("sddmm", "scaled", "a", 32, "cuda.sddmm.convert"),   # 2.0 / 1.0 = 2x, the best
    ("sddmm", "scaled", "b", 32, "cuda.sddmm.cusparse"),  # measured auto row: 1.0 / 0.8 = 1.25x, 1.6x behind preds
    ("spmm", "t", "a", 4, "cuda.spmm.vdl"),               # 3.0 / 1.5 = 2x
]


def write_measured(path, opener):
    with opener(path) as f:
        w = csv.writer(f)
        w.writerow(["op", "form", "matrix", "m", "n", "nnz", "k", "variant", "chosen", "device", "median_ms",
                    "status"])
        for op, form, m, k, v, chosen, ms in MEASURED:
            w.writerow([op, form, m, 10, 10, 50, k, v, chosen, "gpu", ms, "ok"])


def main():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        picks = os.path.join(tmp, "picks.csv")
        with open(picks, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["op", "form", "matrix", "m", "n", "nnz", "k", "device", "rows", "row_mean", "row_cv",
                        "row_max", "auto_pick"])
            for op, form, m, k, pick in PICKS:
                w.writerow([op, form, m, 10, 10, 50, k, "gpu", 10, 5, 0.5, 9, pick])
        plain = os.path.join(tmp, "measured.csv")
        packed = os.path.join(tmp, "measured.csv.gz")
        write_measured(plain, lambda p: open(p, "w", newline=""))
        write_measured(packed, lambda p: gzip.open(p, "wt", newline=""))
        outputs = []
        for measured in (plain, packed):
            r = subprocess.run([sys.executable, REPLAY, "--picks", picks, "--misses", measured],
                               capture_output=True, text=True)
            if r.returncode != 0:
                failures.append(f"{os.path.basename(measured)}: exit {r.returncode}: {r.stderr}")
            outputs.append(r.stdout)
        out = outputs[0]
        if outputs[1] != out:
            failures.append("the .csv.gz replay differs from the plain one")
        # SDDMM: geometric mean of 2x and 1.25x = 1.581; slowest 1.25x; 1 of 2 within 10% of best.
        expected = [
            "sddmm scaled (all K)     n=  2  geomean x1.581  slowest x1.25  within 10% of best 1/2",
            "spmm t (all K)           n=  1  geomean x2.000  slowest x2.00  within 10% of best 1/1",
        ]
        for line in expected:
            if line not in out:
                failures.append(f"missing line: {line!r}")
        misses = out.split("misses", 1)[-1].strip().splitlines()[1:]
        if len(misses) != 1 or " b " not in f" {misses[0].split()[3]} " or "x1.60" not in misses[0]:
            failures.append(f"--misses should list problem b only, 1.6x behind preds: {misses}")
    if failures:
        print("\n".join(failures))
        print("\nreplay output:\n" + outputs[0] if outputs else "")
        return 1
    print("replay_rules.py checks: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
