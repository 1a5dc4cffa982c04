#!/usr/bin/env bash
# hatrace record -o NAME when NAME exists: refused (exit 1, the file left as
# it was, the program not run), replaced with --force (the trace under that
# very name, no other file); a pattern with %p is never refused. record
# --stacks ends with the site report as its next step.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/stacks_sites
[ -x "$prog" ] || { echo "workload stacks_sites not built"; exit 77; }
mkdir "$W/d" && cd "$W/d" || fail "mkdir"
echo "keep me" >keep.hatf
"$HATRACE" record -o keep.hatf -- "$prog" >out.txt 2>err.txt; s=$?
[ $s = 1 ] && grep -q "keep.hatf exists: use --force to replace it" err.txt || fail "existing -o: exit $s, $(cat err.txt)"
[ "$(cat keep.hatf)" = "keep me" ] && [ ! -s out.txt ] && [ "$(ls | wc -l)" = 3 ] || fail "existing -o: something was written: $(ls)"
"$HATRACE" record --force --stacks -o keep.hatf -- "$prog" >/dev/null 2>err.txt || fail "record --force: $(cat err.txt)"
"$HATRACE" validate keep.hatf >/dev/null || fail "--force: keep.hatf is no trace"
[ "$(ls *.hatf)" = keep.hatf ] || fail "--force: other traces: $(ls)"
grep -q "^hatrace: trace $W/d/keep.hatf$" err.txt || fail "--force: the trace's path not said: $(cat err.txt)"
grep -q "^hatrace: next: hatrace stats --sites $W/d/keep.hatf" err.txt || fail "--stacks: next: $(grep next: err.txt)"
! grep -q "record with --stacks" err.txt || fail "--stacks: still asked to record with --stacks"
"$HATRACE" record -o 'p.%p.hatf' -- "$prog" >/dev/null 2>err.txt && "$HATRACE" record -o 'p.%p.hatf' -- "$prog" >/dev/null 2>>err.txt ||
  fail "a pattern with %p: $(cat err.txt)"
[ "$(ls p.*.hatf | wc -l)" = 2 ] || fail "a pattern with %p: $(ls)"
grep -q "record with --stacks for allocation sites" err.txt || fail "without --stacks: no hint to record with --stacks"
echo "record_output: ok"
