#!/usr/bin/env bash
# record_programs.sh — the recorder on real programs, side by side in one run:
# native vs hatrace record vs heaptrack, wall-time ratios (medians of RUNS) and
# trace bytes per event, and the events the recorder reported not recorded
# (dropped) over all its runs.
#
#   bench/record_programs.sh [--stacks] [--idle-flusher] [BUILD_DIR [RUNS]]  (default: build 3)
#
# --stacks adds hatrace record --stacks as a mode (bench/record_stacks.sh).
# hatrace record runs with --no-figures: its closing figures read the trace back
# once more after the program (about 0.1 s per million events), which is not the
# recorder's cost on the program (docs/recorder.md).
# --idle-flusher adds an experiment, mode "idle": hatrace record with its flusher
# thread (hatrace-flush) moved to SCHED_IDLE by chrt once it exists, so it only
# runs on a CPU nothing else wants (docs/recorder.md says why it is not the default).
# Programs: an allocation-heavy python3 script (PYTHONMALLOC=malloc, so every
# object goes through malloc, in all three modes), and redis-server on
# 127.0.0.1 driven by redis-benchmark with a bounded request count (the time is
# the client's; the server is the traced program). redis-server/redis-tools are
# installed from Debian if missing. heaptrack records call stacks too and keeps
# no object identity (it folds frees into allocation sites), so its file size is
# a yardstick, not a like-for-like format comparison.
set -eu
cd "$(dirname "$0")/.."
MODES="native hatrace heaptrack"
while [ $# -gt 0 ]; do
  case $1 in
    --stacks) MODES=${MODES/hatrace/hatrace stacks}; shift;;
    --idle-flusher) MODES=${MODES/hatrace/hatrace idle}; shift;;
    *) break;;
  esac
done
B=${1:-build}
RUNS=${2:-3}
HATRACE=$PWD/$B/hatrace
[ -x "$HATRACE" ] && [ -f "$B/libhatrace.so" ] || { echo "build first: make B=$B"; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
have_heaptrack=1
command -v heaptrack >/dev/null || have_heaptrack=0
if ! command -v redis-server >/dev/null || ! command -v redis-benchmark >/dev/null; then
  echo "installing redis-server and redis-tools from Debian..."
  if [ "$(id -u)" = 0 ]; then apt-get install -y -q redis-server redis-tools >/dev/null 2>&1 || true
  else sudo -n apt-get install -y -q redis-server redis-tools >/dev/null 2>&1 || true; fi
fi

now() { date +%s%N; }
# idle mode: move the flusher of the traced process (the only one running) to
# SCHED_IDLE as soon as it exists; in the background, so the timing goes on
idle_flusher() {
  ( for _ in $(seq 500); do
      for t in /proc/[0-9]*/task/*; do
        read -r c <"$t/comm" 2>/dev/null || continue
        [ "$c" = hatrace-flush ] && chrt --idle -p 0 "${t##*/}" && exit 0
      done
      sleep 0.01
    done ) >/dev/null 2>&1 &
}
. bench/lib.sh  # median (the script runs from the project root)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
ms() { awk -v a="$1" 'BEGIN { printf "%.0f", a / 1e6 }'; }

# ---- python3 -----------------------------------------------------------------
PY=$(python3 -c 'import sys; print(sys.executable)')  # the binary, not a wrapper script
cat >"$W/alloc.py" <<'PY'
# build and tear down many small objects: dicts, lists, strings, tuples
d = {}
for i in range(200000):
    d["k%d" % i] = [i, str(i), (i, i + 1)]
for i in range(0, 200000, 2):
    del d["k%d" % i]
s = sorted(d.items(), key=lambda kv: kv[1][0] % 1000)
t = "".join(v[1] for k, v in s[:50000])
print(len(d), len(t))
PY
export PYTHONMALLOC=malloc

run_py() { # mode run -> ns
  local t0 t1
  mkdir -p "$W/py.$1.$2" && cd "$W/py.$1.$2"
  t0=$(now)
  case $1 in
    native) "$PY" "$W/alloc.py" >/dev/null;;
    hatrace) "$HATRACE" record --no-figures -o "$W/py.$1.$2/t.hatf" -- "$PY" "$W/alloc.py" >/dev/null 2>"$W/py.$1.$2/rec.err";;
    idle) idle_flusher; "$HATRACE" record --no-figures -o "$W/py.$1.$2/t.hatf" -- "$PY" "$W/alloc.py" >/dev/null 2>"$W/py.$1.$2/rec.err"; wait;;
    stacks) "$HATRACE" record --no-figures --stacks -o "$W/py.$1.$2/t.hatf" -- "$PY" "$W/alloc.py" >/dev/null 2>"$W/py.$1.$2/rec.err";;
    heaptrack) heaptrack "$PY" "$W/alloc.py" >/dev/null 2>&1;;
  esac
  t1=$(now)
  cd - >/dev/null
  echo $((t1 - t0))
}

