#!/usr/bin/env bash
# hatrace report in a real browser: a trace with known sites
# (tests/workloads/stacks_sites.c, recorded with --stacks) becomes a page that
# headless Chromium opens from disk with the network off
# (report_browser.mjs): no JavaScript error, every view there, the figures
# shown equal to stats --json's, the sites table sorts and filters, the flame
# graph has the known frames; a screenshot of each view in
# $BUILD/report-shots/. With --replay null,glibc the allocators view shows
# replay --json's figures for the same trace and draws one series per allocator;
# with --tune glibc the settings view shows a row and a chart point per setting.
# A chain cut at the recording's stack depth
# (tests/workloads/stack_depth with --stacks=8) starts at a dashed
# "[truncated]" frame, as stats --sites --folded marks it; a C++ program's
# new[] and delete[] are listed by name (tests/workloads/rec_cxx).
# Also: the page is one file that loads nothing from
# elsewhere, a damaged trace gives a page that says so (exit 3), a bad option
# or an unwritable output one line and a non-zero exit. A trace without call
# stacks gives its page and, on stderr, the one line stats --sites says (to
# record with --stacks); one with stacks, nothing. Skipped (77) only when no
# Chromium is found (after the stderr checks, which need none).
. "$(dirname "$0")/record_lib.inc"
need_tools

# no call stacks: a page (sites "(no stack)") and stats --sites' hint, the same line, once
basic=$(dirname "$0")/../golden/inputs/basic.txt
"$HATRACE" stats --from text --sites "$basic" 2>"$W/n.sites.err" >/dev/null || fail "stats --sites (no stacks)"
"$HATRACE" report --from text "$basic" -o "$W/n.html" 2>"$W/n.err"; rc=$?
if grep -q "built without the report's page" "$W/n.err"; then
  echo "no page in this build: the rest needs it"; exit 77
fi
[ $rc -eq 0 ] && [ -s "$W/n.html" ] || fail "report (no stacks): exit $rc, $(cat "$W/n.err")"
[ "$(wc -l <"$W/n.err")" -eq 1 ] && grep -q "no call stacks: record it with hatrace record --stacks" "$W/n.err" &&
  cmp -s "$W/n.err" "$W/n.sites.err" || fail "report (no stacks) said: $(cat "$W/n.err"), stats --sites: $(cat "$W/n.sites.err")"
chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
[ -n "$chromium" ] || { echo "no chromium"; exit 77; }
pw=$BUILD/report/node_modules/playwright-core
[ -d "$pw" ] || fail "playwright-core not installed in $BUILD/report (make installs it with npm ci)"
command -v node >/dev/null || fail "node not found"
driver=$(dirname "$0")/report_browser.mjs
shots=$BUILD/report-shots

# what the driver expects: the sites' calls and bytes, and frames and places (lists with ',') and a search;
# with CALLERS_OF=F, F's calls and its callers' and callees' from the sites' chains (innermost first, the
# inlined functions too, without a leading operator new); PLACES and CHAIN ('|' between), the sites'
# places and a site's call chain as the page must show them; RESIDENT_MISSING, the intervals the
# page must draw without a resident point (stats --timeline has none for them)
expect() { # SITES.json FRAMES OUTERMOST FUNCTIONS SEARCH [CUT]
  python3 -c 'import json, os, sys
words = lambda a, sep=",": [w for w in a.split(sep) if w]
s = json.load(open(sys.argv[1]))
e = {"calls": sum(x["calls"] for x in s["top"]), "bytes": sum(x["bytes"] for x in s["top"]),
     "frames": words(sys.argv[2]), "outermost": words(sys.argv[3]), "functions": words(sys.argv[4]),
     "search": sys.argv[5], "cut": words(sys.argv[6]) if len(sys.argv) > 6 else [],
     "places": words(os.environ.get("PLACES", ""), "|"), "chain": words(os.environ.get("CHAIN", ""), "|")}
if os.environ.get("RESIDENT_MISSING"):
    e["resident_missing"] = int(os.environ["RESIDENT_MISSING"])
fn = os.environ.get("CALLERS_OF")
if fn:
    def chain(x):
        names = []
        for f in x["frames"]:
            names += [i["demangled"] or i["function"] for i in f.get("inlined", [])]
            names.append(f["demangled"] or f["node"] or f["addr"])
        while len(names) > 1 and names[0].startswith("operator new"):
            names.pop(0)
        return names
    up, down, n = {}, {}, 0
    for x in s["top"]:
        c = chain(x)
        if fn not in c:
            continue
        i = c.index(fn)
        n += x["calls"]
        k = c[i + 1] if i + 1 < len(c) else "(outermost: no caller)"
        up[k] = up.get(k, 0) + x["calls"]
        k = c[i - 1] if i else "(allocates here)"
        down[k] = down.get(k, 0) + x["calls"]
    assert n, "no site calls " + fn
    e.update(callers_of=fn, fn_calls=n, callers=up, callees=down)
print(json.dumps(e))' "$@"
}

