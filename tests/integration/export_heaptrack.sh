#!/usr/bin/env bash
# convert --to heaptrack, opened by heaptrack_print (heaptrack 1.4): its
# calls, peak and leaks equal hatrace's stats, and its lists of the top
# sites by calls, by peak consumption and by leaks give each innermost
# function the calls and bytes stats --sites gives it (heaptrack prints
# bytes rounded, 3.82K: compared in its own rounding). The same lists from
# a recording of the same program by heaptrack itself agree on the
# program's own sites (its other sites are heaptrack's artefacts: the C++
# runtime its preload library brings, and its larger TLS blocks). Plain,
# .gz and .zst files open alike.
. "$(dirname "$0")/export_lib.inc"
need_tools
command -v heaptrack_print >/dev/null || { echo "heaptrack_print not installed"; exit 77; }
prog=$BUILD/workloads/stacks_sites
record_stacks "$prog" "$W/s.hatf"
"$HATRACE" stats --json "$W/s.hatf" >"$W/stats.json" || fail "stats --json"
"$HATRACE" stats --sites --json --top 0 "$W/s.hatf" >"$W/sites.json" || fail "stats --sites --json"

cat >"$W/heaptrack_lists.py" <<'PY'
# heaptrack_lists.py PRINT_OUTPUT: heaptrack_print's totals and its three
# lists of top sites, keyed by the innermost function, as JSON
import json, re, sys
text = open(sys.argv[1]).read().split("\n")
out = {"calls": {}, "peak": {}, "leaked": {}}
pats = {"calls": r"^(\d+) calls to allocation functions with \S+ peak consumption from$",
        "peak": r"^(\S+) peak memory consumed over \d+ calls from$",
        "leaked": r"^(\S+) leaked over \d+ calls from$"}
for i, line in enumerate(text):
    for key, pat in pats.items():
        m = re.match(pat, line)
        if m and i + 1 < len(text):
            out[key][text[i + 1].strip()] = m.group(1)
    m = re.match(r"^(calls to allocation functions|peak heap memory consumption|total memory leaked): (\S+)", line)
    if m:
        out[m.group(1)] = m.group(2)
print(json.dumps(out))
PY
cat >"$W/hatrace_lists.py" <<'PY'
# hatrace_lists.py STATS SITES: the same figures from hatrace, bytes in heaptrack's rounding
import json, sys
def fmt(b):  # heaptrack_print's: B below 1000, then K, M, G with two decimals
    v, unit = float(b), ""
    for unit in ("", "K", "M", "G", "T"):
        if v < 1000 or unit == "T":
            break
        v /= 1000
    return f"{int(b)}B" if unit == "" else f"{v:.2f}{unit}"
st, si = (json.load(open(f)) for f in sys.argv[1:3])
calls, peak, leaked = {}, {}, {}
for s in si["top"]:
    if not s["frames"]:
        continue
    f = s["frames"][0]
    fn = f["inlined"][0]["demangled"] if f.get("inlined") else f["demangled"] or f["addr"]  # the innermost place
    calls[fn] = calls.get(fn, 0) + s["calls"]
    peak[fn] = peak.get(fn, 0) + s["at_peak_bytes"]
    leaked[fn] = leaked.get(fn, 0) + s["leaked_bytes"]
print(json.dumps({"calls": {f: str(n) for f, n in calls.items()},
                  "peak": {f: fmt(n) for f, n in peak.items() if n},
                  "leaked": {f: fmt(n) for f, n in leaked.items() if n},
                  "calls to allocation functions": str(st["allocs"] + st["reallocs"]),
                  "peak heap memory consumption": fmt(st["max_live_bytes"]),
                  "total memory leaked": fmt(st["live_bytes_at_end"])}))
PY
python3 "$W/hatrace_lists.py" "$W/stats.json" "$W/sites.json" >"$W/want.json"

for out in s.heaptrack s.heaptrack.gz s.heaptrack.zst; do
  "$HATRACE" convert --to heaptrack "$W/s.hatf" -o "$W/$out" || fail "convert --to heaptrack -o $out"
  heaptrack_print -f "$W/$out" --disable-builtin-suppressions -a -p -l -n 20 >"$W/print.txt" 2>"$W/print.err" ||
    fail "heaptrack_print could not open $out: $(tail -3 "$W/print.err")"
  grep -q "failed to parse\|out of bounds" "$W/print.err" && fail "heaptrack_print: $(head -3 "$W/print.err")"
  python3 "$W/heaptrack_lists.py" "$W/print.txt" >"$W/got.json"
  python3 - "$W/got.json" "$W/want.json" "$out" <<'PY' || fail "heaptrack_print's figures of $out differ from hatrace's"
import json, sys
got, want = (json.load(open(f)) for f in sys.argv[1:3])
for key in ("calls to allocation functions", "peak heap memory consumption", "total memory leaked"):
    assert got.get(key) == want[key], (sys.argv[3], key, got.get(key), want[key])
for key in ("calls", "peak", "leaked"):
    assert got[key] == want[key], (sys.argv[3], key, got[key], want[key])
assert want["calls"]["lib_make"] == "250" and want["leaked"]["grow_buf"] == "2.37K"
PY
done

# heaptrack's own recording of the same program: the program's sites agree
if command -v heaptrack >/dev/null; then
  (cd "$W" && heaptrack -o "$W/own" "$prog" >"$W/heaptrack.log" 2>&1) ||
    fail "heaptrack could not record: $(tail -3 "$W/heaptrack.log")"
  own=$(ls "$W"/own.zst "$W"/own.gz 2>/dev/null | head -1)  # by how heaptrack was built
  [ -n "$own" ] || fail "heaptrack wrote no file: $(tail -3 "$W/heaptrack.log")"
  heaptrack_print -f "$own" --disable-builtin-suppressions -a -p -l -n 20 >"$W/own.txt" 2>/dev/null ||
    fail "heaptrack_print on heaptrack's own recording"
  python3 "$W/heaptrack_lists.py" "$W/own.txt" >"$W/own.json"
  python3 - "$W/own.json" "$W/got.json" <<'PY' || fail "the export and heaptrack's own recording differ on the program's sites"
import json, sys
own, exp = (json.load(open(f)) for f in sys.argv[1:3])
for fn in ("static_leaf", "lib_make", "grow_buf", "thread_leaf"):
    for key in ("calls", "peak", "leaked"):
        # thread_leaf's bytes at the peak: one or both of its threads' blocks,
        # as the two threads happened to interleave in each of the two runs
        if (fn, key) == ("thread_leaf", "peak"):
            continue
        assert own[key].get(fn) == exp[key].get(fn), (fn, key, own[key].get(fn), exp[key].get(fn))
PY
else
  echo "heaptrack not installed: its own recording is not compared"
fi
echo "heaptrack: heaptrack_print gives $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["calls to allocation functions"], "calls, peak", d["peak heap memory consumption"], ", leaked", d["total memory leaked"])' "$W/got.json") as hatrace"
