#!/usr/bin/env bash
# A process that dies of a signal keeps its trace: every heap call it made
# before the fault is in the trace, the trace is closed and names the signal
# (validate's note, stats' "died"), and the process dies of the signal as it
# would without hatrace (exit status 128 + the signal). For each of SIGSEGV,
# SIGBUS, SIGILL, SIGFPE, SIGABRT and SIGTRAP, with 1 and 8 threads,
# CRASH_RUNS runs (default 20, 5 under the sanitizers) while a CPU-bound process keeps a core busy;
# the first run of each faults within the first millisecond. Then the
# program's own handlers: one that recovers (siglongjmp) keeps recording, one
# that puts SIG_DFL back is followed by the death, a SIGABRT handler that
# returns leaves every event readable; a double free, a stack overflow and
# hatrace record's exit status. No assertion depends on the machine's speed.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/rec_crash
[ -x "$prog" ] || { echo "workload not built"; exit 77; }
# Under the sanitizers (make check-sanitizers) 5 runs: the sanitized part is
# dump and validate, which 5 runs exercise as well; the recorder's crash path
# (libhatrace.so, never sanitized) gets its 20 in the ordinary suite. 240 runs
# of three processes each passed the 900 s limit under ASan on a loaded machine.
runs=${CRASH_RUNS:-$([ -n "${SANITIZE:-}" ] && echo 5 || echo 20)}

# a busy machine: one CPU-bound process for the whole test
( while :; do :; done ) &
hog=$!
trap 'kill $hog 2>/dev/null; rm -rf "$W"' EXIT

# run HOW THREADS CALLS: the program under the preload; its status in $st
# (the shell's "Segmentation fault" lines to /dev/null)
run() {
  rm -f "$W/t.hatf"
  { LD_PRELOAD=$HATRACE_LIB HATRACE_OUTPUT=$W/t.hatf "$prog" "$@" >"$W/out.txt" 2>"$W/err.txt"; st=$?; } 2>/dev/null
}

# the program's own counts ("T i size allocs frees") against the trace's
# allocations and frees of each size
check_counts() {
  awk '$1 == "T" { print "a." $3, $4; print "f." $3, $5 }' "$W/out.txt" >"$W/want.txt"
  [ -s "$W/want.txt" ] || fail "$1: the program printed no counts"
  "$HATRACE" dump "$W/t.hatf" 2>"$W/dump.err" | awk '
    $4 == "alloc" { size[$6] = $5; a[$5]++ }
    $4 == "free" && ($5 in size) { f[size[$5]]++; delete size[$5] }
    END { for (s in a) print "a." s, a[s]; for (s in f) print "f." s, f[s] }' >"$W/got.txt"
  compare "$W/want.txt" "$W/got.txt" || fail "$1: calls before the fault missing from the trace ($(cat "$W/err.txt"))"
}

# the trace is closed (validate finds no damage, such as a missing index)
# and names the signal
check_death() {  # name signal
  "$HATRACE" validate "$W/t.hatf" >"$W/validate.txt" || fail "$1: validate: $(cat "$W/validate.txt" "$W/err.txt")"
  grep -q "note: the process died of signal $2 " "$W/validate.txt" || fail "$1: validate names no death"
}

