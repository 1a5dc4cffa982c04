#!/usr/bin/env bash
# A full disk, made with RLIMIT_FSIZE (ulimit -f, works without root): the
# kernel refuses writes past the limit with EFBIG and sends SIGXFSZ to the
# writing thread, whose default action kills the process. The program must run
# on (its SIGXFSZ stays at the default, and none is left pending), the trace
# must read back as incomplete, and the recorder must say why in one message.
# Two cases: the limit is reached by the flusher while the program runs, and
# by the exiting thread (a short program whose trace is written at exit).
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/rel_fsize
[ -x "$prog" ] || { echo "workload not built"; exit 77; }

run_limited() { # name limit_kb pairs [effort]
  local name=$1
  (ulimit -f "$2"; HATRACE_EFFORT=${4:-auto} HATRACE_OUTPUT="$W/$name.hatf" LD_PRELOAD=$HATRACE_LIB exec "$prog" "$3") \
    >"$W/$name.out" 2>"$W/$name.err"
  local s=$?
  echo "$name: exit $s, stdout '$(cat "$W/$name.out")'"; cat "$W/$name.err"
  [ $s -eq 0 ] || fail "$name: the program died (exit $s)"
  [ "$(cat "$W/$name.out")" = "done $3" ] || fail "$name: the program did not finish"
  [ "$(grep -c '^hatrace\[' "$W/$name.err")" = 1 ] || fail "$name: not exactly one message"
  grep -q "^hatrace\[[0-9]*\]: writing the trace $W/$name.hatf failed.*File too large" "$W/$name.err" ||
    fail "$name: the message does not say why"
  local size; size=$(stat -c %s "$W/$name.hatf")
  [ "$size" -le $(($2 * 1024)) ] || fail "$name: trace is $size bytes, over the limit"
  # incomplete, and validate says where it ends
  "$HATRACE" validate "$W/$name.hatf" >"$W/$name.val" 2>&1 && fail "$name: validate calls it complete"
  cat "$W/$name.val"
  grep -q "container damage: offset $size: index missing: file ended without a trailer" "$W/$name.val" ||
    fail "$name: validate does not say the trace ends at the limit"
  "$HATRACE" stats "$W/$name.hatf" | grep -q '^complete  *no$' || fail "$name: stats does not say incomplete"
}

# the flusher reaches 64 KiB while both threads still allocate (a million pairs;
# coded fast and stored, ~7 bytes an event, so the limit is reached early whatever
# the machine's load: fully coded, or packed, the trace came to 42-111 KiB, on either side)
run_limited running 64 1000000 stored
# 1 KiB: nothing is written before exit; the exiting thread hits the limit
run_limited atexit 1 2000

# eight threads allocating when the limit is hit, full coding (the encoding
# helper runs): the failed writer's close ends the helper, whose stack glibc
# may then unmap (more thread stacks than its cache keeps); the recorder must
# not read the ended helper's clock after that (it did, at the flusher's end:
# the program died of SIGSEGV). Full coding packs this loop's calls to a few
# bits each: 16 KiB and 2 s, so that even a machine loaded to 17 on 2 cores
# (600 ms and 64 KiB were not: no limit reached) makes the threads hit it.
load=$BUILD/workloads/rel_load
if [ -x "$load" ]; then
  (ulimit -f 16; HATRACE_EFFORT=full HATRACE_OUTPUT="$W/load.hatf" LD_PRELOAD=$HATRACE_LIB exec "$load" flat 8 2000) \
    >"$W/load.out" 2>"$W/load.err"
  s=$?
  echo "load: exit $s"; cat "$W/load.err"
  [ $s -eq 0 ] || fail "load: the program died (exit $s)"
  grep -q '^mallocs [0-9]' "$W/load.out" || fail "load: the program did not finish"
  [ "$(grep -c '^hatrace\[' "$W/load.err")" = 1 ] || fail "load: not exactly one message"
  grep -q "^hatrace\[[0-9]*\]: writing the trace $W/load.hatf failed.*File too large" "$W/load.err" ||
    fail "load: the message does not say why"
fi
echo "reliability_fullfs: ok"
