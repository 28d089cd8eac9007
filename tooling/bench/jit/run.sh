#!/usr/bin/env bash
# The JIT benchmark, every measurement beside its anchor in one run, one report:
#   1. compile latency against numba-cuda (cold process, first kernel, next kernel)
#   2. launch overhead of a JIT kernel with two arrays and a scalar against a raw
#      C cuLaunchKernel loop (gcc) on the same kernel built by nvcc, and numba-cuda
#   3. axpy bandwidth on 64M float32 against the same kernel in CUDA C++ (nvcc)
#      and numba-cuda
#   4. simulator speed against numba's CUDA simulator
# On the GPU host, from the repository root, with a built checkout:
#   source .device/setup.sh && tooling/bench/jit/run.sh [results.json]
# Prints a markdown report; writes the results as JSON to $1 (default
# /tmp/jit-bench.json). Needs node, nvcc and gcc; python3 with numba-cuda for
# the numba anchors (a missing package is reported as not measured, with the
# reason). PYTHON picks another interpreter. About 2-4 minutes.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/jit-bench.json}
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
export PYTHON=${PYTHON:-python3}
rounds=${JIT_BENCH_ROUNDS:-3}
launches=${JIT_BENCH_LAUNCHES:-100000}
numba_launches=${JIT_BENCH_NUMBA_LAUNCHES:-20000}
compile_runs=${JIT_BENCH_COMPILE_RUNS:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/jit-bench.XXXXXX")
res="$work/results"
mkdir -p "$res/launch"
BENCH_PY_SCRIPT="$here/numba_anchors.py"
BENCH_LOG_NAME=jit-bench
# log, step and py
source "$here/bench-steps.sh"

command -v node >/dev/null || { echo "node is not on PATH (source .device/setup.sh first)" >&2; exit 1; }
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
arch=sm_${arch:-90}
log "work dir $work, arch $arch"
node "$here/host-info.mjs" "$arch" > "$res/host.json"

log "building the C anchors (nvcc, gcc)"
cubin="$work/kernels.cubin"
nvcc -cubin -arch="$arch" -O3 -o "$cubin" "$here/kernels.cu" 2> "$work/nvcc.log" || log "nvcc failed: $(tail -3 "$work/nvcc.log")"
gcc -O2 -o "$work/raw-launch" "$here/raw-launch.c" -ldl 2> "$work/gcc.log" || log "gcc failed: $(tail -3 "$work/gcc.log")"

log "1. compile latency: $compile_runs runs of each case, each in a fresh process"
step 240 "$res/compile.json" node "$here/compile-latency.mjs" "$compile_runs"

log "2. launch overhead: $rounds interleaved rounds of $launches launches (numba-cuda $numba_launches)"
for round in $(seq 1 "$rounds"); do
  step 60 "$res/launch/raw-$round-k.txt" "$work/raw-launch" "$cubin" k "$launches" 0
  step 60 "$res/launch/raw-$round-k_len.txt" "$work/raw-launch" "$cubin" k_len "$launches" 32
  step 90 "$res/launch/node-$round.json" node "$here/launch.mjs" "$cubin" "$launches"
  py 90 "$res/launch/numba-$round.json" launch "$numba_launches"
  log "   round $round done"
done

log "3. axpy bandwidth on 64M float32"
step 90 "$res/bandwidth-node.json" node "$here/bandwidth.mjs" "$cubin" $((1 << 26)) 20
py 120 "$res/bandwidth-numba.json" bandwidth $((1 << 26)) 20

log "4. simulator"
step 60 "$res/simulator-node.json" node "$here/simulator.mjs" 65536 50
export NUMBA_ENABLE_CUDASIM=1
py 120 "$res/simulator-numba.json" simulator 4096 3
unset NUMBA_ENABLE_CUDASIM

node "$here/report.mjs" "$res" "$out"
log "raw outputs in $res"
