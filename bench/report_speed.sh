#!/usr/bin/env bash
# report_speed.sh — what hatrace report costs beside the text command it
# builds on: wall and CPU seconds of `hatrace report` and of `hatrace stats
# --sites` on the same trace (medians of RUNS interleaved runs), and the size
# of the page; the ratios of wall and of CPU time (on a loaded machine the
# wall time follows the load more than the work). Without TRACE, the bundled
# example recorded with call stacks.
#
#   bench/report_speed.sh [TRACE [BUILD_DIR [RUNS]]]   (default: kvstore 200000 --stacks, build, 3)
set -eu
cd "$(dirname "$0")/.."
B=${2:-build}
RUNS=${3:-3}
[ -x "$B/hatrace" ] || { echo "build first: make B=$B"; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
TRACE=${1:-}
if [ -z "$TRACE" ]; then
  TRACE=$W/kvstore.hatf
  "$B/hatrace" record --stacks -o "$TRACE" -- "$B/examples/kvstore" 200000 >/dev/null 2>&1
fi
. bench/lib.sh  # median
records=$("$B/hatrace" stats --json "$TRACE" | awk -F'[:,]' '/"records"/ { gsub(/ /, "", $2); print $2; exit }')
sites=$("$B/hatrace" stats --sites --json --top 1 "$TRACE" | python3 -c 'import json, sys; print(json.load(sys.stdin)["sites"])')
names=("report" "stats --sites")
cmds=("report -o $W/r.html" "stats --sites")
for r in $(seq "$RUNS"); do
  for i in "${!cmds[@]}"; do
    # shellcheck disable=SC2086
    /usr/bin/time -f "%e %U %S %M" -o "$W/t" "$B/hatrace" ${cmds[$i]} "$TRACE" >/dev/null 2>&1 || true
    read -r wall user sys rss <"$W/t"
    echo "$wall" >>"$W/wall.$i"
    awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }' >>"$W/cpu.$i"
    echo "$rss" >>"$W/rss.$i"
  done
done
echo "trace: $TRACE, $records records, $sites sites; medians of $RUNS interleaved runs; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in "${!cmds[@]}"; do
  printf '%-14s wall %6.2f s, cpu %6.2f s, peak %6.0f MB\n' "${names[$i]}" "$(median <"$W/wall.$i")" "$(median <"$W/cpu.$i")" \
    "$(awk '{ print $1 / 1024 }' <<<"$(median <"$W/rss.$i")")"
done
size=$(stat -c %s "$W/r.html")
data=$(python3 -c 'import re, sys
s = open(sys.argv[1], encoding="utf-8").read()
print(len(re.search(r"id=\"hatrace-data\">(.*?)</script>", s, re.S).group(1).encode()))' "$W/r.html")
awk -v a="$(median <"$W/wall.0")" -v b="$(median <"$W/wall.1")" -v ca="$(median <"$W/cpu.0")" -v cb="$(median <"$W/cpu.1")" \
  -v s="$size" -v d="$data" \
  'BEGIN { printf "report / stats --sites: %.2fx wall, %.2fx cpu; page %.2f MB (the data %.2f MB, the rest scripts and styles)\n",
           a / b, ca / cb, s / 1e6, d / 1e6 }'
