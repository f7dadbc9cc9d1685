# Out of sample for the committed condition of row_csc's 128-column tiles (at most about 2112
# rows on an H100, rows of mean >= 64; set on run-narrow-oos.sh's rows): eight more generated
# matrices of 300-2000 rows of mean 30-2000 (seeds 101-108), S·B and Sᵀ·B, K = 160, 256, 512,
# cuda.spmm.row_csc, the build before (fk-bench-old: 256-column tiles across the grid) and after,
# alternating, two rounds. Rows go to $OUT/narrow-oos2-{before,after}.csv.gz.
set -u
mkdir -p /tmp/no2
for i in 1 2; do
  for g in uniform:rows=1000,cols=5000,nnz=100000,seed=101 banded:rows=1200,cols=1200,nnz=96000,seed=102 \
           clustered:rows=1600,cols=3000,nnz=160000,seed=103 uniform:rows=2000,cols=2000,nnz=60000,seed=104 \
           powerlaw:rows=1000,cols=6000,nnz=120000,seed=105 banded:rows=700,cols=700,nnz=35000,seed=106 \
           uniform:rows=300,cols=8000,nnz=600000,seed=107 clustered:rows=1800,cols=1800,nnz=126000,seed=108; do
    for b in fk-bench-old fk-bench; do
      timeout 60 .carry/bin/$b spmm --gen $g --op both --k 160,256,512 --variants cuda.spmm.row_csc \
        --runs 15 --warmup 3 --csv /tmp/no2/$b.csv > /dev/null 2>&1 || echo "failed $b $g"
    done
  done
done
gzip -c /tmp/no2/fk-bench-old.csv > "$OUT/narrow-oos2-before.csv.gz"
gzip -c /tmp/no2/fk-bench.csv > "$OUT/narrow-oos2-after.csv.gz"
