#!/usr/bin/env bash
# The example pool allocator (tests/workloads/heap_pool.c) reports its heaps
# through include/hatrace.h. Bare and recorded runs count the same; the trace
# validates, hides the pools' chunks, and replays under every installed
# allocator: native heaps under mimalloc and jemalloc (every pool stays on its
# thread), free-each elsewhere, with the same op count and peak everywhere and
# exactly the frees at destroyHeap the program counted.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/heap_pool
[ -x "$prog" ] || { echo "workload not built"; exit 77; }

"$prog" >"$W/bare.txt" || fail "bare run"
grep -qx 'active 0' "$W/bare.txt" || fail "bare run thinks it is traced"

"$HATRACE" record -o "$W/p.hatf" -- "$prog" >"$W/program.txt" 2>"$W/record.err" || fail "record: $(cat "$W/record.err")"
grep -qx 'active 1' "$W/program.txt" || fail "the annotation API did not bind to libhatrace.so"
# the workload is deterministic: bare and traced runs count the same
diff <(grep -v '^active' "$W/bare.txt") <(grep -v '^active' "$W/program.txt") || fail "counts differ between runs"
validate_all "$W/p.hatf"

"$HATRACE" stats --json "$W/p.hatf" >"$W/stats.json" || fail "stats"
# (record_annotate.sh compares the counts per heap name.) The pools' chunks
# were hidden with hatrace_ignore_begin/_end: no 16 KiB block in the trace.
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); sys.exit(any(b["min"] >= 16384 for b in s["size_histogram"]))' \
    "$W/stats.json" || fail "a pool chunk was recorded"
ops=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["allocs"]+s["frees"]+s["reallocs"], s["max_live_bytes"])' "$W/stats.json")
read -r want_ops want_peak <<<"$ops"
dfrees=$(( $(awk '$1=="request.destroy_frees"||$1=="config.destroy_frees"{s+=$2} END{print s}' "$W/program.txt") ))
heaps=$(awk '$1=="request.heaps"||$1=="config.heaps"{s+=$2} END{print s}' "$W/program.txt")

allocs=null,glibc
for a in jemalloc tcmalloc mimalloc; do rp_allocator_ok=1
  "$HATRACE" replay --allocator $a --touch none "$W/p.hatf" >/dev/null 2>&1 && allocs=$allocs,$a
done
echo "allocators: $allocs"
"$HATRACE" replay --allocator $allocs --json "$W/p.hatf" >"$W/replay.json" 2>"$W/err" || { cat "$W/err"; fail "replay"; }
python3 - "$W/replay.json" "$want_ops" "$want_peak" "$dfrees" "$heaps" <<'PY' || fail "replay figures"
import json, sys
runs = json.load(open(sys.argv[1]))
ops, peak, dfrees, heaps = map(int, sys.argv[2:])
bad = []
for r in runs:
    a = r["allocator"]
    native = a in ("jemalloc", "mimalloc")
    want = ("native", heaps, 0) if native else ("free-each", 0, heaps)
    got = (r["heap_mode"], r["heaps_native"], r["heaps_free_each"])
    if got != want: bad.append(f"{a}: heap_mode/native/free-each {got}, want {want}")
    if r["ops"] != ops: bad.append(f"{a}: ops {r['ops']}, want {ops}")
    if r["peak_live_bytes"] != peak: bad.append(f"{a}: peak {r['peak_live_bytes']}, want {peak}")
    p = r["plan"]
    if (p["heaps_created"], p["heaps_confined"], p["heaps_shared"], p["heap_frees"]) != (heaps, heaps, 0, dfrees):
        bad.append(f"{a}: plan {p}")
    # native: the frees at destroy are not calls; free-each: creates and destroys are not
    skipped = dfrees if native else 2 * heaps
    if r["skipped_calls"] != skipped: bad.append(f"{a}: skipped_calls {r['skipped_calls']}, want {skipped}")
    print(f"{a}: {got[0]}, {r['calls']} calls, {r['wall_s']:.4f} s")
print("\n".join(bad) if bad else "replay figures agree")
sys.exit(1 if bad else 0)
PY
echo "heaps_pool: ok"
