#!/usr/bin/env python3
"""Renders tensor-core.md's tables from a tc_bench CSV (bench/tc_bench.cu, scripts/bench_tc.sh).

usage: tables.py TC_BENCH_CSV [--rule]   (markdown on stdout)

"pick" is the kernel the plans of cuda.spmm.tc_v* run (tc::staged_pays in kernels/cuda/
tc_vector.hpp: staged where B's slice fits, S has >= 1000 rows and stored vectors x ceil(K / 16)
>= 150 N), read off the two kernels' rows of the same run. "vs X" is X's time over pick's time.
"""
import csv
import math
import re
import sys
from collections import defaultdict

WORK_PER_COLUMN, MIN_ROWS = 150, 1000


def load(path):
    cases = defaultdict(dict)
    for r in csv.DictReader(open(path)):
        cases[(r['op'], r['matrix'], int(r['v']), int(r['k']))][r['contender']] = r
    return cases


def ms(c, name):
    x = c.get(name, {}).get('median_ms', '')
    return float(x) if x else None


def pick(c, v, k):
    tc, st = ms(c, 'tc'), ms(c, 'tc_staged')
    work = int(c['tc']['stored']) // v * math.ceil(k / 16)
    staged = st is not None and int(c['tc']['m']) >= MIN_ROWS and work >= WORK_PER_COLUMN * int(c['tc']['n'])
    return (st, 'staged') if staged else (tc, 'gather')


def label(matrix):
    m = re.search(r'rows=(\d+),cols=(\d+),nnz=(\d+)', matrix)
    if m:
        rows, cols, nnz = map(int, m.groups())
        return f'{round(100 * (1 - nnz / rows / cols))}%'
    return '/'.join(matrix.split('/')[-2:])


def ratio(x, y):
    return f'{x / y:.2f}×' if x and y else '—'


def bold_if(s, cond):
    return f'**{s}**' if cond else s


def spmm_tables(cases):
    gen = sorted({(v, m) for (op, m, v, k) in cases if op == 'spmm' and m.startswith('vector')},
                 key=lambda x: (x[0], -int(re.search(r'nnz=(\d+)', x[1]).group(1))))
    for k in sorted({k for (op, m, v, k) in cases if op == 'spmm'}):
        print(f'\n##### K = {k}\n')
        print('| V | sparsity | gather ms | staged ms | pick vs dense | vs BELL | vs fp32 auto |')
        print('|---|---|---|---|---|---|---|')
        for v, m in gen:
            c = cases[('spmm', m, v, k)]
            t, which = pick(c, v, k)
            g, s = ms(c, 'tc'), ms(c, 'tc_staged')
            dense = ms(c, 'cublas_dense')
            print(f'| {v} | {label(m)} | {g:.4f}{" ←" if which == "gather" else ""} | '
                  f'{(f"{s:.4f}" if s else "—")}{" ←" if which == "staged" else ""} | '
                  f'{bold_if(ratio(dense, t), dense and dense > t)} | {ratio(ms(c, "cusparse_bell"), t)} | '
                  f'{ratio(ms(c, "fp32_auto"), t)} |')


def sddmm_table(cases):
    gen = sorted({(v, m) for (op, m, v, k) in cases if op == 'sddmm' and m.startswith('vector')},
                 key=lambda x: (x[0], -int(re.search(r'nnz=(\d+)', x[1]).group(1))))
    ks = sorted({k for (op, m, v, k) in cases if op == 'sddmm'})
    print('| V | sparsity |' + ''.join(f' K={k}: tc ms | vs dense | vs fp32 auto |' for k in ks))
    print('|---|---|' + '---|' * (3 * len(ks)))
    for v, m in gen:
        row = f'| {v} | {label(m)} |'
        for k in ks:
            c = cases[('sddmm', m, v, k)]
            t, dense = ms(c, 'tc'), ms(c, 'cublas_dense')
            row += f' {t:.4f} | {bold_if(ratio(dense, t), dense and dense > t)} | {ratio(ms(c, "fp32_auto"), t)} |'
        print(row)


def dlmc_table(cases, k):
    print('| layer | V | padding | gather ms | staged ms | pick vs dense | vs BELL | vs fp32 auto |')
    print('|---|---|---|---|---|---|---|---|')
    for (op, m, v, kk), c in cases.items():
        if op != 'spmm' or kk != k or m.startswith('vector'):
            continue
        t, which = pick(c, v, k)
        g, s = ms(c, 'tc'), ms(c, 'tc_staged')
        dense = ms(c, 'cublas_dense')
        pad = float(c['tc']['padding_ratio'])
        print(f'| {label(m)} | {v} | {pad:.0%} | {g:.4f}{" ←" if which == "gather" else ""} | '
              f'{(f"{s:.4f}" if s else "—")}{" ←" if which == "staged" else ""} | '
              f'{bold_if(ratio(dense, t), dense and dense > t)} | {ratio(ms(c, "cusparse_bell"), t)} | '
              f'{ratio(ms(c, "fp32_auto"), t)} |')


def summary(cases):
    rows = [(m, v, k, c) for (op, m, v, k), c in cases.items() if op == 'spmm']
    within = sum(1 for m, v, k, c in rows
                 if pick(c, v, k)[0] <= 1.1 * min(x for x in (ms(c, 'tc'), ms(c, 'tc_staged')) if x))
    gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float('nan')
    bell = [ms(c, 'cusparse_bell') / pick(c, v, k)[0] for m, v, k, c in rows if ms(c, 'cusparse_bell')]
    print(f'- pick within 10% of the faster kernel: {within} of {len(rows)}')
    print(f'- pick over cuSPARSE Blocked-ELL, geometric mean: {gm(bell):.2f}× over {len(bell)} rows '
          f'(slowest {min(bell):.2f}×)')
    for gen in (True, False):
        for v in (2, 4, 8):
            xs = [ms(c, 'tc') / ms(c, 'tc_staged') for m, vv, k, c in rows
                  if vv == v and m.startswith('vector') == gen and ms(c, 'tc_staged')]
            if xs:
                print(f'- gather / staged, {"generated" if gen else "DLMC"} V = {v}: geometric mean '
                      f'{gm(xs):.2f}× ({min(xs):.2f}-{max(xs):.2f}×, {len(xs)} rows)')


if __name__ == '__main__':
    cases = load(sys.argv[1])
    summary(cases)
    print()
    spmm_tables(cases)
    print('\n##### DLMC (rn50 magnitude pruning), K = 256, padded to V x 1\n')
    dlmc_table(cases, 256)
    print('\n#### SDDMM (unscaled): generated V x 1 matrices, 4096 x 4096\n')
    sddmm_table(cases)
