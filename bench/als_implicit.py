#!/usr/bin/python3
"""fk-als --implicit against the implicit library's AlternatingLeastSquares on one split with one
set of settings.

    bench/als_implicit.py --fk-als build/release/apps/als/fk-als [--ratings FILE] [--factors 64]
                          [--lambda 1] [--alpha 2] [--iters 10] [--cg-steps 3] [--k 10]
                          [--eval-users 2000] [--threads 2] [--seed 1] [--gpu] [--out DIR]
                          [--skip-implicit]

Needs numpy, scipy and implicit (`pip install implicit`; its wheels for Linux carry a CUDA build
that --gpu uses where its CUDA libraries load). What it does, so that both see the same data and
are scored the same way:
1. Reads a ratings file (default ../shared/data/movielens-100k/u.data): MovieLens `u::i::r[::t]`,
   `u i r [t]` separated by blanks or tabs, or CSV with a header line whose first three fields are
   user, item, rating (fk-datagen's ratings files). Raw ids are mapped to indices in order of
   first appearance. One rating of every user with at least two is held out (seeded), as fk-als
   --leave-k-out 1 does; training and test ratings are written to --out as `u i r` files, and
   fk-als trains on the first with the second as --test.
2. The model is Hu, Koren & Volinsky's (2008): every training rating r is an interaction of
   preference 1 and confidence c = 1 + α·r, unobserved pairs preference 0 and confidence 1,
   regularization λ·||x||² without weighting by counts. fk-als: --implicit --alpha α --lambda λ,
   --solver cg --cg-steps N. implicit: AlternatingLeastSquares(factors, regularization=λ,
   alpha=1, use_cg=True, cg_steps=N) on the matrix of confidences 1 + α·r (implicit takes the
   matrix's values as the confidences c themselves and computes c − 1 for the observed terms,
   so α·r with its own `alpha` would train a different model). Both warm-start the CG from the
   previous iteration's factors; their random initial factors differ (fk-als: users 0, items
   N(0, 0.1²); implicit: uniform [0, 0.01)).
3. Ranking quality, identical for both: fk-als's definitions (apps/als/als_trainer.hpp,
   ranking_metrics): for each evaluated user the items rated in training are excluded, the rest
   ranked by x_u·y_i (ties to the lower index), and the top k compared with the held-out item:
   precision@k = hits / k, MAP@k = Σ precision@i over hit positions / min(k, |test items|),
   NDCG@k with gain 1 / log2(position + 1). The users are a seeded sample of --eval-users of
   those with a held-out rating (0: all). fk-als's own numbers (its metrics.jsonl, on its own
   sample) are printed beside them; with --eval-users 0 the two samples are the same users and
   the numbers must agree, which checks this scorer.
4. Time per iteration: fk-als's own per-iteration wall time (metrics.jsonl `seconds`, evaluation
   excluded), the median over the iterations; implicit's per-iteration time from its fit
   callback, the median, and its whole fit (transpose and initialisation included) divided by
   the iterations. Both on --threads CPU threads, or with --gpu on the GPU (fk-als --device gpu,
   implicit's CUDA model).

Writes <out>/results.csv and <out>/results.md and prints the table. Exit status 0 when everything
ran (nothing is enforced), 1 when a run failed.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import time

# implicit's CPU solver runs its own threads and asks for a single-threaded BLAS; set before numpy
# loads OpenBLAS (numpy's scoring GEMMs below then run on one thread too).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402


def read_ratings(path):
    """-> (users, items, ratings, n_users, n_items): index arrays and float32 ratings, raw ids
    mapped to indices in order of first appearance (users and items separately)."""
    with open(path) as f:
        first = f.readline()
    header = "," in first and not first.split(",")[0].strip().lstrip("-").isdigit()
    sep = "::" if "::" in first else "," if "," in first else None
    table = None
    if sep != "::":  # numeric ids: numpy's reader (seconds for 20M lines, not minutes)
        try:
            table = np.loadtxt(path, delimiter=sep, skiprows=1 if header else 0, usecols=(0, 1, 2),
                               dtype=np.float64, ndmin=2)
        except ValueError:
            table = None
    if table is not None:
        raw_u, raw_i, ratings = table[:, 0].astype(np.int64), table[:, 1].astype(np.int64), table[:, 2]
    else:  # any ids
        raw_u, raw_i, ratings = [], [], []
        with open(path) as f:
            if header:
                f.readline()
            for line in f:
                parts = line.split(sep) if sep else line.split()
                if len(parts) >= 3:
                    raw_u.append(parts[0].strip())
                    raw_i.append(parts[1].strip())
                    ratings.append(float(parts[2]))
        raw_u, raw_i = np.asarray(raw_u), np.asarray(raw_i)

    def first_appearance(raw):
        values, first, inverse = np.unique(raw, return_index=True, return_inverse=True)
        rank = np.empty(len(values), np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(len(values))
        return rank[inverse.ravel()], len(values)

    u, n_users = first_appearance(raw_u)
    i, n_items = first_appearance(raw_i)
    return u, i, np.asarray(ratings, np.float32), n_users, n_items


def leave_one_out(u, n_users, seed):
    """Mask of the held-out ratings: one random rating of every user with at least two."""
    rng = np.random.default_rng(seed)
    order = np.argsort(u, kind="stable")
    starts = np.searchsorted(u[order], np.arange(n_users + 1))
    test = np.zeros(len(u), bool)
    for user in range(n_users):
        a, b = starts[user], starts[user + 1]
        if b - a >= 2:
            test[order[a + rng.integers(b - a)]] = True
    return test


def write_ratings(path, u, i, r):
    with open(path, "w") as f:
        for start in range(0, len(u), 1 << 20):
            end = start + (1 << 20)
            f.write("".join(f"{a} {b} {c:g}\n" for a, b, c in
                            zip(u[start:end].tolist(), i[start:end].tolist(), r[start:end].tolist())))


def csr(u, i, values, shape):
    import scipy.sparse as sparse
    m = sparse.csr_matrix((values, (u, i)), shape=shape, dtype=np.float32)
    m.sum_duplicates()
    m.sort_indices()
    return m


def ranking(x, y, train, test, users, k):
    """fk-als's precision@k, MAP@k and NDCG@k of factors x (users) and y (items) over `users`."""
    discount = 1.0 / np.log2(np.arange(2, k + 2))
    prec = ap = ndcg = 0.0
    for start in range(0, len(users), 1024):
        block = users[start:start + 1024]
        scores = x[block].astype(np.float64) @ y.T.astype(np.float64)
        for row, user in enumerate(block):
            s = scores[row]
            s[train.indices[train.indptr[user]:train.indptr[user + 1]]] = -np.inf
            rated = train.indptr[user + 1] - train.indptr[user]
            top = min(k, len(s) - rated)
            part = np.argpartition(-s, top - 1)[:top] if top < len(s) else np.arange(len(s))
            # Ties to the lower index: sort by (-score, index).
            ranked = part[np.lexsort((part, -s[part]))][:top]
            rel = test.indices[test.indptr[user]:test.indptr[user + 1]]
            hit = np.isin(ranked, rel)
            hits = np.cumsum(hit)
            ideal = min(k, len(rel))
            prec += hits[-1] / k if top else 0.0
            ap += float(np.sum(hits[hit] / (np.flatnonzero(hit) + 1))) / ideal if ideal else 0.0
            idcg = discount[:ideal].sum()
            ndcg += float(discount[:top][hit].sum()) / idcg if idcg else 0.0
    n = len(users)
    return prec / n, ap / n, ndcg / n


