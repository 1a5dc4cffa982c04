#!/usr/bin/env bash
# corpus.sh — the recorder on a corpus of real programs nobody here wrote,
# Debian's own builds, installed by this script (apt-get, quiet when present):
#   single-threaded, allocation-bound
#     py_json py_regex py_churn  python3 (PYTHONMALLOC=malloc: every object
#                                through malloc) on bench/corpus/py_*.py
#     lua_tables                 lua5.4 on bench/corpus/tables.lua
#     perl_hashes                perl on bench/corpus/hashes.pl
#     cc1                        gcc -O2 -c of a C file bench/corpus/gen_c.py writes
#     sqlite                     sqlite3 :memory: on bench/corpus/insert_query.sql
#   multi-threaded servers under load (127.0.0.1 only, fixed request counts)
#     memcached                  4 threads, memcaslap (libmemcached-tools) 2 threads x 32
#     redis                      redis-server, redis-benchmark 16 clients, pipelined 16
#     rocksdb                    db_bench (rocksdb-tools), 4 threads, fill and read
#   short-lived (startup and exit cost)
#     git_log                    git log -p of this repository (a fixed commit's history)
#     sort                       sort of a generated text file
#     xz                         xz -1 of a part of it
# Each program runs natively, under LD_PRELOAD=libhatrace.so, under `hatrace
# record` (default options: its closing figures too), under `hatrace record
# --no-figures` (what the closing figures cost) and under heaptrack,
# interleaved in each of ROUNDS rounds (one more native run after the last, so
# every recording has a native run on each side). Per program, medians: wall
# time (servers: the client's throughput) and each mode's ratio to native; the
# recorder's CPU per event from the LD_PRELOAD run, split into the program's
# threads ((CPU - background - native CPU) / events; native: the mean of the
# two native runs that bracket it) and the background threads (the flusher's
# and the helper's CPU the recorder reports); bytes per event as recorded and
# after `hatrace convert --best` (round 1's LD_PRELOAD traces); dropped events
# and ring waits from `hatrace stats --json`'s container section of every
# LD_PRELOAD run's traces (whose event counts must equal what the recorder
# reported) and, for the dropped, record's summary line too. Then a table per regime, geometric means
# (every ratio as a slowdown, servers' as native throughput over the mode's; a
# CPU figure below 0.1 ns, noise on a program of few events, counts as 0.1),
# over all programs and over those of at least 1 M events (on the others the
# recorder's CPU per event is its start and exit spread over few events), and
# the bars of issue 35. Times: bench/corpus/run.py (wait4: wall and CPU to the
# microsecond, every thread and child).
#
#   bench/corpus.sh BUILD_DIR [ROUNDS]          (default ROUNDS 3; QUICK=1: 1)
#
# REGIME=idle|busy|both (default both): busy runs every program beside a second
# CPU-bound process (awk spinning) that keeps one core busy. QUICK=1 runs each
# program briefly (checking the script). PROGRAMS="py_json redis ..." runs a
# subset. RUN_LIMIT (600 s; QUICK 120) bounds every run: its process group is
# killed past it. Every figure is a median over the rounds; each program's line
# of rounds is printed before the tables.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH=/usr/sbin:/usr/bin:/sbin:/bin  # Debian's programs, not a user's shims
die() { echo "corpus.sh: $*" >&2; exit 1; }
[ $# -ge 1 ] || die "usage: bench/corpus.sh BUILD_DIR [ROUNDS]"
[ -d "$1" ] || die "$1: no such build directory (make -j2 B=$1)"
B=$(cd "$1" && pwd)
QUICK=${QUICK:-0}
ROUNDS=${2:-$([ "$QUICK" = 1 ] && echo 1 || echo 3)}
REGIME=${REGIME:-both}
LIMIT=${RUN_LIMIT:-$([ "$QUICK" = 1 ] && echo 120 || echo 600)}
HATRACE=$B/hatrace
LIB=$B/libhatrace.so
RUNPY=$ROOT/bench/corpus/run.py
[ -x "$HATRACE" ] && [ -f "$LIB" ] || die "$B: no hatrace or libhatrace.so in it (make -j2 B=$1)"
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive number: $ROUNDS"
case $REGIME in idle) REGIMES=idle;; busy) REGIMES=busy;; both) REGIMES="idle busy";;
  *) die "REGIME must be idle, busy or both: $REGIME";; esac
[ "$(id -u)" = 0 ] || die "needs root: it installs Debian packages with apt-get"
. bench/lib.sh  # median

