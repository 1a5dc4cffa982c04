#!/usr/bin/env bash
# hatrace record's closing figures (calls, peak, leaked at exit, temporary
# allocations) are counted with stats' own counting, while the program runs
# (record follows its traces) or read back after it: either way they must
# equal what stats --json (and stats --sites --json, for temporary) says of
# the same trace. Checked on a program with stacks (one trace), followed and
# read back, on one that forks and execs (four traces, each with its own
# figures), and on a multi-threaded one; the next commands name the first trace.
. "$(dirname "$0")/record_lib.inc"
need_tools

# "key value" lines of record's figures for trace $2 in record's stderr $1
record_figures() {
  awk -v t="$2" '
    /^hatrace: trace / { on = ($3 == t) ; next }
    !/^hatrace:   / { on = 0 }
    on && /calls:/ { print "allocs", $3; print "frees", $5; print "reallocs", $7 }
    on && /peak:/ { gsub(/\(/, ""); print "max_live_bytes", $(NF-4); print "max_live_objects", $(NF-1) }
    on && /leaked at exit:/ { gsub(/\(/, ""); print "live_bytes_at_end", $(NF-4); print "live_objects_at_end", $(NF-1) }
    on && /temporary allocations:/ { print "temporary", $4 }' "$1"
}

# the same keys from stats --json and stats --sites --json
stats_figures() {
  "$HATRACE" stats --json "$1" >"$W/s.json" || fail "stats --json $1"
  "$HATRACE" stats --sites --json --top 1 "$1" >"$W/sites.json" 2>/dev/null || fail "stats --sites --json $1"
  python3 -c 'import json, sys
s = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2]))
for k in ("allocs", "frees", "reallocs", "max_live_bytes", "max_live_objects", "live_bytes_at_end", "live_objects_at_end"):
    print(k, s[k])
print("temporary", t["temporary"])' "$W/s.json" "$W/sites.json"
}

# how record counted trace $2's figures, from its stderr $1: "followed" or "read"
how_counted() {
  awk -v t="$2" '
    /^hatrace: trace / { on = ($3 == t) ; next }
    !/^hatrace:   / { on = 0 }
    on && /figures counted while it ran, ready [0-9.]* s after it ended$/ { print "followed" }
    on && /figures counted while it ran \(the idle follower fell behind: at normal priority\), ready [0-9.]* s after it ended$/ { print "taken" }
    on && /figures read back after it ended in [0-9.]* s$/ { print "read" }
    on && /figures counted after it ended: [0-9]*% of its events \(no CPU was idle while it ran; --no-figures skips the count\), ready [0-9.]* s after it ended$/ { print "after" }' "$1"
}

check_trace() {  # record-stderr trace
  record_figures "$1" "$2" >"$W/rec.txt"
  [ "$(wc -l <"$W/rec.txt")" = 8 ] || fail "$2: record printed $(wc -l <"$W/rec.txt") of 8 figures: $(cat "$1")"
  stats_figures "$2" >"$W/st.txt"
  diff "$W/st.txt" "$W/rec.txt" >/dev/null || fail "$2: record's figures differ from stats': $(diff "$W/st.txt" "$W/rec.txt" | tr '\n' ' ')"
}

prog=$BUILD/workloads/stacks_sites
[ -x "$prog" ] || { echo "workload not built"; exit 77; }
# the follower at normal priority: it hands its counts over whatever the load
HATRACE_RECORD_FOLLOWER=normal "$HATRACE" record --stacks -o "$W/s.hatf" -- "$prog" 2>"$W/s.err" ||
  fail "record: $(cat "$W/s.err")"
cat "$W/s.err"
grep -q "built without libunwind" "$W/s.err" && { echo "no libunwind"; exit 77; }
check_trace "$W/s.err" "$W/s.hatf"
[ "$(how_counted "$W/s.err" "$W/s.hatf")" = followed ] || fail "the figures were not counted while it ran"
# no follower: read back after, the same figures
HATRACE_RECORD_FOLLOWER=off "$HATRACE" record --stacks -o "$W/r.hatf" -- "$prog" 2>"$W/r.err" ||
  fail "record: $(cat "$W/r.err")"
