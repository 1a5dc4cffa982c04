#!/usr/bin/env bash
# Bad usage exits 2; unreadable, empty, garbage and truncated inputs exit 1 with
# exactly one line on stderr naming the file and a byte offset; nothing crashes.
set -u
H=${HATRACE:?}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0

# expect CODE PATTERN CMD...: exit status CODE, and for CODE 1 one stderr line
# matching PATTERN; stdout is ignored.
expect() {
  local want=$1 pat=$2; shift 2
  "$@" >/dev/null 2>"$tmp/err"; local got=$?
  local lines; lines=$(wc -l < "$tmp/err")
  if [ "$got" -ge 128 ]; then
    echo "CRASH ($got): $*"; fails=$((fails+1)); return
  fi
  if [ "$got" -ne "$want" ]; then
    echo "FAIL exit $got, want $want: $*"; cat "$tmp/err"; fails=$((fails+1)); return
  fi
  if [ "$want" -ne 0 ] && [ "$lines" -ne 1 ]; then
    echo "FAIL $lines stderr lines, want 1: $*"; cat "$tmp/err"; fails=$((fails+1)); return
  fi
  if [ -n "$pat" ] && ! grep -qE -- "$pat" "$tmp/err"; then
    echo "FAIL stderr does not match '$pat': $*"; cat "$tmp/err"; fails=$((fails+1)); return
  fi
}

basic=$here/golden/inputs/basic.txt
sed 's/#.*//' "$here/golden/inputs/basic.hatf1.hex" | xxd -r -p > "$tmp/ok.hatf1"
"$H" convert --from text "$basic" -o "$tmp/ok.hatf" || { echo "cannot make a container"; exit 1; }

# usage: exit 2
expect 2 '' "$H"
expect 2 'unknown command' "$H" frobnicate
expect 2 'unknown option' "$H" --frobnicate
for c in dump stats validate convert; do
  expect 2 'unknown option' "$H" $c --no-such-option "$basic"
  expect 2 'missing input file' "$H" $c
  expect 0 '' "$H" $c --help
done
expect 2 'needs a value' "$H" dump "$basic" --from
expect 2 'unknown format' "$H" dump --from pdf "$basic"
expect 2 'non-negative' "$H" dump --limit -3 "$basic"
expect 2 'one input file' "$H" dump "$basic" "$basic"
expect 2 'read one trace' "$H" stats --sites "$basic" "$basic"
expect 2 'takes two traces, OLD and NEW' "$H" stats --diff "$basic"
expect 2 'not with --timeline' "$H" stats --diff --timeline "$basic" "$basic"
expect 2 'missing -o' "$H" convert --from text "$basic"
expect 2 'is not count, bytes, peak, at-peak, leaked or temporary' "$H" stats --sites --sort size "$basic"
expect 2 '--folded goes with --sites' "$H" stats --folded "$basic"
expect 2 'choose one' "$H" stats --sites --folded --json "$basic"
expect 2 'is not stack, function or line' "$H" stats --sites --by module "$basic"
expect 2 '--by goes with --sites' "$H" stats --by function "$basic"
expect 2 'choose one' "$H" stats --sites --by function --folded "$basic"
expect 2 '--sort peak goes with --by stack' "$H" stats --sites --by line --sort peak "$basic"
expect 2 'three reports: choose one' "$H" stats --timeline --massif "$basic"
expect 2 'three reports: choose one' "$H" stats --sites --timeline "$basic"
expect 2 '--sort, --top and --folded go with --sites' "$H" stats --timeline --top 3 "$basic"
expect 2 'choose one' "$H" stats --massif --json "$basic"
expect 2 '--points goes with --timeline or --massif' "$H" stats --points 5 "$basic"
expect 2 '--points: 0 is not 1 to 100000' "$H" stats --timeline --points 0 "$basic"
expect 2 'non-negative' "$H" stats --timeline --points -1 "$basic"
expect 2 '--plain applies' "$H" convert --from text --plain "$basic" -o "$tmp/x"
expect 0 '' "$H" --version
expect 0 '' "$H" --help

