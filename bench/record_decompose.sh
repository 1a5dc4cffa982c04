#!/usr/bin/env bash
# record_decompose.sh — where the recorder's whole CPU per event goes, in both
# regimes: server_sim (8 threads, every core busy) and alloc_chain (1 thread, a
# core idle; bench/record_saturated.sh describes both). Each program runs in
# five ways, interleaved in each of ROUNDS rounds (medians):
#   native   no recorder
#   hook     the hooks call the real functions and return (no stamp, nothing recorded)
#   clock    the hooks take their time stamp and return (nothing recorded)
#   ring     the hooks write their rings; the flusher drains and converts them,
#            then drops the events instead of coding and writing them
#   full     the recorder as shipped
# The three middle ones need knobs compiled into a build of their own
# (-DHT_BENCH_KNOBS, preload/recorder.h): this script makes it in BUILD-knobs.
# Per event, from the programs' own lines (CPU of the program's threads and of
# the hatrace-* threads):
#   interposition           prog(hook) - prog(native)
#   clock                   prog(clock) - prog(hook)
#   ring writes             prog(ring) - prog(clock)
#   draining                bg(ring)
#   coding and writing      bg(full) - bg(ring)
#   coding's cost to the program   prog(full) - prog(ring)  (its cache and scheduling
#                           effects on the program's threads)
#   whole                   prog(full) - prog(native) + bg(full)
#
#   bench/record_decompose.sh [BUILD_DIR [ROUNDS]]    (default: build 5)
# SIM_THREADS (8), SIM_SECONDS (2), CHAIN_STEPS (10000000) as in record_saturated.sh.
#
#   bench/record_decompose.sh BUILD_DIR ROUNDS -- COMMAND [ARGS...]
# splits any program the same way (a corpus program, say), run under LD_PRELOAD:
# its CPU is the process's (user + system, from bench/corpus/run.py), the background's
# the recorder's own figure (HATRACE_VERBOSE), the events those of the full runs.
set -eu
cd "$(dirname "$0")/.."
B=${1:-build}
ROUNDS=${2:-5}
K=$B-knobs
SIM_THREADS=${SIM_THREADS:-8}
SIM_SECONDS=${SIM_SECONDS:-2}
CHAIN_STEPS=${CHAIN_STEPS:-10000000}
REAL=0
if [ "${3:-}" = -- ]; then
  REAL=1
  shift 3
  [ $# -gt 0 ] || { echo "record_decompose.sh: no command after --" >&2; exit 2; }
fi
make -s -j2 B="$K" CFLAGS="-O2 -g -DHT_BENCH_KNOBS" "$K/libhatrace.so" "$K/hatrace" "$K/bench/server_sim" \
  "$K/bench/alloc_chain" >/dev/null
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
. bench/lib.sh  # median
MODES="native hook clock ring full"

# the split's lines, from per-event figures in $W/NAME.MODE.prog and .bg
split_lines() {
  local name=$1 m
  for m in $MODES; do
    eval "P_$m=$(median <"$W/$name.$m.prog")"
    eval "G_$m=$(median <"$W/$name.$m.bg")"
  done
  # shellcheck disable=SC2154
  awk -v pn="$P_native" -v ph="$P_hook" -v pc="$P_clock" -v pr="$P_ring" -v pf="$P_full" -v gr="$G_ring" -v gf="$G_full" 'BEGIN {
    printf "  program natively %.1f | under the recorder: program %.1f + background %.1f\n", pn, pf, gf
    printf "  interposition %.1f | clock %.1f | ring writes %.1f | draining %.1f | coding and writing %.1f | coding'"'"'s cost to the program %.1f\n",
           ph - pn, pc - ph, pr - pc, gr, gf - gr, pf - pr
    printf "  whole %.1f\n", pf - pn + gf
  }'
}

