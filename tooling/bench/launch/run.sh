#!/usr/bin/env bash
# Runs the launch benchmark on a GPU host, from the repository root:
#   bash tooling/bench/launch/run.sh
# Needs node and gcc on PATH and a built checkout (packages/*/dist and the
# bindings addon; on a host without Node.js, see ../shared/device/pack).
set -euo pipefail
cd "$(dirname "$0")/../../.."
node tooling/bench/launch/bench.mjs "$@"
