#!/usr/bin/env bash
# hatrace stats --follow reads a trace while the program writes it
# (tests/workloads/follow_wait.c): at least one refresh comes while the
# program still runs (it waits for our signal file until we have seen one),
# and the last refresh, once the trace is complete, has the figures stats
# gives of the finished trace. No sleep decides anything: the test waits on
# files, each wait bounded. Then a cut trace that never grows: the follow
# gives up once its recording process is gone, says so in one line naming the
# file and offset, and exits 3.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/follow_wait
[ -x "$prog" ] || { echo "workload not built"; exit 77; }

# wait_for SECONDS CMD...: until CMD succeeds, at most SECONDS
wait_for() {
  local n=$(($1 * 20)); shift
  while ! "$@"; do
    n=$((n - 1)); [ "$n" -gt 0 ] || return 1
    sleep 0.05
  done
}

"$HATRACE" record -o "$W/t.hatf" -- "$prog" "$W/go" >/dev/null 2>"$W/rec.err" &
rec=$!
wait_for 60 test -s "$W/t.hatf" || fail "no trace file"
"$HATRACE" stats --follow --json --interval 100 "$W/t.hatf" >"$W/f.jsonl" 2>"$W/f.err" &
fol=$!
# a refresh of the running program, with its first phase's events in it
seen_running() {
  python3 - "$W/f.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    if line.endswith("\n") and not json.loads(line)["final"] and json.loads(line)["allocs"] > 0:
        sys.exit(0)
sys.exit(1)
PY
}
wait_for 120 seen_running || { kill "$rec" "$fol" 2>/dev/null; fail "no refresh while the program ran: $(cat "$W/f.err")"; }
touch "$W/go"
wait "$rec" || fail "record: $(cat "$W/rec.err")"
wait "$fol" || fail "stats --follow exited $?: $(cat "$W/f.err")"
"$HATRACE" stats --json "$W/t.hatf" >"$W/s.json" || fail "stats --json"
python3 - "$W/f.jsonl" "$W/s.json" <<'PY' || fail "the last refresh differs from stats of the finished trace"
import json, sys
refreshes = [json.loads(l) for l in open(sys.argv[1])]
s = json.load(open(sys.argv[2]))
last = refreshes[-1]
assert last["final"] and last["complete"], last
assert not any(r["final"] for r in refreshes[:-1])
early = [r for r in refreshes if not r["complete"]]
assert early and early[0]["records"] < s["records"], "no refresh before the end"
# the figures only grow, and none passes the whole trace's
for a, b in zip(refreshes, refreshes[1:]):
    assert a["records"] <= b["records"] and a["max_live_bytes"] <= b["max_live_bytes"], (a, b)
pairs = [(k, k) for k in ("records", "allocs", "frees", "reallocs", "total_bytes", "max_live_objects",
                          "max_live_bytes")] + [("live_objects", "live_objects_at_end"), ("live_bytes", "live_bytes_at_end")]
for k, sk in pairs:
    assert last[k] == s[sk], (k, last[k], s[sk])
assert sum(t["calls_total"] for t in last["top_sites"]) <= s["allocs"] + s["reallocs"]
PY
# the text form: a refresh line, then stats' own table
"$HATRACE" stats --follow "$W/t.hatf" >"$W/f.txt" || fail "stats --follow of a complete trace"
grep -q "^records  *$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["records"])' "$W/s.json")\$" "$W/f.txt" ||
  fail "the table after the last refresh"

# a cut trace whose process is gone: given up at once, not after the timeout
size=$(stat -c %s "$W/t.hatf")
head -c $((size / 2)) "$W/t.hatf" >"$W/cut.hatf"
rc=0
timeout 60 "$HATRACE" stats --follow --json --interval 100 --timeout 50 "$W/cut.hatf" >"$W/c.jsonl" 2>"$W/c.err" || rc=$?
[ "$rc" = 3 ] || fail "a cut trace: exit $rc, want 3: $(cat "$W/c.err")"
grep -q "^hatrace: $W/cut.hatf: offset [0-9]*: the trace its recording process is gone" "$W/c.err" ||
  fail "the give-up line: $(cat "$W/c.err")"
tail -n 1 "$W/c.jsonl" | grep -q '"final": true, "complete": false' || fail "the last refresh of the cut trace"
"$HATRACE" stats --json "$W/cut.hatf" >"$W/cs.json" 2>/dev/null
python3 - "$W/c.jsonl" "$W/cs.json" <<'PY' || fail "the cut trace's figures differ from stats'"
import json, sys
last = [json.loads(l) for l in open(sys.argv[1])][-1]
s = json.load(open(sys.argv[2]))
for k in ("records", "allocs", "frees", "max_live_bytes"):
    assert last[k] == s[k], (k, last[k], s[k])
PY
# bad input: one line naming the file, exit 1
printf 'not a trace' >"$W/bad"
rc=0; "$HATRACE" stats --follow "$W/bad" 2>"$W/b.err" || rc=$?
[ "$rc" = 1 ] && [ "$(wc -l <"$W/b.err")" = 1 ] && grep -q "$W/bad" "$W/b.err" || fail "bad input: exit $rc: $(cat "$W/b.err")"
"$HATRACE" stats --interval 100 "$W/t.hatf" >/dev/null 2>&1 && fail "--interval without --follow accepted"
echo "stats_follow: ok"
