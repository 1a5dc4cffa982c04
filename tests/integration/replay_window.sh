#!/usr/bin/env bash
# The replay's plan file and its windows do not change what is replayed: a
# replay with tiny windows (--window-ops 4 and 7: a segment of 2 or 3 ops, the
# flags of nearly every op written into the file afterwards) gives the same op
# counts, calls, peak live bytes and objects, compiler counts (cross-thread
# waits, lost objects) as one whose window holds the whole plan, on a
# multi-threaded trace with cross-thread frees and on a damaged trace (exit 3
# both). On one runner thread the allocator's resident memory at the peak of
# live bytes is read at the same op in the same process layout, so the
# fragmentation at the peak (and that reading) must agree too, within 1 %; with several
# runner threads it depends on how they interleave, so only the counts are
# compared there. A TMPDIR that cannot be written is one clear line, exit 1.
. "$(dirname "$0")/record_lib.inc"
need_tools
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
gen=$here/../../bench/replay_gen.py

# the figures that must not depend on the window, one allocator per line
figs() {
  python3 - "$1" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    keys = ["ops", "calls", "peak_live_bytes", "peak_live_objects", "skipped_calls"]
    print(r["allocator"], " ".join("%s=%s" % (k, r[k]) for k in keys), "plan=%s" % json.dumps(r["plan"], sort_keys=True))
PY
}
# On one runner thread, the resident reading at the peak of live bytes and its
# fragmentation agree within 1 % (a sanitizer's allocator, or the kernel, may
# move a few pages: an exact count would test the machine, not the plan)
rss_close() { # NAME_A NAME_B
  python3 - "$W/$1.json" "$W/$2.json" <<'PY' || fail "$2: resident memory at the peak differs from $1's by over 1 %"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for x, y in zip(a, b):
    if x["runner_threads"] != 1 or x["allocator"] == "null": continue
    for k in ("rss_at_peak_live", "frag_at_peak_live"):
        assert abs(x[k] - y[k]) <= 0.01 * max(abs(x[k]), 1), (x["allocator"], k, x[k], y[k])
PY
}
# replay NAME FILE WINDOW [options]: figures into $W/NAME.figs, exit status into $W/NAME.rc
replay() {
  local name=$1 file=$2 win=$3; shift 3
  "$HATRACE" replay --json --window-ops "$win" "$@" "$file" >"$W/$name.json" 2>"$W/$name.err"
  echo $? >"$W/$name.rc"
  [ -s "$W/$name.json" ] || { cat "$W/$name.err"; fail "$name: no output"; }
  figs "$W/$name.json" >"$W/$name.figs" || fail "$name: bad JSON"
}
same() { # NAME_A NAME_B
  cmp -s "$W/$1.figs" "$W/$2.figs" || { diff "$W/$1.figs" "$W/$2.figs"; fail "$2 differs from $1"; }
  [ "$(cat "$W/$1.rc")" = "$(cat "$W/$2.rc")" ] || fail "$2: exit $(cat "$W/$2.rc"), $1: $(cat "$W/$1.rc")"
}

# a synthetic trace: 4 threads, a third of the frees by another thread, reallocs
python3 "$gen" --ops 20000 --threads 4 --cross 0.3 --seed 7 >"$W/mt.txt" || fail "replay_gen.py"
for threads in trace 1; do
  replay "whole-$threads" "$W/mt.txt" 4294967296 --from text --threads $threads --allocator null,glibc
  grep -q '"waits": 0,' "$W/whole-$threads.json" && [ $threads = trace ] && fail "no cross-thread frees in the trace"
  for win in 4 7; do
    replay "w$win-$threads" "$W/mt.txt" $win --from text --threads $threads --allocator null,glibc
    same "whole-$threads" "w$win-$threads"
    rss_close "whole-$threads" "w$win-$threads"
    grep -q '"plan_segments": [0-9]\{4,\}' "$W/w$win-$threads.json" || fail "--window-ops $win made few segments"
  done
  [ "$(cat "$W/whole-$threads.rc")" = 0 ] || { cat "$W/whole-$threads.err"; fail "replay --threads $threads"; }
done

# a damaged container: the lost group's objects are skipped alike, exit 3
prog=$BUILD/examples/kvstore
if [ -x "$prog" ]; then
  "$HATRACE" record -o "$W/k.hatf" -- "$prog" 60000 >/dev/null 2>"$W/rec.err" || fail "record: $(cat "$W/rec.err")"
  # a container's plan goes in memory (its size is known and small), with TMPDIR
  # set in that directory: the same figures
  saved_tmpdir=${TMPDIR-}
  unset TMPDIR
  replay kmem "$W/k.hatf" 7 --allocator null
  export TMPDIR=$W
  replay kdir "$W/k.hatf" 7 --allocator null
  if [ -n "$saved_tmpdir" ]; then export TMPDIR=$saved_tmpdir; else unset TMPDIR; fi
  grep -q '"plan_where": "memory"' "$W/kmem.json" || fail "a small container's plan not in memory"
  grep -q "\"plan_where\": \"$W\"" "$W/kdir.json" || fail "TMPDIR's plan not in TMPDIR"
  same kmem kdir
  # one byte flipped in the middle of the records chunk of the largest group (a
  # worker's: the main thread or a group a flush sealed with a few events may
  # free only, leaving no object whose release comes later; the file's middle
  # byte landed in one of those on a loaded machine)
  python3 - "$W/k.hatf" <<'PY' || fail "damaged: no records chunk found"
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
at, best = struct.unpack_from('<I', b, 12)[0], None  # the chunks start after the header
while at + 64 <= len(b) and b[at:at + 4] == b'HCHK':
    kind, events, stored = b[at + 4], *struct.unpack_from('<I', b, at + 20), *struct.unpack_from('<I', b, at + 28)
    if kind == 1 and (best is None or events > best[0]):
        best = (events, at + 64 + stored // 2)
    at += 64 + stored
if best is None:
    sys.exit(1)
b[best[1]] ^= 0xff
open(p, 'wb').write(b)
PY
  for threads in trace 1; do
    replay "dwhole-$threads" "$W/k.hatf" 4294967296 --threads $threads --allocator null
    [ "$(cat "$W/dwhole-$threads.rc")" = 3 ] || { cat "$W/dwhole-$threads.err"; fail "damaged: exit $(cat "$W/dwhole-$threads.rc"), want 3"; }
    grep -q '"lost_objects": [1-9]' "$W/dwhole-$threads.json" || fail "damaged: no lost objects"
    replay "dw5-$threads" "$W/k.hatf" 5 --threads $threads --allocator null
    same "dwhole-$threads" "dw5-$threads"
  done
else
  echo "kvstore not built: the damaged trace is not tried"
fi

# the plan file cannot be made: one line naming the directory, exit 1
TMPDIR=$W/nosuch "$HATRACE" replay --from text --allocator null "$W/mt.txt" >/dev/null 2>"$W/tmp.err"; s=$?
[ $s = 1 ] || fail "unwritable TMPDIR: exit $s"
[ "$(wc -l <"$W/tmp.err")" = 1 ] && grep -q "cannot create the replay plan file in $W/nosuch" "$W/tmp.err" ||
  { cat "$W/tmp.err"; fail "unwritable TMPDIR: message"; }
"$HATRACE" replay --window-ops 3 "$W/mt.txt" >/dev/null 2>&1; [ $? = 2 ] || fail "--window-ops 3 accepted"
echo "replay_window: ok"
