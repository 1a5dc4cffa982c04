#!/usr/bin/env bash
# A multi-threaded trace whose threads each hold a large set at one moment,
# reached after unequal work, half of each set freed by another thread
# (tests/workloads/mt_peaks): replayed per trace thread under every installed
# allocator, the runners meet at the trace's peak (replay/run.c), so every
# fragmentation figure is at least 1 with pages touched. Before the meeting
# each runner ran at its own pace and glibc measured 0.95 at the peak.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/mt_peaks
[ -x "$prog" ] || { echo "workload mt_peaks not built"; exit 77; }
"$HATRACE" record --no-figures -o "$W/p.hatf" -- "$prog" 4 8192 >/dev/null 2>"$W/rec.err" || fail "record: $(cat "$W/rec.err")"
allocs=glibc
for a in jemalloc tcmalloc mimalloc; do
  "$HATRACE" replay --allocator "$a" --json "$W/p.hatf" >/dev/null 2>&1 && allocs="$allocs,$a"
done
for threads in trace 1; do
  "$HATRACE" replay --allocator "$allocs" --threads $threads --json "$W/p.hatf" >"$W/r.json" 2>"$W/r.err" ||
    fail "replay: $(cat "$W/r.err")"
  python3 - "$W/r.json" "$threads" <<'PY' || fail "threads $threads: a fragmentation figure below 1"
import json, sys
d = json.load(open(sys.argv[1]))
bad = 0
for a in (d["allocators"] if isinstance(d, dict) else d):
    f = {k: a[k] for k in ("frag_at_peak_live", "frag_peak_over_peak", "frag_at_peak_rss", "frag_time_avg")}
    print(sys.argv[2], a["allocator"], f)
    bad += any(v < 1 for v in f.values())
sys.exit(bad)
PY
done
echo "replay_peaks: ok ($allocs)"
