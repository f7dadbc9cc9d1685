# Out of sample for row_csc's 128-column tiles on very few rows (at most a quarter of the GPU's
# threads in the rows' warps: about 2112 rows on an H100): seven generated matrices not in the
# sets before (S·B and Sᵀ·B, so 400-20000 rows), K = 160, 256, 512, cuda.spmm.row_csc, the build
# before (fk-bench-old: 256-column tiles across the grid below 8448 rows) and after, alternating,
# two rounds. Rows go to $OUT/narrow-oos-{before,after}.csv.gz.
set -u
mkdir -p /tmp/no
for i in 1 2; do
  for g in uniform:rows=800,cols=3000,nnz=80000,seed=91 banded:rows=1500,cols=1500,nnz=60000,seed=92 \
           clustered:rows=2000,cols=2000,nnz=100000,seed=93 powerlaw:rows=1800,cols=4000,nnz=150000,seed=94 \
           uniform:rows=400,cols=20000,nnz=400000,seed=95 uniform:rows=2100,cols=900,nnz=126000,seed=96 \
           uniform:rows=3000,cols=500,nnz=150000,seed=97; do
    for b in fk-bench-old fk-bench; do
      timeout 60 .carry/bin/$b spmm --gen $g --op both --k 160,256,512 --variants cuda.spmm.row_csc \
        --runs 15 --warmup 3 --csv /tmp/no/$b.csv > /dev/null 2>&1 || echo "failed $b $g"
    done
  done
done
gzip -c /tmp/no/fk-bench-old.csv > "$OUT/narrow-oos-before.csv.gz"
gzip -c /tmp/no/fk-bench.csv > "$OUT/narrow-oos-after.csv.gz"
