#!/usr/bin/env bash
# The sweep behind fill_lanes (README.md): vdl with FK_EXP_VDL_FILL = 0 (the lane groups before),
# 2 and 8 blocks per SM, an environment switch in VdlPlan that existed only for this run (the
# committed code fixes 8). Run on the device from the repository root after
# `bash scripts/device_pack.sh fk-bench`; writes $OUT/fill{0,2,8}.csv.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
tar xJf .carry/bin.tar.xz -C .carry
B=.carry/bin/fk-bench
m=()
for f in .carry/data/suitesparse/*.mtx; do m+=("--input $f"); done
m+=("--preset kos" "--preset ml-100k" "--preset nips")
m+=("--gen uniform:rows=20000,cols=20000,nnz=100000,seed=11" "--gen powerlaw:rows=30000,cols=30000,nnz=300000,seed=12"
    "--gen banded:rows=50000,cols=50000,nnz=400000,seed=13" "--gen clustered:rows=10000,cols=10000,nnz=200000,seed=14"
    "--gen uniform:rows=4000,cols=4000,nnz=40000,seed=15" "--gen uniform:rows=100000,cols=100000,nnz=300000,seed=16")
for fill in 0 2 8; do
  for x in "${m[@]}"; do
    FK_EXP_VDL_FILL=$fill timeout 60 $B spmm $x --k 1,4 --op both --variants cuda.spmm.vdl,auto \
      --csv $OUT/fill$fill.csv > $OUT/last.log 2>&1 || echo "fail $fill $x"
  done
done
