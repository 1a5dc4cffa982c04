#!/usr/bin/env bash
# C++ operators are recorded as such: new and new[] as alloc func=new / func=new[],
# delete and delete[] as free func=delete / func=delete[], one event per call;
# the counts match the program's; a sized delete carries the size it was
# given (sized=N), its block's but for one the program gives wrongly, which
# validate reports, and nothing else. validate reports each mismatched pair
# (tests/workloads/cxx_mismatch.cc) and nothing else.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/rec_cxx
[ -x "$prog" ] && [ -x "$BUILD/workloads/cxx_mismatch" ] || { echo "workload not built"; exit 77; }
"$HATRACE" record -o "$W/x.hatf" -- "$prog" >"$W/program.txt" 2>"$W/record.err" || fail "record: $(cat "$W/record.err")"
cat "$W/program.txt" "$W/record.err"
if "$HATRACE" validate "$W/x.hatf" >"$W/val.txt"; then fail "validate passed the wrong sized delete"; fi
cat "$W/val.txt"
grep -q " records, 1 problem$" "$W/val.txt" || fail "validate: other problems than the wrong sized delete"
grep -Eq ': sized delete of 0x[0-9a-f]+ with size 40, allocated with size 80 at record [0-9]+$' "$W/val.txt" ||
  fail "validate does not report the wrong sized delete"
"$HATRACE" dump "$W/x.hatf" | awk '
  $4 == "alloc" && $5 == 72 && $7 == "func=new" { c72++ }
  $4 == "alloc" && $5 == 3000 && $7 == "func=new[]" { c3000++ }
  $4 == "free" && $6 == "func=delete[]" { d3000++ }
  $4 == "alloc" { size[$6] = $5 }
  $4 == "free" && $7 ~ /^sized=/ { sized++; if (substr($7, 7) != size[$5]) wrong++ }
  END { print "size72", c72 + 0; print "size3000", c3000 + 0; print "delete[]", d3000 + 0
        print "sized", sized + 0; print "wrong_sized", wrong + 0 }' >"$W/got.txt"
{ cat "$W/program.txt"; awk '$1 == "size3000" { print "delete[]", $2 }' "$W/program.txt"; } >"$W/want.txt"
compare "$W/want.txt" "$W/got.txt" || fail "new/delete counts differ"
[ "$(awk '$1 == "sized" { print $2 }' "$W/got.txt")" -gt 5000 ] || fail "the sized deletes carry no size"
"$HATRACE" stats --json "$W/x.hatf" | grep -q '"new\[\]": 500' || fail "stats does not count new[] per function"

"$HATRACE" record -o "$W/m.hatf" -- "$BUILD/workloads/cxx_mismatch" >"$W/m-want.txt" 2>"$W/m-record.err" ||
  fail "record: $(cat "$W/m-record.err")"
if "$HATRACE" validate "$W/m.hatf" >"$W/m-val.txt"; then fail "validate passed the mismatched pairs"; fi
cat "$W/m-val.txt"
sed -n 's/.*mismatched release: \([^ ]*\) of .*/\1/p' "$W/m-val.txt" >"$W/m-got.txt"
cmp -s "$W/m-want.txt" "$W/m-got.txt" || fail "mismatches found: $(tr '\n' ' ' <"$W/m-got.txt"), want: $(tr '\n' ' ' <"$W/m-want.txt")"
grep -q " records, 5 problems$" "$W/m-val.txt" || fail "other problems than the five mismatches"
echo "record_cxx: ok"
