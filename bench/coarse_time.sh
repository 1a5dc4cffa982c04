#!/usr/bin/env bash
# coarse_time.sh — does a multi-threaded program's trace validate clean when
# its times are coarse? (issue 42: the readers order the events of one time
# on several threads by address liveness, hatf/causal.c)
#
#   bench/coarse_time.sh [BUILD_DIR [RUNS [THREADS OPS [norealloc]]]]   (default: build 20 6 200000)
#
# Each run records tests/workloads/mt_churn (threads handing objects to each
# other) once at each unit, 1 us (the default), 1 ms and 10 ms, and validates
# each trace; then the 1 us trace converted to 1 ms and 10 ms. Printed per
# unit: runs clean, the problems of the others, and the median validate time.
# Not a test: how bursty the threads run, so how hard the order is to find,
# depends on the machine's load.
set -eu
cd "$(dirname "$0")/.."
B=${1:-build}
runs=${2:-20}
args="${3:-6} ${4:-200000} ${5:-}"
H=$B/hatrace
prog=$B/workloads/mt_churn
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
check() {  # label file: one line "label problems seconds"
  local t0 t1 p
  t0=$(date +%s.%N)
  p=$("$H" validate "$2" 2>&1 | tail -1 | sed -n 's/.*records, \(no\|[0-9]*\) problems.*/\1/p')
  t1=$(date +%s.%N)
  echo "$1 ${p:-error} $(echo "$t1 - $t0" | bc)"
}
for i in $(seq 1 "$runs"); do
  for res in 1000 1000000 10000000; do
    rm -f "$W/r$res.hatf"
    # shellcheck disable=SC2086
    "$H" record --time-res "$res" -o "$W/r$res.hatf" -- "$prog" $args >/dev/null 2>&1
    check "record-$res" "$W/r$res.hatf"
  done
  for res in 1000000 10000000; do
    "$H" convert --force --time-res "$res" "$W/r1000.hatf" -o "$W/c$res.hatf" >/dev/null 2>&1
    check "convert-$res" "$W/c$res.hatf"
  done
done | awk '
  { n[$1]++; if ($2 == "no") ok[$1]++; else bad[$1] = bad[$1] " " $2; t[$1, n[$1]] = $3 }
  END {
    for (k in n) {
      m = n[k]; for (i = 1; i <= m; i++) v[i] = t[k, i]
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
      printf "%-18s %2d of %2d clean; median validate %.2f s; problems of the others:%s\n", k, ok[k] + 0, m, v[int((m + 1) / 2)], bad[k]
    }
  }' | sort
