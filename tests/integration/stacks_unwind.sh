#!/usr/bin/env bash
# The stack walk from call-frame information (preload/unwind.c) against
# libunwind: with HATRACE_STACKS_CHECK=1 every stack it walks is unwound by
# libunwind too, and not one may differ, on programs with known chains, C++
# (exceptions, libstdc++), threads, signal handlers that allocate (their
# frames go to libunwind), and deep chains; the walk must do most stacks.
. "$(dirname "$0")/record_lib.inc"
need_tools
need_stack_workloads

check() { # name command...
  local name=$1; shift
  HATRACE_STACKS_CHECK=1 HATRACE_VERBOSE=1 "$HATRACE" record --stacks=64 -o "$W/$name.hatf" -- "$@" \
    >/dev/null 2>"$W/$name.err" || fail "$name: record: $(tail -3 "$W/$name.err")"
  if [ "$name" = cxx ]; then validate_rec_cxx "$W/$name.hatf"; else validate_all "$W/$name.hatf"; fi
  local walked unwound checked differ
  read -r walked unwound < <(awk '/stacks: [0-9]+ walked/ { w += $3; u += $(NF-2) } END { print w + 0, u + 0 }' "$W/$name.err")
  read -r checked differ < <(awk '/stack check: [0-9]+ of/ { d += $4; c += $6 } END { print c + 0, d + 0 }' "$W/$name.err")
  [ "$differ" = 0 ] || fail "$name: $differ of $checked walks differ from libunwind: $(grep 'stack check' "$W/$name.err" | head -2)"
  [ "$checked" = "$walked" ] && [ "$walked" -gt 0 ] || fail "$name: $walked walked, $checked checked"
  # libunwind only for what the walk does not describe (signal frames, the loader)
  [ $((unwound * 10)) -le "$walked" ] || fail "$name: $unwound stacks by libunwind, $walked walked"
  echo "$name: $walked walked, $unwound by libunwind, 0 differ"
}
check sites "$BUILD/workloads/stacks_sites"
check cxx "$BUILD/workloads/rec_cxx"
check threads "$BUILD/workloads/rec_storm"
check signal "$BUILD/workloads/rec_signal"
check deep "$BUILD/workloads/stack_depth" malloc 60 2000
echo "stacks_unwind: ok"
