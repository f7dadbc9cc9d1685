#!/usr/bin/python3
"""fk-lda against gensim's LdaModel and LdaMulticore and scikit-learn's LatentDirichletAllocation
on one split with one set of settings.

    bench/lda_compare.py --fk-lda build/release/apps/lda/fk-lda [--corpus DOCWORD] [--topics 50]
                         [--passes 10] [--threads 2] [--seed 1] [--out DIR]
                         [--skip-multicore] [--skip-gensim] [--skip-sklearn]

What it does, so that the three runs see exactly the same data and are scored the same way:
1. Reads a UCI docword corpus (default: ../shared/data/uci-kos/docword.kos.txt.gz) and holds out
   a seeded 10% of the documents. The training and held-out documents are written as UCI files
   into --out, and fk-lda trains on the first with the second as --test.
2. gensim trains on the same training documents with the same settings: K topics, α = η = 1/K,
   τ0 = 1 (gensim's `offset`), κ = 0.5 (`decay`), minibatches of 2,000 documents (`chunksize`,
   one update per minibatch), at most 50 E-step iterations with tolerance 1e-3 (`iterations`,
   `gamma_threshold`), and no evaluation during training (`eval_every=None`). scikit-learn's
   online LatentDirichletAllocation the same way: `doc_topic_prior` = `topic_word_prior` = 1/K,
   `learning_offset` 1, `learning_decay` 0.5, `batch_size` 2,000, `max_doc_update_iter` 50,
   `mean_change_tol` 1e-3, `max_iter` = passes, `total_samples` = the training documents,
   `evaluate_every` -1, `n_jobs` = --threads. scikit-learn counts its updates from 1 where fk-lda
   and gensim count from 0, so its ρ_t is fk-lda's at τ0 = 2; fk-lda runs a second time with
   --tau0 2 for that comparison.
3. Held-out score, identical for all three: document completion as fk-lda defines it
   (apps/lda/corpus.hpp, completion_halves): each held-out document's tokens, in word order with
   counts expanded, go alternately to an observed half (even positions) and a scored half (odd);
   θ is fitted on the observed half with the model's own E-step and the per-word log-likelihood of
   the scored half is Σ n_dw log Σ_k θ_dk β_kw / Σ n_dw, with β the normalised topic-word matrix.
   fk-lda reports this number itself (metrics.jsonl, heldout_ll); for gensim it is computed here
   from model.inference() and model.get_topics(), for scikit-learn from model.transform() (the
   normalized variational γ) and components_ normalized by rows.
4. Topic coherence, identical for all: each model's 10 most probable words per topic (fk-lda's
   lambda.npy, gensim's get_topics(), scikit-learn's components_; ties to the lower word id),
   scored by document co-occurrence over the training documents as fk-lda defines it
   (apps/lda/coherence.hpp: mean UMass with Mimno's +1, mean NPMI; fk-lda's own coherence.csv
   gives the same numbers, docs/benchmarks/checks/coherence).
5. Time per pass: fk-lda's own per-pass wall time (metrics.jsonl, evaluation excluded); gensim's
   and scikit-learn's training wall time divided by the number of passes. fk-lda runs on --threads
   threads; LdaMulticore gets --threads - 1 worker processes (its own rule: workers = cores - 1),
   at least 1; scikit-learn --threads jobs (and BLAS threads).

Writes <out>/results.csv and <out>/results.md and prints the table. Exit status 0 when everything
ran (the targets are reported, not enforced), 1 when a run failed.
"""
import argparse
import csv
import gzip
import json
import os
import subprocess
import sys
import time

import numpy as np


