#!/usr/bin/env bash
# A program marks three phases with hatrace_comment (tests/workloads/phases.c):
# stats --phases gives each phase's allocations, frees and bytes as the
# program counted them, the phases add up to the whole trace, and the
# comments keep their places through every format (text, HATF 1.0, back to a
# container), so the copies split the same way.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/phases
[ -x "$prog" ] || { echo "workload not built"; exit 77; }
"$HATRACE" record -o "$W/p.hatf" -- "$prog" >"$W/want.txt" 2>"$W/rec.err" || fail "record: $(cat "$W/rec.err")"
"$HATRACE" stats --phases --json "$W/p.hatf" >"$W/p.json" || fail "stats --phases --json"
python3 - "$W/p.json" "$W/want.txt" <<'PY' || fail "phases differ from the program's or do not add up"
import json, sys
s = json.load(open(sys.argv[1]))
ph = {p["name"]: p for p in s["phases"]}
for line in open(sys.argv[2]):
    w = line.split()
    name, want = " ".join(w[:2]), dict(zip(w[2::2], map(int, w[3::2])))
    got = ph[name]
    assert (got["allocs"], got["frees"], got["bytes"]) == (want["allocs"], want["frees"], want["bytes"]), (name, got, want)
for key, total in (("records", "records"), ("allocs", "allocs"), ("frees", "frees"), ("bytes", "total_bytes")):
    assert sum(p[key] for p in s["phases"]) == s[total], key
assert max(p["max_live_bytes"] for p in s["phases"]) == s["max_live_bytes"]
assert [p["name"] for p in s["phases"] if p["name"] != "(start)"] == ["phase 1", "phase 2", "phase 3"]
PY
"$HATRACE" stats --phases "$W/p.hatf" | grep -qE '^phase 2 +[0-9]+ +[0-9]+ +[0-9]+ +2000 +1980 ' ||
  fail "the text table's phase 2 row"
# through the other formats and back: the same phases
"$HATRACE" convert --to text "$W/p.hatf" -o "$W/p.txt" || fail "convert to text"
"$HATRACE" convert --to hatf1.0 "$W/p.hatf" -o "$W/p.hatf1" || fail "convert to hatf1.0"
"$HATRACE" convert --from hatf1.0 "$W/p.hatf1" -o "$W/back.hatf" || fail "convert back to a container"
phases() { "$HATRACE" stats --phases --json "$@" | python3 -c '
import json, sys
for p in json.load(sys.stdin)["phases"]: print(p["name"], p["records"], p["allocs"], p["frees"], p["bytes"])'; }
phases "$W/p.hatf" >"$W/a.txt"
for f in "--from text $W/p.txt" "--from hatf1.0 $W/p.hatf1" "$W/back.hatf"; do
  # shellcheck disable=SC2086
  phases $f >"$W/b.txt" || fail "stats --phases $f"
  cmp -s "$W/a.txt" "$W/b.txt" || { diff "$W/a.txt" "$W/b.txt"; fail "the phases of $f differ"; }
done
"$HATRACE" stats --phases --sites "$W/p.hatf" >/dev/null 2>&1 && fail "--phases with --sites accepted"
echo "stats_phases: ok"
