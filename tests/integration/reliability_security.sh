#!/usr/bin/env bash
# Security of the recorder's output and options:
#   * a trace is created with mode 0600;
#   * a symbolic link planted at the output path (to an existing file, or
#     dangling) is never followed: the target is untouched or not created;
#   * absurd environment values (huge ring sizes, negative levels, garbage,
#     very long paths) give one clear message naming the variable, and the
#     program runs on with the default (checked in the trace where it shows);
#   * hatrace record says so when no process loaded the library (a static program).
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/rel_fsize   # N malloc/free pairs on two threads, prints "done N"
[ -x "$prog" ] || { echo "workload not built"; exit 77; }

run() { # name, then VAR=value ... ; runs prog 1000 in $W/name with the preload
  local name=$1; shift
  mkdir -p "$W/$name"
  (cd "$W/$name" && env "$@" LD_PRELOAD="$HATRACE_LIB" "$prog" 1000) >"$W/$name.out" 2>"$W/$name.err"
  local s=$?
  echo "$name: exit $s"; cat "$W/$name.err"
  [ $s -eq 0 ] && [ "$(cat "$W/$name.out")" = "done 1000" ] || fail "$name: the program did not run to its end"
}

# mode 0600, whatever the umask
(umask 000; run mode HATRACE_OUTPUT="$W/mode.hatf")
[ "$(stat -c %a "$W/mode.hatf")" = 600 ] || fail "mode: trace mode is $(stat -c %a "$W/mode.hatf")"

# a link to an existing file: not followed, not truncated
echo "precious" >"$W/victim"
ln -s "$W/victim" "$W/link.hatf"
run link HATRACE_OUTPUT="$W/link.hatf"
[ "$(cat "$W/victim")" = precious ] || fail "link: the link's target was written"
[ -L "$W/link.hatf" ] || fail "link: the link was replaced"
# the trace goes to a fresh name next to it, never through the link: the
# program and pid before the extension, which stays
fresh=$(ls "$W"/link.*.*.hatf 2>/dev/null | head -1)
[ -n "$fresh" ] && [ -f "$fresh" ] && [ ! -L "$fresh" ] || fail "link: no trace under a fresh name"
case "$(basename "$fresh")" in link."$(basename "$prog" | cut -c1-40)".[0-9]*.hatf) ;; *) fail "link: fresh name $fresh";; esac
validate_all "$fresh"
# a dangling link: its target must not be created
ln -s "$W/created-through-link" "$W/dangling.hatf"
run dangling HATRACE_OUTPUT="$W/dangling.hatf"
[ -e "$W/created-through-link" ] && fail "dangling: the file was created through the link"

# absurd values: one message naming the variable, then the default
expect_msg() { # name pattern
  grep -q "$2" "$W/$1.err" || fail "$1: no message matching '$2'"
  [ "$(grep -c '^hatrace\[' "$W/$1.err")" = 1 ] || fail "$1: not exactly one message"
}
run ring HATRACE_RING_SIZE=99999999999999999999999 HATRACE_OUTPUT="$W/ring.hatf"
expect_msg ring 'HATRACE_RING_SIZE=99999999999999999999999 is invalid (expected 64..16777216), using 131072'
validate_all "$W/ring.hatf"
run ringbig HATRACE_RING_SIZE=1g HATRACE_OUTPUT="$W/ringbig.hatf"
expect_msg ringbig 'HATRACE_RING_SIZE=1g is invalid'
run ringneg HATRACE_RING_SIZE=-64 HATRACE_OUTPUT="$W/ringneg.hatf"
expect_msg ringneg 'HATRACE_RING_SIZE=-64 is invalid'
run level HATRACE_ZSTD_LEVEL=-2147483649 HATRACE_OUTPUT="$W/level.hatf"
expect_msg level 'HATRACE_ZSTD_LEVEL=-2147483649 is invalid (expected -7..19), using 3'
validate_all "$W/level.hatf"
run flush HATRACE_FLUSH_MS=0 HATRACE_OUTPUT="$W/flush.hatf"
expect_msg flush 'HATRACE_FLUSH_MS=0 is invalid'
run garbage HATRACE_DROP=maybe HATRACE_OUTPUT="$W/garbage.hatf"
expect_msg garbage 'HATRACE_DROP=maybe is invalid'
"$HATRACE" stats "$W/garbage.hatf" | grep -q '^dropped  *0$' || fail "garbage: not the default mode"
run clock HATRACE_CLOCK=sundial HATRACE_OUTPUT="$W/clock.hatf"
expect_msg clock 'HATRACE_CLOCK=sundial is invalid'
# a path longer than PATH_MAX: ignored, the default name in the current folder
long=$W/$(printf 'd%.0s' $(seq 5000))
run longpath HATRACE_OUTPUT="$long"
expect_msg longpath 'HATRACE_OUTPUT is longer than 4095 bytes, ignored'
ls "$W/longpath"/hatrace.rel_fsize.*.hatf >/dev/null 2>&1 || fail "longpath: no trace under the default name"
validate_all "$W"/longpath/hatrace.rel_fsize.*.hatf
# a name longer than a file name may be: refused by the file system, untraced
run longname HATRACE_OUTPUT="$W/$(printf 'n%.0s' $(seq 300))"
expect_msg longname 'cannot create trace file .*: File name too long; the program runs untraced'
# a statically linked program ignores LD_PRELOAD: hatrace record says that no
# process loaded the library (and says nothing of the kind when one did)
"$HATRACE" record -o "$W/dyn.hatf" -- "$prog" 10 >/dev/null 2>"$W/dyn.err" || fail "dyn: record failed"
grep -q 'no process loaded' "$W/dyn.err" && fail "dyn: $(cat "$W/dyn.err")"
if [ -x /sbin/ldconfig ] && ldd /sbin/ldconfig 2>&1 | grep -Eq 'statically linked|not a dynamic'; then
  "$HATRACE" record -o "$W/static.hatf" -- /sbin/ldconfig -p >/dev/null 2>"$W/static.err" || fail "static: record failed"
  cat "$W/static.err"
  grep -q 'no process loaded libhatrace.so: a statically linked' "$W/static.err" || fail "static: no word of it"
fi
# the report file hatrace record hands to traced processes (HATRACE_REPORT):
# never written through a link, never created by the library (a child that
# outlives record would otherwise make it again, where another user may have
# put a link to a file of root's)
printf 'victim\n' >"$W/victim"
ln -s "$W/victim" "$W/report.link"
HATRACE_REPORT=$W/report.link HATRACE_OUTPUT=$W/rep.hatf LD_PRELOAD=$HATRACE_LIB "$prog" 10 >/dev/null 2>&1 ||
  fail "report link: the program failed"
[ "$(cat "$W/victim")" = victim ] || fail "report link: written through the link: $(cat "$W/victim")"
HATRACE_REPORT=$W/report.gone HATRACE_OUTPUT=$W/rep2.hatf LD_PRELOAD=$HATRACE_LIB "$prog" 10 >/dev/null 2>&1 ||
  fail "report gone: the program failed"
[ -e "$W/report.gone" ] && fail "report gone: the library created the report file"
echo "reliability_security: ok"
