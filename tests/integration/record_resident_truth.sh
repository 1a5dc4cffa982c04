#!/usr/bin/env bash
# Issue 42's bar on the recorded resident size: tests/workloads/resident_hold
# (N blocks of 64 bytes, held, then freed) recorded, its trace's peak resident
# (stats: the samples less the recorder's own memory) never below its peak live
# bytes and within 10 % of its anonymous peak natively (bench/resident_truth.py:
# the largest RssAnon read while it holds; not /usr/bin/time's %M less the shared
# pages read, which takes in the pages of files touched at exit, after the last
# reading: 0.25 MiB against 0.18 read in one CI run). The recorder samples every 20 ms and the program holds
# its peak 500 ms, so samples fall at the peak however busy the machine: the
# figures are sizes, not times. 1 k blocks make a program of 0.18 MiB, where the
# recorder's own memory left in (ld.so's for its libraries, a page of the main
# stack its loading reaches: 8-12 KiB) is a twentieth: measured 1.02-1.04 over
# 18 runs (1.08-1.10 before its threads' arenas counted by their pages and
# zstd and xxhash linked in), 1.006 at 30 k blocks, 1.002 at 300 k.
# Then a peak shorter than the flush interval (1 s, a program of ~0.1 s whose
# 256-byte blocks go back to the system as they are freed): only the kernel's
# high-water mark saw it, and the trace must still hold it (before, 0.45 MB
# for 20 MB live). The mark is read from the kernel's per-CPU counters, low by
# up to 64 pages a CPU; the blocks' headers (6 %, 1.3 MB) are above that.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/resident_hold
truth=$(cd "$(dirname "$0")/../.." && pwd)/bench/resident_truth.py
[ -x "$prog" ] || { echo "workload not built"; exit 77; }
[ -x /usr/bin/time ] || { echo "no /usr/bin/time"; exit 77; }
[ -r /proc/self/status ] && grep -q '^RssAnon:' /proc/self/status || { echo "no RssAnon in /proc (Linux < 4.5)"; exit 77; }

# recorded peak resident and peak live bytes of "$@" (a resident_hold command line)
recorded() {
  rm -f "$W/t.hatf"
  "$HATRACE" record --no-figures -o "$W/t.hatf" -- "$@" >/dev/null 2>"$W/rec.err" || fail "record $*: $(cat "$W/rec.err")"
  "$HATRACE" stats --json "$W/t.hatf" | python3 -c '
import json, sys
s = json.load(sys.stdin)
print(s["container"].get("max_resident_bytes", 0), s["max_live_bytes"])' || fail "stats $*"
}

for n in 1000 30000 300000; do
  read -r m sh an nat < <(python3 "$truth" native "$prog" "$n" 500) || fail "native run of $n blocks"
  [ "$nat" = "$an" ] || fail "$n blocks: the readings did not see the peak held ($m $sh $an $nat)"
  read -r rec live < <(HATRACE_FLUSH_MS=20 recorded "$prog" "$n" 500)
  echo "$n blocks: native %M $m kB, shared $sh kB, anonymous $an kB; recorded $rec bytes, peak live $live"
  python3 - "$nat" "$rec" "$live" <<'PY' || fail "$n blocks: the recorded resident size is not the program's"
import sys
nat, rec, live = map(int, sys.argv[1:])
native = nat * 1024
assert rec >= live, ("below peak live", rec, live)
assert abs(rec / native - 1) <= 0.10, ("ratio", rec / native)
PY
done

# a short peak: no sample during it (flush interval 1 s), the blocks freed and
# trimmed before the last sample at exit
read -r rec live < <(HATRACE_FLUSH_MS=1000 recorded "$prog" 80000 0 256)
echo "short peak: recorded $rec bytes, peak live $live"
[ "$rec" -ge "$live" ] || fail "a peak between samples lost: recorded $rec bytes, peak live $live"
echo "record_resident_truth: ok"
