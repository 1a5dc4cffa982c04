#!/usr/bin/env bash
# A program linked with jemalloc is traced on top of jemalloc (the real
# functions are the next definitions after libhatrace.so): the exact-count
# workload, built here with -ljemalloc, must give the same exact counts.
. "$(dirname "$0")/record_lib.inc"
need_tools
src=$(dirname "$0")/../workloads/rec_counts.c
${CC:-cc} -O1 -DREC_JEMALLOC -o "$W/rec_counts_je" "$src" -ljemalloc -lpthread 2>"$W/cc.err" || { cat "$W/cc.err"; echo "no jemalloc to link"; exit 77; }
ldd "$W/rec_counts_je" | grep -q jemalloc || fail "not linked with jemalloc"
"$HATRACE" record -o "$W/j.hatf" -- "$W/rec_counts_je" >"$W/program.txt" 2>"$W/record.err" || fail "record: $(cat "$W/record.err")"
cat "$W/record.err"
grep -q " 0 dropped" "$W/record.err" || fail "events dropped"
validate_all "$W/j.hatf"
want_counts "$W/program.txt" "$(awk '$1 == "threads" { print $2 }' "$W/program.txt")" >"$W/want.txt" || exit  # and glibc's at thread exit
count_events "$W/j.hatf" 2 >"$W/got.txt"
compare "$W/want.txt" "$W/got.txt" || fail "counts differ under jemalloc"
# jemalloc's own per-thread statistics counted the worker's allocations
grep -q '^jemalloc_allocated [1-9]' "$W/program.txt" || fail "jemalloc did not serve the allocations"
echo "record_jemalloc: ok"
