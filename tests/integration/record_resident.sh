#!/usr/bin/env bash
# The recorder samples the process's resident memory each flush interval and
# at the end (tables entry 8): a program that makes 64 MiB resident, holds it,
# then frees it shows a peak at least that much above its first sample, and
# replay puts the recorded program's peak resident beside the allocators'.
# stats --timeline and --massif show them beside the live bytes (massif's
# mem_heap_extra_B: the resident bytes over them). A copy made by convert keeps the samples. The program's own mmap, mremap,
# munmap and sbrk calls are in the trace as "hatrace-map" comments, in order;
# a thread's unmapping after its end (libunwind's per-thread cache of the
# recorder's stack walks, freed by its key destructor under --stacks) is neither
# recorded (tests/workloads/stacks_sites maps nothing itself) nor counted as dropped.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/rss_grow
[ -x "$prog" ] || { echo "workload not built"; exit 77; }
"$HATRACE" record -o "$W/r.hatf" -- "$prog" >"$W/made.txt" 2>"$W/rec.err" || fail "record: $(cat "$W/rec.err")"
made=$(head -1 "$W/made.txt")
tail -n +2 "$W/made.txt" >"$W/maps-want.txt"
"$HATRACE" dump "$W/r.hatf" | sed -n 's/^.* comment "hatrace-map \(.*\)"$/\1/p' |
  awk '{ if ($1 == "mmap") print $1, $3, $4; else if ($1 == "mremap") print $1, $3, $5; else if ($1 == "munmap") print $1, $3; else print }' \
  >"$W/maps-got.txt"
cmp -s "$W/maps-want.txt" "$W/maps-got.txt" || { diff "$W/maps-want.txt" "$W/maps-got.txt"; fail "the program's mappings as recorded"; }
"$HATRACE" replay --allocator null "$W/r.hatf" >"$W/replay.txt" 2>"$W/replay.err" || fail "replay: $(cat "$W/replay.err")"
line=$(grep '^recorded program: peak resident' "$W/replay.txt") || { cat "$W/replay.txt"; fail "replay says nothing of the program's resident memory"; }
echo "$line"
"$HATRACE" replay --allocator null --json "$W/r.hatf" >"$W/replay.json" 2>/dev/null || fail "replay --json"
peak=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["program_peak_resident_bytes"])' "$W/replay.json") ||
  fail "no program_peak_resident_bytes"
[ "$peak" -ge "$made" ] || fail "peak resident $peak under the $made bytes the program made resident"
# stats counts the mappings and gives the peak resident
"$HATRACE" stats --json "$W/r.hatf" >"$W/s.json" || fail "stats --json"
python3 - "$W/s.json" "$made" <<'PY' || fail "stats: mappings or resident"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["mappings"] == {"mmap": 1, "mmap_bytes": 16 << 20, "munmap": 1, "munmap_bytes": 32 << 20, "mremap": 1,
                         "brk": 2, "brk_bytes": 0}, s["mappings"]
assert s["container"]["max_resident_bytes"] >= int(sys.argv[2]) and s["container"]["resident_samples"] >= 2
PY
# stats --timeline shows it beside the live bytes
"$HATRACE" stats --timeline --json "$W/r.hatf" >"$W/tl.json" || fail "stats --timeline --json"
python3 -c 'import json,sys; t = json.load(open(sys.argv[1])); assert max(i.get("resident_bytes", 0) for i in t["intervals"]) >= int(sys.argv[2])' \
  "$W/tl.json" "$made" || fail "stats --timeline: no interval with the resident bytes the program made"
"$HATRACE" stats --timeline "$W/r.hatf" | grep -q ' resident_bytes$' || fail "stats --timeline: no resident column"
# stats --massif: each interval's snapshot has the live bytes as mem_heap_B and what
# --timeline's resident_bytes are over them as mem_heap_extra_B (the peak's too), so the
# total reaches what the program made resident (an interval before the first sample
# has no resident_bytes: extra 0); a trace without samples (its text form) has
# mem_heap_extra_B 0 throughout
massif_check() { # MASSIF TIMELINE.json MADE|none
  python3 - "$@" <<'PY'
import json, sys
text, tl, made = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), sys.argv[3]
snaps = []
for part in text.split("snapshot=")[1:]:
    kv = dict(l.split("=", 1) for l in part.splitlines()[1:] if "=" in l and not l.startswith("#"))
    snaps.append((int(kv["mem_heap_B"]), int(kv["mem_heap_extra_B"]), kv["heap_tree"]))
desc = text.splitlines()[0]
ivs = tl["intervals"]
peak = [s for s in snaps if s[2] == "peak"]
ends = [s for s in snaps[1:] if s[2] != "peak"]
assert len(peak) == 1 and len(ends) == len(ivs), (len(peak), len(ends), len(ivs))
if made == "none":
    assert all(s[1] == 0 for s in snaps), "mem_heap_extra_B without resident samples"
    assert "resident" not in desc, desc
    sys.exit(0)
