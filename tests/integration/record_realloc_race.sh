#!/usr/bin/env bash
# A moving realloc's old block taken by another thread before the realloc
# returned (issue 42): realloc_reuse's threads share one arena and reallocate
# blocks above glibc's per-thread caches, so their old blocks go straight to
# the next malloc of any thread. The recorder stamps a realloc after the
# call and notes when the call began; the trace keeps that release lead and
# the readers put such a realloc before the reuse. Recorded at the default
# settings, every run must validate clean (before the lead: 24-38 problems a
# run, "allocation of X, still live" then "realloc of X, already freed"), and
# the leads must survive the text form and convert. The same with reallocarray.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/realloc_reuse
[ -x "$prog" ] || { echo "workload not built"; exit 77; }
runs=${RACE_RUNS:-4}
for i in $(seq 1 "$runs"); do
  "$HATRACE" record -o "$W/r$i.hatf" -- "$prog" >"$W/program$i.txt" 2>"$W/record.err" || fail "record: $(cat "$W/record.err")"
  "$HATRACE" validate "$W/r$i.hatf" >"$W/validate.txt" 2>&1 || { cat "$W/validate.txt"; fail "run $i: validate found problems"; }
  tail -1 "$W/validate.txt"
done
# the counts are the program's, and the moving reallocs carry leads
count_events "$W/r1.hatf" >"$W/got.txt"
read -r _ m _ r _ v _ f <"$W/program1.txt"
cat "$W/program1.txt"
moved=$(awk '$1 == "op.realloc-move" { print $2 }' "$W/got.txt")
reallocs=$(awk '$1 ~ /^op\.realloc-/ { n += $2 } END { print n + 0 }' "$W/got.txt")
[ "$reallocs" -eq "$r" ] || fail "reallocs: $reallocs in the trace, $r made"
[ "$moved" -eq "$v" ] || fail "moving reallocs: $moved in the trace, $v made"
leads=$("$HATRACE" dump "$W/r1.hatf" | grep -c ' lead=' || true)
echo "moving reallocs $moved, with a lead $leads"
[ "$leads" -gt 0 ] || fail "no realloc has a release lead"
# the text form keeps the leads, and its copy validates clean
"$HATRACE" dump "$W/r1.hatf" >"$W/r1.txt"
"$HATRACE" convert --from text "$W/r1.txt" -o "$W/back.hatf" || fail "convert from text"
"$HATRACE" dump "$W/back.hatf" >"$W/back.txt"
[ "$(grep -c ' lead=' "$W/back.txt")" -eq "$leads" ] || fail "the text form's copy lost leads"
"$HATRACE" validate "$W/back.hatf" >/dev/null || fail "the text form's copy has problems"
# a lead past its event's time is refused with the line and column
awk '/ lead=/ && !done { sub(/ lead=[0-9]+/, " lead=" ($1 + 1)); done = 1 } { print }' "$W/r1.txt" >"$W/bad.txt"
if "$HATRACE" convert --from text "$W/bad.txt" -o "$W/bad.hatf" 2>"$W/bad.err"; then fail "a lead past its time was taken"; fi
grep -q "lead= past the event's time" "$W/bad.err" || fail "no error for a lead past its time: $(cat "$W/bad.err")"
# reallocarray carries the lead as realloc does: the same program reallocating
# with reallocarray validates clean (before its lead: as realloc's problems)
for i in $(seq 1 "$runs"); do
  "$HATRACE" record -o "$W/a$i.hatf" -- "$prog" 4 100000 array >"$W/array$i.txt" 2>"$W/record.err" ||
    fail "record: $(cat "$W/record.err")"
  "$HATRACE" validate "$W/a$i.hatf" >"$W/validate.txt" 2>&1 || { cat "$W/validate.txt"; fail "reallocarray run $i: validate found problems"; }
  tail -1 "$W/validate.txt"
done
leads=$("$HATRACE" dump "$W/a1.hatf" | grep -c ' lead=[0-9]* func=reallocarray' || true)
echo "reallocarray: moving ones with a lead $leads"
[ "$leads" -gt 0 ] || fail "no reallocarray has a release lead"
echo "record_realloc_race: ok"
