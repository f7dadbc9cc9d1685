#!/usr/bin/env bash
# Next session's first call (binaries at ea8ef6a): the GPU run of e2c9fa1 (which plans the apps
# prepare), 1895ce5 (fk-bench's residual pair on the GPU) and ea8ef6a (lazily allocated gather
# buffers), and the racecheck that timed out after the residual form.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.carry/lib FK_SHARED_DATA=$PWD/.carry/data
tar xJf .carry/bin.tar.xz -C .carry
bin=.carry/bin
build_dir=$(cat .carry/build_dir)
for exe in $bin/fk-*; do n=$(basename "$exe"); mkdir -p "$build_dir/apps/${n#fk-}" && ln -sf "$PWD/$exe" "$build_dir/apps/${n#fk-}/$n"; done
o=${OUT:-/tmp/out}; mkdir -p $o/logs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $o/summary.txt
t0=$SECONDS
step() { local name=$1 secs=$2; shift 2; timeout $secs "$@" > $o/logs/$name.log 2>&1; echo "== $name rc=$? ($((SECONDS-t0)) s): $(grep -hE 'PASSED|FAILED|ERROR SUMMARY|RACECHECK SUMMARY|median time per' $o/logs/$name.log | tr '\n' ' ')" | tee -a $o/summary.txt; }
step kernel-tests 200 $bin/fk_kernel_tests --gtest_brief=1 --gtest_filter='*Ratio*:*Sliced*:*Transpos*'
step als-tests 150 $bin/fk_app_tests --gtest_brief=1 --gtest_filter='*Als*'
step sfa-tests 150 $bin/fk_sfa_tests --gtest_brief=1
step bench-ml20m 120 $bin/fk-bench ratio-spmm --preset ml-20m --k 64 --op both --form all --csv $o/bench-ml20m.csv
step bench-ml100k 60 $bin/fk-bench ratio-spmm --input .carry/data/movielens-100k/u.data --format ratings --k 16,128 --op both --form all --csv $o/bench-ml100k.csv
step als-netflix 150 $bin/fk-als --config configs/als-netflix.ini --device gpu --iters 3 --out /tmp/als
step sfa-netflix 150 $bin/fk-sfa --config configs/sfa-netflix.ini --device gpu --iters 3 --out /tmp/sfa
step memcheck-ratio 150 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_kernel_tests --gtest_brief=1 --gtest_filter='RatioSpmmFusedGpu*:*Ratio*cuda*'
step memcheck-als 100 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_app_tests --gtest_brief=1 --gtest_filter='AlsGpu*'
left=$((560 - (SECONDS - t0)))
step racecheck-ratio $left compute-sanitizer --tool racecheck --error-exitcode 3 $bin/fk_kernel_tests --gtest_brief=1 --gtest_filter='RatioSpmmFusedGpu*'
echo "all done ($((SECONDS-t0)) s)" | tee -a $o/summary.txt
tar czf $o/logs.tar.gz -C $o logs && rm -rf $o/logs