check_trace "$W/r.err" "$W/r.hatf"
[ "$(how_counted "$W/r.err" "$W/r.hatf")" = read ] || fail "the figures were not read back"
grep -q "^hatrace:   size: .*, [0-9.]* bytes per event$" "$W/s.err" || fail "no size per event"
grep -q "^hatrace: record's own CPU, mostly counting the figures: [0-9.]* ms, [0-9.]* ns/event (--no-figures skips it)$" \
  "$W/s.err" || fail "no CPU of the figures' count"
grep -q "^hatrace: next: hatrace stats --sites $W/s.hatf " "$W/s.err" || fail "next commands"

fork=$BUILD/workloads/rec_fork_exec
[ -x "$fork" ] || { echo "workload not built"; exit 77; }
fork_traces() {  # name [env...]: record the fork/exec program, each of its four traces its own figures
  local x=$1; shift
  env "$@" "$HATRACE" record -o "$W/$x.%p.hatf" -- "$fork" 2>"$W/$x.err" || fail "record: $(cat "$W/$x.err")"
  local n=0 t
  for t in "$W/$x".*.hatf*; do
    check_trace "$W/$x.err" "$t"
    n=$((n + 1))
  done
  [ $n = 4 ] || fail "$x: $n traces, want 4"
}
fork_traces f
# several threads (a thread the follow meets late makes record read that trace back: same figures)
mt=$BUILD/workloads/mt_churn
if [ -x "$mt" ]; then
  HATRACE_RECORD_FOLLOWER=normal "$HATRACE" record -o "$W/m.hatf" -- "$mt" 2>"$W/m.err" >/dev/null ||
    fail "record: $(cat "$W/m.err")"
  check_trace "$W/m.err" "$W/m.hatf"
  [ -n "$(how_counted "$W/m.err" "$W/m.hatf")" ] || fail "record did not say how it counted"
fi
grep -q "^hatrace: next: hatrace stats .*record with --stacks" "$W/f.err" || fail "no hint to record stacks"
# a follower behind (here: at once) is taken over by record's waiting thread while the
# program runs: the same figures, and record says so. follow_wait (one thread) holds the
# program until its go-file exists, made once the trace has begun; the follower at normal
# priority parks when asked whatever the load
fw=$BUILD/workloads/follow_wait
[ -x "$fw" ] || { echo "workload not built"; exit 77; }
HATRACE_RECORD_FOLLOWER=normal HATRACE_RECORD_LAG_MS=0 "$HATRACE" record -o "$W/w.hatf" -- "$fw" "$W/go" 200 1 \
  2>"$W/w.err" >/dev/null &
rp=$!
for _ in $(seq 400); do [ -s "$W/w.hatf" ] && break; sleep 0.05; done
sleep 1
: >"$W/go"
wait $rp || fail "record: $(cat "$W/w.err")"
check_trace "$W/w.err" "$W/w.hatf"
[ "$(how_counted "$W/w.err" "$W/w.hatf")" = taken ] || fail "the waiter did not take the follow over: $(cat "$W/w.err")"
# and traces named after the take-over (a program that forks and execs): each its own figures
fork_traces g HATRACE_RECORD_LAG_MS=0
# no idle CPU at all: record, the program and a busy loop on one CPU, the follower
# (idle class) starved, no take-over within the run: the count comes after the end,
# the same figures, and the line says how much of it (400 K events, over the last
# groups every trace leaves for the end)
taskset -c 0 true 2>/dev/null || { echo "record_figures: no taskset: the starved follower is not tried"; echo "record_figures: ok"; exit 0; }
taskset -c 0 sh -c 'while :; do :; done' &
hog=$!
: >"$W/go2"
HATRACE_RECORD_LAG_MS=600000 taskset -c 0 "$HATRACE" record -o "$W/b.hatf" -- "$fw" "$W/go2" 100000 1 \
  2>"$W/b.err" >/dev/null || { kill $hog; fail "record: $(cat "$W/b.err")"; }
kill $hog
check_trace "$W/b.err" "$W/b.hatf"
[ "$(how_counted "$W/b.err" "$W/b.hatf")" = after ] || fail "record did not say its count came after the end: $(cat "$W/b.err")"
echo "record_figures: ok"
