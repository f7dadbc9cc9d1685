#!/usr/bin/env bash
# The apps half of the standard report at the binaries' commit, returned as one tarball.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.carry/lib FK_SHARED_DATA=$PWD/.carry/data
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
o=${OUT:-/tmp/out}; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $o/device.txt
t0=$SECONDS
timeout 560 bash scripts/report.sh --measure-only --bin .carry/bin --only apps --commit "$(cat .carry/commit)" --out /tmp/a/apps > $o/report.log 2>&1
echo "report rc=$? ($((SECONDS-t0)) s)" | tee -a $o/device.txt
tar czf $o/apps.tgz -C /tmp/a apps
tail -5 $o/report.log
