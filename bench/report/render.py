#!/usr/bin/env python3
"""Renders what scripts/report.sh measured into report.md, PNG plots and summary CSVs.

usage: render.py --out DIR [--commit SHA] MEASURED_DIR [MEASURED_DIR...]

A measured folder holds machine.json, steps.tsv, commands.sh, kernels.csv (fk-bench rows) and
apps/<id>/{entry.tsv,compare.json} (an app's --compare result, apps/common/compare.hpp). Several
folders (a run split over several calls) are merged: kernel rows are concatenated (a problem measured
twice keeps its last rows), apps and steps are listed from all of them, the machine from the first.

Writes into --out: report.md, apps-summary.png, app-<id>.png, kernels-<dev>-<op>.png,
roofline-<dev>-<op>.png, auto-vs-best-<dev>-<op>.png, apps.csv and kernel-problems.csv.

Exit status 1 (after writing what it can) when something is really broken: a measurement step
failed, a kernel row is not 'ok', an app run left no usable compare.json, a part that ran produced
an empty table, or a plot was not written. Only python3 and matplotlib (Debian packages) are used.
"""
import argparse
import csv
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

PROBLEMS = []  # what makes the exit status 1, in the order found


def problem(message):
    PROBLEMS.append(message)
    print("render.py: " + message, file=sys.stderr)


# ---- reading ------------------------------------------------------------------------------------


def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        problem("cannot read %s: %s" % (path, e))
        return None


