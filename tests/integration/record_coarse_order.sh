#!/usr/bin/env bash
# A coarse --time-res on a multi-threaded program (issue 42): mt_churn's
# threads hand objects to each other, so an address freed by one thread is
# allocated again by another within microseconds, and a 10 ms unit holds tens
# of thousands of events of several threads. The recorder keeps the time of
# each use of an address that follows another thread's in its unit to 1 us
# (hatf/container/container_order.h; its rings drained merged by time), so every run
# must validate clean at 10 ms and 1 ms (before: thousands of problems a run
# at 10 ms, "still live" and "already freed", and groups with no order), and
# a default trace converted to 10 ms must keep its peak of live bytes (before:
# 2.3 times the peak). COARSE_RUNS: runs per unit (default 3).
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/mt_churn
[ -x "$prog" ] || { echo "workload not built"; exit 77; }
runs=${COARSE_RUNS:-3}
for res in 10000000 1000000; do
  for i in $(seq 1 "$runs"); do
    f=$W/r$res.$i.hatf
    "$HATRACE" record --time-res "$res" -o "$f" -- "$prog" >/dev/null 2>"$W/record.err" || fail "record: $(cat "$W/record.err")"
    "$HATRACE" validate "$f" >"$W/validate.txt" 2>&1 || { head -5 "$W/validate.txt"; tail -2 "$W/validate.txt"; fail "--time-res $res, run $i: validate found problems"; }
    echo "--time-res $res, run $i: $(tail -1 "$W/validate.txt")"
  done
done
# the trace's unit is 1 us; the coarse times are multiples of the unit given
"$HATRACE" stats "$W/r10000000.1.hatf" >"$W/stats10.txt" || fail "stats"
grep -q "^duration .* units of 1000/1 ns" "$W/stats10.txt" || fail "the unit is not 1 us: $(grep '^duration' "$W/stats10.txt")"
# some events keep a 1 us time (a thread's events after one inherit it), and few
# start a new time in their thread (1-2.5 % here, by how the threads happened to
# interleave, about 3 % at the default 1 us: on this program the coarse unit
# saves little, docs/format-container.md): under 10 %, a bound of no speed
"$HATRACE" dump "$W/r10000000.1.hatf" | awk '!/^#/ { all++; if (last[$2] != $1) { runs++; last[$2] = $1 } if ($1 % 10000) fine++ }
  END { printf "events at a time finer than 10 ms: %d; starting a new time in their thread: %d of %d\n", fine, runs, all
        exit !(fine > 0 && runs * 10 < all) }' ||
  fail "expected some events at a 1 us time, and under 10 % starting a new time"
# a default trace converted to 10 ms: clean, and the same peak
"$HATRACE" record -o "$W/fine.hatf" -- "$prog" >/dev/null 2>"$W/record.err" || fail "record: $(cat "$W/record.err")"
"$HATRACE" convert --time-res 10000000 "$W/fine.hatf" -o "$W/conv.hatf" || fail "convert --time-res"
"$HATRACE" validate "$W/conv.hatf" >"$W/validate.txt" 2>&1 || { tail -2 "$W/validate.txt"; fail "the converted trace has problems"; }
peak() { "$HATRACE" stats "$1" | awk '$1 == "max_live_bytes" { print $2 }'; }
p1=$(peak "$W/fine.hatf") p2=$(peak "$W/conv.hatf")
echo "peak of live bytes: 1 us $p1, converted to 10 ms $p2"
# the order of uses of one address is kept; events of threads that share none may
# still tie, so the peak may move a little, not double (moves seen: 0-2.1 %, by how
# the threads interleaved in the run; before the order was kept: 2.3 times)
[ $((p2 * 100)) -le $((p1 * 105)) ] && [ $((p2 * 100)) -ge $((p1 * 95)) ] || fail "the peak moved: $p1 -> $p2"
echo "record_coarse_order: ok"