ALL="py_json py_regex py_churn lua_tables perl_hashes cc1 sqlite memcached redis rocksdb git_log sort xz"
PROGRAMS=${PROGRAMS:-$ALL}
for p in $PROGRAMS; do [[ " $ALL " == *" $p "* ]] || die "unknown program $p (known: $ALL)"; done
kind_of() {
  case $1 in
    py_*|lua_tables|perl_hashes|cc1|sqlite) echo single;;
    memcached|redis|rocksdb) echo server;;
    *) echo short;;
  esac
}
pkgs_of() {
  case $1 in
    py_*) echo python3;; lua_tables) echo lua5.4;; perl_hashes) echo perl;; cc1) echo gcc;;
    sqlite) echo sqlite3;; memcached) echo memcached libmemcached-tools;;
    redis) echo redis-server redis-tools;; rocksdb) echo rocksdb-tools;; git_log) echo git;;
    sort) echo coreutils;; xz) echo xz-utils;;
  esac
}

# ---- packages -------------------------------------------------------------------
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
UPDATED=0
# install PKG: 0 when it is there (installed now or before), 1 when Debian has none
install() {
  installed "$1" && return 0
  if [ $UPDATED = 0 ]; then apt-get update -qq >/dev/null 2>&1 || echo "corpus.sh: apt-get update failed" >&2; UPDATED=1; fi
  apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [0-9]' || return 1
  echo "installing $1 from Debian..."
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$1" >/dev/null 2>&1 || return 1
}
install time || true
install python3 || die "python3 is needed (the timer bench/corpus/run.py)"
HAVE_HEAPTRACK=1
install heaptrack || HAVE_HEAPTRACK=0
MODES="native preload record nofig"
[ $HAVE_HEAPTRACK = 1 ] && MODES="$MODES heaptrack"
DROPPED_PROGS=""
kept=""
for p in $PROGRAMS; do
  ok=1
  for k in $(pkgs_of "$p"); do install "$k" || { ok=0; DROPPED_PROGS+="$p (no Debian package $k) "; break; }; done
  [ $ok = 1 ] && kept+="$p "
done
PROGRAMS=$kept

# ---- inputs ---------------------------------------------------------------------
W=$(mktemp -d "${TMPDIR:-/tmp}/corpus.XXXXXX")
HOG=
cleanup() {
  if [ -n "$HOG" ]; then kill "$HOG" 2>/dev/null || true; fi
  rm -rf "$W"
}
trap cleanup EXIT
mkdir -p "$W/in"
if [ "$QUICK" = 1 ]; then
  N_JSON=1 N_REGEX=2 N_CHURN=1 N_LUA=1 N_PERL=1 N_CC1=3 N_ROWS=20000
  N_MEMC=10000 N_REDIS=10000 N_ROCKS=3000 N_GIT=40 N_SORT=100000 N_XZ=200000
else
  N_JSON=12 N_REGEX=30 N_CHURN=10 N_LUA=10 N_PERL=12 N_CC1=24 N_ROWS=200000
  N_MEMC=100000 N_REDIS=100000 N_ROCKS=25000 N_GIT=400 N_SORT=1000000 N_XZ=2000000
fi
# git log -p of this repository up to a fixed commit (the main of the day the
# corpus was made), so the work does not grow with the history
GIT_REV=${GIT_REV:-b8f1064}
if [[ " $PROGRAMS " == *" git_log "* ]] && ! git -C "$ROOT" rev-parse -q --verify "$GIT_REV^{commit}" >/dev/null 2>&1; then
  DROPPED_PROGS+="git_log (commit $GIT_REV not in $(basename "$ROOT")'s history) "
  PROGRAMS=${PROGRAMS/git_log /}
fi
[ -n "$PROGRAMS" ] || die "no program left to run: $DROPPED_PROGS"
python3 bench/corpus/gen_c.py "$N_CC1" >"$W/in/gen.c"
sed "s/@ROWS@/$N_ROWS/g" bench/corpus/insert_query.sql >"$W/in/query.sql"
awk -v n="$N_SORT" 'BEGIN { srand(1); for (i = 0; i < n; i++) { k = 1 + int(rand() * 8); s = ""
  for (j = 0; j < k; j++) s = s sprintf("%c%c%c%d ", 97 + int(rand() * 26), 97 + int(rand() * 26), 97 + int(rand() * 26), int(rand() * 1000))
  print s } }' >"$W/in/words.txt"
head -c "$N_XZ" "$W/in/words.txt" >"$W/in/xz.txt"

