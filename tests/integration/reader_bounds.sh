#!/usr/bin/env bash
# Hostile files the readers must get through in bounded time and memory
# (docs/promises.md, "The readers"): each is made here (hatf_craft.py builds
# containers byte by byte) and read by stats, validate and dump, each read
# under `timeout 20`, and, outside the sanitizers, 1 GiB of address space,
# with its peak resident memory required under 256 MiB. Each read takes
# well under 2 s and a few tens of MB here; before the fixes named by each
# case they took from 14 s to past 120 s, or gigabytes.
set -u
H=${HATRACE:?}
here=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
export PYTHONPATH=$here
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }

# bounded NAME WANT CMD...: CMD ends within the bounds with exit status WANT
# (its stdout in $W/out, stderr in $W/err)
bounded() {
  local name=$1 want=$2; shift 2
  (if [ -z "${SANITIZE:-}" ] && [ -z "${NO_VLIMIT:-}" ]; then ulimit -v 1048576; fi
   exec /usr/bin/time -f '%e %U %S %M' -o "$W/time" timeout 20 "$@") >"$W/out" 2>"$W/err"; local st=$?
  read -r secs usr sys kb < <(tail -1 "$W/time")
  # the CPU time too: on a loaded machine the wall time is mostly waiting
  echo "$name: exit $st, ${secs:-?} s (cpu ${usr:-?} + ${sys:-?} s), ${kb:-?} KB"
  # a sanitizer's report (make check-sanitizers) is a failure, whatever the exit
  if grep -aqE '^(==[0-9]+==ERROR|.*runtime error:)' "$W/err"; then cat "$W/err"; fail "$name: sanitizer report"; return 1; fi
  [ "$st" -eq 124 ] && { fail "$name: past 20 s"; return 1; }
  [ "$st" -eq "$want" ] || { head -3 "$W/err"; fail "$name: exit $st, want $want"; return 1; }
  if [ -z "${SANITIZE:-}" ] && [ "${kb:-0}" -ge 262144 ]; then fail "$name: $kb KB resident"; return 1; fi
  return 0
}

# a container from a text trace on stdin
container() { "$H" convert --from text - -o "$1" || { echo "cannot convert"; exit 1; }; }

