#!/usr/bin/env bash
# A container with one damaged chunk in the middle: validate names the damage
# with its offset, skips that chunk group only, and goes on checking the rest.
# dump, stats, convert and replay read on past it too: every event of the
# intact groups (replay skips the frees of objects the lost group made), the
# damage line (offset, events skipped) on stderr once, and exit status 3
# (partial); with --strict they stop at it with one line, exit 1.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/examples/kvstore
[ -x "$prog" ] || { echo "example not built"; exit 77; }
"$HATRACE" record -o "$W/t.hatf" -- "$prog" 100000 >/dev/null 2>"$W/rec.err" || fail "record: $(cat "$W/rec.err")"
total=$("$HATRACE" stats --json "$W/t.hatf" | awk -F'[:,]' '/"records"/ { print $2 + 0; exit }')
[ "$total" -gt 10000 ] || fail "trace too small: $total records"
# flip one byte in the middle of the file: some chunk's payload
size=$(stat -c %s "$W/t.hatf")
python3 - "$W/t.hatf" "$((size / 2))" <<'PY'
import sys
p, at = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, 'rb').read()); b[at] ^= 0xff; open(p, 'wb').write(b)
PY
"$HATRACE" validate "$W/t.hatf" >"$W/val.txt" 2>&1 && fail "validate passed a damaged file"
grep -q "checksum mismatch" "$W/val.txt" || { cat "$W/val.txt"; fail "no checksum line"; }
grep -qE "offset [0-9]+: .*checksum mismatch" "$W/val.txt" || fail "damage line names no offset"
read_n=$(awk '/records, [0-9]+ problem/ { print $2 }' "$W/val.txt")
skipped=$(grep -o '[0-9]* events of thread [0-9]* skipped' "$W/val.txt" | awk '{ s += $1 } END { print s + 0 }')
echo "records $total, read $read_n, skipped $skipped"
[ "$read_n" -eq $((total - skipped)) ] || fail "validate read $read_n records, want $total - $skipped"
partial() { # name: stderr of a read that went on past the damage, exit 3
  [ "$2" -eq 3 ] || { cat "$W/$1.err"; fail "$1: exit $2, want 3 (partial)"; }
  [ "$(grep -c "t.hatf: offset [0-9]*: .*checksum mismatch.*events of thread [0-9]* skipped" "$W/$1.err")" -eq 1 ] ||
    { cat "$W/$1.err"; fail "$1: the damage is not said once with its offset and events"; }
  grep -q "t.hatf: the trace is damaged or cut: the output covers what could be read (exit status 3)" "$W/$1.err" ||
    { cat "$W/$1.err"; fail "$1: no word of a partial output"; }
}
"$HATRACE" dump "$W/t.hatf" >"$W/dump.txt" 2>"$W/dump.err"; partial dump $?
[ "$(grep -vc '^#' "$W/dump.txt")" -eq "$read_n" ] || fail "dump gave $(grep -vc '^#' "$W/dump.txt") events, want $read_n"
tail -1 "$W/dump.txt" | grep -q "^# damage: offset [0-9]*: .*checksum mismatch" ||
  fail "the dump does not end with what the damage lost: $(tail -1 "$W/dump.txt")"
"$HATRACE" stats --json "$W/t.hatf" >"$W/stats.json" 2>"$W/stats.err"; partial stats $?
got=$(awk -F'[:,]' '/"records"/ { print $2 + 0; exit }' "$W/stats.json")
[ "$got" -eq "$read_n" ] || fail "stats counted $got records, want $read_n"
grep -q '"damage": \[".*checksum mismatch' "$W/stats.json" || fail "stats --json names no damage"
"$HATRACE" convert --to text "$W/t.hatf" -o "$W/c.txt" 2>"$W/convert.err"; partial convert $?
grep -q "^# damage: offset [0-9]*: .*checksum mismatch" "$W/c.txt" || fail "the text copy does not say what was lost"
# a container copy keeps the loss: its readers list it, exit 3, validate calls it a problem
"$HATRACE" convert "$W/t.hatf" -o "$W/copy.hatf" 2>/dev/null; [ $? -eq 3 ] || fail "convert to a container: not partial"
"$HATRACE" stats "$W/copy.hatf" >"$W/copy.txt" 2>"$W/copy.err"; s=$?
[ $s -eq 3 ] || fail "stats of the copy: exit $s, want 3"
grep -q "copied from a damaged or cut trace, which had lost: offset [0-9]*: .*checksum mismatch.*events of thread [0-9]* skipped" "$W/copy.txt" ||
  { cat "$W/copy.txt"; fail "stats of the copy does not list the loss"; }
"$HATRACE" validate "$W/copy.hatf" >"$W/copyval.txt" 2>&1 && fail "validate calls the copy of a damaged trace clean"
grep -q "copied from a damaged or cut trace" "$W/copyval.txt" || fail "validate of the copy: $(cat "$W/copyval.txt")"
# replay: the lost group's objects are unknown to the other events; their frees
# are skipped and counted, the rest replayed, partial (exit 3)
"$HATRACE" replay --allocator null "$W/t.hatf" >"$W/replay.out" 2>"$W/replay.err"; partial replay $?
grep -q "^lost with the damage: [0-9]* frees or reallocs" "$W/replay.out" ||
  { cat "$W/replay.out"; fail "replay does not say what the damage lost"; }
"$HATRACE" replay --allocator null "$W/copy.hatf" >/dev/null 2>"$W/replay-copy.err"; s=$?
[ $s -eq 3 ] || { cat "$W/replay-copy.err"; fail "replay of the copy: exit $s, want 3"; }
if "$HATRACE" replay --strict --allocator null "$W/t.hatf" >/dev/null 2>"$W/replay-strict.err"; then
  fail "replay --strict passed a damaged file"
fi
# --strict: the first damage ends the read, one line with its offset
for cmd in dump stats; do
  if "$HATRACE" $cmd --strict "$W/t.hatf" >/dev/null 2>"$W/strict.err"; then fail "$cmd --strict passed a damaged file"; fi
  [ "$(wc -l <"$W/strict.err")" -eq 1 ] && grep -q "t.hatf: offset [0-9]*:" "$W/strict.err" ||
    { cat "$W/strict.err"; fail "$cmd --strict: not one line with the offset"; }
done
# validate --strict: the check ends at the damage (fewer records read), exit 1
"$HATRACE" validate --strict "$W/t.hatf" >"$W/vstrict.txt" 2>&1 && fail "validate --strict passed a damaged file"
strict_n=$(awk '/records, [0-9]+ problem/ { print $2 }' "$W/vstrict.txt")
grep -qE "offset [0-9]+: .*checksum mismatch" "$W/vstrict.txt" && [ "${strict_n:-$read_n}" -lt "$read_n" ] ||
  { cat "$W/vstrict.txt"; fail "validate --strict: read $strict_n records, not fewer than $read_n, or no damage line"; }
# the trace cut at half its length: what is before the cut, and exit 3
head -c $((size / 2)) "$W/t.hatf" >"$W/cut.hatf"
"$HATRACE" stats "$W/cut.hatf" >"$W/cut.txt" 2>"$W/cut.err"; s=$?
[ $s -eq 3 ] || { cat "$W/cut.err"; fail "stats of a cut trace: exit $s, want 3"; }
grep -q '^complete  *no$' "$W/cut.txt" || fail "stats of a cut trace: not called incomplete"
grep -q "cut.hatf: the trace is damaged or cut" "$W/cut.err" || fail "stats of a cut trace: no word of it"
echo "validate_damage: ok"
