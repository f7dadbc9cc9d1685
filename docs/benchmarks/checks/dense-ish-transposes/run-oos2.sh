# Out of sample for choose_many_row_dense_transpose (kernels/select.cpp) as revised after
# run-oos.sh: ten more generated transposes of more than 1024 rows at 42-80% density (seeds
# 31-40), placed about the rule's bounds (4500 rows at K = 64; rows of mean 110, 250, 350),
# K = 64, 128, 256. Same variants and run as run.sh; rows go to $OUT/dense-ish-oos2.csv.gz.
set -u
B=.carry/bin/fk-bench
V=auto,cuda.spmm.cusparse,cuda.spmm.vdl,cuda.spmm.row_csc,cuda.spmm.row_split,cuda.spmm.nnz_vsr,cuda.spmm.dense
mkdir -p /tmp/dio2
for g in uniform:rows=100,cols=4200,nnz=231000,seed=31 uniform:rows=170,cols=5200,nnz=442000,seed=32 \
         uniform:rows=300,cols=3800,nnz=684000,seed=33 uniform:rows=240,cols=4000,nnz=480000,seed=34 \
         uniform:rows=640,cols=1400,nnz=403200,seed=35 uniform:rows=800,cols=1250,nnz=420000,seed=36 \
         uniform:rows=750,cols=1300,nnz=731250,seed=37 clustered:rows=220,cols=4400,nnz=440000,seed=38 \
         uniform:rows=150,cols=6500,nnz=780000,seed=39 banded:rows=1200,cols=1200,nnz=600000,seed=40; do
  timeout 120 $B spmm --gen $g --op t --k 64,128,256 --variants $V --runs 20 --warmup 3 \
    --csv /tmp/dio2/dense-ish-oos2.csv > /dev/null 2>&1 || echo "failed $g"
done
gzip -c /tmp/dio2/dense-ish-oos2.csv > "$OUT/dense-ish-oos2.csv.gz"
