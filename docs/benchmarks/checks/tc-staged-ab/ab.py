#!/usr/bin/env python3
"""Ratios of the staged kernel's time between two builds (tc_bench CSVs, gzipped or not).

usage: ab.py BASE.csv[.gz],... OTHER.csv[.gz],...
Each side's time per (matrix, V, K) is the smallest median of its runs (tc_bench's tc_staged
rows); printed: the geometric mean, min and max of OTHER / BASE over the generated matrices and
over the DLMC layers.
"""
import csv
import gzip
import math
import sys
from collections import defaultdict


def times(paths):
    best = {}
    for path in paths.split(','):
        with (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)) as f:
            for r in csv.DictReader(f):
                if r['op'] == 'spmm' and r['contender'] == 'tc_staged' and r['median_ms']:
                    key = (r['matrix'], r['v'], r['k'])
                    best[key] = min(best.get(key, float('inf')), float(r['median_ms']))
    return best


base, other = times(sys.argv[1]), times(sys.argv[2])
groups = defaultdict(list)
for key, t in base.items():
    if key in other:
        groups['generated' if key[0].startswith('vector') else 'DLMC'].append(other[key] / t)
for name, xs in sorted(groups.items()):
    gm = math.exp(sum(map(math.log, xs)) / len(xs))
    print(f'{name}: {gm:.3f} (min {min(xs):.3f}, max {max(xs):.3f}, {len(xs)} problems)')
