#!/usr/bin/env python3
"""Tables of ratio-spmm.md from this folder's CSVs: python3 show.py [gpu|versions|oos|cpu|split|steps|cpu2|arrival|rules|group|heldout4|segment|chain|heldoutchain|groupk128|rerun|float2]."""
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
    """The GPU rule of 84a8527 (the second; see rules() for the current one): the pair or fused."""
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


def arrival():
    """The long rows finished by arrival counters (the branch) against two finishing launches (main)."""
    d = HERE / "h100-arrival-ab"
    runs = {v: [by_form(d / f"{v}-r{i}.csv") for i in (1, 2)] for v in ("fk-bench-main", "fk-bench")}
    print("| matrix | op | K | pair (µs) | fused, launches (µs) | fused, counters (µs) | counters / launches |")
    print("|---|---|---|---|---|---|---|")
    logs = []
    for key in runs["fk-bench"][0]:
        ms = lambda v, var: [float(t[key][var]["median_ms"]) * 1e3 for t in runs[v]]
        old, new = ms("fk-bench-main", "cuda.ratio_spmm.fused"), ms("fk-bench", "cuda.ratio_spmm.fused")
        pair = ms("fk-bench-main", "pair") + ms("fk-bench", "pair")
        logs.append(math.log(min(new) / min(old)))
        print(f"| {key[0][:40]} | {'Sᵀ' if key[1] == 'fused-t' else 'S'} | {key[2]} | {min(pair):.1f} | "
              + ", ".join(f"{x:.1f}" for x in old) + " | " + ", ".join(f"{x:.1f}" for x in new)
              + f" | {min(new) / min(old):.3f} |")
    print(f"\ngeometric mean counters / launches {math.exp(sum(logs) / len(logs)):.3f}")


# Longest row over mean row of the skewed matrices under 1M nonzeros that the rules meet
# (fk-bench ratio-spmm --explain-auto); the others are below 8.
LONGEST_OVER_MEAN = {("ml-100k", "fused-t"): 9.6, ("kos", "fused-t"): 66, ("nips", "fused-t"): 25,
                     ("default", "fused-t"): 47, ("mb", "fused-t"): 306, ("mb2k", "fused-t"): 254,
                     ("mb1k", "fused-t"): 192, ("ml-100k-real", "fused-t"): 9.8, ("kos-real", "fused-t"): 66,
                     ("hep-th", "fused"): 13.3, ("powerlaw:rows=30000,cols=30000,nnz=300000,seed=1", "fused"): 50,
                     ("powerlaw:rows=30000,cols=30000,nnz=300000,seed=1", "fused-t"): 50}


def rule_2(rows, mean, nnz, k, skew):  # 84a8527
    return (mean < 64 and nnz < 2e6 and k <= 128) or (mean < 8 and k <= 64)


def rule_3(rows, mean, nnz, k, skew, many_rows=20000):  # kernels/select.cpp now (first form: 50,000)
    tiny = rows >= many_rows and ((mean < 10 and k <= 64) or (mean < 12 and k <= 32))
    return tiny or (nnz < 1e6 and mean >= 8 and skew >= 8 and k <= 32)


def rules():
    """auto / the faster of pair and fused under each GPU rule, over every measured set."""
    sets = [("fit (c1cdc1f) + held-out 1", ["h100-final.csv", "h100-final-rerun.csv", "h100-b13d5b8-held-out.csv"]),
            ("arrival counters", ["h100-arrival-ab/fk-bench-r1.csv", "h100-arrival-ab/fk-bench-r2.csv"]),
            ("held-out 2", ["h100-held-out-2.csv"]), ("held-out 3", ["h100-held-out-3.csv"])]
    points = {}  # later sets (the arrival kernel) replace earlier ones' times for the same shape
    for name, files in sets:
        t = collections.defaultdict(lambda: collections.defaultdict(list))
        for f in files:
            for r in csv.DictReader(open(HERE / f)):
                t[(r["matrix"], r["form"], int(r["k"]))][r["variant"]].append(r)
        for key, v in t.items():
            r = v["pair"][0]
            rows = int(r["n"]) if key[1] == "fused-t" else int(r["m"])
            pair = min(float(x["median_ms"]) for x in v["pair"])
            fused = min(float(x["median_ms"]) for x in v["cuda.ratio_spmm.fused"])
            points[key] = (name, rows, int(r["nnz"]) / rows, int(r["nnz"]), pair, fused)
    print("| rule | cases | geometric mean auto / faster | worst | cases > 1.1 |")
    print("|---|---|---|---|---|")
    for label, rule in (("always fused", lambda *a: False), ("84a8527", rule_2),
                        ("third, 50,000 rows", lambda *a: rule_3(*a, many_rows=50000)),
                        ("third, 20,000 rows (now)", rule_3)):
        for scope in ("held-out 2", "held-out 3", None):
            xs = []
            for key, (name, rows, mean, nnz, pair, fused) in points.items():
                if scope and name != scope:
                    continue
                pick_pair = rule(rows, mean, nnz, key[2], LONGEST_OVER_MEAN.get(key[:2], 1))
                xs.append((pair if pick_pair else fused) / min(pair, fused))
            g = math.exp(sum(map(math.log, xs)) / len(xs))
            print(f"| {label} | {scope or 'all'} ({len(xs)}) | {g:.3f} | {max(xs):.2f} | {sum(x > 1.1 for x in xs)} |")


