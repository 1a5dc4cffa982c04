#!/usr/bin/env bash
# record_builds.sh — two or more builds of the recorder on a program that leaves a
# core idle, side by side in one run: alloc_chain's whole-process wall time natively
# and under `hatrace record --no-figures` of each build, interleaved in each of
# ROUNDS rounds; medians and each build's ratio to native, then every round. For an
# A/B of a change to the hooks (a few ns per event is a few percent of wall time
# here, within one round's noise on this machine: hence the rounds).
#
#   bench/record_builds.sh ROUNDS BUILD_DIR...     (native: the first build's alloc_chain)
# CHAIN_STEPS (20000000: 40 M events) sets alloc_chain's steps. make -j2 B=DIR bench first.
#
#   bench/record_builds.sh ROUNDS BUILD_DIR... -- COMMAND [ARGS...]
# the same for any program (a corpus program, say), natively and under
# LD_PRELOAD=BUILD_DIR/libhatrace.so of each build: the hooks and the background
# threads alone, without record's own process. make -j2 B=DIR first.
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: bench/record_builds.sh ROUNDS BUILD_DIR... [-- COMMAND...]"; exit 2; }
ROUNDS=$1; shift
STEPS=${CHAIN_STEPS:-20000000}
BUILDS=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do BUILDS+=("$1"); shift; done
CMD=()
if [ $# -gt 0 ]; then
  shift
  CMD=("$@")
  [ ${#CMD[@]} -gt 0 ] || { echo "record_builds.sh: no command after --" >&2; exit 2; }
fi
[ ${#BUILDS[@]} -gt 0 ] || { echo "usage: bench/record_builds.sh ROUNDS BUILD_DIR... [-- COMMAND...]"; exit 2; }
for b in "${BUILDS[@]}"; do
  if [ ${#CMD[@]} -gt 0 ]; then
    [ -f "$b/libhatrace.so" ] || { echo "build first: make -j2 B=$b"; exit 1; }
  else
    [ -x "$b/hatrace" ] && [ -x "$b/bench/alloc_chain" ] || { echo "build first: make -j2 B=$b all bench"; exit 1; }
  fi
done
. bench/lib.sh  # median
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
now() { date +%s%N; }

# wall ms of one run: native, or under build $1
run() {
  local t0 t1
  t0=$(now)
  if [ ${#CMD[@]} -gt 0 ]; then
    if [ "$1" = native ]; then "${CMD[@]}" >/dev/null 2>"$W/err" </dev/null || { cat "$W/err"; exit 1; }
    else HATRACE_OUTPUT="$W/t.hatf" LD_PRELOAD="$(cd "$1" && pwd)/libhatrace.so" "${CMD[@]}" >/dev/null 2>"$W/err" \
           </dev/null || { cat "$W/err"; exit 1; }
    fi
  elif [ "$1" = native ]; then "$NATIVE" "$STEPS" >/dev/null
  else "$1/hatrace" record --no-figures -o "$W/t.hatf" -- "$1/bench/alloc_chain" "$STEPS" >/dev/null 2>"$W/err" ||
         { cat "$W/err"; exit 1; }
  fi
  t1=$(now)
  rm -f "$W"/t*.hatf
  echo $(((t1 - t0) / 1000000))
}
NATIVE=${BUILDS[0]}/bench/alloc_chain
for r in $(seq "$ROUNDS"); do
  echo "native $(run native)" >>"$W/all"
  i=0
  for b in "${BUILDS[@]}"; do i=$((i + 1)); echo "b$i $(run "$b")" >>"$W/all"; done
done
vals() { awk -v k="$1" '$1 == k { printf "%s ", $2 }' "$W/all"; }
nat=$(vals native | median)
if [ ${#CMD[@]} -gt 0 ]; then WHAT="${CMD[*]} (LD_PRELOAD)"; else WHAT="alloc_chain, $STEPS steps"; fi
echo "$WHAT, $ROUNDS rounds (medians; wall ms), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  native            $nat ms | $(vals native)"
i=0
for b in "${BUILDS[@]}"; do
  i=$((i + 1))
  m=$(vals b$i | median)
  printf '  %-17s %s ms (%sx native) | %s\n' "$b" "$m" "$(awk -v a="$m" -v n="$nat" 'BEGIN { printf "%.2f", a / n }')" "$(vals b$i)"
done
