#!/usr/bin/python3
"""Checks fk-lda's topic coherence (coherence.csv, summary.json) against an independent count.

  check.py DOCWORD OUT_DIR

DOCWORD is the UCI docword file the run trained on, OUT_DIR its --out. The training documents are
the rows train_doc_ids.npy lists (all rows when the run held none out). With numpy and scipy,
bench/lda_compare.py's pair_scores recounts the document frequencies of every topic's words
(coherence.csv's words column, mapped through OUT_DIR/vocab.txt) and computes UMass and NPMI as
apps/lda/coherence.hpp defines them; with gensim the same count with gensim's smoothing is
compared with gensim's own u_mass on the same documents and words, which checks the pair order.
Exit status 0 when every topic agrees to 1e-6.
"""
import csv
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from lda_compare import pair_scores, read_docword, to_csr  # noqa: E402


def main():
    docword, out = sys.argv[1], sys.argv[2]
    _, w, docs = read_docword(docword)
    ids_path = os.path.join(out, "train_doc_ids.npy")
    if os.path.exists(ids_path):
        docs = [docs[i] for i in np.load(ids_path)]
    x = to_csr(docs, w)
    vocab = [line.rstrip("\n") for line in open(os.path.join(out, "vocab.txt"))]
    index = {word: i for i, word in enumerate(vocab)}
    rows = list(csv.DictReader(open(os.path.join(out, "coherence.csv"))))
    topics = [[index[word] for word in r["words"].split(" ")] for r in rows]
    ours = [pair_scores(x, ids) for ids in topics]
    worst = max(max(abs(u - float(r["umass"])), abs(n - float(r["npmi"])))
                for (u, n), r in zip(ours, rows))
    summary = json.load(open(os.path.join(out, "summary.json")))
    print(f"{len(rows)} topics of {len(topics[0])} words over {x.shape[0]} documents")
    print(f"fk-lda: UMass {summary['coherence_umass']:.6f}, NPMI {summary['coherence_npmi']:.6f}; "
          f"recounted: {np.mean([u for u, _ in ours]):.6f}, {np.mean([n for _, n in ours]):.6f}; "
          f"largest difference in a topic {worst:.3g}")
    try:
        from gensim.corpora import Dictionary
        from gensim.models.coherencemodel import CoherenceModel
    except ImportError:
        print("gensim not installed: its u_mass not compared")
        return 0 if worst < 1e-6 else 1
    dictionary = Dictionary([vocab])  # ids in the vocabulary's order
    assert all(dictionary.token2id[word] == i for i, word in enumerate(vocab))
    corpus = [list(zip(row.indices.tolist(), [1] * row.nnz)) for row in x]
    cm = CoherenceModel(topics=[[vocab[i] for i in ids] for ids in topics], corpus=corpus,
                        dictionary=dictionary, coherence="u_mass", topn=len(topics[0]))
    theirs = cm.get_coherence_per_topic()
    same_count = [pair_scores(x, ids, smoothing="gensim")[0] for ids in topics]
    worst_g = max(abs(a - b) for a, b in zip(theirs, same_count))
    print(f"gensim u_mass (its smoothing): {np.mean(theirs):.6f}; recounted with that smoothing: "
          f"{np.mean(same_count):.6f}; largest difference in a topic {worst_g:.3g}")
    return 0 if max(worst, worst_g) < 1e-6 else 1


if __name__ == "__main__":
    sys.exit(main())
