#!/usr/bin/env bash
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
export FK_SHARED_DATA=$PWD/.carry/data
tar xJf .carry/bin.tar.xz -C .carry
nvidia-smi --query-gpu=name --format=csv,noheader
T=.carry/bin/fk_kernel_tests
timeout 300 $T --gtest_filter='*sweep*:*Sweep*' 2>&1 | tail -3
B=.carry/bin/fk-bench
D=.carry/data/dlmc/rn50/magnitude_pruning
m=("--preset nips" "--input .carry/data/suitesparse/bcsstk13.mtx" "--input $D/0.9/final_dense.smtx" "--input $D/0.9/bottleneck_2_block_group4_2_1.smtx" "--input $D/0.5/bottleneck_2_block_group3_1_1.smtx")
for x in "${m[@]}"; do
  timeout 120 $B spmm $x --k 128,512 --op n --variants cuda.spmm.cusparse,cuda.spmm.row_split --csv $OUT/base.csv > $OUT/last.log 2>&1 || { echo "fail $x"; tail -3 $OUT/last.log; }
done
for pb in 100 48 24 12; do for bps in 4 8; do
  for x in "${m[@]}"; do
    FK_SWEEP_PB=$pb FK_SWEEP_BPS=$bps timeout 120 $B spmm $x --k 128,512 --op n --variants cuda.spmm.sweep --csv $OUT/pb${pb}_b$bps.csv > $OUT/last.log 2>&1 || echo "fail $pb $x"
  done
done; done
# summary table (printed in the run log)
python3 - <<'PY'
import csv,os,glob,collections
t=collections.defaultdict(dict)
for f in sorted(glob.glob(os.environ['OUT']+'/*.csv')):
  cfg=os.path.basename(f)[:-4]
  for r in csv.DictReader(open(f)):
    v=r['variant'].replace('cuda.spmm.','')
    t[(r['matrix'][-20:],r['k'])][cfg if v=='sweep' else v]=float(r['median_ms'])*1000
cfgs=sorted({c for d in t.values() for c in d})
print('matrix k', *cfgs)
for key,d in t.items(): print(*key, *[round(d.get(c,0),1) for c in cfgs])
PY
