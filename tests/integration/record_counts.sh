#!/usr/bin/env bash
# 8 threads make every call of the malloc family (failures, cross-thread frees
# included); the trace must hold exactly the calls the program counted, and
# glibc's at each thread's exit.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/rec_counts
[ -x "$prog" ] || { echo "workload not built"; exit 77; }

"$HATRACE" record -o "$W/c.hatf" -- "$prog" >"$W/program.txt" 2>"$W/record.err" || fail "record: $(cat "$W/record.err")"
cat "$W/record.err"
[ -f "$W/c.hatf" ] || fail "no trace written"
grep -q "hatrace: 1 trace, .* 0 dropped" "$W/record.err" || fail "summary line"
validate_all "$W/c.hatf"

# by call kind and outcome, worker threads (ids 2..9): exact, with glibc's own
# frees at each thread's exit, after its last key destructor (record_lib.inc)
threads=$(awk '$1 == "threads" { print $2 }' "$W/program.txt")
x=$(exit_frees) || exit
exit_frees=$((x * threads))
echo "glibc's frees at thread exit: $exit_frees on $threads threads"
want_counts "$W/program.txt" "$threads" >"$W/want.txt" || exit
count_events "$W/c.hatf" 2 >"$W/got.txt"
compare "$W/want.txt" "$W/got.txt" || fail "counts by function/op differ"

# hatrace stats --json: per worker thread allocs/frees/reallocs, threads, counters
"$HATRACE" stats --json "$W/c.hatf" >"$W/stats.json" || fail "stats"
python3 - "$W/stats.json" "$W/program.txt" "$exit_frees" <<'PY' || fail "stats --json differs"
import json, sys
st = json.load(open(sys.argv[1]))
prog = dict(l.split() for l in open(sys.argv[2]))
n = int(prog["threads"])
prog["thread.frees"] = str(int(prog["thread.frees"]) + int(sys.argv[3]) // n)  # glibc's at its exit
bad = []
workers = [t for t in st["threads"] if t["id"] >= 2]
if len(workers) != n: bad.append(f"{len(workers)} worker threads, want {n}")
for t in workers:
    for k in ("allocs", "frees", "reallocs"):
        want = int(prog["thread." + k])
        got = t[k]
        if got != want:
            bad.append(f"thread {t['id']} {k} {got}, want {want}")
names = sorted(t.get("name", "") for t in workers)
if names != sorted(f"worker-{i}" for i in range(n)): bad.append(f"thread names {names}")
if st["thread_creates"] != n + 1 or st["thread_destroys"] != n + 1:
    bad.append(f"thread events {st['thread_creates']}/{st['thread_destroys']}, want {n+1}")
c = st["container"]
if not c["complete"] or c["dropped"] != 0: bad.append(f"container {c}")
if c["events"] != st["records"]: bad.append(f"index events {c['events']} != records {st['records']}")
for fn in ("malloc", "calloc", "realloc", "reallocarray", "posix_memalign", "aligned_alloc",
           "memalign", "valloc", "pvalloc"):
    if st["functions"].get(fn, 0) < int(prog["func." + fn]):
        bad.append(f"function {fn}: {st['functions'].get(fn, 0)} < {prog['func.' + fn]}")
print("\n".join(bad) if bad else "stats --json agrees")
sys.exit(1 if bad else 0)
PY
# drop mode with a tiny ring: events are lost but every one is counted, so
# recorded + dropped equals what the full run recorded
full=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["records"])' "$W/stats.json")
"$HATRACE" record --drop --ring-size 64 -o "$W/d.hatf" -- "$prog" >/dev/null 2>"$W/drop.err" || fail "record --drop"
cat "$W/drop.err"
"$HATRACE" stats --json "$W/d.hatf" >"$W/drop.json" || fail "stats of the drop-mode trace"
python3 - "$W/drop.json" "$full" <<'PY' || fail "drop mode lost count of events"
import json, sys
st = json.load(open(sys.argv[1]))
c = st["container"]
print(f"drop mode: {st['records']} recorded + {c['dropped']} dropped, full run {sys.argv[2]}")
sys.exit(0 if c["dropped"] > 0 and c["complete"] and st["records"] + c["dropped"] == int(sys.argv[2]) else 1)
PY
# --ring-size takes the library's k/m suffixes, and its range applies after them
"$HATRACE" record --ring-size 64k -o "$W/k.hatf" -- "$prog" >/dev/null 2>&1 || fail "record --ring-size 64k"
"$HATRACE" record --ring-size 32m -o "$W/m.hatf" -- "$prog" >/dev/null 2>&1
[ $? -eq 2 ] || fail "record --ring-size 32m (over 16m) is not a usage error"
echo "record_counts: ok"
