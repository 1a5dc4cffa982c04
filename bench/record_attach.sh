#!/usr/bin/env bash
# record_attach.sh — the recorder's cost on a process it was attached to
# (hatrace record -p) against the same program under LD_PRELOAD, and native.
#
#   bench/record_attach.sh [BUILD_DIR [RUNS [ROUNDS]]]   (default: build 7 50)
#
# The program is tests/workloads/attach_server (4 worker threads, 19 heap calls
# an iteration, 500 iterations a round each). Each run starts it, serves a
# warm-up round, then (mode "attach") attaches hatrace record -p, serves a second
# warm-up round, pauses 0.5 s (past the writer's opening, 100 ms after the
# recorder starts: at the program's start under LD_PRELOAD, at the attach here),
# and times ROUNDS rounds inside the program ("bench N"): their wall time, and
# the CPU time of all the process's threads (the recorder's among them), not
# starting, attaching or closing. Modes run interleaved, RUNS times each; the
# medians are printed, with the recorder's cost per call (recorded less native).
# RECORD_OPTS: more hatrace record options for both recorded modes (e.g.
# --effort fast). Not a test: the figures depend on the machine's load.
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
BUILD=${1:-build}
RUNS=${2:-7}
ROUNDS=${3:-50}
prog=$BUILD/workloads/attach_server
hatrace=$BUILD/hatrace
lib=$BUILD/libhatrace.so
for f in "$prog" "$hatrace" "$lib"; do
  [ -e "$f" ] || { echo "missing $f: make -j2 && make -j2 tests" >&2; exit 1; }
done
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

wait_line() {  # wait_line FILE PATTERN: 120 s at most
  local i
  for ((i = 0; i < 1200; i++)); do
    grep -q -- "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "timed out waiting for '$2' in $1" >&2
  exit 1
}

wait_rounds() {  # wait_rounds N: N rounds answered in full
  local i
  for ((i = 0; i < 1200; i++)); do
    [ "$(grep -c '^end$' "$W/out")" -ge "$1" ] && return 0
    sleep 0.1
  done
  echo "timed out waiting for round $1" >&2
  exit 1
}

# one_run MODE: the ROUNDS rounds' wall time in ns on stdout
one_run() {
  local mode=$1 pid rpid=
  rm -f "$W/in" "$W"/*.hatf
  mkfifo "$W/in"
  : >"$W/out"
  if [ "$mode" = preload ]; then
    "$hatrace" record --no-figures ${RECORD_OPTS:-} -o "$W/p.hatf" -- "$prog" <"$W/in" >"$W/out" 2>"$W/rec.err" &
  else
    "$prog" <"$W/in" >"$W/out" 2>/dev/null &
  fi
  exec 3>"$W/in"
  wait_line "$W/out" '^ready$'
  pid=$(pgrep -n -f "^$prog\$")
  echo round >&3
  wait_rounds 1
  if [ "$mode" = attach ]; then
    "$hatrace" record --no-figures ${RECORD_OPTS:-} -p "$pid" -o "$W/a.%p.hatf" 2>"$W/rec.err" &
    rpid=$!
    wait_line "$W/rec.err" "attached to process"
  fi
  # steady state in every mode: the writer opens 100 ms after the recorder
  # starts (its clock calibration), at the program's start under LD_PRELOAD,
  # at the attach here; a second warm-up round and a pause take both past it
  echo round >&3
  wait_rounds 2
  sleep 0.5
  echo "bench $ROUNDS" >&3
  wait_line "$W/out" '^bench '
  awk '$1 == "bench" { print $2, $3 }' "$W/out"
  if [ -n "$rpid" ]; then
    kill -INT "$rpid"
    wait "$rpid"
  fi
  echo quit >&3
  exec 3>&-
  wait || true
  # the share of events the recorder coded fast (docs/recorder.md, "Effort")
  [ "$mode" = native ] || sed -n 's/.* \([0-9.]*\)% of events coded fast.*/\1/p' "$W/rec.err" >>"$W/f.$mode"
}

for mode in native preload attach; do : >"$W/t.$mode"; : >"$W/f.$mode"; done
for ((r = 1; r <= RUNS; r++)); do
  for mode in native preload attach; do
    one_run "$mode" >>"$W/t.$mode"
  done
done
calls=$((ROUNDS * 4 * 500 * 19))
echo "attach_server: $ROUNDS rounds, $calls heap calls, median of $RUNS runs"
for col in 1 2; do
  what=$([ $col = 1 ] && echo "wall time" || echo "CPU time (all the process's threads, the recorder's too)")
  n=$(cut -d' ' -f$col "$W/t.native" | median)
  p=$(cut -d' ' -f$col "$W/t.preload" | median)
  a=$(cut -d' ' -f$col "$W/t.attach" | median)
  awk -v w="$what" -v n="$n" -v p="$p" -v a="$a" -v c="$calls" 'BEGIN {
    printf "%s (ms): native %.1f  LD_PRELOAD %.1f  attached %.1f\n", w, n / 1e6, p / 1e6, a / 1e6
    printf "  recorder cost per call: LD_PRELOAD %.1f ns, attached %.1f ns; attached / LD_PRELOAD %.3f\n",
           (p - n) / c, (a - n) / c, a / p
  }'
done
echo "events coded fast (%, median): LD_PRELOAD $(median <"$W/f.preload"), attached $(median <"$W/f.attach")"
for mode in native preload attach; do echo "$mode runs (wall,cpu ns): $(tr ' \n' ', ' <"$W/t.$mode")"; done
