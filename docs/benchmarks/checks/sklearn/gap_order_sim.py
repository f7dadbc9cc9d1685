#!/usr/bin/python3
"""Host model: GaP's EM updates both from the old model (fk-gap) against one after the other
(Gauss-Seidel, as scikit-learn's NMF does), on UCI kos with a flat prior, in double precision.

    /usr/bin/python3 docs/benchmarks/checks/sklearn/gap_order_sim.py [K]   (default K = 50; ~15 min)

Prints the Poisson log-likelihood per token after 5..200 iterations of each, then how many
alternating iterations reach what the joint ones reach after 25..300.
"""
import gzip
import math
import os
import sys

import numpy as np
import scipy.sparse as sp

here = os.path.dirname(os.path.abspath(__file__))
path = os.path.join(here, "..", "..", "..", "..", "..", "shared", "data", "uci-kos",
                    "docword.kos.txt.gz")
with gzip.open(path, "rt") as f:
    d, w = int(f.readline()), int(f.readline())
    f.readline()
    a = np.loadtxt(f)
rows, cols, vals = a[:, 0].astype(int) - 1, a[:, 1].astype(int) - 1, a[:, 2]
K = int(sys.argv[1]) if len(sys.argv) > 1 else 50
rng = np.random.default_rng(1)
lam0 = rng.uniform(0.5, 1.5, (w, K))
lam0 /= lam0.sum(0)
lengths = np.bincount(rows, weights=vals, minlength=d)
x0 = np.tile(lengths[:, None] / K, (1, K)) * rng.uniform(0.5, 1.5, (d, K))
log_fact = sum(math.lgamma(v + 1) for v in vals)
tokens = vals.sum()


def ll(x, lam):
    r = np.einsum("ij,ij->i", x[rows], lam[cols])
    return (np.dot(vals, np.log(r)) - np.dot(x.sum(0), lam.sum(0)) - log_fact) / tokens


def ratios(x, lam):  # Q = F ./ (X Λᵀ) at F's nonzeros
    r = np.einsum("ij,ij->i", x[rows], lam[cols])
    return sp.csr_matrix((vals / r, (rows, cols)), shape=(d, w))


def joint(x, lam):  # fk-gap: T1 and T2 from the same Q (a = 1, b → ∞)
    q = ratios(x, lam)
    x, lam = x * (q @ lam), lam * (q.T @ x)
    return x, lam / lam.sum(0)


def alternating(x, lam):  # X first, then Λ from the new X
    x = x * (ratios(x, lam) @ lam)
    lam = lam * (ratios(x, lam).T @ x)
    return x, lam / lam.sum(0)


marks = (5, 10, 20, 50, 100, 200)
for name, step in (("joint", joint), ("alternating", alternating)):
    x, lam, out = x0.copy(), lam0.copy(), []
    for it in range(1, 201):
        x, lam = step(x, lam)
        if it in marks:
            out.append(f"{it}:{ll(x, lam):.4f}")
    print(name, " ".join(out), flush=True)
x, lam, target = x0.copy(), lam0.copy(), {}
for it in range(1, 301):
    x, lam = joint(x, lam)
    if it in (25, 50, 100, 200, 300):
        target[it] = ll(x, lam)
x, lam, need = x0.copy(), lam0.copy(), {}
for it in range(1, 301):
    x, lam = alternating(x, lam)
    v = ll(x, lam)
    for n, t in target.items():
        if n not in need and v >= t:
            need[n] = it
print("alternating iterations to reach joint@N:", need)
