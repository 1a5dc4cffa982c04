#!/usr/bin/env bash
# record_profile.sh — where the recorder's cost lands when every core is busy,
# function by function: server_sim natively and under `hatrace record`, in
# pairs (ROUNDS pairs, each run sampled by `perf record -e cpu-clock`, the
# machine probed with core_latency before each), and for every function that
# takes at least 0.3 ns an event in either run, its CPU per event (2 events an
# op: samples x period / events), native against recorded, medians over the
# pairs. The recorder's whole cost per event is the sum of the differences;
# this says which functions carry it: the hooks (libhatrace.so in the
# program's threads), the background threads (hatrace-*), and the program's
# and the allocator's own functions made slower under recording (cache
# misses on objects other threads touched, the arenas' locks).
#
#   bench/record_profile.sh [BUILD_DIR [ROUNDS]]     (default: build 3)
# SIM_THREADS (8) and SIM_SECONDS (2) as in record_saturated.sh. Needs perf
# (Debian's linux-perf); software sampling, so it works where the CPU's
# counters are not exposed. make -j2 bench first.
set -eu
cd "$(dirname "$0")/.."
B=${1:-build}
ROUNDS=${2:-3}
SIM_THREADS=${SIM_THREADS:-8}
SIM_SECONDS=${SIM_SECONDS:-2}
command -v perf >/dev/null || { echo "perf is needed (Debian: linux-perf)"; exit 1; }
[ -x "$B/hatrace" ] && [ -x "$B/bench/server_sim" ] || { echo "build first: make -j2 B=$B bench"; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
FREQ=5000  # samples a second per CPU: 200 us each
probe() { if [ -x "$B/bench/core_latency" ]; then "$B/bench/core_latency" | sed 's/rtt_ns=//'; else echo "?"; fi; }

# one MODE ROUND: sample one run; write W/MODE.ROUND.tsv (comm|dso|symbol, ns an event)
one() {
  local mode=$1 r=$2 out="$W/$1.$2" ops
  if [ "$mode" = native ]; then
    perf record -q -e cpu-clock -F $FREQ -o "$out.data" -- "$B/bench/server_sim" "$SIM_THREADS" "$SIM_SECONDS" >"$out.txt" 2>/dev/null
  else
    perf record -q -e cpu-clock -F $FREQ -o "$out.data" -- "$B/hatrace" record --no-figures -o "$W/t.hatf" -- \
      "$B/bench/server_sim" "$SIM_THREADS" "$SIM_SECONDS" >"$out.txt" 2>"$out.err"
    rm -f "$W"/t*.hatf
  fi
  ops=$(sed -nE 's/^ops=([0-9]+) .*/\1/p' "$out.txt" | tail -1)
  [ -n "$ops" ] || { echo "no result line from server_sim ($mode)"; cat "$out.txt" "$out.err" 2>/dev/null; exit 1; }
  # samples per comm, dso and symbol; the program's main thread is named hatrace
  # under `hatrace record` until it execs: samples count by thread name, and the
  # program's threads are all named server_sim
  perf report -i "$out.data" --no-children --sort comm,dso,sym -F sample,comm,dso,sym --stdio 2>/dev/null |
    awk -v ops="$ops" -v ns=$((1000000000 / FREQ)) '
      /^#/ || NF < 4 { next }
      { n = $1; comm = $2; dso = $3; sym = $NF
        if (comm != "server_sim" && comm !~ /^hatrace-/) next
        key = comm "|" dso "|" sym; v[key] += n * ns / (2 * ops) }
      END { for (k in v) printf "%s\t%.3f\n", k, v[k] }' >"$out.tsv"
  echo "$ops"
}

echo "server_sim $SIM_THREADS threads, ${SIM_SECONDS} s, $ROUNDS pairs (native, recorded), perf cpu-clock at $FREQ Hz; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$ROUNDS"); do
  p1=$(probe); o1=$(one native "$r"); p2=$(probe); o2=$(one hatrace "$r")
  echo "  pair $r: core round trip ${p1} / ${p2} ns; native $o1 ops, recorded $o2 ops"
done
echo "$(probe)" >/dev/null

# medians over the pairs, per function: native, recorded, difference
python3 - "$W" "$ROUNDS" <<'PY'
import sys, statistics, collections
w, rounds = sys.argv[1], int(sys.argv[2])
def load(mode, r):
    d = {}
    for line in open(f"{w}/{mode}.{r}.tsv"):
        k, v = line.rstrip("\n").split("\t")
        d[k] = float(v)
    return d
nat = [load("native", r) for r in range(1, rounds + 1)]
rec = [load("hatrace", r) for r in range(1, rounds + 1)]
keys = set().union(*nat, *rec)
rows = []
for k in keys:
    a = statistics.median(d.get(k, 0.0) for d in nat)
    b = statistics.median(d.get(k, 0.0) for d in rec)
    if max(a, b) >= 0.3:
        rows.append((b - a, k, a, b))
rows.sort(reverse=True)
def total(ds, pred):
    return statistics.median(sum(v for k, v in d.items() if pred(k)) for d in ds)
prog = lambda k: k.startswith("server_sim|")
hook = lambda k: k.startswith("server_sim|libhatrace")
bg = lambda k: k.startswith("hatrace-")
print(f"  {'ns per event (medians)':60s} {'native':>8s} {'recorded':>9s} {'added':>8s}")
for d, k, a, b in rows:
    print(f"  {k[:60]:60s} {a:8.2f} {b:9.2f} {d:+8.2f}")
pn, pr = total(nat, prog), total(rec, prog)
h, g = total(rec, hook), total(rec, bg)
print(f"  program's threads: {pn:.1f} natively, {pr:.1f} recorded (+{pr - pn:.1f}: hooks {h:.1f}, the program and its allocator slower by {pr - pn - h:.1f}); background threads {g:.1f}; whole {pr - pn + g:.1f}")
PY
