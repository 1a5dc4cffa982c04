#!/usr/bin/env bash
# Files made from a trace (convert's text, CSV, Meta-TF and HATF 1.0, report's
# page, replay's series) take the trace's permission bits: a private 0600 trace gives private
# copies, whatever the umask (they carry its command line), where they were
# 0644 (0666 under umask 000); a trace others may read gives copies they may read.
set -u
H=${HATRACE:?}
here=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
mode() { stat -c %a "$1"; }

"$H" convert --from text "$here/golden/inputs/basic.txt" -o "$W/t.hatf" || { echo "cannot convert"; exit 1; }
[ "$(mode "$W/t.hatf")" = 600 ] || fail "the container is $(mode "$W/t.hatf"), not 600"
report=1
"$H" report "$W/t.hatf" -o "$W/probe.html" 2>"$W/err" || { grep -q "built without the report's page" "$W/err" && report=0; }

# derived UMASK TRACE WANT: every derived file of TRACE made under UMASK has mode WANT
derived() {
  local um=$1 in=$2 want=$3 f
  rm -f "$W"/out.*
  (umask "$um"
   for f in text csv metatf hatf1.0; do "$H" convert --to $f "$in" -o "$W/out.$f" || exit 1; done
   if [ $report -eq 1 ]; then "$H" report "$in" -o "$W/out.html" >/dev/null 2>&1 || exit 1; fi
   "$H" replay --allocator glibc --series "$W/out.series" "$in" >/dev/null 2>&1 || exit 1) ||
    { fail "convert or report of $in failed"; return; }
  for f in "$W"/out.*; do
    [ "$(mode "$f")" = "$want" ] || fail "umask $um, trace $(mode "$in"): $(basename "$f") is $(mode "$f"), want $want"
  done
  echo "umask $um, trace $(mode "$in"): $(ls "$W"/out.* | wc -l) files, mode $want"
}
derived 022 "$W/t.hatf" 600
derived 000 "$W/t.hatf" 600
chmod 644 "$W/t.hatf"
derived 022 "$W/t.hatf" 644
derived 077 "$W/t.hatf" 600
# from a pipe: as before (0666 less the umask)
(umask 022; "$H" convert --to text - -o "$W/pipe.txt" < "$W/t.hatf") || fail "convert from a pipe"
[ "$(mode "$W/pipe.txt")" = 644 ] || fail "from a pipe: $(mode "$W/pipe.txt"), want 644"

[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
echo "derived_private: modes follow the trace's"
