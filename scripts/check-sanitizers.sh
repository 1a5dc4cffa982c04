#!/usr/bin/env bash
# check-sanitizers.sh — the test suite under AddressSanitizer + UBSan, and the
# ring tests under ThreadSanitizer (make check-sanitizers).
#   ASAN_B  build folder of the ASan+UBSan build (default build-asan)
#   REL_B   build folder of an ordinary build (default build)
#   TSAN_B  build folder of the TSan build (default build-tsan)
#
# What runs where, and why:
#   * unit and golden tests, and the hatrace command of every integration
#     test (record, dump, stats, validate, convert, replay), run sanitized;
#   * the programs recorded by integration tests load libhatrace.so from the
#     ordinary build: an ASan-built preload cannot be loaded into programs that
#     are not built with ASan (the ASan runtime must come first and own malloc;
#     the program dies at start). The recorder's core is covered sanitized by
#     the unit tests, which link libhatpreload.a from the ASan build;
#   * TSan: the ring tests (test_ring's two-thread stress shrinks under TSan).
set -u
cd "$(dirname "$0")/.."
ASAN_B=${ASAN_B:-build-asan} REL_B=${REL_B:-build} TSAN_B=${TSAN_B:-build-tsan}
MAKE=${MAKE:-make}
jobs=${JOBS:-2}
fail=0

$MAKE -j"$jobs" B="$REL_B" all tests >/dev/null || exit 1
$MAKE -j"$jobs" B="$ASAN_B" SANITIZE=address,undefined all tests >/dev/null || exit 1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Kept apart under the sanitizers:
#   unit/test_stacks: gcc's UBSan reports the recorder's initial-exec TLS block
#     (ht_t) as a null pointer inside ht_stack_here, a false report: the same
#     accesses pass everywhere else; the test runs in the ordinary build.
#   integration/heaps_mimalloc: replay re-executes hatrace with an allocator in
#     LD_PRELOAD, which ASan refuses (its runtime must own malloc).
export SKIP_TESTS="unit/test_stacks integration/heaps_mimalloc"

echo "== ASan+UBSan: unit and golden tests ($ASAN_B)"
B=$ASAN_B scripts/run-tests.sh unit golden || fail=1

echo "== ASan+UBSan: integration tests (hatrace from $ASAN_B, libhatrace.so from $REL_B)"
log_dir=$ASAN_B/test-logs; mkdir -p "$log_dir"
export HATRACE="$PWD/$ASAN_B/hatrace" HATRACE_LIB="$PWD/$REL_B/libhatrace.so" BUILD="$PWD/$REL_B"
pass=0 bad=0 skip=0
for t in tests/integration/*.sh; do
  n=$(basename "$t" .sh); l=$log_dir/integration_$n.log
  case " $SKIP_TESTS " in *" integration/$n "*) skip=$((skip + 1)); echo "SKIP  integration/$n (kept apart)"; continue;; esac
  timeout 900 bash "$t" >"$l" 2>&1; s=$?
  # a sanitizer report in the log fails the test even if the script passed
  if [ $s -eq 0 ] && grep -qE '^(==[0-9]+==ERROR|.*runtime error:)' "$l"; then s=1; fi
  case $s in
    0) pass=$((pass + 1)); echo "PASS  integration/$n";;
    77) skip=$((skip + 1)); echo "SKIP  integration/$n";;
    *) bad=$((bad + 1)); fail=1; echo "FAIL  integration/$n (log: $l)"; tail -20 "$l";;
  esac
done
echo "integration: $pass passed, $bad failed, $skip skipped"

echo "== TSan: ring tests ($TSAN_B)"
$MAKE -j"$jobs" B="$TSAN_B" SANITIZE=thread "$TSAN_B/tests/test_ring" >/dev/null || exit 1
TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1} "$TSAN_B/tests/test_ring" >"$TSAN_B/test_ring.log" 2>&1
if [ $? -eq 0 ]; then echo "PASS  tsan/test_ring"; else fail=1; echo "FAIL  tsan/test_ring"; tail -30 "$TSAN_B/test_ring.log"; fi

[ $fail -eq 0 ] && echo "check-sanitizers: all passed" || echo "check-sanitizers: FAILED"
exit $fail