# ---- the programs -----------------------------------------------------------------
# define PROG DIR PORT: sets ENVS (environment), CMD (the program, or the server),
# and for servers CLIENT, OPS (requests the client makes), READY and STOP
# (commands: is it up, stop it); rocksdb reports its own throughput (TP_FROM)
ENVS=() CMD=() CLIENT=()
define() {
  local p=$1 d=$2 port=$3
  ENVS=() CMD=() CLIENT=() OPS=0 READY=: STOP=: TP_FROM=client
  case $p in
    py_json|py_regex|py_churn)
      local n; case $p in py_json) n=$N_JSON;; py_regex) n=$N_REGEX;; *) n=$N_CHURN;; esac
      # Debian's interpreter, the package installed above: a python3 earlier on PATH may be
      # another build or a wrapper script (whose own process would be recorded too)
      ENVS=(PYTHONMALLOC=malloc) CMD=(/usr/bin/python3 "$ROOT/bench/corpus/$p.py" "$n");;
    lua_tables) CMD=(lua5.4 "$ROOT/bench/corpus/tables.lua" "$N_LUA");;
    perl_hashes) CMD=(perl "$ROOT/bench/corpus/hashes.pl" "$N_PERL");;
    cc1) CMD=(gcc -O2 -c "$W/in/gen.c" -o "$d/gen.o");;
    sqlite) CMD=(sqlite3 :memory: ".read $W/in/query.sql");;
    memcached)
      CMD=(memcached -u root -A -l 127.0.0.1 -p "$port" -U 0 -t 4 -m 256 -c 1024)
      CLIENT=(memcaslap -s "127.0.0.1:$port" -T 2 -c 32 -x "$N_MEMC") OPS=$N_MEMC
      READY="exec 3<>/dev/tcp/127.0.0.1/$port"
      STOP="exec 3<>/dev/tcp/127.0.0.1/$port && printf 'shutdown\r\n' >&3";;
    redis)
      CMD=(redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$d")
      CLIENT=(redis-benchmark -h 127.0.0.1 -p "$port" -n "$N_REDIS" -q -c 16 -P 16 -r 100000 -d 64
              -t set,get,lpush,lpop,sadd,hset) OPS=$((6 * N_REDIS))
      READY="redis-cli -h 127.0.0.1 -p $port ping | grep -q PONG"
      STOP="redis-cli -h 127.0.0.1 -p $port shutdown nosave";;
    rocksdb)
      CMD=(db_bench --db="$d/db" --benchmarks=fillrandom,readrandom,readwhilewriting --threads=4
           --num="$N_ROCKS" --value_size=100 --compression_type=none) TP_FROM=self;;
    git_log) CMD=(git -C "$ROOT" --no-pager log -p -n "$N_GIT" --output=/dev/null "$GIT_REV");;
    sort) ENVS=(LC_ALL=C) CMD=(sort -o /dev/null "$W/in/words.txt");;
    xz) CMD=(xz -T1 -1 -c "$W/in/xz.txt");;
  esac
}
# the prefix that runs a command in MODE, its trace or profile in DIR
PRE=()
prefix() {
  case $1 in
    native) PRE=(env "${ENVS[@]}");;
    # the library appends to the report file but never creates it (as hatrace record does, made first)
    preload) : >>"$2/report"
             PRE=(env "${ENVS[@]}" LD_PRELOAD="$LIB" HATRACE_OUTPUT="$2/t.hatf" HATRACE_REPORT="$2/report");;
    record) PRE=(env "${ENVS[@]}" "$HATRACE" record -o "$2/t.hatf" --);;
    nofig) PRE=(env "${ENVS[@]}" "$HATRACE" record --no-figures -o "$2/t.hatf" --);;
    heaptrack) PRE=(env "${ENVS[@]}" heaptrack -o "$2/h");;
  esac
}

