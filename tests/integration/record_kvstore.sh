#!/usr/bin/env bash
# The bundled example (two threads handing values to each other under a mutex,
# most of them freed or realloc'd by the other thread) recorded with the
# defaults: the merged order must be causal every time, so validate finds no
# problem and replay accepts the trace. (The default stores times in 1 us
# units, rounded down: an allocation and its free by the other thread within
# one unit tie, and the readers order ties by address liveness.)
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/examples/kvstore
[ -x "$prog" ] || { echo "example not built"; exit 77; }
for i in 1 2 3 4 5; do
  "$HATRACE" record -o "$W/k$i.hatf" -- "$prog" 100000 >"$W/out$i.txt" 2>"$W/rec$i.err" || fail "record: $(cat "$W/rec$i.err")"
  validate_all "$W/k$i.hatf"
  "$HATRACE" replay --allocator null --json "$W/k$i.hatf" >"$W/r$i.json" 2>"$W/r$i.err" || fail "replay: $(cat "$W/r$i.err")"
  # the workers' own counts against the trace's threads 2 and up (the main
  # thread only frees what is left at the end, among libc's own calls)
  read -r m r < <(awk '{ print $2, $4 }' "$W/out$i.txt")
  count_events "$W/k$i.hatf" 2 >"$W/got$i.txt"
  printf 'func.malloc %s\nfunc.realloc %s\n' "$m" "$r" >"$W/want$i.txt"
  compare "$W/want$i.txt" "$W/got$i.txt" || fail "run $i: counts differ"
done
echo "record_kvstore: ok"
