# Shell helpers shared by the JIT benchmarks' drivers (run.sh here and in
# ../jit-breadth), sourced after `set -uo pipefail` and `export PYTHON=...`:
#   BENCH_LOG_NAME=jit-bench; BENCH_PY_SCRIPT="$here/numba_anchors.py"; source "$here/../jit/bench-steps.sh"

# log <message>: a timestamped line on stderr
log() { printf '[%s %s] %s\n' "${BENCH_LOG_NAME:-bench}" "$(date +%T)" "$*" >&2; }

# step <timeout s> <output file> <command...>: runs it with its stdout in the
# file; on failure a last line {"error": ...} with the reason is added there.
step() {
  local limit=$1 file=$2; shift 2
  local errlog="$file.stderr" rc why
  timeout "$limit" "$@" > "$file" 2> "$errlog"
  rc=$?
  if [ "$rc" = 0 ]; then return 0; fi
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then why="timed out after ${limit}s"
  else
    # the first line that names an error (a Node stack's message, a C CHECK), else the last line
    why=$(grep -m1 -E '^[A-Za-z_.]*(Error|Exception)( \[|:)| failed' "$errlog" || tail -1 "$errlog")
    why="exit $rc: $(printf '%s' "$why" | tr '\n\t' '  ' | tr -d '"\\' | cut -c1-300)"
  fi
  log "failed ($why): $*"
  printf '\n{"error": "%s"}\n' "$why" >> "$file"
  return 0
}

# py <timeout s> <output file> <part> [args]: a numba-cuda anchor ($BENCH_PY_SCRIPT), or the reason there is none
have_python=1
command -v "$PYTHON" >/dev/null 2>&1 || have_python=0
py() {
  local limit=$1 file=$2; shift 2
  if [ "$have_python" = 1 ]; then step "$limit" "$file" "$PYTHON" "$BENCH_PY_SCRIPT" "$@"
  else printf '{"error": "%s is not on PATH"}\n' "$PYTHON" > "$file"; fi
}
