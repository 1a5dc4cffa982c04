#!/usr/bin/env bash
# _exit, _Exit and quick_exit end the trace too (no destructor runs: the library's _exit
# has the flusher close it): a program that calls them gets a closed trace
# with every event, and one whose signal handler calls _exit while its
# threads allocate flat out still ends at once (the flusher may be unable to
# close the trace then; the program must not wait on it for more than its
# bounded time). RECORD_EXIT_ROUNDS sets the signal rounds (default 20).
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/rec_exit_now
[ -x "$prog" ] || { echo "workload not built"; exit 77; }

# quick_exit ends in libc's own _exit: the library's handler, registered
# before the program's, closes the trace after them (its pair is in it)
for mode in plain:5:20000 upper:6:20000 quick:8:20001; do
  name=${mode%%:*} want=${mode#*:} want=${want%%:*} pairs=${mode##*:}
  rc=0
  timeout 30 "$HATRACE" record -o "$W/$name.hatf" -- "$prog" "$name" 20000 >"$W/$name.out" 2>"$W/$name.err" || rc=$?
  [ "$rc" = "$want" ] || fail "$name: exit code $rc, want $want ($(cat "$W/$name.err"))"
  grep -q "not closed" "$W/$name.err" && fail "$name: trace not closed: $(cat "$W/$name.err")"
  "$HATRACE" stats "$W/$name.hatf" >"$W/$name.stats" || fail "$name: stats"
  grep -q '^complete  *yes$' "$W/$name.stats" || fail "$name: trace incomplete"
  grep -q "^allocs  *$pairs\$" "$W/$name.stats" || fail "$name: $(grep '^allocs' "$W/$name.stats"), want $pairs"
  grep -q "^frees  *$pairs " "$W/$name.stats" || fail "$name: $(grep '^frees' "$W/$name.stats"), want $pairs"
  grep -q '^thread events  *1 create, 1 destroy$' "$W/$name.stats" || fail "$name: thread events"
  validate_all "$W/$name.hatf"
done

# main ends by pthread_exit, four threads after it: glibc exits with 0 when
# the last thread ends, counting the recorder's threads too, so the process
# hung with none of its own left; the last of the program's now ends it, with
# its exit handler's block in the trace (5 rounds: the four end together)
for i in 1 2 3 4 5; do
  rc=0
  timeout 60 "$HATRACE" record -o "$W/last$i.hatf" -- "$prog" last 5000 >/dev/null 2>"$W/last.err" || rc=$?
  [ "$rc" = 0 ] || fail "last $i: exit code $rc, want 0 (124: it hung) ($(cat "$W/last.err"))"
  "$HATRACE" stats "$W/last$i.hatf" >"$W/last.stats" || fail "last $i: stats"
  grep -q '^complete  *yes$' "$W/last.stats" || fail "last $i: trace incomplete"
  # the four threads' pairs (main's pthread_exit loads libgcc_s for its
  # unwinding: ld.so's allocations on thread 1, as natively), and the exit
  # handler's block once, on whichever thread ended last (main may be it)
  a=$(sed -n '/^thread  *name/,/^$/p' "$W/last.stats" | awk '$1 ~ /^[0-9]+$/ && $1 >= 2 { s += $3 } END { print s + 0 }')
  [ "$a" = 20000 ] || [ "$a" = 20001 ] || fail "last $i: $a allocations on the four threads, want 20000"
  h=$("$HATRACE" dump "$W/last$i.hatf" | awk '$4 == "alloc" && $5 == 4321' | wc -l)
  [ "$h" = 1 ] || fail "last $i: the exit handler's block $h times, want once"
  grep -q '^thread events  *5 create, 5 destroy$' "$W/last.stats" || fail "last $i: $(grep '^thread events' "$W/last.stats")"
  validate_all "$W/last$i.hatf" >/dev/null
done

rounds=${RECORD_EXIT_ROUNDS:-20} closed=0
for i in $(seq "$rounds"); do
  rc=0 start=$(date +%s%N)
  # --no-figures: the time is the program's, not record's read-back (under
  # ASan on a loaded machine that alone took seconds: this test's flake)
  timeout 30 "$HATRACE" record --no-figures -o "$W/sig$i.hatf" -- "$prog" signal 30 >/dev/null 2>"$W/sig$i.err" || rc=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  [ "$rc" = 7 ] || fail "signal round $i: exit code $rc, want 7 ($(cat "$W/sig$i.err"))"
  # the flusher gets 2 s to close the trace; a wait on it past that (a hang
  # is the timeout's) shows beyond 8 s, four times the bound, on a busy machine
  [ "$ms" -le 8000 ] || fail "signal round $i: took $ms ms"
  if grep -q "not closed" "$W/sig$i.err"; then
    "$HATRACE" stats "$W/sig$i.hatf" >/dev/null 2>&1 || true  # readable up to its last chunk
  else
    closed=$((closed + 1))
    validate_all "$W/sig$i.hatf"
  fi
  rm -f "$W/sig$i.hatf"
done
echo "signal: $closed of $rounds traces closed by the flusher"
[ "$closed" -gt 0 ] || fail "no trace was closed after _exit in a signal handler"
echo "record_exit_now: ok"
