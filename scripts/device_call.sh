# Sourced by the one-off GPU call scripts kept under docs/benchmarks/checks/, from the repository
# root after scripts/device_env.sh: the steps most of them share. Results go to $o (call_start sets
# it from $OUT), in summary.txt a line each.

# $o from $OUT (default /tmp/out); summary.txt begins with the GPU and what the binaries are: the
# output of CMD... (default: the commit .carry/ records).
call_start() {
  o=${OUT:-/tmp/out}
  mkdir -p "$o"
  { nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; if (($#)); then "$@"; else cat .carry/commit; fi; } |
    tee "$o/summary.txt"
}

# Every test binary (device_run.sh's tests stage, within SECONDS when given): a line each in
# summary.txt, and the logs of all of them kept when one failed.
call_tests() {
  OUT=/tmp/logs timeout "${1:-3000}" bash scripts/device_run.sh tests > /tmp/tests.txt 2>&1
  tee -a "$o/summary.txt" < /tmp/logs/tests-summary.txt
  if grep -q "rc=[1-9]" /tmp/tests.txt; then cp /tmp/logs/*.log "$o/"; fi
}

# call_binaries "BINARY SECONDS"...: some test binaries, each within its own limit (a binary cut
# short shows rc=124 and no PASSED line); a line each in summary.txt, the log of each that failed.
call_binaries() {
  local run name secs rc
  for run in "$@"; do
    read -r name secs <<< "$run"
    timeout "$secs" "$bin/$name" --gtest_brief=1 > "/tmp/$name.log" 2>&1
    rc=$?
    echo "$name rc=$rc $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "/tmp/$name.log" | tr '\n' ' ')" |
      tee -a "$o/summary.txt"
    if ((rc != 0)); then
      grep -E '^\[  FAILED  \]' "/tmp/$name.log" | head -20 | tee -a "$o/summary.txt"
      cp "/tmp/$name.log" "$o/"
    fi
  done
}

# call_memcheck LABEL SECONDS BINARY FILTER: compute-sanitizer's memcheck on the tests FILTER of
# $bin/BINARY; its rc, the error summary and gtest's verdict go to summary.txt as "memcheck LABEL".
call_memcheck() {
  timeout "$2" compute-sanitizer --tool memcheck --error-exitcode 3 "$bin/$3" --gtest_brief=1 \
    --gtest_filter="$4" > /tmp/memcheck.txt 2>&1
  echo "memcheck $1: rc=$? $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED|SKIPPED)' /tmp/memcheck.txt | tr '\n' ' ')" |
    tee -a "$o/summary.txt"
}

# call_sweep NAME SECONDS "FK_BENCH_ARGS" SOURCE...: `fk-bench spmm FK_BENCH_ARGS SOURCE` for each
# SOURCE (e.g. "--gen powerlaw:rows=4000,...,seed=2" or "--input FILE"), rows appended to
# $o/NAME.csv, no new one started after SECONDS; a line in summary.txt, the CSV gzipped, and
# fk-bench's stderr kept in $o/NAME-errors.txt less cuSPARSE's algorithm lines.
call_sweep() {
  local name=$1 secs=$2 args=$3 source n=0
  shift 3
  SECONDS=0
  for source in "$@"; do
    ((SECONDS > secs)) && { echo "$name stopped before $source" | tee -a "$o/summary.txt"; break; }
    # shellcheck disable=SC2086  # both hold several words
    $bin/fk-bench spmm $args $source --device gpu --csv "$o/$name.csv" > /dev/null \
      2>> "/tmp/$name-errors.txt" && n=$((n + 1))
  done
  echo "$name: $n matrices in ${SECONDS}s" | tee -a "$o/summary.txt"
  gzip -9 "$o/$name.csv"
  grep -v "cuda.spmm.cusparse: " "/tmp/$name-errors.txt" > "$o/$name-errors.txt"
}
