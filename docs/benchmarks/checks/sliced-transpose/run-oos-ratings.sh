set -u
tar xJf .carry/bin.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin
nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p $OUT/r /tmp/oos
$B/fk-datagen ratings --preset ml-20m --users 200000 --items 20000 --ratings 16000000 --seed 11 --quiet --out /tmp/oos/a.csv &
$B/fk-datagen ratings --preset ml-20m --users 120000 --items 12000 --ratings 10800000 --item-exponent 0.7 --seed 12 --quiet --out /tmp/oos/b.csv &
$B/fk-datagen ratings --preset netflix --users 300000 --items 30000 --ratings 22000000 --seed 13 --quiet --out /tmp/oos/c.csv &
wait
for m in a b c; do
  timeout 150 $B/fk-bench spmm --input /tmp/oos/$m.csv --format ratings --name oos-$m --op t --k 64,128,256,512 --device gpu --variants cuda.spmm.row_split,cuda.spmm.nnz_vsr,cuda.spmm.cusparse,auto --runs 10 --warmup 2 --csv $OUT/r/oos.csv > $OUT/r/oos-$m.txt 2>&1
  grep -E "auto picked|row mean" $OUT/r/oos-$m.txt | head -8
done
tar czf $OUT/r.tar.gz -C $OUT r && rm -rf $OUT/r
