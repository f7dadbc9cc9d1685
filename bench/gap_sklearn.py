#!/usr/bin/python3
"""fk-gap against scikit-learn's KL-divergence NMF (multiplicative updates) on one corpus.

    bench/gap_sklearn.py --fk-gap build/release/apps/gap/fk-gap [--corpus DOCWORD] [--factors 50]
                         [--iters 200] [--threads 2] [--seed 1] [--out DIR]

Why these two: with a flat prior (a = 1) and a very weak scale (b = 1e9), fk-gap's EM iteration
(apps/gap/gap_backend.hpp) maximizes the Poisson likelihood of F ≈ X Λᵀ, which is what NMF with
the (generalized) Kullback-Leibler divergence minimizes; scikit-learn's NMF(beta_loss=
"kullback-leibler", solver="mu") runs the Lee-Seung multiplicative updates for it, the same
family of update (fk-gap updates both factors from the old model, scikit-learn one after the
other). So the two fit the same objective, and what differs is the time an iteration takes.

What it does:
1. Reads a UCI docword corpus (default: ../shared/data/uci-kos/docword.kos.txt.gz).
2. fk-gap trains on all of it (--holdout-frac 0, --a 1, --b 1e9, its own seeded start) for
   --iters iterations on --threads threads, with its train_ll after every iteration; its time per
   iteration is its own (metrics.jsonl, evaluation excluded), and its final model comes back as
   x.npy (documents x K) and lambda.npy (words x K).
3. scikit-learn's NMF trains on the same matrix with the same K and number of iterations (tol = 0,
   so every iteration runs), init="random", with BLAS and OpenMP limited to --threads threads; its
   time per iteration is its fit time over the iterations it ran (the random start included).
4. Both models are scored here the same way: the Poisson log-likelihood per token of the corpus,
   [Σ f log r − Σ_all r − Σ log f!] / tokens, r = the model's rate (F's zeros enter through Σ_all r
   = Σ_k colsum(W)_k colsum(H)_k). Higher is better; it is fk-gap's train_ll (checked: the two
   must agree to 1e-4).
5. Topic coherence, the same for both: each factor's 10 most probable words (fk-gap's Λ columns,
   scikit-learn's components_ rows) scored by document co-occurrence in the corpus as fk-lda and
   fk-gap define it (lda_compare.py's coherence; fk-gap's own summary.json must agree to 1e-6).
6. Time to quality: how many iterations, and how many seconds, fk-gap needs to reach the
   log-likelihood scikit-learn ends at (from fk-gap's per-iteration train_ll), against
   scikit-learn's whole fit.

Writes <out>/results.csv and <out>/results.md and prints the table. Exit status 0 when everything
ran, 1 when a run failed.
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import time


def poisson_ll_per_token(f, w, h, np):
    """[Σ f log (W H) − Σ W H − Σ log f!] / Σ f over all entries, F sparse (D x V), W D x K,
    H K x V; the rates at F's zeros enter through the column and row sums only."""
    coo = f.tocoo()
    rates = np.einsum("ij,ij->i", w[coo.row].astype(np.float64), h.T[coo.col].astype(np.float64))
    log_fact = sum(math.lgamma(v + 1.0) for v in coo.data)
    total = float(np.dot(w.sum(axis=0, dtype=np.float64), h.sum(axis=1, dtype=np.float64)))
    ll = float(np.dot(coo.data, np.log(np.maximum(rates, 1e-300)))) - total - log_fact
    return ll / float(coo.data.sum())


