#!/usr/bin/env bash
# Replay refuses, before any allocator runs, a trace that asks for more than
# the machine has (docs/replay.md, "Limits"): an allocation larger than its
# memory (MemTotal, or the cgroup's memory.max), or live bytes peaking beyond
# the memory available (MemAvailable, or the room the cgroup leaves). One line
# naming the file and the record, exit 1, nothing on standard output. Before:
# a 60-byte text trace drove replay to 2.9 GB, sizes taken as asked.
# The sizes are worked out from this machine's /proc/meminfo.
set -u
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$HATRACE" ] || { echo "no hatrace binary"; exit 77; }
total=$(awk '/^MemTotal:/ { printf "%.0f", $2 * 1024 }' /proc/meminfo)
[ -n "$total" ] && [ "$total" -gt 0 ] || { echo "no MemTotal"; exit 77; }

expect_refused() { # file, the message's pattern
  timeout 120 "$HATRACE" replay --from text --allocator null,glibc "$1" >"$work/out" 2>"$work/err"; s=$?
  [ $s = 1 ] || { cat "$work/err"; fail "$(basename "$1"): exit $s, not 1"; }
  [ "$(wc -l <"$work/err")" = 1 ] && grep -qE "$2" "$work/err" || { cat "$work/err"; fail "$(basename "$1"): the line"; }
  [ ! -s "$work/out" ] || fail "$(basename "$1"): something ran"
}

# one allocation larger than the machine's memory (a GiB more), in a tiny file
big=$((total + (1 << 30)))
printf '#hatrace-text 1\n1 1 0 alloc 16 0x10\n2 1 0 alloc %d 0x1000\n' "$big" >"$work/one.txt"
expect_refused "$work/one.txt" "one\.txt: offset [0-9]+: record 1: an allocation of $big bytes, more than the machine's memory"
# a failed one of that size is skipped, as before
printf '#hatrace-text 1\n1 1 0 alloc 16 0x10\n2 1 0 alloc %d 0x0 failed=1\n3 1 0 free 0x10\n' "$big" >"$work/failed.txt"
timeout 120 "$HATRACE" replay --from text --allocator null --json "$work/failed.txt" >"$work/out" 2>"$work/err" \
    || { cat "$work/err"; fail "a failed huge allocation is not skipped"; }
grep -q '"failed_skipped": 1' "$work/out" || fail "failed_skipped"

# live bytes past the memory: 256 MiB blocks, each one of them possible, as many
# as the machine's memory and two more, never freed; the peak is the last one
n=$((total / (256 << 20) + 2))
awk -v n=$n 'BEGIN { print "#hatrace-text 1"
  for (i = 1; i <= n; i++) printf "%d 1 0 alloc 268435456 0x%x\n", i, i * 268435456 }' >"$work/peak.txt"
expect_refused "$work/peak.txt" "peak\.txt: offset [0-9]+: record $((n - 1)): live bytes reach $((n * 268435456)) here, more than the memory available"

# what fits runs as before
printf '#hatrace-text 1\n1 1 0 alloc 1048576 0x10\n2 1 0 free 0x10\n' >"$work/fits.txt"
timeout 120 "$HATRACE" replay --from text --allocator null,glibc "$work/fits.txt" >/dev/null 2>"$work/err" \
    || { cat "$work/err"; fail "a 1 MiB trace refused"; }
echo "replay_limits: all passed"
