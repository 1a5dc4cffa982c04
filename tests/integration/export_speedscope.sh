#!/usr/bin/env bash
# convert --to speedscope, checked against speedscope's own file-format
# schema (the one its npm package ships) by ajv (tests/node/speedscope_read.mjs):
# the file validates, a damaged copy does not (the check can fail), and each
# profile's total (and endValue) equals stats --sites' total of its figure:
# bytes allocated, calls, bytes at the heap's peak, bytes leaked; the known
# sites' calls sit on their own functions; frames carry files and lines.
. "$(dirname "$0")/export_lib.inc"
need_tools
need_node_readers
record_stacks "$BUILD/workloads/stacks_sites" "$W/s.hatf"
read -r calls bytes peak_obj peak_bytes leak_obj leak_bytes max_live < <(sites_totals "$W/s.hatf")

"$HATRACE" convert --to speedscope "$W/s.hatf" -o "$W/s.speedscope.json" || fail "convert --to speedscope"
node "$NODE_DIR/speedscope_read.mjs" "$W/s.speedscope.json" >"$W/read.json" ||
  fail "the file does not validate against speedscope's schema"
python3 - "$W/read.json" "$bytes $calls $peak_bytes $leak_bytes" "$max_live" <<'PY' || fail "the profiles differ from stats --sites"
import json, sys
r = json.load(open(sys.argv[1]))
want = [int(x) for x in sys.argv[2].split()]
got = [p["total"] for p in r["profiles"]]
assert got == want, (got, want)
assert [p["endValue"] for p in r["profiles"]] == want
assert r["profiles"][2]["total"] == int(sys.argv[3])  # at the heap's peak: the peak
assert [p["unit"] for p in r["profiles"]] == ["bytes", "none", "bytes", "bytes"]
calls = {}
for fn, w in r["profiles"][1]["leaves"]:
    calls[fn] = calls.get(fn, 0) + w
for fn, n in (("static_leaf", 100), ("lib_make", 250), ("grow_buf", 37), ("thread_leaf", 100)):
    assert calls.get(fn) == n, (fn, calls.get(fn), n)
assert r["with_lines"] > 0
PY
# the check can fail: a sample's weight of the wrong type, and a frame without its name
python3 - "$W/s.speedscope.json" "$W/bad.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
f["profiles"][0]["weights"][0] = "many"
del f["shared"]["frames"][0]["name"]
json.dump(f, open(sys.argv[2], "w"))
PY
node "$NODE_DIR/speedscope_read.mjs" "$W/bad.json" >/dev/null 2>&1 && fail "a damaged file passed the schema"
echo "speedscope: validates; totals $bytes bytes, $calls calls, $peak_bytes at the peak, $leak_bytes leaked equal stats --sites'"