def read_docword(path):
    """UCI docword file -> (docs, words, list of {word: count}) with 0-based ids."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        d = int(f.readline())
        w = int(f.readline())
        f.readline()  # nnz
        docs = [dict() for _ in range(d)]
        for line in f:
            parts = line.split()
            if len(parts) == 3:
                docs[int(parts[0]) - 1][int(parts[1]) - 1] = int(parts[2])
    return d, w, docs


def write_docword(path, words, docs):
    nnz = sum(len(doc) for doc in docs)
    with open(path, "w") as f:
        f.write(f"{len(docs)}\n{words}\n{nnz}\n")
        for i, doc in enumerate(docs):
            for wid in sorted(doc):
                f.write(f"{i + 1} {wid + 1} {doc[wid]}\n")


def completion_halves(doc):
    """fk-lda's split of one document: tokens in word order, even positions observed, odd scored."""
    observed, scored = {}, {}
    pos = 0
    for wid in sorted(doc):
        for _ in range(doc[wid]):
            half = observed if pos % 2 == 0 else scored
            half[wid] = half.get(wid, 0) + 1
            pos += 1
    return observed, scored


def completion_ll(theta, beta, halves):
    """Per-word log-likelihood of the scored halves, θ (documents x K) fitted on the observed
    halves, β (K x W) with rows that sum to 1."""
    ll, tokens = 0.0, 0
    for d, (_, scored) in enumerate(halves):
        if not scored:
            continue
        wids = np.fromiter(scored.keys(), dtype=np.int64)
        counts = np.fromiter(scored.values(), dtype=np.float64)
        p = theta[d] @ beta[:, wids]
        ll += float(np.dot(counts, np.log(np.maximum(p, 1e-300))))
        tokens += int(counts.sum())
    return ll / tokens


def gensim_heldout_ll(model, heldout):
    """Per-word completion log-likelihood of the scored halves under a trained gensim model."""
    halves = [completion_halves(doc) for doc in heldout]
    gamma, _ = model.inference([sorted(o.items()) for o, _ in halves])
    return completion_ll(gamma / gamma.sum(axis=1, keepdims=True), model.get_topics(), halves)


def to_csr(docs, words):
    import scipy.sparse as sparse
    rows, cols, vals = [], [], []
    for i, doc in enumerate(docs):
        for wid, n in doc.items():
            rows.append(i)
            cols.append(wid)
            vals.append(float(n))
    return sparse.csr_matrix((vals, (rows, cols)), shape=(len(docs), words))


def sklearn_heldout_ll(model, heldout, words):
    """The same score under a trained scikit-learn model."""
    halves = [completion_halves(doc) for doc in heldout]
    theta = model.transform(to_csr([o for o, _ in halves], words))  # rows sum to 1
    beta = model.components_ / model.components_.sum(axis=1, keepdims=True)
    return completion_ll(theta, beta, halves)


def pair_scores(x, ids, smoothing="mimno"):
    """Mean UMass and NPMI over the pairs (i, j < i) of one topic's word ids (most probable
    first), from document co-occurrence in x (documents x words, scipy CSR). smoothing "gensim"
    gives gensim's u_mass (log((D(wi, wj) / D + 1e-12) / (D(wj) / D))) instead of Mimno's. NaN for
    both when a word occurs in no document or there are fewer than two words (fk-lda leaves such
    a topic out of its means, as coherence() does)."""
    sub = (x[:, ids] > 0).astype(np.float64)
    co = (sub.T @ sub).toarray()
    df = np.diag(co)
    d = x.shape[0]
    if len(ids) < 2 or np.any(df == 0):
        return float("nan"), float("nan")
    umass, npmi = [], []
    for i in range(1, len(ids)):
        for j in range(i):
            if smoothing == "gensim":
                umass.append(np.log((co[i, j] / d + 1e-12) / (df[j] / d)))
            else:
                umass.append(np.log((co[i, j] + 1) / df[j]))
            if co[i, j] == 0:
                npmi.append(-1.0)
            elif co[i, j] == d:
                npmi.append(1.0)
            else:
                p = co[i, j] / d
                npmi.append(np.log(p / (df[i] / d * df[j] / d)) / -np.log(p))
    return float(np.mean(umass)), float(np.mean(npmi))


def coherence(topics, x, n=10):
    """Mean UMass and NPMI over the topics (rows of a topics x words matrix) of their n most
    probable words."""
    scores = [pair_scores(x, np.argsort(-row, kind="stable")[:n].tolist()) for row in topics]
    return tuple(float(np.nanmean(s)) for s in zip(*scores))


