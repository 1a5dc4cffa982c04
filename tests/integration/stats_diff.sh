#!/usr/bin/env bash
# hatrace stats --diff OLD NEW on two runs of tests/workloads/diff_sites that
# differ in one site: grow_b makes 100 x K objects of 128 bytes (K = 1, then
# 3). The diff names grow_b first, with +200 calls and +25600 bytes, by stack
# and by function, in text, JSON and folded form, and no other site changes
# beyond a small noise threshold (the C library's own allocations). A trace
# against itself has no change.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/diff_sites
record_stacks_args() {  # OUT ARGS...
  local out=$1; shift
  "$HATRACE" record --stacks -o "$out" -- "$prog" "$@" >/dev/null 2>"$W/record.err" || fail "record: $(cat "$W/record.err")"
  if grep -q "built without libunwind" "$W/record.err"; then echo "no libunwind"; exit 77; fi
}
[ -x "$prog" ] || { echo "workload diff_sites not built"; exit 77; }
record_stacks_args "$W/old.hatf" 1
record_stacks_args "$W/new.hatf" 3

"$HATRACE" stats --diff "$W/old.hatf" "$W/new.hatf" >"$W/diff.txt" || fail "stats --diff"
cat "$W/diff.txt"
grep -A1 '^#1 ' "$W/diff.txt" | head -1 | grep -q ';grow_b$' || fail "text: grow_b is not first"
grep -A1 '^#1 ' "$W/diff.txt" | grep -q 'calls 100 -> 300 (+200), bytes 12800 -> 38400 (+25600)' || fail "text: grow_b's change"

for by in stack function; do
  "$HATRACE" stats --diff --json --top 0 --by $by "$W/old.hatf" "$W/new.hatf" >"$W/$by.json" || fail "--json --by $by"
  python3 - "$W/$by.json" $by <<'PY' || fail "--json --by $by: $(cat "$W/$by.json")"
import json, sys
d = json.load(open(sys.argv[1])); by = sys.argv[2]
top = d["top"]
first = top[0]
name = first["site"] if by == "function" else first["site"].rsplit(";", 1)[-1]
assert name == "grow_b", first["site"]
assert first["calls"]["change"] == 200 and first["bytes"]["change"] == 25600, first
assert first["temporary"]["change"] == 200 and first["leaked"]["change"] == 0, first
# noise: no other site changes by more than 5 calls or 1 KiB
for s in top[1:]:
    assert abs(s["calls"]["change"]) <= 5 and abs(s["bytes"]["change"]) <= 1024, s
PY
done

# folded: the chains whose bytes changed, the change as the value
"$HATRACE" stats --diff --folded "$W/old.hatf" "$W/new.hatf" >"$W/diff.folded" || fail "--folded"
grep -qE '(^|;)main;grow_b 25600$' "$W/diff.folded" || fail "folded: $(cat "$W/diff.folded")"
awk '!/;grow_b / { v = $NF < 0 ? -$NF : $NF; if (v > 1024) bad = 1 } END { exit bad }' "$W/diff.folded" ||
  fail "folded: another chain changed: $(cat "$W/diff.folded")"
# --sort count: the value is the change in calls
"$HATRACE" stats --diff --folded --sort count "$W/old.hatf" "$W/new.hatf" | grep -qE ';grow_b 200$' || fail "--sort count"
# the reverse is negative
"$HATRACE" stats --diff --folded "$W/new.hatf" "$W/old.hatf" | grep -qE ';grow_b -25600$' || fail "NEW OLD: not negative"

# a trace against itself: nothing changed
"$HATRACE" stats --diff "$W/old.hatf" "$W/old.hatf" | head -1 | grep -q ', 0 changed;' || fail "itself: a change"
"$HATRACE" stats --diff "$W/old.hatf" >/dev/null 2>&1; [ $? = 2 ] || fail "--diff with one trace is no usage error"
echo "stats_diff: ok"
