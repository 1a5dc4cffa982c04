#!/usr/bin/env bash
# A trace through the interchange format keeps its meaning: convert --to
# hatf1.0 starts the stream with hatrace's mark and the container's header, so
# read back it has the same time unit (the durations are not 1000x off), the
# same events and figures; the stream with its mark cut off is another
# writer's: its attribute bytes are kept raw (text), never read as hatrace's,
# and left out, counted, when converted into a container.
. "$(dirname "$0")/record_lib.inc"
need_tools
record_example "$W/t.hatf"
"$HATRACE" convert --to hatf1.0 "$W/t.hatf" -o "$W/t.hatf1" || fail "convert to hatf1.0"

# the mark: a comment record first, "hatrace-hatf1 1 container ... unit 1000/1 ns ..."
head -c 200 "$W/t.hatf1" | tr -c '[:print:]' '.' | grep -q '^\.\.\.hatrace-hatf1 1 container 1\.0 pid [0-9]* .* unit 1000/1 ns 64-bit' ||
  fail "no mark with the header: $(head -c 120 "$W/t.hatf1" | tr -c '[:print:]' '.')"

key() { python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(str(d[k]) for k in sys.argv[2:]))' "$@"; }
"$HATRACE" stats --json "$W/t.hatf" >"$W/c.json" || fail "stats of the container"
"$HATRACE" stats --json --from hatf1.0 "$W/t.hatf1" >"$W/h.json" || fail "stats of the stream"
for k in records allocs frees reallocs total_bytes max_live_bytes duration_ns time_unit_ns functions; do
  [ "$(key "$W/c.json" $k)" = "$(key "$W/h.json" $k)" ] || fail "$k: container $(key "$W/c.json" $k), hatf1.0 $(key "$W/h.json" $k)"
done
[ "$(key "$W/h.json" time_unit_ns)" = "[1000, 1]" ] || fail "time unit read back: $(key "$W/h.json" time_unit_ns)"

# another writer's: the same records without the mark (tag, 2-byte length, text)
len=$(( $(od -An -tu1 -j1 -N1 "$W/t.hatf1") * 256 + $(od -An -tu1 -j2 -N1 "$W/t.hatf1") ))
tail -c +$((len + 4)) "$W/t.hatf1" >"$W/f.hatf1"
"$HATRACE" stats --json --from hatf1.0 "$W/f.hatf1" >"$W/f.json" || fail "stats of the foreign stream"
[ "$(key "$W/f.json" time_unit_ns)" = "[1, 1]" ] || fail "foreign: a time unit from nowhere"
for k in records allocs frees total_bytes max_live_bytes; do
  [ "$(key "$W/c.json" $k)" = "$(key "$W/f.json" $k)" ] || fail "foreign $k: $(key "$W/f.json" $k), want $(key "$W/c.json" $k)"
done
"$HATRACE" dump --from hatf1.0 "$W/f.hatf1" >"$W/f.txt" || fail "dump of the foreign stream"
grep -q 'attr=hex:' "$W/f.txt" || fail "foreign: attribute bytes not shown raw"
grep -q 'func=\|ostid=' "$W/f.txt" && fail "foreign: attribute bytes read as hatrace's"
# into a container: left out, and said
"$HATRACE" convert --from hatf1.0 "$W/f.hatf1" -o "$W/f.hatf" 2>"$W/conv.err" || fail "convert the foreign stream"
n=$(grep -c 'attr=hex:' "$W/f.txt")
grep -q "the attribute bytes of $n events, another writer's, are left out" "$W/conv.err" || fail "convert said: $(cat "$W/conv.err")"
# back to hatf1.0 from another writer's stream: still another writer's (no mark)
"$HATRACE" convert --from hatf1.0 --to hatf1.0 "$W/f.hatf1" -o "$W/g.hatf1" || fail "foreign to hatf1.0"
"$HATRACE" dump --from hatf1.0 "$W/g.hatf1" | cmp -s - "$W/f.txt" || fail "foreign to hatf1.0 changed the events"
echo "convert_hatf1: ok"
