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
