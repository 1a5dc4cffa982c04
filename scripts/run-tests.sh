#!/usr/bin/env bash
# Run the test groups named on the command line: unit golden layers integration fuzz.
#   unit         every $B/tests/test_* (CUnit programs)
#   golden       every tests/golden/NAME/cmd: its stdout must equal NAME/expected
#   layers       scripts/check-layers.py: no include or call upward, no circle
#   integration  every tests/integration/*.sh (exit 0 = pass, 77 = skipped)
#   fuzz         every $B/fuzz/fuzz_* for TEST_FUZZ_SECONDS on tests/fuzz/corpus/NAME
# Ends with one line: "tests: N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
B=${B:-build}
export BUILD="$PWD/$B" HATRACE="$PWD/$B/hatrace" HATRACE_LIB="$PWD/$B/libhatrace.so"
pass=0 fail=0 skip=0 failed=()
log_dir=$B/test-logs; mkdir -p "$log_dir"

# SKIP_TESTS: names (e.g. "unit/test_stacks integration/heaps_mimalloc") kept apart
# by the caller, with its reason.
# SANITIZE: the sanitizers $B was built with (make SANITIZE=...). The command,
# unit tests and fuzzers are sanitized, libhatrace.so is not (see the Makefile).
# A sanitizer report in a test's log then fails the test even if it passed, and
# these are kept apart:
#   integration/heaps_mimalloc (address): replay re-executes the ASan-built
#     hatrace with mimalloc in LD_PRELOAD, which ASan refuses (its runtime must
#     own malloc; two mallocs in one process would fight);
#   integration/replay_touch (address): it compares the replayed resident size
#     under glibc with the program's own; an ASan-built hatrace replays with
#     ASan's allocator instead (shadow memory, redzones, quarantine: 97 MB
#     against 62 natively), so the figure is not glibc's;
#   integration/replay_tune (address): the same, for the settings: GLIBC_TUNABLES
#     reaches no glibc malloc under ASan's allocator, and jemalloc cannot be
#     preloaded into it;
#   unit/test_stacks (undefined): gcc's UBSan reports the recorder's
#     initial-exec TLS block (ht_t) as a null pointer inside ht_stack_here, a
#     false report; the test runs in the ordinary build.
SANITIZE=${SANITIZE:-}
if [ -n "$SANITIZE" ]; then
  case ",$SANITIZE," in *,address,*) SKIP_TESTS="${SKIP_TESTS:-} integration/heaps_mimalloc integration/replay_touch integration/replay_tune";; esac
  case ",$SANITIZE," in *,undefined,*) SKIP_TESTS="${SKIP_TESTS:-} unit/test_stacks";; esac
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1}
  export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}
fi
# a sanitizer report in log $1 turns status $2 (pass) into a failure
san_status() {
  if [ -n "$SANITIZE" ] && [ "$2" -eq 0 ] && grep -aqE '^(==[0-9]+==ERROR|WARNING: ThreadSanitizer|.*runtime error:)' "$1"; then
    echo 1
  else
    echo "$2"
  fi
}
kept_apart() { case " ${SKIP_TESTS:-} " in *" $1 "*) echo "SKIP  $1 (kept apart)"; skip=$((skip+1)); return 0;; esac; return 1; }

result() { # name status(0 pass,77 skip,else fail)
  case $2 in
    0) pass=$((pass+1)); echo "PASS  $1";;
    77) skip=$((skip+1)); echo "SKIP  $1";;
    *) fail=$((fail+1)); failed+=("$1"); echo "FAIL  $1 (log: $log_dir/${1//\//_}.log)";;
  esac
}

run_unit() {
  for t in $B/tests/test_*; do
    [ -x "$t" ] || continue
    n=unit/$(basename "$t"); l="$log_dir/${n//\//_}.log"
    kept_apart "$n" && continue
    timeout 600 "$t" >"$l" 2>&1; s=$(san_status "$l" $?)
    result "$n" $s
    [ $s -ne 0 ] && tail -20 "$l"
  done
}

run_golden() {
  for d in tests/golden/*/; do
    [ -f "$d/cmd" ] || continue
    n=golden/$(basename "$d"); l="$log_dir/${n//\//_}.log"
    (cd "$d" && timeout 120 bash ./cmd) >"$l" 2>&1
    if diff -u "$d/expected" "$l" >"$l.diff"; then result "$n" 0; else result "$n" 1; head -30 "$l.diff"; fi
  done
}

run_integration() {
  for t in tests/integration/*.sh; do
    [ -f "$t" ] || continue
    n=integration/$(basename "$t" .sh); l="$log_dir/${n//\//_}.log"
    kept_apart "$n" && continue
    timeout 900 bash "$t" >"$l" 2>&1; s=$(san_status "$l" $?)
    result "$n" $s
    [ $s -ne 0 ] && [ $s -ne 77 ] && tail -20 "$l"
  done
}

# the layers hold: no include or call upward, no circle (scripts/check-layers.py)
run_layers() {
  n=layers/check-layers; l="$log_dir/${n//\//_}.log"
  python3 scripts/check-layers.py -b "$B" >"$l" 2>&1; s=$?
  result "$n" $s
  [ $s -ne 0 ] && tail -20 "$l"
}

run_fuzz() {
  secs=${TEST_FUZZ_SECONDS:-10}
  for f in $B/fuzz/fuzz_*; do
    [ -x "$f" ] || continue
    name=$(basename "$f"); n=fuzz/$name; l="$log_dir/${n//\//_}.log"
    corpus=tests/fuzz/corpus/${name#fuzz_}
    work=$(mktemp -d); mkdir -p "$corpus"
    # The format's tags (tests/fuzz/NAME.dict; a target without its own, as
    # fuzz_source, which opens every format, gets them all), inputs up to
    # 64 KiB, and a budget per input that fails the run: 5 s, one allocation
    # of 256 MiB (a chunk's buffers are at most 64 MiB), 2 GiB in all (ASan's
    # shadow included).
    dict=tests/fuzz/${name#fuzz_}.dict
    [ -f "$dict" ] || { dict=$work/all.dict; cat tests/fuzz/*.dict >"$dict"; }
    # New inputs go to a scratch folder; the checked-in seeds are only read.
    timeout $((secs + 60)) "$f" -max_total_time="$secs" -timeout=5 -rss_limit_mb=2048 -malloc_limit_mb=256 \
        -max_len=65536 -dict="$dict" -artifact_prefix="$work/" "$work" "$corpus" >"$l" 2>&1; s=$?
    grep -E '^(#[0-9]+ +DONE|Done [0-9]+ runs)' "$l" | tail -1
    result "$n" $s
    [ $s -ne 0 ] && tail -20 "$l"
    rm -rf "$work"
  done
}

for g in "$@"; do "run_$g"; done
echo
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
