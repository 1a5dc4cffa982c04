#!/usr/bin/env bash
# record_stacks.sh — the cost of call stacks, side by side in one run: native
# vs hatrace record vs hatrace record --stacks vs heaptrack (which always
# unwinds), on the programs of record_programs.sh (python3, redis-server), with
# the overhead of heaptrack over that of each hatrace mode (goal for --stacks: >= 2x).
#
#   bench/record_stacks.sh [BUILD_DIR [RUNS]]      (default: build 3)
exec "$(dirname "$0")/record_programs.sh" --stacks "$@"