# bad input: exit 1, one line naming the file and an offset
for c in dump stats validate; do
  expect 1 "$tmp/missing: offset 0: cannot open" "$H" $c "$tmp/missing"
done
: > "$tmp/empty"
expect 1 "empty: offset 0: empty file, not a hatrace container \\(use --from hatf1.0 or --from text\\)" "$H" dump "$tmp/empty"
expect 1 "empty: offset 0: empty file" "$H" dump --from text "$tmp/empty"
head -c 3000 /dev/urandom > "$tmp/garbage"
expect 1 "garbage: offset 0: not a hatrace container \\(use --from hatf1.0 or --from text\\)" "$H" stats "$tmp/garbage"
expect 1 "garbage: offset 0: not a text trace" "$H" stats --from text "$tmp/garbage"
expect 1 "garbage: offset [0-9]+: " "$H" stats --from hatf1.0 "$tmp/garbage"
expect 1 "garbage: offset [0-9]+: " "$H" convert --from hatf1.0 --to text "$tmp/garbage" -o "$tmp/g.txt"
[ -e "$tmp/g.txt" ] && { echo "FAIL convert left a partial output"; fails=$((fails+1)); }

# every cut of the HATF 1.0 stream inside a record is an error with an offset
size=$(stat -c %s "$tmp/ok.hatf1")
for cut in 1 2 5 9 23 45 $((size - 1)); do  # inside the mark, the first comment, a metadata record, the last record
  head -c $cut "$tmp/ok.hatf1" > "$tmp/cut.hatf1"
  expect 1 "cut.hatf1: offset [0-9]+: " "$H" dump --from hatf1.0 "$tmp/cut.hatf1"
done

# a text file cut inside a line, and bad lines, name the line's offset and column
head -c 150 "$basic" > "$tmp/cut.txt"   # ends inside "1000 1 0 alloc 24 0x1000 ..."
printf '#hatrace-text 1\n1 1 0 alloc 24 0x10\n2 1 0 free 16\n' > "$tmp/bad.txt"
expect 1 'bad.txt: offset 36: line 3, column 12: address must be hex' "$H" dump --from text "$tmp/bad.txt"
printf '#hatrace-text 2\n' > "$tmp/v2.txt"
expect 1 'v2.txt: offset 0: text form .* is newer' "$H" dump --from text "$tmp/v2.txt"
{ printf '#hatrace-text 1\n'; head -c 140001 /dev/zero | tr '\0' ' '; } > "$tmp/long.txt"
expect 1 'long.txt: offset 16: line 2: longer than 140000 bytes' "$H" stats --from text "$tmp/long.txt"
"$H" dump --from text "$tmp/cut.txt" >/dev/null 2>&1; s=$?
[ $s -ge 128 ] && { echo "CRASH on a cut text file"; fails=$((fails+1)); }

# a truncated container: dump never crashes; cut inside the header it is one error line
csize=$(stat -c %s "$tmp/ok.hatf")
for cut in 4 8 20; do
  head -c $cut "$tmp/ok.hatf" > "$tmp/cut.hatf"
  expect 1 "cut.hatf: offset [0-9]+: " "$H" dump "$tmp/cut.hatf"
done
for cut in $((csize / 2)) $((csize - 1)); do
  head -c $cut "$tmp/ok.hatf" > "$tmp/cut.hatf"
  "$H" dump "$tmp/cut.hatf" >/dev/null 2>&1; s=$?
  [ $s -ge 128 ] && { echo "CRASH dump of container cut at $cut"; fails=$((fails+1)); }
  "$H" validate "$tmp/cut.hatf" > "$tmp/v.out" 2>&1; s=$?
  [ $s -ne 1 ] && { echo "FAIL validate of container cut at $cut: exit $s, want 1"; cat "$tmp/v.out"; fails=$((fails+1)); }
done

