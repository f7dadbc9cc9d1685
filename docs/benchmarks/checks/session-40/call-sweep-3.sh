#!/usr/bin/env bash
# Session 40, third sweep: S·B on small matrices of tiny rows (mean 2-4.5, under 100K nonzeros,
# 6000-40000 rows; none in the earlier sweeps) at K = 16, 32, 48, 64, to test a rule the first
# sweep suggests (row_csc, not cuSPARSE, at 32 < K <= 64 from about 10000 rows). Every GPU
# variant, fk-bench's defaults. Run with carry [".carry"]; returns tiny.csv.gz and summary.txt.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
mapfile -t tiny < docs/benchmarks/checks/session-40/tiny-matrices.txt  # the third sweep's matrices
call_sweep tiny 100000 "--op n --k 16,32,48,64" "${tiny[@]/#/--gen }"
true
