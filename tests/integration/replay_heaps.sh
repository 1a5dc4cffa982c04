#!/usr/bin/env bash
# Replay a trace with heaps (replay_heaps.txt) under every installed allocator
# and null, per trace thread and on one thread, and check the heap figures:
# which heaps were native, how many calls were made, peak live bytes.
# Hand counts (the trace's comment): 10 operation records, 5 frees at
# destroyHeap, peak 2090 bytes. Per trace thread heaps 1 and 2 are confined
# (native where the allocator has heaps) and heap 3 is shared (free-each).
#   plan calls, --threads trace: 3 creates + 10 ops + 5 destroy-frees + 2 destroys = 20
#     native allocator: the 3 frees of heaps 1 and 2 and heap 3's create make no call: 16
#     no heap API: 3 creates and 2 destroys make no call: 15
#   --threads 1: every heap confined, 3 destroys: 21 plan calls;
#     native: 5 destroy-frees skipped: 16; no heap API: 3 creates + 3 destroys: 15
set -u
here=$(cd "$(dirname "$0")" && pwd)
trace=$here/replay_heaps.txt
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$HATRACE" ] || { echo "no hatrace binary"; exit 77; }

# the object for one allocator out of the JSON array (one object per line group)
obj() { awk -v a="\"allocator\": \"$1\"" 'index($0, a) { on = 1 } on { print } on && /}$/ && !/^ *"latency_ns"/ { if (/^ *"plan"|"warning"/) exit }' "$2"; }
val() { grep -o "\"$1\": [^,}]*" | head -1 | sed 's/^[^:]*: //; s/"//g'; }

allocs=null,glibc
for a in jemalloc tcmalloc mimalloc; do
  "$HATRACE" replay --from text --allocator $a --touch none "$trace" >/dev/null 2>&1 && allocs=$allocs,$a
done
echo "allocators: $allocs"

check() { # threads alloc mode native free_each calls
  local o; o=$(obj "$2" "$work/out.json")
  [ -n "$o" ] || fail "$1/$2: no result"
  local got="$(val heap_mode <<<"$o") $(val heaps_native <<<"$o") $(val heaps_free_each <<<"$o") $(val calls <<<"$o")"
  [ "$got" = "$3 $4 $5 $6" ] || { echo "$o"; fail "--threads $1, $2: heap_mode native free_each calls = $got, want $3 $4 $5 $6"; }
  [ "$(val ops <<<"$o")" = 10 ] || fail "$1/$2: ops"
  [ "$(val peak_live_bytes <<<"$o")" = 2090 ] || fail "$1/$2: peak_live_bytes"
  [ "$(val heap_frees <<<"$o")" = 5 ] || fail "$1/$2: heap_frees"
  echo "ok  --threads $1 $2: $got"
}

for threads in trace 1; do
  "$HATRACE" replay --from text --threads $threads --allocator $allocs --touch all --json "$trace" \
      >"$work/out.json" 2>"$work/err" || { cat "$work/err"; fail "replay --threads $threads"; }
  for a in ${allocs//,/ }; do
    case $threads/$a in
      trace/jemalloc|trace/mimalloc) check $threads $a mixed 2 1 16;;
      1/jemalloc|1/mimalloc) check $threads $a native 3 0 16;;
      *) check $threads $a free-each 0 3 15;;
    esac
  done
  grep -q "\"heaps_confined\": $([ $threads = trace ] && echo 2 || echo 3)" "$work/out.json" || fail "heaps_confined"
done

# --heaps free-each turns native heaps off
if [[ $allocs == *mimalloc* ]]; then
  "$HATRACE" replay --from text --threads 1 --allocator mimalloc --heaps free-each --json "$trace" >"$work/out.json" \
      || fail "--heaps free-each"
  check 1 mimalloc free-each 0 3 15
fi
"$HATRACE" replay --heaps some "$trace" >/dev/null 2>&1; [ $? = 2 ] || fail "bad --heaps exit"

# the table says it too
"$HATRACE" replay --from text --allocator $allocs "$trace" >"$work/table" || fail "table"
grep -q '^heaps: 3 created, 3 destroyed; 2 on one thread (native where the allocator has heaps), 1 shared (free-each)$' \
    "$work/table" || { cat "$work/table"; fail "table heap line"; }
grep -q '^  glibc: heaps free-each (api none): 0 native, 3 free-each$' "$work/table" || { cat "$work/table"; fail "glibc line"; }
if [[ $allocs == *jemalloc* ]]; then
  grep -q '^  jemalloc: heaps mixed (api jemalloc): 2 native, 1 free-each$' "$work/table" || { cat "$work/table"; fail "jemalloc line"; }
fi
echo ok
