#!/usr/bin/env python3
"""Checks bench/report/render.py on small made-up measured folders (test fixtures, not results):
a clean folder renders with exit 0, every plot and the right summary numbers; each kind of real
breakage (a kernel row failing its check, a failed step, an app run without compare.json, an empty
kernel table) makes it exit 1 and name the problem in report.md.

Run by ctest (report_render_checks). Exit 77 (skipped) only when no python3 with matplotlib exists.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RENDER = os.path.join(HERE, "render.py")

# fk-bench's CSV header (apps/bench): the columns render.py reads.
HEADER = ["op", "form", "matrix", "m", "n", "nnz", "k", "variant", "chosen", "device",
          "device_name", "threads", "prep_ms", "median_ms", "min_ms", "runs", "gflops", "gbps",
          "floor_ms", "bound", "baseline", "speedup_vs_baseline", "max_rel_err", "checked_rows",
          "status", "message", "seed"]


def python_with_matplotlib():
    for exe in (sys.executable, "/usr/bin/python3"):
        if exe and os.path.exists(exe) and subprocess.run(
                [exe, "-c", "import matplotlib"], capture_output=True).returncode == 0:
            return exe
    return None


def kernel_row(matrix, k, variant, ms, chosen="", status="ok", m=1000, n=800, nnz=20000):
    flops = 2.0 * nnz * k
    bytes_ = 12.0 * nnz + 4.0 * k * (m + n)
    bw, peak = 20e9, 100e9  # the made-up machine: 20 GB/s, 100 GFLOP/s
    floor_s = max(bytes_ / bw, flops / peak)
    return {"op": "sddmm", "form": "scaled", "matrix": matrix, "m": m, "n": n, "nnz": nnz, "k": k,
            "variant": variant, "chosen": chosen, "device": "cpu", "device_name": "CPU (2 threads)",
            "threads": 2, "prep_ms": 0.01, "median_ms": ms, "min_ms": ms, "runs": 5,
            "gflops": flops / (ms * 1e6), "gbps": bytes_ / (ms * 1e6), "floor_ms": floor_s * 1e3,
            "bound": "memory" if bytes_ / bw >= flops / peak else "compute",
            "baseline": "omp.sddmm.rows", "speedup_vs_baseline": 1, "max_rel_err": 1e-7,
            "checked_rows": m, "status": status, "message": "" if status == "ok" else "too far",
            "seed": 1}


def make_folder(root):
    os.makedirs(os.path.join(root, "apps", "lda-x"))
    with open(os.path.join(root, "machine.json"), "w") as f:
        json.dump({"date_utc": "test", "mode": "test", "gpu_count": 0, "gpu_name": "",
                   "cpu_model": "test CPU", "cpu_cores": 2, "commit": "unknown"}, f)
    with open(os.path.join(root, "steps.tsv"), "w") as f:
        f.write("kind\tid\tstatus\trc\tseconds\tlog\tnote\n")
        f.write("kernels\tquick\tok\t0\t1\tlogs/kernels-quick.log\t\n")
        f.write("app\tlda-x\tok\t0\t1\tlogs/app-lda-x.log\t\n")
    with open(os.path.join(root, "commands.sh"), "w") as f:
        f.write("(cd \"$FK_ROOT\" && fk-bench sddmm ...)\n")
    rows = []
    for k, (rows_ms, aspt_ms, auto_ms) in {32: (2.0, 1.0, 1.05), 64: (3.0, 4.0, 4.0)}.items():
        rows.append(kernel_row("mat", k, "omp.sddmm.rows", rows_ms))
        rows.append(kernel_row("mat", k, "omp.sddmm.aspt", aspt_ms))
        rows.append(kernel_row("mat", k, "ref.sddmm", 0.5))  # the oracle: never 'best'
        rows.append(kernel_row("mat", k, "auto", auto_ms,
                               chosen="omp.sddmm.aspt" if k == 32 else "omp.sddmm.aspt"))
    write_rows(root, rows)
    with open(os.path.join(root, "apps", "lda-x", "entry.tsv"), "w") as f:
        f.write("lda-x\tfk-lda\tconfigs/lda-default.ini\t--iters 2\n")
    with open(os.path.join(root, "apps", "lda-x", "compare.json"), "w") as f:
        json.dump({"iter_name": "pass", "gpu_unavailable": None,
                   "gpu": {"label": "gpu", "device": "GPU 0 (test)", "iter_seconds": [0.1, 0.2],
                           "median_seconds": 0.15},
                   "cpu": {"label": "cpu", "device": "CPU (2 threads)", "iter_seconds": [1.0, 2.0],
                           "median_seconds": 1.5},
                   "speedup_per_iter": [10.0, 10.0], "speedup_median": 10.0,
                   "finals": [{"name": "ll", "gpu": -6.0, "cpu": -6.0, "rel_diff": 0.0}]}, f)


def write_rows(root, rows):
    with open(os.path.join(root, "kernels.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=HEADER)
        w.writeheader()
        w.writerows(rows)


def render(py, measured, out):
    r = subprocess.run([py, RENDER, "--out", out, measured], capture_output=True, text=True)
    with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
        return r.returncode, f.read(), r.stderr


FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAILED: " + what, file=sys.stderr)


def main():
    py = python_with_matplotlib()
    if py is None:
        print("skipped: no python3 with matplotlib", file=sys.stderr)
        return 77
    tmp = tempfile.mkdtemp(prefix="fk_render_test_")
    try:
        clean = os.path.join(tmp, "clean")
        make_folder(clean)
        rc, md, err = render(py, clean, os.path.join(tmp, "out-clean"))
        check(rc == 0, "clean folder renders with exit 0 (got %d: %s)" % (rc, err))
        check("None: every step succeeded" in md, "clean report says it is clean")
        out = os.path.join(tmp, "out-clean")
        for png in ("apps-summary.png", "app-lda-x.png", "kernels-cpu-sddmm-scaled.png",
                    "roofline-cpu-sddmm-scaled.png", "auto-vs-best-cpu-sddmm-scaled.png"):
            path = os.path.join(out, png)
            check(os.path.exists(path) and os.path.getsize(path) > 1000, "plot %s written" % png)
            check("](%s)" % png in md, "report links %s" % png)
        with open(os.path.join(out, "kernel-problems.csv")) as f:
            probs = {int(r["k"]): r for r in csv.DictReader(f)}
        check(sorted(probs) == [32, 64], "one problem per K")
        # K=32: best aspt 1.0 ms (not ref's 0.5), auto 1.05 ms, baseline rows 2.0 ms.
        check(probs[32]["best_variant"] == "omp.sddmm.aspt", "best excludes the reference")
        check(abs(float(probs[32]["auto_over_best"]) - 1.05) < 1e-9, "auto / best at K=32")
        check(abs(float(probs[32]["auto_vs_baseline_speedup"]) - 2.0 / 1.05) < 1e-9,
              "auto vs baseline at K=32")
        # K=64: the baseline is the best; auto picked aspt at 4/3 of it.
        check(probs[64]["best_variant"] == "omp.sddmm.rows", "best at K=64")
        check(abs(float(probs[64]["auto_over_best"]) - 4.0 / 3.0) < 1e-9, "auto / best at K=64")
        check("within 10% of the best variant on 1 of 2" in md, "within-10% count")
        check("| lda-x |" in md and "10.0×" in md, "apps table row with the speedup")
        check("bandwidth 20 GB/s" in md, "bandwidth recovered from the floor")

        cases = {}
        bad = os.path.join(tmp, "wrong-row")
        shutil.copytree(clean, bad)
        with open(os.path.join(bad, "kernels.csv")) as f:
            rows = list(csv.DictReader(f))
        rows[1]["status"] = "wrong"
        write_rows(bad, rows)
        cases["wrong-row"] = (bad, "omp.sddmm.aspt: wrong")

        bad = os.path.join(tmp, "failed-step")
        shutil.copytree(clean, bad)
        with open(os.path.join(bad, "steps.tsv"), "a") as f:
            f.write("app\tals-y\tfailed\t1\t1\tlogs/app-als-y.log\texit status 1\n")
        cases["failed-step"] = (bad, "step app als-y failed")

        bad = os.path.join(tmp, "no-compare")
        shutil.copytree(clean, bad)
        os.remove(os.path.join(bad, "apps", "lda-x", "compare.json"))
        cases["no-compare"] = (bad, "left no compare.json")

        bad = os.path.join(tmp, "empty-kernels")
        shutil.copytree(clean, bad)
        write_rows(bad, [])
        cases["empty-kernels"] = (bad, "kernel table is empty")

        for name, (folder, needle) in cases.items():
            rc, md, err = render(py, folder, os.path.join(tmp, "out-" + name))
            check(rc == 1, "%s: exit 1 (got %d)" % (name, rc))
            check("**not clean**" in md and needle in md, "%s: report.md names '%s'" % (name, needle))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES), file=sys.stderr)
        return 1
    print("render.py checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
