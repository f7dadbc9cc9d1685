#!/usr/bin/env bash
# Session 40, first GPU call: every test binary of 3c68deb on the GPU (session 39's last
# fk_kernel_tests run was cut at its time limit), then the apps half of the standard report, whose
# CPU side has changed since e2a4238 (flush-to-zero in every Context, fb4b4aa: fk-lda's and fk-gap's
# CPU iterations up to 7x faster on an Intel Xeon). The report part comes back as apps.tar.gz;
# render it here with report.sh --render-only.
# Run with carry [".carry"]; returns summary.txt, the logs of failed binaries, apps.tar.gz.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
call_tests 330
SECONDS=0
timeout 250 bash scripts/report.sh --measure-only --bin $bin --only apps --commit "$(cat .carry/commit)" \
  --out /tmp/apps > /tmp/apps.log 2>&1
echo "apps report: rc=$? ${SECONDS}s" | tee -a "$o/summary.txt"
tail -n 12 /tmp/apps.log >> "$o/summary.txt"
tar czf "$o/apps.tar.gz" -C /tmp apps
true
