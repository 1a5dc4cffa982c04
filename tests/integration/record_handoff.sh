#!/usr/bin/env bash
# Three threads hand objects to each other through lock-free queues, so many
# allocations are freed by another thread within the same microsecond: recorded
# with the defaults (times in 1 us units, rounded down), the readers must put
# every such tie in an order consistent with address liveness, so validate
# finds no problem, replay accepts the trace and the counts match the program's.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/rec_handoff
x=$(exit_frees) || exit
x=$((x * 3))  # glibc's frees at the exit of its 3 threads (record_lib.inc)
for i in 1 2 3; do
  "$HATRACE" record -o "$W/h$i.hatf" -- "$prog" 50000 >"$W/out$i.txt" 2>"$W/rec$i.err" || fail "record: $(cat "$W/rec$i.err")"
  "$HATRACE" validate "$W/h$i.hatf" >"$W/v$i.txt" || fail "validate: $(head -5 "$W/v$i.txt")"
  grep 'note: .* groups* of events with one time' "$W/v$i.txt" || true
  "$HATRACE" replay --allocator null "$W/h$i.hatf" >/dev/null 2>"$W/r$i.err" || fail "replay: $(cat "$W/r$i.err")"
  read -r _ m _ r _ f <"$W/out$i.txt"
  count_events "$W/h$i.hatf" 2 >"$W/got$i.txt"
  printf 'func.malloc %s\nfunc.free %s\n' "$m" "$((f + x))" >"$W/want$i.txt"
  compare "$W/want$i.txt" "$W/got$i.txt" || fail "run $i: counts differ"
done
# a free's stamp is not fenced and the header says so (flag bit 2, at byte 20);
# convert writes its copy in the repaired order, without the flag
flags() { od -An -tu4 -j20 -N4 "$1" | tr -d ' '; }
[ $(( $(flags "$W/h1.hatf") & 4 )) -ne 0 ] || fail "the recording has no early-release flag: $(flags "$W/h1.hatf")"
"$HATRACE" convert "$W/h1.hatf" -o "$W/c1.hatf" 2>"$W/c1.err" || fail "convert: $(cat "$W/c1.err")"
[ $(( $(flags "$W/c1.hatf") & 4 )) -eq 0 ] || fail "convert kept the early-release flag: $(flags "$W/c1.hatf")"
"$HATRACE" validate "$W/c1.hatf" >"$W/vc.txt" || fail "validate of the copy: $(head -5 "$W/vc.txt")"
echo "record_handoff: ok"
