#!/usr/bin/env bash
# replay_window.sh — replay of a long multi-threaded trace, side by side in one
# run: hatrace stats on the trace (wall, CPU, peak resident), and hatrace replay
# of the same trace by two builds (before: the whole plan in memory; after: the
# plan in a file, compiled through windows), each with its compile time, the
# peak resident memory of hatrace's own process (VmHWM of the parent, polled;
# the allocator runs are child processes and are not in it) and the figures of
# each allocator. Runs interleaved: stats, before, after, ROUNDS times; medians.
#
#   bench/replay_window.sh [AFTER_BUILD [BEFORE_BUILD [TRACE [ROUNDS]]]]
#                          (default: build, none, a new server_sim trace, 1)
# Without TRACE, AFTER_BUILD/bench/server_sim is recorded (SIM_THREADS 8 threads,
# SIM_SECONDS 5 s: its length follows how much of server_sim's speed the recorder
# keeps, 64 M events once, 182 M on 2026-11-27; BEST=1 then runs convert --best on it, as
# the trace of issue 25 was). ALLOCATORS (glibc,jemalloc) are replayed.
# Compile time: the `compile:` figure replay prints (after), and for both
# builds the replay's wall time minus its runs' wall times ("all but runs":
# the compile, the children's start and their plan set-up).
set -eu
cd "$(dirname "$0")/.."
B=${1:-build}
OLD=${2:-}
TRACE=${3:-}
ROUNDS=${4:-1}
ALLOCATORS=${ALLOCATORS:-glibc,jemalloc}
[ -x "$B/hatrace" ] || { echo "build first: make -j2 B=$B all bench"; exit 1; }
[ -z "$OLD" ] || [ -x "$OLD/hatrace" ] || { echo "no $OLD/hatrace"; exit 1; }
command -v python3 >/dev/null || { echo "python3 is needed to read the JSON"; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
. bench/lib.sh  # median

if [ -z "$TRACE" ]; then
  [ -x "$B/bench/server_sim" ] || { echo "build first: make -j2 B=$B bench"; exit 1; }
  TRACE=$W/sim.hatf
  "$B/hatrace" record --no-figures -o "$TRACE" -- "$B/bench/server_sim" "${SIM_THREADS:-8}" "${SIM_SECONDS:-5}" \
      >/dev/null 2>"$W/rec.err" || { cat "$W/rec.err"; exit 1; }
  if [ "${BEST:-0}" = 1 ]; then
    "$B/hatrace" convert --best -o "$W/best.hatf" "$TRACE" && mv "$W/best.hatf" "$TRACE"
  fi
fi
events=$("$B/hatrace" stats --json "$TRACE" | python3 -c 'import json,sys; print(json.load(sys.stdin)["records"])' 2>/dev/null ||
         echo "?")
echo "trace: $TRACE ($(du -m "$TRACE" | cut -f1) MB, $events events); allocators: $ALLOCATORS"
echo "$(nproc) cores, load before: $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS round(s), medians"

# run CMD... ; writes $W/wall $W/cpu $W/hwm (peak resident KB of the process itself, polled)
run() {
  local t0 t1 pid hwm=0 h
  t0=$(date +%s%N)
  /usr/bin/time -f "%U %S" -o "$W/cpu.t" "$@" >"$W/out" 2>"$W/err" &
  pid=$!
  # the process time started (its child, the command)
  local cmd=""
  while kill -0 $pid 2>/dev/null; do
    [ -n "$cmd" ] || cmd=$(pgrep -P $pid | head -1 || true)
    if [ -n "$cmd" ]; then
      h=$(awk '/^VmHWM:/ { print $2 }' "/proc/$cmd/status" 2>/dev/null || true)
      [ -n "$h" ] && [ "$h" -gt "$hwm" ] && hwm=$h
    fi
    sleep 0.1
  done
  wait $pid || { cat "$W/err"; echo "failed: $*"; exit 1; }
  t1=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", (b - a) / 1e9 }' >"$W/wall"
  awk '{ printf "%.2f\n", $1 + $2 }' "$W/cpu.t" >"$W/cpu"
  echo "$hwm" >"$W/hwm"
}

builds="after:$B"
[ -n "$OLD" ] && builds="before:$OLD $builds"
for r in $(seq "$ROUNDS"); do
  run "$B/hatrace" stats "$TRACE"
  cat "$W/wall" >>"$W/stats.wall"; cat "$W/cpu" >>"$W/stats.cpu"; cat "$W/hwm" >>"$W/stats.hwm"
  for nb in $builds; do
    n=${nb%%:*} b=${nb#*:}
    run "$b/hatrace" replay --allocator "$ALLOCATORS" --json "$TRACE"
    cat "$W/wall" >>"$W/$n.wall"; cat "$W/hwm" >>"$W/$n.hwm"
    cp "$W/out" "$W/$n.$r.json"
    python3 - "$W/out" "$(cat "$W/wall")" >>"$W/$n.fig" <<'EOF'
import json, sys
rs = json.load(open(sys.argv[1]))
runs = sum(r["wall_s"] for r in rs)
c = rs[0].get("compile_s")
print("allbut %.2f" % (float(sys.argv[2]) - runs))
print("compile %s" % ("%.2f" % c if c is not None else "-"))
print("compilecpu %s" % ("%.2f" % rs[0]["compile_cpu_s"] if "compile_cpu_s" in rs[0] else "-"))
for r in rs:
    a = r["allocator"]
    for k in ("ops", "calls", "ns_per_op", "peak_live_bytes", "peak_rss_bytes", "frag_time_avg",
              "frag_at_peak_live", "frag_peak_over_peak", "plan_stalls"):
        if k in r: print("%s.%s %s" % (a, k, r[k]))
EOF
  done
done

med() { median <"$1"; }
fig() { local v; v=$(awk -v k="$2" '$1 == k { print $2 }' "$W/$1.fig" | grep -v '^-$' | median); echo "${v:--}"; }
mb() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
printf '\n%-44s %14s' "" "stats"
for nb in $builds; do printf ' %16s' "replay ${nb%%:*}"; done
printf '\n%-44s %14s' "wall time, s" "$(med "$W/stats.wall")"
for nb in $builds; do printf ' %16s' "$(med "$W/${nb%%:*}.wall")"; done
printf '\n%-44s %14s' "CPU time (stats) / compile CPU (after), s" "$(med "$W/stats.cpu")"
for nb in $builds; do printf ' %16s' "$(fig "${nb%%:*}" compilecpu)"; done
printf '\n%-44s %14s' "compile, s (printed by replay)" "-"
for nb in $builds; do printf ' %16s' "$(fig "${nb%%:*}" compile)"; done
printf '\n%-44s %14s' "all but the runs, s" "-"
for nb in $builds; do printf ' %16s' "$(fig "${nb%%:*}" allbut)"; done
printf '\n%-44s %14s' "peak resident of the hatrace process, MB" "$(mb "$(med "$W/stats.hwm")")"
for nb in $builds; do printf ' %16s' "$(mb "$(med "$W/${nb%%:*}.hwm")")"; done
echo
for a in ${ALLOCATORS//,/ }; do
  for k in ops calls ns_per_op peak_live_bytes peak_rss_bytes frag_time_avg frag_at_peak_live frag_peak_over_peak plan_stalls; do
    printf '%-44s %14s' "$a $k" ""
    for nb in $builds; do printf ' %16s' "$(fig "${nb%%:*}" "$a.$k")"; done
    echo
  done
done
s=$(med "$W/stats.wall")
a=$(fig after compile)
h=$(mb "$(med "$W/after.hwm")")
echo
echo "bar: compile at least as fast as stats reads: compile $a s, stats $s s: $(awk -v a="$a" -v s="$s" 'BEGIN { print (a <= s) ? "met" : "not met" }')"
echo "bar: hatrace's own peak resident at most 256 MB: $h MB: $(awk -v h="$h" 'BEGIN { print (h <= 256) ? "met" : "not met" }')"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
