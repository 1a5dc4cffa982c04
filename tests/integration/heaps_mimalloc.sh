#!/usr/bin/env bash
# A program that uses mimalloc's heaps without any annotation
# (tests/workloads/heap_mimalloc.c, linked with libmimalloc): libhatrace.so
# records mi_heap_new/malloc/zalloc/calloc/realloc/destroy/delete and mi_free
# with heap records. The trace must validate, count exactly what the program
# counted per heap name "mi_heap", and replay with native heaps under mimalloc.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/heap_mimalloc
[ -x "$prog" ] || { echo "workload not built"; exit 77; }
"$prog" >"$W/bare.txt"; [ $? = 77 ] && { echo "mimalloc not installed"; exit 77; }

"$HATRACE" record -o "$W/m.hatf" -- "$prog" >"$W/program.txt" 2>"$W/record.err" || fail "record: $(cat "$W/record.err")"
validate_all "$W/m.hatf"
"$HATRACE" stats --json "$W/m.hatf" >"$W/stats.json" || fail "stats"
python3 - "$W/stats.json" "$W/program.txt" <<'PY' || fail "stats differ from the program's counts"
import json, sys
st = json.load(open(sys.argv[1]))
p = {k: int(v) for k, v in (l.split() for l in open(sys.argv[2]))}
names = {n["name"]: n for n in st["heap_names"]}
bad = []
n = names.get("mi_heap")
want = {"heaps": p["heaps"], "allocs": p["heap_allocs"], "reallocs": p["heap_reallocs"],
        # explicit mi_free of heap blocks, and the blocks mi_heap_delete moved out
        "frees": p["heap_frees"] + p["moved_out_frees"], "destroy_frees": p["live_at_destroy"]}
if not n: bad.append("no heap name mi_heap")
else:
    for k, v in want.items():
        if n[k] != v: bad.append(f"mi_heap.{k}: trace {n[k]}, program {v}")
if st["heap_creates"] != p["heaps"] or st["heap_destroys"] != p["destroyed"] + p["deleted"]:
    bad.append(f"heap records {st['heap_creates']}/{st['heap_destroys']}")
if st["unknown_frees"]: bad.append(f"unknown frees {st['unknown_frees']}")
print("\n".join(bad) if bad else "stats agree")
sys.exit(1 if bad else 0)
PY
"$HATRACE" replay --allocator mimalloc,glibc --json "$W/m.hatf" >"$W/replay.json" 2>"$W/err" || { cat "$W/err"; fail "replay"; }
python3 - "$W/replay.json" "$(awk '$1=="heaps"{print $2}' "$W/program.txt")" <<'PY' || fail "replay figures"
import json, sys
runs = {r["allocator"]: r for r in json.load(open(sys.argv[1]))}
heaps = int(sys.argv[2])
bad = []
m, g = runs["mimalloc"], runs["glibc"]
if (m["heap_mode"], m["heaps_native"], m["heap_api"]) != ("native", heaps, "mimalloc"): bad.append(f"mimalloc: {m['heap_mode']} {m['heaps_native']}")
if (g["heap_mode"], g["heaps_free_each"]) != ("free-each", heaps): bad.append(f"glibc: {g['heap_mode']} {g['heaps_free_each']}")
if m["ops"] != g["ops"] or m["peak_live_bytes"] != g["peak_live_bytes"]: bad.append("ops or peak differ")
print("\n".join(bad) if bad else "replay: mimalloc native, glibc free-each")
sys.exit(1 if bad else 0)
PY
echo "heaps_mimalloc: ok"
