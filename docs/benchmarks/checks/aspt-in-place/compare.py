# Per ASpT case: the A and B binaries' times (ms), A/B (best of each), and rows/aspt within each
# binary's own runs.   python3 compare.py A1 A2 A3 B1 B2 B3   (reads NAME.csv.gz here)
import collections, csv, gzip, math, sys

runs = sys.argv[1:]
t = collections.defaultdict(dict)
for n in runs:
    with gzip.open(n + '.csv.gz', 'rt') as f:
        for r in csv.reader(f):
            if r[0] == 'T':
                t[(r[1], r[3].split('/', 1)[1][:34], r[4], r[5])][n] = float(r[6])
geo = lambda v: math.exp(sum(map(math.log, v)) / len(v))
for op in ['SpMM', 'SDDMM']:
    ab, ra, rb = [], [], []
    for k in sorted(t):
        if k[0] != op or k[3] != 'omp.' + op.lower() + '.aspt':  # not aspt[no tiles], aspt[control], ...
            continue
        d = t[k]
        A = [d[n] for n in runs if n[0] == 'A']
        B = [d[n] for n in runs if n[0] == 'B']
        rows = t[(k[0], k[1], k[2], 'omp.' + op.lower() + '.rows')]
        rows_a = min(v for n, v in rows.items() if n[0] == 'A')
        rows_b = min(v for n, v in rows.items() if n[0] == 'B')
        ab.append(min(A) / min(B)); ra.append(rows_a / min(A)); rb.append(rows_b / min(B))
        print(f"{op:5} {k[1]:34} K={k[2]:>3} A {' '.join('%.3f' % x for x in A)}  B {' '.join('%.3f' % x for x in B)}"
              f"  A/B {ab[-1]:.3f}  rows/aspt A {ra[-1]:.2f} B {rb[-1]:.2f}")
    if ab:
        print(f"{op} geometric means: A/B {geo(ab):.3f}, rows/aspt A {geo(ra):.3f} B {geo(rb):.3f}")