def group():
    """Short rows a lane group each: fused / pair per setting, and auto on the reruns of held-out 2 and 3."""
    d = HERE / "h100-group-rows"
    def load(name):
        t = collections.defaultdict(lambda: collections.defaultdict(list))
        for r in (1, 2):
            for x in csv.DictReader(open(d / f"fk-bench-{name}-r{r}.csv")):
                t[(x["matrix"], x["form"], int(x["k"]))][x["variant"]].append(float(x["median_ms"]))
        return t
    for call, names in (("first call", [("g0", "warp a row"), ("g1", "groups below 1 step, 32 steps"),
                                        ("g2", "below 2 steps, 32 steps")]),
                        ("second call", [("f2s32", "below 2 steps, 32 steps"), ("f2s8", "below 2 steps, 8 steps"),
                                         ("f2s16", "below 2 steps, 16 steps"), ("f4s16", "below 4 steps, 16 steps (kept)")])):
        runs = {n: load(n) for n, _ in names}
        print(f"| {call}: setting | cases | geometric mean fused / pair | worst |")
        print("|---|---|---|---|")
        for n, what in names:
            xs = []
            for key, v in runs[n].items():
                pair = min(min(runs[m][key]["pair"]) for m, _ in names)
                xs.append(min(v["cuda.ratio_spmm.fused"]) / pair)
            print(f"| {what} | {len(xs)} | {math.exp(sum(map(math.log, xs)) / len(xs)):.3f} | {max(xs):.2f} |")
        print()
    print("| rerun (f4s16 kernel, the fourth rule) | cases | fused / pair (geometric mean) | auto / faster (geometric mean) | worst auto / faster |")
    print("|---|---|---|---|---|")
    for f in ("held-out-2-rerun.csv", "held-out-3-rerun.csv"):
        t = collections.defaultdict(dict)
        for r in csv.DictReader(open(d / f)):
            t[(r["matrix"], r["form"], int(r["k"]))].setdefault(r["variant"], float(r["median_ms"]))
        fp = [v["cuda.ratio_spmm.fused"] / v["pair"] for v in t.values()]
        ab = [v["auto"] / min(v["pair"], v["cuda.ratio_spmm.fused"]) for v in t.values()]
        g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
        print(f"| {f} | {len(ab)} | {g(fp):.3f} | {g(ab):.3f} | {max(ab):.2f} |")


def fastest(paths, mode_of=lambda path: "", keep=lambda r: True):
    """(matrix, form, K) -> {variant or mode+variant: the lowest median over the files}."""
    t = collections.defaultdict(dict)
    for path in paths:
        for r in csv.DictReader(open(path)):
            if not keep(r):
                continue
            name = r["variant"] if r["variant"] in ("pair", "auto") else mode_of(path) + r["variant"]
            key = (r["matrix"], r["form"], int(r["k"]))
            t[key][name] = min(t[key].get(name, math.inf), float(r["median_ms"]))
            if r["variant"] == "auto":
                t[key]["chosen"] = r["chosen"]
    return t


def gmean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def heldout4():
    """The fourth GPU rule on held-out check 4: auto (its pick's own time) and always fused against the faster."""
    t = fastest([HERE / "h100-held-out-4" / "held-out-4.csv"])
    rule, fused = [], []
    for v in t.values():
        best = min(v["pair"], v["cuda.ratio_spmm.fused"])
        rule.append((v["pair"] if v["chosen"].startswith("pair") else v["cuda.ratio_spmm.fused"]) / best)
        fused.append(v["cuda.ratio_spmm.fused"] / best)
    print("| rule | cases | geometric mean / faster | worst | cases > 1.1 |")
    print("|---|---|---|---|---|")
    for name, xs in (("fourth form", rule), ("always fused", fused)):
        print(f"| {name} | {len(xs)} | {gmean(xs):.3f} | {max(xs):.2f} | {sum(x > 1.1 for x in xs)} |")


def segment():
    """Rows of one segment stored by their warp, and the scratch bound: new / old fused time."""
    d = HERE / "h100-single-segment"
    for part in ("small", "large"):
        old = fastest(sorted(d.glob(f"{part}-fk-bench-old-r*.csv")))
        new = fastest(sorted(d.glob(f"{part}-fk-bench-r*.csv")))
        xs = {k: new[k]["cuda.ratio_spmm.fused"] / old[k]["cuda.ratio_spmm.fused"] for k in new}
        print(f"{part}: {len(xs)} cases, new / old geometric mean {gmean(list(xs.values())):.3f}, "
              f"{min(xs.values()):.2f}-{max(xs.values()):.2f}")
        for k, x in xs.items():
            if abs(x - 1) > 0.05:
                print(f"  {k[0]} {k[1]} K = {k[2]}: {old[k]['cuda.ratio_spmm.fused'] * 1e3:.1f} -> "
                      f"{new[k]['cuda.ratio_spmm.fused'] * 1e3:.1f} µs ({x:.2f})")


