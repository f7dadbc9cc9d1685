#!/usr/bin/env python3
"""One fk-lda minibatch of the generated nytimes corpus as a Matrix Market file.

fk-lda cuts its corpus into minibatches of 4096 documents and runs the kernels on each one's
local vocabulary: the words the minibatch uses, renumbered in ascending word id
(apps/lda/corpus.cpp, make_local_batch). This does the same to a 4096-document corpus drawn from
the nytimes preset:

  fk-datagen lda --preset nytimes --docs 4096 --out /tmp/ny
  python3 make_minibatch.py /tmp/ny/docword.txt /tmp/mb.mtx
"""
import collections
import statistics
import sys

src, dst = sys.argv[1], sys.argv[2]
entries = []
with open(src) as f:
    for i, line in enumerate(f):
        if i >= 3:  # UCI header: documents, words, nonzeros
            d, w, n = line.split()
            entries.append((int(d), int(w), int(n)))
local = {w: i + 1 for i, w in enumerate(sorted({w for _, w, _ in entries}))}
rows = max(d for d, _, _ in entries)
per_word = list(collections.Counter(w for _, w, _ in entries).values())
mean = statistics.mean(per_word)
print(f"{rows} x {len(local)}, {len(entries)} nonzeros; rows of mean {len(entries) / rows:.1f}; "
      f"transposed rows of mean {mean:.1f}, longest {max(per_word)}, "
      f"cv {statistics.pstdev(per_word) / mean:.2f}")
with open(dst, "w") as f:
    f.write("%%MatrixMarket matrix coordinate real general\n")
    f.write(f"{rows} {len(local)} {len(entries)}\n")
    for d, w, n in entries:
        f.write(f"{d} {local[w]} {n}\n")
