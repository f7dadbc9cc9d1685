#!/usr/bin/env bash
# Runs tc_bench (bench/tc_bench.cu, issue 8) over its default matrix set. Builds nothing: it is run
# on a lent GPU machine with a binary built elsewhere.
#
# usage: scripts/bench_tc.sh [TC_BENCH [OUT_DIR]] [-- extra tc_bench options, e.g. --quick]
#   TC_BENCH  the binary (default build/release/bench/tc_bench); over scripts/device_pack.sh's
#             .carry/, .carry/bin/tc_bench exists only after `source scripts/device_env.sh`, which
#             unpacks .carry/bin.tar.xz
#   OUT_DIR   where tc_bench.csv, tc_bench.txt (the table, progress included) and header.txt (machine,
#             commit, command) go (default out/tc_bench)
# FK_SHARED_DATA locates dlmc/ (default .carry/data when present, else ../shared/data beside the
# checkout); FK_COMMIT labels the rows (default git rev-parse --short HEAD, else unknown).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
args=()
while [[ $# -gt 0 && $1 != -- ]]; do args+=("$1"); shift; done
[[ ${1:-} == -- ]] && shift
bin="${args[0]:-$root/build/release/bench/tc_bench}"
out="${args[1]:-$root/out/tc_bench}"

if [[ ! -x $bin ]]; then
  echo "bench_tc.sh: no tc_bench at '$bin'; pass the binary's path" >&2
  exit 2
fi
if [[ -z ${FK_SHARED_DATA:-} ]]; then
  if [[ -d $root/.carry/data ]]; then FK_SHARED_DATA=$root/.carry/data; else FK_SHARED_DATA=$root/../shared/data; fi
fi
export FK_SHARED_DATA
export FK_COMMIT="${FK_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
# Boost.Program_options travels in .carry/lib when the machine lacks it (scripts/device_pack.sh).
[[ -d $root/.carry/lib ]] && export LD_LIBRARY_PATH="$root/.carry/lib:${LD_LIBRARY_PATH:-}"

mkdir -p "$out"
cmd=("$bin" --csv "$out/tc_bench.csv" "$@")
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname)"
  echo "commit: $FK_COMMIT"
  echo "data: $FK_SHARED_DATA"
  echo "command: ${cmd[*]}"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
} >"$out/header.txt"
cat "$out/header.txt"
"${cmd[@]}" 2>&1 | tee "$out/tc_bench.txt"
exit "${PIPESTATUS[0]}"
