#!/usr/bin/env bash
# Frame names from the sorted dynamic symbol tables (preload/symbols.c) against
# dladdr: with HATRACE_STACKS_CHECK=1 every frame the tables name (or leave
# unnamed) is asked of dladdr too, and not one may differ: on the workloads
# (a shared library, C++ with libstdc++, threads, signal handlers, deep chains)
# and, when there is one, on python3 (a large libpython, extension modules).
# The tables must answer for most frames (dladdr only outside the load map).
. "$(dirname "$0")/record_lib.inc"
need_tools
need_stack_workloads

check() { # name command...
  local name=$1; shift
  HATRACE_STACKS_CHECK=1 "$HATRACE" record --stacks=64 -o "$W/$name.%p.hatf" -- "$@" \
    >/dev/null 2>"$W/$name.err" || fail "$name: record: $(tail -3 "$W/$name.err")"
  if [ "$name" = cxx ]; then validate_rec_cxx "$W/$name".*.hatf; else validate_all "$W/$name".*.hatf; fi
  # "symbol check: D of C names differ from dladdr's (T of N frames named from the tables)"
  local differ checked tabled frames
  read -r differ checked tabled frames < <(awk '/symbol check: [0-9]+ of/ {
      d += $4; c += $6; t += substr($11, 2); n += $13 } END { print d + 0, c + 0, t + 0, n + 0 }' "$W/$name.err")
  [ "$differ" = 0 ] || fail "$name: $differ of $checked names differ from dladdr's: $(grep 'symbol check' "$W/$name.err" | head -2)"
  [ "$checked" -gt 0 ] && [ "$tabled" -gt 0 ] || fail "$name: $checked checked, $tabled named from the tables"
  [ $((checked * 10)) -ge $((frames * 9)) ] || fail "$name: $checked of $frames frames from the tables"
  echo "$name: $checked frames checked ($tabled named from the tables), 0 differ"
}
check sites "$BUILD/workloads/stacks_sites"
check cxx "$BUILD/workloads/rec_cxx"
check threads "$BUILD/workloads/rec_storm"
check signal "$BUILD/workloads/rec_signal"
check deep "$BUILD/workloads/stack_depth" malloc 60 200
# the interpreter itself, not a wrapper script that forks (pyenv's shims)
py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || py=
if [ -x "$py" ]; then
  PYTHONMALLOC=malloc check python "$py" -c '
import json, re, collections
d = {str(i): [i, str(i) * 3, (i, i + 1)] for i in range(3000)}
s = json.dumps(d); assert json.loads(s) == json.loads(s)
print(len(collections.Counter(re.findall(r"\d+", s))))'
fi
echo "stacks_symbols: ok"