record_stacks "$BUILD/workloads/stacks_sites" "$W/s.hatf"
"$HATRACE" stats --json "$W/s.hatf" >"$W/stats.json" || fail "stats --json"
"$HATRACE" stats --sites --json --top 0 "$W/s.hatf" >"$W/sites.json" || fail "stats --sites --json"
"$HATRACE" report "$W/s.hatf" -o "$W/s.html" 2>"$W/report.err" || fail "report: $(cat "$W/report.err")"
[ ! -s "$W/report.err" ] || fail "report said: $(cat "$W/report.err")"
# one file: no script, style, image or frame from elsewhere
! grep -qiE '<(script|link|img|iframe)[^>]* (src|href)=' "$W/s.html" || fail "the page loads something from outside"
size=$(stat -c %s "$W/s.html")
[ "$size" -lt 3000000 ] || fail "page of $size bytes"
CALLERS_OF=lib_make expect "$W/sites.json" main,chain_a,static_leaf,lib_make,grow_buf,worker,thread_leaf _start \
  static_leaf,lib_make,grow_buf,thread_leaf lib_make >"$W/expect.json"
node "$driver" "$pw" "$chromium" "$W/s.html" "$W/stats.json" "$W/expect.json" "$shots" || fail "the page in the browser"
for v in summary overtime sites flame tables; do [ -s "$shots/$v.png" ] || fail "no screenshot of $v"; done

# --replay: the allocators side by side, their figures those of replay --json for the same trace
"$HATRACE" replay --allocator null,glibc --json "$W/s.hatf" >"$W/replay.json" 2>"$W/replay.err" ||
  fail "replay --json: $(cat "$W/replay.err")"
"$HATRACE" report --replay null,glibc "$W/s.hatf" -o "$W/r.html" 2>"$W/r.err" || fail "report --replay: $(cat "$W/r.err")"
[ ! -s "$W/r.err" ] || fail "report --replay said: $(cat "$W/r.err")"
node "$driver" "$pw" "$chromium" "$W/r.html" "$W/stats.json" "$W/expect.json" "$shots" "" "$W/replay.json" ||
  fail "the page with the allocators in the browser"
[ -s "$shots/replay.png" ] || fail "no screenshot of the allocators"
# --tune: the settings view (replay --tune's figures, a chart point per setting)
"$HATRACE" report --tune glibc "$W/s.hatf" -o "$W/t.html" 2>"$W/t.err" || fail "report --tune: $(cat "$W/t.err")"
[ ! -s "$W/t.err" ] || fail "report --tune said: $(cat "$W/t.err")"
grep -q '"tune": {' "$W/t.html" || fail "report --tune: no settings in the page"
node "$driver" "$pw" "$chromium" "$W/t.html" "$W/stats.json" "$W/expect.json" "$W/tshots" ||
  fail "the page with the settings in the browser"
