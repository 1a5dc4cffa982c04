#!/usr/bin/env bash
# --phase NAME (analyze/window.h) on tests/workloads/windows, whose phases cross
# objects over: each phase's figures are the workload's own account of it
# (a phase's frees of older objects not counted, a realloc of one counted as
# one that makes an object, the peak of its own objects); the same window in
# stats --sites, --timeline, --massif, report and validate (no free of an
# older object reported as a free of an unknown address); bad names.
. "$(dirname "$0")/windows_lib.inc"

for p in load work end; do
  got=$(figures --phase "$p" "$W/w.hatf") || fail "stats --phase $p"
  [ "$got" = "$(want "$p")" ] || fail "phase $p: got '$got', want '$(want "$p")'"
done
# the whole trace without a window is not the same as any phase (the test can fail)
[ "$(figures "$W/w.hatf")" != "$(want work)" ] || fail "the trace's figures equal the phase's"

# --sites: the phase's sites add up to its calls (allocs and reallocs) and what it leaves
"$HATRACE" stats --sites --json --top 0 --phase work "$W/w.hatf" >"$W/sites.json" || fail "stats --sites --phase"
python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["top"]
calls, left = sum(x["calls"] for x in s), sum(x["leaked_objects"] for x in s)
sys.exit(0 if (calls, left) == (80, 25) else "sites: %d calls, %d left; want 80, 25" % (calls, left))' "$W/sites.json" ||
  fail "sites of phase work"
peak=$(want work | cut -d' ' -f5)
t=$("$HATRACE" stats --timeline --json --phase work "$W/w.hatf" | python3 -c 'import json, sys; print(json.load(sys.stdin)["max_live_bytes"])')
[ "$t" = "$peak" ] || fail "--timeline's peak $t, want $peak"
m=$("$HATRACE" stats --massif --phase work "$W/w.hatf" | sed -n 's/^mem_heap_B=//p' | sort -n | tail -1)
[ "$m" = "$peak" ] || fail "--massif's peak $m, want $peak"
"$HATRACE" report --phase work "$W/w.hatf" -o "$W/w.html" 2>"$W/report.err" || fail "report: $(cat "$W/report.err")"
grep -q '"allocs": *70\b' "$W/w.html" && grep -q '"live_bytes_at_end": *4000\b' "$W/w.html" || fail "report --phase work's figures"
for p in load work end; do
  "$HATRACE" validate --phase "$p" "$W/w.hatf" >"$W/v.txt" || fail "validate --phase $p: $(cat "$W/v.txt")"
  grep -q 'no problems' "$W/v.txt" || fail "validate --phase $p: $(cat "$W/v.txt")"
done
# a phase that is not there: nothing; "(start)": before the first comment
[ "$(figures --phase nosuch "$W/w.hatf")" = "0 0 0 0 0 0 0" ] || fail "--phase nosuch"
[ "$(figures --phase '(start)' "$W/w.hatf" | cut -d' ' -f1)" -ge 1 ] || fail "--phase (start)"
echo "windows_phase: ok"
