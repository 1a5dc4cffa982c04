#!/usr/bin/env bash
# hatrace record -p: a server-like program (tests/workloads/attach_server.cc),
# whose worker threads serve rounds of heap calls on command and count them,
# is attached for windows that hold exactly the rounds the test asks for.
# Each window's trace holds exactly the calls the program counted in it (a
# library it dlopens inside the window too), its releases of blocks made
# before the window are counted apart, the program keeps serving between
# and after the windows, and exits with its own status. Then the refusals,
# each one line, leaving the process as it was.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/attach_server
lib=$BUILD/workloads/libattach_lib.so
[ -x "$prog" ] && [ -f "$lib" ] || { echo "workload not built"; exit 77; }
[ "$(uname -m)" = x86_64 ] || { echo "attaching works on x86-64 only"; exit 77; }
scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
if [ "$(id -u)" != 0 ] && [ "$scope" != 0 ]; then echo "ptrace_scope $scope: attaching needs root here"; exit 77; fi

# wait_for FILE PATTERN: until a line of FILE matches (60 s at most: a stuck run fails)
wait_for() {
  local i
  for ((i = 0; i < 600; i++)); do
    grep -q -- "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "waited 60 s for '$2' in $(basename "$1"): $(tail -3 "$1" 2>/dev/null)"
}

# the program, its stdin a fifo the test writes commands into
mkfifo "$W/in"
"$prog" <"$W/in" >"$W/out" 2>"$W/prog.err" &
spid=$!
exec 3>"$W/in"
rounds=0
# round: one round served; its answer block into $W/round.N
round() {
  rounds=$((rounds + 1))
  echo round >&3
  local i
  for ((i = 0; i < 600; i++)); do
    awk -v r="round $rounds" '$0 == r { on = 1; next } on && $0 == "end" { ok = 1; exit } on { print }
      END { exit !ok }' "$W/out" >"$W/round.$rounds.all" && break
    sleep 0.1
  done
  [ "$i" -lt 600 ] || fail "round $rounds not served in 60 s"
  grep '^func\.' "$W/round.$rounds.all" >"$W/round.$rounds"
}
wait_for "$W/out" '^ready$'
round  # before any window: its blocks kept live are released in the next round

# window N: attach, run what "$@" asks inside it, detach with Ctrl-C
window() {
  local n=$1
  shift
  "$HATRACE" record -p "$spid" -o "$W/w$n.%p.hatf" >"$W/rec$n.out" 2>"$W/rec$n.err" &
  local rpid=$!
  wait_for "$W/rec$n.err" "attached to process $spid"
  "$@"
  kill -INT "$rpid"
  wait "$rpid" || fail "window $n: record -p exited $?: $(cat "$W/rec$n.err")"
  cat "$W/rec$n.err"
  grep -q "detached from process $spid" "$W/rec$n.err" || fail "window $n: not detached"
  trace=$(ls "$W"/w"$n".*.hatf) || fail "window $n: no trace"
}

# check_window N ROUND: the trace's calls by function (worker threads: ids >= 2)
# equal the program's count of that round; its releases of blocks allocated
# before tracing equal the program's kept_frees
check_window() {
  local n=$1 r=$2
  count_events "$trace" 2 >"$W/got.$n"
  compare "$W/round.$r" "$W/got.$n" || fail "window $n: the trace's calls differ from the program's count"
  "$HATRACE" validate "$trace" >"$W/val.$n" || fail "window $n: validate: $(cat "$W/val.$n")"
  local kept
  kept=$(awk '$1 == "kept_frees" { print $2 }' "$W/round.$r.all")
  grep -q "note: $kept releases of objects allocated before tracing" "$W/val.$n" ||
    fail "window $n: validate's note of releases before tracing: $(cat "$W/val.$n"), program kept_frees $kept"
  "$HATRACE" stats --json "$trace" >"$W/stats.$n" || fail "window $n: stats"
  grep -q '"attached": true' "$W/stats.$n" || fail "window $n: stats --json does not say attached"
  grep -q "\"unknown_frees\": $kept," "$W/stats.$n" || fail "window $n: unknown_frees is not $kept"
  "$HATRACE" replay --allocator null "$trace" >"$W/replay.$n" 2>&1 || fail "window $n: replay: $(cat "$W/replay.$n")"
  grep -q "released, allocated before tracing: $kept " "$W/replay.$n" || fail "window $n: replay's count of them"
  echo "window $n: $(awk '{ s += $2 } END { print s }' "$W/round.$r") calls as counted, $kept released from before"
}

load_lib() {
  echo "lib $lib" >&3
  wait_for "$W/out" '^lib loaded$'
  round
}
window 1 load_lib
check_window 1 "$rounds"
# the round's count holds the library's 500 mallocs and frees (check_window compared them)

round  # between windows: the program serves on, untraced
window 2 round
check_window 2 "$rounds"
ls "$W"/w1.*.hatf "$W"/w2.*.hatf >/dev/null || fail "two traces expected"

