#!/usr/bin/env bash
# What the recorder adds to a program's peak resident size, by number of busy
# threads: bench/mem_threads (T threads making malloc/free pairs) natively and
# under libhatrace.so, side by side, medians of RUNS (interleaved); and the
# trace's bytes per event. Compare two builds by running it on each.
#   bench/record_memory.sh [BUILD_DIR [RUNS [PAIRS]]]
set -euo pipefail
B=${1:-build}; RUNS=${2:-3}; PAIRS=${3:-200000}
prog=$B/bench/mem_threads lib=$B/libhatrace.so
[ -x "$prog" ] && [ -f "$lib" ] || { echo "build first: make B=$B bench" >&2; exit 2; }
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
. "$(dirname "$0")/lib.sh"  # median
printf '%8s %12s %12s %12s %16s %12s\n' threads native_kB hatrace_kB added_kB added_per_thread bytes/event
for t in 1 8 16 64; do
  nat=() rec=() bpe=()
  for r in $(seq "$RUNS"); do
    nat+=("$("$prog" "$t" "$PAIRS")")
    rec+=("$(LD_PRELOAD=$lib HATRACE_OUTPUT="$W/t.%p.hatf" "$prog" "$t" "$PAIRS" 2>/dev/null)")
    bpe+=("$(stat -c %s "$W"/t.*.hatf | awk -v e=$((2 * t * PAIRS)) '{ printf "%.3f\n", $1 / e }')")
    rm -f "$W"/t.*.hatf
  done
  n=$(echo "${nat[@]}" | median); h=$(echo "${rec[@]}" | median)
  printf '%8s %12.0f %12.0f %12.0f %16.0f %12s\n' "$t" "$n" "$h" "$(awk -v a="$h" -v b="$n" 'BEGIN { print a - b }')" \
    "$(awk -v a="$h" -v b="$n" -v t="$t" 'BEGIN { print (a - b) / t }')" "$(echo "${bpe[@]}" | median)"
done
