#!/usr/bin/env bash
# Crash consistency: rel_progress runs under the preload and is killed with
# SIGKILL at a random moment, 20 times (RELIABILITY_TRIALS overrides; make
# stress runs 200). After each kill:
#   * validate reads the trace and names what is missing (the index, or a cut
#     chunk, with the records a cut address chunk takes) and nothing else;
#   * every malloc the program had counted FLUSH_MS + MARGIN_MS before the
#     kill is in the trace (its progress lines carry a monotonic time; the
#     kill time is read just before the kill, so it is a lower bound).
# The margin is generous for a loaded 2-core machine: the recorder promises
# one flush interval (drain + compress + write); the margin absorbs
# scheduling delay of the flusher and of the progress thread. The largest lag
# seen is printed ("lag": kill time minus the newest progress line fully
# present in the trace).
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/rel_progress
[ -x "$prog" ] || { echo "workload not built"; exit 77; }
trials=${RELIABILITY_TRIALS:-20}
FLUSH_MS=50 MARGIN_MS=250
max_lag=0 checked=0
for i in $(seq 1 "$trials"); do
  rm -f "$W/k.hatf" "$W/prog.txt"
  HATRACE_FLUSH_MS=$FLUSH_MS HATRACE_OUTPUT="$W/k.hatf" LD_PRELOAD=$HATRACE_LIB \
    "$prog" 2 >"$W/prog.txt" 2>"$W/prog.err" &
  pid=$!
  # 0.40 .. 1.19 s: past the first flush, and at any phase of the flush cycle
  sleep "$(printf '0.%02d' $((40 + RANDOM % 60)))"
  [ $((RANDOM % 4)) -eq 0 ] && sleep 0.4
  now=$("$prog" now)
  kill -KILL $pid
  wait $pid 2>/dev/null
  [ -s "$W/prog.err" ] && fail "trial $i: the recorder complained: $(cat "$W/prog.err")"
  [ -f "$W/k.hatf" ] || fail "trial $i: no trace"
  "$HATRACE" validate "$W/k.hatf" >"$W/val.txt" 2>&1
  # it says what is missing, and nothing else: the index, or a chunk cut by the
  # kill; a kill inside a group's address chunk (the write was cut between a
  # group's two chunks) also names the records chunk whose events that takes,
  # and the index the cut file never got: at most those three, one of each
  missing='index missing: file ended without a trailer|chunk truncated \(needs [0-9]+ bytes, [0-9]+ present\)'
  skipped='records chunk \(thread [0-9]+, group [0-9]+, [0-9]+ events\) has no intact address chunk; its events are skipped'
  problems=$(grep -c ': container damage: ' "$W/val.txt")
  other=$(grep -v -e ': container damage: ' -e 'records, [1-3] problems\?$' "$W/val.txt")
  unexplained=$(grep ': container damage: ' "$W/val.txt" | grep -vE "$missing|$skipped")
  kinds=$(grep ': container damage: ' "$W/val.txt" | grep -oE 'index missing|chunk truncated|has no intact address chunk' | sort | uniq -d)
  if [ "$problems" -lt 1 ] || [ "$problems" -gt 3 ] || [ -n "$other" ] || [ -n "$unexplained" ] || [ -n "$kinds" ] ||
     ! grep -qE "$missing" "$W/val.txt"; then
    cat "$W/val.txt"; fail "trial $i: validate did not say exactly what is missing"
  fi
  got=$("$HATRACE" dump "$W/k.hatf" | awk '$4 == "alloc" && $5 == 4321 { a++ } END { print a + 0 }')
  # need: the count of the newest line older than FLUSH_MS + MARGIN_MS
  read -r need need_t lag < <(awk -v now="$now" -v got="$got" -v old=$(( (FLUSH_MS + MARGIN_MS) * 1000000 )) '
    $1 == "P" && $2 + old <= now { need = $3; need_t = $2 }
    $1 == "P" && $3 <= got { t = $2 }
    END { printf "%d %d %d\n", need, need_t, t ? (now - t) / 1000000 : -1 }' "$W/prog.txt")
  echo "trial $i: trace $got mallocs, program had $need at $(( FLUSH_MS + MARGIN_MS )) ms before the kill; lag ${lag} ms"
  [ "$need_t" -gt 0 ] || fail "trial $i: no progress line older than $(( FLUSH_MS + MARGIN_MS )) ms"
  [ "$got" -ge "$need" ] || fail "trial $i: $((need - got)) mallocs older than $(( FLUSH_MS + MARGIN_MS )) ms are missing"
  [ "$lag" -gt "$max_lag" ] && max_lag=$lag
  checked=$((checked + 1))
done
echo "reliability_kill: $checked kills, every trace readable, largest lag $max_lag ms (flush interval $FLUSH_MS ms)"