n=0
for spec in segv:11 bus:7 ill:4 fpe:8 abort:6 trap:5; do
  how=${spec%:*} sig=${spec#*:}
  for threads in 1 8; do
    for i in $(seq "$runs"); do
      calls=2000
      [ "$i" -eq 1 ] && calls=10  # a fault within the first millisecond
      run "$how" "$threads" "$calls"
      [ "$st" -eq $((128 + sig)) ] || fail "$how x$threads run $i: exit status $st, not $((128 + sig))"
      check_counts "$how x$threads run $i"
      check_death "$how x$threads run $i" "$sig"
      n=$((n + 1))
    done
  done
done
echo "record_crash: $n deaths by signal, every call in the trace"

for threads in 1 8; do
  # a handler of the program's own that recovers: recording goes on
  run recover "$threads" 2000
  [ "$st" -eq 0 ] || fail "recover x$threads: exit status $st"
  [ "$(grep -c '^handler 11' "$W/out.txt")" -eq 3 ] || fail "recover x$threads: the program's handler did not run 3 times"
  check_counts "recover x$threads"
  "$HATRACE" stats --json "$W/t.hatf" >"$W/stats.json"
  grep -q '"signals_handled": 3' "$W/stats.json" || fail "recover x$threads: 3 handled signals not noted"
  grep -q '"died"' "$W/stats.json" && fail "recover x$threads: a recovered fault noted as a death"
  validate_all "$W/t.hatf"

  # a handler that puts SIG_DFL back and returns: the fault again, and the death
  run chain "$threads" 2000
  [ "$st" -eq 139 ] || fail "chain x$threads: exit status $st"
  grep -q '^handler 11' "$W/out.txt" || fail "chain x$threads: the program's handler did not run"
  check_counts "chain x$threads"
  check_death "chain x$threads" 11

  # a SIGABRT handler that returns: abort() kills with a SIG_DFL no hook sees;
  # every event was written before, the trace is left open
  run aborthandler "$threads" 2000
  [ "$st" -eq 134 ] || fail "aborthandler x$threads: exit status $st"
  grep -q '^handler 6' "$W/out.txt" || fail "aborthandler x$threads: the program's handler did not run"
  check_counts "aborthandler x$threads"

  # glibc's double-free check: the evidence is in the trace
  run doublefree "$threads" 2000
  [ "$st" -eq 134 ] || fail "doublefree x$threads: exit status $st"
  check_counts "doublefree x$threads"
  "$HATRACE" validate "$W/t.hatf" >"$W/validate.txt" && fail "doublefree x$threads: validate found no problem"
  grep -q "already freed" "$W/validate.txt" || fail "doublefree x$threads: $(cat "$W/validate.txt")"
  grep -q "note: the process died of signal 6 " "$W/validate.txt" || fail "doublefree x$threads: no death named"

  # a stack overflow reaches the handler on its alternate stack
  run overflow "$threads" 2000
  [ "$st" -eq 139 ] || fail "overflow x$threads: exit status $st"
  check_counts "overflow x$threads"
  check_death "overflow x$threads" 11
done
echo "record_crash: the program's handlers, a double free and a stack overflow: ok"

# hatrace record: the command's status, and the death in its figures
"$HATRACE" record -o "$W/r.hatf" -- "$prog" segv 8 2000 >"$W/out.txt" 2>"$W/record.err"
st=$?
[ "$st" -eq 139 ] || fail "record: exit status $st: $(cat "$W/record.err")"
grep -q "died of signal 11 (SIGSEGV, address not mapped)" "$W/record.err" || fail "record: $(cat "$W/record.err")"
"$HATRACE" stats --json "$W/r.hatf" >"$W/stats.json" || fail "stats --json"
grep -q '"complete": true' "$W/stats.json" || fail "record: trace not closed"
grep -q '"died": {"signal": 11, "name": "SIGSEGV", "code": 1, "thread": ' "$W/stats.json" || fail "stats --json: no death"
# the table of several processes marks the one that died (its leaked bytes are no leak)
"$HATRACE" stats "$W/r.hatf" "$W/t.hatf" >"$W/many.txt" || fail "stats of two traces"
grep -q "r.hatf (died of SIGSEGV)$" "$W/many.txt" || fail "stats of two traces: $(cat "$W/many.txt")"

# the report's summary names the death, as the browser draws it
chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -n "$chromium" ]; then
  "$HATRACE" report "$W/r.hatf" -o "$W/r.html" 2>/dev/null || fail "report"
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --dump-dom "file://$W/r.html" 2>/dev/null >"$W/dom.html"
  grep -q 'id="sum-died" data-value="11" class="bad">signal 11 (SIGSEGV, code 1) on thread ' "$W/dom.html" ||
    fail "report: the summary does not name the death"
  grep -q '<dt>live when it died</dt>' "$W/dom.html" || fail "report: what was live at the death called leaked"
fi
echo "record_crash: ok"
