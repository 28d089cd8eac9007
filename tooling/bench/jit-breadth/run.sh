#!/usr/bin/env bash
# The JIT breadth benchmark: kernels that need shared memory, barriers, warp
# shuffles and atomics, and the JIT's disk cache and simulator, each beside
# its anchors in one run, one report:
#   1. block reduction of 256M float32 (GB/s): the JIT kernel, the same kernel
#      in CUDA C++ (nvcc) and in numba-cuda
#   2. tiled shared-memory matmul of 4096² float32 (TFLOP/s), 16×16 and 32×32
#      tiles, the same three
#   3. disk-cache hit from a new process: jit(fn, { cache: true }) against
#      numba's @cuda.jit(cache=True), per kernel
#   4. simulator: a 128-thread shared-memory tree reduction (8 barriers) in the
#      cuda-js simulator against numba's CUDA simulator
# On the GPU host, from the repository root, with a built checkout:
#   source .device/setup.sh && tooling/bench/jit-breadth/run.sh [results.json]
# Prints a markdown report; writes the results as JSON to $1 (default
# /tmp/jit-breadth-bench.json). Needs node and nvcc; python3 with numba-cuda
# for the numba anchors (a missing package, or a missing nvcc, is reported as
# not measured, with the reason). PYTHON picks another interpreter. About 2-3
# minutes.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
jit=$(cd "$here/../jit" && pwd)
out=${1:-/tmp/jit-breadth-bench.json}
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
export PYTHON=${PYTHON:-python3}
reduce_n=${JIT_BREADTH_REDUCE_N:-$((1 << 28))}
matmul_n=${JIT_BREADTH_MATMUL_N:-4096}
reps=${JIT_BREADTH_REPS:-20}
matmul_reps=${JIT_BREADTH_MATMUL_REPS:-10}
cache_runs=${JIT_BREADTH_CACHE_RUNS:-5}
sim_blocks=${JIT_BREADTH_SIM_BLOCKS:-64}
numba_sim_blocks=${JIT_BREADTH_NUMBA_SIM_BLOCKS:-8}
numba_sim_reps=${JIT_BREADTH_NUMBA_SIM_REPS:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/jit-breadth-bench.XXXXXX")
res="$work/results"
mkdir -p "$res"
BENCH_PY_SCRIPT="$here/numba_breadth.py"
BENCH_LOG_NAME=jit-breadth-bench
# log, step and py, shared with the JIT benchmark
source "$jit/bench-steps.sh"

# gpu <timeout s> <output file> <script> [args]: a cuda-js part that takes the cubin, or the reason it cannot run
gpu() {
  local limit=$1 file=$2 script=$3; shift 3
  if [ -s "$cubin" ]; then step "$limit" "$file" node "$here/$script" "$cubin" "$@"
  else
    # without nvcc's cubin the JIT kernels still run; the nvcc rows say why they are missing
    step "$limit" "$file" node "$here/$script" "none:$nvcc_why" "$@"
  fi
}

command -v node >/dev/null || { echo "node is not on PATH (source .device/setup.sh first)" >&2; exit 1; }
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
arch=sm_${arch:-90}
log "work dir $work, arch $arch"
node "$jit/host-info.mjs" "$arch" > "$res/host.json"

log "building the CUDA C++ anchors (nvcc -cubin -O3 -arch=$arch)"
cubin="$work/kernels.cubin"
nvcc_why=""
if command -v nvcc >/dev/null 2>&1; then
  nvcc -cubin -arch="$arch" -O3 -o "$cubin" "$here/kernels.cu" 2> "$work/nvcc.log" || { nvcc_why="failed: $(tail -1 "$work/nvcc.log")"; log "nvcc $nvcc_why"; }
else
  nvcc_why="not on PATH"
  log "nvcc is not on PATH: the CUDA C++ anchors are not measured"
fi

log "1. block reduction of $reduce_n float32"
gpu 180 "$res/reduce-node.json" reduce.mjs "$reduce_n" "$reps" 5
py 240 "$res/reduce-numba.json" reduce "$reduce_n" "$reps" 5

log "2. tiled matmul of ${matmul_n}² float32"
gpu 180 "$res/matmul-node.json" matmul.mjs "$matmul_n" "$matmul_reps" 3
py 240 "$res/matmul-numba.json" matmul "$matmul_n" "$matmul_reps" 3

log "3. disk-cache hits: $cache_runs fresh processes per kernel and side"
step 420 "$res/cache.json" node "$here/cache-latency.mjs" "$work/cache" "$cache_runs"

log "4. simulator"
step 120 "$res/simulator-node.json" node "$here/simulator.mjs" "$sim_blocks" 10
export NUMBA_ENABLE_CUDASIM=1
py 300 "$res/simulator-numba.json" simulator "$numba_sim_blocks" "$numba_sim_reps"
unset NUMBA_ENABLE_CUDASIM

node "$here/report.mjs" "$res" "$out"
log "raw outputs in $res"
