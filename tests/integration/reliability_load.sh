#!/usr/bin/env bash
# Load: 64 threads calling malloc/free flat out for 3 s, then a storm of
# 10,000 short-lived threads (100 alive at a time). Each must finish in
# bounded time (no deadlock: a timeout fails the test), lose no event (the
# trace's per-thread counts equal the program's own counts and glibc's at
# each thread's exit, nothing dropped)
# and keep the tracer's memory bounded:
#   flat:  peak resident size <= the rings of 64 threads (8 of the default 2 MiB,
#          8 of 1 MiB, 16 of 512 KiB, 32 of 256 KiB: 40 MiB)
#          + 64 pending chunk groups of the writer (at most 65536 events each,
#          under 1 MiB encoded; more are pending when the flusher lags on a
#          loaded machine) + 128 MiB for zstd, glibc's arenas and the program;
#   storm: resident size sampled every 1000 threads <= 24 MiB + 1 KiB per
#          thread created (rings of exited threads are drained and reused,
#          without reuse they alone would need 12 GiB; the writer frees an
#          ended thread's buffers and keeps only its index entries).
# RELIABILITY_LOAD_MS and RELIABILITY_STORM override the duration and the
# number of threads (make stress: 10 s and 50,000).
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/rel_load
[ -x "$prog" ] || { echo "workload not built"; exit 77; }
ms=${RELIABILITY_LOAD_MS:-3000}
storm=${RELIABILITY_STORM:-10000}

exit_frees=$(exit_frees) || exit

check_counts() { # name: per-thread allocs and frees of threads >= 2 == the program's
  local name=$1
  "$HATRACE" stats "$W/$name.hatf" >"$W/$name.stats" || fail "$name: stats"
  grep -q '^complete  *yes$' "$W/$name.stats" || fail "$name: trace incomplete"
  grep -q '^dropped  *0$' "$W/$name.stats" || fail "$name: events dropped"
  awk '$1 ~ /^[0-9]+$/ && $1 >= 2 && NF >= 6 { a += $(NF-3); f += $(NF-2) }
       END { print "mallocs", a + 0; print "frees", f + 0 }' "$W/$name.stats" >"$W/$name.got"
  local threads; threads=$(awk '$1 == "threads" { print $2 }' "$W/$name.out")
  # and glibc's frees at each thread's exit (record_lib.inc's exit_frees)
  grep -E '^(mallocs|frees) ' "$W/$name.out" |
    awk -v x="$((exit_frees * threads))" '$1 == "frees" { $2 += x } { print }' >"$W/$name.want"
  compare "$W/$name.want" "$W/$name.got" || fail "$name: counts differ"
  grep -q "^thread events  *$((threads + 1)) create, $((threads + 1)) destroy$" "$W/$name.stats" ||
    fail "$name: thread events differ from $threads threads"
}

# The timeouts bound the recording (a deadlock), not record's read-back of
# the figures at the end (--no-figures; check_counts reads the trace): the
# flat trace holds ~70 M events, whose read-back alone took 23 s of CPU under
# ASan (5 s without), past the timeout on a loaded machine (make
# check-sanitizers: this test's flake)
start=$SECONDS
timeout $((ms / 1000 + 60)) "$HATRACE" record --no-figures -o "$W/flat.hatf" -- "$prog" flat 64 "$ms" \
  >"$W/flat.out" 2>"$W/flat.err" || fail "flat: $(cat "$W/flat.err")"
cat "$W/flat.out" "$W/flat.err"
echo "flat: $((SECONDS - start)) s"
check_counts flat
hwm=$(awk '$1 == "hwm_kb" { print $2 }' "$W/flat.out")
[ "$hwm" -le $((40 * 1024 + 64 * 1024 + 131072)) ] || fail "flat: peak resident size $hwm kB"

start=$SECONDS
timeout 120 "$HATRACE" record --no-figures -o "$W/storm.hatf" -- "$prog" storm "$storm" 100 \
  >"$W/storm.out" 2>"$W/storm.err" || fail "storm: $(cat "$W/storm.err")"
cat "$W/storm.out" "$W/storm.err"
echo "storm: $((SECONDS - start)) s"
check_counts storm
rss=$(awk '$1 == "rss_max_kb" { print $2 }' "$W/storm.out")
[ "$rss" -le $((24576 + storm)) ] || fail "storm: resident size reached $rss kB"
# the trace's resident samples are the program's, the recorder's own memory
# taken out as resident as it is: never all of it (they were 0 over the whole
# storm when each ring counted at its full size)
res=$("$HATRACE" stats --json "$W/storm.hatf" | python3 -c 'import json,sys; print(json.load(sys.stdin)["container"]["max_resident_bytes"])')
[ "$res" -gt 0 ] || fail "storm: the recorded resident size is 0 throughout"
echo "storm: recorded resident at most $res bytes; the process's own peak $rss kB"

echo "reliability_load: ok"
