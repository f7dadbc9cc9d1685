#!/usr/bin/env bash
# Runs on a lent GPU machine over binaries gathered by scripts/device_pack.sh (in .carry/).
#   scripts/device_run.sh STAGE...   stages: info tests memcheck racecheck app-memcheck
#                                    app-racecheck bench bench-quick lda report-kernels
# Logs and CSVs go to $OUT (or out/device when unset). Each stage has its own time limit so one
# slow stage cannot eat the whole call.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-out/device}
mkdir -p "$out"
source scripts/device_env.sh  # environment, $bin, the CLI tests' app paths
status=0
# The GPU tests of the apps (their names say Gpu, Stream or Compare), for the sanitizer stages.
app_gpu_filter='*Gpu*:*Stream*:*Compare*'
run() {  # run NAME SECONDS CMD...: logs to $out/NAME.log, prints its tail
  local name=$1 secs=$2; shift 2
  echo "=== $name: $*"
  timeout "$secs" "$@" >"$out/$name.log" 2>&1
  local rc=$?
  tail -n 15 "$out/$name.log"
  echo "=== $name rc=$rc"
  ((rc == 0)) || status=1
}
for stage in "$@"; do
  case $stage in
    info) nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv ;;
    tests)
      # Then one line per binary (and its failed tests) in $out/tests-summary.txt, for call scripts.
      for t in $bin/fk_*tests; do run "$(basename "$t")" 400 "$t" --gtest_brief=1; done
      for t in $bin/fk_*tests; do
        log="$out/$(basename "$t").log"
        echo "$(basename "$t"): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ')"
        grep -E '^\[  FAILED  \]' "$log" | head -20
      done > "$out/tests-summary.txt"
      cat "$out/tests-summary.txt" ;;
    memcheck)
      run memcheck 500 compute-sanitizer --tool memcheck --error-exitcode 3 \
        $bin/fk_kernel_tests --gtest_brief=1 --gtest_filter="${FK_SANITIZE_FILTER:-*cuda*}" ;;
    racecheck)
      run racecheck 500 compute-sanitizer --tool racecheck --error-exitcode 3 \
        $bin/fk_kernel_tests --gtest_brief=1 --gtest_filter="${FK_SANITIZE_FILTER:-*cuda*}" ;;
    app-memcheck)
      for t in $bin/fk_app_tests $bin/fk_gap_tests $bin/fk_sfa_tests; do
        [[ -x $t ]] && run "memcheck-$(basename "$t")" 300 compute-sanitizer --tool memcheck \
          --error-exitcode 3 "$t" --gtest_brief=1 --gtest_filter="$app_gpu_filter"
      done ;;
    app-racecheck)
      for t in $bin/fk_app_tests $bin/fk_gap_tests $bin/fk_sfa_tests; do
        [[ -x $t ]] && run "racecheck-$(basename "$t")" 300 compute-sanitizer --tool racecheck \
          --error-exitcode 3 "$t" --gtest_brief=1 --gtest_filter="$app_gpu_filter"
      done ;;
    bench-quick)
      run bench-quick 300 bash scripts/bench_kernels.sh --quick --bin $bin --csv "$out/kernels-quick.csv" ;;
    bench)
      run bench 560 bash scripts/bench_kernels.sh --bin $bin --csv "$out/kernels.csv" ;;
    lda)
      run lda-default 200 $bin/fk-lda --config configs/lda-default.ini --compare --out "$out/lda-default" ;;
    report-kernels)
      # The kernel half of the standard GPU report (scripts/report.sh, gpu mode) in the three parts
      # the reports since h100-c746d4a ran (FK_REPORT_PARTS picks some), for the commit named in
      # .carry/commit. Each part's folder comes back as one tarball, $out/kN.tar.gz (the device
      # tool returns a limited number of files); render them here with report.sh --render-only.
      parts=("" "bcsstk13,delaunay_n14,hep-th,dlmc-0.9-bottleneck_2_block_group4_2_1,dlmc-0.9-final_dense,dlmc-0.5-bottleneck_2_block_group3_1_1,nips,ml-20m"
             "nytimes,netflix" "powerlaw,banded")
      commit=$(cat .carry/commit 2>/dev/null || echo unknown)
      for i in ${FK_REPORT_PARTS:-1 2 3}; do
        run "report-k$i" 400 bash scripts/report.sh --measure-only --bin $bin --only kernels --commit "$commit" \
          --matrices "${parts[$i]}" --out "/tmp/k$i"
        tar czf "$out/k$i.tar.gz" -C /tmp "k$i"
      done ;;
    *) echo "unknown stage $stage"; status=1 ;;
  esac
done
exit $status
