set -u
tar xJf .carry/bin.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin
nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p $OUT/r
timeout 120 $B/fk_kernel_tests --gtest_filter='*col_chunks*:*ColumnChunks*:*ZipfColumns*:*GiantRow*:*Misaligned*' > $OUT/r/tests.txt 2>&1; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/r/tests.txt | head -20
for p in nytimes netflix ml-20m; do
  timeout 200 $B/fk-bench spmm --preset $p --k 32,128,256 --device gpu --variants cuda.spmm.col_chunks,cuda.spmm.cusparse --runs 10 --warmup 2 --csv $OUT/r/bench.csv > $OUT/r/bench-$p.txt 2>&1
  grep -E "^  cuda" $OUT/r/bench-$p.txt | head -12
done
for t in memcheck racecheck synccheck; do timeout 100 compute-sanitizer --tool $t $B/fk_kernel_tests --gtest_filter='*ColumnChunksAcrossPanels*' > $OUT/r/$t.txt 2>&1; tail -1 $OUT/r/$t.txt; done
tar czf $OUT/r.tar.gz -C $OUT r && rm -rf $OUT/r
