#!/usr/bin/env bash
# hatrace replay --tune (docs/replay.md, "Tuning").
# 1. The gain it finds holds natively (bench/replay_tune.sh, on
#    tests/workloads/tune_handoff): under glibc, fewer arenas lower the peak
#    resident size, and the program itself, run with the GLIBC_TUNABLES line
#    replay names, peaks lower too; under jemalloc, dirty_decay_ms:0 does the
#    same. Resident sizes only, with margins (best < 0.6 x defaults; measured:
#    0.19 and 0.26 replayed, 0.21 and 0.27 natively): no figure of speed.
# 2. A setting that crashes its run is said and the search goes on; the table,
#    JSON and chart; settings from a file; bad options and files.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/tune_handoff
[ -x "$prog" ] || { echo "workload tune_handoff not built"; exit 77; }
"$HATRACE" replay --tune --list --allocator glibc,jemalloc >/dev/null 2>&1 || { echo "jemalloc not installed"; exit 77; }
root=$(cd "$(dirname "$0")/../.." && pwd)

# 1. replayed and native, the same direction
bash "$root/bench/replay_tune.sh" "$BUILD" 2 1 >"$W/bench.out" 2>&1 || fail "bench/replay_tune.sh: $(cat "$W/bench.out")"
cat "$W/bench.out"
grep -q '^result glibc-arenas arena_max=[12] ' "$W/bench.out" || fail "glibc: the best setting is not fewer arenas"
grep -q '^result jemalloc-decay dirty_decay_ms=0 ' "$W/bench.out" || fail "jemalloc: the best setting is not dirty_decay_ms=0"
while read -r _ name setting rd rb nd nb; do
  [ $((rb * 10)) -lt $((rd * 6)) ] || fail "$name $setting: replayed $rb KiB against $rd with the defaults"
  [ $((nb * 10)) -lt $((nd * 6)) ] || fail "$name $setting: native $nb KiB against $nd with the defaults"
done < <(grep '^result ' "$W/bench.out")

# 2. a crashing setting (jemalloc aborts on a bad key with abort_conf), then one more
"$HATRACE" record --no-figures -o "$W/t.hatf" -- "$prog" 4 4 512 16 >/dev/null 2>"$W/rec.err" || fail "record: $(cat "$W/rec.err")"
printf '# a comment\n\njemalloc:abort_conf=true,nonsense=1\n  jemalloc:narenas=1   # fewer arenas\n' >"$W/settings"
plot=""
command -v gnuplot >/dev/null && plot="--plot $W/t.svg"
"$HATRACE" replay --tune --allocator glibc,jemalloc --no-builtin --settings-file "$W/settings" \
  --setting glibc:arena_max=1 --repeat 1 $plot "$W/t.hatf" >"$W/table" 2>"$W/table.err" ||
  fail "tune: $(cat "$W/table.err")"
cat "$W/table"
grep -q 'jemalloc abort_conf=true,nonsense=1 *failed: run 1 of 1: allocator jemalloc: the replay died of signal 6' "$W/table" ||
  fail "the crash is not in the table"
grep -q 'setting jemalloc abort_conf=true,nonsense=1: run 1 of 1: .*signal 6' "$W/table.err" || fail "the crash is not said on stderr"
for row in "glibc default" "glibc arena_max=1" "jemalloc default" "jemalloc narenas=1"; do
  grep -Eq "^..$row +[0-9.]+ \[" "$W/table" || fail "no figures for $row"
done
grep -q '^best for rss: ' "$W/table" && grep -q '^  in production: ' "$W/table" || fail "no best setting named"
grep -q 'recorded program: peak resident' "$W/table" || fail "the program's own peak is missing"
[ -z "$plot" ] || grep -q '<svg' "$W/t.svg" || fail "no chart drawn"

"$HATRACE" replay --tune --allocator jemalloc --no-builtin --setting 'jemalloc:abort_conf=true,nonsense=1' \
  --setting jemalloc:dirty_decay_ms=0 --repeat 2 --json "$W/t.hatf" >"$W/t.json" 2>/dev/null || fail "tune --json"
python3 - "$W/t.json" <<'PY' || fail "JSON"
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["setting"]: r for r in d["settings"]}
bad = rows["abort_conf=true,nonsense=1"]
assert bad["status"] == "failed" and "signal 6" in bad["error"], bad
for name in ("default", "dirty_decay_ms=0"):
    r = rows[name]
    f = r["figures"]["peak_rss_bytes"]
    assert r["status"] == "ok" and r["runs"] == 2 and f["min"] <= f["median"] <= f["max"], r
    assert set(r["figures"]) == {"peak_rss_bytes", "frag_time_avg", "frag_at_peak_live", "frag_at_peak_rss",
                                 "frag_peak_over_peak", "ops_per_s", "p99_ns"}, r
assert d["program_peak_resident_bytes"] > 0 and d["settings"][d["best"]]["best"]
assert rows["dirty_decay_ms=0"]["production"].endswith("MALLOC_CONF=dirty_decay_ms:0"), rows["dirty_decay_ms=0"]
print("json ok:", {k: (r["status"], r.get("pareto")) for k, r in rows.items()})
PY

# bad options and files: one line, exit 2 for usage, 1 for a bad file
expect() {  # STATUS PATTERN ARGS...
  local want=$1 pat=$2
  shift 2
  "$HATRACE" replay --tune "$@" >/dev/null 2>"$W/err"
  local rc=$?
  [ $rc = "$want" ] && grep -q -- "$pat" "$W/err" && [ "$(wc -l <"$W/err")" = 1 ] ||
    fail "replay --tune $*: exit $rc (want $want): $(cat "$W/err")"
}
expect 2 "--objective" --objective fastest "$W/t.hatf"
expect 2 "--tune knows the settings of glibc" --allocator null "$W/t.hatf"
expect 2 "not KEY=VALUE" --setting glibc:arena_max "$W/t.hatf"
expect 2 "is not among --allocator" --allocator glibc --setting jemalloc:narenas=1 "$W/t.hatf"
expect 1 "$W/none: cannot read" --settings-file "$W/none" "$W/t.hatf"
printf 'glibc:arena_max=2\nglibc arena_max=2\n' >"$W/badset"
expect 1 "$W/badset: line 2: " --settings-file "$W/badset" "$W/t.hatf"
expect 2 "must end in .png or .svg" --plot "$W/t.jpg" "$W/t.hatf"
echo "replay_tune: ok"