# craft OUT PYTHON: run PYTHON with hatf_craft imported as c, OUT as out
craft() { local out=$1; shift; python3 -c "import hatf_craft as c, sys; out = sys.argv[1]
$1" "$out" || { echo "cannot craft $out"; exit 1; }; }

# ---- early releases (hatf/readers/causal.c) ----------------------------------
# early OUT: the text trace on stdin as a container whose releases may be
# stamped early (header flag bit 2)
early() {
  container "$1.base"
  craft "$1" "
h, ch = c.parse(open(out + '.base', 'rb').read())
c.write(out, c.header(h, flags=4), ch, index=True)"
}
# far N: N frees on thread 1, then their allocations on thread 2, 1 us later
far() {
  python3 -c "
print('#hatrace-text 1')
for i in range($1): print('0 1 0 free 0x%x' % (0x100000 + 16 * i))
for i in range($1): print('1000 2 0 alloc 16 0x%x' % (0x100000 + 16 * i))"
}
# 200,000 frees of addresses never allocated: each started a read-ahead over
# the window, and the queue was scanned for its address, quadratic (past 120 s)
python3 -c "
print('#hatrace-text 1')
print('0 2 0 alloc 16 0x10')
for i in range(200000): print('%d 1 0 free 0x%x' % (i // 100, 0x100000 + 16 * i))" | early "$W/er.hatf"
bounded early-stats 0 "$H" stats "$W/er.hatf"
bounded early-validate 1 "$H" validate "$W/er.hatf" &&
  { grep -q "200001 records, 200000 problems" "$W/out" || fail "early-validate: $(tail -1 "$W/out")"; }
# 2,000 releases each far from its allocation (the move compared each pair of
# events it passed: cubic in all): all repaired
far 2000 | early "$W/far.hatf"
bounded early-far 0 "$H" validate "$W/far.hatf" &&
  { grep -q "note: 2000 releases stamped before the allocation" "$W/out" || fail "early-far: $(cat "$W/out")"; }
# 60,000: past the repair's budget, said once as damage (exit 3)
far 60000 | early "$W/far60k.hatf"
bounded early-budget 3 "$H" stats "$W/far60k.hatf" &&
  { [ "$(grep -c "early releases: the repair's budget" "$W/err")" -eq 1 ] || fail "early-budget: $(head -3 "$W/err")"; }

# ---- damage (hatf/container/container_read.c) ---------------------------------
# 60,000 chunk groups whose records fail their checksum, with and without an
# index: each damage line was compared with all the lines before (20,000: 14 s)
printf '#hatrace-text 1\n10 1 0 alloc 24 0x1000\n20 2 0 free 0x1000\n' | container "$W/one.hatf"
for ix in None True; do
  craft "$W/bad.hatf" "
h, ch = c.parse(open('$W/one.hatf', 'rb').read())
out_ch = []
for k in range(60000):
    r = ch[0].copy(seq=k); r.bad_hash = True
    out_ch += [r, ch[1].copy(seq=k)]
c.write(out, h, out_ch, index=$ix)"
  bounded "bad-checksums-index-$ix" 3 "$H" stats "$W/bad.hatf" &&
    { n=$(grep -c "checksum mismatch" "$W/err"); [ "$n" -eq 60000 ] || fail "bad-checksums: $n damage lines, want 60000"; }
done

# an index listing 100,000 chunk groups that are not there (zeros where it
# says they are): a damage line each, 34 s before
craft "$W/lie.hatf" "
h, ch = c.parse(open('$W/one.hatf', 'rb').read())
fake = []
for k in range(100000):
    fake += [c.Chunk(c.RECORDS, 1, k, 1, b'\\1', coding=1), c.Chunk(c.ADDRS, 1, k, 1, b'\\1', coding=3)]
area = c.Chunk(99, payload=bytes(65 * len(fake) - 64))
c.write(out, h, [area], index=lambda placed: c.index_payload([(len(h) + 65 * i, x) for i, x in enumerate(fake)]))"
bounded lying-index 3 "$H" stats -j 1 "$W/lie.hatf" &&
  { n=$(grep -c "checksum mismatch" "$W/err"); [ "$n" -eq 100000 ] || fail "lying-index: $n damage lines, want 100000"; }

# ---- threads (hatf/readers/merge.c, hatf/container/container_read.c) ---------
# 100,000 threads one after the other, an allocation and its free each (21 MB):
# every thread's cursor held a decoded group and an address model from the
# start, ~78 KB each (stats 15 s, 2.9 GB); now only the threads whose groups
# overlap in time
python3 -c "
print('#hatrace-text 1')
for t in range(1, 100001):
    print('%d %d 0 alloc 16 0x%x' % (10 * t, t, 0x1000 + 16 * t))
    print('%d %d 0 free 0x%x' % (10 * t + 5, t, 0x1000 + 16 * t))" | container "$W/storm.hatf"
bounded storm-stats 0 "$H" stats --json "$W/storm.hatf" &&
  { grep -q '"records": 200000' "$W/out" || fail "storm-stats: $(grep records "$W/out")"; }
bounded storm-validate 0 "$H" validate -j 1 "$W/storm.hatf"

# ---- zstd bombs and tables (hatf/container/container_read.c) -----------------
# 500 records chunks of one event, each a zstd frame of 64 MiB of zeros
# (1.2 MB): decompressed each (6.5 s, 200 MB); now refused from the header
# (a chunk's raw length follows its events)
craft "$W/bomb.hatf" "
h, ch = c.parse(open('$W/one.hatf', 'rb').read())
z = c.zstd(bytes(64 << 20))
out_ch = []
for k in range(500):
    out_ch += [c.Chunk(c.RECORDS, 1, k, 1, z, coding=1, codec=1, raw_len=64 << 20), ch[1].copy(seq=k)]
c.write(out, h, out_ch, index=True)
# tables: 500 chunks of 64 MiB of zeros; 30 of 4 MiB of stacks of one-byte frames
c.write(out + '.tables', h, ch + [c.Chunk(c.TABLES, codec=1, payload=z, raw_len=64 << 20)] * 500, index=True)
st = bytearray(); k = 0
while len(st) < (4 << 20) - 300:
    k += 1; st += b'\\x03' + c.varint(k) + c.varint(255) + b'\\x01' * 255
c.write(out + '.stacks', h, ch + [c.Chunk(c.TABLES, codec=1, payload=c.zstd(st, 3), raw_len=len(st))] * 30, index=True)"
bounded zstd-bomb 3 "$H" stats "$W/bomb.hatf" &&
  { grep -q "chunk header raw length too large for its events" "$W/err" || fail "zstd-bomb: $(head -2 "$W/err")"; }
# 500 groups that claim 2^20 events each, so their 64 MiB of zeros passes
# the header's check: each was decompressed whole before its first event was
# read (6 s and 200 MB in every reader); now a payload past 512 KiB is
# decompressed as its decoder reaches it, and the first event is bad
craft "$W/zclaim.hatf" "
h, ch = c.parse(open('$W/one.hatf', 'rb').read())
z = c.zstd(bytes(64 << 20))
out_ch = []
for k in range(500):
    out_ch += [c.Chunk(c.RECORDS, 1, k, 1 << 20, z, coding=1, codec=1, raw_len=64 << 20),
               c.Chunk(c.ADDRS, 1, k, 1 << 20, b'\\1', coding=3)]
c.write(out, h, out_ch, index=True)"
for cmd in "stats|3" "stats -j 1|3" "validate|1" "dump|3" "convert --to text -o $W/zclaim.txt|3" \
           "report -o $W/zclaim.html|3" "replay --allocator glibc|3"; do
  bounded "zstd-claimed-${cmd%%|*}" "${cmd#*|}" "$H" ${cmd%%|*} "$W/zclaim.hatf" &&
    { grep -q "zclaim.hatf: .*offset [0-9]*: records chunk (thread 1, group 0): time section bad at event 0" "$W/err" "$W/out" ||
      fail "zstd-claimed ${cmd%%|*}: $(head -2 "$W/err")"; }
done
# Python: a partial frame, with the damage as a warning; its resident memory
# bounded, not its address space (the rows the index claims, at most 64 a
# byte of the file, are reserved, unmade pages)
PY=${PYTHON:-/usr/bin/python3}
if [ -n "${BUILD:-}" ] && "$PY" -c 'import numpy, pandas' 2>/dev/null; then
  NO_VLIMIT=1 bounded zstd-claimed-python 0 env HATRACE_LIBHATF="$BUILD/libhatf.so" PYTHONPATH="$here/../../python" "$PY" -c "
import hatrace, sys
print(len(hatrace.open(sys.argv[1]).to_pandas()))" "$W/zclaim.hatf" &&
    { grep -q "DamageWarning: .*zclaim.hatf: the trace is damaged or cut" "$W/err" && [ "$(cat "$W/out")" = 0 ] ||
      fail "zstd-claimed python: $(cat "$W/out" "$W/err" | head -3)"; }
fi
# groups read as they are decompressed give what whole ones give: comments of
# up to 65,000 bytes (events cut by the end of what is decompressed) in
# groups of 8 MiB (convert --best), against the same trace in small groups
python3 -c "
import random
r = random.Random(5)
print('#hatrace-text 1')
t, live = 0, []
for i in range(60000):
    t += r.randint(0, 3)
    x = r.random()
    if x < 0.03: print('%d 1 0 comment hex:%s' % (t, ('%02x' % r.randint(0, 255)) * r.choice([10, 1000, 30000, 65000])))
    elif x < 0.55 or not live:
        live.append(0x10000 + 16 * i); print('%d 1 0 alloc %d 0x%x' % (t, r.randint(1, 5000), live[-1]))
    else: print('%d 1 0 free 0x%x' % (t, live.pop(r.randrange(len(live)))))" | container "$W/big.hatf"
"$H" convert --best "$W/big.hatf" -o "$W/bigbest.hatf" || fail "convert --best"
craft "$W/n" "
h, ch = c.parse(open('$W/bigbest.hatf', 'rb').read())
n = sum(1 for x in ch if x.kind == c.RECORDS and x.codec == 1 and x.raw_len > 512 << 10)
open(out, 'w').write(str(n))"
[ "$(cat "$W/n")" -ge 2 ] || fail "streamed: $(cat "$W/n") groups past 512 KiB, want 2 or more"
for j in 1 2; do
  "$H" dump -j $j "$W/big.hatf" > "$W/d1" && "$H" dump -j $j "$W/bigbest.hatf" > "$W/d2" && cmp -s "$W/d1" "$W/d2" ||
    fail "streamed groups -j $j: dump differs from the same trace in small groups"
done

# every tables chunk read and parsed (past 60 s); now 128 MiB of them in all
bounded tables-bomb 3 "$H" stats "$W/bomb.hatf.tables" &&
  { grep -q "the tables chunks pass 128 MiB in all" "$W/err" || fail "tables-bomb: $(head -2 "$W/err")"; }
# every stack kept, 8 bytes a frame (8 GB for 30 chunks of 64 MiB); now 64 MiB
bounded tables-stacks 3 "$H" stats "$W/bomb.hatf.stacks" &&
  { grep -q "the tables (names, stacks, modules, symbols) pass 64 MiB kept" "$W/err" || fail "tables-stacks: $(head -2 "$W/err")"; }

# 20,000 threads whose groups all overlap in time (an allocation each, its
# free after every other thread's allocation): each cursor kept its address
# model until its thread's end (stats -j 1: 20 s, 1.4 GB); now past 256
# models a cursor gives its model back once its group is decoded
python3 -c "
print('#hatrace-text 1')
for t in range(1, 20001): print('%d %d 0 alloc 16 0x%x' % (t, t, 0x1000 + 16 * t))
for t in range(1, 20001): print('%d %d 0 free 0x%x' % (10**6 + t, t, 0x1000 + 16 * t))" | container "$W/overlap.hatf"
bounded overlap-stats 0 "$H" stats -j 1 --json "$W/overlap.hatf" &&
  { grep -q '"records": 40000' "$W/out" || fail "overlap-stats: $(grep records "$W/out")"; }
bounded overlap-validate 0 "$H" validate "$W/overlap.hatf"
# 2,100 threads in the middle of groups of 300 events, all overlapping: a
# model each (~75 KB); past 2,048 the file is refused with one line, the
# same whatever the number of decoding threads
python3 -c "
print('#hatrace-text 1')
for op, t0 in (('alloc 16', 0), ('free', 2000000)):
    for r in range(150):
        for t in range(1, 2101): print('%d %d 0 %s 0x%x' % (t0 + r * 10000 + t, t, op, 0x1000000 * t + 16 * r))" |
  container "$W/open.hatf"
for j in 1 2; do
  bounded "open-groups-j$j" 1 "$H" stats -j $j "$W/open.hatf" &&
    { [ "$(wc -l < "$W/err")" -eq 1 ] &&
      grep -q "open.hatf: offset [0-9]*: more than 2048 threads' chunk groups overlap in time; the groups past that are skipped" "$W/err" ||
      fail "open-groups -j $j: $(head -3 "$W/err")"; }
done

# ---- impossible headers (hatf/container/container_read.c) ---------------------
# time unit 1/0 or 0/1, 7-bit addresses: validate said "no problems"; now
# every reader refuses the file with one line
for v in "unit=(1, 0)|offset 40: bad header: time unit 1/0 ns" "unit=(0, 1)|offset 40: bad header: time unit 0/1 ns" \
         "address_bits=7|offset 16: bad header: addresses of 7 bits"; do
  craft "$W/hdr.hatf" "
h, ch = c.parse(open('$W/one.hatf', 'rb').read())
c.write(out, c.header(h, ${v%%|*}), ch, index=True)"
  for cmd in validate stats; do
    bounded "header-${v%%|*}-$cmd" 1 "$H" $cmd "$W/hdr.hatf" &&
      { [ "$(wc -l < "$W/err")" -eq 1 ] && grep -q "hdr.hatf: ${v#*|}" "$W/err" || fail "header ${v%%|*}: $(cat "$W/err")"; }
  done
done

# 10,000 copies of a thread's group 0: read as 10,000 times its events, and
# validate said "no problems" of the copies; now each copy is damage
craft "$W/dup.hatf" "
h, ch = c.parse(open('$W/one.hatf', 'rb').read())
c.write(out, h, ch[:2] * 10000 + ch[2:], index=True)"
bounded duplicate-groups 1 "$H" validate "$W/dup.hatf" &&
  { grep -q "dup.hatf: 2 records, 19998 problems" "$W/out" &&
    grep -q "records chunk (thread 1, group 0) comes after group 0 (offset [0-9]*); its 1 events are skipped" "$W/out" ||
    fail "duplicate-groups: $(tail -2 "$W/out")"; }

# ---- Meta-TF (hatf/metatf/metatf_read.c) ------------------------------------
# 10,000 one-byte records, each a repeat of 65535 zero-width fields (10 KB):
# the limit counted values, not bytes (1,000 records: 6 s of dump); now the
# first record is refused, one line with its offset
craft "$W/z.mtf" "
dtd = 'metatf-dtd 1\\nevents hatf\\nsection s records\\nrecord r 0\\n  repeat a 65535\\n    field z uint 0\\n  end\\nend\\n'
open(out, 'wb').write(c.metatf(dtd, bytes(10000)))"
for cmd in dump stats; do
  bounded "metatf-zero-width-$cmd" 1 "$H" $cmd "$W/z.mtf" &&
    { grep -q "z.mtf: offset [0-9]*: record 'r' holds more than 4160 values in its 1 bytes" "$W/err" || fail "metatf-zero-width: $(cat "$W/err")"; }
done
# a DTD by URL naming a FIFO: refused, where opening it waited for a writer forever
mkfifo "$W/fifo"
craft "$W/u.mtf" "open(out, 'wb').write(c.metatf('fifo', url=True))"
bounded metatf-fifo 1 "$H" dump "$W/u.mtf" &&
  { grep -q "u.mtf: offset 24: the DTD at 'fifo': not a regular file" "$W/err" || fail "metatf-fifo: $(cat "$W/err")"; }

[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
echo "reader_bounds: all bounded"