[ -s "$W/tshots/tune.png" ] || fail "no screenshot of the settings"
"$HATRACE" report --tune null "$W/s.hatf" -o "$W/x.html" 2>"$W/e0"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$W/e0")" -eq 1 ] || fail "--tune null: exit $rc, $(cat "$W/e0")"
# a trace with the recorded program's resident samples: its row beside the allocator's
[ -x "$BUILD/workloads/rss_grow" ] || fail "workload rss_grow not built"
"$HATRACE" record -o "$W/g.hatf" -- "$BUILD/workloads/rss_grow" >/dev/null 2>"$W/g.err" || fail "record rss_grow: $(cat "$W/g.err")"
"$HATRACE" stats --json "$W/g.hatf" >"$W/gstats.json" || fail "stats --json (rss_grow)"
"$HATRACE" stats --sites --json --top 0 "$W/g.hatf" >"$W/gsites.json" || fail "stats --sites --json (rss_grow)"
"$HATRACE" replay --allocator null --json "$W/g.hatf" >"$W/greplay.json" 2>/dev/null || fail "replay --json (rss_grow)"
grep -q '"program_peak_resident_bytes"' "$W/greplay.json" || fail "rss_grow: no resident samples in the trace"
"$HATRACE" report --replay null "$W/g.hatf" -o "$W/g.html" 2>"$W/g.err" || fail "report --replay null: $(cat "$W/g.err")"
grep -qx "hatrace: $W/g.hatf: the trace has no call stacks: .*--stacks.*" "$W/g.err" ||
  fail "report of a trace recorded without --stacks: no hint, $(cat "$W/g.err")"
expect "$W/gsites.json" "" "" "" "" >"$W/gexpect.json"
node "$driver" "$pw" "$chromium" "$W/g.html" "$W/gstats.json" "$W/gexpect.json" "$W/gshots" "" "$W/greplay.json" ||
  fail "the page with the allocators and the recorded program"
"$HATRACE" report --replay null,nosuch "$W/s.hatf" -o "$W/x.html" 2>"$W/e0"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$W/e0")" -eq 1 ] && grep -q "^hatrace: report: .*nosuch" "$W/e0" ||
  fail "--replay of an unknown allocator: exit $rc, $(cat "$W/e0")"
"$HATRACE" report --replay , "$W/s.hatf" -o "$W/x.html" 2>"$W/e0"; rc=$?
[ $rc -eq 2 ] || fail "--replay ,: exit $rc, $(cat "$W/e0")"

# a chain cut at the recording depth: its root is a dashed [truncated] frame
[ -x "$BUILD/workloads/stack_depth" ] || fail "workload stack_depth not built"
"$HATRACE" record --stacks=8 -o "$W/c.hatf" -- "$BUILD/workloads/stack_depth" malloc 20 50 2>"$W/record.err" ||
  fail "record --stacks=8: $(cat "$W/record.err")"
"$HATRACE" stats --json "$W/c.hatf" >"$W/cstats.json" || fail "stats --json (cut)"
"$HATRACE" stats --sites --json --top 0 "$W/c.hatf" >"$W/csites.json" || fail "stats --sites --json (cut)"
"$HATRACE" report "$W/c.hatf" -o "$W/c.html" 2>"$W/c.err" || fail "report (cut): $(cat "$W/c.err")"
expect "$W/csites.json" "[truncated],chain,leaf" "[truncated]" leaf "" "[truncated]" >"$W/cexpect.json"
node "$driver" "$pw" "$chromium" "$W/c.html" "$W/cstats.json" "$W/cexpect.json" "$W/cshots" ||
  fail "the page of a trace with cut chains"

# sites told apart and named (tests/golden/inputs/report-sites.txt): two share their innermost
# function and differ by their callers; a frame no symbol names is its module and offset, never a
# bare address; load_rows' callers and callees; the resident line missing before the first sample
t=$(dirname "$0")/../golden/inputs/report-sites.txt
"$HATRACE" stats --from text --json "$t" >"$W/ustats.json" || fail "stats --json (report-sites)"
"$HATRACE" stats --from text --sites --json --top 0 "$t" >"$W/usites.json" || fail "stats --sites --json (report-sites)"
"$HATRACE" stats --from text --timeline --json --points 4 "$t" >"$W/utl.json" || fail "stats --timeline (report-sites)"
"$HATRACE" report --from text --points 4 "$t" -o "$W/u.html" 2>"$W/u.err" || fail "report (report-sites): $(cat "$W/u.err")"
RESIDENT_MISSING=$(python3 -c 'import json, sys
print(sum("resident_bytes" not in i for i in json.load(open(sys.argv[1]))["intervals"]))' "$W/utl.json")
[ "$RESIDENT_MISSING" = 1 ] || fail "report-sites: $RESIDENT_MISSING intervals before the first resident sample, want 1"
export RESIDENT_MISSING
PLACES='list_append ← load_rows|list_append ← parse_args|libsqlite3.so.0+0xa7504' \
CHAIN='libsqlite3.so.0+0xa7504|load_rows+0x10 (prog)|main+0x20 (prog)' CALLERS_OF=load_rows \
  expect "$W/usites.json" list_append,load_rows,main,libsqlite3.so.0+0xa7504 main "" parse_args >"$W/uexpect.json"
python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))
assert e["callers"] == {"main": 3} and e["callees"] == {"list_append": 1, "libsqlite3.so.0+0xa7504": 2}, e
assert e["bytes"] == 1000, e' "$W/uexpect.json" || fail "report-sites: the sites are not as the trace was made"
node "$driver" "$pw" "$chromium" "$W/u.html" "$W/ustats.json" "$W/uexpect.json" "$W/ushots" ||
  fail "the page of report-sites.txt"
