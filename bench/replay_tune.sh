#!/usr/bin/env bash
# replay_tune.sh — does the gain hatrace replay --tune finds hold when the
# program itself runs with that setting? Two cases of tests/workloads/tune_handoff
# (threads that take turns with the heap, each on an arena of its own):
#   glibc-arenas     tune_handoff 8 8 512 16    under glibc: its arena count decides
#                    how much of the freed memory the next thread can reuse
#   jemalloc-decay   tune_handoff 4 32 65536 0  under jemalloc: its dirty-page decay
#                    decides whether a thread's freed extents stay resident
# Each is recorded once and tuned (hatrace replay --tune --allocator A --json,
# REPEAT runs per setting); the best setting for peak resident memory is taken
# with its production line, and the program is run natively ROUNDS times with
# the allocator's defaults and with that line (its own VmHWM; medians).
#
#   bench/replay_tune.sh [BUILD [REPEAT [ROUNDS]]]    (default: build 3 3)
#
# Prints a table, then per case one line for scripts
#   result CASE SETTING REPLAY_DEFAULT_KB REPLAY_BEST_KB NATIVE_DEFAULT_KB NATIVE_BEST_KB
# (tests/integration/replay_tune.sh checks them).
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
B=${1:-build}
REPEAT=${2:-3}
ROUNDS=${3:-3}
prog=$B/workloads/tune_handoff
[ -x "$B/hatrace" ] && [ -x "$prog" ] || { echo "build first: make -j2 B=$B all tests"; exit 1; }
command -v python3 >/dev/null || { echo "python3 is needed to read the JSON"; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# the program's own peak resident KiB, median of ROUNDS runs with the variables $@
native() {
  for _ in $(seq "$ROUNDS"); do
    env "$@" "$prog" $args | sed -n 's/^peak_resident_kb //p'
  done | median
}

# KiB before and after, as MiB and their ratio
mib() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f -> %.1f MiB (%.2fx)", a / 1024, b / 1024, b / a }'; }

printf '%-15s %-22s %-34s %-34s\n' case "best setting (rss)" "replayed: defaults -> best" "native: defaults -> best"
results=""
for c in "glibc-arenas glibc 8 8 512 16" "jemalloc-decay jemalloc 4 32 65536 0"; do
  set -- $c
  name=$1 alloc=$2
  shift 2
  args="$*"
  "$B/hatrace" record --no-figures -o "$W/$name.hatf" -- "$prog" $args >/dev/null 2>"$W/rec.err" ||
    { echo "record $name failed: $(cat "$W/rec.err")"; exit 1; }
  "$B/hatrace" replay --tune --allocator "$alloc" --repeat "$REPEAT" --json "$W/$name.hatf" >"$W/$name.json" 2>"$W/tune.err" ||
    { echo "replay --tune $name failed: $(cat "$W/tune.err")"; exit 1; }
  # setting, replayed peaks (KiB), production lines of the defaults and the best
  python3 - "$W/$name.json" "$alloc" >"$W/$name.best" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["settings"]
best = rows[d["best"]]
dflt = next(r for r in rows if r["allocator"] == sys.argv[2] and r["setting"] == "default")
kb = lambda r: round(r["figures"]["peak_rss_bytes"]["median"] / 1024)
print(best["setting"], kb(dflt), kb(best))
print(dflt["production"])
print(best["production"])
PY
  { read -r setting replay_default replay_best; read -r line_default; read -r line_best; } <"$W/$name.best"
  native_default=$(native $line_default)
  native_best=$(native $line_best)
  printf '%-15s %-22s %-34s %-34s\n' "$name" "$setting" "$(mib "$replay_default" "$replay_best")" \
    "$(mib "$native_default" "$native_best")"
  results="${results}result $name $setting $replay_default $replay_best ${native_default%.*} ${native_best%.*}
"
done
printf '%s' "$results"