def read_tsv(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def to_float(text):
    try:
        v = float(text)
    except (TypeError, ValueError):
        return math.nan
    return v


def read_kernels(dirs):
    """fk-bench rows from every folder; the last measurement of a (problem, variant) wins."""
    rows = {}
    for d in dirs:
        path = os.path.join(d, "kernels.csv")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8", newline="") as f:
            for r in csv.DictReader(f):
                for key in ("m", "n", "nnz", "k", "threads", "runs"):
                    v = to_float(r.get(key))
                    r[key] = int(v) if math.isfinite(v) else 0
                for key in ("prep_ms", "median_ms", "min_ms", "gflops", "gbps", "floor_ms",
                            "speedup_vs_baseline", "max_rel_err"):
                    r[key] = to_float(r.get(key))
                key = (r["device"], r["op"], r["form"], r["matrix"], r["k"], r["variant"])
                rows[key] = r
    return list(rows.values())


def read_apps(dirs):
    """Every apps/<id> of every folder; an id measured in several folders keeps the last one."""
    apps = {}
    for d in dirs:
        root = os.path.join(d, "apps")
        if not os.path.isdir(root):
            continue
        for app_id in sorted(os.listdir(root)):
            folder = os.path.join(root, app_id)
            entry = read_tsv_row(os.path.join(folder, "entry.tsv"))
            cmp_path = os.path.join(folder, "compare.json")
            apps[app_id] = {
                "id": app_id,
                "binary": entry[1] if len(entry) > 1 else "",
                "config": entry[2] if len(entry) > 2 else "",
                "extra": entry[3] if len(entry) > 3 else "",
                "compare": read_json(cmp_path) if os.path.exists(cmp_path) else None,
                "dir": d,
            }
    return [apps[k] for k in sorted(apps)]


def read_tsv_row(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.readline().rstrip("\n").split("\t")
    except OSError:
        return []


# ---- small helpers ------------------------------------------------------------------------------


def geomean(values):
    values = [v for v in values if v > 0 and math.isfinite(v)]
    if not values:
        return math.nan
    return math.exp(sum(math.log(v) for v in values) / len(values))


def median(values):
    values = sorted(v for v in values if math.isfinite(v))
    if not values:
        return math.nan
    n = len(values)
    return values[n // 2] if n % 2 else 0.5 * (values[n // 2 - 1] + values[n // 2])


def fmt(v, spec="%.3g"):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    return spec % v


def md_escape(text):
    return str(text).replace("|", "\\|")


def short_matrix(name, limit=30):
    """Generated specs 'powerlaw:rows=R,cols=C,nnz=Z,seed=S' become 'powerlaw R x C'."""
    if ":" in name:
        kind, _, spec = name.partition(":")
        parts = dict(p.split("=", 1) for p in spec.split(",") if "=" in p)
        if "rows" in parts and "cols" in parts:
            name = "%s %sx%s" % (kind, parts["rows"], parts["cols"])
    # Long names (DLMC layers) differ at their ends: keep the head's first part and the tail.
    if len(name) <= limit:
        return name
    head = name.split("/")[0] + "/" if "/" in name[:8] else name[:6]
    return head + "…" + name[-(limit - len(head) - 1):]


def op_title(op, form):
    if op == "sddmm":
        return "SDDMM" + ("" if form == "scaled" else " (%s)" % form)
    return {"n": "SpMM S·B", "t": "SpMM Sᵀ·B"}.get(form, "SpMM " + form)


def op_slug(op, form):
    return op + "-" + form


def variant_short(v):
    parts = v.split(".")
    return parts[-1] if len(parts) == 3 else v


def save(fig, out_dir, name, written):
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        problem("plot %s was not written" % name)
    written.append(name)
    return name


# ---- apps ---------------------------------------------------------------------------------------


def app_summary(app):
    c = app["compare"] or {}
    gpu, cpu = c.get("gpu"), c.get("cpu") or {}
    finals = c.get("finals") or []
    rels = [f.get("rel_diff") for f in finals if f.get("rel_diff") is not None]
    return {
        "id": app["id"],
        "binary": app["binary"],
        "config": app["config"],
        "extra": app["extra"],
        "iter_name": c.get("iter_name", "iter"),
        "gpu_device": gpu.get("device", "") if gpu else "",
        "cpu_device": cpu.get("device", ""),
        "gpu_median_s": gpu.get("median_seconds") if gpu else None,
        "cpu_median_s": cpu.get("median_seconds"),
        "speedup": c.get("speedup_median"),
        "iterations": len(cpu.get("iter_seconds") or []),
        "max_rel_diff": max(rels) if rels else None,
        "gpu_unavailable": c.get("gpu_unavailable"),
        "finals": finals,
    }


def plot_app(app, s, out_dir, written):
    c = app["compare"]
    gpu = c.get("gpu")
    cpu = c["cpu"]
    g = (gpu or {}).get("iter_seconds") or []
    cs = cpu.get("iter_seconds") or []
    n = max(len(g), len(cs))
    fig, ax = plt.subplots(figsize=(max(5.0, 1.0 + 0.7 * n), 3.6))
    width = 0.38 if gpu else 0.6
    xs = list(range(1, n + 1))
    if gpu:
        ax.bar([x - width / 2 for x in xs[:len(g)]], [v if v is not None else 0 for v in g],
               width, label="GPU: " + gpu.get("device", ""), color="#2a9d3f")
        ax.bar([x + width / 2 for x in xs[:len(cs)]], [v if v is not None else 0 for v in cs],
               width, label="CPU: " + cpu.get("device", ""), color="#3465a4")
        sp = c.get("speedup_per_iter") or []
        top = max([v for v in g + cs if v] or [1])
        for i, v in enumerate(sp):
            if v is not None and i < len(cs) and cs[i]:
                ax.annotate("%.1f×" % v, (xs[i], max(cs[i], g[i] or 0)), textcoords="offset points",
                            xytext=(0, 3), ha="center", fontsize=8)
        positive = [v for v in g + cs if v]
        if positive and max(positive) / min(positive) > 30:
            ax.set_yscale("log")
            ax.set_ylim(min(positive) / 4, top * 3)
        else:
            ax.set_ylim(0, top * 1.15)
        title = "%s: median %s %.4g s GPU, %.4g s CPU, %s faster on the GPU" % (
            app["id"], s["iter_name"], s["gpu_median_s"] or math.nan, s["cpu_median_s"] or math.nan,
            fmt(s["speedup"], "%.1f×"))
    else:
        ax.bar(xs[:len(cs)], [v if v is not None else 0 for v in cs], width,
               label="CPU: " + cpu.get("device", ""), color="#3465a4")
        ax.set_ylim(top=max([v for v in cs if v] or [1]) * 1.15)
        title = "%s: CPU only (%s), median %.4g s per %s" % (
            app["id"], c.get("gpu_unavailable") or "no GPU", s["cpu_median_s"] or math.nan,
            s["iter_name"])
    ax.set_title(title, fontsize=9)
    ax.set_xlabel(s["iter_name"])
    ax.set_ylabel("seconds")
    ax.set_xticks(xs)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
    ax.grid(axis="y", alpha=0.3)
    return save(fig, out_dir, "app-%s.png" % app["id"], written)


def plot_apps_summary(summaries, out_dir, written):
    fig, ax = plt.subplots(figsize=(7.5, 0.55 * len(summaries) + 1.4))
    ys = list(range(len(summaries)))
    h = 0.38
    any_gpu = any(s["gpu_median_s"] for s in summaries)
    labelled = set()

    def label_once(name):
        if name in labelled:
            return None
        labelled.add(name)
        return name

    for y, s in zip(ys, summaries):
        if s["gpu_median_s"]:
            ax.barh(y - h / 2, s["gpu_median_s"], h, color="#2a9d3f", label=label_once("GPU"))
        if s["cpu_median_s"]:
            ax.barh(y + (h / 2 if any_gpu else 0), s["cpu_median_s"], h, color="#3465a4",
                    label=label_once("CPU"))
            label = ("%.1f× on the GPU" % s["speedup"]) if s["speedup"] else "CPU only"
            ax.annotate(label, (s["cpu_median_s"], y), textcoords="offset points", xytext=(4, -3),
                        fontsize=8)
    ax.set_yticks(ys)
    ax.set_yticklabels([s["id"] for s in summaries], fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("median seconds per iteration (log scale)")
    ax.set_title("Apps: time per iteration, GPU vs CPU", fontsize=10)
    values = [v for s in summaries for v in (s["gpu_median_s"], s["cpu_median_s"]) if v]
    ax.set_xlim(min(values) / 5, max(values) * 8)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    ax.grid(axis="x", alpha=0.3, which="both")
    return save(fig, out_dir, "apps-summary.png", written)


# ---- kernels ------------------------------------------------------------------------------------


def kernel_problems(rows):
    """One entry per (device, op, form, matrix, K): its variants, auto, baseline and best."""
    groups = {}
    for r in rows:
        key = (r["device"], r["op"], r["form"], r["matrix"], r["k"])
        groups.setdefault(key, []).append(r)
    problems = []
    for key in sorted(groups, key=lambda k: (k[0], k[1], k[2], k[3], k[4])):
        rs = groups[key]
        auto = next((r for r in rs if r["variant"] == "auto"), None)
        variants = [r for r in rs if r["variant"] != "auto"]
        ok = [r for r in variants if r["status"] == "ok" and r["median_ms"] > 0]
        # The best of the candidates auto chooses among: the double-precision reference is the test
        # oracle, not a candidate.
        cands = [r for r in ok if not r["variant"].startswith("ref.")] or ok
        best = min(cands, key=lambda r: r["median_ms"]) if cands else None
        base_name = rs[0].get("baseline") or ""
        base = next((r for r in variants if r["variant"] == base_name), None)
        any_row = rs[0]
        p = {
            "device": key[0], "op": key[1], "form": key[2], "matrix": key[3], "k": key[4],
            "m": any_row["m"], "n": any_row["n"], "nnz": any_row["nnz"],
            "device_name": any_row.get("device_name", ""), "rows": rs,
            "baseline": base_name, "baseline_ms": base["median_ms"] if base else math.nan,
            "auto_ms": auto["median_ms"] if auto else math.nan,
            "auto_pick": (auto.get("chosen") or "") if auto else "",
            "best": best["variant"] if best else "", "best_ms": best["median_ms"] if best else math.nan,
            "floor_ms": any_row["floor_ms"],
        }
        p["auto_vs_baseline"] = p["baseline_ms"] / p["auto_ms"] if p["auto_ms"] > 0 else math.nan
        p["auto_vs_best"] = p["auto_ms"] / p["best_ms"] if p["best_ms"] > 0 else math.nan
        p["auto_vs_floor"] = p["auto_ms"] / p["floor_ms"] if p["floor_ms"] > 0 else math.nan
        problems.append(p)
    return problems


def machine_limits(rows):
    """Bandwidth (GB/s) and peak (GFLOP/s) that fk-bench's floor used, recovered from its rows:
    floor_ms = max(bytes / bandwidth, flops / peak), and bytes, flops = GB/s, GFLOP/s x median."""
    bw, peak = [], []
    for r in rows:
        t, fl = r["median_ms"], r["floor_ms"]
        if not (t > 0 and fl > 0):
            continue
        if r["bound"] == "memory" and r["gbps"] > 0:
            bw.append(r["gbps"] * t / fl)
        elif r["bound"] == "compute" and r["gflops"] > 0:
            peak.append(r["gflops"] * t / fl)
    return median(bw), median(peak)


def variant_colors(names):
    cmap = plt.get_cmap("tab10" if len(names) <= 10 else "tab20")
    return {v: cmap(i % cmap.N) for i, v in enumerate(sorted(names))}


def plot_kernel_gflops(device, op, form, problems, rows, out_dir, written):
    matrices = sorted({p["matrix"] for p in problems}, key=lambda m: min(
        p["nnz"] for p in problems if p["matrix"] == m))
    variants = sorted({r["variant"] for r in rows if r["variant"] != "auto"})
    baseline = problems[0]["baseline"]
    colors = variant_colors([v for v in variants if v != baseline])
    cols = min(4, len(matrices))
    nrows = math.ceil(len(matrices) / cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(3.6 * cols, 2.8 * nrows + 0.8), squeeze=False)
    handles = {}
    for ax, m in zip([a for row in axes for a in row], matrices):
        ps = sorted((p for p in problems if p["matrix"] == m), key=lambda p: p["k"])
        ks = [p["k"] for p in ps]
        for v in variants:
            pts = [(p["k"], r["gflops"]) for p in ps for r in p["rows"]
                   if r["variant"] == v and r["status"] == "ok" and r["gflops"] > 0]
            if not pts:
                continue
            x, y = zip(*pts)
            if v == baseline:
                h, = ax.plot(x, y, color="black", lw=2.6, marker="s", ms=4, zorder=5)
            elif v.startswith("ref."):
                h, = ax.plot(x, y, color="0.6", lw=0.8, ls=":", marker=".", ms=3)
            else:
                h, = ax.plot(x, y, color=colors[v], lw=1.2, marker="o", ms=3)
            handles.setdefault(v + (" (baseline)" if v == baseline else ""), h)
        pts = [(p["k"], 2.0 * p["nnz"] * p["k"] / (p["auto_ms"] * 1e6)) for p in ps
               if p["auto_ms"] > 0]
        if pts:
            x, y = zip(*pts)
            h, = ax.plot(x, y, ls="none", marker="x", ms=8, mew=2, color="red", zorder=6)
            handles.setdefault("auto (its pick)", h)
        pts = [(p["k"], 2.0 * p["nnz"] * p["k"] / (p["floor_ms"] * 1e6)) for p in ps
               if p["floor_ms"] > 0]
        if pts:
            x, y = zip(*pts)
            h, = ax.plot(x, y, color="0.35", lw=1, ls="--")
            handles.setdefault("floor (no variant can beat it)", h)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(ks)
        ax.set_xticklabels([str(k) for k in ks], fontsize=7)
        ax.tick_params(axis="y", labelsize=7)
        ax.set_title("%s (nnz %s)" % (short_matrix(m), format(ps[0]["nnz"], ",")), fontsize=8)
        ax.grid(alpha=0.3, which="both")
    for ax in [a for row in axes for a in row][len(matrices):]:
        ax.axis("off")
    for row in axes:
        row[0].set_ylabel("GFLOP/s", fontsize=8)
    for ax in axes[-1]:
        ax.set_xlabel("K", fontsize=8)
    fig.suptitle("%s on %s: GFLOP/s (2·nnz·K / median time) by variant and K" % (
        op_title(op, form), problems[0]["device_name"] or device), fontsize=10)
    fig.legend(list(handles.values()), [variant_short(k) if " " not in k else
                                        variant_short(k.split(" ")[0]) + " " + k.split(" ", 1)[1]
                                        for k in handles],
               loc="lower center", ncol=min(6, len(handles)), fontsize=8,
               bbox_to_anchor=(0.5, -0.01))
    fig.tight_layout(rect=(0, 0.06 + 0.02 * (len(handles) > 6), 1, 0.96))
    return save(fig, out_dir, "kernels-%s-%s.png" % (device, op_slug(op, form)), written)


def plot_roofline(device, op, form, problems, rows, bw, peak, out_dir, written):
    fig, ax = plt.subplots(figsize=(7.2, 4.8))
    baseline = problems[0]["baseline"]
    variants = sorted({r["variant"] for r in rows if r["variant"] not in ("auto", baseline)
                       and not r["variant"].startswith("ref.")})
    colors = variant_colors(variants)

    def points(select):
        xs, ys = [], []
        for r in rows:
            if select(r) and r["status"] == "ok" and r["gbps"] > 0 and r["gflops"] > 0:
                xs.append(r["gflops"] / r["gbps"])  # flops per compulsory byte
                ys.append(r["gflops"])
        return xs, ys

    for v in variants:
        x, y = points(lambda r, v=v: r["variant"] == v)
        ax.scatter(x, y, s=12, color=colors[v], alpha=0.55, label=variant_short(v))
    x, y = points(lambda r: r["variant"] == baseline)
    ax.scatter(x, y, s=26, color="black", marker="s", label=variant_short(baseline) + " (baseline)",
               zorder=5)
    x, y = points(lambda r: r["variant"] == "auto")
    ax.scatter(x, y, s=40, color="red", marker="x", label="auto", zorder=6)
    xs_all, ys_all = points(lambda r: not r["variant"].startswith("ref."))
    if xs_all:
        lo, hi = min(xs_all) / 2, max(xs_all) * 2
        notes = []
        if math.isfinite(bw):
            if math.isfinite(peak):
                ridge = peak / bw
                xs = sorted({lo, hi, min(max(ridge, lo), hi)})
                ax.plot(xs, [min(peak, x * bw) for x in xs], color="0.2", lw=1.8,
                        label="roof: min(peak, AI × bandwidth)")
                notes.append("bandwidth %.0f GB/s, peak %.0f GFLOP/s" % (bw, peak))
            else:
                ax.plot([lo, hi], [lo * bw, hi * bw], color="0.2", lw=1.8,
                        label="bandwidth roof (AI × bandwidth)")
                notes.append("bandwidth %.0f GB/s; peak unknown (no compute-bound row)" % bw)
        ax.set_xlim(lo, hi)
        if notes:
            ax.text(0.01, 0.99, "; ".join(notes), transform=ax.transAxes, va="top", fontsize=8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (flop per compulsory byte)")
    ax.set_ylabel("achieved GFLOP/s")
    ax.set_title("%s on %s: roofline (every problem and variant)" % (
        op_title(op, form), problems[0]["device_name"] or device), fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, loc="lower right", ncol=2)
    return save(fig, out_dir, "roofline-%s-%s.png" % (device, op_slug(op, form)), written)


def plot_auto_vs_best(device, op, form, problems, out_dir, written):
    ps = [p for p in problems if math.isfinite(p["auto_vs_best"])]
    if not ps:
        problem("%s %s %s: no problem has both an auto row and an ok variant" % (device, op, form))
        return None
    fig, ax = plt.subplots(figsize=(7.2, 0.19 * len(ps) + 1.5))
    ys = list(range(len(ps)))
    vals = [p["auto_vs_best"] for p in ps]
    colors = ["#2a9d3f" if v <= 1.1 else ("#e9a23b" if v <= 1.5 else "#c0392b") for v in vals]
    ax.barh(ys, vals, color=colors, height=0.75)
    for y, p in zip(ys, ps):
        text = variant_short(p["auto_pick"]) or "?"
        if p["auto_pick"] != p["best"]:
            text += " (best: %s)" % variant_short(p["best"])
        ax.annotate(text, (p["auto_vs_best"], y), textcoords="offset points", xytext=(3, -2.5),
                    fontsize=6)
    ax.axvline(1.0, color="black", lw=1)
    ax.axvline(1.1, color="0.5", lw=0.8, ls="--")
    ax.set_yticks(ys)
    ax.set_yticklabels(["%s K=%d" % (short_matrix(p["matrix"], 26), p["k"]) for p in ps],
                       fontsize=6)
    ax.invert_yaxis()
    ax.set_xlim(0, max(vals + [1.2]) * 1.45)
    ax.set_xlabel("auto time / best variant time (1 = auto picked the fastest; dashed: 1.1)")
    within = sum(1 for v in vals if v <= 1.1)
    ax.set_title("%s on %s: auto against the best variant (within 10%%: %d of %d)" % (
        op_title(op, form), ps[0]["device_name"] or device, within, len(ps)), fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    return save(fig, out_dir, "auto-vs-best-%s-%s.png" % (device, op_slug(op, form)), written)


# ---- the report ---------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="folder for report.md and the plots")
    ap.add_argument("--commit", default="", help="commit of the binaries when machine.json lacks it")
    ap.add_argument("dirs", nargs="+", help="folders scripts/report.sh measured into")
    args = ap.parse_args()
    out = args.out
    os.makedirs(out, exist_ok=True)
    for d in args.dirs:
        if not os.path.isdir(d):
            problem("no such folder: %s" % d)
    dirs = [d for d in args.dirs if os.path.isdir(d)]

    machines = []
    for d in dirs:
        path = os.path.join(d, "machine.json")
        if os.path.exists(path):
            m = read_json(path)
            if m:
                machines.append((d, m))
        else:
            problem("%s has no machine.json (not a scripts/report.sh folder?)" % d)
    machine = machines[0][1] if machines else {}
    if args.commit and machine.get("commit", "unknown") in ("", "unknown"):
        machine["commit"] = args.commit

    steps = []
    for d in dirs:
        for s in read_tsv(os.path.join(d, "steps.tsv")):
            s["dir"] = d
            steps.append(s)
    for s in steps:
        if s.get("status") == "failed":
            problem("step %s %s failed (%s); log: %s" % (
                s["kind"], s["id"], s.get("note", ""), os.path.join(s["dir"], s.get("log", ""))))
    kernel_steps = [s for s in steps if s.get("kind") == "kernels" and s.get("status") != "skipped"]
    app_steps = [s for s in steps if s.get("kind") == "app"]

    written = []
    # Apps.
    apps = read_apps(dirs)
    usable = []
    for a in apps:
        c = a["compare"]
        ran_ok = any(s.get("kind") == "app" and s.get("id") == a["id"] and s.get("status") == "ok"
                     for s in steps)
        if c is None:
            if ran_ok:
                problem("app %s: the run succeeded but left no compare.json" % a["id"])
            continue
        if not isinstance(c.get("cpu"), dict) or not c["cpu"].get("iter_seconds"):
            problem("app %s: compare.json has no CPU iteration times" % a["id"])
            continue
        if c.get("gpu") is not None and not c["gpu"].get("iter_seconds"):
            problem("app %s: compare.json has no GPU iteration times" % a["id"])
            continue
        usable.append(a)
    if any(s.get("status") != "skipped" for s in app_steps) and not usable:
        problem("the apps table is empty: no app run produced a usable compare.json")
    summaries = [app_summary(a) for a in usable]
    app_plots = {}
    for a, s in zip(usable, summaries):
        app_plots[a["id"]] = plot_app(a, s, out, written)
    apps_summary_png = plot_apps_summary(summaries, out, written) if summaries else None
    with open(os.path.join(out, "apps.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "binary", "config", "extra_args", "iter_name", "gpu_device", "cpu_device",
                    "gpu_median_s", "cpu_median_s", "speedup", "iterations", "max_rel_diff",
                    "gpu_unavailable"])
        for s in summaries:
            w.writerow([s["id"], s["binary"], s["config"], s["extra"], s["iter_name"],
                        s["gpu_device"], s["cpu_device"], s["gpu_median_s"], s["cpu_median_s"],
                        s["speedup"], s["iterations"], s["max_rel_diff"], s["gpu_unavailable"] or ""])

    # Kernels.
    rows = read_kernels(dirs)
    if kernel_steps and not rows:
        problem("the kernel table is empty: kernels.csv has no rows")
    bad = [r for r in rows if r["status"] != "ok"]
    for r in bad:
        problem("kernel row %s %s %s K=%d %s: %s %s" % (r["device"], r["op"], r["matrix"], r["k"],
                                                       r["variant"], r["status"], r["message"]))
    problems = kernel_problems(rows)
    with open(os.path.join(out, "kernel-problems.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["device", "op", "form", "matrix", "m", "n", "nnz", "k", "baseline",
                    "baseline_ms", "auto_pick", "auto_ms", "best_variant", "best_ms",
                    "auto_vs_baseline_speedup", "auto_over_best", "auto_over_floor", "floor_ms"])
        for p in problems:
            w.writerow([p["device"], p["op"], p["form"], p["matrix"], p["m"], p["n"], p["nnz"],
                        p["k"], p["baseline"], p["baseline_ms"], p["auto_pick"], p["auto_ms"],
                        p["best"], p["best_ms"], p["auto_vs_baseline"], p["auto_vs_best"],
                        p["auto_vs_floor"], p["floor_ms"]])
    kernel_sections = []
    for key in sorted({(p["device"], p["op"], p["form"]) for p in problems},
                      key=lambda k: (k[0] != "gpu", k[1], k[2])):
        device, op, form = key
        ps = [p for p in problems if (p["device"], p["op"], p["form"]) == key]
        rs = [r for r in rows if (r["device"], r["op"], r["form"]) == key]
        bw, peak = machine_limits(rs)
        sec = {"key": key, "problems": ps, "bw": bw, "peak": peak}
        sec["gflops_png"] = plot_kernel_gflops(device, op, form, ps, rs, out, written)
        sec["roofline_png"] = plot_roofline(device, op, form, ps, rs, bw, peak, out, written)
        sec["auto_png"] = plot_auto_vs_best(device, op, form, ps, out, written)
        kernel_sections.append(sec)

    write_markdown(out, args.dirs, machine, machines, steps, summaries, app_plots, apps_summary_png,
                   kernel_sections, rows, bad, apps)
    for name in written:
        if not os.path.exists(os.path.join(out, name)):
            problem("plot %s is missing" % name)
    # A few lines for the terminal; report.md has the rest.
    for s in summaries:
        print("app %-16s GPU %s s, CPU %s s per %s, speedup %s" % (
            s["id"], fmt(s["gpu_median_s"], "%.4g"), fmt(s["cpu_median_s"], "%.4g"),
            s["iter_name"], fmt(s["speedup"], "%.1fx") if s["gpu_device"] else "- (no GPU run)"))
    for sec in kernel_sections:
        ps = sec["problems"]
        print("kernels %s %-12s %3d problems, auto vs %s %s (geometric mean), within 10%% of the "
              "best on %d" % (sec["key"][0], op_slug(sec["key"][1], sec["key"][2]), len(ps),
                              variant_short(ps[0]["baseline"]),
                              fmt(geomean([p["auto_vs_baseline"] for p in ps]), "%.2fx"),
                              sum(1 for p in ps if p["auto_vs_best"] <= 1.1)))
    if PROBLEMS:
        print("render.py: %d problem(s); see the 'Problems' section of %s" % (
            len(PROBLEMS), os.path.join(out, "report.md")), file=sys.stderr)
        return 1
    return 0


def rel(out, path):
    return os.path.relpath(path, out)


def write_markdown(out, dirs, machine, machines, steps, summaries, app_plots, apps_summary_png,
                   kernel_sections, rows, bad, apps):
    L = []
    mode = machine.get("mode", "?")
    L.append("# factorkit benchmark report: GPU vs CPU, apps and kernels")
    L.append("")
    L.append("Generated by `scripts/report.sh` (measured %s UTC, mode **%s**); rendered by "
             "`bench/report/render.py` from %s." % (
                 machine.get("date_utc", "?"), mode,
                 ", ".join("`%s`" % md_escape(rel(out, d) if d != out else ".") for d in dirs)))
    if mode == "quick":
        L.append("")
        L.append("> **Quick mode:** CI-sized inputs, few runs and no cache flush. This checks that "
                 "every benchmark runs, agrees with the reference and draws; its times are not "
                 "measurements.")
    L.append("")
    L.append("## Machine")
    L.append("")
    gpu = machine.get("gpu_name") or ""
    L.append("| | |")
    L.append("|---|---|")
    L.append("| GPU | %s |" % (md_escape("%s × %s, %s" % (machine.get("gpu_count"), gpu,
                                                          machine.get("gpu_memory", "")))
                               if gpu else "none (nvidia-smi saw no GPU)"))
    if gpu:
        L.append("| GPU driver | %s (CUDA %s) |" % (md_escape(machine.get("gpu_driver", "")),
                                                  md_escape(machine.get("cuda_driver_version", ""))))
    L.append("| CPU | %s, %s logical cores%s |" % (
        md_escape(machine.get("cpu_model", "?")), machine.get("cpu_cores", "?"),
        (", %s socket(s)" % machine["cpu_sockets"]) if machine.get("cpu_sockets") else ""))
    L.append("| memory | %s |" % md_escape(machine.get("memory", "?")))
    L.append("| OS | %s, %s |" % (md_escape(machine.get("os", "?")), md_escape(machine.get("kernel", "?"))))
    commit = machine.get("commit", "unknown")
    dirty = machine.get("modified_tracked_files", "")
    L.append("| commit | `%s`%s |" % (md_escape(commit), (
        " plus %s modified tracked file(s) in the working tree" % dirty)
        if dirty not in ("", "0") else ""))
    L.append("| CPU threads | %s |" % md_escape(machine.get("threads", "?")))
    L.append("| data | `%s` |" % md_escape(machine.get("data", "?")))
    for d, m in machines[1:]:
        same = all(m.get(k) == machine.get(k) for k in ("gpu_name", "cpu_model", "commit"))
        L.append("| also from | `%s`: %s %s, commit `%s`%s |" % (
            md_escape(rel(out, d)), md_escape(m.get("gpu_name") or "no GPU"),
            md_escape(m.get("cpu_model", "")), md_escape(m.get("commit", "?")),
            "" if same else " — **a different machine or commit**"))
    L.append("")

    L.append("## Commands")
    L.append("")
    L.append("Each step's command as run from the repository root (`FK_ROOT`); the logs are in "
             "`logs/` of the measured folder.")
    L.append("")
    L.append("```sh")
    for d in dirs:
        path = os.path.join(d, "commands.sh")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                L.extend(line.rstrip("\n") for line in f)
    L.append("```")
    L.append("")
    if steps:
        L.append("| step | status | seconds | note |")
        L.append("|---|---|---|---|")
        for s in steps:
            st = s.get("status", "?")
            L.append("| %s %s | %s | %s | %s |" % (
                s.get("kind"), md_escape(s.get("id")), "**failed**" if st == "failed" else st,
                s.get("seconds", ""), md_escape(s.get("note", ""))))
        L.append("")

    L.append("## Apps: time per iteration, GPU vs CPU")
    L.append("")
    if not summaries:
        L.append("No app results.")
    else:
        if any(not s["gpu_device"] for s in summaries):
            reasons = sorted({s["gpu_unavailable"] for s in summaries if not s["gpu_device"]})
            L.append("**No GPU run** for %s: %s. `--compare` ran the CPU side only; the CPU time "
                     "per iteration is still shown." % (
                         ", ".join(s["id"] for s in summaries if not s["gpu_device"]),
                         "; ".join(md_escape(r or "no reason given") for r in reasons)))
            L.append("")
        L.append("| app | config | extra arguments | GPU | CPU | GPU s/iter (median) | "
                 "CPU s/iter (median) | speedup | iterations | final metrics, max rel. diff |")
        L.append("|---|---|---|---|---|---|---|---|---|---|")
        for s in summaries:
            L.append("| %s | `%s` | %s | %s | %s | %s | %s | %s | %d %s | %s |" % (
                s["id"], md_escape(s["config"]), md_escape(("`%s`" % s["extra"]) if s["extra"] else ""),
                md_escape(s["gpu_device"] or "—"), md_escape(s["cpu_device"]),
                fmt(s["gpu_median_s"], "%.4g"), fmt(s["cpu_median_s"], "%.4g"),
                fmt(s["speedup"], "%.1f×"), s["iterations"], s["iter_name"],
                fmt(s["max_rel_diff"], "%.1e")))
        L.append("")
        L.append("Final metrics (GPU / CPU):")
        L.append("")
        for s in summaries:
            parts = []
            for f in s["finals"]:
                parts.append("%s %s / %s" % (f.get("name"), fmt(f.get("gpu"), "%.6g"),
                                             fmt(f.get("cpu"), "%.6g")))
            L.append("- %s: %s" % (s["id"], "; ".join(parts) if parts else "none reported"))
        L.append("")
        if apps_summary_png:
            L.append("![apps summary](%s)" % apps_summary_png)
            L.append("")
        for s in summaries:
            L.append("![%s](%s)" % (s["id"], app_plots[s["id"]]))
            L.append("")
    skipped = [s for s in steps if s.get("kind") == "app" and s.get("status") == "skipped"]
    if skipped:
        L.append("Skipped: " + "; ".join("%s (%s)" % (s["id"], md_escape(s.get("note", "")))
                                          for s in skipped) + ".")
        L.append("")

    L.append("## Kernels: GFLOP/s by variant and K, against the baseline and the floor")
    L.append("")
    if not kernel_sections:
        L.append("No kernel results.")
        L.append("")
    else:
        L.append("Baseline: cuSPARSE on the GPU (`cuda.<op>.cusparse`; scaled SDDMM is cuSPARSE "
                 "plus its scale pass), `omp.<op>.rows` on the CPU. The floor is fk-bench's: "
                 "max(compulsory bytes / measured bandwidth, 2·nnz·K / peak fp32) (`fk-bench "
                 "--help`); the roofline's bandwidth and peak are recovered from the floor column. "
                 "Best = the fastest variant other than the double-precision reference. "
                 "Raw rows: `kernels.csv`; one line per problem: `kernel-problems.csv`.")
        L.append("")
    for sec in kernel_sections:
        device, op, form = sec["key"]
        ps = sec["problems"]
        title = "%s on the %s (%s)" % (op_title(op, form), device.upper(), ps[0]["device_name"])
        L.append("### " + md_escape(title))
        L.append("")
        speed = [p["auto_vs_baseline"] for p in ps]
        within = sum(1 for p in ps if p["auto_vs_best"] <= 1.1)
        slow = min((p for p in ps if math.isfinite(p["auto_vs_baseline"])),
                   key=lambda p: p["auto_vs_baseline"], default=None)
        L.append("- %d problems; auto vs %s: geometric mean %s%s" % (
            len(ps), variant_short(ps[0]["baseline"]), fmt(geomean(speed), "%.2f×"),
            ("; slowest %s (%s, K=%d)" % (fmt(slow["auto_vs_baseline"], "%.2f×"),
                                          md_escape(short_matrix(slow["matrix"])), slow["k"]))
            if slow else ""))
        L.append("- auto within 10%% of the best variant on %d of %d; median auto / floor %s" % (
            within, len(ps), fmt(median([p["auto_vs_floor"] for p in ps]), "%.1f")))
        L.append("- roofline: bandwidth %s GB/s, peak %s GFLOP/s (as fk-bench's floor used them)" % (
            fmt(sec["bw"], "%.0f"), fmt(sec["peak"], "%.0f")))
        L.append("")
        L.append("![%s GFLOP/s](%s)" % (md_escape(title), sec["gflops_png"]))
        L.append("")
        L.append("![%s roofline](%s)" % (md_escape(title), sec["roofline_png"]))
        L.append("")
        if sec["auto_png"]:
            L.append("![%s auto vs best](%s)" % (md_escape(title), sec["auto_png"]))
            L.append("")
        L.append("<details><summary>every problem (%d)</summary>" % len(ps))
        L.append("")
        L.append("| matrix | nnz | K | baseline ms | auto ms | auto picks | best variant | best ms | "
                 "auto vs baseline | auto / best | auto / floor |")
        L.append("|---|---|---|---|---|---|---|---|---|---|---|")
        for p in ps:
            L.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                md_escape(p["matrix"]), format(p["nnz"], ","), p["k"], fmt(p["baseline_ms"], "%.4g"),
                fmt(p["auto_ms"], "%.4g"), variant_short(p["auto_pick"]) or "-",
                variant_short(p["best"]) or "-", fmt(p["best_ms"], "%.4g"),
                fmt(p["auto_vs_baseline"], "%.2f×"), fmt(p["auto_vs_best"], "%.2f"),
                fmt(p["auto_vs_floor"], "%.1f")))
        L.append("")
        L.append("</details>")
        L.append("")

    L.append("## Problems")
    L.append("")
    if PROBLEMS:
        L.append("This report is **not clean**:")
        L.append("")
        L.extend("- " + md_escape(p) for p in PROBLEMS)
    else:
        L.append("None: every step succeeded, every kernel row passed its check against the "
                 "reference, and every table and plot has content.")
    L.append("")
    with open(os.path.join(out, "report.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    sys.exit(main())
