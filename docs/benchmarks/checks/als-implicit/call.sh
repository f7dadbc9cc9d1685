#!/usr/bin/env bash
# fk-als --implicit against the implicit library (bench/als_implicit.py) on one lent GPU machine:
# MovieLens 100K (real) and a MovieLens-20M-shaped generated set, on the CPU (all cores) and the GPU.
# Run with carry [".carry", ".whl"]; .whl holds the cp312 wheels of implicit 0.7.3, librmm-cu13
# 26.04.0, rapids-logger 0.2.3, threadpoolctl and tqdm (README.md says how they were fetched and why
# those versions).
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; cat .carry/commit; } | tee "$o/device.txt"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site
# implicit's CUDA extension links cuBLAS/cuRAND/cudart 13 by soname: the toolkit's, else the pip copies.
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib $(python3 -c 'import glob, site; print(" ".join(glob.glob(site.getsitepackages()[0] + "/nvidia/*/lib") + glob.glob(site.getsitepackages()[0] + "/nvidia/cu13/lib")))' 2>/dev/null); do
  [[ -d $d ]] && export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$d
done
# implicit.gpu imports rmm's Python package only to load librmm.so before its extension; that package
# is not carried (the librmm it pulls in must match the one implicit was built against): a
# stand-in loads the two libraries.
mkdir -p /tmp/shim/rmm
printf 'import ctypes, glob\nfor lib in ("rapids_logger/lib64/librapids_logger.so", "librmm/lib64/librmm.so"):\n    ctypes.CDLL(glob.glob("/tmp/site/" + lib)[0], mode=ctypes.RTLD_GLOBAL)\n' > /tmp/shim/rmm/__init__.py
export PYTHONPATH=/tmp/shim:$PYTHONPATH
python3 -c 'import implicit, implicit.gpu; print("implicit", implicit.__version__, "HAS_CUDA", implicit.gpu.HAS_CUDA)' 2>&1 | tee -a "$o/device.txt"
t0=$SECONDS
$bin/fk-datagen ratings --preset ml-20m --out /tmp/ml20m.csv --quiet
echo "generated ml-20m in $((SECONDS-t0)) s" | tee -a "$o/device.txt"
run() {  # name, then bench/als_implicit.py's arguments
  local name=$1; shift
  PYTHONUNBUFFERED=1 python3 bench/als_implicit.py --fk-als $bin/fk-als --out /tmp/r/$name "$@" > /tmp/r-$name.log 2>&1
  echo "== $name rc=$? ($((SECONDS-t0)) s)"; tail -4 /tmp/r-$name.log
  { echo "## $name: $*"; cat /tmp/r/$name/results.md 2>/dev/null; grep -v '^{' /tmp/r-$name.log | head -5; echo; } >> "$o/results.md"
  cp /tmp/r/$name/results.csv "$o/$name.csv" 2>/dev/null
}
mkdir -p /tmp/r
ml100k=$FK_SHARED_DATA/movielens-100k/u.data
for r in ${RUNS:-ml100k-cpu ml100k-gpu ml20m-gpu ml20m-cpu}; do
  case $r in
    ml100k-cpu) run $r --ratings $ml100k --eval-users 0 --threads 16 ;;
    ml100k-gpu) run $r --ratings $ml100k --eval-users 0 --gpu ;;
    ml20m-gpu) run $r --ratings /tmp/ml20m.csv --gpu ;;
    ml20m-cpu) run $r --ratings /tmp/ml20m.csv --threads 16 ;;
  esac
done
cat /tmp/r-*.log > "$o/logs.txt"
