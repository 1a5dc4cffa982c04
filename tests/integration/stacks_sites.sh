#!/usr/bin/env bash
# hatrace record --stacks on a workload with known call chains
# (tests/workloads/stacks_sites.c): the site report charges each known site's
# exact count to the right function (a static function, a shared-library
# function, a realloc loop, one chain run by two threads = one stack), with the
# exact leaks; dump --stacks names the frames; the trace validates; and
# without --stacks no record carries a stack.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/stacks_sites
[ -x "$prog" ] || { echo "workload not built"; exit 77; }

"$HATRACE" record --stacks -o "$W/s.hatf" -- "$prog" 2>"$W/record.err" || fail "record: $(cat "$W/record.err")"
validate_all "$W/s.hatf"
"$HATRACE" stats --sites --top 0 "$W/s.hatf" >"$W/sites.txt" || fail "stats --sites"

# "innermost-function sites calls leaked_objects" summed over the sites whose
# first frame is that function
awk '/^#[0-9]+ stack/ { calls = $4; for (i = 1; i < NF; i++) if ($i == "leaked") leaked = $(i + 1); getline; f = $2; sub(/\+.*/, "", f)
                        n[f]++; c[f] += calls; l[f] += leaked }
     END { for (f in n) print f, n[f], c[f], l[f] }' "$W/sites.txt" | sort >"$W/got.txt"
for want in "static_leaf 1 100 0" "lib_make 1 250 10" "grow_buf 1 37 1" "thread_leaf 1 100 0"; do
  grep -qx "$want" "$W/got.txt" || { cat "$W/sites.txt"; fail "site '$want' not found; got: $(grep -E 'leaf|lib_make|grow_buf' "$W/got.txt" | tr '\n' ';')"; }
done
# the chains go on to the right callers, with the module names
grep -A1 -- 'at static_leaf+' "$W/sites.txt" | grep -q 'at chain_a+0x[0-9a-f]* (stacks_sites)' || fail "static_leaf's caller"
grep -q 'at lib_make+0x[0-9a-f]* (libstacks_lib.so)' "$W/sites.txt" || fail "lib_make's module"

# --sort bytes puts grow_buf (37 growing reallocs, 44992 bytes) first
"$HATRACE" stats --sites --sort bytes --top 1 "$W/s.hatf" | grep -A1 '^#1 ' | grep -q 'at grow_buf+' || fail "--sort bytes"
# JSON: the same count for lib_make
"$HATRACE" stats --sites --json --top 0 "$W/s.hatf" >"$W/sites.json" || fail "stats --sites --json"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))
c=sum(x["calls"] for x in s["top"] if x["frames"] and x["frames"][0]["function"]=="lib_make")
sys.exit(c!=250)' "$W/sites.json" || fail "json lib_make calls"

# no frame of the recorder's own (its pthread_create wrapper, under glibc's
# pthread_create's allocations): the frames table names no libhatrace.so
"$HATRACE" convert --to csv "$W/s.hatf" -o "$W/s.csv" || fail "convert --to csv"
grep -q ',pthread_create,' "$W/s.frames.csv" || fail "no pthread_create frame (the thread's allocations)"
! grep -q 'libhatrace' "$W/s.frames.csv" || fail "a frame of the recorder: $(grep libhatrace "$W/s.frames.csv" | head -1)"

# dump --stacks: every alloc of static_leaf is followed by its frames
n=$("$HATRACE" dump --stacks "$W/s.hatf" | grep -c '^#   at static_leaf+')
[ "$n" = 100 ] || fail "dump --stacks shows static_leaf $n times, want 100"

# without --stacks: no stack attribute anywhere
"$HATRACE" record -o "$W/n.hatf" -- "$prog" 2>/dev/null || fail "record without stacks"
! "$HATRACE" dump "$W/n.hatf" | grep -q 'stack=' || fail "stack attribute without --stacks"
echo "ok"
