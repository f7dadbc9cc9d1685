# Out of sample for the first version of choose_many_row_dense_transpose (kernels/select.cpp):
# nine more generated transposes of more than 1024 rows at 42-80% density (seeds 21-29), rows of
# mean 72-800 placed about that version's bounds (rows of mean 110, 250, 350), K = 64, 128, 256.
# Same variants and run as run.sh; rows go to $OUT/dense-ish-oos.csv.gz.
set -u
B=.carry/bin/fk-bench
V=auto,cuda.spmm.cusparse,cuda.spmm.vdl,cuda.spmm.row_csc,cuda.spmm.row_split,cuda.spmm.nnz_vsr,cuda.spmm.dense
mkdir -p /tmp/dio
for g in uniform:rows=200,cols=3000,nnz=300000,seed=21 uniform:rows=250,cols=3200,nnz=384000,seed=22 \
         uniform:rows=400,cols=2400,nnz=576000,seed=23 uniform:rows=500,cols=1600,nnz=440000,seed=24 \
         uniform:rows=520,cols=1500,nnz=546000,seed=25 uniform:rows=160,cols=7000,nnz=504000,seed=26 \
         uniform:rows=700,cols=1200,nnz=352800,seed=27 clustered:rows=300,cols=3000,nnz=420000,seed=28 \
         uniform:rows=1000,cols=1100,nnz=880000,seed=29; do
  timeout 120 $B spmm --gen $g --op t --k 64,128,256 --variants $V --runs 20 --warmup 3 \
    --csv /tmp/dio/dense-ish-oos.csv > /dev/null 2>&1 || echo "failed $g"
done
gzip -c /tmp/dio/dense-ish-oos.csv > "$OUT/dense-ish-oos.csv.gz"
