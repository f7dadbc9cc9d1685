# Sᵀ·B at K = 384, 512 and 1024 on ten generated small matrices at 10-15% density (seed 21): does
# dense (cuBLAS on a dense copy) beat the row kernels there, as on the DLMC layers? Run on the
# device from the repository root with fk-bench in .carry/bin; rows go to $OUT/dense-held.csv.gz.
set -u
V=auto,cuda.spmm.cusparse,cuda.spmm.row_csc,cuda.spmm.row_split,cuda.spmm.nnz_vsr,cuda.spmm.vdl,cuda.spmm.dense
csv=/tmp/dense-held.csv; rm -f $csv
for g in uniform:rows=128,cols=576,nnz=7373,seed=21 uniform:rows=256,cols=1152,nnz=35389,seed=21 \
         uniform:rows=512,cols=256,nnz=13107,seed=21 uniform:rows=1024,cols=512,nnz=52429,seed=21 \
         uniform:rows=2048,cols=1024,nnz=209715,seed=21 uniform:rows=300,cols=700,nnz=31500,seed=21 \
         uniform:rows=64,cols=2304,nnz=14746,seed=21 uniform:rows=1500,cols=1000,nnz=150000,seed=21 \
         clustered:rows=512,cols=512,nnz=39322,seed=21 clustered:rows=1024,cols=1024,nnz=104858,seed=21; do
  timeout 100 .carry/bin/fk-bench spmm --gen $g --op t --k 384,512,1024 --variants $V --runs 20 --warmup 3 --csv $csv > /dev/null 2>&1 || echo "failed $g"
done
gzip -c $csv > $OUT/dense-held.csv.gz
