#!/usr/bin/env bash
# A signal handler that allocates, firing every 200 us while the main thread is
# mostly inside malloc/free: every call of both is in the trace, exactly once.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/rec_signal
[ -x "$prog" ] || { echo "workload not built"; exit 77; }
# default ring, then a 256-event ring: the producer then waits for the flusher
# thousands of times, with handlers running during those waits. Verbose: a
# failure's log shows how full the side buffer got.
for ring in 32768 256; do
  HATRACE_VERBOSE=1 "$HATRACE" record --ring-size $ring -o "$W/g$ring.hatf" -- "$prog" >"$W/program.txt" 2>"$W/record.err" ||
    fail "record: $(cat "$W/record.err")"
  cat "$W/program.txt" "$W/record.err"
  grep -q " 0 dropped" "$W/record.err" || fail "events dropped"
  validate_all "$W/g$ring.hatf"
  awk '{ print "size" $2, $3 }' "$W/program.txt" >"$W/want.txt"
  "$HATRACE" dump "$W/g$ring.hatf" | awk '$4 == "alloc" && ($5 == 40 || $5 == 24) { c[$5]++ }
    END { print "size40", c[40] + 0; print "size24", c[24] + 0 }' >"$W/got.txt"
  compare "$W/want.txt" "$W/got.txt" || fail "allocation counts differ (ring $ring)"
done

# a handler every 100 us from the program's start while 4 threads start: the
# handlers that run while a thread's recording is set up (its first call,
# the recorder's own start) are recorded too; 20 runs, each exact (before,
# 1-3 handler calls were missing in about half the runs, none counted)
prog=$BUILD/workloads/rec_signal_start
[ -x "$prog" ] || fail "workload rec_signal_start not built"
# (exit 77: a CPU whose interrupted instruction the workload cannot read)
runs=20
for i in $(seq $runs); do
  rm -f "$W/s.hatf"
  rc=0
  LD_PRELOAD=$HATRACE_LIB HATRACE_OUTPUT=$W/s.hatf "$prog" >"$W/program.txt" 2>"$W/run.err" || rc=$?
  [ $rc = 77 ] && { runs=0; cat "$W/program.txt"; break; }
  [ $rc = 0 ] || fail "run $i (exit $rc): $(cat "$W/run.err")"
  want=$(awk '$1 == "handler" { print $3 }' "$W/program.txt")
  got=$("$HATRACE" dump "$W/s.hatf" | awk '$4 == "alloc" && $5 == 77' | wc -l)
  [ "$want" = "$got" ] || fail "run $i: the handler allocated $want times, the trace holds $got"
done
echo "record_signal: $runs runs of handlers at thread start, each exact"
echo "record_signal: ok"
