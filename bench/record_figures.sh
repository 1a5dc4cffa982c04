#!/usr/bin/env bash
# What hatrace record's closing figures cost in wall time: one program run
# under LD_PRELOAD alone, under record (its follower counting while the program
# runs, the default), under record with the follower off (every trace read back
# after the program), and under record --no-figures; interleaved, ROUNDS
# rounds, medians and their ratios to LD_PRELOAD, and how long after the program's end
# record's figures were ready (as record says it). Several builds (comma-separated)
# are measured in the same rounds, side by side.
#
#   bench/record_figures.sh BUILD_DIR[,BUILD_DIR...] [ROUNDS] -- PROGRAM [ARGS...]
#   e.g. PYTHONMALLOC=malloc bench/record_figures.sh build 5 -- /usr/bin/python3 bench/corpus/py_json.py 12
#
# The busy regime: run it beside a CPU-bound process (e.g. `awk 'BEGIN{for(;;);}' &`).
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: bench/record_figures.sh BUILD_DIR[,BUILD_DIR...] [ROUNDS] -- PROGRAM [ARGS...]" >&2; exit 2; }
BUILDS=()
IFS=, read -r -a dirs <<<"$1"
for d in "${dirs[@]}"; do BUILDS+=("$(cd "$d" && pwd)"); done
shift
ROUNDS=5
[ "$1" != -- ] && { ROUNDS=$1; shift; }
[ "$1" = -- ] || { echo "record_figures.sh: -- before the program" >&2; exit 2; }
shift
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
secs() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(( (e - s) / 1000 )); }
secs_err() { local f=$1 s e; shift; s=$(date +%s%N); "$@" >/dev/null 2>"$f" || true; e=$(date +%s%N); echo $(( (e - s) / 1000 )); }
for _ in $(seq "$ROUNDS"); do
  for i in "${!BUILDS[@]}"; do
    B=${BUILDS[$i]}
    a=$(secs env LD_PRELOAD="$B/libhatrace.so" HATRACE_OUTPUT="$W/t.%p.hatf" "$@"); rm -f "$W"/t.*
    b=$(secs_err "$W/b.err" "$B/hatrace" record -o "$W/t.%p.hatf" -- "$@"); rm -f "$W"/t.*
    # how long after the program's end record's figures were ready (or read back)
    e=$(grep -oE "(ready|read back after it ended in) [0-9.]+ s" "$W/b.err" | grep -oE "[0-9.]+" | tail -1)
    c=$(secs env HATRACE_RECORD_FOLLOWER=off "$B/hatrace" record -o "$W/t.%p.hatf" -- "$@"); rm -f "$W"/t.*
    d=$(secs "$B/hatrace" record --no-figures -o "$W/t.%p.hatf" -- "$@"); rm -f "$W"/t.*
    echo "$i $a $b $c $d ${e:-0}"
  done
done >"$W/rounds"
/usr/bin/python3 - "$W/rounds" "${BUILDS[@]}" <<'P'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
for i, b in enumerate(sys.argv[2:]):
    mine = [r for r in rows if int(r[0]) == i]
    m = [statistics.median(int(r[k]) for r in mine) / 1e6 for k in range(1, 5)]
    ready = statistics.median(float(r[5]) for r in mine)
    print("%s:" % b)
    print("  medians (s): LD_PRELOAD %.3f  record %.3f  record, follower off %.3f  record --no-figures %.3f" % tuple(m))
    print("  over LD_PRELOAD: record %.3fx  follower off %.3fx  --no-figures %.3fx" % (m[1] / m[0], m[2] / m[0], m[3] / m[0]))
    print("  record's figures ready after the program's end: %.2f s" % ready)
P
