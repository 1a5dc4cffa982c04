#!/usr/bin/env bash
# A program that closes every descriptor above 2 as it starts (daemons do:
# a loop of close, close_range, closefrom) keeps its trace: the close hooks
# leave the trace's descriptor open and say it closed, while the program's
# own descriptors really close (tests/workloads/rec_close_all checks /dev/null
# opens as 3 and a pipe's closed write end gives an end of file). So does a
# fork child that does it, and a daemon(3) and its parent. The close_range system call made directly passes
# every hook: recording stops with its one message, the program unharmed.
# Orphans that end while the command runs are reaped by record. The
# recorder's messages never go into a file that took the number 2 later.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/rec_close_all
[ -x "$prog" ] || { echo "workload not built"; exit 77; }
n=5000

# counts TRACE ALLOCS: a closed trace with ALLOCS malloc/free pairs
counts() {
  "$HATRACE" stats "$1" >"$W/stats" || fail "stats $1"
  grep -q '^complete  *yes$' "$W/stats" || fail "$1: trace incomplete"
  grep -q "^allocs  *$2\$" "$W/stats" || fail "$1: $(grep '^allocs' "$W/stats"), want $2"
  grep -q "^frees  *$2 " "$W/stats" || fail "$1: $(grep '^frees' "$W/stats"), want $2"
  validate_all "$1"
}

for how in none loop range from; do
  rc=0
  timeout 60 "$HATRACE" record -o "$W/$how.hatf" -- "$prog" "$how" "$n" >"$W/$how.out" 2>&1 || rc=$?
  [ "$rc" = 0 ] || fail "$how: exit $rc: $(cat "$W/$how.out")"
  grep -q "closed by the program" "$W/$how.out" && fail "$how: $(grep 'closed by' "$W/$how.out")"
  counts "$W/$how.hatf" "$n"
done

# a fork child: its own trace, every pair in it
rc=0
timeout 60 "$HATRACE" record -o "$W/fork.hatf" -- "$prog" fork "$n" >"$W/fork.out" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "fork: exit $rc: $(cat "$W/fork.out")"
kid=$(ls "$W"/fork.rec_close_all.*.hatf 2>/dev/null | head -1)
[ -n "$kid" ] || fail "fork: no child trace: $(ls "$W")"
counts "$W/fork.hatf" 0
counts "$kid" $((2 * n))

# daemon(3): glibc's ends the parent with libc's own _exit, which no hook
# sees; the recorder's daemon ends it through its _exit, so the parent's trace
# is closed with every event too. The daemon outlives the command: record
# names it as still running (it is record's child: record is the subreaper);
# sent SIGTERM, it ends and closes its own trace (waited for, up to 60 s)
rc=0
timeout 60 "$HATRACE" record -o "$W/dmn.hatf" -- "$prog" daemon "$n" >"$W/dmn.out" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "daemon: exit $rc: $(cat "$W/dmn.out")"
counts "$W/dmn.hatf" "$n"
left=$(grep -o '^hatrace: 1 process still running after the command ended: rec_close_all (pid [0-9]*)' "$W/dmn.out" |
       grep -o '[0-9]*)$' | tr -d ')')
[ -n "$left" ] || fail "daemon: not named as left running: $(cat "$W/dmn.out")"
kill -TERM "$left" || fail "daemon: no process $left"
for i in $(seq 600); do
  kid=$(ls "$W"/dmn.rec_close_all.*.hatf 2>/dev/null | head -1)
  [ -n "$kid" ] && break
  sleep 0.1
done
[ -n "$kid" ] || fail "daemon: no trace of the daemon: $(ls "$W")"
for i in $(seq 600); do
  "$HATRACE" stats "$kid" 2>/dev/null | grep -q '^complete  *yes$' && break
  sleep 0.1
done
counts "$kid" "$n"

# orphans that end while the command runs are record's (its subreaper) to
# reap, with the follower and without (--no-figures): the workload fails if
# some are still zombies after 10 s
for opt in "" --no-figures; do
  rc=0
  timeout 60 "$HATRACE" record $opt -o "$W/orph.hatf" -- "$prog" orphans "$n" >"$W/orph.out" 2>&1 || rc=$?
  [ "$rc" = 0 ] || fail "orphans $opt: exit $rc: $(cat "$W/orph.out")"
  rm -f "$W"/orph*.hatf
done

# a program that closes its stderr and opens a data file, which takes 2: the
# recorder's messages (HATRACE_VERBOSE's closing lines here) go to the
# stderr it started with, not into that file
rc=0
(cd "$W" && HATRACE_VERBOSE=1 timeout 60 "$HATRACE" record -o "$W/se.hatf" -- "$prog" stderr "$n") >"$W/se.out" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "stderr: exit $rc: $(cat "$W/se.out")"
[ "$(cat "$W/rec_close_all.data")" = data ] || fail "stderr: the program's file holds: $(head -c 300 "$W/rec_close_all.data")"
grep -q "^hatrace\[[0-9]*\]: [0-9]* events, 0 dropped" "$W/se.out" || fail "stderr: no closing line: $(cat "$W/se.out")"

# past the hooks: the descriptor is gone, recording stops, said once; the
# program's exit is 0 and record's 125 (an incomplete trace)
rc=0
timeout 60 "$HATRACE" record -o "$W/sys.hatf" -- "$prog" syscall "$n" >"$W/sys.out" 2>&1 || rc=$?
[ "$rc" = 125 ] || fail "syscall: record exit $rc, want 125: $(cat "$W/sys.out")"
grep -q "the trace file .* was closed by the program; recording stops" "$W/sys.out" || fail "syscall: $(cat "$W/sys.out")"
grep -q "the command exited with 0" "$W/sys.out" || fail "syscall: the program failed: $(cat "$W/sys.out")"
echo "record_close_all: ok"
