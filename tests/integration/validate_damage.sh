#!/usr/bin/env bash
# A container with one damaged chunk in the middle: validate names the damage
# with its offset, skips that chunk group only, and goes on checking the rest;
# dump fails with one line naming the file and the offset.
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
if "$HATRACE" dump "$W/t.hatf" >/dev/null 2>"$W/dump.err"; then fail "dump passed a damaged file"; fi
[ "$(wc -l <"$W/dump.err")" -eq 1 ] && grep -q "t.hatf: offset [0-9]*:" "$W/dump.err" || { cat "$W/dump.err"; fail "dump error is not one line with the offset"; }
echo "validate_damage: ok"
