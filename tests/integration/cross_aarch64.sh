#!/usr/bin/env bash
# Builds off x86-64: every C source of the project compiled (-c, -O2, warnings
# as errors) for aarch64 with Debian's cross compiler, each group with the flags
# its own Makefile rule uses (the library, the analysis, recorder, replay, command,
# unit tests and benchmarks with the Makefile's REQ_CFLAGS and each folder's include
# paths, read from `make print-REQ_CFLAGS` and `make print-INC_hatf` ...).
#
# What it proves: the code has no x86-only part left without a fallback (the
# clocks of the recorder and of replay, the spin-wait hints, the stack walkers)
# and is warning-free on a 64-bit ARM target; every object is checked to be
# AArch64 code. What it does not: linking or running. Debian has no arm64
# zstd, xxHash, zlib (bench/format_size), libunwind, CUnit, libiberty or libdw here (no multiarch), so
# their headers come from the host (-idirafter /usr/include: those headers are
# the same for every architecture) and nothing is linked; the check fails if any
# other host header is used. libunwind's header is per architecture, so the
# recorder is compiled as on a machine without libunwind-dev (no call stacks).
# C++ workloads (*.cc) are left out (no aarch64 g++ installed).
# Skipped (77) when the cross compiler (CROSS_CC, default aarch64-linux-gnu-gcc)
# is missing: scripts/install-deps.sh installs gcc-aarch64-linux-gnu.
set -u
fail() { echo "FAIL: $*"; exit 1; }
CROSS_CC=${CROSS_CC:-aarch64-linux-gnu-gcc}
command -v "$CROSS_CC" >/dev/null || { echo "no $CROSS_CC"; exit 77; }
cd "$(dirname "$0")/../.." || exit 1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# a variable of the Makefile. A make whose environment holds a parent make's
# MAKEFLAGS ("w" under make check-sanitizers, two makes deep) prints its
# "Entering directory" lines whatever its options say: start it clean.
make_print() { env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s --no-print-directory "$@"; }

# the Makefile's required flags, without libunwind and sanitizers
req=$(make_print HAVE_UNWIND= SANITIZE= print-REQ_CFLAGS) || fail "make print-REQ_CFLAGS"
req=$(tr ' ' '\n' <<<"$req" | grep -vxE -e '-MMD|-MP' | tr '\n' ' ')  # -MD below lists every header
case " $req " in *" -std="*) ;; *) fail "no flags from the Makefile: $req";; esac
read -ra req <<<"$req"
host_inc=(-idirafter /usr/include)

n=0 bad=0
# compile FILE FLAGS...: one object under $W, its header list beside it
compile() {
  local src=$1; shift
  local o=$W/obj/${src%.*}.o
  mkdir -p "$(dirname "$o")"
  if ! "$CROSS_CC" "$@" -Werror -MD -MF "$o.dep" "${host_inc[@]}" -c "$src" -o "$o" 2>"$o.err"; then
    echo "== $src"; cat "$o.err"; bad=$((bad + 1))
  fi
  n=$((n + 1))
}

# each folder with the include paths the Makefile gives it (INC_hatf, ...)
for d in hatf analyze replay preload cli bench tests; do
  read -ra inc <<<"$(make_print "print-INC_$d")" || fail "make print-INC_$d"
  [ "${#inc[@]}" -gt 0 ] || fail "no include paths for $d"
  case $d in tests) srcs=(tests/unit/*.c tests/unit/*/*.c);; hatf) srcs=(hatf/*.c hatf/*/*.c);;
    *) srcs=("$d"/*.c);; esac
  for f in "${srcs[@]}"; do compile "$f" "${req[@]}" "${inc[@]}" -O2; done
done
for f in tests/workloads/*.c examples/*.c; do compile "$f" -std=gnu11 -Wall -Wextra -Iinclude -O2; done
for f in tests/workloads/lib/*.c; do compile "$f" -std=gnu11 -Wall -Wextra -O2 -fPIC; done
for f in tests/fuzz/fuzz_*.c; do compile "$f" -std=gnu11 -Iinclude -Ihatf -D_GNU_SOURCE -O1; done
compile tests/fuzz/make_seeds.c -std=gnu11 -Wall -Wextra -Iinclude -Ihatf -Ibench -D_GNU_SOURCE -O1
[ "$bad" -eq 0 ] || fail "$bad of $n sources do not compile for aarch64"

# every source of the tree was taken (a new folder must be added above)
srcs=$(git ls-files '*.c' 2>/dev/null | wc -l)
[ "$srcs" -eq 0 ] || [ "$srcs" -eq "$n" ] || fail "compiled $n sources, git has $srcs .c files"

# aarch64 code, every object
objs=$(find "$W/obj" -name '*.o' | wc -l)
[ "$objs" -eq "$n" ] || fail "$objs objects for $n sources"
other=$(find "$W/obj" -name '*.o' -exec readelf -h {} + | grep 'Machine:' | grep -vc AArch64)
[ "$other" -eq 0 ] || fail "$other objects are not AArch64"

# host headers: only the third-party ones, which are the same on every architecture
used=$(find "$W/obj" -name '*.dep' -exec cat {} + | tr ' ' '\n' | grep '^/usr/include/' | sort -u)
odd=$(grep -vE '^/usr/include/(zstd|zstd_errors|xxhash|zlib|zconf|dwarf|libelf|gelf|mimalloc)\.h$|^/usr/include/(CUnit|libiberty|elfutils)/' <<<"$used")
[ -z "$odd" ] || fail "host headers beyond the third-party ones: $(tr '\n' ' ' <<<"$odd")"
echo "host headers used: $(tr '\n' ' ' <<<"$used")"
echo "ok: $n C sources compiled for aarch64 ($("$CROSS_CC" -dumpversion)), host headers used: $(grep -c . <<<"$used")"