# replay: usage, allocators, outputs that cannot be written (checked before the
# runs, one line, nothing on stdout); traces with no operation run zero ops
expect 0 '' "$H" replay --help
expect 2 'missing input file' "$H" replay
expect 2 '--threads must be' "$H" replay --threads 2 "$basic"
expect 2 'must end in .png or .svg' "$H" replay --plot "$tmp/p.jpg" "$basic"
expect 1 "unknown allocator 'nosuch'" "$H" replay --allocator nosuch --from text "$basic"
expect 1 'missing.so: cannot read' "$H" replay --allocator "$tmp/missing.so" --from text "$basic"
for o in "--plot $tmp/no/p.png" "--series $tmp/no/s.csv"; do
  expect 1 "$tmp/no/.*: cannot write" "$H" replay --allocator null --from text $o "$basic"
  out=$("$H" replay --allocator null --from text $o "$basic" 2>/dev/null)
  [ -z "$out" ] || { echo "FAIL replay $o wrote to stdout"; fails=$((fails+1)); }
done
printf '#hatrace-text 1\n' > "$tmp/none.txt"
printf '#hatrace-text 1\n0 0 0 comment "only this"\n' > "$tmp/comments.txt"
for f in none comments; do
  out=$("$H" replay --allocator null --json --from text "$tmp/$f.txt" 2>&1); s=$?
  if [ $s -ne 0 ] || ! grep -q '"ops": 0, "calls": 0' <<< "$out"; then
    echo "FAIL replay of $f.txt: exit $s"; echo "$out"; fails=$((fails+1))
  fi
done

# replay --series -: not a file named "-" (standard output is the results')
expect 2 "series -: standard output takes the results" "$H" replay --allocator null --series - --from text "$basic"

# replay: a runner thread that cannot start (its stack refused under a small
# address-space limit) ends the run with an error, not a hang of the runners
# already started; with room for every thread it simply runs. The 200 threads
# are all alive at once (a runner thread each). Not under the sanitizers, whose
# shadow memory needs more address space than the limit.
if [ -z "${SANITIZE:-}" ]; then
  awk 'BEGIN { print "#hatrace-text 1"
               for (t = 1; t <= 200; t++) printf "%d %d 0 alloc 16 0x%x\n", t, t, 4096 * t
               for (t = 1; t <= 200; t++) printf "%d %d 0 free 0x%x\n", 200 + t, t, 4096 * t }' >"$tmp/threads.txt"
  (ulimit -v 300000; timeout 60 "$H" replay --allocator null --from text "$tmp/threads.txt") >/dev/null 2>"$tmp/err"; s=$?
  if [ $s -ne 0 ] && { [ $s -ne 1 ] || ! grep -q "runner: cannot start thread" "$tmp/err"; }; then
    echo "FAIL replay with too little room for its threads: exit $s"; cat "$tmp/err"; fails=$((fails+1))
  fi
fi

# record: a folder the traces cannot go to is refused before the command runs
# (exit 1, one line, nothing run); a trace file the library cannot create
# makes record exit 125, saying so and the command's own status
expect 1 "$tmp/nowhere: cannot write traces there: No such file or directory \(nothing was run\)" \
  "$H" record -o "$tmp/nowhere/x.hatf" -- touch "$tmp/ran"
[ -e "$tmp/ran" ] && { echo "FAIL record ran the command though its output folder is missing"; fails=$((fails+1)); }
expect 1 "$basic: cannot write traces there: not a folder" "$H" record -o "$basic/x.hatf" -- true
"$H" record -o "$tmp/$(printf 'n%.0s' $(seq 300)).hatf" -- sh -c 'exit 3' >/dev/null 2>"$tmp/err"; s=$?
if [ $s -ne 125 ] || ! grep -q "cannot create trace file" "$tmp/err" ||
   ! grep -q "^hatrace: 1 process ran untraced: the trace file could not be created (the command exited with 3); exit status 125$" "$tmp/err"; then
  echo "FAIL record into a name too long: exit $s"; cat "$tmp/err"; fails=$((fails+1))
fi

[ $fails -eq 0 ] && echo "cli_errors: all passed"
[ $fails -eq 0 ]
