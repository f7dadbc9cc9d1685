#!/usr/bin/env bash
# Runs fk-bench over the standard matrix set x K for SDDMM and SpMM (S·B and Sᵀ·B) and accumulates
# every row in one CSV (fk-bench appends to an existing CSV with the same header).
#
# usage: scripts/bench_kernels.sh [--quick] [--csv FILE] [--bin FK_BENCH|DIR] [--device cpu|gpu|auto]
#                                 [--data DIR] [--only LABEL,...] [--labels]
#                                 [-- extra fk-bench options, e.g. --threads 16]
#
# The standard set: generated matrices shaped like nytimes and nips (LDA corpus presets, documents x
# words), ml-20m and netflix (ratings presets, users x items), a power-law and a banded matrix; the
# real SuiteSparse files in DATA/suitesparse/*.mtx and three DLMC ResNet-50 layers (.smtx; three
# preferred layers, else the first three found). Small real files run first, the big generated
# shapes last; rows reach the CSV after every (matrix, K, form/op), so a run cut short keeps them.
# K: SDDMM 32,64,128,256,512; SpMM 1,4,32,64,128,256,512.
# --only runs the matrices with these labels (--labels lists them), e.g. to split a long run.
# DATA defaults to $FK_SHARED_DATA, else ../shared/data beside the checkout.
#
# --quick: small shapes (ml-100k, small power-law and banded matrices, one SuiteSparse file, one
# DLMC layer), K 32,64 / 1,32, 3 runs and no cache flush: a CI-sized check (< 1 minute on 2 CPU
# cores) that every variant runs and agrees with the reference, not a measurement.
#
# Exit status: 0 when every invocation succeeded; otherwise 1 after running all of them (a variant
# that fails or exceeds the tolerance makes its invocation exit 1; the table says which).
set -uo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
quick=0
csv=""
bin="${FK_BENCH:-}"
device="auto"
data="${FK_SHARED_DATA:-$root/../shared/data}"
extra=()

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
only=""
labels_only=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) quick=1 ;;
    --csv) csv="${2:?--csv needs a file}"; shift ;;
    --bin) bin="${2:?--bin needs the fk-bench path}"; shift ;;
    --device) device="${2:?--device needs cpu, gpu or auto}"; shift ;;
    --data) data="${2:?--data needs a directory}"; shift ;;
    --only) only="${2:?--only needs labels}"; shift ;;
    --labels) labels_only=1 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "bench_kernels.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done

