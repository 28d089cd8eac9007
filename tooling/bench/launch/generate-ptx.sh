#!/usr/bin/env bash
# Regenerates empty-kernel.ptx (committed, so that the GPU host needs no nvcc).
# compute_75 PTX: the oldest target of CUDA 13, JIT-compiled by the driver for any newer GPU.
set -euo pipefail
cd "$(dirname "$0")"
"${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" -arch=compute_75 -ptx empty-kernel.cu -o empty-kernel.ptx
