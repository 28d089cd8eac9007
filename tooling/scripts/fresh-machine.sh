#!/usr/bin/env bash
# Runs a command as on a fresh machine that has only Node.js and npm: the CUDA
# libraries that CI installs from Debian (the driver library libcuda1 and
# NVRTC, libnvrtc*) vanish inside a private mount namespace (an overlay with
# whiteouts over the library folder), and the loader cache is rebuilt there
# without them. Nothing outside the namespace changes.
#   tooling/scripts/fresh-machine.sh npx vitest run --project unit
# Needs root (CI runs as root) and unshare/overlayfs; elsewhere it says why and
# exits 0 without running the command (set FRESH_MACHINE_REQUIRED=1 to fail instead).
set -euo pipefail
skip() {
  echo "fresh-machine: skipped ($1): the command was not run with the CUDA libraries out of reach" >&2
  [ "${FRESH_MACHINE_REQUIRED:-0}" = 1 ] && exit 1
  exit 0
}
[ "$#" -gt 0 ] || { echo "usage: $0 <command> [args...]" >&2; exit 2; }
[ "$(uname -s)" = Linux ] || skip "not Linux"
[ "$(id -u)" -eq 0 ] || skip "not root: a private mount namespace needs root"
command -v unshare >/dev/null || skip "no unshare (util-linux)"
d=/usr/lib/x86_64-linux-gnu
[ -d "$d" ] || d=/usr/lib/$(gcc -dumpmachine 2>/dev/null || echo unknown)
[ -d "$d" ] || skip "no multiarch library folder"
unshare -m true 2>/dev/null || skip "unshare -m is not permitted here"
exec unshare -m bash -c '
  set -e
  d=$1; shift
  t=$(mktemp -d); mkdir -p "$t/up" "$t/work"
  for f in "$d"/libcuda.so* "$d"/libnvidia-ptxjitcompiler.so* "$d"/libnvrtc.so* "$d"/libnvrtc-builtins.so* "$d"/nvidia; do
    if [ -e "$f" ] || [ -L "$f" ]; then mknod "$t/up/$(basename "$f")" c 0 0; fi
  done
  mount -t overlay overlay -o "lowerdir=$d,upperdir=$t/up,workdir=$t/work" "$d"
  c=$(mktemp); ldconfig -X -C "$c" 2>/dev/null || true; mount --bind "$c" /etc/ld.so.cache
  # what is left must not be found: say so if it is
  if ldconfig -p -C "$c" 2>/dev/null | grep -qE "libcuda\.so|libnvrtc\.so"; then echo "fresh-machine: the CUDA libraries are still in reach" >&2; exit 1; fi
  echo "fresh-machine: libcuda and libnvrtc are out of reach for: $*" >&2
  exec "$@"' fresh-machine "$d" "$@"