if [[ -z "$bin" ]]; then
  for candidate in "$root"/build/release/apps/bench/fk-bench "$root"/build/cpu-only/apps/bench/fk-bench \
                   "$root"/build*/apps/bench/fk-bench "$root"/build/*/apps/bench/fk-bench; do
    if [[ -x "$candidate" ]]; then bin="$candidate"; break; fi
  done
fi
if [[ -n "$bin" && -d "$bin" ]]; then bin="$bin/fk-bench"; fi  # a folder of binaries (.carry/bin)
if [[ $labels_only == 0 && ( -z "$bin" || ! -x "$bin" ) ]]; then
  echo "bench_kernels.sh: fk-bench not found; build it (scripts/build.sh) or pass --bin PATH" >&2
  exit 2
fi
if [[ -z "$csv" ]]; then
  csv="bench_kernels_$([[ $quick == 1 ]] && echo quick_)$(date +%Y%m%d_%H%M%S).csv"
fi

case $device in
  cpu|gpu|auto) ;;
  *) echo "bench_kernels.sh: --device: expected cpu, gpu or auto, got '$device'" >&2; exit 2 ;;
esac
[[ -d "$data" ]] || echo "bench_kernels.sh: warning: no data folder at $data: the real matrices" \
  "(SuiteSparse, DLMC) are left out (--data DIR or FK_SHARED_DATA)" >&2

# One matrix per entry: "label|--option|value" (fields split at '|', so that a path may hold
# blanks).
matrices=()
if [[ $quick == 1 ]]; then
  sddmm_k="32,64"
  spmm_k="1,32"
  timing=(--runs 3 --warmup 1 --no-flush)
  matrices+=("ml-100k|--preset|ml-100k")
  matrices+=("powerlaw-small|--gen|powerlaw:rows=4000,cols=3000,nnz=40000")
  matrices+=("banded-small|--gen|banded:rows=4000,cols=4000,nnz=40000")
  [[ -f "$data/suitesparse/hep-th.mtx" ]] && matrices+=("hep-th|--input|$data/suitesparse/hep-th.mtx")
  dlmc_quick="$data/dlmc/rn50/magnitude_pruning/0.9/bottleneck_1_block_group1_1_1.smtx"
  [[ -f "$dlmc_quick" ]] && matrices+=("dlmc-0.9-bottleneck_1_block_group1_1_1|--input|$dlmc_quick")
else
  sddmm_k="32,64,128,256,512"
  spmm_k="1,4,32,64,128,256,512"
  timing=()  # fk-bench's defaults: 3 warm-ups, median of 20 runs, cache flush
  for f in "$data"/suitesparse/*.mtx; do
    [[ -f "$f" ]] && matrices+=("$(basename "$f" .mtx)|--input|$f")
  done
  # DLMC: a large 90% layer, the classifier layer, and a 50% layer; where those were not carried
  # along (a packed data folder), the first .smtx files found instead, three in all.
  dlmc_root="$data/dlmc/rn50/magnitude_pruning"
  dlmc=()
  for rel in 0.9/bottleneck_2_block_group4_2_1.smtx 0.9/final_dense.smtx 0.5/bottleneck_2_block_group3_1_1.smtx; do
    [[ -f "$dlmc_root/$rel" ]] && dlmc+=("$dlmc_root/$rel")
  done
  if [[ ${#dlmc[@]} -lt 3 && -d "$dlmc_root" ]]; then
    while IFS= read -r f; do
      [[ ${#dlmc[@]} -ge 3 ]] && break
      [[ " ${dlmc[*]} " == *" $f "* ]] || dlmc+=("$f")
    done < <(find "$dlmc_root" -name '*.smtx' | sort)
  fi
  for f in "${dlmc[@]}"; do
    matrices+=("dlmc-$(basename "$(dirname "$f")")-$(basename "$f" .smtx)|--input|$f")
  done
  matrices+=("nips|--preset|nips")
  matrices+=("ml-20m|--preset|ml-20m")
  matrices+=("nytimes|--preset|nytimes")
  matrices+=("netflix|--preset|netflix")
  matrices+=("powerlaw|--gen|powerlaw:rows=1000000,cols=1000000,nnz=20000000")
  matrices+=("banded|--gen|banded:rows=1000000,cols=1000000,nnz=20000000")
fi

if [[ $labels_only == 1 ]]; then
  for entry in "${matrices[@]}"; do echo "${entry%%|*}"; done
  exit 0
fi
if [[ -n "$only" ]]; then
  selected=()
  IFS=, read -r -a wanted <<<"$only"
  for w in "${wanted[@]}"; do
    found=0
    for entry in "${matrices[@]}"; do
      if [[ "${entry%%|*}" == "$w" ]]; then selected+=("$entry"); found=1; fi
    done
    if [[ $found == 0 ]]; then echo "bench_kernels.sh: --only: no matrix labelled '$w' (see --labels)" >&2; exit 2; fi
  done
  matrices=("${selected[@]}")
fi

echo "fk-bench: $bin"
echo "csv:      $csv"
echo "device:   $device; matrices: ${#matrices[@]}; SDDMM K $sddmm_k; SpMM K $spmm_k (S·B and Sᵀ·B)"
failed=()
start=$SECONDS
for entry in "${matrices[@]}"; do
  label="${entry%%|*}"
  IFS='|' read -r -a source <<<"${entry#*|}"
  for op in sddmm spmm; do
    if [[ $op == sddmm ]]; then
      args=(sddmm --k "$sddmm_k")
    else
      args=(spmm --op both --k "$spmm_k")
    fi
    echo
    echo "=== $op $label ($((SECONDS - start)) s elapsed)"
    if ! "$bin" "${args[@]}" "${source[@]}" --device "$device" --csv "$csv" "${timing[@]}" "${extra[@]}"; then
      failed+=("$op $label")
    fi
  done
done

echo
rows=$(($(wc -l <"$csv" 2>/dev/null || echo 1) - 1))
echo "done in $((SECONDS - start)) s: $csv holds $rows rows"
if [[ ${#failed[@]} -gt 0 ]]; then
  printf 'bench_kernels.sh: %d invocation(s) reported failures:\n' "${#failed[@]}" >&2
  printf '  %s\n' "${failed[@]}" >&2
  exit 1
fi
