set -u
name=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$name"
tar xJf .carry/bin.tar.xz -C .carry; tar xJf .carry/data.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib FK_SHARED_DATA=$PWD/.carry/data
B=.carry/bin; D=.carry/data; mkdir -p /tmp/r
timeout 150 $B/fk_kernel_tests --gtest_brief=1 --gtest_filter='CudaSpmm*:*Spmm*' > /tmp/r/tests.txt 2>&1; echo "tests rc=$?"; tail -3 /tmp/r/tests.txt; grep -m3 -A12 "Failure" /tmp/r/tests.txt | head -30
F='CudaSpmmSpecific.RunPermuted*:CudaSpmmSpecific.GiantColumn'
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 $B/fk_kernel_tests --gtest_brief=1 --gtest_filter="$F" > /tmp/r/memcheck.txt 2>&1; echo "memcheck rc=$?"; tail -1 /tmp/r/memcheck.txt
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 3 $B/fk_kernel_tests --gtest_brief=1 --gtest_filter='CudaSpmmSpecific.RunPermuted*' > /tmp/r/racecheck.txt 2>&1; echo "racecheck rc=$?"; tail -1 /tmp/r/racecheck.txt
V=auto,cuda.spmm.vdl,cuda.spmm.row_csc,cuda.spmm.row_split,cuda.spmm.nnz_vsr,cuda.spmm.cusparse
M=$D/dlmc/rn50/magnitude_pruning
for src in "--input $D/suitesparse/bcsstk13.mtx" "--input $D/suitesparse/delaunay_n14.mtx" "--input $D/suitesparse/hep-th.mtx" "--input $M/0.9/final_dense.smtx" "--input $M/0.9/bottleneck_2_block_group4_2_1.smtx" "--input $M/0.5/bottleneck_2_block_group3_1_1.smtx" "--preset nips" "--gen uniform:rows=4096,cols=102660,nnz=942000" "--preset ml-20m" "--gen powerlaw:rows=1000000,cols=1000000,nnz=20000000"; do
  for bin in fk-bench-old fk-bench; do
    timeout 150 $B/$bin spmm $src --op t --k 1,4,32,64,128,256,512 --variants $V --csv /tmp/r/$bin.csv > /dev/null 2>&1 || echo "$bin failed/timed out on $src"
  done
done
tar czf $OUT/r37.tar.gz -C /tmp/r .
