#!/usr/bin/env bash
# A program that asks for 512 MiB and writes 56 (tests/workloads/touch_less):
# replay's page touching writes the share of each block the trace's resident
# samples show the program kept resident (replay/touch.c), so the replayed
# peak resident size is within 20 % of the program's own (its getrusage
# maxrss). Writing every page replayed it at about 489 MiB.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/touch_less
[ -x "$prog" ] || { echo "workload touch_less not built"; exit 77; }
"$HATRACE" record --no-figures -o "$W/t.hatf" -- "$prog" 512 56 600 >"$W/out.txt" 2>"$W/rec.err" ||
  fail "record: $(cat "$W/rec.err")"
native=$(awk '/^maxrss_kib/ { print $2 * 1024 }' "$W/out.txt")
[ -n "$native" ] || fail "no maxrss from the program: $(cat "$W/out.txt")"
"$HATRACE" replay --allocator glibc --json "$W/t.hatf" >"$W/r.json" 2>"$W/r.err" || fail "replay: $(cat "$W/r.err")"
python3 - "$W/r.json" "$native" <<'PY' || fail "the replayed resident size is not within 20 % of the native one"
import json, sys
d = json.load(open(sys.argv[1]))
a = (d["allocators"] if isinstance(d, dict) else d)[0]
native = int(sys.argv[2])
print("native", native, "replayed", a["peak_rss_bytes"], "touch_share", a["touch_share"])
sys.exit(0 if abs(a["peak_rss_bytes"] - native) <= 0.2 * native else 1)
PY
"$HATRACE" replay --allocator glibc "$W/t.hatf" 2>&1 | grep -q "^touch: the first 1[0-9.]*% of each block" ||
  fail "the table does not say what share was touched"
echo "replay_touch: ok"
