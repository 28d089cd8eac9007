#!/usr/bin/env bash
# Makes .bench-tools/perf.tar.xz for perf.sh: Debian's linux-perf and the
# libraries it needs (apt-get download, unpacked with dpkg -x, nothing
# installed), with the system libraries it links copied beside them so that
# it runs on a host with an older or smaller system. About 7 MB.
#   tooling/bench/launch-path/fetch-perf.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tmp=$(mktemp -d)
cd "$tmp"
apt-get download linux-perf libbabeltrace1 libdw1 libelf1 libnuma1 libopencsd1 libperl5.36 libpython3.11 libslang2 libunwind8 libcap2 libzstd1 liblzma5 libglib2.0-0 >/dev/null
mkdir x && for d in *.deb; do dpkg -x "$d" x; done
mkdir -p perf/lib && cp x/usr/bin/perf perf/
for f in libopencsd_c_api.so.1 libopencsd.so.1 libelf.so.1 libdw.so.1 libunwind-x86_64.so.8 libunwind.so.8 libslang.so.2 libperl.so.5.36 \
  libpython3.11.so.1.0 libzstd.so.1 libnuma.so.1 libbabeltrace-ctf.so.1 libbabeltrace.so.1 libglib-2.0.so.0 libgmodule-2.0.so.0 liblzma.so.5 libcap.so.2; do
  cp -L "x/usr/lib/x86_64-linux-gnu/$f" perf/lib/ 2>/dev/null || cp -L "x/lib/x86_64-linux-gnu/$f" perf/lib/
done
for f in libbz2.so.1.0 libcrypt.so.1 libexpat.so.1 libuuid.so.1 libpcre2-8.so.0 libstdc++.so.6 libgcc_s.so.1 libz.so.1; do
  cp -L "/lib/x86_64-linux-gnu/$f" perf/lib/ 2>/dev/null || cp -L "/usr/lib/x86_64-linux-gnu/$f" perf/lib/
done
strip --strip-unneeded perf/perf perf/lib/* 2>/dev/null || true
LD_LIBRARY_PATH=perf/lib perf/perf --version
mkdir -p "$root/.bench-tools"
tar -cJf "$root/.bench-tools/perf.tar.xz" perf
ls -la "$root/.bench-tools/perf.tar.xz"
rm -rf "$tmp"
