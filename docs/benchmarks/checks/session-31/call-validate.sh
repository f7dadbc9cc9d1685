#!/usr/bin/env bash
# The GPU check of this session's app changes, run at eb7d99e and again at 6bf4dc3 (host code:
# keeping the earlier run's files until a run finishes, the memory checks, model and config validation, the LDA pass's progress and
# finite-model check): every test binary on the GPU, the apps' GPU runs over an earlier model
# (a GPU run that fails puts it back), and memcheck on the LDA GPU tests.
# Run with carry [".carry"]; returns device.txt and summary.txt.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o" /tmp/logs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$o/device.txt"
cat .carry/commit | tee -a "$o/device.txt"
for t in $bin/fk_*tests; do
  n=$(basename "$t")
  timeout 250 "$t" --gtest_brief=1 > "/tmp/logs/$n.log" 2>&1
  echo "$n rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' /tmp/logs/$n.log | tr '\n' ' ')" | tee -a "$o/summary.txt"
  grep -E "^\[  FAILED  \]" "/tmp/logs/$n.log" | head -20 | tee -a "$o/summary.txt"
done
# A GPU run over an earlier GPU model that fails (a damaged checkpoint) leaves that model as it was.
r=/tmp/run; rm -rf $r
$bin/fk-lda --input gen:default --topics 8 --iters 2 --checkpoint-every 1 --device gpu --out $r -q
(cd $r && find . -type f | sort | xargs md5sum) > /tmp/before.md5
f=$r/checkpoint/lambda.npy; truncate -s $(( $(stat -c %s $f) / 2 )) $f
(cd $r && find . -type f | sort | xargs md5sum) > /tmp/damaged.md5
$bin/fk-lda --input gen:default --topics 8 --iters 3 --resume --device gpu --out $r > /tmp/logs/fail.log 2>&1
echo "failed resume rc=$? $(tail -1 /tmp/logs/fail.log)" | tee -a "$o/summary.txt"
(cd $r && find . -type f | sort | xargs md5sum) > /tmp/after.md5
diff -q /tmp/damaged.md5 /tmp/after.md5 > /dev/null && echo "folder as before the failed run: yes" | tee -a "$o/summary.txt" || { echo "folder changed:" | tee -a "$o/summary.txt"; diff /tmp/damaged.md5 /tmp/after.md5 | tee -a "$o/summary.txt"; }
timeout 250 compute-sanitizer --tool memcheck --error-exitcode 3 $bin/fk_app_tests --gtest_brief=1 \
  --gtest_filter='LdaTrain.Gpu*' > /tmp/logs/memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED)' /tmp/logs/memcheck.log | tr '\n' ' ')" | tee -a "$o/summary.txt"
