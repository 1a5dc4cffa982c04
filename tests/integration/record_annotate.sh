#!/usr/bin/env bash
# The annotation API's runtime in libhatrace.so (hatrace_rt_*): the pool
# workload of tests/workloads/heap_pool.c reports its heaps and objects, and
# the trace's per-heap-name counts (hatrace stats --json, heap_names) must be
# exactly what it reported; run bare, the program sees no recorder.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/heap_pool
[ -x "$prog" ] || { echo "workload not built"; exit 77; }
"$prog" | grep -qx "active 0" || fail "without the preload the API must be inactive"
"$HATRACE" record -o "$W/h.hatf" -- "$prog" >"$W/program.txt" 2>"$W/record.err" || fail "record: $(cat "$W/record.err")"
cat "$W/record.err"
grep -qx "active 1" "$W/program.txt" || fail "under the preload the API must be active"
validate_all "$W/h.hatf"
"$HATRACE" stats --json "$W/h.hatf" >"$W/stats.json" || fail "stats"
python3 - "$W/stats.json" "$W/program.txt" <<'PY' || fail "heap counts differ"
import json, sys
st = json.load(open(sys.argv[1]))
prog = dict(l.split() for l in open(sys.argv[2]) if "." in l.split()[0])
names = {h["name"]: h for h in st.get("heap_names", [])}
bad = []
for key, want in prog.items():
    name, field = key.split(".", 1)
    if field == "moved":  # checked in total below
        continue
    got = names.get(name, {}).get(field)
    if got != int(want): bad.append(f"{key}: program {want}, trace {got}")
# the program's moving reallocs are the trace's realloc-move records (malloc's
# heap 0 has no reallocs in this workload)
heap0 = [h for h in st["heaps"] if h["id"] == 0]
moved = sum(int(v) for k, v in prog.items() if k.endswith(".moved"))
if (heap0 and heap0[0]["reallocs"]) or st["realloc_move"] != moved:
    bad.append(f"realloc-move {st['realloc_move']}, program moved {moved}")
print("\n".join(bad) if bad else "heap_names agree with the program")
sys.exit(1 if bad else 0)
PY
echo "record_annotate: ok"
