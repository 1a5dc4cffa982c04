#!/usr/bin/env bash
# HATRACE_STACKS_FP=1 (frame-pointer walk) on the known call chains of
# tests/workloads/stacks_sites.c built with -fno-omit-frame-pointer: the same
# exact per-site counts and leaks as libunwind gives, the chains reach main,
# the frames below the hook's caller are the ones libunwind finds, and a
# program without frame pointers still gets its first frame right.
. "$(dirname "$0")/record_lib.inc"
need_tools
[ -x "$BUILD/workloads/stacks_sites" ] || { echo "workload not built"; exit 77; }
command -v cc >/dev/null || { echo "no C compiler"; exit 77; }
[ "$(uname -m)" = x86_64 ] || { echo "frame-pointer walk is x86-64 only"; exit 77; }
src=$(cd "$(dirname "$0")/../workloads" && pwd)
cc -O1 -g -fno-omit-frame-pointer -shared -fPIC -o "$W/libstacks_lib.so" "$src/lib/stacks_lib.c" || fail "cc lib"
cc -O1 -g -fno-omit-frame-pointer -o "$W/stacks_sites" "$src/stacks_sites.c" -L"$W" -lstacks_lib \
   -Wl,-rpath,"$W" -lpthread || fail "cc workload"

sites() { # trace out: "innermost-function sites calls leaked" per function
  "$HATRACE" stats --sites --top 0 "$1" >"$2.txt" || fail "stats --sites $1"
  awk '/^#[0-9]+ stack/ { calls = $4; for (i = 1; i < NF; i++) if ($i == "leaked") leaked = $(i + 1); getline; f = $2; sub(/\+.*/, "", f)
                          n[f]++; c[f] += calls; l[f] += leaked }
       END { for (f in n) print f, n[f], c[f], l[f] }' "$2.txt" | sort >"$2"
}
HATRACE_STACKS_FP=1 "$HATRACE" record --stacks -o "$W/fp.hatf" -- "$W/stacks_sites" 2>"$W/fp.err" || fail "record: $(cat "$W/fp.err")"
! grep -q "hatrace\[" "$W/fp.err" || fail "record warned: $(cat "$W/fp.err")"
validate_all "$W/fp.hatf"
sites "$W/fp.hatf" "$W/fp.sites"
for want in "static_leaf 1 100 0" "lib_make 1 250 10" "grow_buf 1 37 1" "thread_leaf 1 100 0"; do
  grep -qx "$want" "$W/fp.sites" || { cat "$W/fp.sites.txt"; fail "FP: site '$want' not found"; }
done
# static_leaf <- chain_a <- main, lib_make <- chain_b <- main
grep -A3 -- 'at static_leaf+' "$W/fp.sites.txt" | tr '\n' ' ' |
  grep -q 'at static_leaf+.* at chain_a+.* at main+' || fail "FP: static_leaf's chain"
grep -A3 -- 'at lib_make+' "$W/fp.sites.txt" | tr '\n' ' ' |
  grep -q 'at lib_make+.*(libstacks_lib.so).* at chain_b+.* at main+' || fail "FP: lib_make's chain"

# libunwind on the same binary: the same frames from the hook's caller to main
"$HATRACE" record --stacks -o "$W/uw.hatf" -- "$W/stacks_sites" 2>/dev/null || fail "record (libunwind)"
"$HATRACE" dump --stacks "$W/fp.hatf" | awk '/^#   at /' | sed '/at main+/q' >"$W/fp.frames"
"$HATRACE" dump --stacks "$W/uw.hatf" | awk '/^#   at /' | sed '/at main+/q' >"$W/uw.frames"
[ -s "$W/fp.frames" ] && cmp -s "$W/fp.frames" "$W/uw.frames" || fail "FP and libunwind frames differ: $(diff "$W/uw.frames" "$W/fp.frames" | head -5)"

# without frame pointers: the first frame is still the caller of malloc
HATRACE_STACKS_FP=1 "$HATRACE" record --stacks -o "$W/nofp.hatf" -- "$BUILD/workloads/stacks_sites" 2>/dev/null || fail "record (no frame pointers)"
validate_all "$W/nofp.hatf"
sites "$W/nofp.hatf" "$W/nofp.sites"
for f in static_leaf lib_make grow_buf thread_leaf; do
  c=$(awk -v f=$f '$1 == f { print $3 }' "$W/nofp.sites")
  want=$(awk -v f=$f '$1 == f { print $3 }' "$W/fp.sites")
  [ "$c" = "$want" ] || fail "no frame pointers: $f has $c calls, want $want"
done
# ... and the walk (not libunwind) made it: it stops where the frame pointers
# stop, so chain_a, which libunwind finds, is not there
grep -A1 -- 'at static_leaf+' "$W/nofp.sites.txt" | grep -q 'at chain_a+' && fail "no frame pointers: stacks came from libunwind"
echo "ok"
