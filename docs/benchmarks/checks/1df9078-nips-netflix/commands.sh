# The commands scripts/report.sh ran, in order, from the repository root (FK_ROOT).
# FK_SHARED_DATA=/work/main/.carry/data
# scripts/report.sh --measure-only --only kernels --matrices nips\,netflix --bin .carry/bin --commit rules-wip --out /root/out/rep3
(cd "$FK_ROOT" && bash scripts/bench_kernels.sh --bin /work/main/.carry/bin/fk-bench --csv /root/out/rep3/kernels.csv --data /work/main/.carry/data --device gpu --only nips\,netflix -- --runs 10 --warmup 1)
