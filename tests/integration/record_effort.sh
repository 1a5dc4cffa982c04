#!/usr/bin/env bash
# The coding chosen per chunk group (docs/recorder.md, "Effort"):
#   --effort fast: every event in groups coded fast (address coding 4) and
#     packed by zstd, exactly the calls the program counted, a clean validate;
#     --effort stored: the same calls, every one stored unpacked, in a file
#     at least twice as large; convert --best of either gives the same events (dump) in a smaller one;
#   --effort full: none coded fast;
#   auto with more threads allocating flat out than there are CPUs (no CPU
#     idle, whatever else the machine runs): some groups coded fast, every
#     event recorded;
#   a bad --effort is a usage error.
. "$(dirname "$0")/record_lib.inc"
need_tools
counts=$BUILD/workloads/rec_counts load=$BUILD/workloads/rel_load kv=$BUILD/examples/kvstore
for p in "$counts" "$load" "$kv"; do [ -x "$p" ] || { echo "$(basename "$p") not built"; exit 77; }; done

# fast: exact counts, the summary says so
"$HATRACE" record --effort fast -o "$W/c.hatf" -- "$counts" >"$W/program.txt" 2>"$W/c.err" || fail "record: $(cat "$W/c.err")"
cat "$W/c.err"
grep -q "0 dropped" "$W/c.err" || fail "fast: events dropped"
grep -q "100% of events coded fast, 0% stored unpacked" "$W/c.err" || fail "fast: not every event coded fast and packed"
validate_all "$W/c.hatf"
want_counts "$W/program.txt" "$(awk '$1 == "threads" { print $2 }' "$W/program.txt")" >"$W/want.txt" || exit  # and glibc's at thread exit
count_events "$W/c.hatf" 2 >"$W/got.txt"
compare "$W/want.txt" "$W/got.txt" || fail "fast: counts by function/op differ"

# stored: the same events, unpacked, in a larger file
"$HATRACE" record --effort stored -o "$W/s.hatf" -- "$counts" >/dev/null 2>"$W/s.err" || fail "record stored: $(cat "$W/s.err")"
grep -q "100% of events coded fast, 100% stored unpacked (--effort stored" "$W/s.err" ||
  fail "stored: not every event stored: $(cat "$W/s.err")"
validate_all "$W/s.hatf"
count_events "$W/s.hatf" 2 >"$W/got.txt"
compare "$W/want.txt" "$W/got.txt" || fail "stored: counts by function/op differ"
packed_size=$(stat -c %s "$W/c.hatf") stored_size=$(stat -c %s "$W/s.hatf")
echo "packed $packed_size bytes, stored $stored_size"
[ $((packed_size * 2)) -lt "$stored_size" ] || fail "packed fast groups not half the stored size ($packed_size, $stored_size)"

# convert --best recodes it in full: the same events, fewer bytes
"$HATRACE" convert --best "$W/c.hatf" -o "$W/best.hatf" || fail "convert --best"
validate_all "$W/best.hatf"
"$HATRACE" dump "$W/c.hatf" | grep -v '^#' >"$W/fast.txt" || fail "dump fast"
"$HATRACE" dump "$W/best.hatf" | grep -v '^#' >"$W/best.txt" || fail "dump best"
[ -s "$W/fast.txt" ] || fail "empty dump"
cmp -s "$W/fast.txt" "$W/best.txt" || fail "convert --best changed the events"
fast_size=$packed_size best_size=$(stat -c %s "$W/best.hatf")
echo "fast $fast_size bytes, after convert --best $best_size"
[ "$best_size" -lt "$fast_size" ] || fail "convert --best is not smaller ($best_size >= $fast_size)"
# stats tells the codings apart: every group of the one, none of the other
events=$("$HATRACE" stats "$W/c.hatf" | awk '$1 == "records" { print $2 }')
"$HATRACE" stats "$W/c.hatf" | grep -E "^chunk_groups +([0-9]+) \(\1 coded fast, $events events; hatrace convert" ||
  fail "stats of the fast trace: $("$HATRACE" stats "$W/c.hatf" | grep chunk_groups)"
"$HATRACE" stats "$W/best.hatf" | grep -qE "^chunk_groups +[0-9]+ \(0 coded fast, 0 events\)$" ||
  fail "stats of the recoded trace: $("$HATRACE" stats "$W/best.hatf" | grep chunk_groups)"

# full: nothing coded fast
"$HATRACE" record --effort full -o "$W/k.hatf" -- "$kv" 100000 >/dev/null 2>"$W/k.err" || fail "record full: $(cat "$W/k.err")"
grep -q " 0% of events coded fast" "$W/k.err" || fail "full: events coded fast: $(cat "$W/k.err")"
validate_all "$W/k.hatf"

# auto, every CPU kept busy by the program itself: it codes fast, loses nothing
threads=$(( $(nproc) * 2 ))
"$HATRACE" record -o "$W/l.hatf" -- "$load" flat "$threads" 600 >"$W/l.out" 2>"$W/l.err" || fail "record auto: $(cat "$W/l.err")"
cat "$W/l.err"
grep -q "0 dropped" "$W/l.err" || fail "auto: events dropped"
pct=$(sed -nE 's/.*; ([0-9]+)% of events coded fast.*/\1/p' "$W/l.err")
[ -n "$pct" ] && [ "$pct" -gt 0 ] || fail "auto with every CPU busy coded nothing fast"
"$HATRACE" stats "$W/l.hatf" >"$W/l.stats" || fail "stats"
awk '$1 ~ /^[0-9]+$/ && $1 >= 2 && NF >= 6 { a += $(NF-3); f += $(NF-2) }
     END { print "mallocs", a + 0; print "frees", f + 0 }' "$W/l.stats" >"$W/l.got"
x=$(exit_frees) || exit  # glibc's frees at each thread's exit (record_lib.inc)
grep -E '^(mallocs|frees) ' "$W/l.out" | awk -v x="$((x * threads))" '$1 == "frees" { $2 += x } { print }' >"$W/l.want"
compare "$W/l.want" "$W/l.got" || fail "auto: counts differ"

# a bad mode
"$HATRACE" record --effort lots -- true 2>"$W/bad.err"
[ $? -eq 2 ] || fail "--effort lots: exit status"
grep -q "expected auto, fast, full or stored" "$W/bad.err" || fail "--effort lots: $(cat "$W/bad.err")"
echo "record_effort: ok"
