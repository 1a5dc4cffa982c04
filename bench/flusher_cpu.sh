#!/usr/bin/env bash
# flusher_cpu.sh — the recorder's flusher thread (hatrace-flush) and its encoding
# helper (hatrace-encode) on a real program, two builds side by side:
#   cpu   redis-server recorded under redis-benchmark as in record_programs.sh;
#         each thread's CPU time (/proc/PID/task/TID/schedstat, read just
#         before the server shuts down, so the exit drain is left out) per event
#         of the trace. ROUNDS rounds, the builds interleaved; per build the
#         medians and the values.
#   ir    instructions of the flusher's drain_ring itself (ring read and the raw
#         event's conversion; the writer's calls excluded) per event, counted by
#         callgrind on examples/kvstore (repeatable on a loaded machine).
#
#   bench/flusher_cpu.sh BUILD_A BUILD_B [ROUNDS]     (default ROUNDS 5)
# REDIS_REQUESTS sets the benchmark's request count (default 100000: ~6.2 M events);
# RECORD_OPTS adds options to hatrace record (e.g. --stacks).
set -eu
cd "$(dirname "$0")/.."
A=$1 B=$2 ROUNDS=${3:-5}
REQS=${REDIS_REQUESTS:-100000}
for b in "$A" "$B"; do
  [ -x "$b/hatrace" ] && [ -f "$b/libhatrace.so" ] || { echo "build first: make B=$b"; exit 1; }
done
command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null || { echo "needs redis-server and redis-tools"; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

flusher_ns_per_event() { # build -> "flusher helper" ns per event
  local d port pid i t ns=0 hs=0 ev
  d=$(mktemp -d "$W/r.XXXX") port=$((18000 + RANDOM % 1000))
  "$1/hatrace" record ${RECORD_OPTS:-} -o "$d/t.hatf" -- redis-server --port "$port" --bind 127.0.0.1 --save "" \
      --appendonly no --dir "$d" >/dev/null 2>"$d/err" & pid=$!
  for i in $(seq 200); do redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
  redis-benchmark -p "$port" -n "$REQS" -q -c 16 -P 16 -r 100000 -d 64 -t set,get,lpush,lpop,sadd,hset >/dev/null
  local rpid; rpid=$(pgrep -P "$pid" redis-server || echo "$pid")
  for t in /proc/"$rpid"/task/*; do
    case "$(cat "$t/comm" 2>/dev/null)" in
      hatrace-flush) ns=$(cut -d' ' -f1 "$t/schedstat");;
      hatrace-encode) hs=$(cut -d' ' -f1 "$t/schedstat");;
    esac
  done
  redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
  wait "$pid" || true
  ev=$("$1/hatrace" stats "$d/t.hatf" | awk '/^records/ {print $2}')
  [ "$ns" != 0 ] && [ -n "$ev" ] || { echo "no flusher thread or no trace ($1)" >&2; exit 1; }
  rm -rf "$d"
  awk -v n="$ns" -v h="$hs" -v e="$ev" 'BEGIN { printf "%.1f %.1f\n", n / e, h / e }'
}

. bench/lib.sh  # median (the script runs from the project root)

fa="" fb="" ha="" hb="" sa="" sb=""
for r in $(seq "$ROUNDS"); do
  read -r f h <<<"$(flusher_ns_per_event "$A")"
  fa="$fa $f" ha="$ha $h" sa="$sa $(awk -v a="$f" -v b="$h" 'BEGIN { print a + b }')"
  read -r f h <<<"$(flusher_ns_per_event "$B")"
  fb="$fb $f" hb="$hb $h" sb="$sb $(awk -v a="$f" -v b="$h" 'BEGIN { print a + b }')"
done
echo "cpu: ns/event of the flusher, its encoding helper and both, redis-server, $ROUNDS rounds interleaved"
echo "  $A: flusher $(echo "$fa" | median) + helper $(echo "$ha" | median), both $(echo "$sa" | median)"
echo "      flusher ($fa ) helper ($ha )"
echo "  $B: flusher $(echo "$fb" | median) + helper $(echo "$hb" | median), both $(echo "$sb" | median)"
echo "      flusher ($fb ) helper ($hb )"

if command -v valgrind >/dev/null; then
  echo "ir: drain_ring's own instructions per event, examples/kvstore 100000 (flusher thread)"
  for b in "$A" "$B"; do
    rm -f "$W"/cg.* "$W"/k.*
    valgrind --tool=callgrind --trace-children=yes --separate-threads=yes --callgrind-out-file="$W/cg.%p" \
      env LD_PRELOAD="$(realpath "$b/libhatrace.so")" HATRACE_OUTPUT="$W/k.%p.hatf" "$b/examples/kvstore" 100000 \
      >/dev/null 2>&1
    ir=0
    for f in "$W"/cg.*-*; do  # the flusher's file is the one with drain_ring in it
      x=$(callgrind_annotate "$f" 2>/dev/null | awk '/flusher.c:drain_ring / {gsub(",", "", $1); print $1; exit}')
      [ -n "$x" ] && ir=$x
    done
    ev=0
    for t in "$W"/k.*; do
      n=$("$b/hatrace" stats "$t" 2>/dev/null | awk '/^records/ {print $2}')
      ev=$((ev + ${n:-0}))
    done
    awk -v i="$ir" -v e="$ev" -v b="$b" 'BEGIN { printf "  %s: %.1f (%d events)\n", b, e ? i / e : 0, e }'
  done
fi
