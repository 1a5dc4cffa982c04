#!/usr/bin/env bash
# The heap over time of a recorded C++ program (tests/workloads/stacks_cxx.cc):
# stats --timeline's intervals add up to stats' own counts, their peak is its
# max_live_bytes and their end its live_bytes_at_end; stats --massif is read by
# valgrind's ms_print, its peak snapshot holds max_live_bytes with a call tree
# that adds up, every tenth interval's snapshot a tree of what was live then,
# and its last snapshot the leaked Crates under their function.
. "$(dirname "$0")/record_lib.inc"
need_tools
command -v ms_print >/dev/null || { echo "ms_print (valgrind) not installed"; exit 77; }
record_stacks "$BUILD/workloads/stacks_cxx" "$W/c.hatf"
"$HATRACE" stats --json "$W/c.hatf" >"$W/stats.json" || fail "stats --json"

for points in 1 7 50; do
  "$HATRACE" stats --timeline --json --points $points "$W/c.hatf" >"$W/tl.json" || fail "stats --timeline --json"
  python3 - "$W/stats.json" "$W/tl.json" $points <<'PY' || fail "--timeline --points $points does not add up"
import json, sys
s, t, points = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
v = t["intervals"]
assert 1 <= len(v) <= points, len(v)
assert sum(x["allocs"] for x in v) == s["allocs"] + s["reallocs"]
assert sum(x["frees"] for x in v) == s["frees"] - s["free_null"]
assert max(x["max_live_bytes"] for x in v) == t["max_live_bytes"] == s["max_live_bytes"] > 0
assert v[-1]["live_bytes"] == s["live_bytes_at_end"] and v[-1]["live_objects"] == s["live_objects_at_end"]
ends = [x["end"] for x in v]
assert ends == sorted(ends) and 0 <= t["peak_at"] <= ends[-1] == s["duration_ns"], (ends, t["peak_at"])
assert all(x["max_live_bytes"] >= x["live_bytes"] for x in v)
PY
done
# the table: one line per interval, the peak named above them
"$HATRACE" stats --timeline --points 7 "$W/c.hatf" >"$W/tl.txt" || fail "stats --timeline"
max=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["max_live_bytes"])' "$W/stats.json")
grep -q "^heap peak: $max bytes at " "$W/tl.txt" || { cat "$W/tl.txt"; fail "--timeline: the peak"; }
[ "$(grep -c '|#' "$W/tl.txt")" -ge 1 ] || fail "--timeline: no bars"

"$HATRACE" stats --massif "$W/c.hatf" >"$W/massif.out" || fail "stats --massif"
ms_print "$W/massif.out" >"$W/ms_print.txt" 2>&1 || { cat "$W/ms_print.txt"; fail "ms_print cannot read it"; }
grep -q "Detailed snapshots: \[.*(peak)" "$W/ms_print.txt" || fail "ms_print: no peak snapshot"
python3 - "$W/stats.json" "$W/massif.out" <<'PY' || fail "--massif: the snapshots or trees do not add up"
import json, re, sys
s = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().splitlines()
assert lines[0].startswith("desc: ") and lines[1].startswith("cmd: ") and lines[2] == "time_unit: ms"
snaps, i = [], 3
while i < len(lines):
    if lines[i].startswith("snapshot="):
        f = dict(l.split("=", 1) for l in lines[i:i + 7] if "=" in l and not l.startswith("#"))
        tree, i = [], i + 7
        while i < len(lines) and re.match(r"^ *n\d+: ", lines[i]):
            tree.append(lines[i]); i += 1
        snaps.append((f, tree))
    else:
        i += 1
times = [int(f["time"]) for f, _ in snaps]
assert times == sorted(times)
peak = [x for x in snaps if x[0]["heap_tree"] == "peak"]
assert len(peak) == 1 and int(peak[0][0]["mem_heap_B"]) == s["max_live_bytes"]
assert max(int(f["mem_heap_B"]) for f, _ in snaps) == s["max_live_bytes"]
last = snaps[-1]
assert last[0]["heap_tree"] == "detailed" and int(last[0]["mem_heap_B"]) == s["live_bytes_at_end"]

def check(tree, total):
    # each node's bytes, its children's (by indentation) at most that, the root the snapshot's
    nodes = [(len(l) - len(l.lstrip()), int(re.match(r" *n(\d+): (\d+)", l).group(2)),
              int(re.match(r" *n(\d+):", l).group(1)), l.strip()) for l in tree]
    assert nodes[0][0] == 0 and nodes[0][1] == total, nodes[0]
    for k, (depth, b, nchildren, text) in enumerate(nodes):
        kids = []
        for d2, b2, _, _ in nodes[k + 1:]:
            if d2 <= depth: break
            if d2 == depth + 1: kids.append(b2)
        assert len(kids) == nchildren and sum(kids) <= b, (text, kids)
    return [n[3] for n in nodes]

check(peak[0][1], s["max_live_bytes"])
end = check(last[1], s["live_bytes_at_end"])
# snapshot 0, one per interval, the peak: every tenth interval's is detailed, and the last
intervals = len(snaps) - 2
detailed = [x for x in snaps if x[0]["heap_tree"] == "detailed"]
assert intervals >= 11 and len(detailed) == (intervals - 1) // 10 + 1, (intervals, len(detailed))
for f, tree in detailed:
    check(tree, int(f["mem_heap_B"]))
# the 5 leaked Crates (1000 bytes) under their function
assert any(re.match(r"n\d+: 1000 0x[0-9A-F]+: shop::Crate\* shop::restock<shop::Crate>\(unsigned long\)", t) for t in end), end
PY
echo "ok"
