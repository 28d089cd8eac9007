#!/usr/bin/env bash
# The views benchmark, both halves, one table. From the repository root:
#   tooling/bench/views/run.sh
# Node half: needs the built @cuda-js/memory-view (dist/). Python half: runs
# where python3 imports cuda.core and cupy (the GPU host), else is noted as absent.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
node_json=$(node "$here/views.mjs" --json "$@")
py_json=""
if command -v python3 >/dev/null 2>&1 && python3 -c 'import cupy, cuda.core' >/dev/null 2>&1; then
  py_json=$(python3 "$here/cuda_core_views.py" --json)
else
  py_json="python3 with cuda.core and cupy is not available on $(hostname)"
fi
node "$here/report.mjs" "$node_json" "$py_json"
