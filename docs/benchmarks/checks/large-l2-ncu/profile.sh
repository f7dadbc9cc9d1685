#!/usr/bin/env bash
# ncu profile of S·B on the large generated matrices (checks/large-l2-ncu/README.md): what bounds
# cuSPARSE's CSR_ALG3 and row_csc. Run on the device machine from the repository root after
# `bash scripts/device_pack.sh fk-bench` (carry .carry); writes $OUT/ncu-<preset>-<K>.csv.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
tar xJf .carry/bin.tar.xz -C .carry
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv
M=lts__t_bytes.sum,lts__t_bytes.sum.per_second,lts__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,l1tex__t_sector_hit_rate.pct,l1tex__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,lts__t_sector_hit_rate.pct
M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
M=$M,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active
for p in nytimes netflix; do
  for k in 32 128; do
    # fk-bench times cuSPARSE as the baseline beside the named variant; both plans' kernels are profiled.
    timeout 250 $NCU --metrics $M --csv --page raw -c 60 .carry/bin/fk-bench spmm --preset $p --k $k \
      --op n --variants cuda.spmm.row_csc --warmup 0 --runs 1 --no-flush > $OUT/ncu-$p-$k.csv
  done
done
