#!/usr/bin/env bash
# stacks_callgrind.sh — instructions per call-stack capture, counted by callgrind
# (repeatable on a loaded machine, unlike wall time): libunwind's unw_backtrace
# alone and the recorder's whole ht_stack_here (walk + hash + dedup; the walk
# from call-frame information, preload/unwind.c, and with HATRACE_STACKS_FP=1
# the frame-pointer walk), at several call depths, cold (first call) and warm (per call, from the
# difference of two runs of N and N+K calls). Uses tests/workloads/stack_depth.
#
#   bench/stacks_callgrind.sh [BUILD_DIR [DEPTHS]]     (default: build "3 10 30")
set -eu
cd "$(dirname "$0")/.."
B=${1:-build}
DEPTHS=${2:-3 10 30}
prog=$B/workloads/stack_depth
lib=$PWD/$B/libhatrace.so
[ -x "$prog" ] && [ -f "$lib" ] || { echo "build first: make B=$B all $prog"; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind not installed"; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
N=200 K=2000
# the same workload with frame pointers, for HATRACE_STACKS_FP=1
cc -std=gnu11 -O1 -g -fno-omit-frame-pointer -o "$W/stack_depth_fp" tests/workloads/stack_depth.c -ldl

# total Ir of a run, or the inclusive Ir of FUNC's calls with toggle-collect
ir() { # out func env... -- args
  local out=$1 fn=$2; shift 2
  local tog=(); [ "$fn" != - ] && tog=(--toggle-collect="$fn")
  env "$@" HATRACE_OUTPUT="$W/t.%p.hatf" valgrind --tool=callgrind "${tog[@]}" \
      --callgrind-out-file="$W/$out" "${PROG:-$B/workloads/stack_depth}" "${ARGS[@]}" >/dev/null 2>"$W/$out.err" \
    || { cat "$W/$out.err" >&2; exit 1; }
  awk '/^summary:|^totals:/ { print $2; exit }' "$W/$out"
}
per_call() { awk -v a="$1" -v b="$2" -v k="$K" 'BEGIN { printf "%.0f", (b - a) / k }'; }

printf '%-28s %6s %10s %10s\n' "what" "frames" "cold Ir" "warm Ir"
for d in $DEPTHS; do
  frames=$((d + 5))  # chain + leaf + main + libc's two + _start
  ARGS=(unwind "$d" 1); cold=$(ir u1 "*backtrace" X=1)
  ARGS=(unwind "$d" $N); a=$(ir ua "*backtrace" X=1)
  ARGS=(unwind "$d" $((N + K))); b=$(ir ub "*backtrace" X=1)
  printf '%-28s %6s %10s %10s\n' "unw_backtrace" "$frames" "$cold" "$(per_call "$a" "$b")"
  for mode in cfi fp; do
    fp=0 PROG=; [ $mode = fp ] && fp=1 PROG=$W/stack_depth_fp
    ARGS=(malloc "$d" $N); a=$(ir ma ht_stack_here LD_PRELOAD="$lib" HATRACE_STACKS=64 HATRACE_STACKS_FP=$fp)
    ARGS=(malloc "$d" $((N + K))); b=$(ir mb ht_stack_here LD_PRELOAD="$lib" HATRACE_STACKS=64 HATRACE_STACKS_FP=$fp)
    printf '%-28s %6s %10s %10s\n' "ht_stack_here ($mode)" "$frames" "-" "$(per_call "$a" "$b")"
  done
  PROG=
  ARGS=(malloc "$d" $N); a=$(ir ma - LD_PRELOAD="$lib")
  ARGS=(malloc "$d" $((N + K))); b=$(ir mb - LD_PRELOAD="$lib")
  printf '%-28s %6s %10s %10s\n' "malloc+free pair, no stacks" "$frames" "-" "$(per_call "$a" "$b")"
done
