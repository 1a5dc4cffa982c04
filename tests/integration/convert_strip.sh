#!/usr/bin/env bash
# convert --strip and --no-stacks, for sharing a workload: the stripped trace
# names neither the program nor the machine (no command line, pid, start time,
# thread names, module paths or function names, no comments) but holds the same
# heap operations, and its call stacks as bare frame addresses keep the sites
# apart; --no-stacks leaves the stacks out. Recorded: tests/workloads/stacks_cxx.cc.
. "$(dirname "$0")/record_lib.inc"
need_tools
record_stacks "$BUILD/workloads/stacks_cxx" "$W/c.hatf"

"$HATRACE" convert --strip "$W/c.hatf" -o "$W/s.hatf" || fail "convert --strip"
"$HATRACE" convert --no-stacks "$W/c.hatf" -o "$W/n.hatf" || fail "convert --no-stacks"
"$HATRACE" convert --strip --no-stacks "$W/c.hatf" -o "$W/sn.hatf" || fail "convert --strip --no-stacks"
for f in s n sn; do validate_all "$W/$f.hatf"; done

# what names the program: there before, gone after (the header is not compressed)
grep -qa stacks_cxx "$W/c.hatf" || fail "the recording does not name its program: the check below could not fail"
grep -qa stacks_cxx "$W/s.hatf" && fail "--strip: the program's path is still in the file"
"$HATRACE" stats --json "$W/s.hatf" >"$W/s.json" || fail "stats"
python3 - "$W/s.json" <<'PY' || fail "--strip: the header still names the program"
import json, sys
c = json.load(open(sys.argv[1]))["container"]
assert c["pid"] == 0 and c["cmdline"] == "", c
PY
"$HATRACE" dump --stacks "$W/c.hatf" | grep -q 'shop::Store::open' || fail "the recording has no function names"
"$HATRACE" dump --stacks "$W/s.hatf" >"$W/s.dump" || fail "dump --stacks"
grep -E '^#   at ' "$W/s.dump" | grep -vqE '^#   at 0x[0-9a-f]+$' && { grep '^#   at' "$W/s.dump" | head; fail "--strip: frames still named"; }
grep -c '^#   at 0x' "$W/s.dump" >/dev/null || fail "--strip: the stacks are gone"

# the same heap operations: the events after the header lines, and the figures
events() { "$HATRACE" dump "$1" | grep -v '^#' | sed 's/ stack=[0-9]*//'; }
cmp <(events "$W/c.hatf") <(events "$W/s.hatf") || fail "--strip changed the events"
cmp <(events "$W/c.hatf") <(events "$W/sn.hatf") || fail "--strip --no-stacks changed the events"
"$HATRACE" dump "$W/n.hatf" | grep -q 'stack=' && fail "--no-stacks: stack attributes left"
"$HATRACE" dump "$W/c.hatf" | grep -v '^#' | cmp - <("$HATRACE" dump "$W/s.hatf" | grep -v '^#') ||
  fail "--strip changed the stack ids"
figures() { "$HATRACE" stats --sites --no-lines --top 0 "$1" | grep '^#' | sed 's/^#[0-9]* //' | sort; }
cmp <(figures "$W/c.hatf") <(figures "$W/s.hatf") || fail "--strip: the sites' figures differ"

# a text trace's comment is left out; its other events stay
t=$(cd "$(dirname "$0")/.." && pwd)/golden/inputs/basic.txt
"$HATRACE" convert --from text --strip --to text "$t" -o "$W/b.txt" || fail "convert --strip --to text"
grep -q comment "$t" || fail "basic.txt has no comment"
grep -q comment "$W/b.txt" && fail "--strip: the comment is still there"
[ "$(grep -vc '^#' "$W/b.txt")" = "$(grep -v '^#' "$t" | grep -vc comment)" ] || fail "--strip: other events lost"
echo "ok"
