#!/usr/bin/env bash
# Cold start and the disk-cache hit (issue 23, steps 4 and 5), each case in
# fresh processes, interleaved, beside the C floor (a C program that makes the
# context, loads a cubin, launches and checks; built here with gcc, its kernel
# with nvcc): the JIT's process start → checked result compiling and on a
# disk-cache hit (wall and max RSS), the hit's own time, and each layer's
# import. Prints a markdown report (run.mjs).
# On the GPU host, from the repository root, in a built checkout:
#   source .device/setup.sh && tooling/bench/cold-start/run.sh [runs]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runs=${1:-7}
command -v node >/dev/null || { echo "node is not on PATH (source .device/setup.sh first)" >&2; exit 1; }
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
work=$(mktemp -d "${TMPDIR:-/tmp}/cold-start.XXXXXX")
"$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")" -cubin -arch="sm_${arch:-90}" -O3 -o "$work/kernels.cubin" "$here/../jit/kernels.cu"
gcc -O2 -o "$work/floor" "$here/floor.c" -ldl
node "$here/run.mjs" "$work/floor" "$work/kernels.cubin" "$runs"
