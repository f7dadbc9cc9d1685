# Sᵀ·B on transposes of more than 1024 rows at 40-60% density, every variant that applies to them,
# K = 32-256 (2026-11-26). Run on a lent GPU machine from the repository root, with the binaries
# and data of scripts/device_pack.sh unpacked in .carry/; rows go to $OUT/dense-ish.csv.gz.
set -u
B=.carry/bin/fk-bench
V=auto,cuda.spmm.cusparse,cuda.spmm.vdl,cuda.spmm.row_csc,cuda.spmm.row_split,cuda.spmm.nnz_vsr,cuda.spmm.dense
mkdir -p /tmp/di
for g in uniform:rows=200,cols=5000,nnz=450000,seed=11 uniform:rows=400,cols=1500,nnz=330000,seed=12 \
         uniform:rows=128,cols=6000,nnz=384000,seed=13 uniform:rows=600,cols=1800,nnz=540000,seed=14 \
         uniform:rows=350,cols=2800,nnz=600000,seed=15 uniform:rows=900,cols=2000,nnz=900000,seed=16 \
         clustered:rows=320,cols=2500,nnz=400000,seed=17 uniform:rows=256,cols=4608,nnz=650000,seed=18; do
  timeout 120 $B spmm --gen $g --op t --k 32,64,128,256 --variants $V --runs 20 --warmup 3 \
    --csv /tmp/di/dense-ish.csv > /dev/null 2>&1 || echo "failed $g"
done
gzip -c /tmp/di/dense-ish.csv > "$OUT/dense-ish.csv.gz"
