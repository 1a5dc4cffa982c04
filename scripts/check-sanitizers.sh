#!/usr/bin/env bash
# check-sanitizers.sh — the whole test suite under AddressSanitizer + UBSan,
# and the ring and flusher tests under ThreadSanitizer (make check-sanitizers).
#   ASAN_B  build folder of the ASan+UBSan build (default build-asan)
#   TSAN_B  build folder of the TSan build (default build-tsan)
#
# ASan+UBSan is `make SANITIZE=address,undefined test`: the hatrace command,
# unit tests (the recorder core linked from libhatpreload.a included), golden
# tests and fuzzers are sanitized; libhatrace.so is built without the
# sanitizer, because the programs the integration tests record are ordinary
# ones and an ASan runtime in the preload kills them at start. What is kept
# apart under the sanitizers, and why, is in scripts/run-tests.sh.
# TSan: test_ring (the ring's two-thread stress) and test_flusher (threads
# recording while the flusher thread drains), both made smaller under TSan;
# test_jobs (the writer's helper) and test_source_jobs (chunk groups decoded
# ahead on other threads while the reader merges them).
set -u
cd "$(dirname "$0")/.."
ASAN_B=${ASAN_B:-build-asan} TSAN_B=${TSAN_B:-build-tsan}
MAKE=${MAKE:-make}
jobs=${JOBS:-2}
fail=0

echo "== ASan+UBSan: make SANITIZE=address,undefined test ($ASAN_B)"
$MAKE -j"$jobs" B="$ASAN_B" SANITIZE=address,undefined test || fail=1

echo "== TSan: ring, flusher and jobs tests ($TSAN_B)"
tsan_tests="test_ring test_flusher test_jobs test_source_jobs"
$MAKE -j"$jobs" B="$TSAN_B" SANITIZE=thread $(printf "$TSAN_B/tests/%s " $tsan_tests) >/dev/null || exit 1
for t in $tsan_tests; do
  l=$TSAN_B/$t.log
  TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1} "$TSAN_B/tests/$t" >"$l" 2>&1; s=$?
  if [ $s -eq 0 ] && grep -aq 'WARNING: ThreadSanitizer' "$l"; then s=1; fi
  if [ $s -eq 0 ]; then echo "PASS  tsan/$t"; else fail=1; echo "FAIL  tsan/$t (log: $l)"; tail -30 "$l"; fi
done

[ $fail -eq 0 ] && echo "check-sanitizers: all passed" || echo "check-sanitizers: FAILED"
exit $fail
