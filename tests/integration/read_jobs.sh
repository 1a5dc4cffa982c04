#!/usr/bin/env bash
# Reading on several threads (-j N, --jobs N) changes nothing but the time:
# dump, stats --json, stats --timeline --json, validate and convert (to a
# container, byte for byte, to text and to CSV) print the same output, the same
# stderr and exit with the same status for -j 1, -j 2, -j 4 and the default
# (one per core), on a one-thread trace, a three-thread trace whose threads
# hand objects to each other, a synthetic three-thread trace with coarse times
# (ties across threads, put in causal order: made, not recorded, so that the
# ties are there however fast the machine ran), a damaged copy and a cut one.
# A bad -j value is one line and exit 2.
. "$(dirname "$0")/record_lib.inc"
need_tools
kv=$BUILD/examples/kvstore handoff=$BUILD/workloads/rec_handoff
[ -x "$kv" ] && [ -x "$handoff" ] || { echo "example or workload not built"; exit 77; }
# a flush every millisecond: many chunk groups, so that decoding threads run ahead
"$HATRACE" record --flush-ms 1 -o "$W/one.hatf" -- "$kv" 100000 >/dev/null 2>"$W/rec.err" ||
  fail "record kvstore: $(cat "$W/rec.err")"
"$HATRACE" record --flush-ms 1 -o "$W/threads.hatf" -- "$handoff" 40000 >/dev/null 2>"$W/rec.err" ||
  fail "record rec_handoff: $(cat "$W/rec.err")"
gen=$(cd "$(dirname "$0")" && pwd)/../../bench/replay_gen.py
python3 "$gen" --ops 300000 --threads 3 --cross 0.3 --seed 7 >"$W/syn.txt" || fail "replay_gen.py"
"$HATRACE" convert -j 1 --from text "$W/syn.txt" -o "$W/syn.hatf" 2>"$W/conv.err" || fail "convert the synthetic trace: $(cat "$W/conv.err")"
"$HATRACE" convert -j 1 --time-res 1000 "$W/syn.hatf" -o "$W/coarse.hatf" 2>"$W/conv.err" ||
  fail "convert --time-res: $(cat "$W/conv.err")"
cp "$W/threads.hatf" "$W/damaged.hatf"
size=$(stat -c %s "$W/damaged.hatf")
# the first payload byte of the records chunk after a third of the file and of
# the address chunk after two thirds (a chunk header: "HCHK", then its kind)
python3 - "$W/damaged.hatf" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
for kind, frac in ((1, 3), (2, 1.5)):
    i = b.find(b"HCHK", int(len(b) / frac))
    while i >= 0 and b[i + 4] != kind:
        i = b.find(b"HCHK", i + 1)
    assert i > 0, "no chunk of kind %d" % kind
    b[i + 64] ^= 0xff
open(p, 'wb').write(b)
PY
head -c $((size / 2)) "$W/threads.hatf" >"$W/cut.hatf"

groups() { "$HATRACE" stats -j 1 "$1" 2>/dev/null | awk '$1 == "chunk_groups" { print $2 }'; }
threads() { "$HATRACE" stats -j 1 --json "$1" 2>/dev/null | grep -c '"id":' ; }
for t in one threads coarse; do
  g=$(groups "$W/$t.hatf")
  [ "${g:-0}" -ge 5 ] || fail "$t.hatf: $g chunk groups, want at least 5 to read ahead"
done
[ "$(threads "$W/threads.hatf")" -ge 3 ] || fail "threads.hatf: fewer than 3 threads"
"$HATRACE" validate -j 1 "$W/coarse.hatf" 2>&1 | grep -q "put in another order" ||
  fail "coarse.hatf: no ties put in causal order"

# run NAME ARGS...: stdout, stderr and status of "hatrace ARGS" into $W/out.NAME.*
run() {
  local name=$1; shift
  "$HATRACE" "$@" >"$W/out.$name.stdout" 2>"$W/out.$name.stderr"
  echo $? >"$W/out.$name.status"
}
same() { # name ref: the two runs printed and exited the same
  for part in stdout stderr status; do
    cmp -s "$W/out.$2.$part" "$W/out.$1.$part" ||
      { diff "$W/out.$2.$part" "$W/out.$1.$part" | head -5; fail "$1: $part differs from $2"; }
  done
}
checked=0
for t in one threads coarse damaged cut; do
  f=$W/$t.hatf
  for j in 1 2 4 default; do
    opt=(-j "$j"); [ "$j" = default ] && opt=()
    run "$t.dump.$j" dump "${opt[@]}" "$f"
    run "$t.stats.$j" stats --json "${opt[@]}" "$f"
    run "$t.timeline.$j" stats --timeline --json "${opt[@]}" "$f"
    run "$t.validate.$j" validate "${opt[@]}" "$f"
    run "$t.text.$j" convert --to text "${opt[@]}" "$f" -o "$W/$t.$j.txt"
    run "$t.csv.$j" convert --to csv "${opt[@]}" "$f" -o "$W/$t.$j.csv"
    run "$t.copy.$j" convert "${opt[@]}" "$f" -o "$W/$t.$j.hatf"
    [ "$j" = 1 ] && continue
    for c in dump stats timeline validate text csv copy; do same "$t.$c.$j" "$t.$c.1"; checked=$((checked + 1)); done
    for x in txt csv hatf; do
      cmp -s "$W/$t.1.$x" "$W/$t.$j.$x" || fail "$t: convert -j $j to .$x differs from -j 1"
    done
  done
done
# what was compared holds something: events, and the damage where there is some
for t in one threads coarse damaged cut; do
  n=$(awk -F'[:,]' '/"records"/ { print $2 + 0; exit }' "$W/out.$t.stats.1.stdout")
  [ "${n:-0}" -gt 1000 ] || fail "$t: stats -j 1 counted ${n:-no} records"
done
for t in damaged cut; do
  [ "$(cat "$W/out.$t.stats.1.status")" = 3 ] || fail "$t: stats exit $(cat "$W/out.$t.stats.1.status"), want 3"
done
[ "$(grep -c "checksum mismatch.*events of thread [0-9]* skipped" "$W/out.damaged.stats.1.stderr")" -eq 2 ] ||
  fail "damaged: not two damage lines: $(cat "$W/out.damaged.stats.1.stderr")"

# a bad value: one line, exit 2
for v in 0 x 257 -1 ""; do
  "$HATRACE" stats -j "$v" "$W/one.hatf" >"$W/bad.out" 2>"$W/bad.err"; s=$?
  [ $s -eq 2 ] || fail "stats -j '$v': exit $s, want 2"
  [ "$(wc -l <"$W/bad.err")" -eq 1 ] && [ ! -s "$W/bad.out" ] || fail "stats -j '$v': $(cat "$W/bad.err" "$W/bad.out")"
done
for cmd in dump validate convert replay report; do
  "$HATRACE" $cmd --jobs 0 "$W/one.hatf" >/dev/null 2>"$W/bad.err"; s=$?
  [ $s -eq 2 ] && [ "$(wc -l <"$W/bad.err")" -eq 1 ] || fail "$cmd --jobs 0: exit $s, $(cat "$W/bad.err")"
done
echo "read_jobs: ok ($checked outputs the same as -j 1's)"
