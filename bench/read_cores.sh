#!/usr/bin/env bash
# read_cores.sh — records/s of reading a trace on one thread and on every core
# (-j 1 against the default, one thread per core), side by side, on the two
# traces of issue 25: python3 (every object through malloc) and the
# single-threaded allocation-bound benchmark bench/alloc_chain (over 100 M
# events). Rows: a plain read (bench/read_jobs: every event through
# hatf_source_next, nothing else: the reader's own speed), hatrace stats and
# hatrace validate. Wall seconds and million records per second, medians of
# RUNS interleaved runs; CPU seconds (user + system, all threads) beside them,
# and for the plain read the calling thread's own CPU (the merge's critical path).
# Every run must read the same records (read_jobs also prints a digest of the
# events in order: it must not change with the threads), or the script fails.
#
#   bench/read_cores.sh [BUILD_DIR [RUNS]]          (default: build, 5)
#   TRACES="a.hatf b.hatf" bench/read_cores.sh ...  other traces instead of recording the two
#   CHAIN_STEPS=N                                   alloc_chain's steps (default 52 M: 104 M events)
#
# The traces are recorded with --effort full (every group coded as a core-idle
# recording codes it), so the figures do not depend on how busy the machine was
# while recording.
set -eu
cd "$(dirname "$0")/.."
B=${1:-build}
RUNS=${2:-5}
[ -x "$B/hatrace" ] && [ -x "$B/bench/read_jobs" ] && [ -x "$B/bench/alloc_chain" ] ||
  { echo "build first: make B=$B bench"; exit 1; }
. bench/lib.sh  # median
W=$(mktemp -d "${TMPDIR:-/tmp}/read_cores.XXXXXX")
trap 'rm -rf "$W"' EXIT
cores=$(nproc)

traces=${TRACES:-}
if [ -z "$traces" ]; then
  PY=$(python3 -c 'import sys; print(sys.executable)')  # the binary, not a wrapper script
  cat >"$W/alloc.py" <<'PY'
# many small objects made and dropped: dict entries, lists, strings, tuples
d = {}
for i in range(2500000):
    d["k%d" % (i % 100000)] = [i, str(i), (i, i + 1)]
s = sorted(d.items(), key=lambda kv: kv[1][0] % 1000)
print(len(d), len(s))
PY
  PYTHONMALLOC=malloc "$B/hatrace" record --no-figures --effort full -o "$W/python3.hatf" -- "$PY" "$W/alloc.py" \
    >/dev/null 2>"$W/rec.err" || { cat "$W/rec.err"; exit 1; }
  "$B/hatrace" record --no-figures --effort full -o "$W/alloc_chain.hatf" -- "$B/bench/alloc_chain" \
    "${CHAIN_STEPS:-52000000}" >/dev/null 2>"$W/rec.err" || { cat "$W/rec.err"; exit 1; }
  traces="$W/python3.hatf $W/alloc_chain.hatf"
fi

echo "$cores cores, load $(cut -d' ' -f1-3 /proc/loadavg); medians of $RUNS interleaved runs"
for t in $traces; do
  records=$("$B/hatrace" stats -j 1 --json "$t" | awk -F'[:,]' '/"records"/ { gsub(/ /, "", $2); print $2; exit }')
  groups=$("$B/hatrace" stats -j 1 "$t" | awk '$1 == "chunk_groups" { print $2 }')
  echo
  echo "trace: $(basename "$t"), $records records, $groups chunk groups, $(du -h "$t" | cut -f1)"
  rm -f "$W"/t.* "$W"/c.* "$W"/digest.*
  for r in $(seq "$RUNS"); do
    for tool in read stats validate; do
      for j in 1 "$cores"; do
        case $tool in
          read) cmd=("$B/bench/read_jobs" -j "$j" "$t");;
          *) cmd=("$B/hatrace" "$tool" -j "$j" "$t");;
        esac
        /usr/bin/time -f "%e %U %S" -o "$W/time" "${cmd[@]}" >"$W/out" 2>/dev/null || true
        read -r wall user sys <"$W/time"
        echo "$wall" >>"$W/t.$tool.$j"
        awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }' >>"$W/c.$tool.$j"
        if [ "$tool" = read ]; then
          awk '{ print $4, $12 }' "$W/out" >>"$W/digest.$tool"
          awk '{ print $10 }' "$W/out" >>"$W/m.$tool.$j"
        fi
      done
    done
  done
  if [ "$(sort -u "$W/digest.read" | wc -l)" -ne 1 ] || [ "$(sort -u "$W/digest.read" | cut -d' ' -f1)" != "$records" ]; then
    echo "FAIL: the reads did not all give the same $records records in the same order:"
    sort | uniq -c <"$W/digest.read"
    exit 1
  fi
  printf '%-10s | %-32s | %-32s | %s\n' "" "1 thread: wall s, M rec/s, cpu s" "$cores threads: wall s, M rec/s, cpu s" "speed-up"
  for tool in read stats validate; do
    w1=$(median <"$W/t.$tool.1"); wn=$(median <"$W/t.$tool.$cores")
    c1=$(median <"$W/c.$tool.1"); cn=$(median <"$W/c.$tool.$cores")
    awk -v tool="$tool" -v n="$records" -v w1="$w1" -v wn="$wn" -v c1="$c1" -v cn="$cn" 'BEGIN {
      printf "%-10s | %-32s | %-32s | %.2fx\n", tool,
        sprintf("%.2f, %.1f, %.2f", w1, n / w1 / 1e6, c1), sprintf("%.2f, %.1f, %.2f", wn, n / wn / 1e6, cn), w1 / wn }'
  done
  # the merging thread's own CPU: what reading costs on the critical path
  # once the decoding has a core of its own (the wall time says it only on a
  # machine with a core free)
  m1=$(median <"$W/m.read.1"); mn=$(median <"$W/m.read.$cores")
  awk -v n="$records" -v m1="$m1" -v mn="$mn" -v c1="$(median <"$W/c.read.1")" -v cn="$(median <"$W/c.read.$cores")" -v k="$cores" 'BEGIN {
    printf "read, the calling thread'"'"'s CPU: %.2f s (%.1f M rec/s) on 1 thread, %.2f s (%.1f M rec/s) on %d; the decoding threads %.2f s\n",
      m1, n / m1 / 1e6, mn, n / mn / 1e6, k, cn - mn }'
done
