#!/usr/bin/env bash
# The native profile of a launch (issue 23, step 1): perf's top symbols, flat
# (self time), of a long loop of core's launch(), of the bindings' launch
# function, of the JIT's launch (node --perf-basic-prof, so that V8's code is
# named too) and of the raw C cuLaunchKernel loop, each on kernel k1. perf is
# Debian's linux-perf with its libraries, carried in .bench-tools/perf.tar.xz
# (PERF_TOOLS names another folder) and unpacked under /tmp; it runs with
# LD_LIBRARY_PATH, installing nothing.
# On the GPU host, from the repository root, in a built checkout:
#   source .device/setup.sh && tooling/bench/launch-path/perf.sh [work dir of run.sh]
# PERF_LAUNCHES: launches per profile (default 1000000).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
work=${1:-}
launches=${PERF_LAUNCHES:-1000000}
tools=${PERF_TOOLS:-$root/.bench-tools}
if [ -z "$work" ] || [ ! -f "$work/kernels.cubin" ]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/launch-perf.XXXXXX")
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
  node "$here/../launch/kernels.mjs" > "$work/kernels.cu"
  "$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")" -cubin -arch="sm_${arch:-90}" -o "$work/kernels.cubin" "$work/kernels.cu" || exit 1
  gcc -O2 -o "$work/raw-launch-arrays" "$here/../launch/raw-launch-arrays.c" -ldl || exit 1
fi
unpacked=/tmp/cuda-js-perf
if [ ! -x "$unpacked/perf/perf" ]; then
  [ -f "$tools/perf.tar.xz" ] || { echo "perf.sh: no $tools/perf.tar.xz (carry .bench-tools to the GPU host); no profile" >&2; exit 0; }
  mkdir -p "$unpacked" && tar -xJf "$tools/perf.tar.xz" -C "$unpacked"
fi
perf() { LD_LIBRARY_PATH="$unpacked/perf/lib" "$unpacked/perf/perf" "$@"; }
perf --version >/dev/null 2>&1 || { echo "perf.sh: perf does not run on this host: $(perf --version 2>&1 | tail -1)" >&2; exit 0; }
echo "perf $(perf --version 2>&1 | awk '{print $3}'); perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo '?')"
# cpu-clock (a software event) also works where the hardware counters are not exposed (containers, VMs)
event=cycles
perf record -e cycles -o "$work/perf-probe.data" -- true >/dev/null 2>&1 || event=cpu-clock

profile() {
  local name=$1
  shift
  echo
  echo "### $name: top native symbols (self time), $launches launches of k1"
  if ! perf record -e "$event" -F 4999 -o "$work/perf-$name.data" -- "$@" >"$work/perf-$name.log" 2>&1; then
    echo "perf record failed: $(tail -3 "$work/perf-$name.log")"
    return
  fi
  perf report -i "$work/perf-$name.data" --no-children --sort dso,symbol --stdio --percent-limit 0.7 2>/dev/null |
    grep -v '^#' | grep -v '^$' | sed 's/  *-  *-  *$//; s/  *$//' | cut -c1-160 | head -"${PERF_TOP:-30}"
}

# form indices of path.mjs: 5 launch function, 6 core launch(), 10 JIT launch
profile core-launch node --perf-basic-prof "$here/path.mjs" "$work/kernels.cubin" --loop 6 k1 "$launches"
profile launch-function node --perf-basic-prof "$here/path.mjs" "$work/kernels.cubin" --loop 5 k1 "$launches"
profile jit-launch node --perf-basic-prof "$here/path.mjs" "$work/kernels.cubin" --loop 10 k1 "$launches"
profile raw-c bash -c "printf 'k1 %s\n' $launches | '$work/raw-launch-arrays' '$work/kernels.cubin' >/dev/null"
echo
echo "perf data in $work (perf report -i <file> with LD_LIBRARY_PATH=$unpacked/perf/lib $unpacked/perf/perf)"
