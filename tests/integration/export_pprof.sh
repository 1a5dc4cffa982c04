#!/usr/bin/env bash
# convert --to pprof, read back by a decoder we did not write (the npm
# registry's pprof-format, tests/node/pprof_read.mjs, after node's gunzip):
# Go's four heap sample types, totals equal to stats --sites' (inuse at the
# heap's peak by default, at the end with --inuse end), the known sites'
# calls on their own functions, source files and lines, the program's
# mapping with its build id; and the bad cases: an existing OUT, a damaged
# trace, options that do not apply.
. "$(dirname "$0")/export_lib.inc"
need_tools
need_node_readers
prog=$BUILD/workloads/stacks_sites
record_stacks "$prog" "$W/s.hatf"
read -r calls bytes peak_obj peak_bytes leak_obj leak_bytes max_live < <(sites_totals "$W/s.hatf")

"$HATRACE" convert --to pprof "$W/s.hatf" -o "$W/s.pb.gz" || fail "convert --to pprof"
node "$NODE_DIR/pprof_read.mjs" "$W/s.pb.gz" >"$W/peak.json" || fail "pprof-format could not decode the profile"
"$HATRACE" convert --to pprof --inuse end "$W/s.hatf" -o "$W/end.pb.gz" || fail "convert --to pprof --inuse end"
node "$NODE_DIR/pprof_read.mjs" "$W/end.pb.gz" >"$W/end.json" || fail "pprof-format could not decode --inuse end"
build_id=$(readelf -n "$prog" | awk '/Build ID/ { print $3 }')
python3 - "$W/peak.json" "$W/end.json" "$calls $bytes $peak_obj $peak_bytes" "$calls $bytes $leak_obj $leak_bytes" \
          "$max_live" "$prog" "$build_id" <<'PY' || fail "the decoded profile differs from stats --sites"
import json, sys
peak, end = (json.load(open(f)) for f in sys.argv[1:3])
want_peak, want_end = sys.argv[3].split(), sys.argv[4].split()
assert peak["types"] == ["alloc_objects/count", "alloc_space/bytes", "inuse_objects/count", "inuse_space/bytes"], peak["types"]
assert peak["default"] == "inuse_space"
assert peak["totals"] == want_peak, (peak["totals"], want_peak)
assert peak["totals"][3] == sys.argv[5]  # inuse_space at the peak adds up to the heap's peak
assert end["totals"] == want_end, (end["totals"], want_end)
calls = {}
for s in peak["leaves"]:
    calls[s["function"]] = calls.get(s["function"], 0) + int(s["values"][0])
for fn, n in (("static_leaf", 100), ("lib_make", 250), ("grow_buf", 37), ("thread_leaf", 100)):
    assert calls.get(fn) == n, (fn, calls.get(fn), n)
assert "tests/workloads/stacks_sites.c" in peak["files"], peak["files"]
assert peak["lines"] > 0
maps = {m["file"]: m["build_id"] for m in peak["mappings"]}
assert maps.get(sys.argv[6]) == sys.argv[7] != "", (sys.argv[6], maps)
assert any("at the end" in c for c in end["comments"]) and any("peak" in c for c in peak["comments"])
PY

# the file is gzip's (what pprof tools expect)
gzip -t "$W/s.pb.gz" || fail "not a gzip file"
# bad cases: one line naming the file, exit 1 (bad input) or 2 (bad usage), no file left behind
"$HATRACE" convert --to pprof "$W/s.hatf" -o "$W/s.pb.gz" 2>"$W/e1" && fail "an existing OUT was overwritten"
grep -q "s.pb.gz: exists" "$W/e1" || fail "existing OUT: $(cat "$W/e1")"
head -c 100 "$W/s.hatf" >"$W/cut.hatf"
"$HATRACE" convert --to pprof "$W/cut.hatf" -o "$W/cut.pb.gz" 2>"$W/e2"
rc=$?
[ "$rc" = 1 ] || [ "$rc" = 3 ] || fail "a cut trace: exit $rc ($(cat "$W/e2"))"
grep -q "cut.hatf" "$W/e2" || fail "a cut trace's error does not name it: $(cat "$W/e2")"
[ "$rc" = 3 ] || [ ! -e "$W/cut.pb.gz" ] || fail "a failed export left its file"
"$HATRACE" convert --to chrome --inuse end "$W/s.hatf" -o "$W/x.json" 2>/dev/null; [ $? = 2 ] || fail "--inuse with --to chrome"
"$HATRACE" convert --to pprof --inuse middle "$W/s.hatf" -o "$W/x.pb.gz" 2>/dev/null; [ $? = 2 ] || fail "--inuse middle"
"$HATRACE" convert --to pprof --strip "$W/s.hatf" -o "$W/x.pb.gz" 2>/dev/null; [ $? = 2 ] || fail "--strip with pprof"
"$HATRACE" convert --to pprof "$W/s.hatf" -o "$W/no/such/dir.pb.gz" 2>"$W/e3"; [ $? = 1 ] || fail "unwritable OUT"
grep -q "dir.pb.gz: cannot create" "$W/e3" || fail "unwritable OUT: $(cat "$W/e3")"
echo "pprof: totals $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"])' "$W/peak.json") equal stats --sites'"
