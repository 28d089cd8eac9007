#!/usr/bin/env bash
# Launch overhead with 0, 1, 4 and 16 array arguments (issue: streams and core),
# side by side with the raw C loop and the Python anchors, interleaved rounds.
# Run from the repository root on the GPU host: tooling/bench/launch/run-arrays.sh [rounds] [iterations]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-5}
iterations=${2:-200000}
work=$(mktemp -d)
node "$here/kernels.mjs" > "$work/kernels.cu"
nvcc -cubin -arch=sm_90 -o "$work/kernels.cubin" "$work/kernels.cu"
gcc -O2 -o "$work/raw-launch-arrays" "$here/raw-launch-arrays.c" -ldl
mkdir -p "$work/results"
for round in $(seq 1 "$rounds"); do
  for count in 0 1 4 16; do "$work/raw-launch-arrays" "$work/kernels.cubin" "$count" "$iterations" > "$work/results/raw-$round-$count.txt"; done
  node "$here/arrays.mjs" "$work/kernels.cubin" "$iterations" > "$work/results/node-$round.json"
  if command -v python3 >/dev/null; then
    python3 "$here/anchors.py" "$work/kernels.cubin" "$work/kernels.cu" "$(( iterations / 10 ))" > "$work/results/python-$round.json" 2>"$work/python-$round.log" || echo "python anchors failed: $(tail -3 "$work/python-$round.log")"
  fi
done
node "$here/report.mjs" "$work/results"
