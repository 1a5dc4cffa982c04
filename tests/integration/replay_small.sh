#!/usr/bin/env bash
# Replay the checked-in text trace under every installed allocator (and null),
# per trace thread and on one thread: the op count must equal the trace's
# operation records and peak_live_bytes must equal `hatrace stats`'s
# max_live_bytes (7264, worked out by hand in the trace's comment).
set -u
here=$(cd "$(dirname "$0")" && pwd)
trace=$here/replay_small.txt
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
num() { grep -o "\"$1\": [0-9]*" | head -1 | grep -o '[0-9]*$'; }  # first value of a JSON key

[ -x "$HATRACE" ] || { echo "no hatrace binary"; exit 77; }
if "$HATRACE" stats --json --from text "$trace" >"$work/stats.json" 2>/dev/null; then
  s_ops=$(( $(num allocs <"$work/stats.json") + $(num frees <"$work/stats.json") + $(num reallocs <"$work/stats.json") ))
  s_peak=$(num max_live_bytes <"$work/stats.json")
  [ "$s_ops" = 16 ] && [ "$s_peak" = 7264 ] || fail "stats disagrees with the hand count: ops $s_ops peak $s_peak"
else
  echo "hatrace stats not built yet: comparing with the hand count only"; s_ops=16; s_peak=7264; stats_missing=1
fi

allocs=null,glibc
for a in jemalloc tcmalloc mimalloc; do
  "$HATRACE" replay --from text --allocator $a --touch none "$trace" >/dev/null 2>&1 && allocs=$allocs,$a
done
echo "allocators: $allocs"
for threads in trace 1; do
  "$HATRACE" replay --from text --threads $threads --allocator $allocs --json \
      --series "$work/s.csv" "$trace" >"$work/out.json" 2>"$work/err" || { cat "$work/err"; fail "replay --threads $threads"; }
  n=$(grep -c '"allocator"' "$work/out.json")
  [ "$n" = $(( $(tr -cd , <<<"$allocs" | wc -c) + 1 )) ] || fail "expected one object per allocator, got $n"
  [ "$(grep -o '"ops": [0-9]*' "$work/out.json" | sort -u)" = "\"ops\": $s_ops" ] || fail "ops differ from $s_ops"
  [ "$(grep -o '"peak_live_bytes": [0-9]*' "$work/out.json" | sort -u)" = "\"peak_live_bytes\": $s_peak" ] \
      || fail "peak_live_bytes differs from $s_peak"
  [ "$(grep -o '"calls": [0-9]*' "$work/out.json" | sort -u)" = '"calls": 17' ] || fail "calls != 17"
  grep -q "\"threads\": \"$threads\"" "$work/out.json" || fail "thread mode not printed"
  grep -q '"touch": "page"' "$work/out.json" || fail "touch not printed"
  want_threads=$([ $threads = trace ] && echo 2 || echo 1)
  grep -q "\"runner_threads\": $want_threads" "$work/out.json" || fail "runner threads"
  head -1 "$work/s.csv" | grep -qx 'allocator,op,live_bytes,rss_bytes' || fail "series header"
  for a in ${allocs//,/ }; do
    tail_row=$(grep "^$a," "$work/s.csv" | tail -1)
    [ "${tail_row#$a,17,0,}" != "$tail_row" ] || fail "series of $a does not end at op 17 with live 0: $tail_row"
  done
done

# the table names the modes and the compiler's counts
"$HATRACE" replay --from text --allocator null --touch all --repeat 3 "$trace" >"$work/table" || fail "table"
grep -q 'touch: all' "$work/table" && grep -q 'repeat: 3' "$work/table" && grep -q '3 cross-thread waits' "$work/table" \
    && grep -q 'free(NULL) replayed: 1; failed allocations skipped: 1; realloc(p,0) replayed as free: 1' "$work/table" \
    || { cat "$work/table"; fail "table header lines"; }

# errors: one line on stderr, exit 1 (bad input) or 2 (bad usage)
"$HATRACE" replay --allocator nosuch --from text "$trace" >/dev/null 2>"$work/err"; [ $? = 1 ] || fail "unknown allocator exit"
[ "$(wc -l <"$work/err")" = 1 ] && grep -q "unknown allocator 'nosuch'" "$work/err" || fail "unknown allocator message"
"$HATRACE" replay --touch some "$trace" >/dev/null 2>&1; [ $? = 2 ] || fail "bad --touch exit"
printf '#hatrace-text 1\n1 1 0 alloc 8 0x10 func=malloc\n2 1 0 free 0x20\n' >"$work/bad.txt"
"$HATRACE" replay --allocator null --from text "$work/bad.txt" >/dev/null 2>"$work/err"; [ $? = 1 ] || fail "bad trace exit"
[ "$(wc -l <"$work/err")" = 1 ] && grep -q 'record 1: free of 0x20 on thread 1, which is not live' "$work/err" \
    || { cat "$work/err"; fail "bad trace message"; }

# null's region starts again at its base: a thread allocating 168 MiB in all
# (one live at a time, the largest 8 MiB) replays in a bounded region
{
  echo '#hatrace-text 1'
  for i in $(seq 40); do echo "$((2 * i)) 1 0 alloc 4194304 0x$((1000 + i))000"; echo "$((2 * i + 1)) 1 0 free 0x$((1000 + i))000"; done
  echo "100 1 0 alloc 8388608 0x9000000"; echo "101 1 0 free 0x9000000"
} >"$work/big.txt"
"$HATRACE" replay --from text --allocator null --touch all --json "$work/big.txt" >"$work/big.json" 2>"$work/err" \
    || { cat "$work/err"; fail "null replay of 168 MiB"; }
grep -q '"ops": 82' "$work/big.json" || fail "null: ops != 82"
grep -q 'returned NULL' "$work/big.json" "$work/err" && fail "null: allocations failed"
rss=$(num peak_rss_bytes <"$work/big.json")
[ "$rss" -lt $((120 << 20)) ] || fail "null's resident memory grew with the trace: $rss bytes"

# a chart, when gnuplot is there
if command -v gnuplot >/dev/null; then
  "$HATRACE" replay --from text --allocator null,glibc --plot "$work/m.svg" "$trace" >/dev/null || fail "plot"
  grep -q '<svg' "$work/m.svg" || fail "plot is not an svg"
fi
[ -n "${stats_missing:-}" ] && exit 77
echo ok
