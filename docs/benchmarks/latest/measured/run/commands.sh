# The commands scripts/report.sh ran, in order, from the repository root (FK_ROOT).
# FK_SHARED_DATA=/work/main/.carry/data
# scripts/report.sh --measure-only --bin .carry/bin --commit 91a8b0c --out /root/out/run
(cd "$FK_ROOT" && bash scripts/bench_kernels.sh --bin /work/main/.carry/bin/fk-bench --csv /root/out/run/kernels.csv --data /work/main/.carry/data --device gpu --only bcsstk13\,delaunay_n14\,hep-th\,dlmc-0.9-bottleneck_2_block_group4_2_1\,dlmc-0.9-final_dense\,dlmc-0.5-bottleneck_2_block_group3_1_1\,nips\,ml-20m\,nytimes\,powerlaw\,netflix\,banded -- --runs 10 --warmup 1)
(cd "$FK_ROOT" && /work/main/.carry/bin/fk-lda --config configs/lda-default.ini --compare --out /root/out/run/apps/lda-default/run)
(cd "$FK_ROOT" && /work/main/.carry/bin/fk-lda --config configs/lda-nytimes.ini --compare --out /root/out/run/apps/lda-nytimes/run --iters 3)
(cd "$FK_ROOT" && /work/main/.carry/bin/fk-als --config configs/als-ml100k.ini --compare --out /root/out/run/apps/als-ml100k/run --input /work/main/.carry/data/movielens-100k/u.data)
(cd "$FK_ROOT" && /work/main/.carry/bin/fk-als --config configs/als-netflix.ini --compare --out /root/out/run/apps/als-netflix/run --iters 3)
(cd "$FK_ROOT" && /work/main/.carry/bin/fk-gap --config configs/gap-kos.ini --compare --out /root/out/run/apps/gap-kos/run --input /work/main/.carry/data/uci-kos/docword.kos.txt.gz)
(cd "$FK_ROOT" && /work/main/.carry/bin/fk-gap --config configs/gap-nytimes.ini --compare --out /root/out/run/apps/gap-nytimes/run --iters 3)
(cd "$FK_ROOT" && /work/main/.carry/bin/fk-sfa --config configs/sfa-ml100k.ini --compare --out /root/out/run/apps/sfa-ml100k/run --input /work/main/.carry/data/movielens-100k/u.data)
(cd "$FK_ROOT" && /work/main/.carry/bin/fk-sfa --config configs/sfa-netflix.ini --compare --out /root/out/run/apps/sfa-netflix/run --iters 3)
