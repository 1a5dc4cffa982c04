#!/usr/bin/env bash
# glibc's thread exit calls free after the program's last key destructor
# (glibc 2.36: twice, on its per-thread strsignal and strerror_l texts, NULL
# unless the thread asked for one): the trace holds those calls, each thread's
# thread-destroy after them. The frees on the worker threads of
# tests/workloads/thread_exit.c are counted by a counting preload of our own
# (tests/workloads/lib/count_frees.c) in a native run, and the trace's must be
# the same, free(NULL) and the others apart; more than the program's own, so
# glibc's are in both. One thread's strsignal text is a real block freed at
# its exit: validate finds it allocated and freed, nothing lost.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/thread_exit
count=$BUILD/workloads/libcount_frees.so
[ -x "$prog" ] && [ -f "$count" ] || { echo "workload not built"; exit 77; }
COUNT_FREES_OUT="$W/native.txt" LD_PRELOAD="$count" "$prog" >"$W/program.txt" || fail "native run"
"$HATRACE" record -o "$W/t.hatf" -- "$prog" >/dev/null 2>"$W/record.err" || fail "record: $(cat "$W/record.err")"
cat "$W/program.txt" "$W/native.txt"
grep -q ' 0 dropped' "$W/record.err" || fail "events dropped: $(grep dropped "$W/record.err")"
validate_all "$W/t.hatf"
"$HATRACE" dump "$W/t.hatf" | awk '
  $2 > 1 && $4 == "free" { if ($5 == "0x0") n++; else f++ }
  $2 > 1 && $4 == "thread-destroy" { d++ }
  END { print "free_null", n + 0; print "free", f + 0; print "destroys", d + 0 }' >"$W/got.txt"
cat "$W/got.txt"
threads=$(awk '$1 == "threads" { print $2 }' "$W/program.txt")
{ cat "$W/native.txt"; echo "destroys $threads"; } >"$W/want.txt"
compare "$W/want.txt" "$W/got.txt" || fail "the trace's frees on the threads differ from the counting preload's"
own=$(awk '$1 == "own_free_null" { print $2 }' "$W/program.txt")
[ "$(awk '$1 == "free_null" { print $2 }' "$W/native.txt")" -gt "$own" ] ||
  fail "no free(NULL) of glibc's thread exit counted: the test proves nothing on this glibc"
echo "record_thread_exit: ok"
