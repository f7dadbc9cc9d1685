# cuda.spmm.shared_b (B's column slices in shared memory) against the other kernels and cuSPARSE,
# S·B and Sᵀ·B at K = 32-512, 2026-11-26. Run on the device from the repository root with fk-bench
# in .carry/bin and the data in $FK_SHARED_DATA; `run.sh SET` writes $OUT/SET.csv.gz.
#   a: DLMC layers of 256-2048 rows and 512-4608 columns at 50-90% sparsity, three SuiteSparse
#      matrices, the nips-shaped corpus and two generated matrices (the set the rule is fitted on)
set -u
set_name=$1
V=auto,cuda.spmm.cusparse,cuda.spmm.row_csc,cuda.spmm.row_split,cuda.spmm.nnz_vsr,cuda.spmm.shared_b
D=$FK_SHARED_DATA/dlmc/rn50/magnitude_pruning
csv=/tmp/shared-b-$set_name.csv
rm -f $csv
bench() {  # bench VARIANTS fk-bench-matrix-args...
  local v=$1; shift
  timeout 200 .carry/bin/fk-bench spmm "$@" --op both --k 32,64,128,256,512 --variants $v --runs 20 \
    --warmup 3 --csv $csv > /dev/null 2>&1 || echo "failed $*"
}
case $set_name in
  a)
    for m in 0.9/bottleneck_1_block_group_projection_block_group4 \
             0.9/bottleneck_projection_block_group_projection_block_group3 0.9/bottleneck_2_block_group3_1_1 \
             0.9/bottleneck_1_block_group4_1_1 0.9/bottleneck_3_block_group4_1_1 0.8/bottleneck_2_block_group3_1_1 \
             0.7/bottleneck_2_block_group3_1_1 0.9/final_dense \
             0.9/bottleneck_projection_block_group_projection_block_group4 0.9/bottleneck_2_block_group4_1_1 \
             0.5/bottleneck_2_block_group3_1_1; do
      bench $V,cuda.spmm.dense --input $D/$m.smtx --name $m
    done
    for m in bcsstk13 hep-th delaunay_n14; do bench $V --input $FK_SHARED_DATA/suitesparse/$m.mtx; done
    bench $V --preset nips
    bench $V,cuda.spmm.dense --gen uniform:rows=4000,cols=3000,nnz=400000,seed=91
    bench $V --gen powerlaw:rows=20000,cols=1500,nnz=600000,seed=92
    ;;
  *) echo "unknown set $set_name"; exit 2 ;;
esac
gzip -c $csv > "$OUT/$set_name.csv.gz"
