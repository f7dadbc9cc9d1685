#!/usr/bin/env python3
"""Tables of ratio-spmm.md from this folder's CSVs: python3 show.py [gpu|versions|oos|cpu|split|steps|cpu2]."""
import collections
import csv
import math
import sys
from pathlib import Path

HERE = Path(__file__).parent


def times(path, variant_key=lambda r: r["variant"]):
    t = collections.defaultdict(dict)
    for r in csv.DictReader(open(path)):
        t[(r["matrix"], int(r["k"]))][variant_key(r)] = r
    return t


def gpu():
    runs = [times(HERE / f"h100-420dd45-run{i}.csv") for i in (1, 2)]
    print("| matrix | K | pair (µs) | fused (µs) | pair / fused | fused / floor |")
    print("|---|---|---|---|---|---|")
    for key in runs[0]:
        p = [float(r[key]["pair"]["median_ms"]) * 1e3 for r in runs]
        f = [float(r[key]["cuda.ratio_spmm.fused"]["median_ms"]) * 1e3 for r in runs]
        floor = float(runs[0][key]["pair"]["floor_ms"]) * 1e3
        print(f"| {key[0]} | {key[1]} | {p[0]:.1f}, {p[1]:.1f} | {f[0]:.1f}, {f[1]:.1f} | "
              f"{p[0] / f[0]:.2f}, {p[1] / f[1]:.2f} | {f[0] / floor:.1f} |")


def versions():
    first = times(HERE / "h100-356a5a1-first-version.csv")
    final = times(HERE / "h100-420dd45-run1.csv")
    print("| matrix | K | pair / first version | pair / final |")
    print("|---|---|---|---|")
    for key in final:
        a = float(first[key]["pair"]["median_ms"]) / float(first[key]["cuda.ratio_spmm.fused"]["median_ms"])
        b = float(final[key]["pair"]["median_ms"]) / float(final[key]["cuda.ratio_spmm.fused"]["median_ms"])
        print(f"| {key[0]} | {key[1]} | {a:.2f} | {b:.2f} |")


def oos():
    t = times(HERE / "h100-420dd45-out-of-sample.csv")
    print("| matrix | K | pair (ms) | fused (ms) | pair / fused |")
    print("|---|---|---|---|---|")
    for key, v in t.items():
        p, f = float(v["pair"]["median_ms"]), float(v["cuda.ratio_spmm.fused"]["median_ms"])
        print(f"| {key[0]} | {key[1]} | {p:.3f} | {f:.3f} | {p / f:.2f} |")


def cpu():
    print("| set | matrix | rows of mean | K | pair (ms) | fused (ms) | pair / fused |")
    print("|---|---|---|---|---|---|---|")
    for name in ("fit", "check"):
        for key, v in times(HERE / f"cpu-2core-{name}.csv").items():
            r = v["pair"]
            p, f = float(r["median_ms"]), float(v["omp.ratio_spmm.rows"]["median_ms"])
            mean = int(r["nnz"]) / int(r["m"])
            print(f"| {name} | {key[0]} | {mean:.0f} | {key[1]} | {p:.3f} | {f:.3f} | {p / f:.2f} |")


def by_form(path):
    t = collections.defaultdict(dict)
    for r in csv.DictReader(open(path)):
        t[(r["matrix"], r["form"], int(r["k"]))][r["variant"]] = r
    return t


def gpu_rule_pick(rows_mean, nnz, k):
    """kernels/select.cpp's GPU rule for the ratio SpMM: the pair or the fused kernel."""
    small_short = rows_mean < 64 and nnz < 2e6 and k <= 128
    return "pair" if small_short or (rows_mean < 8 and k <= 64) else "fused"


def split():
    runs = [by_form(HERE / "h100-final.csv"), by_form(HERE / "h100-final-rerun.csv")]
    print("| matrix | op | rows of mean | K | pair (µs) | fused (µs) | pair / fused | auto |")
    print("|---|---|---|---|---|---|---|---|")
    for key, v in runs[0].items():
        r = v["pair"]
        rows = int(r["n"]) if key[1] == "fused-t" else int(r["m"])
        mean = int(r["nnz"]) / rows
        p = [float(t[key]["pair"]["median_ms"]) * 1e3 for t in runs if key in t]
        f = [float(t[key]["cuda.ratio_spmm.fused"]["median_ms"]) * 1e3 for t in runs if key in t]
        pick = gpu_rule_pick(mean, int(r["nnz"]), key[2])
        print(f"| {key[0]} | {'Sᵀ' if key[1] == 'fused-t' else 'S'} | {mean:.1f} | {key[2]} | "
              + ", ".join(f"{x:.1f}" for x in p) + " | " + ", ".join(f"{x:.1f}" for x in f) + " | "
              + ", ".join(f"{a / b:.2f}" for a, b in zip(p, f)) + f" | {pick} |")


def steps():
    print("| long rows (one launch) | geometric mean pair / fused | worst |")
    print("|---|---|---|")
    for v, what in ((1, "parts of 32-256 steps (growing with nnz x K), segments of 32"),
                    (2, "parts and segments of 64 steps"), (3, "parts and segments of 32 steps")):
        t = by_form(HERE / f"h100-steps-merged-v{v}.csv")
        logs = [math.log(float(d["pair"]["median_ms"]) / float(d["cuda.ratio_spmm.fused"]["median_ms"]))
                for d in t.values()]
        print(f"| {what} | {math.exp(sum(logs) / len(logs)):.3f} | {math.exp(min(logs)):.2f} |")



def cpu_rule_pick(k, mean, skewed):
    """kernels/select.cpp's CPU rule (second form): fused from K = 64, or K = 48 on even rows of mean >= 100."""
    return "fused" if k >= 64 or (k >= 48 and mean >= 100 and not skewed) else "pair"


def cpu2():
    print("| set | matrix | op | rows of mean | K | pair (ms) | fused (ms) | pair / fused | auto | auto / best |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in ("fit", "check"):
        for key, v in by_form(HERE / f"cpu-2core-rule2-{name}.csv").items():
            r = v["pair"]
            t = key[1] == "fused-t"
            rows = int(r["n"]) if t else int(r["m"])
            mean = int(r["nnz"]) / rows
            p, f = float(r["median_ms"]), float(v["omp.ratio_spmm.rows"]["median_ms"])
            # Skew as cpu_spmm_skewed finds it where it matters (K = 48-63): the transposes are skewed,
            # the untransposed corpora and ml-100k not (checked against fk-bench --explain-auto).
            skewed = t or key[0].startswith("powerlaw")
            pick = cpu_rule_pick(key[2], mean, skewed)
            chosen = f if pick == "fused" else p
            print(f"| {name} | {key[0][:40]} | {'Sᵀ' if t else 'S'} | {mean:.1f} | {key[2]} | {p:.3f} | {f:.3f} | "
                  f"{p / f:.2f} | {pick} | {chosen / min(p, f):.2f} |")


{"gpu": gpu, "versions": versions, "oos": oos, "cpu": cpu, "split": split, "steps": steps, "cpu2": cpu2}[sys.argv[1] if len(sys.argv) > 1 else "gpu"]()
