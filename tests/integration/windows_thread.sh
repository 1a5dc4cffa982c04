#!/usr/bin/env bash
# --thread N (analyze/window.h) on tests/workloads/windows: the worker's window
# holds its calls and the objects it made, their frees by main included (10
# of its 15), as the workload counts them, and glibc's at its exit; within a
# phase; validate; no such thread.
. "$(dirname "$0")/windows_lib.inc"

# the worker: the thread that is not the first (main) in stats' table
tid=$("$HATRACE" stats --json "$W/w.hatf" | python3 -c 'import json, sys; t = json.load(sys.stdin)["threads"]
print([x["id"] for x in t if x["allocs"] == 20][0])') || fail "no worker thread in stats"
# and glibc's frees at its exit (record_lib.inc's exit_frees)
x=$(exit_frees) || exit
worker=$(want worker | awk -v x="$x" '{ $2 += x; print }')
got=$(figures --thread "$tid" "$W/w.hatf")
[ "$got" = "$worker" ] || fail "--thread $tid: got '$got', want '$worker'"
# its window within phase work is its own calls alone (glibc's at its exit come later)
[ "$(figures --thread "$tid" --phase work "$W/w.hatf")" = "$(want worker)" ] || fail "--thread with --phase"
# main's window in phase work: the phase less the worker's calls (frees of
# the worker's objects by main belong to the worker's objects)
main=$("$HATRACE" stats --json "$W/w.hatf" | python3 -c 'import json, sys; print(json.load(sys.stdin)["threads"][0]["id"])')
[ "$(figures --thread "$main" --phase work "$W/w.hatf" | cut -d' ' -f1-3)" = "50 40 10" ] || fail "main's calls in phase work"
"$HATRACE" validate --thread "$tid" "$W/w.hatf" | grep -q 'no problems' || fail "validate --thread"
"$HATRACE" stats --sites --json --top 0 --thread "$tid" "$W/w.hatf" |
  python3 -c 'import json, sys; t = json.load(sys.stdin)["top"]; sys.exit((len(t), t[0]["calls"], t[0]["leaked_objects"]) != (1, 20, 5))' ||
  fail "--sites --thread"
[ "$(figures --thread 999 "$W/w.hatf")" = "0 0 0 0 0 0 0" ] || fail "--thread 999"
"$HATRACE" stats --thread x "$W/w.hatf" >/dev/null 2>&1; [ $? = 2 ] || fail "--thread x"
echo "windows_thread: ok"