# ---- one run ------------------------------------------------------------------------
declare -A WALL CPU TP EV BYTES DROP WAIT BG
MISMATCH=""
tail_of() { tail -n 5 "$@" 2>/dev/null | sed 's/^/    /' >&2; }
# run_one PROG MODE ROUND: the figures into the arrays under PROG.MODE.ROUND;
# 1 (with the reason on stderr) when the run failed
run_one() {
  local p=$1 m=$2 r=$3 key="$1.$2.$3" d="$W/$REG/$1.$2.$3" port spid i rc
  mkdir -p "$d"
  port=$((20000 + RANDOM % 20000))
  define "$p" "$d" "$port"
  prefix "$m" "$d"
  if [ ${#CLIENT[@]} -eq 0 ]; then
    (cd "$d" && exec "$RUNPY" "$d/time" "$LIMIT" "${PRE[@]}" "${CMD[@]}") >"$d/out" 2>"$d/err" && rc=0 || rc=$?
    [ $rc = 0 ] || { echo "$p $m round $r: exit $rc" >&2; tail_of "$d/err"; return 1; }
  else
    (cd "$d" && exec "$RUNPY" "$d/time" "$LIMIT" "${PRE[@]}" "${CMD[@]}") >"$d/out" 2>"$d/err" &
    spid=$!
    for i in $(seq 300); do
      (eval "$READY") >/dev/null 2>&1 && break
      kill -0 $spid 2>/dev/null || break
      sleep 0.1
    done
    if ! (eval "$READY") >/dev/null 2>&1; then
      echo "$p $m round $r: the server did not answer on 127.0.0.1:$port" >&2
      # a server says why it stopped on its stdout (redis: a port already taken)
      kill -TERM $spid 2>/dev/null || true; wait $spid 2>/dev/null || true; tail_of "$d/out" "$d/err"; return 1
    fi
    "$RUNPY" "$d/ctime" "$LIMIT" "${CLIENT[@]}" >"$d/cout" 2>"$d/cerr" && rc=0 || rc=$?
    (eval "$STOP") >/dev/null 2>&1 || true
    if [ $rc != 0 ]; then
      echo "$p $m round $r: the client exited $rc" >&2; tail_of "$d/cout" "$d/cerr"
      kill -TERM $spid 2>/dev/null || true; wait $spid 2>/dev/null || true; return 1
    fi
    wait $spid && rc=0 || rc=$?
    [ $rc = 0 ] || { echo "$p $m round $r: the server exited $rc" >&2; tail_of "$d/err"; return 1; }
    TP[$key]=$(awk -v o="$OPS" '{ printf "%.6g", o / ($1 / 1e9) }' "$d/ctime")
  fi
  read -r WALL[$key] CPU[$key] <"$d/time"
  if [ "$TP_FROM" = self ]; then  # db_bench: "NAME : X micros/op Y ops/sec Z seconds N operations;"
    TP[$key]=$(awk '/ops\/sec .* seconds .* operations/ { for (i = 1; i < NF; i++) {
        if ($(i + 1) == "seconds") s += $i; if ($(i + 1) ~ /^operations/) o += $i } }
      END { if (s > 0) printf "%.6g", o / s }' "$d/out")
    [ -n "${TP[$key]}" ] || { echo "$p $m round $r: no throughput in db_bench's output" >&2; tail_of "$d/out"; return 1; }
  fi
  case $m in
    preload)
      [ -s "$d/report" ] || { echo "$p $m round $r: the recorder wrote no report" >&2; tail_of "$d/err"; return 1; }
      if grep -qE '^[FX] ' "$d/report"; then
        echo "$p $m round $r: a trace was not created or was cut:" >&2; grep -E '^[FX] ' "$d/report" | sed 's/^/    /' >&2; return 1
      fi
      read -r EV[$key] BYTES[$key] DROP[$key] WAIT[$key] BG[$key] < <(awk '$1 == "E" { e += $3; b += $4; d += $5; w += $6; c += $7 }
        END { print e + 0, b + 0, d + 0, w + 0, c + 0 }' "$d/report")
      # dropped events and ring waits as the traces say (stats --json's container
      # section), which must equal what the recorder reported
      local f c a x y se=0 sd=0 sw=0
      for f in "$d"/t*.hatf; do
        c=$("$HATRACE" stats --json "$f" 2>"$d/stats.err" | python3 -c 'import json, sys
c = json.load(sys.stdin)["container"]; print(c["events"], c["dropped"], c["ring_waits"])') ||
          { echo "$p $m round $r: hatrace stats --json $(basename "$f") failed" >&2; tail_of "$d/stats.err"; return 1; }
        read -r a x y <<<"$c"; se=$((se + a)) sd=$((sd + x)) sw=$((sw + y))
      done
      DROP[$key]=$sd WAIT[$key]=$sw
      [ "$se" = "${EV[$key]}" ] || MISMATCH+="$p $m round $r: stats reads $se events, the recorder reported ${EV[$key]}; ";;
    record|nofig)
      local s; s=$(grep -E '^hatrace: [0-9]+ traces?, ' "$d/err" | tail -1) || true
      [ -n "$s" ] || { echo "$p $m round $r: no summary line from hatrace record" >&2; tail_of "$d/err"; return 1; }
      # "hatrace: 1 trace, N events, SIZE (X bytes/event), D dropped, W ring waits"
      EV[$key]=$(echo "$s" | sed -nE 's/.* ([0-9]+) events,.*/\1/p')
      BYTES[$key]=$(echo "$s" | sed -nE 's/.*\(([0-9.]+) bytes\/event\).*/\1/p' | awk -v e="${EV[$key]}" '{ printf "%.0f", $1 * e }')
      DROP[$key]=$(echo "$s" | sed -nE 's/.* ([0-9]+) dropped.*/\1/p')
      WAIT[$key]=$(echo "$s" | sed -nE 's/.* ([0-9]+) ring waits.*/\1/p');;
  esac
  if [ "$m" != preload ] || [ "$r" != 1 ]; then rm -rf "$d"/t*.hatf "$d"/h "$d"/h.* "$d/db"; fi  # large
  return 0
}

# ---- figures --------------------------------------------------------------------------
f1() { awk -v x="$1" 'BEGIN { printf "%.1f", x }'; }
f2() { awk -v x="$1" 'BEGIN { printf "%.2f", x }'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "nan"; else printf "%.6g", a / b }'; }
vals() { local p=$1 m=$2 arr=$3 r v=""; local -n A=$arr; for r in $(seq "$ROUNDS"); do v+="${A[$p.$m.$r]} "; done; echo "$v"; }
med() { echo "$1" | median; }
# an event count: 12.3 M, 45 K
evs() { awk -v e="$1" 'BEGIN { if (e >= 1e6) printf "%.1f M", e / 1e6; else if (e >= 1e4) printf "%.0f K", e / 1e3; else printf "%d", e }'; }
geomean() { tr ' ' '\n' | grep -v -e '^$' -e nan | awk '{ x = $1 < 0.1 ? 0.1 : $1; s += log(x); n++ } END { if (n) printf "%.6g", exp(s / n); else print "nan" }'; }

# the recorder's CPU per event in round r (from the LD_PRELOAD run): "program
# background whole", ns; native CPU: the mean of rounds r and r + 1's native runs
cpu_split() {
  local p=$1 r=$2 q=$(($2 + 1)) k="$1.preload.$2"
  awk -v c="${CPU[$k]}" -v g="${BG[$k]}" -v e="${EV[$k]}" -v a="${CPU[$p.native.$r]}" -v b="${CPU[$p.native.$q]:-${CPU[$p.native.$r]}}" 'BEGIN {
    n = (a + b) / 2; if (e == 0) { print "nan nan nan"; exit }
    printf "%.2f %.2f %.2f\n", (c - g - n) / e, g / e, (c - n) / e }'
}

