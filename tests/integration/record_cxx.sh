#!/usr/bin/env bash
# C++ new/delete and new[]/delete[] reach malloc/free through libstdc++ and are
# recorded as such.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/rec_cxx
[ -x "$prog" ] || { echo "workload not built"; exit 77; }
"$HATRACE" record -o "$W/x.hatf" -- "$prog" >"$W/program.txt" 2>"$W/record.err" || fail "record: $(cat "$W/record.err")"
cat "$W/program.txt" "$W/record.err"
validate_all "$W/x.hatf"
"$HATRACE" dump "$W/x.hatf" | awk '$4 == "alloc" && ($5 == 72 || $5 == 3000) && ($7 == "" || $7 == "func=malloc") { c[$5]++ }
  END { print "size72", c[72] + 0; print "size3000", c[3000] + 0 }' >"$W/got.txt"
compare "$W/program.txt" "$W/got.txt" || fail "new/delete counts differ"
echo "record_cxx: ok"
