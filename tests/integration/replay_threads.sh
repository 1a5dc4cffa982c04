#!/usr/bin/env bash
# Replay runs at once only as many OS threads as the trace has threads alive at
# once (a trace thread's runner starts at its first op and ends after its last,
# docs/replay.md "Runner threads"), and past RP_RUNNERS_MAX (1024) of those it
# replays on one runner thread, saying so. Before: a 10,000-thread storm started
# a runner thread for every trace thread and was killed after 300 s.
#   1. rec_storm recorded (2000 short-lived threads, 50 at a time): replayed
#      with every figure of stats', on a few runner threads.
#   2. A crafted storm of 10,000 threads, 100 alive at once, each freeing an
#      object another thread made (cross-thread waits) and the live bytes
#      peaking midway (the runners meet there while later threads wait to
#      start), with phases: the runs end, on 101 runner threads, the process's
#      own threads (Threads: in /proc/self/status) bounded by them.
#   3. 1100 threads alive at once: one line, and one runner thread.
# Generous timeouts (a busy 2-core CI machine); nothing about speed.
set -u
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
num() { grep -o "\"$1\": [0-9]*" "$2" | grep -o '[0-9]*$'; }  # the values of a JSON key, one a line
[ -x "$HATRACE" ] || { echo "no hatrace binary"; exit 77; }

# 1. a recorded storm
storm=$BUILD/workloads/rec_storm
if [ -x "$storm" ]; then
  timeout 300 "$HATRACE" record -o "$work/rs.hatf" -- "$storm" >/dev/null 2>"$work/err" || { cat "$work/err"; fail "record rec_storm"; }
  "$HATRACE" stats --json "$work/rs.hatf" >"$work/rs.stats" || fail "stats rec_storm"
  ops=$(( $(num allocs "$work/rs.stats" | head -1) + $(num frees "$work/rs.stats" | head -1) + $(num reallocs "$work/rs.stats" | head -1) ))
  timeout 600 "$HATRACE" replay --allocator null,glibc --json "$work/rs.hatf" >"$work/rs.json" 2>"$work/err" \
      || { cat "$work/err"; fail "replay of rec_storm"; }
  [ "$(num ops "$work/rs.json" | sort -u)" = "$ops" ] || fail "rec_storm: ops differ from stats' $ops"
  [ "$(num peak_live_bytes "$work/rs.json" | sort -u)" = "$(num max_live_bytes "$work/rs.stats" | head -1)" ] \
      || fail "rec_storm: peak live differs from stats'"
  [ "$(num trace_threads "$work/rs.json" | sort -u)" = 2001 ] || fail "rec_storm: trace_threads is not 2001"
  for r in $(num runner_threads "$work/rs.json"); do
    [ "$r" -ge 1 ] && [ "$r" -le 51 ] || fail "rec_storm: $r runner threads for at most 50 (and main) alive at once"
  done
  echo "rec_storm: $ops ops on $(num runner_threads "$work/rs.json" | head -1) runner threads"
else
  echo "no $storm (make tests): the recorded storm skipped"
fi

# 2. 10,000 threads, 100 alive at once: at step s thread s makes A_s and B_s
# (B growing to the middle, then shrinking: the peak is there), frees B_(s-100)
# made by thread s-100, which frees its A_(s-100) and ends
awk 'BEGIN { n = 10000; w = 100; tm = 0; print "#hatrace-text 1"
  for (s = 1; s <= n + w; s++) {
    if (s == n / 2) printf "%d %d 0 comment \"second half\"\n", ++tm, s
    if (s <= n) { b = 64 + (s < n / 2 ? s : n - s)
                  printf "%d %d 0 alloc 777 0x%x\n", ++tm, s, 8192 * s
                  printf "%d %d 0 alloc %d 0x%x\n", ++tm, s, b, 8192 * s + 1024 }
    u = s - w
    if (u >= 1) { if (s <= n) printf "%d %d 0 free 0x%x\n", ++tm, s, 8192 * u + 1024
                  else printf "%d %d 0 free 0x%x\n", ++tm, u, 8192 * u + 1024
                  printf "%d %d 0 free 0x%x\n", ++tm, u, 8192 * u } } }' >"$work/storm.txt"
"$HATRACE" stats --json --from text "$work/storm.txt" >"$work/storm.stats" || fail "stats of the storm"
peak=$(num max_live_bytes "$work/storm.stats" | head -1)
timeout 900 "$HATRACE" replay --from text --allocator null,glibc --phases --json "$work/storm.txt" >"$work/storm.json" 2>"$work/err" \
    || { cat "$work/err"; fail "replay of the 10,000-thread storm (exit $?)"; }
python3 - "$work/storm.json" "$peak" <<'EOF' || fail "storm: the figures"
import json, sys
runs, peak = json.load(open(sys.argv[1])), int(sys.argv[2])
for a in runs:
    name = a["allocator"]
    assert a["ops"] == 40000 and a["peak_live_bytes"] == peak, (name, a["ops"], a["peak_live_bytes"], peak)
    assert a["trace_threads"] == 10000 and a["threads_at_once"] == 101, (name, a["trace_threads"], a["threads_at_once"])
    assert a["runner_threads"] == 101, (name, "runner_threads", a["runner_threads"])
    # the run's process: the runners, the sampler and the plan's read-ahead at most
    assert 101 <= a["process_threads"] <= 103, (name, "process_threads", a["process_threads"])
    assert [p["name"] for p in a["phases"]] == ["(start)", "second half"], (name, "phases")
    assert sum(p["calls"] for p in a["phases"]) == a["calls"], (name, "the phases' calls")
    if name == "glibc": assert a["rss_at_peak_live"] > 0, (name, "nothing resident at the peak")
EOF
"$HATRACE" replay --from text --allocator null "$work/storm.txt" >"$work/table" 2>&1 || fail "storm: table"
grep -q 'threads: trace (101 runner threads for the trace.s 10000 threads, as many as are alive at once)' "$work/table" \
    || { head -1 "$work/table"; fail "storm: the table's first line"; }
echo "storm: 10000 trace threads on 101 runner threads"

# 3. more threads alive at once than the cap: one runner thread, said in one line
awk 'BEGIN { n = 1100; print "#hatrace-text 1"
  for (t = 1; t <= n; t++) printf "%d %d 0 alloc 64 0x%x\n", t, t, 4096 * t
  for (t = 1; t <= n; t++) printf "%d %d 0 free 0x%x\n", n + t, t, 4096 * t }' >"$work/wide.txt"
timeout 600 "$HATRACE" replay --from text --allocator null --json "$work/wide.txt" >"$work/wide.json" 2>"$work/err" \
    || { cat "$work/err"; fail "replay of 1100 threads at once"; }
[ "$(wc -l <"$work/err")" = 1 ] && grep -q "wide.txt: 1100 of the trace's threads are alive at once, more than the 1024 runner threads replay runs at once: replayed on one runner thread" "$work/err" \
    || { cat "$work/err"; fail "wide: the line saying so"; }
grep -q '"threads": "1", "runner_threads": 1, "trace_threads": 1100, "threads_at_once": 1100' "$work/wide.json" \
    || { head -3 "$work/wide.json"; fail "wide: the JSON's threads"; }
[ "$(num ops "$work/wide.json")" = 2200 ] || fail "wide: ops are not 2200"
echo "replay_threads: all passed"