def run_sklearn(args, train, words):
    from sklearn.decomposition import LatentDirichletAllocation
    k = args.topics
    model = LatentDirichletAllocation(
        n_components=k, doc_topic_prior=1.0 / k, topic_word_prior=1.0 / k,
        learning_method="online", learning_decay=0.5, learning_offset=1.0, max_iter=args.passes,
        batch_size=2000, evaluate_every=-1, total_samples=len(train), max_doc_update_iter=50,
        mean_change_tol=1e-3, n_jobs=args.threads, random_state=args.seed)
    x = to_csr(train, words)
    start = time.perf_counter()
    model.fit(x)
    return model, time.perf_counter() - start


def run_fk_lda(args, train_path, test_path, tau0=1, name=None):
    out = os.path.join(args.out, "fk-lda" if tau0 == 1 else f"fk-lda-tau0-{tau0}")
    cmd = [args.fk_lda, "--input", train_path, "--test", test_path, "--format", "uci",
           "--tau0", str(tau0),
           "--topics", str(args.topics), "--iters", str(args.passes), "--batch-size", "2000",
           "--inner-iters", "50", "--tol", "0.001", "--eval-every", "0", "--device", "cpu",
           "--threads", str(args.threads), "--seed", str(args.seed), "--out", out, "--quiet"]
    print("$ " + " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    with open(os.path.join(out, "metrics.jsonl")) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    seconds = [line["seconds"] for line in lines]
    return {"name": name or "fk-lda (CPU, %d threads)" % args.threads, "command": " ".join(cmd),
            "pass_seconds": seconds, "heldout_ll": lines[-1]["heldout_ll"], "fk": True,
            "topics": np.load(os.path.join(out, "lambda.npy"))}


def run_gensim(args, cls, train, words, **extra):
    corpus = [sorted(doc.items()) for doc in train]
    k = args.topics
    kwargs = dict(num_topics=k, id2word={i: str(i) for i in range(words)}, chunksize=2000,
                  passes=args.passes, alpha=np.full(k, 1.0 / k), eta=1.0 / k, decay=0.5,
                  offset=1.0, eval_every=None, iterations=50, gamma_threshold=0.001,
                  random_state=args.seed, **extra)
    start = time.perf_counter()
    model = cls(corpus, **kwargs)
    seconds = time.perf_counter() - start
    return model, seconds


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    shared = os.environ.get("FK_SHARED_DATA", os.path.join(here, "..", "..", "shared", "data"))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--fk-lda", required=True, help="the fk-lda binary")
    p.add_argument("--corpus", default=os.path.join(shared, "uci-kos", "docword.kos.txt.gz"),
                   help="UCI docword file (default: uci-kos from the shared data)")
    p.add_argument("--topics", type=int, default=50)
    p.add_argument("--passes", type=int, default=10)
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    p.add_argument("--holdout-frac", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default="out/lda-compare")
    p.add_argument("--skip-multicore", action="store_true", help="no gensim LdaMulticore")
    p.add_argument("--skip-gensim", action="store_true", help="no gensim at all")
    p.add_argument("--skip-sklearn", action="store_true", help="no scikit-learn")
    args = p.parse_args()
    # Before numpy loads its BLAS (scikit-learn's E-step runs there).
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(args.threads))
    versions = []
    if not args.skip_gensim:
        import gensim  # Debian's python3-gensim; imported late so --help works without it
        versions.append("gensim " + gensim.__version__)
    if not args.skip_sklearn:
        import sklearn  # Debian's python3-sklearn
        versions.append("scikit-learn " + sklearn.__version__)
    if not versions:
        p.error("nothing to compare with: drop --skip-gensim or --skip-sklearn")

    os.makedirs(args.out, exist_ok=True)
    d, w, docs = read_docword(args.corpus)
    rng = np.random.default_rng(args.seed)
    n_held = int(round(args.holdout_frac * d))
    held_ids = set(rng.choice(d, size=n_held, replace=False).tolist())
    train = [docs[i] for i in range(d) if i not in held_ids]
    heldout = [docs[i] for i in range(d) if i in held_ids]
    train_path = os.path.join(args.out, "docword.train.txt")
    test_path = os.path.join(args.out, "docword.heldout.txt")
    write_docword(train_path, w, train)
    write_docword(test_path, w, heldout)
    print(f"{args.corpus}: {d} documents x {w} words; {len(train)} train, {len(heldout)} held out; "
          f"K = {args.topics}, {args.passes} passes, {', '.join(versions)}", flush=True)

    rows = []
    fk = run_fk_lda(args, train_path, test_path)
    rows.append(fk)
    contenders = []
    if not args.skip_gensim:
        from gensim.models import LdaModel, LdaMulticore
        contenders.append(("gensim LdaModel", LdaModel, {}))
        if not args.skip_multicore:
            workers = max(1, args.threads - 1)
            contenders.append(("gensim LdaMulticore (%d workers)" % workers, LdaMulticore,
                               {"workers": workers}))
    for name, cls, extra in contenders:
        print(f"training {name} ...", flush=True)
        model, seconds = run_gensim(args, cls, train, w, **extra)
        rows.append({"name": name, "command": f"{cls.__name__}(..., {extra})",
                     "pass_seconds": [seconds / args.passes] * args.passes,
                     "heldout_ll": gensim_heldout_ll(model, heldout),
                     "topics": model.get_topics()})
    if not args.skip_sklearn:
        # scikit-learn counts its minibatch updates from 1 (ρ_t = (τ0 + t)^-κ, t = 1, 2, ...),
        # fk-lda and gensim from 0: fk-lda with τ0 + 1 runs scikit-learn's schedule.
        rows.append(run_fk_lda(args, train_path, test_path, tau0=2,
                               name="fk-lda, --tau0 2 (scikit-learn's ρ schedule)"))
        name = "scikit-learn LatentDirichletAllocation (%d jobs)" % args.threads
        print(f"training {name} ...", flush=True)
        model, seconds = run_sklearn(args, train, w)
        rows.append({"name": name, "command": repr(model),
                     "pass_seconds": [seconds / args.passes] * args.passes,
                     "heldout_ll": sklearn_heldout_ll(model, heldout, w),
                     "topics": model.components_})

    x = to_csr(train, w)
    for r in rows:
        r["umass"], r["npmi"] = coherence(r["topics"], x)
    fk_pass = float(np.median(fk["pass_seconds"]))
    others = [r for r in rows if not r.get("fk")]
    best_other = min(float(np.median(r["pass_seconds"])) for r in others)
    best_other_ll = max(r["heldout_ll"] for r in others)
    with open(os.path.join(args.out, "results.csv"), "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["contender", "median_pass_s", "heldout_ll", "coherence_umass",
                      "coherence_npmi", "fk_speedup"])
        for r in rows:
            med = float(np.median(r["pass_seconds"]))
            out.writerow([r["name"], f"{med:.6f}", f"{r['heldout_ll']:.6f}", f"{r['umass']:.6f}",
                          f"{r['npmi']:.6f}", f"{med / fk_pass:.3f}"])
    lines = ["| contender | median pass (s) | held-out ll per word | coherence UMass | "
             "coherence NPMI | fk-lda speedup |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        med = float(np.median(r["pass_seconds"]))
        lines.append(f"| {r['name']} | {med:.4f} | {r['heldout_ll']:.4f} | {r['umass']:.4f} | "
                     f"{r['npmi']:.4f} | {med / fk_pass:.2f}x |")
    rel = (best_other_ll - fk["heldout_ll"]) / abs(best_other_ll)
    lines.append("")
    lines.append(f"fk-lda vs the fastest other: {best_other / fk_pass:.2f}x per pass "
                 f"(target >= 3x); held-out ll {100 * rel:+.2f}% worse than the others' best "
                 f"(target <= 1%; negative = better)")
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except subprocess.CalledProcessError as e:
        print(f"lda_compare: a run failed: {e}", file=sys.stderr)
        sys.exit(1)