def run_fk_gap(args, np):
    out = os.path.join(args.out, "fk-gap")
    cmd = [args.fk_gap, "--input", args.corpus, "--format", "uci", "--factors", str(args.factors),
           "--a", "1", "--b", "1e9", "--holdout-frac", "0", "--iters", str(args.iters),
           "--eval-every", "1", "--device", "cpu", "--threads", str(args.threads), "--seed",
           str(args.seed), "--top-words", "10", "--out", out, "--quiet"]
    print("$ " + " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    with open(os.path.join(out, "metrics.jsonl")) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    x = np.load(os.path.join(out, "x.npy"))            # documents x K
    lam = np.load(os.path.join(out, "lambda.npy"))     # words x K
    return {"name": "fk-gap (CPU, %d threads)" % args.threads, "command": " ".join(cmd),
            "iter_seconds": [line["seconds"] for line in lines], "w": x, "h": lam.T,
            "own_train_ll": lines[-1].get("train_ll"),
            "own_npmi": json.load(open(os.path.join(out, "summary.json"))).get("coherence_npmi"),
            "ll_series": [line.get("train_ll") for line in lines]}


def run_sklearn(args, f, np):
    from sklearn.decomposition import NMF
    model = NMF(n_components=args.factors, beta_loss="kullback-leibler", solver="mu",
                init="random", max_iter=args.iters, tol=0.0, random_state=args.seed)
    start = time.perf_counter()
    w = model.fit_transform(f)
    seconds = time.perf_counter() - start
    n = max(1, model.n_iter_)
    return {"name": "scikit-learn NMF (KL, mu)", "command": repr(model),
            "iter_seconds": [seconds / n] * n, "w": w, "h": model.components_}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    shared = os.environ.get("FK_SHARED_DATA", os.path.join(here, "..", "..", "shared", "data"))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--fk-gap", required=True, help="the fk-gap binary")
    p.add_argument("--corpus", default=os.path.join(shared, "uci-kos", "docword.kos.txt.gz"),
                   help="UCI docword file (default: uci-kos from the shared data)")
    p.add_argument("--factors", type=int, default=50)
    p.add_argument("--iters", type=int, default=200)
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default="out/gap-sklearn")
    args = p.parse_args()

    # Before numpy loads its BLAS: scikit-learn's updates run there and in OpenMP.
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    import numpy as np
    import sklearn  # Debian's python3-sklearn; imported late so --help works without it
    from lda_compare import coherence, read_docword, to_csr  # this folder's; it imports numpy

    os.makedirs(args.out, exist_ok=True)
    _, words, docs = read_docword(args.corpus)
    f = to_csr(docs, words)
    print(f"{args.corpus}: {f.shape[0]} documents x {f.shape[1]} words, {f.nnz} nonzeros, "
          f"{int(f.sum())} tokens; K = {args.factors}, {args.iters} iterations, scikit-learn "
          f"{sklearn.__version__}", flush=True)
    rows = [run_fk_gap(args, np)]
    print("training scikit-learn NMF ...", flush=True)
    rows.append(run_sklearn(args, f, np))
    for r in rows:
        r["ll"] = poisson_ll_per_token(f, r["w"], r["h"], np)
        r["median"] = float(np.median(r["iter_seconds"]))
        r["umass"], r["npmi"] = coherence(r["h"], f)
    fk = rows[0]
    if fk["own_npmi"] is not None and not abs(fk["own_npmi"] - fk["npmi"]) <= 1e-6:
        print(f"gap_sklearn: fk-gap's own coherence NPMI {fk['own_npmi']} differs from this "
              f"script's {fk['npmi']}", file=sys.stderr)
        return 1
    if fk["own_train_ll"] is not None and abs(fk["own_train_ll"] - fk["ll"]) > 1e-4 * abs(fk["ll"]):
        print(f"gap_sklearn: fk-gap's own train_ll {fk['own_train_ll']} differs from this "
              f"script's {fk['ll']}", file=sys.stderr)
        return 1
    with open(os.path.join(args.out, "results.csv"), "w", newline="") as out:
        w = csv.writer(out)
        w.writerow(["contender", "iterations", "median_iter_s", "train_ll_per_token",
                    "coherence_umass", "coherence_npmi", "fk_speedup"])
        for r in rows:
            w.writerow([r["name"], len(r["iter_seconds"]), f"{r['median']:.6f}", f"{r['ll']:.6f}",
                        f"{r['umass']:.6f}", f"{r['npmi']:.6f}",
                        f"{r['median'] / fk['median']:.3f}"])
    lines = ["| contender | iterations | median iteration (s) | Poisson ll per token | "
             "coherence UMass | coherence NPMI | fk-gap speedup |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['name']} | {len(r['iter_seconds'])} | {r['median']:.5f} | "
                     f"{r['ll']:.4f} | {r['umass']:.4f} | {r['npmi']:.4f} | "
                     f"{r['median'] / fk['median']:.2f}x |")
    # fk-gap's first iteration (and its seconds so far) at scikit-learn's final log-likelihood.
    target, elapsed, reach = rows[1]["ll"], 0.0, None
    for i, (sec, ll) in enumerate(zip(fk["iter_seconds"], fk["ll_series"])):
        elapsed += sec
        if ll is not None and ll >= target:
            reach = (i + 1, elapsed)
            break
    sk_total = sum(rows[1]["iter_seconds"])
    lines.append("")
    if reach:
        lines.append(f"fk-gap reaches scikit-learn's final {target:.4f} at iteration {reach[0]} "
                     f"after {reach[1]:.3f} s of iterations, against scikit-learn's {sk_total:.2f} s "
                     f"fit: {sk_total / reach[1]:.1f}x faster to that quality")
    else:
        lines.append(f"fk-gap does not reach scikit-learn's final {target:.4f} in "
                     f"{len(fk['iter_seconds'])} iterations")
    with open(os.path.join(args.out, "results.md"), "w") as out:
        out.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except subprocess.CalledProcessError as e:
        print(f"gap_sklearn: a run failed: {e}", file=sys.stderr)
        sys.exit(1)
