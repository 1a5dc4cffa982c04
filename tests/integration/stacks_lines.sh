#!/usr/bin/env bash
# Source lines of frames (analyze/srclines.c): stats --sites and dump --stacks give
# each call's file:line from the module's debug information on this machine,
# the right line for known calls of tests/workloads/stacks_cxx.cc; JSON has
# them as file and line; functions inlined at a call are frames of their own;
# --no-lines leaves them out; and a module whose file
# is no longer the build the trace recorded (another build id), or is not a
# regular file, gives none.
. "$(dirname "$0")/record_lib.inc"
need_tools
src=$(cd "$(dirname "$0")/../workloads" && pwd)/stacks_cxx.cc
[ -x "$BUILD/workloads/stacks_cxx" ] && [ -x "$BUILD/workloads/rec_cxx" ] || { echo "workloads not built"; exit 77; }
cp "$BUILD/workloads/stacks_cxx" "$W/prog"
record_stacks "$W/prog" "$W/c.hatf"

# the lines of the calls, from the source itself
l_new=$(grep -n 'Basket \*b = new Basket();' "$src" | cut -d: -f1)
l_open=$(grep -n 'shop::Basket \*b = s.open(i);' "$src" | cut -d: -f1)
[ -n "$l_new" ] && [ -n "$l_open" ] || fail "lines not found in $src"

"$HATRACE" stats --sites --top 0 "$W/c.hatf" >"$W/sites.txt" || fail "stats --sites"
grep -qE "^    at shop::Store::open\(int\)\+0x[0-9a-f]+ \(prog\) .*stacks_cxx\.cc:$l_new\$" "$W/sites.txt" ||
  { cat "$W/sites.txt"; fail "shop::Store::open(int) at stacks_cxx.cc:$l_new"; }
grep -A1 -F 'at shop::Store::open(int)+' "$W/sites.txt" | grep -qE "^    at main\+0x[0-9a-f]+ \(prog\) .*stacks_cxx\.cc:$l_open\$" ||
  fail "main at stacks_cxx.cc:$l_open"
[ "$("$HATRACE" dump --stacks "$W/c.hatf" | grep -cE "^#   at shop::Store::open\(int\)\+0x[0-9a-f]+ \(prog\) .*stacks_cxx\.cc:$l_new\$")" = 120 ] ||
  fail "dump --stacks: the line under each of the 120 records"

"$HATRACE" stats --sites --json --top 0 "$W/c.hatf" >"$W/sites.json" || fail "stats --sites --json"
python3 - "$W/sites.json" "$l_new" <<'PY' || fail "json file and line"
import json, sys
s = json.load(open(sys.argv[1]))
fr = [f for x in s["top"] for f in x["frames"] if f["function"] == "_ZN4shop5Store4openEi"]
assert fr and all(f["file"].endswith("stacks_cxx.cc") and f["line"] == int(sys.argv[2]) for f in fr), fr
PY

"$HATRACE" stats --sites --top 0 --no-lines "$W/c.hatf" | grep -q 'stacks_cxx\.cc:' && fail "--no-lines still shows lines"

# --by line: the place is the function and its call's line
l_note=$(grep -n 'long \*e = new long\[2\];' "$src" | cut -d: -f1)
"$HATRACE" stats --sites --by line "$W/c.hatf" |
  grep -qE "^#[0-9]+ shop::Ledger::note\(int\) .*stacks_cxx\.cc:$l_note: 18 calls, .*; 2 stacks\$" ||
  fail "--by line: shop::Ledger::note(int) at stacks_cxx.cc:$l_note"

# inlined calls (tests/workloads/rec_cxx.cc, -O1): std::vector's push_back is
# inlined into main, and its growth path inlines the allocator into
# _M_realloc_insert; each inlined function is a frame of its own, at its line
"$HATRACE" record --stacks -o "$W/x.hatf" -- "$BUILD/workloads/rec_cxx" >/dev/null 2>&1 || fail "record rec_cxx"
l_push=$(grep -n 'v.push_back(new Obj());' "${src%/*}/rec_cxx.cc" | cut -d: -f1)
"$HATRACE" stats --sites --top 0 "$W/x.hatf" >"$W/x.txt" || fail "stats --sites rec_cxx"
grep -B1 -E "^    at main\+0x[0-9a-f]+ \(rec_cxx\) .*rec_cxx\.cc:$l_push\$" "$W/x.txt" |
  grep -qE '^    at std::vector<Obj\*, std::allocator<Obj\*> >::push_back\(Obj\*&&\) \(inlined\) .*stl_vector\.h:[0-9]+$' ||
  { cat "$W/x.txt"; fail "push_back inlined into main at rec_cxx.cc:$l_push"; }
grep -A1 -F '::allocate(unsigned long, void const*) (inlined)' "$W/x.txt" | grep -qF '::allocate(std::allocator<Obj*>&, unsigned long) (inlined)' ||
  fail "the allocator's inlined chain"
"$HATRACE" stats --sites --folded "$W/x.hatf" | grep -qF ';main;std::vector<Obj*, std::allocator<Obj*> >::emplace_back<Obj*>(Obj*&&);' &&
  fail "folded: inlined frames out of order"
"$HATRACE" stats --sites --folded "$W/x.hatf" | grep -qF ';main;std::vector<Obj*, std::allocator<Obj*> >::push_back(Obj*&&);Obj*& std::vector<Obj*, std::allocator<Obj*> >::emplace_back<Obj*>(Obj*&&);' ||
  fail "folded: main, then push_back, then emplace_back"
"$HATRACE" stats --sites --json --top 0 "$W/x.hatf" >"$W/x.json" || fail "json rec_cxx"
python3 - "$W/x.json" "$l_push" <<'PY' || fail "json inlined frames"
import json, sys
s = json.load(open(sys.argv[1]))
mains = [f for x in s["top"] for f in x["frames"] if f["function"] == "main" and f.get("inlined")]
assert any(f["line"] == int(sys.argv[2]) and f["inlined"][-1]["demangled"].endswith("::push_back(Obj*&&)")
           and f["inlined"][-1]["function"].startswith("_Z") for f in mains), mains
PY

# the file at the module's path is now another program: names stay (they are
# in the trace), lines go
cp "$BUILD/workloads/rec_cxx" "$W/prog"
"$HATRACE" stats --sites --top 0 "$W/c.hatf" >"$W/other.txt" || fail "stats --sites after the rebuild"
grep -q 'at shop::Store::open(int)+0x[0-9a-f]* (prog)$' "$W/other.txt" || { cat "$W/other.txt"; fail "name without a line"; }
grep -q '\.cc:[0-9]' "$W/other.txt" && fail "lines from a file of another build id"

# a trace names files: a FIFO or a directory at a module's path is not opened
# for reading (no hang), and gives no lines
for kind in fifo dir; do
  rm -f "$W/prog"
  if [ $kind = fifo ]; then mkfifo "$W/prog"; else mkdir "$W/prog"; fi
  timeout 60 "$HATRACE" stats --sites --top 0 "$W/c.hatf" >"$W/$kind.txt" || fail "stats --sites with a $kind at the module's path"
  grep -q 'at shop::Store::open(int)+0x[0-9a-f]* (prog)$' "$W/$kind.txt" || fail "$kind: name without a line"
  rm -rf "$W/prog"
done
echo "ok"
