#!/usr/bin/env bash
# A recorded trace written as Meta-TF (convert --to metatf, the HATF DTD
# embedded) and read back by the DTD-driven reader: its events equal those of
# the same trace through HATF 1.0 (hatrace dump of both), its figures those of
# the container; through a pipe too (the header's counts then not known);
# back into a container without a change; the DTD in the file is
# docs/metatf/hatf.dtd; names are in the string table; a cut file is one
# line naming the file and an offset, exit 1.
. "$(dirname "$0")/record_lib.inc"
need_tools
record_example "$W/t.hatf"
cd "$(dirname "$0")/../.." || exit 1
"$HATRACE" convert --to metatf "$W/t.hatf" -o "$W/t.mtf" || fail "convert to metatf"
"$HATRACE" convert --to hatf1.0 "$W/t.hatf" -o "$W/t.hatf1" || fail "convert to hatf1.0"
[ "$(head -c 4 "$W/t.mtf" | od -An -c | tr -d ' ')" = '177MTF' ] || fail "no \\177MTF magic"

# events: the DTD-driven reader (recognised by the magic, and named) against the HATF 1.0 reader
"$HATRACE" dump --from hatf1.0 "$W/t.hatf1" >"$W/h.txt" || fail "dump hatf1.0"
"$HATRACE" dump "$W/t.mtf" >"$W/m.txt" || fail "dump metatf"
"$HATRACE" dump --from metatf "$W/t.mtf" | cmp -s - "$W/m.txt" || fail "--from metatf differs from the magic's"
cmp -s "$W/h.txt" "$W/m.txt" || fail "events differ: $(diff "$W/h.txt" "$W/m.txt" | head -5)"
n=$(grep -vc '^#' "$W/m.txt")
[ "$n" -gt 1000 ] || fail "only $n events"

# figures, time unit included (the hatrace-info record carries the header)
key() { python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(str(d[k]) for k in sys.argv[2:]))' "$@"; }
"$HATRACE" stats --json "$W/t.hatf" >"$W/c.json" || fail "stats of the container"
"$HATRACE" stats --json "$W/t.mtf" >"$W/m.json" || fail "stats of the metatf file"
for k in records allocs frees reallocs total_bytes max_live_bytes duration_ns time_unit_ns functions; do
  [ "$(key "$W/c.json" $k)" = "$(key "$W/m.json" $k)" ] || fail "$k: container $(key "$W/c.json" $k), metatf $(key "$W/m.json" $k)"
done

# through a pipe: the same events
"$HATRACE" convert --to metatf "$W/t.hatf" -o - | cat >"$W/p.mtf" || fail "convert to a pipe"
"$HATRACE" dump "$W/p.mtf" | cmp -s - "$W/m.txt" || fail "the piped file's events differ"
# back into a container, and to hatf1.0: the same events
"$HATRACE" convert "$W/t.mtf" -o "$W/back.hatf" || fail "metatf to hatrace"
# (each thread's events in order; events of one time on several threads are put in an
# order by the container's reader, which the container does not store: compared per thread)
by_thread() { grep -v '^# container' | sort -s -n -k2,2; }
"$HATRACE" dump "$W/back.hatf" | by_thread | cmp -s - <(by_thread <"$W/m.txt") || fail "metatf -> hatrace changed the events"
"$HATRACE" convert --from metatf --to hatf1.0 "$W/t.mtf" -o "$W/back.hatf1" || fail "metatf to hatf1.0"
"$HATRACE" dump --from hatf1.0 "$W/back.hatf1" | cmp -s - "$W/h.txt" || fail "metatf -> hatf1.0 changed the events"

# the embedded DTD is the shipped one (big-endian length at 12)
len=$(od -An -tu4 --endian=big -j12 -N4 "$W/t.mtf" | tr -d ' ')
tail -c +25 "$W/t.mtf" | head -c "$len" | cmp -s - docs/metatf/hatf.dtd || fail "the embedded DTD is not docs/metatf/hatf.dtd"
# its records: the header's text, thread names from the string table, metadata changing encodings
"$HATRACE" dump --records "$W/t.mtf" >"$W/r.txt" || fail "dump --records"
grep -q '^# metatf 1 64-bit big-endian dtd embedded name hatf-1.0 (events hatf)' "$W/r.txt" || fail "header: $(sed -n 2p "$W/r.txt")"
grep -q '^@[0-9]* hatrace-info text="hatrace-hatf1 1 container .* unit 1000/1 ns' "$W/r.txt" || fail "no hatrace-info record"
grep -q '^@[0-9]* thread-name id=1 name="' "$W/r.txt" || fail "no thread name"
grep -q '^@[0-9]* metadata fieldSize ' "$W/r.txt" || fail "no metadata record"
[ "$(grep -c '^@[0-9]* \(alloc\|free\|realloc\)' "$W/r.txt")" -gt 1000 ] || fail "too few event records"
"$HATRACE" dump --records "$W/t.hatf" 2>"$W/err" >/dev/null; s=$?
[ $s -eq 2 ] && grep -q 'applies to a Meta-TF file' "$W/err" || fail "dump --records of a container: exit $s, $(cat "$W/err")"

# a cut file: one line, the file and an offset, exit 1, no crash
size=$(stat -c %s "$W/t.mtf")
head -c $((size / 2)) "$W/t.mtf" >"$W/cut.mtf"
"$HATRACE" stats "$W/cut.mtf" >/dev/null 2>"$W/err"; s=$?
[ $s -eq 1 ] || fail "cut file: exit $s"
[ "$(wc -l <"$W/err")" -eq 1 ] && grep -q "cut.mtf: offset [0-9]*: section 'trace' .* runs past the end of the file" "$W/err" ||
  fail "cut file said: $(cat "$W/err")"
echo "convert_metatf: ok"
