#!/usr/bin/env bash
# fork and exec: every process writes its own complete trace; a forked child's
# header says so and names its parent's trace; the parent's trace holds only
# the parent's blocks. Sizes per process: see tests/workloads/rec_fork_exec.c.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/rec_fork_exec
[ -x "$prog" ] || { echo "workload not built"; exit 77; }
"$HATRACE" record -o "$W/t.%p.hatf" -- "$prog" 2>"$W/record.err" || fail "record: $(cat "$W/record.err")"
cat "$W/record.err"
grep -q "hatrace: 4 traces, .* 0 dropped" "$W/record.err" || fail "expected 4 traces in the summary"
validate_all "$W"/t.*.hatf*

# which process's blocks are in which file: "SIZE COUNT" per file
declare -A seen
parent=""
for f in "$W"/t.*.hatf*; do
  "$HATRACE" dump "$f" >"$W/dump.txt" || fail "dump $f"
  sizes=$(awk '$4 == "alloc" && $5 >= 1001 && $5 <= 1004 { c[$5]++ } END { for (k in c) print k ":" c[k] }' "$W/dump.txt" | sort | tr '\n' ' ')
  forked=$(grep -c '^# container.* forked ' "$W/dump.txt")
  echo "$(basename "$f"): $sizes forked=$forked"
  case "$sizes" in
    "1001:300 ") [ "$forked" = 0 ] || fail "parent marked forked"; parent=$f; seen[p]=1;;
    "1002:200 ") [ "$forked" = 1 ] || fail "child 1 not marked forked"; seen[c1]=$f
       # it frees 6 of the parent's blocks and reallocs the 7th: accepted, and said
       "$HATRACE" validate "$f" | grep -q "note: 7 releases of objects inherited from the parent" ||
         fail "validate does not count child 1's releases of inherited objects";;
    "1003:100 ") [ "$forked" = 1 ] || fail "child 2 not marked forked"; seen[c2]=$f;;
    "1004:50 ") [ "$forked" = 0 ] || fail "exec'd program marked forked"; seen[x]=$f
       grep -q 'cmdline ".* exec"' "$W/dump.txt" || fail "exec'd command line";;
    *) fail "unexpected blocks in $f: $sizes";;
  esac
done
[ -n "${seen[p]:-}" ] && [ -n "${seen[c1]:-}" ] && [ -n "${seen[c2]:-}" ] && [ -n "${seen[x]:-}" ] || fail "a process has no trace"
# the children's headers name the parent's trace
for c in "${seen[c1]}" "${seen[c2]}"; do
  grep -qaF "$parent" "$c" || fail "$(basename "$c") does not name the parent trace"
done
# --no-follow-children: one trace, the parent's
mkdir "$W/nf"
"$HATRACE" record --no-follow-children -o "$W/nf/t.%p.hatf" -- "$prog" 2>"$W/nf.err" || fail "record: $(cat "$W/nf.err")"
cat "$W/nf.err"
[ "$(ls "$W/nf" | wc -l)" = 1 ] || fail "--no-follow-children wrote $(ls "$W/nf" | wc -l) traces"
validate_all "$W"/nf/t.*.hatf
n=$("$HATRACE" dump "$W"/nf/t.*.hatf | awk '$4 == "alloc" && $5 >= 1001 && $5 <= 1004 { c[$5]++ } END { for (k in c) print k ":" c[k] }')
[ "$n" = "1001:300" ] || fail "--no-follow-children trace holds $n"
# an exec by descriptor (fexecve, execveat) finishes the trace too: both
# programs' blocks, each in a trace of its own, the first closed
for call in fexecve execveat; do
  mkdir "$W/$call"
  "$HATRACE" record -o "$W/$call/t.hatf" -- "$prog" "$call" 2>"$W/$call.err" || fail "$call: $(cat "$W/$call.err")"
  grep -q "not closed" "$W/$call.err" && fail "$call: $(grep 'not closed' "$W/$call.err")"
  n=$(for f in "$W/$call"/*.hatf; do
        "$HATRACE" dump "$f" | awk '$4 == "alloc" && $5 >= 1004 { c[$5]++ } END { for (k in c) printf "%s:%s ", k, c[k] }'
      done | tr ' ' '\n' | sort | tr '\n' ' ')
  [ "$n" = "1004:50 1006:60 " ] || fail "$call: traces hold $n"
  validate_all "$W/$call"/*.hatf
done
echo "record_fork_exec: ok"