# a window of fixed length, with nothing served in it: no call of a worker
"$HATRACE" record -p "$spid" --seconds 1 -o "$W/w3.%p.hatf" 2>"$W/rec3.err" || fail "--seconds: $(cat "$W/rec3.err")"
grep -q "detached from process $spid" "$W/rec3.err" || fail "--seconds did not detach"
count_events "$W"/w3.*.hatf 2 | grep '^func\.' && fail "an idle window holds calls"
"$HATRACE" validate "$W"/w3.*.hatf >/dev/null || fail "validate of the idle window"

# --- refusals, one line each, exit 1; the process serves on after each ---------
# wait_exec PID FILE: the background process PID runs FILE (its exec done)
wait_exec() {
  local i
  for ((i = 0; i < 600; i++)); do
    [ "$(readlink "/proc/$1/exe")" = "$(readlink -f "$2")" ] && return 0
    sleep 0.1
  done
  fail "process $1 did not exec $2 in 60 s"
}
refuse() {  # refuse WHAT PATTERN ARGS...: record -p ARGS fails with PATTERN
  local what=$1 pat=$2
  shift 2
  "$HATRACE" record "$@" >/dev/null 2>"$W/refuse.err"
  local rc=$?
  [ "$rc" = 1 ] || fail "$what: exit $rc, want 1: $(cat "$W/refuse.err")"
  [ "$(wc -l <"$W/refuse.err")" = 1 ] || fail "$what: not one line: $(cat "$W/refuse.err")"
  grep -q -- "$pat" "$W/refuse.err" || fail "$what: $(cat "$W/refuse.err")"
  echo "$what: $(cat "$W/refuse.err")"
}
refuse "no such process" "no process 999999999" -p 999999999
"$BUILD/workloads/attach_static" &
st=$!
wait_exec "$st" "$BUILD/workloads/attach_static"
refuse "statically linked" "statically linked" -p "$st"
kill "$st"
cp "$(command -v sleep)" "$W/suid_sleep" && chmod u+s "$W/suid_sleep"
"$W/suid_sleep" 600 &
su=$!
wait_exec "$su" "$W/suid_sleep"
refuse "set-user-ID" "set-user-ID" -p "$su"
kill "$su"
LD_PRELOAD=$HATRACE_LIB HATRACE_OUTPUT="$W/pre.%p.hatf" sleep 600 &
pre=$!
for ((i = 0; i < 600; i++)); do grep -q libhatrace "/proc/$pre/maps" 2>/dev/null && break; sleep 0.1; done
grep -q libhatrace "/proc/$pre/maps" || fail "the preloaded sleep has no libhatrace.so mapped"
refuse "recording already" "records already" -p "$pre"
kill "$pre"
# another tracer: a python3 that seizes the process and holds it
python3 - "$spid" >"$W/tracer.out" 2>&1 <<'PY' &
import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
PTRACE_SEIZE = 0x4206
if libc.ptrace(PTRACE_SEIZE, int(sys.argv[1]), None, None) != 0:
    print("seize failed", ctypes.get_errno(), flush=True); sys.exit(1)
print("seized", flush=True)
time.sleep(600)
PY
tracer=$!
wait_for "$W/tracer.out" "seize"
grep -q seized "$W/tracer.out" || fail "the test's tracer could not seize: $(cat "$W/tracer.out")"
refuse "already traced" "already traced by process $tracer" -p "$spid"
kill "$tracer"
wait "$tracer" 2>/dev/null
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  setpriv --reuid=65534 --regid=65534 --clear-groups "$HATRACE" record -p "$spid" -o /tmp/x.hatf 2>"$W/user.err"
  rc=$?
  [ "$rc" = 1 ] && grep -q "runs as user 0, not as you" "$W/user.err" || fail "another user's process: exit $rc: $(cat "$W/user.err")"
  echo "another user's process: $(cat "$W/user.err")"
fi
round  # still serving after every refusal
[ -s "$W/round.$rounds" ] || fail "the program stopped serving"

# the process exits inside a window: its trace is closed by its exit, its status is its own
"$HATRACE" record -p "$spid" -o "$W/w4.%p.hatf" 2>"$W/rec4.err" &
rpid=$!
wait_for "$W/rec4.err" "attached to process $spid"
round
echo quit >&3
exec 3>&-
wait "$spid"
status=$?
[ "$status" = 7 ] || fail "the program exited $status, its own status is 7"
wait "$rpid" || fail "record -p of a process that exits: exit $?: $(cat "$W/rec4.err")"
grep -q "process $spid exited" "$W/rec4.err" || fail "the exit is not said: $(cat "$W/rec4.err")"
"$HATRACE" validate "$W"/w4.*.hatf >/dev/null || fail "validate of the trace closed at exit"
count_events "$W"/w4.*.hatf 2 >"$W/got.4"
compare "$W/round.$rounds" "$W/got.4" || fail "window 4: the trace's calls differ from the program's count"
echo "PASS: attach windows hold exactly the program's own counts; its exit status stays 7"
