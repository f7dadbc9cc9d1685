# The commands scripts/report.sh ran, in order, from the repository root (FK_ROOT).
# FK_SHARED_DATA=/work/main/.carry/data
# scripts/report.sh --measure-only --bin .carry/bin --only kernels --commit 22dff74 --matrices bcsstk13\,delaunay_n14\,hep-th\,dlmc-0.9-bottleneck_2_block_group4_2_1\,dlmc-0.9-final_dense\,dlmc-0.5-bottleneck_2_block_group3_1_1\,nips\,ml-20m --out /tmp/rep/kernels-1
(cd "$FK_ROOT" && bash scripts/bench_kernels.sh --bin /work/main/.carry/bin/fk-bench --csv /tmp/rep/kernels-1/kernels.csv --data /work/main/.carry/data --device gpu --only bcsstk13\,delaunay_n14\,hep-th\,dlmc-0.9-bottleneck_2_block_group4_2_1\,dlmc-0.9-final_dense\,dlmc-0.5-bottleneck_2_block_group3_1_1\,nips\,ml-20m -- --runs 20 --warmup 3)
