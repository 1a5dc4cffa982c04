#!/usr/bin/env bash
# hatrace record's summary of a trace that was never closed counts what the
# file holds and says why it ended:
#   * a program killed with SIGKILL: "not closed, the process was killed or
#     crashed", its readable events counted (more than 0 after a second
#     of 50 ms flushes) and added to the total;
#   * a full disk (RLIMIT_FSIZE): "not closed, writing failed: ... File too
#     large", not a kill; the program runs to its end (its status 0) and
#     record exits 125, with one line saying the trace is incomplete.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/rel_progress fsize=$BUILD/workloads/rel_fsize
for p in "$prog" "$fsize"; do [ -x "$p" ] || { echo "$(basename "$p") not built"; exit 77; }; done

# killed: the shell kills its traced child after a second
"$HATRACE" record --flush-ms 50 --no-follow-children -o "$W/k.hatf" -- \
  "$prog" 2 >/dev/null 2>"$W/k.err" &
rec=$!
for _ in $(seq 100); do [ -s "$W/k.hatf" ] && break; sleep 0.05; done
sleep 1
child=$(pgrep -P "$rec")  # the program hatrace record runs, and only it
[ -n "$child" ] || fail "killed: no program under hatrace record"
kill -KILL "$child"
wait "$rec"; s=$?
cat "$W/k.err"
[ $s -eq 137 ] || fail "killed: record exited $s, not 128 + 9"
line=$(grep "^hatrace: trace $W/k.hatf (not closed, the process was killed or crashed; no index: [0-9]* events readable)$" "$W/k.err") ||
  fail "killed: no line saying so"
held=$(sed -E 's/.*: ([0-9]+) events readable\)$/\1/' <<<"$line")
[ "$held" -gt 0 ] || fail "killed: 0 events readable"
got=$("$HATRACE" stats "$W/k.hatf" 2>/dev/null | awk '$1 == "records" { print $2 }')
[ "$got" = "$held" ] || fail "killed: summary says $held events, stats reads $got"
grep -q "^hatrace: 1 trace, $held events, .*(1 trace not closed: its readable events" "$W/k.err" ||
  fail "killed: the total leaves the readable events out"
grep -q "^hatrace:   the trace was not closed: these figures cover its readable events only" "$W/k.err" ||
  fail "killed: the closing figures do not say they cover the readable events only"

# full disk: the recorder says why, and it is no kill
(ulimit -f 64; "$HATRACE" record --effort stored -o "$W/f.hatf" -- "$fsize" 1000000) >"$W/f.out" 2>"$W/f.err"; s=$?
cat "$W/f.err"
[ $s -eq 125 ] || fail "full disk: record exited $s, not 125"
grep -q "^hatrace: 1 trace is incomplete: recording stopped early (see above) (the command exited with 0); exit status 125$" \
  "$W/f.err" || fail "full disk: no line saying the trace is incomplete"
[ "$(cat "$W/f.out")" = "done 1000000" ] || fail "full disk: the program did not finish"
grep -q "^hatrace: trace $W/f.hatf (not closed, writing failed: .*File too large; no index: [0-9]* events readable)$" "$W/f.err" ||
  fail "full disk: the summary does not say the write failed"
grep -q "killed" "$W/f.err" && fail "full disk: called a kill"

# the index does not fit (a 1 KiB limit, reached when the trace is closed):
# not closed, said so, and 125, though the program's status is 0
(ulimit -f 1; exec "$HATRACE" record -o "$W/c.hatf" -- "$fsize" 1000) 2>&1 | cat >"$W/c.err"
s=${PIPESTATUS[0]}
cat "$W/c.err"
[ $s -eq 125 ] || fail "cut at close: record exited $s, not 125"
grep -q "^hatrace: trace $W/c.hatf (not closed, writing failed: .*File too large; no index: [0-9]* events readable)$" \
  "$W/c.err" || fail "cut at close: the summary does not say the write failed"

# a disk full from the start (a tmpfs, mounted where root may): the header
# cannot be written, the program runs untraced to its end, record exits 125
if [ "$(id -u)" -eq 0 ] && mkdir -p "$W/full" && mount -t tmpfs -o size=64k tmpfs "$W/full" 2>/dev/null; then
  trap 'umount "$W/full" 2>/dev/null; rm -rf "$W"' EXIT
  dd if=/dev/zero of="$W/full/fill" bs=4k count=64 2>/dev/null || true
  "$HATRACE" record -o "$W/full/t.hatf" -- "$fsize" 1000 >"$W/z.out" 2>"$W/z.err"
  s=$?
  cat "$W/z.err"
  [ $s -eq 125 ] || fail "full at start: record exited $s, not 125"
  [ "$(cat "$W/z.out")" = "done 1000" ] || fail "full at start: the program did not finish"
  grep -q "^hatrace: trace $W/full/t.hatf (not closed, writing failed: .*No space left on device" "$W/z.err" ||
    fail "full at start: the summary does not say the write failed"
  umount "$W/full"
else
  echo "full at start: not run (needs root to mount a tmpfs)"
fi
echo "record_summary: ok"
