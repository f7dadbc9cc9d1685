set -u
tar xJf .carry/bin.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib FK_SHARED_DATA=$PWD/.carry/data
B=.carry/bin
nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p $OUT/r
F='*col_chunks*:CudaSpmmSpecific.*'
$B/fk_kernel_tests --gtest_filter="$F" > $OUT/r/tests.txt 2>&1; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/r/tests.txt | head -20
timeout 200 compute-sanitizer --tool memcheck $B/fk_kernel_tests --gtest_filter='*ColumnChunksAcrossPanels*:SpmmConformance*col_chunks*' > $OUT/r/memcheck.txt 2>&1; tail -2 $OUT/r/memcheck.txt
timeout 120 compute-sanitizer --tool racecheck $B/fk_kernel_tests --gtest_filter='*ColumnChunksAcrossPanels*' > $OUT/r/racecheck.txt 2>&1; tail -2 $OUT/r/racecheck.txt
for p in nytimes netflix ml-20m; do
  timeout 200 $B/fk-bench spmm --preset $p --k 32,128,256 --device gpu --variants cuda.spmm.col_chunks,cuda.spmm.cusparse,auto --runs 10 --warmup 2 --csv $OUT/r/bench.csv > $OUT/r/bench-$p.txt 2>&1
  grep -E "col_chunks|cusparse|auto" $OUT/r/bench-$p.txt | head -12
done
tar czf $OUT/r.tar.gz -C $OUT r && rm -rf $OUT/r