# ---- redis -------------------------------------------------------------------
REQS=${REDIS_REQUESTS:-100000}
run_redis() { # mode run -> ns of the benchmark client
  local port=$((17000 + RANDOM % 1000)) pid t0 t1 i
  local dir="$W/redis.$1.$2"
  mkdir -p "$dir" && cd "$dir"
  local args=(--port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir")
  case $1 in
    native) redis-server "${args[@]}" >/dev/null 2>&1 & pid=$!;;
    hatrace) "$HATRACE" record --no-figures -o "$dir/t.hatf" -- redis-server "${args[@]}" >/dev/null 2>"$dir/rec.err" & pid=$!;;
    idle) "$HATRACE" record --no-figures -o "$dir/t.hatf" -- redis-server "${args[@]}" >/dev/null 2>"$dir/rec.err" & pid=$!; idle_flusher; ipid=$!;;
    stacks) "$HATRACE" record --no-figures --stacks -o "$dir/t.hatf" -- redis-server "${args[@]}" >/dev/null 2>"$dir/rec.err" & pid=$!;;
    heaptrack) heaptrack redis-server "${args[@]}" >/dev/null 2>&1 & pid=$!;;
  esac
  for i in $(seq 200); do redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
  [ "$1" = idle ] && wait "$ipid"  # the flusher is idle before the clock starts
  t0=$(now)
  redis-benchmark -p "$port" -n "$REQS" -q -c 16 -P 16 -r 100000 -d 64 -t set,get,lpush,lpop,sadd,hset >/dev/null
  t1=$(now)
  redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
  wait $pid || true
  cd - >/dev/null
  echo $((t1 - t0))
}

events_of() { awk '/hatrace: [0-9]+ trace/ { print $4 }' "$1" | tr -d ,; }
# events the recorder reported not recorded, over the given runs' summaries
dropped_of() { cat "$@" 2>/dev/null | awk '/hatrace: [0-9]+ trace/ { for (i = 2; i <= NF; i++) if ($i ~ /^dropped/) d += $(i - 1) }
                                              END { print d + 0 }'; }
size_of() { stat -c %s "$@" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }

report() { # name runner
  local name=$1 fn=$2 m r
  declare -A t med
  for m in $MODES; do t[$m]=""; done
  for r in $(seq "$RUNS"); do  # interleaved: machine noise hits every mode alike
    for m in $MODES; do
      [ $m = heaptrack ] && [ $have_heaptrack = 0 ] && continue
      t[$m]+="$($fn $m $r) "
    done
  done
  for m in $MODES; do med[$m]=$(echo ${t[$m]:-0} | tr ' ' '\n' | median); done
  local nat=${med[native]} line="" over=""
  for m in $MODES; do
    [ $m = native ] && line+="native $(ms $nat) ms" && continue
    line+=" | $m $(ms ${med[$m]}) ms ($(ratio ${med[$m]} $nat)x)"
    # heaptrack's overhead over ours, per hatrace mode
    [ $m = heaptrack ] || over+=" | overhead heaptrack/$m $(awk -v a="${med[heaptrack]:-0}" -v b="${med[$m]}" -v n="$nat" \
      'BEGIN { if (b > n) printf "%.1f", (a - n) / (b - n); else print "inf" }')x"
  done
  printf '%-6s %s%s\n' "$name" "$line" "$over"
  # each round's ratio to native in the same round: a slow spell of the host hits both
  local rr="" rs
  for m in $MODES; do
    [ $m = native ] || [ -z "${t[$m]}" ] && continue
    rs=$(paste -d' ' <(echo ${t[native]} | tr ' ' '\n') <(echo ${t[$m]} | tr ' ' '\n') | awk '{ printf "%.2f\n", $2 / $1 }')
    rr+=" | $m $(echo $rs) (median $(echo "$rs" | median | awk '{ printf "%.2f", $1 }'))"
  done
  printf '%-6s per round vs native: %s\n' "" "${rr# | }"
  local ev hb hk sb
  ev=$(events_of "$W"/$name.hatrace.1/rec.err)
  hb=$(size_of "$W"/$name.hatrace.1/t.hatf*)
  hk=$(size_of "$W"/$name.heaptrack.1/heaptrack.*)
  printf '%-6s events %s | hatrace %s bytes (%s B/event) | heaptrack %s bytes (%s B/event)' "" "$ev" "$hb" \
    "$(awk -v a="$hb" -v e="$ev" 'BEGIN { printf "%.2f", a / e }')" "$hk" \
    "$(awk -v a="$hk" -v e="$ev" 'BEGIN { printf "%.2f", a / e }')"
  if [ -d "$W/$name.stacks.1" ]; then
    sb=$(size_of "$W"/$name.stacks.1/t.hatf*)
    printf ' | --stacks %s bytes (%s B/event)' "$sb" "$(awk -v a="$sb" -v e="$ev" 'BEGIN { printf "%.2f", a / e }')"
  fi
  local recs=("$W"/$name.*/rec.err)
  printf ' | dropped %s (all %s hatrace recordings)\n' "$(dropped_of "${recs[@]}")" "${#recs[@]}"
}

echo "runs: $RUNS (medians), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
report py run_py
if command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null; then
  echo "redis-benchmark: $REQS requests x 6 tests, 16 clients, pipeline 16, 64-byte values"
  report redis run_redis
else
  echo "redis: redis-server/redis-benchmark not available, skipped"
fi
