#!/usr/bin/env bash
# fk-gap --update alternating on a GPU: the GaP tests (GPU against CPU in both orders) and
# memcheck, then joint and alternating (fused, and with --ratio-spmm off) on nytimes and kos
# with the metrics of every iteration, runs alternated twice; metrics.jsonl of each come back.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.carry/lib FK_SHARED_DATA=$PWD/.carry/data
tar xJf .carry/bin.tar.xz -C .carry
bin=.carry/bin
build_dir=$(cat .carry/build_dir)
for exe in $bin/fk-*; do n=$(basename "$exe"); mkdir -p "$build_dir/apps/${n#fk-}" && ln -sf "$PWD/$exe" "$build_dir/apps/${n#fk-}/$n"; done
o=${OUT:-/tmp/out}; mkdir -p $o/logs $o/runs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $o/summary.txt
t0=$SECONDS
step() { local name=$1 secs=$2; shift 2; timeout $secs "$@" > $o/logs/$name.log 2>&1; echo "== $name rc=$? ($((SECONDS-t0)) s): $(grep -hE 'PASSED|FAILED|ERROR SUMMARY|median time per' $o/logs/$name.log | tr '\n' ' ')" | tee -a $o/summary.txt; }
step gap-tests 120 $bin/fk_gap_tests --gtest_brief=1
step memcheck-gap 150 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_gap_tests --gtest_brief=1 --gtest_filter='GapMath.GpuAgreesWithCpu'
run() {  # run NAME ARGS...
  local name=$1; shift
  timeout 150 $bin/fk-gap "$@" --device gpu --eval-every 1 --out /tmp/gap-$name > $o/logs/$name.log 2>&1
  echo "$name rc=$?: $(grep -h 'median time per\|kernels:' $o/logs/$name.log | tr '\n' ' ')" | tee -a $o/summary.txt
  mkdir -p $o/runs/$name && cp /tmp/gap-$name/metrics.jsonl $o/runs/$name/
}
for r in 1 2; do
  run nyt-joint-$r --config configs/gap-nytimes.ini --iters 20 --update joint
  run nyt-alt-$r --config configs/gap-nytimes.ini --iters 20 --update alternating
done
run nyt-alt-off --config configs/gap-nytimes.ini --iters 20 --update alternating --ratio-spmm off
run kos-joint --config configs/gap-kos.ini --input .carry/data/uci-kos/docword.kos.txt.gz --update joint
run kos-alt --config configs/gap-kos.ini --input .carry/data/uci-kos/docword.kos.txt.gz --update alternating
echo "all done ($((SECONDS-t0)) s)" | tee -a $o/summary.txt
tar czf $o/logs.tar.gz -C $o logs runs && rm -rf $o/logs $o/runs
