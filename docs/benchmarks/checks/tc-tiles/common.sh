# What the dense-tile SpMM's GPU calls (call-N.sh beside this file) share beyond
# scripts/device_call.sh; sourced by them, from the repository root, after it. Writes into $o.

# The tensor-core tests (with the dense-tile kernel's), into tests.txt.
tiles_tests() {
  timeout 120 $bin/fk_kernel_tests --gtest_brief=1 --gtest_filter='TcVector.*:TcTiles.*' > "$o/tests.txt" 2>&1
  echo "tests: rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$o/tests.txt" | tr '\n' ' ')" | tee -a "$o/summary.txt"
}

# memcheck and racecheck on the raw-kernel test; a failing tool's output is kept.
tiles_sanitize() {
  for tool in memcheck racecheck; do
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 3 $bin/fk_kernel_tests --gtest_brief=1 \
      --gtest_filter='TcVector.RawTilesKernel' > /tmp/$tool.txt 2>&1
    echo "$tool RawTilesKernel: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' /tmp/$tool.txt | tr '\n' ' ')" |
      tee -a "$o/summary.txt"
    grep -q "rc=0" <(tail -1 "$o/summary.txt") || head -c 20000 /tmp/$tool.txt > "$o/$tool.txt"
  done
}

# tc_bench's SpMM on the generated V x 1 matrices of its default set (4096 x 4096, V = 2, 4, 8 at
# 50-98% sparsity, K = 64, 128, 256), into $o/bench; $1: the time limit in seconds.
tiles_bench() {
  local m="" v sp nnz
  for v in 2 4 8; do for sp in 0.5 0.7 0.8 0.9 0.95 0.98; do
    nnz=$(awk "BEGIN{printf \"%d\", int((1-$sp)*4096*4096/$v+0.5)*$v}")
    m="$m${m:+,}vector:rows=4096,cols=4096,nnz=$nnz,param=$v,seed=1"
  done; done
  FK_COMMIT=$(cat .carry/commit) timeout "$1" bash scripts/bench_tc.sh $bin/tc_bench "$o/bench" -- --ops spmm --matrices "$m" > /tmp/bench.txt 2>&1
  echo "bench: rc=$?" | tee -a "$o/summary.txt"
}

# ncu on the kernel at V = 4, 70%, K = 64 and 256 (4 launches: each K's check run and first timed
# run): the stall reasons named in $1 per issued instruction, plus the metrics in $2, into $3.
tiles_ncu_stalls() {
  local met="" r
  for r in $1; do met="$met${met:+,}smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"; done
  timeout 200 ncu --kernel-name regex:tiles_kernel --launch-count 4 --metrics "$met,$2" \
    $bin/tc_bench --ops spmm --matrices vector:rows=4096,cols=4096,nnz=5033164,param=4,seed=1 --k 64,256 --runs 1 --warmup 0 \
    2>&1 | grep -v "^==PROF==" > "$3"
  echo "ncu: rc=$?" | tee -a "$o/summary.txt"
}
