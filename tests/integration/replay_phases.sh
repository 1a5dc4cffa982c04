#!/usr/bin/env bash
# replay --phases splits each allocator's figures at the program's comments
# (tests/workloads/phases.c marks three phases): per phase the ops equal
# stats --phases' calls (allocs + frees + reallocs) and add up to the run's,
# the calls made add up to the run's, the peak live bytes equal stats'; on
# one runner thread and on the trace's threads, with null and glibc. Without
# --phases the output has no phases.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/phases
[ -x "$prog" ] || { echo "workload not built"; exit 77; }
"$HATRACE" record -o "$W/p.hatf" -- "$prog" >/dev/null 2>"$W/rec.err" || fail "record: $(cat "$W/rec.err")"
"$HATRACE" stats --phases --json "$W/p.hatf" >"$W/s.json" || fail "stats --phases --json"
for threads in trace 1; do
  "$HATRACE" replay --phases --json --threads "$threads" --allocator null,glibc "$W/p.hatf" >"$W/r.json" 2>"$W/r.err" ||
    fail "replay --phases --threads $threads: $(cat "$W/r.err")"
  python3 - "$W/s.json" "$W/r.json" <<'PY' || fail "replay --phases --threads $threads differs from stats --phases"
import json, sys
s = json.load(open(sys.argv[1]))
want = {p["name"]: p for p in s["phases"]}
runs = json.load(open(sys.argv[2]))
assert [r["allocator"] for r in runs] == ["null", "glibc"]
for r in runs:
    got = {p["name"]: p for p in r["phases"]}
    assert [p["name"] for p in r["phases"] if p["name"] != "(start)"] == ["phase 1", "phase 2", "phase 3"], got
    for name, w in want.items():
        g = got.get(name, {"ops": 0, "calls": 0, "peak_live_bytes": 0})
        assert g["ops"] == w["allocs"] + w["frees"] + w["reallocs"], (r["allocator"], name, g, w)
        if name in got:
            assert g["peak_live_bytes"] == w["max_live_bytes"], (r["allocator"], name, g, w)
    assert set(got) <= set(want), (set(got), set(want))
    assert sum(p["ops"] for p in r["phases"]) == r["ops"], r["allocator"]
    assert sum(p["calls"] for p in r["phases"]) == r["calls"], r["allocator"]
    assert max(p["peak_live_bytes"] for p in r["phases"]) == r["peak_live_bytes"]
    for p in r["phases"]:
        assert p["time_s"] >= 0 and p["peak_rss_bytes"] >= p["rss_at_peak_live"] >= 0, p
PY
done
# the text table: one per allocator, after the main one
"$HATRACE" replay --phases --allocator null,glibc "$W/p.hatf" >"$W/r.txt" 2>/dev/null || fail "replay --phases"
grep -q '^phases, glibc:$' "$W/r.txt" || fail "no table of glibc's phases"
grep -qE '^phase 2 +3980 +3980 ' "$W/r.txt" || fail "the text table's phase 2 row"
# without --phases: none
"$HATRACE" replay --json --allocator null "$W/p.hatf" >"$W/n.json" 2>/dev/null || fail "replay --json"
python3 -c 'import json,sys; assert "phases" not in json.load(open(sys.argv[1]))[0]' "$W/n.json" || fail "phases without --phases"
"$HATRACE" replay --allocator null "$W/p.hatf" 2>/dev/null | grep -q '^phases' && fail "a phase table without --phases"
# a bad use: one line, exit 2
"$HATRACE" replay --phases=yes "$W/p.hatf" >/dev/null 2>"$W/bad.err"; rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$W/bad.err")" = 1 ] || fail "--phases=yes: exit $rc, $(cat "$W/bad.err")"
echo "replay_phases: ok"
