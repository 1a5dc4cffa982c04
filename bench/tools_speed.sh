#!/usr/bin/env bash
# tools_speed.sh — how long the reading tools take on a trace, per record, side
# by side with another build of hatrace (an older commit, say) in one run:
# hatrace stats, stats --sites, validate and the replay compiler (replay with the
# null allocator, whose run is a few percent of it). CPU seconds (user + system)
# and wall seconds, medians of RUNS interleaved runs.
#
#   bench/tools_speed.sh TRACE [BUILD_DIR [OTHER_BUILD_DIR [RUNS]]]   (default: build, none, 3)
set -eu
cd "$(dirname "$0")/.."
TRACE=$1
B=${2:-build}
OTHER=${3:-}
RUNS=${4:-3}
[ -x "$B/hatrace" ] || { echo "build first: make B=$B"; exit 1; }
[ -z "$OTHER" ] || [ -x "$OTHER/hatrace" ] || { echo "no $OTHER/hatrace"; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
records=$("$B/hatrace" stats --json "$TRACE" | awk -F'[:,]' '/"records"/ { gsub(/ /, "", $2); print $2; exit }')
. bench/lib.sh  # median (the script runs from the project root)
builds="$B"
[ -n "$OTHER" ] && builds="$OTHER $B"
tools=("stats" "stats --sites" "validate" "replay --allocator null")
echo "trace: $TRACE, $records records; medians of $RUNS interleaved runs; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$RUNS"); do
  for i in "${!tools[@]}"; do
    for b in $builds; do
      # shellcheck disable=SC2086
      /usr/bin/time -f "%e %U %S" -o "$W/t" "$b/hatrace" ${tools[$i]} "$TRACE" >/dev/null 2>&1 || true
      read -r wall user sys <"$W/t"
      echo "$wall" >>"$W/wall.$i.${b//\//_}"
      awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }' >>"$W/cpu.$i.${b//\//_}"
    done
  done
done
printf '%-26s' "tool"
for b in $builds; do printf ' | %-30s' "$b: cpu s (ns/rec), wall s"; done
[ -n "$OTHER" ] && printf ' | cpu, %s over %s' "$OTHER" "$B"
echo
for i in "${!tools[@]}"; do
  printf '%-26s' "${tools[$i]}"
  first=""
  for b in $builds; do
    c=$(median <"$W/cpu.$i.${b//\//_}"); w=$(median <"$W/wall.$i.${b//\//_}")
    printf ' | %-30s' "$(awk -v c="$c" -v w="$w" -v n="$records" 'BEGIN { printf "%.2f (%.0f), %.2f", c, c * 1e9 / n, w }')"
    [ -z "$first" ] && first=$c || last=$c
  done
  [ -n "$OTHER" ] && printf ' | %s' "$(awk -v a="$first" -v b="$last" 'BEGIN { printf "%.2fx", a / b }')"
  echo
done