# measure PROG: its rounds, then round 1's traces checked and converted;
# fills the per-program results of this regime (RES_*), or marks it failed
declare -A FAILED RES
measure() {
  local p=$1 r m k ok=1 t0
  for r in $(seq "$ROUNDS"); do
    for m in $MODES; do run_one "$p" "$m" "$r" || { ok=0; break 2; }; done
  done
  [ $ok = 1 ] && { run_one "$p" native $((ROUNDS + 1)) || ok=0; }
  if [ $ok = 0 ]; then FAILED[$REG.$p]=1; rm -rf "$W/$REG/$p".*; return 0; fi
  # round 1's LD_PRELOAD traces through convert --best
  local d="$W/$REG/$p.preload.1" f best=0
  mkdir -p "$d/best"
  t0=$(date +%s%N)
  for f in "$d"/t*.hatf; do
    "$HATRACE" convert --best "$f" -o "$d/best/$(basename "$f")" >/dev/null 2>"$d/best.err" ||
      { echo "$p: hatrace convert --best $(basename "$f") failed:" >&2; tail_of "$d/best.err"; }
    best=$((best + $(stat -c %s "$d/best/$(basename "$f")" 2>/dev/null || echo 0)))
  done
  k="$p.preload.1"
  RES[$REG.$p.best]=$(div "$best" "${EV[$k]}")
  RES[$REG.$p.best_s]=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
  rm -rf "$d"/t*.hatf "$d/best"
  # medians
  local srv=0; [ "$(kind_of "$p")" = server ] && srv=1
  for m in $MODES; do
    if [ $srv = 1 ]; then RES[$REG.$p.$m]=$(med "$(vals "$p" "$m" TP)"); else RES[$REG.$p.$m]=$(med "$(vals "$p" "$m" WALL)"); fi
  done
  local hs="" bs="" ws="" h b w bpe="" drops=0 waits=""
  for r in $(seq "$ROUNDS"); do
    read -r h b w <<<"$(cpu_split "$p" "$r")"; hs+="$h " bs+="$b " ws+="$w "
    for m in preload record nofig; do
      k="$p.$m.$r"; bpe+="$(div "${BYTES[$k]}" "${EV[$k]}") "; drops=$((drops + ${DROP[$k]}))
    done
    waits+="${WAIT[$p.preload.$r]} "
  done
  RES[$REG.$p.hook]=$(med "$hs") RES[$REG.$p.bg]=$(med "$bs") RES[$REG.$p.whole]=$(med "$ws")
  RES[$REG.$p.hooks]=$hs RES[$REG.$p.bgs]=$bs RES[$REG.$p.wholes]=$ws
  RES[$REG.$p.bpe]=$(med "$bpe") RES[$REG.$p.bpes]=$bpe RES[$REG.$p.drop]=$drops RES[$REG.$p.waits]=$(med "$waits")
  RES[$REG.$p.events]=$(med "$(vals "$p" preload EV)")
  rm -rf "$W/$REG/$p".*
}

