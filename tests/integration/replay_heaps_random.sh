#!/usr/bin/env bash
# A random but valid trace with heaps (fixed seed): 3 threads, heaps made and
# destroyed by their thread or another, objects freed across threads, reallocs
# in and out of heaps. It must validate, and replay under every installed
# allocator, per trace thread and on one thread, with the op count and peak
# that stats gives, the same heap split everywhere, and no allocator failure.
set -u
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$HATRACE" ] || { echo "no hatrace binary"; exit 77; }
command -v python3 >/dev/null || { echo "no python3"; exit 77; }

python3 - "$work/t.txt" "$work/left" <<'PY'
import random, sys
rnd = random.Random(20261121)
out = open(sys.argv[1], "w")
out.write("#hatrace-text 1\n")
t = 0
next_addr = 0x10000
live = {}          # addr -> (thread, heap)
heaps = {}         # heap -> owner thread
next_heap = 1
left = set()       # heaps an object left by a realloc: never native
def emit(th, heap, rest):
    global t
    t += 10
    out.write(f"{t} {th} {heap} {rest}\n")
for th in (1, 2, 3):
    emit(th, 0, "thread-create")
for _ in range(20000):
    th = rnd.choice((1, 2, 3))
    r = rnd.random()
    own = [h for h, o in heaps.items() if o == th]
    if r < 0.03 or (r < 0.06 and not heaps):
        emit(th, next_heap, "heap-create"); heaps[next_heap] = th; next_heap += 1
    elif r < 0.05 and heaps:
        h = rnd.choice(own) if own and rnd.random() < 0.8 else rnd.choice(list(heaps))
        emit(th, h, "heap-destroy"); del heaps[h]
        for a in [a for a, v in live.items() if v[1] == h]: del live[a]
    elif r < 0.60:
        if own and rnd.random() < 0.6: h = rnd.choice(own)
        elif heaps and rnd.random() < 0.05: h = rnd.choice(list(heaps))   # another thread's heap
        else: h = 0
        size = rnd.choice((8, 16, 24, 48, 100, 256, 1000, 5000))
        fn = "calloc nmemb=1" if rnd.random() < 0.1 else "malloc"
        emit(th, h, f"alloc {size} {next_addr:#x} func={fn}"); live[next_addr] = (th, h); next_addr += 0x100
    elif r < 0.93 and live:
        mine = [a for a, v in live.items() if v[0] == th]
        a = rnd.choice(mine) if mine and rnd.random() < 0.85 else rnd.choice(list(live))
        emit(th, live[a][1], f"free {a:#x} func=free"); del live[a]
    elif live:
        mine = [a for a, v in live.items() if v[0] == th]
        if not mine: continue
        a = rnd.choice(mine); h = live[a][1]
        nh = h if rnd.random() < 0.9 else 0
        emit(th, nh, f"realloc-move {rnd.choice((32, 300, 3000))} {a:#x} -> {next_addr:#x} func=realloc")
        if nh != h: left.add(h)
        del live[a]; live[next_addr] = (th, nh); next_addr += 0x100
open(sys.argv[2], "w").write(f"{len(left)}\n")
PY
"$HATRACE" validate --from text "$work/t.txt" | tail -1 | grep -q 'no problems' || { "$HATRACE" validate --from text "$work/t.txt" | head; fail "the generated trace does not validate"; }
"$HATRACE" stats --json --from text "$work/t.txt" >"$work/stats.json" || fail "stats"
read -r ops peak <<<"$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["allocs"]+s["frees"]+s["reallocs"], s["max_live_bytes"])' "$work/stats.json")"

allocs=null,glibc
for a in jemalloc tcmalloc mimalloc; do
  rp=$("$HATRACE" replay --from text --allocator $a --touch none "$(dirname "$0")/replay_heaps.txt" >/dev/null 2>&1 && echo y)
  [ "$rp" = y ] && allocs=$allocs,$a
done
echo "allocators: $allocs"
for threads in trace 1; do
  "$HATRACE" replay --from text --threads $threads --allocator $allocs --touch page --json "$work/t.txt" \
      >"$work/r.json" 2>"$work/err" || { cat "$work/err"; fail "replay --threads $threads"; }
  python3 - "$work/r.json" "$ops" "$peak" "$threads" "$(cat "$work/left")" <<'PY' || fail "replay --threads $threads figures"
import json, sys
runs = json.load(open(sys.argv[1]))
ops, peak, threads, left = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
bad = []
p0 = runs[0]["plan"]
created = p0["heaps_created"]
for r in runs:
    a, p = r["allocator"], r["plan"]
    if r["ops"] != ops or r["peak_live_bytes"] != peak: bad.append(f"{a}: ops {r['ops']} peak {r['peak_live_bytes']}")
    if "warning" in r: bad.append(f"{a}: {r['warning']}")
    if p["heaps_confined"] + p["heaps_shared"] != created: bad.append(f"{a}: heaps {p}")
    if r["heaps_native"] + r["heaps_free_each"] != created: bad.append(f"{a}: native+free-each != {created}")
    native = a in ("jemalloc", "mimalloc")
    if native and r["heaps_native"] != p["heaps_confined"]: bad.append(f"{a}: {r['heaps_native']} native, {p['heaps_confined']} confined")
    if not native and r["heaps_native"]: bad.append(f"{a}: native heaps without a heap API")
    print(f"--threads {threads} {a}: {r['heap_mode']} ({r['heaps_native']} native, {r['heaps_free_each']} free-each), {r['calls']} calls")
if threads == "1" and p0["heaps_shared"] != left:
    bad.append(f"on one thread only the {left} heaps objects left are shared: {p0}")
if threads == "trace" and not (p0["heaps_shared"] and p0["heaps_confined"]): bad.append(f"want both kinds of heap: {p0}")
print("\n".join(bad) if bad else "ok")
sys.exit(1 if bad else 0)
PY
done
echo "replay_heaps_random: ok"
