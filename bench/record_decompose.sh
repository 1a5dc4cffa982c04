#!/usr/bin/env bash
# record_decompose.sh — where the recorder's whole CPU per event goes, in both
# regimes: server_sim (8 threads, every core busy) and alloc_chain (1 thread, a
# core idle; bench/record_saturated.sh describes both). Each program runs in
# four ways, interleaved in each of ROUNDS rounds (medians):
#   native   no recorder
#   clock    the hooks take their time stamp and return (nothing recorded)
#   ring     the hooks write their rings; the flusher drains and converts them,
#            then drops the events instead of coding and writing them
#   full     the recorder as shipped
# The two middle ones need knobs compiled into a build of their own
# (-DHT_BENCH_KNOBS, preload/recorder.h): this script makes it in BUILD-knobs.
# Per event, from the programs' own lines (CPU of the program's threads and of
# the hatrace-* threads):
#   hook and clock          prog(clock) - prog(native)
#   ring writes             prog(ring) - prog(clock)
#   draining                bg(ring)
#   coding and writing      bg(full) - bg(ring)
#   coding's cost to the program   prog(full) - prog(ring)  (its cache and scheduling
#                           effects on the program's threads)
#   whole                   prog(full) - prog(native) + bg(full)
#
#   bench/record_decompose.sh [BUILD_DIR [ROUNDS]]    (default: build 5)
# SIM_THREADS (8), SIM_SECONDS (2), CHAIN_STEPS (10000000) as in record_saturated.sh.
set -eu
cd "$(dirname "$0")/.."
B=${1:-build}
ROUNDS=${2:-5}
K=$B-knobs
SIM_THREADS=${SIM_THREADS:-8}
SIM_SECONDS=${SIM_SECONDS:-2}
CHAIN_STEPS=${CHAIN_STEPS:-10000000}
make -s -j2 B="$K" CFLAGS="-O2 -g -DHT_BENCH_KNOBS" "$K/libhatrace.so" "$K/hatrace" "$K/bench/server_sim" \
  "$K/bench/alloc_chain" >/dev/null
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
. bench/lib.sh  # median
field() { echo "$1" | tr ' ' '\n' | awk -F= -v k="$2" '$1 == k { print $2; exit }'; }

# run PROGRAM MODE ARGS...: the program's "ops=..." line
run() {
  local prog=$1 mode=$2; shift 2
  case $mode in
    native) "$K/bench/$prog" "$@" ;;
    clock) HATRACE_BENCH_SKIP=ring "$K/hatrace" record --no-figures -o "$W/t.hatf" -- "$K/bench/$prog" "$@" ;;
    ring) HATRACE_BENCH_SKIP=encode "$K/hatrace" record --no-figures -o "$W/t.hatf" -- "$K/bench/$prog" "$@" ;;
    full) "$K/hatrace" record --no-figures -o "$W/t.hatf" -- "$K/bench/$prog" "$@" ;;
  esac 2>/dev/null | grep -E '^ops=' | tail -1
  rm -f "$W"/t.hatf*
}

MODES="native clock ring full"
for r in $(seq "$ROUNDS"); do
  for prog in server_sim alloc_chain; do
    if [ $prog = server_sim ]; then args="$SIM_THREADS $SIM_SECONDS"; else args=$CHAIN_STEPS; fi
    for m in $MODES; do
      # shellcheck disable=SC2086
      line=$(run $prog $m $args)
      [ -n "$line" ] || { echo "$prog ($m) printed no figures" >&2; exit 1; }
      ev=$(( $(field "$line" ops) * 2 ))
      cpu=$(field "$line" cpu_ns)
      bg=$(field "$line" bg_ns)
      awk -v c="$cpu" -v b="$bg" -v e="$ev" 'BEGIN { printf "%.3f\n", (c - b) / e }' >>"$W/$prog.$m.prog"
      awk -v b="$bg" -v e="$ev" 'BEGIN { printf "%.3f\n", b / e }' >>"$W/$prog.$m.bg"
    done
  done
done

echo "rounds: $ROUNDS (medians; native, clock, ring, full interleaved), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for prog in server_sim alloc_chain; do
  for m in $MODES; do
    eval "P_$m=$(median <"$W/$prog.$m.prog")"
    eval "G_$m=$(median <"$W/$prog.$m.bg")"
  done
  if [ $prog = server_sim ]; then
    echo "server_sim: $SIM_THREADS threads on $(nproc) cores, every core busy (ns per event)"
  else
    echo "alloc_chain: 1 thread, a core idle (ns per event)"
  fi
  # shellcheck disable=SC2154
  awk -v pn="$P_native" -v pc="$P_clock" -v pr="$P_ring" -v pf="$P_full" -v gr="$G_ring" -v gf="$G_full" 'BEGIN {
    printf "  program natively %.1f | under the recorder: program %.1f + background %.1f\n", pn, pf, gf
    printf "  hook and clock %.1f | ring writes %.1f | draining %.1f | coding and writing %.1f | coding'"'"'s cost to the program %.1f\n",
           pc - pn, pr - pc, gr, gf - gr, pf - pr
    printf "  whole %.1f\n", pf - pn + gf
  }'
done