# the ratio of MODE to native for PROG: wall x (servers: throughput as a share of native's)
ratio() { div "${RES[$REG.$1.$2]}" "${RES[$REG.$1.native]}"; }
# slowdown (> 1 is slower): wall ratio, or native throughput over the mode's
slowdown() { if [ "$(kind_of "$1")" = server ]; then div "${RES[$REG.$1.native]}" "${RES[$REG.$1.$2]}"; else ratio "$1" "$2"; fi; }
# record against LD_PRELOAD alone, as a slowdown
rec_vs_pre() { if [ "$(kind_of "$1")" = server ]; then div "${RES[$REG.$1.preload]}" "${RES[$REG.$1.record]}"; else div "${RES[$REG.$1.record]}" "${RES[$REG.$1.preload]}"; fi; }

details() { # PROG: a line of every round
  local p=$1 m line="" srv=0
  [ "$(kind_of "$p")" = server ] && srv=1
  for m in $MODES; do
    if [ $srv = 1 ]; then line+=" $m $(vals "$p" "$m" TP | awk '{ for (i = 1; i <= NF; i++) printf "%.1f ", $i / 1e3 }')|"
    else line+=" $m $(vals "$p" "$m" WALL | awk '{ for (i = 1; i <= NF; i++) printf "%.3f ", $i / 1e9 }')|"; fi
  done
  printf '  %-12s %s %s\n' "$p" "$([ $srv = 1 ] && echo "kops/s:" || echo "wall s:")" "${line%|}"
  printf '  %-12s CPU/event (ns) program %s| background %s| whole %s| bytes/event %s| convert --best %s s\n' "" \
    "${RES[$REG.$p.hooks]}" "${RES[$REG.$p.bgs]}" "${RES[$REG.$p.wholes]}" "${RES[$REG.$p.bpes]}" \
    "${RES[$REG.$p.best_s]}"
}

