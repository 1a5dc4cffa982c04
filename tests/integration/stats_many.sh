#!/usr/bin/env bash
# hatrace stats of several traces: two files, or a folder of them, give one
# row per process (program, pid, parent pid, events, peak, leaked) whose
# figures are stats --json's for that trace alone, and totals that are their
# sums; --json the same. --sites takes one trace only.
. "$(dirname "$0")/record_lib.inc"
need_tools
mkdir "$W/d"
kv=$BUILD/examples/kvstore
[ -x "$kv" ] || { echo "example not built"; exit 77; }
"$HATRACE" record -o "$W/d/a.hatf" -- "$kv" 2000 >/dev/null 2>&1 || fail "record a"
"$HATRACE" record -o "$W/d/b.hatf" -- "$kv" 5000 >/dev/null 2>&1 || fail "record b"
echo "not a trace" >"$W/d/notes.txt"  # not taken from the folder

"$HATRACE" stats --json "$W/d/a.hatf" "$W/d/b.hatf" >"$W/two.json" || fail "stats --json of two files"
"$HATRACE" stats --json "$W/d" >"$W/dir.json" || fail "stats --json of a folder"
for f in a b; do "$HATRACE" stats --json "$W/d/$f.hatf" >"$W/$f.json" || fail "stats $f"; done
python3 - "$W" <<'PY' || fail "the rows are not each trace's own figures"
import json, sys
w = sys.argv[1]
one = {f: json.load(open(f"{w}/{f}.json")) for f in "ab"}
for name in ("two", "dir"):
    m = json.load(open(f"{w}/{name}.json"))
    rows = m["traces"]
    assert len(rows) == 2, (name, len(rows))
    for r in rows:
        s = one[r["file"].rsplit("/", 1)[1][0]]
        c = s["container"]
        assert r["program"] == "kvstore" and r["pid"] == c["pid"], r
        assert r["ppid"] > 0 and r["ppid"] != r["pid"], r
        for k, sk in (("events", "records"), ("allocs", "allocs"), ("frees", "frees"), ("reallocs", "reallocs"),
                      ("max_live_bytes", "max_live_bytes"), ("leaked_bytes", "live_bytes_at_end"),
                      ("leaked_objects", "live_objects_at_end")):
            assert r[k] == s[sk], (name, r["file"], k, r[k], s[sk])
    t = m["total"]
    assert t["traces"] == 2
    for k in ("events", "allocs", "frees", "reallocs", "max_live_bytes", "leaked_bytes", "temporary"):
        assert t[k] == sum(r[k] for r in rows), (name, k)
PY

# the table: a header, one row per trace with its pid and parent pid, the totals
"$HATRACE" stats "$W/d" >"$W/dir.txt" || fail "stats of a folder"
cat "$W/dir.txt"
[ "$(grep -c '^kvstore ' "$W/dir.txt")" = 2 ] || fail "not two rows"
for f in a b; do
  pid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["container"]["pid"])' "$W/$f.json")
  ev=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["records"])' "$W/$f.json")
  grep -qE "^kvstore +$pid +[0-9]+ +$ev .* $W/d/$f.hatf$" "$W/dir.txt" || fail "no row for $f (pid $pid, $ev events)"
done
total=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"]["events"])' "$W/dir.json")
grep -qE "^total +$total .* 2 traces" "$W/dir.txt" || fail "totals line"

"$HATRACE" stats --sites "$W/d/a.hatf" "$W/d/b.hatf" >/dev/null 2>&1; [ $? = 2 ] || fail "--sites of two traces is no usage error"
mkdir "$W/empty"
"$HATRACE" stats "$W/empty" >/dev/null 2>"$W/empty.err"; [ $? = 1 ] || fail "an empty folder is no error"
grep -q "no traces" "$W/empty.err" || fail "empty folder: $(cat "$W/empty.err")"
echo "stats_many: ok"
