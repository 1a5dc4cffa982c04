#!/usr/bin/env bash
# --from-time/--to-time (analyze/window.h) on tests/workloads/windows: a window
# over the times of phase "work" (as stats --phases gives them) holds what
# the workload says that phase holds, in stats, --sites and validate; a
# window over the whole trace is the trace; units; bad times.
. "$(dirname "$0")/windows_lib.inc"

"$HATRACE" stats --phases --json "$W/w.hatf" >"$W/ph.json" || fail "stats --phases"
read -r from to < <(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); n, m = d["time_unit_ns"]
p = [x for x in d["phases"] if x["name"] == "work"][0]
print(p["first_time"] * n // m, (p["last_time"] + 1) * n // m)' "$W/ph.json") || fail "phase times"
got=$(figures --from-time "${from}ns" --to-time "${to}ns" "$W/w.hatf") || fail "stats --from-time"
[ "$got" = "$(want work)" ] || fail "window ${from}ns..${to}ns: got '$got', want '$(want work)'"
# the same times in us (the trace's unit is 1 us: whole numbers)
got=$(figures --from-time "$((from / 1000))us" --to-time "$((to / 1000))us" "$W/w.hatf")
[ "$got" = "$(want work)" ] || fail "in us: got '$got'"
# one event less: the window ends before the phase's last call
[ "$(figures --from-time "${from}ns" --to-time "$((to - 1000))ns" "$W/w.hatf")" != "$(want work)" ] ||
  fail "a shorter window gives the same figures"
"$HATRACE" validate --from-time "${from}ns" --to-time "${to}ns" "$W/w.hatf" | grep -q 'no problems' || fail "validate"
"$HATRACE" stats --sites --json --top 0 --from-time "${from}ns" --to-time "${to}ns" "$W/w.hatf" |
  python3 -c 'import json, sys; sys.exit(sum(x["calls"] for x in json.load(sys.stdin)["top"]) != 80)' || fail "--sites"
# from 0 (and in seconds): the whole trace
[ "$(figures --from-time 0 --to-time 3600s "$W/w.hatf")" = "$(figures "$W/w.hatf")" ] || fail "a window over the whole trace"
for bad in abc -1s 1h 1.5x ""; do
  "$HATRACE" stats --from-time "$bad" "$W/w.hatf" >/dev/null 2>"$W/e.txt"; s=$?
  [ $s = 2 ] && grep -q 'is not a time' "$W/e.txt" || fail "--from-time '$bad': exit $s, $(cat "$W/e.txt")"
done
"$HATRACE" stats --from-time 2s --to-time 1s "$W/w.hatf" >/dev/null 2>&1; [ $? = 2 ] || fail "from after to"
echo "windows_time: ok"