# a mode's cell: wall time over native's ("1.23x"), for a server its
# throughput as a share of native's ("0.62 tp")
cell() {
  [ "$2" = heaptrack ] && [ $HAVE_HEAPTRACK = 0 ] && { echo -; return; }
  if [ "$(kind_of "$1")" = server ]; then echo "$(f2 "$(ratio "$1" "$2")") tp"; else echo "$(f2 "$(ratio "$1" "$2")")x"; fi
}
table() {
  local p k native
  GOOD="" BIG=""
  for p in $PROGRAMS; do
    [ -n "${FAILED[$REG.$p]:-}" ] && continue
    GOOD+="$p "
    awk -v e="${RES[$REG.$p.events]}" 'BEGIN { exit !(e >= 1e6) }' && BIG+="$p "
  done
  echo
  echo "Wall time over native's (x); servers: throughput as a share of native's (tp). Medians of $ROUNDS interleaved round(s)."
  echo
  echo "| program | events | native | LD_PRELOAD | record | record --no-figures | heaptrack | record / LD_PRELOAD | recorder CPU/event: program + background = whole (ns) | bytes/event recorded | after --best | dropped | ring waits |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  for p in $PROGRAMS; do
    if [ -n "${FAILED[$REG.$p]:-}" ]; then echo "| $p | failed (see above) ||||||||||||"; continue; fi
    k=$(kind_of "$p")
    if [ "$k" = server ]; then native="$(awk -v t="${RES[$REG.$p.native]}" 'BEGIN { printf "%.1f kops/s", t / 1e3 }')"
    else native="$(awk -v t="${RES[$REG.$p.native]}" 'BEGIN { printf "%.3f s", t / 1e9 }')"; fi
    printf '| %s | %s | %s | %s | %s | %s | %s | %sx | %s + %s = %s | %s | %s | %s | %s |\n' \
      "$p$([ "$k" = single ] || echo " ($k)")" "$(evs "${RES[$REG.$p.events]}")" "$native" \
      "$(cell "$p" preload)" "$(cell "$p" record)" "$(cell "$p" nofig)" "$(cell "$p" heaptrack)" "$(f2 "$(rec_vs_pre "$p")")" \
      "$(f1 "${RES[$REG.$p.hook]}")" "$(f1 "${RES[$REG.$p.bg]}")" "$(f1 "${RES[$REG.$p.whole]}")" \
      "$(f2 "${RES[$REG.$p.bpe]}")" "$(f2 "${RES[$REG.$p.best]}")" "${RES[$REG.$p.drop]}" "${RES[$REG.$p.waits]}"
  done
  georow all "geomean, all $(echo $GOOD | wc -w) programs"
  georow big "geomean, the $(echo $BIG | wc -w) of at least 1 M events"
}
# a table row of geometric means, every ratio as a slowdown (servers: native
# throughput over the mode's)
georow() {
  local set=$1 label=$2 p ps m wh="" bp="" bb="" rp="" line=""
  if [ "$set" = all ]; then ps=$GOOD; else ps=$BIG; fi
  [ -n "$ps" ] || return 0
  for m in preload record nofig heaptrack; do
    if [ $m = heaptrack ] && [ $HAVE_HEAPTRACK = 0 ]; then line+="| - "; continue; fi
    line+="| $(f2 "$(for p in $ps; do echo "$(slowdown "$p" $m)"; done | geomean)")x slower "
  done
  for p in $ps; do rp+="$(rec_vs_pre "$p") " wh+="${RES[$REG.$p.whole]} " bp+="${RES[$REG.$p.bpe]} " bb+="${RES[$REG.$p.best]} "; done
  printf '| %s | | %s| %sx | whole %s | %s | %s | | |\n' "$label" "$line" "$(f2 "$(echo $rp | geomean)")" \
    "$(f1 "$(echo $wh | geomean)")" "$(f2 "$(echo $bp | geomean)")" "$(f2 "$(echo $bb | geomean)")"
}

# met OFFENDERS COUNT: the verdict on a bar over COUNT programs
met() { if [ "$2" = 0 ]; then echo "no program of this kind measured"; elif [ -z "$1" ]; then echo "met ($2 programs)"; else echo "not met: ${1%, }"; fi; }
above() { awk -v x="$1" -v y="$2" 'BEGIN { exit !(x > y) }'; }
bars() {
  local p k g all=0 ns=0 nv=0 over30="" st="" sv="" ov="" b15="" rp="" dr="" wh="" v noisy="" whb=""
  for p in $GOOD; do
    k=$(kind_of "$p") all=$((all + 1))
    # a program share under 0 (its native runs slower than its recorded ones) is the
    # machine's noise, not a cost: such a whole would pull the geomean down unseen
    if above 0 "${RES[$REG.$p.hook]}"; then noisy+="$p, "; else wh+="${RES[$REG.$p.whole]} "; fi
    above "${RES[$REG.$p.whole]}" 30 && over30+="$p $(f1 "${RES[$REG.$p.whole]}"), "
    if [ "$k" = single ]; then
      ns=$((ns + 1)) v=$(ratio "$p" preload); above "$v" 1.3 && st+="$p $(f2 "$v")x, "
    fi
    if [ "$k" = server ]; then
      nv=$((nv + 1)) v=$(ratio "$p" record); above 0.5 "$v" && sv+="$p $(f2 "$v") of native, "
      if [ $HAVE_HEAPTRACK = 1 ]; then
        v=$(div "${RES[$REG.$p.record]}" "${RES[$REG.$p.heaptrack]}"); above 5 "$v" && sv+="$p $(f2 "$v")x heaptrack's, "
        # the overheads (time per request beyond native's), heaptrack's over ours
        ov+="$p $(awk -v n="${RES[$REG.$p.native]}" -v h="${RES[$REG.$p.heaptrack]}" -v r="${RES[$REG.$p.record]}" \
          'BEGIN { o = 1 / r - 1 / n; if (o <= 0) print "inf"; else printf "%.1f", (1 / h - 1 / n) / o }')x, "
      fi
    fi
    above "${RES[$REG.$p.bpe]}" 1.5 && b15+="$p $(f2 "${RES[$REG.$p.bpe]}"), "
    v=$(rec_vs_pre "$p"); above "$v" 1.05 && rp+="$p $(f2 "$v")x, "
    [ "${RES[$REG.$p.drop]}" = 0 ] || dr+="$p ${RES[$REG.$p.drop]}, "
  done
  echo
  echo "bars ($REG):"
  if [ $all = 0 ]; then echo "* no program measured"; return 0; fi
  g=$(echo $wh | geomean)
  for p in $BIG; do [[ " ${noisy//,/} " == *" $p "* ]] || whb+="${RES[$REG.$p.whole]} "; done
  if [ -n "$noisy" ]; then
    echo "* recorder CPU per event, geomean <= 20 ns: not measured: the program's share came out negative (native runs slower than recorded ones) for ${noisy%, }; the others: $(f1 "$g")"
  else
    echo "* recorder CPU per event, geomean <= 20 ns: $(f1 "$g") ($(above "$g" 20 && echo "not met" || echo met))$([ -z "$BIG" ] ||
      echo "; the $(echo $BIG | wc -w) programs of at least 1 M events: $(f1 "$(echo $whb | geomean)")")"
  fi
  local big30=""; for p in $BIG; do above "${RES[$REG.$p.whole]}" 30 && big30+="$p, "; done
  echo "* no program above 30 ns: $(met "$over30" $all)$([ -z "$BIG" ] || echo "; of those of at least 1 M events: $(met "$big30" "$(echo $BIG | wc -w)")")"
  echo "* single-threaded allocation-bound <= 1.3x native under LD_PRELOAD: $(met "$st" $ns)"
  echo "* servers >= 0.5 of native throughput and >= 5x heaptrack's (hatrace record): $(met "$sv" $nv)"
  [ -z "$ov" ] || echo "  (heaptrack's overhead per request over hatrace record's: ${ov%, })"
  echo "* <= 1.5 bytes/event as recorded on every program: $(met "$b15" $all)"
  echo "* hatrace record <= 1.05x LD_PRELOAD (servers: throughput): $(met "$rp" $all)"
  echo "* 0 dropped (LD_PRELOAD and record runs): $(met "$dr" $all)"
  [ -z "$MISMATCH" ] || echo "* the traces' event counts (stats --json) differ from the recorder's: $MISMATCH"
}