def read_ids(path):
    with open(path) as f:
        f.readline()  # header: index,id
        return [line.rstrip("\n").split(",", 1)[1] for line in f]


def run_fk_als(args, train_path, test_path, n_users, n_items):
    out = os.path.join(args.out, "fk-als")
    cmd = [args.fk_als, "--input", train_path, "--test", test_path, "--implicit", "--alpha",
           str(args.alpha), "--lambda", str(args.reg), "--factors", str(args.factors), "--iters",
           str(args.iters), "--solver", "cg", "--cg-steps", str(args.cg_steps), "--k", str(args.k),
           "--eval-users", str(args.eval_users), "--seed", str(args.seed), "--threads",
           str(args.threads), "--device", "gpu" if args.gpu else "cpu", "--out", out, "-q"]
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    with open(os.path.join(out, "metrics.jsonl")) as f:
        rows = [json.loads(line) for line in f]
    # fk-als maps the training file's raw ids (our indices written as text) in its own order.
    x = np.zeros((n_users, args.factors), np.float32)
    y = np.zeros((n_items, args.factors), np.float32)
    x[[int(v) for v in read_ids(os.path.join(out, "user_ids.csv"))]] = np.load(
        os.path.join(out, "user_factors.npy"))
    y[[int(v) for v in read_ids(os.path.join(out, "item_ids.csv"))]] = np.load(
        os.path.join(out, "item_factors.npy"))
    last = rows[-1]
    return {"x": x, "y": y, "seconds": float(np.median([r["seconds"] for r in rows])),
            "own": (last["precision_at_k"], last["map_at_k"], last["ndcg_at_k"])}


