#!/usr/bin/env bash
# The AOT benchmark, in one run, side by side: process start -> first checked
# result of an app whose kernel comes from an artifact built by
# `cuda-js build-kernels` (libNVVM hidden, and present), against the same app
# through the JIT (cold: no disk cache) and numba-cuda's cold start; the wall
# time and max RSS of each; and the load of one AOT kernel.
# On the GPU host, from the repository root, with a built checkout:
#   source .device/setup.sh && tooling/bench/aot/run.sh [results.json]
# Prints a markdown report; writes the results as JSON to $1 (default
# /tmp/aot-bench.json). Needs node, libNVVM and ptxas (to build the
# artifact); python3 with numba-cuda for the anchor (a missing package is
# reported as not measured, with the reason). PYTHON picks another
# interpreter; AOT_BENCH_RUNS the runs of each case (default 5). About a minute.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-/tmp/aot-bench.json}
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
export PYTHON=${PYTHON:-python3}
runs=${AOT_BENCH_RUNS:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/aot-bench.XXXXXX")
BENCH_LOG_NAME=aot-bench
source "$here/../jit/bench-steps.sh"

command -v node >/dev/null || { echo "node is not on PATH (source .device/setup.sh first)" >&2; exit 1; }
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
arch=sm_${arch:-90}
log "work dir $work, arch $arch"
node "$here/../jit/host-info.mjs" "$arch" > "$work/host.json" 2>/dev/null || true

log "building the artifact: cuda-js build-kernels app-kernels.mjs --arch $arch"
if ! node "$root/packages/cuda-js/dist/cli.js" build-kernels "$here/app-kernels.mjs" --arch "$arch" --out "$work/kernels" > "$work/build.log" 2>&1; then
  log "build-kernels failed: $(tail -3 "$work/build.log")"
  exit 1
fi
sed 's/^/  /' "$work/build.log" >&2

log "$runs interleaved runs of each case, then the load of one AOT kernel"
node "$here/aot-bench.mjs" "$work/kernels/kernels.js" "$out" "$runs" | grep -v '^{"written"'
log "host: $(cat "$work/host.json" 2>/dev/null | head -c 300)"
log "results in $out; raw outputs in $work"