# the machine's busy CPU seconds (all CPUs, /proc/stat) and this script's
# children's (bash's times), to tell how much else ran meanwhile
machine_busy() { awk '$1 == "cpu" { printf "%.2f", ($2 + $3 + $4 + $7 + $8 + $9) / 100; exit }' /proc/stat; }
# (times runs in the main shell: a subshell's children are its own)
our_cpu() { tail -1 "$W/times" | awk '{ for (i = 1; i <= 2; i++) { split($i, a, "m"); s += a[1] * 60 + a[2] } } END { printf "%.2f", s }'; }

echo "corpus.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $ROUNDS round(s)$([ "$QUICK" = 1 ] && echo ", QUICK"), modes: $MODES"
echo "build: $(git -C "$ROOT" log -1 --format='%h %s' 2>/dev/null | cut -c1-80)"
[ -z "$DROPPED_PROGS" ] || echo "dropped: $DROPPED_PROGS"
[ $HAVE_HEAPTRACK = 1 ] || echo "note: heaptrack not available from Debian: its column is empty"
for REG in $REGIMES; do
  mkdir -p "$W/$REG"
  if [ $REG = busy ]; then awk 'BEGIN { for (;;) x++ }' & HOG=$!; fi
  times >"$W/times"
  l0=$(cut -d' ' -f1-3 /proc/loadavg) m0=$(machine_busy) c0=$(our_cpu) t0=$(date +%s)
  echo
  echo "== regime: $REG$([ $REG = busy ] && echo " (a CPU-bound awk keeps one core busy)"), load before $l0"
  for p in $PROGRAMS; do
    measure "$p"
    if [ -n "${FAILED[$REG.$p]:-}" ]; then echo "  $p: FAILED, left out of this regime's figures"; else details "$p"; fi
  done
  if [ $REG = busy ]; then kill "$HOG"; wait "$HOG" 2>/dev/null || true; HOG=; fi
  times >"$W/times"
  t1=$(date +%s) m1=$(machine_busy) c1=$(our_cpu)
  echo "machine: load before $l0, after $(cut -d' ' -f1-3 /proc/loadavg); over $((t1 - t0)) s the CPUs were busy" \
    "$(awk -v a="$m0" -v b="$m1" 'BEGIN { printf "%.0f", b - a }') s, of which this script's runs" \
    "$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.0f", b - a }') s (the rest: other work on the machine)"
  table
  bars
done