def run_implicit(args, train):
    if args.gpu:
        from implicit.gpu.als import AlternatingLeastSquares
        model = AlternatingLeastSquares(factors=args.factors, regularization=args.reg, alpha=1.0,
                                        iterations=args.iters, calculate_training_loss=False,
                                        random_state=args.seed)
    else:
        from implicit.cpu.als import AlternatingLeastSquares
        model = AlternatingLeastSquares(factors=args.factors, regularization=args.reg, alpha=1.0,
                                        iterations=args.iters, use_cg=True,
                                        calculate_training_loss=False, num_threads=args.threads,
                                        random_state=args.seed)
    model.cg_steps = args.cg_steps
    per_iter = []
    conf = train.copy()
    conf.data = 1.0 + args.alpha * conf.data
    start = time.perf_counter()
    model.fit(conf, show_progress=False, callback=lambda it, elapsed, loss: per_iter.append(elapsed))
    if args.gpu:
        model = model.to_cpu()  # waits for the GPU's work
    total = time.perf_counter() - start
    return {"x": np.asarray(model.user_factors, np.float32),
            "y": np.asarray(model.item_factors, np.float32),
            "seconds": float(np.median(per_iter)), "fit_per_iter": total / args.iters}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    shared = os.environ.get("FK_SHARED_DATA", os.path.join(here, "..", "..", "shared", "data"))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--fk-als", required=True, help="the fk-als binary")
    p.add_argument("--ratings", default=os.path.join(shared, "movielens-100k", "u.data"),
                   help="ratings file (default: MovieLens 100K's u.data)")
    p.add_argument("--factors", type=int, default=64)
    p.add_argument("--lambda", dest="reg", type=float, default=1.0, help="regularization λ")
    p.add_argument("--alpha", type=float, default=2.0, help="confidence c = 1 + alpha * r")
    p.add_argument("--iters", type=int, default=10)
    p.add_argument("--cg-steps", type=int, default=3)
    p.add_argument("--k", type=int, default=10, help="cut-off of the ranking metrics")
    p.add_argument("--eval-users", type=int, default=2000,
                   help="test users scored (a seeded sample; 0: all)")
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--gpu", action="store_true", help="both on the GPU")
    p.add_argument("--skip-implicit", action="store_true")
    p.add_argument("--out", default="out/als-implicit")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)

    u, i, r, n_users, n_items = read_ratings(args.ratings)
    held = leave_one_out(u, n_users, args.seed)
    train_path = os.path.join(args.out, "train.data")
    test_path = os.path.join(args.out, "test.data")
    write_ratings(train_path, u[~held], i[~held], r[~held])
    write_ratings(test_path, u[held], i[held], r[held])
    train = csr(u[~held], i[~held], r[~held], (n_users, n_items))
    test = csr(u[held], i[held], r[held], (n_users, n_items))
    has_test = np.flatnonzero((np.diff(test.indptr) > 0) & (np.diff(train.indptr) > 0))
    rng = np.random.default_rng(args.seed + 1)
    users = has_test if args.eval_users <= 0 or args.eval_users >= len(has_test) else np.sort(
        rng.choice(has_test, args.eval_users, replace=False))
    print(f"{args.ratings}: {n_users} users, {n_items} items, {len(r)} ratings; "
          f"{int(held.sum())} held out; scoring {len(users)} users", flush=True)

    results, failed = [], False
    contenders = [("fk-als", lambda: run_fk_als(args, train_path, test_path, n_users, n_items))]
    if not args.skip_implicit:
        contenders.append(("implicit", lambda: run_implicit(args, train)))
    for name, run in contenders:
        try:
            res = run()
        except Exception as e:  # a failed run is reported, the other still measured
            print(f"{name} failed: {e}", file=sys.stderr)
            failed = True
            continue
        prec, map_k, ndcg = ranking(res["x"], res["y"], train, test, users, args.k)
        row = {"model": name, "device": "gpu" if args.gpu else f"cpu ({args.threads} threads)",
               "s_per_iter": res["seconds"], "fit_s_per_iter": res.get("fit_per_iter", ""),
               f"precision@{args.k}": prec, f"map@{args.k}": map_k, f"ndcg@{args.k}": ndcg,
               "own_metrics": " / ".join(f"{v:.4f}" for v in res["own"]) if "own" in res else ""}
        results.append(row)
        print(row, flush=True)

    if results:
        keys = list(results[0].keys())
        with open(os.path.join(args.out, "results.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, keys)
            w.writeheader()
            w.writerows(results)
        fmt = lambda v: f"{v:.4f}" if isinstance(v, float) else str(v)
        lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
        lines += ["| " + " | ".join(fmt(row[k]) for k in keys) + " |" for row in results]
        with open(os.path.join(args.out, "results.md"), "w") as f:
            f.write("\n".join(lines) + "\n")
        print("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