unset RESIDENT_MISSING

# C++: new, new[], delete and delete[] in the calls by function (the driver checks each of stats')
record_stacks "$BUILD/workloads/rec_cxx" "$W/cxx.hatf"
"$HATRACE" stats --json "$W/cxx.hatf" >"$W/cxxstats.json" || fail "stats --json (C++)"
grep -q '"delete\[\]": 500' "$W/cxxstats.json" || fail "stats --json (C++): no delete[]"
"$HATRACE" stats --sites --json --top 0 "$W/cxx.hatf" >"$W/cxxsites.json" || fail "stats --sites --json (C++)"
"$HATRACE" report "$W/cxx.hatf" -o "$W/cxx.html" 2>"$W/cxx.err" || fail "report (C++): $(cat "$W/cxx.err")"
expect "$W/cxxsites.json" main "" main "" >"$W/cxxexpect.json"
node "$driver" "$pw" "$chromium" "$W/cxx.html" "$W/cxxstats.json" "$W/cxxexpect.json" "$W/cxxshots" ||
  fail "the page of a C++ trace"

# a damaged trace (one byte flipped in a chunk): the page says so, exit 3
record_example "$W/k.hatf" 100000
python3 -c 'import sys
p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[len(b) // 2] ^= 0xff; open(p, "wb").write(b)' "$W/k.hatf"
"$HATRACE" stats --json "$W/k.hatf" >"$W/kstats.json" 2>/dev/null
"$HATRACE" stats --sites --json --top 0 "$W/k.hatf" >"$W/ksites.json" 2>/dev/null
"$HATRACE" report "$W/k.hatf" -o "$W/k.html" 2>"$W/k.err"; rc=$?
[ $rc -eq 3 ] || { cat "$W/k.err"; fail "damaged trace: exit $rc, want 3"; }
grep -q "k.hatf: the trace is damaged or cut" "$W/k.err" || fail "damaged trace: not said on stderr"
expect "$W/ksites.json" "(no stack)" "" "(no stack)" "" >"$W/kexpect.json"
node "$driver" "$pw" "$chromium" "$W/k.html" "$W/kstats.json" "$W/kexpect.json" "$W/kshots" partial ||
  fail "the page of a damaged trace"

# usage and output errors: one line naming the problem, non-zero exit
"$HATRACE" report --bogus "$W/s.hatf" -o "$W/x.html" 2>"$W/e1"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$W/e1")" -eq 1 ] || fail "bad option: exit $rc, $(cat "$W/e1")"
"$HATRACE" report "$W/s.hatf" 2>"$W/e2"; rc=$?
[ $rc -eq 2 ] && grep -q -- "-o" "$W/e2" || fail "missing -o: exit $rc, $(cat "$W/e2")"
"$HATRACE" report "$W/s.hatf" -o "$W/no/such/dir/r.html" 2>"$W/e3"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$W/e3")" -eq 1 ] && grep -q "$W/no/such/dir/r.html: No such file or directory" "$W/e3" ||
  fail "unwritable output: exit $rc, $(cat "$W/e3")"
[ ! -e "$W/x.html" ] || fail "a page written after a usage error"
"$HATRACE" report --help | grep -q "usage: hatrace report" || fail "--help"
echo "ok (page of $size bytes)"
