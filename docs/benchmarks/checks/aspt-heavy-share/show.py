# The min_heavy_share rule on the DLMC layers: fit set (omp_quick's 7-layer sample) and held-out
# set (the other 52), SpMM at K = 128 and 256. Compares omp.spmm.aspt (the rule at its default)
# with aspt[share -1] (no such rule, the code before) against the row split and the best CPU
# variant, and lists the layers where the two differ by more than 3%.
#   python3 show.py dlmc-all-k128-256.csv.gz
import collections, csv, gzip, math, sys

t = collections.defaultdict(dict)
with gzip.open(sys.argv[1], 'rt') as f:
    for r in csv.reader(f):
        if r[0] == 'T':
            t[(r[3], int(r[4]))][r[5]] = float(r[6])
sample = {"rn50/0.9/bottleneck_2_block_group4_1_1", "rn50/0.9/bottleneck_2_block_group3_2_1", "rn50/0.9/final_dense",
          "rn50/0.9/bottleneck_projection_block_group_projection_block_group4", "rn50/0.5/bottleneck_2_block_group3_1_1",
          "rn50/0.8/bottleneck_2_block_group3_1_1", "rn50/0.98/bottleneck_2_block_group3_1_1"}
geo = lambda v: math.exp(sum(map(math.log, v)) / len(v))
for name, member in [('fit (the sample)', lambda m: m in sample), ('held out', lambda m: m not in sample)]:
    for K in (128, 256):
        new, old, best_new, best_old, changed = [], [], [], [], []
        for (m, k), d in sorted(t.items()):
            if k != K or not member(m):
                continue
            rows, a_new, a_old = d['omp.spmm.rows'], d['omp.spmm.aspt'], d['aspt[share -1]']
            others = [rows, d['omp.spmm.nnz_balanced']]
            new.append(rows / a_new); old.append(rows / a_old)
            best_new.append(a_new / min(others + [a_new])); best_old.append(a_old / min(others + [a_old]))
            if abs(a_new / a_old - 1) > 0.03:
                changed.append(f"{m[5:]}: old/new {a_old / a_new:.3f}, rows/aspt {rows / a_old:.2f} -> {rows / a_new:.2f}"
                               f" (share 0.5: {rows / d['aspt[share 0.5]']:.2f}, 0.7: {rows / d['aspt[share 0.7]']:.2f})")
        print(f"{name}, K = {K}: {len(new)} layers; rows/aspt {geo(old):.3f} -> {geo(new):.3f}; "
              f"aspt over the best: worst {max(best_old):.3f} -> {max(best_new):.3f}, "
              f"more than 1.10: {sum(x > 1.1 for x in best_old)} -> {sum(x > 1.1 for x in best_new)}")
        for c in changed:
            print('   ', c)
