#!/usr/bin/env bash
# resident_truth.sh — issue 42's bar on the recorder's resident samples: per
# program, its native maximum resident size (/usr/bin/time -f %M), the shared
# pages in it (the libraries' and other files', read from /proc/PID/status near
# the peak: bench/resident_truth.py), the trace's peak resident
# (`hatrace stats --json`: container.max_resident_bytes, the recorder's own
# memory taken out), its peak live bytes, the ratio recorded / native (the
# largest RssAnon read where the program held its peak, else %M - shared)
# and pass/fail against "within 10 %, never below peak live" (the second half
# waived where the program is below its peak live natively too: it allocates
# more than it touches). Medians of ROUNDS
# runs each (resident sizes do not depend on the machine's speed, the sample
# times do: our workloads hold their peak).
#   bench/resident_truth.sh BUILD_DIR [ROUNDS]        (default 3)
# Programs: tests/workloads/resident_hold with 1 k, 30 k, 300 k and 1 M blocks
# of 64 bytes; Debian's python3 (PYTHONMALLOC=malloc) on bench/corpus/py_json.py
# and py_churn.py, sqlite3 on bench/corpus/insert_query.sql, lua5.4 on
# bench/corpus/tables.lua, git log -p of this repository (400 commits from a fixed
# one, mapping its packs), each when installed (bench/corpus.sh installs them).
# PROGRAMS="hold_1k py_json ..." runs a subset. Exit 1 when a program fails the bar.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
die() { echo "resident_truth.sh: $*" >&2; exit 2; }
[ $# -ge 1 ] && [ -d "$1" ] || die "usage: bench/resident_truth.sh BUILD_DIR [ROUNDS]"
B=$(cd "$1" && pwd); ROUNDS=${2:-3}
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive number: $ROUNDS"
HATRACE=$B/hatrace HOLD=$B/workloads/resident_hold TRUTH=$ROOT/bench/resident_truth.py
[ -x "$HATRACE" ] && [ -x "$HOLD" ] || die "$B: no hatrace or workloads/resident_hold (make -j2 B=$1 all tests)"
[ -x /usr/bin/time ] || die "needs /usr/bin/time (apt-get install time)"
. bench/lib.sh  # median
W=$(mktemp -d "${TMPDIR:-/tmp}/resident_truth.XXXXXX"); trap 'rm -rf "$W"' EXIT
sed "s/@ROWS@/50000/g" bench/corpus/insert_query.sql >"$W/query.sql"
GIT_REV=${GIT_REV:-b8f1064}  # as bench/corpus.sh: a fixed commit's history

ALL="hold_1k hold_30k hold_300k hold_1m py_json py_churn sqlite lua_tables git_log"
# the command of program $1 into CMD (empty when its interpreter is not installed)
command_of() {
  CMD=()
  case $1 in
    hold_1k) CMD=("$HOLD" 1000);; hold_30k) CMD=("$HOLD" 30000);;
    hold_300k) CMD=("$HOLD" 300000);; hold_1m) CMD=("$HOLD" 1000000);;
    py_json) [ -x /usr/bin/python3 ] && CMD=(/usr/bin/python3 "$ROOT/bench/corpus/py_json.py" 2);;
    py_churn) [ -x /usr/bin/python3 ] && CMD=(/usr/bin/python3 "$ROOT/bench/corpus/py_churn.py" 2);;
    sqlite) [ -x /usr/bin/sqlite3 ] && CMD=(/usr/bin/sqlite3 :memory: ".read $W/query.sql");;
    lua_tables) [ -x /usr/bin/lua5.4 ] && CMD=(/usr/bin/lua5.4 "$ROOT/bench/corpus/tables.lua" 2);;
    git_log) [ -x /usr/bin/git ] && git -C "$ROOT" rev-parse -q --verify "$GIT_REV^{commit}" >/dev/null &&
      CMD=(/usr/bin/git -C "$ROOT" --no-pager log -p -n 400 "$GIT_REV");;
  esac
  return 0
}
export PYTHONMALLOC=malloc  # every Python object through malloc, as the corpus runs it
for p in ${PROGRAMS:-$ALL}; do
  command_of "$p"
  [ ${#CMD[@]} -gt 0 ] || { echo "$p: not installed, skipped" >&2; continue; }
  m=() s=() a=() n=() r=() l=()
  for i in $(seq "$ROUNDS"); do
    read -r mk sk ak nk < <(python3 "$TRUTH" native "${CMD[@]}")
    m+=("$mk") s+=("$sk") a+=("$ak") n+=("$nk")
    rm -f "$W/t.hatf"
    "$HATRACE" record --no-figures -o "$W/t.hatf" -- "${CMD[@]}" >/dev/null 2>"$W/rec.err" ||
      die "$p: record failed: $(tail -1 "$W/rec.err")"
    read -r rb lb < <("$HATRACE" stats --json "$W/t.hatf" | python3 -c '
import json, sys
s = json.load(sys.stdin)
print(s["container"].get("max_resident_bytes", 0), s["max_live_bytes"])')
    r+=("$rb") l+=("$lb")
  done
  echo "$p $(echo "${m[@]}" | median) $(echo "${s[@]}" | median) $(echo "${a[@]}" | median)" \
       "$(echo "${n[@]}" | median)" \
       "$(echo "${r[@]}" | median) $(echo "${l[@]}" | median)" | tee -a "$W/rows" >&2
done
python3 "$TRUTH" table <"$W/rows"
