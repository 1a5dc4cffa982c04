#!/usr/bin/env bash
# stats --sites --folded marks a call chain cut at the recording's stack depth
# with a root frame "[truncated]", so a flame graph shows it apart: the trace
# says how deep stacks were taken (a tables entry), and a stack that deep has
# lost its outer frames. tests/workloads/stack_depth allocates 20 calls below
# main: with --stacks=8 its chain is cut, with --stacks=64 it is whole (from
# _start or main, no marker). convert keeps the depth (with --strip too).
. "$(dirname "$0")/record_lib.inc"
need_tools
need_stack_workloads
prog=$BUILD/workloads/stack_depth

"$HATRACE" record --stacks=8 -o "$W/cut.hatf" -- "$prog" malloc 20 50 2>"$W/record.err" || fail "record: $(cat "$W/record.err")"
"$HATRACE" stats --sites --folded "$W/cut.hatf" >"$W/cut.txt" || fail "stats --folded"
cat "$W/cut.txt"
leaf=$(grep ';leaf 50$' "$W/cut.txt") || fail "no chain of leaf with 50 calls"
[[ $leaf == "[truncated];"* ]] || fail "the cut chain has no [truncated] root: $leaf"
# the marker, then the 8 recorded frames
[ "$(tr ';' '\n' <<<"${leaf% *}" | wc -l)" = 9 ] || fail "the cut chain is not the marker and 8 frames: $leaf"

"$HATRACE" record --stacks=64 -o "$W/whole.hatf" -- "$prog" malloc 20 50 2>"$W/record.err" || fail "record: $(cat "$W/record.err")"
"$HATRACE" stats --sites --folded "$W/whole.hatf" >"$W/whole.txt" || fail "stats --folded"
grep -q 'truncated' "$W/whole.txt" && fail "a whole chain marked truncated: $(cat "$W/whole.txt")"
grep -qE '(^|;)main;chain;.*;leaf 50$' "$W/whole.txt" || fail "the whole chain does not reach main: $(cat "$W/whole.txt")"

# a copy says the depth too, stripped or not; without stacks there is nothing to mark
for how in "" "--strip"; do
  "$HATRACE" convert $how "$W/cut.hatf" -o "$W/copy.hatf" --force 2>/dev/null || fail "convert $how"
  "$HATRACE" stats --sites --folded "$W/copy.hatf" | grep -q '^\[truncated\];' || fail "convert $how lost the depth"
done
echo "stacks_truncated: ok"
