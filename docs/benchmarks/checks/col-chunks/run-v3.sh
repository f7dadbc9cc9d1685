set -u
tar xJf .carry/bin.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin
nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p $OUT/r
$B/fk_kernel_tests --gtest_filter='*col_chunks*:*ColumnChunks*:*ZipfColumns*:*GiantRow*:*Misaligned*' > $OUT/r/tests.txt 2>&1; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/r/tests.txt | head -20
for p in nytimes netflix ml-20m; do
  timeout 200 $B/fk-bench spmm --preset $p --k 32,128,256 --device gpu --variants cuda.spmm.col_chunks,cuda.spmm.cusparse --runs 10 --warmup 2 --csv $OUT/r/bench.csv > $OUT/r/bench-$p.txt 2>&1
  grep -E "^  cuda" $OUT/r/bench-$p.txt | head -12
done
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timeout 100 $NCU -k regex:col_chunks -c 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats $B/fk-bench spmm --preset ml-20m --k 128 --device gpu --variants cuda.spmm.col_chunks --warmup 0 --runs 1 --no-flush > $OUT/r/ncu.txt 2>&1
grep -E "Duration|Issued|Executed Instructions|Active Threads|Cycles Per Issued|L1/TEX Cache|L2 Cache" $OUT/r/ncu.txt
tar czf $OUT/r.tar.gz -C $OUT r && rm -rf $OUT/r
