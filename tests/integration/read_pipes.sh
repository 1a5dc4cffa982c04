#!/usr/bin/env bash
# Every reading command reads a trace from a pipe, "-" or /dev/stdin, in each
# of the three formats, with the same output as from the file (named "-" in it); commands that read the trace twice (stats --massif) too. An empty
# pipe is an error, not an empty success.
. "$(dirname "$0")/record_lib.inc"
need_tools
record_example "$W/t.hatf"
"$HATRACE" convert --to hatf1.0 "$W/t.hatf" -o "$W/t.hatf1" || fail "convert to hatf1.0"
"$HATRACE" convert --to text "$W/t.hatf" -o "$W/t.txt" || fail "convert to text"

n=0
for spec in "hatrace t.hatf" "hatf1.0 t.hatf1" "text t.txt"; do
  set -- $spec
  fmt=$1 f=$W/$2
  for cmd in "stats" "stats --json" "dump" "validate" "stats --massif" "stats --sites" "replay --allocator null"; do
    # shellcheck disable=SC2086
    "$HATRACE" $cmd --from "$fmt" "$f" 2>&1 | sed "s|$f|-|g" >"$W/file.out"
    # shellcheck disable=SC2086
    cat "$f" | "$HATRACE" $cmd --from "$fmt" - 2>&1 | cat >"$W/pipe.out"
    # shellcheck disable=SC2086
    cat "$f" | "$HATRACE" $cmd --from "$fmt" /dev/stdin 2>&1 | sed "s|/dev/stdin|-|g" >"$W/stdin.out"
    # shellcheck disable=SC2086
    "$HATRACE" $cmd --from "$fmt" - <"$f" 2>&1 | cat >"$W/redir.out"
    case $cmd in replay*)  # timings differ from run to run: compare the operation counts
      for o in file pipe stdin redir; do grep -E '^plan:|^inversions' "$W/$o.out" >"$W/$o.cmp" || true; done;;
    *) for o in file pipe stdin redir; do cp "$W/$o.out" "$W/$o.cmp"; done;;
    esac
    [ -s "$W/file.cmp" ] || fail "$fmt $cmd: no output from the file: $(head -3 "$W/file.out")"
    for o in pipe stdin redir; do
      cmp -s "$W/file.cmp" "$W/$o.cmp" || { diff "$W/file.cmp" "$W/$o.cmp" | head -5; fail "$fmt $cmd: $o differs from the file"; }
    done
    n=$((n + 1))
  done
done

# convert from a pipe writes the same trace
cat "$W/t.hatf" | "$HATRACE" convert - -o "$W/c.hatf" || fail "convert from a pipe"
"$HATRACE" dump "$W/t.hatf" | grep -v '^#' >"$W/a.txt"
"$HATRACE" dump "$W/c.hatf" | grep -v '^#' >"$W/b.txt"
cmp -s "$W/a.txt" "$W/b.txt" || fail "convert from a pipe changed the events"

# an empty pipe: an error naming the input, never "0 records"
: | "$HATRACE" stats - >"$W/empty.out" 2>&1 && fail "stats of an empty pipe succeeded: $(cat "$W/empty.out")"
grep -q "^hatrace: -: offset 0: empty file" "$W/empty.out" || fail "empty pipe: $(cat "$W/empty.out")"
# a stream that never ends and is no trace (/dev/zero, `yes |`): refused at
# offset 0 from its first block, not copied until the disk is full (the bound
# is 60 s against the milliseconds it takes); the whole line is checked
endless() {  # FORMAT INPUT MESSAGE
  local from=() s
  [ "$1" = auto ] || from=(--from "$1")
  if [ "$2" = - ]; then yes | timeout 60 "$HATRACE" stats "${from[@]}" - >"$W/inf.out" 2>&1; s=$?
  else timeout 60 "$HATRACE" stats "${from[@]}" "$2" >"$W/inf.out" 2>&1; s=$?; fi
  [ $s -ne 0 ] && [ $s -ne 124 ] || fail "stats ${from[*]} $2: exit $s (124: still copying after 60 s)"
  grep -qxF "hatrace: $2: offset 0: $3" "$W/inf.out" || fail "stats ${from[*]} $2: $(cat "$W/inf.out")"
}
endless auto /dev/zero "not a hatrace container (use --from hatf1.0 or --from text)"
endless text /dev/zero "not a text trace: first line must be '#hatrace-text 1'"
endless metatf /dev/zero 'not a Meta-TF file (no \177MTF magic)'
endless hatrace - "not a hatrace trace (bad magic)"
endless text - "not a text trace: first line must be '#hatrace-text 1'"
echo "read_pipes: ok ($n commands x 3 ways, and convert)"
