#!/usr/bin/env python3
"""Scores an fk-bench build's GPU `auto` SpMM picks against measured variant times.

usage: score.py FK_BENCH ROWS.csv[.gz] ... [-v]

ROWS are fk-bench --csv rows of every contender (auto's own rows are ignored). For each measured
matrix the script asks FK_BENCH for its picks (--explain-auto, which needs no GPU: the matrix is
regenerated or read again here, from $FK_SHARED_DATA or ../shared/data) and takes the measured
time of the picked variant: "within 10%" counts problems where that time is at most 1.1x the
fastest measured variant's, and the geometric mean is of cuSPARSE's time over the pick's. -v
lists the misses. Used for the old (eeb3783) and new rules in README.md.
"""
import collections, csv, gzip, math, os, subprocess, sys, tempfile

data = os.environ.get('FK_SHARED_DATA', os.path.join(os.path.dirname(__file__), '../../../../../shared/data'))
FILES = {'hep-th': 'suitesparse/hep-th.mtx', 'bcsstk13': 'suitesparse/bcsstk13.mtx',
         'delaunay_n14': 'suitesparse/delaunay_n14.mtx', 'docword.kos': 'uci-kos/docword.kos.txt.gz',
         'u.data': 'movielens-100k/u.data'}


def source(matrix):
    if ':' in matrix:
        return ['--gen', matrix]
    if matrix[0].isdigit() and '/' in matrix:  # a DLMC layer, as fk-bench names it
        return ['--input', os.path.join(data, 'dlmc/rn50/magnitude_pruning', matrix + '.smtx')]
    if matrix in FILES:
        return ['--input', os.path.join(data, FILES[matrix])]
    return ['--preset', matrix]


def main():
    args = [a for a in sys.argv[1:] if a != '-v']
    fk_bench, paths = args[0], args[1:]
    times = collections.defaultdict(dict)
    for path in paths:
        with (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)) as f:
            for r in csv.DictReader(f):
                if r['status'] == 'ok' and r['variant'] != 'auto':
                    times[(r['form'], r['matrix'], int(r['k']))][r['variant']] = float(r['median_ms'])
    widths = collections.defaultdict(set)
    for form, matrix, k in times:
        widths[matrix].add(k)
    picks = {}
    with tempfile.TemporaryDirectory() as tmp:
        for matrix, ks in widths.items():
            out = os.path.join(tmp, 'picks.csv')
            if os.path.exists(out):
                os.remove(out)
            subprocess.run([fk_bench, 'spmm'] + source(matrix) +
                           ['--k', ','.join(map(str, sorted(ks))), '--op', 'both', '--explain-auto', '--csv', out],
                           stdout=subprocess.DEVNULL, check=True)
            for r in csv.DictReader(open(out)):
                picks[(r['form'], matrix, int(r['k']))] = r
    within, ratios, misses = 0, [], []
    for key, t in sorted(times.items()):
        r = picks[key]
        pick = r['auto_pick']
        if pick not in t:
            print('pick not measured:', key, pick)
            continue
        best = min(t, key=t.get)
        within += t[pick] <= 1.1 * t[best]
        ratios.append(t['cuda.spmm.cusparse'] / t[pick])
        if t[pick] > 1.1 * t[best]:
            misses.append((t[pick] / t[best], key, pick, best, r['rows'], r['row_mean'], r['row_cv'], r['row_max']))
    print('within 10%% of the best: %d of %d; auto vs cuSPARSE geometric mean %.3f, slowest %.2f' %
          (within, len(ratios), math.exp(sum(map(math.log, ratios)) / len(ratios)), min(ratios)))
    if '-v' in sys.argv:
        for m in sorted(misses, reverse=True):
            print('%.2f %s %s K=%d %s (best %s) rows %s mean %.0f cv %.2f longest %s' %
                  (m[0], m[1][0], m[1][1], m[1][2], m[2], m[3], m[4], float(m[5]), float(m[6]), m[7]))


if __name__ == '__main__':
    main()
