#!/usr/bin/env bash
# Install what hatrace needs from Debian's packages; quiet and quick when all is there.
# Build: gcc make pkg-config libzstd-dev libxxhash-dev libunwind-dev libcunit1-dev libiberty-dev libdw-dev
# Tests: clang (libFuzzer), libclang-rt-14-dev, python3 (checks on JSON output), xxd (hex inputs),
#        valgrind (its ms_print reads stats --massif output), procps (pgrep),
#        gcc-aarch64-linux-gnu and libc6-dev-arm64-cross (the aarch64 compile check),
#        man-db and groff-base (the man pages rendered and checked)
# Benchmarks: zlib1g-dev (gzip's figures in bench/format_size)
# Replay: the allocators (jemalloc, tcmalloc, mimalloc) and gnuplot for charts
# Python package (python/hatrace): numpy, pandas, pytest, dask and distributed
# Report: node and npm (the build installs the page's libraries with npm ci, report/),
#         chromium (tests/integration/report_browser.sh opens the page)
# Exports: heaptrack (its heaptrack_print reads convert --to heaptrack's files,
#          tests/integration/export_heaptrack.sh); the other readers are npm's (tests/node)
set -eu
pkgs="gcc g++ make pkg-config clang libclang-rt-14-dev libzstd-dev libxxhash-dev
      libunwind-dev libcunit1-dev libiberty-dev libdw-dev zlib1g-dev libjemalloc-dev libjemalloc2 libgoogle-perftools-dev
      libtcmalloc-minimal4 libmimalloc-dev gnuplot-nox zstd python3 xxd valgrind procps chromium
      gcc-aarch64-linux-gnu libc6-dev-arm64-cross man-db groff-base heaptrack
      python3-numpy python3-pandas python3-pytest python3-dask python3-distributed"
missing=()
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
# node and npm by command: another packaging of Node.js (with npm inside) will do
command -v node >/dev/null && command -v npm >/dev/null || missing+=(nodejs npm)
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}" >&2
sudo=; [ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
