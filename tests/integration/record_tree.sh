#!/usr/bin/env bash
# A process tree: a shell that runs a pipeline, and a shim that execs the real
# program (as pyenv's does). Every process's trace keeps the .hatf extension and
# says which program and process it holds (x.PROGRAM.PID.hatf beside the first
# process's x.hatf), and record ends with one row per process: program, pid,
# parent, events, so the real program is found at a glance.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/rel_fsize   # N malloc/free pairs on two threads, prints "done N"
[ -x "$prog" ] || { echo "workload not built"; exit 77; }
name=$(basename "$prog")

# a pipeline: sh forks two children, each execs the program
mkdir "$W/pipe"
"$HATRACE" record -o "$W/pipe/x.hatf" -- sh -c '"$0" 300 | "$0" 200 >/dev/null' "$prog" >/dev/null 2>"$W/pipe.err" ||
  fail "record the pipeline: $(cat "$W/pipe.err")"
cat "$W/pipe.err"
for f in "$W"/pipe/*; do
  case "$(basename "$f")" in
    x.hatf | x.sh.[0-9]*.hatf | x."$name".[0-9]*.hatf) validate_all "$f" ;;
    *) fail "a trace named $(basename "$f")" ;;
  esac
done
[ "$(ls "$W"/pipe/x."$name".*.hatf | wc -l)" = 2 ] || fail "the pipeline's two programs: $(ls "$W/pipe")"
# the table: a row per trace, the program's two rows with their events, pids and parent
rows=$(sed -n '/^program  *pid  *ppid/,/^total/p' "$W/pipe.err")
[ "$(echo "$rows" | grep -c "$W/pipe/")" = "$(ls "$W/pipe" | wc -l)" ] || fail "record's table lists every trace"
sh_pid=$(echo "$rows" | awk -v f="$W/pipe/x.hatf" '$NF == f { print $2 }')
[ -n "$sh_pid" ] || fail "the first process's row"
for f in "$W"/pipe/x."$name".*.hatf; do
  pid=${f%.hatf}; pid=${pid##*.}
  row=$(echo "$rows" | awk -v f="$f" '$NF == f')
  [ "$(echo "$row" | awk '{ print $1, $2, $3 }')" = "$name $pid $sh_pid" ] || fail "row of $f: $row"
  [ "$(echo "$row" | awk '{ print $4 }')" -gt 400 ] || fail "row of $f: too few events: $row"
done

# a shim: the first process execs the real program under the same pid
mkdir "$W/shim"
"$HATRACE" record -o "$W/shim/x.hatf" -- sh -c 'exec "$0" 100' "$prog" >/dev/null 2>"$W/shim.err" ||
  fail "record the shim: $(cat "$W/shim.err")"
cat "$W/shim.err"
real=$(ls "$W"/shim/x."$name".*.hatf) || fail "the exec'd program's trace: $(ls "$W/shim")"
validate_all "$real"
shim_pid=$(sed -n '/^program  *pid/,/^total/p' "$W/shim.err" | awk -v f="$W/shim/x.hatf" '$NF == f { print $2 }')
[ "$real" = "$W/shim/x.$name.$shim_pid.hatf" ] || fail "the program a shim exec'd: $real, shim pid $shim_pid"
echo "record_tree: ok"