def chain():
    """Chains fixed (32 / 16 steps), warps' chains from the problem's size, both: against fixed and the pair."""
    d = HERE / "h100-chain"
    t = fastest(sorted(d.glob("chain-*.csv")), mode_of=lambda p: p.name.split("-")[1] + ":")
    print("| chains | cases | / fixed (geometric mean) | range | / pair (geometric mean) | worst / pair | cases > 1.1 the pair |")
    print("|---|---|---|---|---|---|---|")
    for mode in ("fixed", "warp", "both"):
        f = [v[mode + ":cuda.ratio_spmm.fused"] / v["fixed:cuda.ratio_spmm.fused"] for v in t.values()]
        p = [v[mode + ":cuda.ratio_spmm.fused"] / v["pair"] for v in t.values()]
        print(f"| {mode} | {len(f)} | {gmean(f):.3f} | {min(f):.2f}-{max(f):.2f} | {gmean(p):.3f} | "
              f"{max(p):.2f} | {sum(x > 1.1 for x in p)} |")


def heldoutchain(folder="h100-held-out-chain"):
    """The chain rule's held-out check: acc4006's kernel (old) and this one against each other and the pair."""
    d = HERE / folder
    t = fastest(sorted(d.glob("held-out-chain-*.csv")), mode_of=lambda p: "old:" if "bench-old" in p.name else "new:")
    new = [v["new:cuda.ratio_spmm.fused"] for v in t.values()]
    old = [v["old:cuda.ratio_spmm.fused"] for v in t.values()]
    pair = [v["pair"] for v in t.values()]
    ratio = [n / o for n, o in zip(new, old)]
    print(f"{len(t)} cases: new / old {gmean(ratio):.3f} ({min(ratio):.2f}-{max(ratio):.2f})")
    for name, xs in (("old", old), ("new", new)):
        r = [x / p for x, p in zip(xs, pair)]
        print(f"  {name} / pair: {gmean(r):.3f}, worst {max(r):.2f}, {sum(x > 1.1 for x in r)} cases > 1.1")
    for k, v in t.items():
        n, o, p = v["new:cuda.ratio_spmm.fused"], v["old:cuda.ratio_spmm.fused"], v["pair"]
        if n / o > 1.03 or n / p > 1.0:
            print(f"  {k[0]} {k[1]} K = {k[2]}: old {o * 1e3:.1f}, new {n * 1e3:.1f}, pair {p * 1e3:.1f} µs")


def groupk128():
    """Lane groups at K = 65-128 (and floats at K = 17-32): new / base and against the pair."""
    d = HERE / "h100-group-k128"
    t = fastest(sorted(d.glob("group-k128-*.csv")), mode_of=lambda p: "base:" if "bench-base" in p.name else "new:")
    ratio = [v["new:cuda.ratio_spmm.fused"] / v["base:cuda.ratio_spmm.fused"] for v in t.values()]
    print(f"{len(t)} cases: new / base {gmean(ratio):.3f} ({min(ratio):.2f}-{max(ratio):.2f})")
    for name in ("base", "new"):
        r = [v[name + ":cuda.ratio_spmm.fused"] / v["pair"] for v in t.values()]
        print(f"  {name} / pair: {gmean(r):.3f}, worst {max(r):.2f}, {sum(x > 1.1 for x in r)} cases > 1.1")


def float2():
    """Float2 rows where K % 4 == 2, against 37b25be (floats there); K = 64 the control."""
    d = HERE / "h100-float2"
    t = fastest(sorted(d.glob("float2-*.csv")), mode_of=lambda p: "old:" if "bench-old" in p.name else "new:")
    for name, pick in (("K % 4 == 2", lambda k: k != 64), ("K = 64 (control)", lambda k: k == 64)):
        v = [x for key, x in t.items() if pick(key[2])]
        ratio = [x["new:cuda.ratio_spmm.fused"] / x["old:cuda.ratio_spmm.fused"] for x in v]
        print(f"{name}: {len(v)} cases, new / old {gmean(ratio):.3f} ({min(ratio):.2f}-{max(ratio):.2f})")
        for build in ("old", "new"):
            r = [x[build + ":cuda.ratio_spmm.fused"] / x["pair"] for x in v]
            print(f"  {build} / pair: {gmean(r):.3f}, worst {max(r):.2f}, {sum(y > 1.1 for y in r)} cases > 1.1")


{"gpu": gpu, "versions": versions, "oos": oos, "cpu": cpu, "split": split, "steps": steps, "cpu2": cpu2, "arrival": arrival, "rules": rules, "group": group, "heldout4": heldout4, "segment": segment, "chain": chain, "heldoutchain": heldoutchain, "groupk128": groupk128,
 "rerun": lambda: heldoutchain("h100-37b25be-rerun"), "float2": float2}[sys.argv[1] if len(sys.argv) > 1 else "gpu"]()
