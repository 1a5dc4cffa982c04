#!/usr/bin/env bash
# coarse_time.sh — does a multi-threaded program's trace validate clean when
# its times are coarse? (issue 42: the readers order the events of one time
# on several threads by address liveness, hatf/readers/causal.c)
#
#   bench/coarse_time.sh [BUILD_DIR [RUNS [THREADS OPS [norealloc]]]]   (default: build 20 6 200000)
#
# Each run records tests/workloads/mt_churn (threads handing objects to each
# other) once at each unit, 1 us (the default), 1 ms and 10 ms, and validates
# each trace; then the 1 us trace converted to 1 ms and 10 ms. Printed per
# unit: runs clean, the problems of the others, the median validate time
# (wall clock: a busy machine's) and the median trace size in bytes per event.
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
check() {  # label file: one line "label problems seconds bytes/event"
  local t0 t1 p last n
  t0=$(date +%s.%N)
  last=$("$H" validate "$2" 2>&1 | tail -1)
  t1=$(date +%s.%N)
  p=$(echo "$last" | sed -n 's/.*records, \(no\|[0-9]*\) problems.*/\1/p')
  n=$(echo "$last" | sed -n 's/.*: \([0-9]*\) records,.*/\1/p')
  echo "$1 ${p:-error} $(echo "$t1 - $t0" | bc) $(echo "scale=3; $(stat -c %s "$2") / ${n:-1}" | bc)"
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
  { n[$1]++; if ($2 == "no") ok[$1]++; else bad[$1] = bad[$1] " " $2; t[$1, n[$1]] = $3; b[$1, n[$1]] = $4 }
  function median(a, k, m,   i, j, x, v) {
    for (i = 1; i <= m; i++) v[i] = a[k, i]
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
    return v[int((m + 1) / 2)]
  }
  END {
    for (k in n)
      printf "%-18s %2d of %2d clean; median validate %.2f s, %.3f bytes/event; problems of the others:%s\n",
             k, ok[k] + 0, n[k], median(t, k, n[k]), median(b, k, n[k]), bad[k]
  }' | sort