assert "resident" in desc, desc
for s, iv in zip(ends, ivs):
    assert s[0] == iv["live_bytes"] and s[1] == max(0, iv.get("resident_bytes", 0) - iv["live_bytes"]), (s, iv)
i = next(k for k, iv in enumerate(ivs) if iv["max_live_bytes"] == tl["max_live_bytes"])
assert peak[0][0] == tl["max_live_bytes"] and peak[0][1] == max(0, ivs[i].get("resident_bytes", 0) - peak[0][0]), (peak, ivs[i])
assert max(h + x for h, x, _ in snaps) >= int(made), "no snapshot reaches the resident bytes the program made"
PY
}
"$HATRACE" stats --massif "$W/r.hatf" >"$W/massif.out" 2>/dev/null || fail "stats --massif"
massif_check "$W/massif.out" "$W/tl.json" "$made" || fail "stats --massif: mem_heap_extra_B is not the resident bytes over the live ones"
if command -v ms_print >/dev/null; then
  ms_print "$W/massif.out" >"$W/ms_print.txt" 2>&1 || { cat "$W/ms_print.txt"; fail "ms_print cannot read it"; }
  grep -q 'extra-heap(B)' "$W/ms_print.txt" || fail "ms_print: no extra-heap column"
fi
"$HATRACE" convert --to text "$W/r.hatf" -o "$W/r.txt" 2>/dev/null || fail "convert --to text"
# the text form keeps the samples (its #resident lines); without them, a trace that has none
"$HATRACE" stats --from text --timeline --json "$W/r.txt" | grep -q resident_bytes || fail "the text form lost the resident samples"
grep -v '^#resident ' "$W/r.txt" >"$W/r0.txt"
"$HATRACE" stats --from text --massif "$W/r0.txt" >"$W/massif0.out" 2>/dev/null || fail "stats --massif (text)"
"$HATRACE" stats --from text --timeline --json "$W/r0.txt" >"$W/tl0.json" || fail "stats --timeline --json (text)"
! grep -q resident_bytes "$W/tl0.json" || fail "a text form without #resident lines has resident samples"
massif_check "$W/massif0.out" "$W/tl0.json" none || fail "stats --massif of a trace without resident samples"
"$HATRACE" convert "$W/r.hatf" -o "$W/c.hatf" 2>/dev/null || fail "convert"
"$HATRACE" replay --allocator null --json "$W/c.hatf" >"$W/copy.json" 2>/dev/null || fail "replay of the copy"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))[0]["program_peak_resident_bytes"] == int(sys.argv[2])' \
  "$W/copy.json" "$peak" || fail "the copy lost the resident samples"
# the samples take out the recorder's own memory (its rings and its heap), so a
# small program's resident figure is the program's: kvstore's recorded peak is
# within a few MB of its peak natively, where the recorder's ~16 MB of buffers
# would put it far above
if [ -x "$BUILD/examples/kvstore" ]; then
  /usr/bin/time -f %M -o "$W/native.kb" "$BUILD/examples/kvstore" 200000 >/dev/null || fail "kvstore natively"
  "$HATRACE" record --no-figures -o "$W/k.hatf" -- "$BUILD/examples/kvstore" 200000 >/dev/null 2>&1 || fail "record kvstore"
  "$HATRACE" stats --json "$W/k.hatf" >"$W/k.json" || fail "stats kvstore"
  python3 - "$W/k.json" "$(tail -1 "$W/native.kb")" <<'PY' || fail "kvstore's resident figure holds the recorder's memory"
import json, sys
c = json.load(open(sys.argv[1]))["container"]
native = int(sys.argv[2]) * 1024
assert c["resident_samples"] >= 1, c
assert 0 < c["max_resident_bytes"] <= native + (6 << 20), (c["max_resident_bytes"], native)
PY
fi
# --stacks with threads: libunwind unmaps each thread's cache after its thread-destroy
if [ -x "$BUILD/workloads/stacks_sites" ]; then
  "$HATRACE" record --stacks -o "$W/s.hatf" -- "$BUILD/workloads/stacks_sites" >/dev/null 2>"$W/s.err" ||
    fail "record --stacks: $(cat "$W/s.err")"
  if ! grep -q "built without libunwind" "$W/s.err"; then
    grep -q ' 0 dropped' "$W/s.err" || fail "a --stacks recording of threads dropped events: $(grep dropped "$W/s.err")"
    maps=$("$HATRACE" dump "$W/s.hatf" | grep 'hatrace-map') && fail "the recorder's own mappings recorded: $maps"
  fi
fi
echo "record_resident: ok"
