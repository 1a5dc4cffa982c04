#!/usr/bin/env bash
# A storm of 2000 short-lived threads (50 alive at a time): every thread has
# its create/destroy and its 10 allocations, and memory stays bounded because
# the rings of exited threads are drained and reused.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/rec_storm
[ -x "$prog" ] || { echo "workload not built"; exit 77; }
"$HATRACE" record -o "$W/s.hatf" -- "$prog" >"$W/program.txt" 2>"$W/record.err" || fail "record: $(cat "$W/record.err")"
cat "$W/program.txt" "$W/record.err"
validate_all "$W/s.hatf"
threads=$(awk '$1 == "threads" { print $2 }' "$W/program.txt")
allocs=$(awk '$1 == "allocs" { print $2 }' "$W/program.txt")
hwm=$(awk '$1 == "hwm_kb" { print $2 }' "$W/program.txt")
"$HATRACE" dump "$W/s.hatf" | awk '
  $4 == "thread-create" { c++ } $4 == "thread-destroy" { d++ }
  $4 == "alloc" && $5 == 777 { a++ }
  END { print "creates", c + 0; print "destroys", d + 0; print "allocs", a + 0 }' >"$W/got.txt"
cat "$W/got.txt"
printf 'creates %d\ndestroys %d\nallocs %d\n' $((threads + 1)) $((threads + 1)) "$allocs" >"$W/want.txt"
compare "$W/want.txt" "$W/got.txt" || fail "thread or allocation counts differ"
# 2000 rings of 2 MiB would be 4 GB; reuse keeps the peak resident size small
[ "$hwm" -lt 65536 ] || fail "peak resident size $hwm kB"
# exit while two threads still allocate flat out: no hang, a valid trace
busy=$BUILD/workloads/rec_exit_busy
if [ -x "$busy" ]; then
  timeout 30 "$HATRACE" record -o "$W/busy.hatf" -- "$busy" 2>"$W/busy.err" || fail "exit with busy threads: $(cat "$W/busy.err")"
  cat "$W/busy.err"
  validate_all "$W/busy.hatf"
fi
echo "record_threads: ok"
