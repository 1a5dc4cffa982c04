#!/usr/bin/env bash
# convert --to chrome (Trace Event Format JSON), read by a model builder we
# did not write (the npm registry's @tracerbench/trace-model, through
# tests/node/chrome_read.mjs): the heap's counters equal stats --timeline
# --json's intervals with the same --points (live bytes, live objects, most
# live bytes, resident bytes where sampled, at the same times); the phases
# of tests/workloads/phases.c are slices as long as stats --phases says; per
# thread, the live bytes left at the end add up to stats' live bytes at the end,
# also with 2000 threads, the ones after the first 256 on one track.
. "$(dirname "$0")/export_lib.inc"
need_tools
need_node_readers
prog=$BUILD/workloads/phases
[ -x "$prog" ] || { echo "workload not built"; exit 77; }
"$HATRACE" record -o "$W/p.hatf" -- "$prog" >/dev/null 2>"$W/rec.err" || fail "record: $(cat "$W/rec.err")"

for points in 50 400; do
  "$HATRACE" convert --to chrome --points $points "$W/p.hatf" -o "$W/p$points.json" || fail "convert --to chrome"
  node "$NODE_DIR/chrome_read.mjs" "$W/p$points.json" >"$W/read$points.json" || fail "the model builder could not read it"
  "$HATRACE" stats --timeline --json --points $points "$W/p.hatf" >"$W/tl$points.json" || fail "stats --timeline"
  python3 - "$W/read$points.json" "$W/tl$points.json" <<'PY' || fail "counters differ from stats --timeline (--points $points)"
import json, sys
r, tl = (json.load(open(f)) for f in sys.argv[1:3])
assert tl["unit"] == "ns"
iv = tl["intervals"]
c = r["counters"]
for name, key in (("heap live bytes/live_bytes", "live_bytes"), ("heap live objects/live_objects", "live_objects"),
                  ("heap most live bytes in the interval/max_live_bytes", "max_live_bytes")):
    got = c[name]
    assert [v for _, v in got] == [x[key] for x in iv], name
    assert all(abs(t - x["end"] / 1000) < 0.002 for (t, _), x in zip(got, iv)), name
assert max(v for _, v in c["heap most live bytes in the interval/max_live_bytes"]) == tl["max_live_bytes"]
res = [x["resident_bytes"] for x in iv if "resident_bytes" in x]
got = [v for _, v in c.get("resident bytes/resident_bytes", [])]
assert got and len(got) <= len(res) and res[len(res) - len(got):] == got, (got, res)  # absent until sampled
PY
done

# the phases: slices named by the comments, as long as stats --phases says
"$HATRACE" stats --phases --json "$W/p.hatf" >"$W/ph.json" || fail "stats --phases"
python3 - "$W/read50.json" "$W/ph.json" <<'PY' || fail "phase slices differ from stats --phases"
import json, sys
r, st = (json.load(open(f)) for f in sys.argv[1:3])
num, den = st["time_unit_ns"]
want = [(p["name"], (p["last_time"] - p["first_time"]) * num / den / 1000) for p in st["phases"]]
got = [(s["name"], s["duration"]) for s in r["slices"]]
assert [n for n, _ in got] == [n for n, _ in want], (got, want)
assert all(abs(a - b) < 0.002 for (_, a), (_, b) in zip(got, want)), (got, want)
starts = [s["start"] for s in r["slices"]]
assert starts == sorted(starts)
PY

# per thread: the tracks of TRACE's threads (TRACKS of them), their last values adding
# up to what is live at the end, none above the heap's peak
check_threads() {
  "$HATRACE" convert --to chrome "$1" -o "$1.json" || fail "convert --to chrome $1"
  node "$NODE_DIR/chrome_read.mjs" "$1.json" >"$1.read.json" || fail "the model builder could not read $1.json"
  "$HATRACE" stats --json "$1" >"$1.stats.json" || fail "stats --json $1"
  python3 - "$1.read.json" "$1.stats.json" "$2" <<'PY' || fail "the threads' counters of $1"
import json, sys
r, st = (json.load(open(f)) for f in sys.argv[1:3])
per = {k: v for k, v in r["counters"].items() if k.startswith("live bytes of ")}
assert len(per) == int(sys.argv[3]) == len(r["threads"]), (len(per), sys.argv[3], len(r["threads"]))
assert sum(v[-1][1] for v in per.values()) == st["live_bytes_at_end"], per
assert max(max(x for _, x in v) for v in per.values()) <= st["max_live_bytes"]
if len(st["threads"]) > 256:
    assert "live bytes of the threads after the first 256/live_bytes" in per
PY
}
record_stacks "$BUILD/workloads/stacks_sites" "$W/s.hatf"
check_threads "$W/s.hatf" 3
# 2000 threads (tests/workloads/rec_storm.c): 256 tracks of their own, one for the rest
storm=$BUILD/workloads/rec_storm
[ -x "$storm" ] || fail "workload rec_storm not built"
"$HATRACE" record -o "$W/storm.hatf" -- "$storm" >/dev/null 2>"$W/rec.err" || fail "record rec_storm: $(cat "$W/rec.err")"
check_threads "$W/storm.hatf" 257
echo "chrome: counters equal stats --timeline's at 50 and 400 points; 4 phases; 3 threads, and 2000 on 257 tracks"
