#!/usr/bin/env bash
# Temporary allocations, hatrace's rule against heaptrack's (docs/tools.md,
# "stats"): tests/workloads/temporary_rules.c has one case per difference, each
# from a function of its own. hatrace (stats --sites --by function) counts an
# object its own thread frees before that thread allocates again; heaptrack
# (the program recorded by heaptrack itself, read by heaptrack_print) counts a
# free right after an allocation of the same size and stack, and a realloc as a
# free and an allocation. Each function's counts are the ones the workload was
# built to give, by each tool. Skipped (77) without stacks; the heaptrack half
# without heaptrack.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/temporary_rules
record_stacks "$prog" "$W/t.hatf"

# hatrace: per function, and the total (the program's start adds none at these sites)
"$HATRACE" stats --sites --json --by function --top 0 "$W/t.hatf" >"$W/sites.json" || fail "stats --sites --by function"
python3 - "$W/sites.json" <<'PY' || fail "hatrace's temporary allocations are not the workload's"
import json, sys
s = json.load(open(sys.argv[1]))
got = {x["function"]: x["temporary"] for x in s["top"]}
want = {"short_make": 1000, "swap_make": 1, "grow_make": 0, "grow_resize": 500, "pair_make": 400}
bad = {f: (got.get(f), n) for f, n in want.items() if got.get(f) != n}
assert not bad, f"function: (hatrace, want) {bad}"
assert s["temporary"] >= sum(want.values()), s["temporary"]
print("hatrace:", {f: got[f] for f in want}, "total", s["temporary"])
PY

command -v heaptrack >/dev/null && command -v heaptrack_print >/dev/null || { echo "heaptrack not installed"; exit 77; }
heaptrack -o "$W/ht" "$prog" >"$W/ht.out" 2>&1 || fail "heaptrack: $(tail -3 "$W/ht.out")"
data=$(ls "$W"/ht.* 2>/dev/null | grep -v 'ht.out$' | head -1)
[ -n "$data" ] || fail "heaptrack wrote no data file: $(tail -3 "$W/ht.out")"
heaptrack_print -f "$data" --disable-builtin-suppressions -T 1 -a 0 -p 0 -l 0 -n 50 >"$W/print.txt" 2>"$W/print.err" ||
  fail "heaptrack_print: $(head -3 "$W/print.err")"
# "N temporary allocations of M allocations in total (P%) from" then the function, per
# innermost function (its callers follow, indented); a function with none is not listed
python3 - "$W/print.txt" <<'PY' || fail "heaptrack's temporary allocations are not as its rule gives them"
import re, sys
lines = open(sys.argv[1]).read().split("\n")
part = lines[lines.index("MOST TEMPORARY ALLOCATIONS"):]
got = {}
for i, l in enumerate(part):
    m = re.match(r"(\d+) temporary allocations of \d+ allocations in total \(.*\) from$", l)
    if m:
        got[part[i + 1].strip()] = got.get(part[i + 1].strip(), 0) + int(m.group(1))
want = {"short_make": 1000, "swap_make": 999, "grow_make": 500, "grow_resize": 500}
bad = {f: (got.get(f), n) for f, n in want.items() if got.get(f) != n}
assert not bad, f"function: (heaptrack, want) {bad}"
assert "pair_make" not in got, got["pair_make"]
total = int(re.search(r"^temporary memory allocations: (\d+)", "\n".join(lines), re.M).group(1))
assert total >= sum(want.values()), total
print("heaptrack:", {f: got.get(f, 0) for f in list(want) + ["pair_make"]}, "total", total)
PY
echo "ok"
