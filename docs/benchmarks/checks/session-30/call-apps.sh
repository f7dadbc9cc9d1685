#!/usr/bin/env bash
# Session 30's GPU check of the app changes (topic coherence, the --out/config refusals, --users-file):
# the app test binaries on the GPU, then the apps half of the standard report at the binaries'
# commit (every app's --compare, now with coherence among fk-lda's and fk-gap's final numbers).
# Run with carry [".carry"]; returns device.txt, tests.txt and apps.tgz.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$o/device.txt"
for t in fk_app_tests fk_gap_tests fk_sfa_tests; do
  timeout 200 $bin/$t --gtest_brief=1 > "/tmp/$t.log" 2>&1
  echo "$t rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' /tmp/$t.log | tr '\n' ' ')" | tee -a "$o/tests.txt"
  grep -E "^\[  FAILED  \]" "/tmp/$t.log" | head -20 | tee -a "$o/tests.txt"
done
t0=$SECONDS
timeout 330 bash scripts/report.sh --measure-only --bin $bin --only apps --commit "$(cat .carry/commit)" \
  --out /tmp/a/apps > "$o/report.log" 2>&1
echo "report rc=$? ($((SECONDS-t0)) s)" | tee -a "$o/device.txt"
tar czf "$o/apps.tgz" -C /tmp/a apps
tail -5 "$o/report.log"
