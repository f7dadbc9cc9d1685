# Sᵀ·B at K = 24 and 32 on transposes of long even rows (2026-11-26): ten generated matrices
# whose transposes have 200-1000 rows of mean 75-1000 (seeds 41-50) and three of 1600-3000 rows
# of mean 210-360 (seeds 51-53), measured before any rule for them was written. Run on a lent
# GPU machine from the repository root over scripts/device_pack.sh's binaries in .carry/; rows go
# to $OUT/k32-oos.csv.gz.
set -u
B=.carry/bin/fk-bench
V=auto,cuda.spmm.cusparse,cuda.spmm.vdl,cuda.spmm.row_csc,cuda.spmm.row_split,cuda.spmm.nnz_vsr,cuda.spmm.dense
mkdir -p /tmp/k32
for g in uniform:rows=2000,cols=300,nnz=120000,seed=41 uniform:rows=1500,cols=800,nnz=96000,seed=42 \
         uniform:rows=6000,cols=1000,nnz=600000,seed=43 clustered:rows=3000,cols=700,nnz=210000,seed=44 \
         uniform:rows=900,cols=1024,nnz=76800,seed=45 uniform:rows=1200,cols=512,nnz=92160,seed=46 \
         banded:rows=4000,cols=600,nnz=240000,seed=47 uniform:rows=10000,cols=900,nnz=990000,seed=48 \
         uniform:rows=3000,cols=200,nnz=60000,seed=49 uniform:rows=20000,cols=1000,nnz=1000000,seed=50 \
         uniform:rows=700,cols=1600,nnz=336000,seed=51 uniform:rows=1500,cols=2500,nnz=900000,seed=52 \
         uniform:rows=1200,cols=3000,nnz=900000,seed=53; do
  timeout 120 $B spmm --gen $g --op t --k 24,32 --variants $V --runs 20 --warmup 3 \
    --csv /tmp/k32/k32-oos.csv > /dev/null 2>&1 || echo "failed $g"
done
gzip -c /tmp/k32/k32-oos.csv > "$OUT/k32-oos.csv.gz"
