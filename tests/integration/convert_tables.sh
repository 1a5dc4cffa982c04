#!/usr/bin/env bash
# hatrace convert from a container to a container keeps what the tables hold,
# not only the events: call stacks with their frames' symbols and the load map,
# heap names, thread names (a trace of the pool workload recorded with
# --stacks). Through text and raw HATF 1.0 and back every event comes back.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/heap_pool
[ -x "$prog" ] || { echo "workload not built"; exit 77; }

"$HATRACE" record --stacks -o "$W/p.hatf" -- "$prog" >/dev/null 2>"$W/record.err" || fail "record: $(cat "$W/record.err")"
"$HATRACE" dump --stacks "$W/p.hatf" | grep -v '^# container' >"$W/want.txt" || fail "dump"
grep -q '^#   at main+' "$W/want.txt" || fail "no named frame in the recorded trace"

"$HATRACE" convert "$W/p.hatf" -o "$W/c.hatf" || fail "convert"
"$HATRACE" convert --best "$W/c.hatf" -o "$W/b.hatf" || fail "convert --best"
for f in c b; do
  "$HATRACE" dump --stacks "$W/$f.hatf" | grep -v '^# container' | diff "$W/want.txt" - >/dev/null ||
    fail "$f.hatf: dump --stacks differs from the recorded trace"
  # (chunk_groups says how the groups are coded: the recorder's fast, convert's in full)
  diff <("$HATRACE" stats "$W/p.hatf" | sed 1d | grep -v '^chunk_groups') \
       <("$HATRACE" stats "$W/$f.hatf" | sed 1d | grep -v '^chunk_groups') >/dev/null ||
    fail "$f.hatf: stats (heap and thread names) differ"
done

# container -> text -> container: the tables too (the text form's table lines)
"$HATRACE" convert --to text "$W/p.hatf" -o "$W/k.txt" && "$HATRACE" convert --from text "$W/k.txt" -o "$W/k.hatf" ||
  fail "convert via text"
"$HATRACE" dump --stacks "$W/k.hatf" | grep -v '^# container' | diff "$W/want.txt" - >/dev/null ||
  fail "container -> text -> container: dump --stacks differs from the recorded trace"
# container -> text -> hatf1.0 -> container: the same events (no tables in hatf1.0)
"$HATRACE" convert --to text "$W/p.hatf" -o "$W/t.txt" &&
  "$HATRACE" convert --from text --to hatf1.0 "$W/t.txt" -o "$W/t.hatf1" &&
  "$HATRACE" convert --from hatf1.0 "$W/t.hatf1" -o "$W/t.hatf" || fail "convert chain"
diff <("$HATRACE" dump "$W/p.hatf" | grep -v '^#') <("$HATRACE" dump "$W/t.hatf" | grep -v '^#') >/dev/null ||
  fail "container -> text -> hatf1.0 -> container changed events"
# container -> text -> container keeps the header (time unit, pid, command line):
# the text form carries it in its '# container' line
"$HATRACE" convert --from text "$W/t.txt" -o "$W/tt.hatf" || fail "convert text -> container"
diff <("$HATRACE" dump --limit 0 "$W/p.hatf") <("$HATRACE" dump --limit 0 "$W/tt.hatf") ||
  fail "text -> container lost the header"
grep -qE '^# container .* unit [0-9]+/[0-9]+ ns' "$W/t.txt" || fail "no time unit in the text's header line"
echo "convert_tables: ok"