if [ $REAL = 1 ]; then
  # one run of the command in MODE: "CPU_S BG_MS EVENTS" (the last two 0 natively)
  real_run() {
    local mode=$1; shift
    local env=()
    case $mode in
      hook) env=(HATRACE_BENCH_SKIP=clock) ;;
      clock) env=(HATRACE_BENCH_SKIP=ring) ;;
      ring) env=(HATRACE_BENCH_SKIP=encode) ;;
    esac
    rm -f "$W"/t*.hatf
    # bench/corpus/run.py: the CPU to the microsecond (GNU time's 10 ms is a few
    # ns an event on a program of a few million)
    if [ "$mode" = native ]; then
      python3 bench/corpus/run.py "$W/time" 600 "$@" >/dev/null 2>"$W/err" </dev/null || true
    else
      python3 bench/corpus/run.py "$W/time" 600 env "${env[@]}" HATRACE_VERBOSE=1 HATRACE_OUTPUT="$W/t.hatf" \
        LD_PRELOAD="$PWD/$K/libhatrace.so" "$@" >/dev/null 2>"$W/err" </dev/null || true
    fi
    # the traced process's own lines (a wrapper's child may print its own, with 0 events)
    local ev bg
    ev=$(sed -n 's/.*hatrace\[[0-9]*\]: \([0-9]*\) events, .*/\1/p' "$W/err" | sort -n | tail -1)
    bg=$(sed -n 's/.*background CPU \([0-9.]*\) ms .*/\1/p' "$W/err" | sort -n | tail -1)
    awk -v ev="${ev:-0}" -v bg="${bg:-0}" '{ printf "%.6f %s %s\n", $2 / 1e9, bg, ev }' "$W/time"
  }
  for r in $(seq "$ROUNDS"); do
    for m in $MODES; do
      real_run $m "$@" >>"$W/runs.$m"
    done
  done
  EV=$(awk '{ print $3 }' "$W/runs.full" | median)
  [ "${EV%.*}" -gt 0 ] 2>/dev/null || { echo "record_decompose.sh: the full runs recorded no events" >&2; exit 1; }
  for m in $MODES; do
    awk -v e="$EV" '{ printf "%.3f\n", ($1 - $2 / 1000) * 1e9 / e }' "$W/runs.$m" >"$W/real.$m.prog"
    awk -v e="$EV" '{ printf "%.3f\n", $2 * 1e6 / e }' "$W/runs.$m" >"$W/real.$m.bg"
  done
  echo "rounds: $ROUNDS (medians; $MODES interleaved), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "$*: $EV events (ns per event)"
  split_lines real
  exit 0
fi

# the two synthetic programs, which print their own figures
field() { echo "$1" | tr ' ' '\n' | awk -F= -v k="$2" '$1 == k { print $2; exit }'; }
run() {
  local prog=$1 mode=$2; shift 2
  case $mode in
    native) "$K/bench/$prog" "$@" ;;
    hook) HATRACE_BENCH_SKIP=clock "$K/hatrace" record --no-figures -o "$W/t.hatf" -- "$K/bench/$prog" "$@" ;;
    clock) HATRACE_BENCH_SKIP=ring "$K/hatrace" record --no-figures -o "$W/t.hatf" -- "$K/bench/$prog" "$@" ;;
    ring) HATRACE_BENCH_SKIP=encode "$K/hatrace" record --no-figures -o "$W/t.hatf" -- "$K/bench/$prog" "$@" ;;
    full) "$K/hatrace" record --no-figures -o "$W/t.hatf" -- "$K/bench/$prog" "$@" ;;
  esac 2>/dev/null | grep -E '^ops=' | tail -1
  rm -f "$W"/t.hatf*
}

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

echo "rounds: $ROUNDS (medians; $MODES interleaved), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for prog in server_sim alloc_chain; do
  if [ $prog = server_sim ]; then
    echo "server_sim: $SIM_THREADS threads on $(nproc) cores, every core busy (ns per event)"
  else
    echo "alloc_chain: 1 thread, a core idle (ns per event)"
  fi
  split_lines $prog
done
