#!/usr/bin/env bash
# C++ frames by name (tests/workloads/stacks_cxx.cc): the site report (with
# each site's temporary allocations) and
# dump --stacks show them demangled, as c++filt would, and as the symbol table
# has them with --no-demangle; JSON gives both. --folded writes one line per
# call chain, outermost first, whose figures add up to the report's own totals;
# the sites' bytes at the heap's peak add up to stats' max_live_bytes.
. "$(dirname "$0")/record_lib.inc"
need_tools
record_stacks "$BUILD/workloads/stacks_cxx" "$W/c.hatf"
validate_all "$W/c.hatf"

"$HATRACE" stats --sites --top 0 "$W/c.hatf" >"$W/sites.txt" || fail "stats --sites"
# the site of each function, by its demangled name: calls, leaked objects and
# temporary allocations (each Basket is deleted before the next allocation; 25
# of the 30 crates are, the 5 kept ones are not)
site_of() { # FRAME-PREFIX FILE -> "calls leaked temporary"
  awk -v want="$1" '/^#[0-9]+ stack/ { calls = $4; for (i = 1; i < NF; i++) { if ($i == "leaked") leaked = $(i + 1)
                                                                          if ($i == "temporary") temp = $(i + 1) } }
       index($0, "    at " want) == 1 { print calls, leaked, temp }' "$2"
}
[ "$(site_of 'shop::Store::open(int)+0x' "$W/sites.txt")" = "120 0 120" ] ||
  { cat "$W/sites.txt"; fail "shop::Store::open(int): want 120 calls, 0 leaked, 120 temporary"; }
[ "$(site_of 'shop::Crate* shop::restock<shop::Crate>(unsigned long)+0x' "$W/sites.txt")" = "30 5 25" ] ||
  { cat "$W/sites.txt"; fail "restock<shop::Crate>: want 30 calls, 5 leaked, 25 temporary"; }
# operator new is interposed (one event, func=new): a stack starts at its caller
grep -A1 -E '^#[0-9]+ stack' "$W/sites.txt" | grep -qF '    at shop::Store::open(int)+' ||
  fail "the open site's first frame is not shop::Store::open(int)"
if grep -qF 'at operator new' "$W/sites.txt"; then fail "operator new's own frame in a stack"; fi
# shop::Ledger::note(int) from two callers: two sites, 11 and 7 calls, all temporary
[ "$(site_of 'shop::Ledger::note(int)+0x' "$W/sites.txt" | tr '\n' ' ')" = "11 0 11 7 0 7 " ] ||
  fail "shop::Ledger::note(int): want two sites of 11 and 7 calls"

# --no-demangle: the symbol table's names
"$HATRACE" stats --sites --top 0 --no-demangle "$W/c.hatf" >"$W/raw.txt" || fail "stats --no-demangle"
[ "$(site_of '_ZN4shop5Store4openEi+0x' "$W/raw.txt")" = "120 0 120" ] || fail "--no-demangle: _ZN4shop5Store4openEi"
grep -qF 'shop::' "$W/raw.txt" && fail "--no-demangle still demangles"
[ "$("$HATRACE" dump --stacks "$W/c.hatf" | grep -c '^#   at shop::Store::open(int)+')" = 120 ] ||
  fail "dump --stacks: shop::Store::open(int) under each of its 120 records"
[ "$("$HATRACE" dump --stacks --no-demangle "$W/c.hatf" | grep -c '^#   at _ZN4shop5Store4openEi+')" = 120 ] ||
  fail "dump --stacks --no-demangle"

# JSON: function as stored, demangled beside it
"$HATRACE" stats --sites --json --top 0 "$W/c.hatf" >"$W/sites.json" || fail "stats --sites --json"
python3 - "$W/sites.json" <<'PY' || fail "json demangled names"
import json, sys
s = json.load(open(sys.argv[1]))
fr = [f for x in s["top"] for f in x["frames"] if f["function"] == "_ZN4shop5Store4openEi"]
assert fr and all(f["demangled"] == "shop::Store::open(int)" for f in fr), fr
assert all(f["demangled"] == f["function"] for x in s["top"] for f in x["frames"] if f["function"] == "main")
PY

# --folded: the two chains, and every key's figures add up to the report's
"$HATRACE" stats --sites --folded "$W/c.hatf" >"$W/calls.folded" || fail "stats --folded"
grep -qx 'main;shop::Store::open(int) 120' <(sed 's/^.*;main;/main;/' "$W/calls.folded") ||
  { cat "$W/calls.folded"; fail "folded chain of shop::Store::open"; }
grep -qx 'main;shop::Crate\* shop::restock<shop::Crate>(unsigned long) 30' \
  <(sed 's/^.*;main;/main;/' "$W/calls.folded") || fail "folded chain of restock"
for key in count bytes leaked temporary at-peak; do
  "$HATRACE" stats --sites --folded --sort $key "$W/c.hatf" >"$W/$key.folded" || fail "--folded --sort $key"
  python3 - "$W/sites.json" "$W/$key.folded" $key <<'PY' || fail "--folded --sort $key does not add up"
import json, sys
s = json.load(open(sys.argv[1]))
field = {"count": "calls", "bytes": "bytes", "leaked": "leaked_bytes", "temporary": "temporary",
         "at-peak": "at_peak_bytes"}[sys.argv[3]]
want = sum(x[field] for x in s["top"])
got = sum(int(l.rsplit(" ", 1)[1]) for l in open(sys.argv[2]))
lines = open(sys.argv[2]).read().splitlines()
assert got == want and want > 0, (got, want)
assert len(lines) == len(set(l.rsplit(" ", 1)[0] for l in lines))  # one line per chain
PY
done
# --by function: one group per function (operator new skipped), its sites'
# figures summed; the groups hold every site once and add up to the sites
"$HATRACE" stats --sites --by function --json --top 0 "$W/c.hatf" >"$W/by.json" || fail "stats --sites --by function"
python3 - "$W/sites.json" "$W/by.json" <<'PY' || fail "--by function"
import json, sys
s, g = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
by = {x["function"]: x for x in g["top"]}
note, open_ = by["shop::Ledger::note(int)"], by["shop::Store::open(int)"]
assert (note["calls"], note["temporary"], note["bytes"], len(note["stacks"])) == (18, 18, 18 * 16, 2), note
assert (open_["calls"], open_["temporary"], len(open_["stacks"])) == (120, 120, 1), open_
assert not any(f.startswith("operator new") for f in by), list(by)
ids = sorted(i for x in g["top"] for i in x["stacks"])
assert ids == sorted(x["stack"] for x in s["top"]), (ids, [x["stack"] for x in s["top"]])
for field in ("calls", "bytes", "at_peak_bytes", "leaked_bytes", "temporary"):
    assert sum(x[field] for x in g["top"]) == sum(x[field] for x in s["top"]), field
PY
"$HATRACE" stats --sites --by function "$W/c.hatf" | grep -qE '^#[0-9]+ shop::Ledger::note\(int\): 18 calls, .*; 2 stacks$' ||
  fail "--by function: the text line of shop::Ledger::note(int)"

# what the sites held at the heap's peak adds up to stats' max_live_bytes
"$HATRACE" stats --json "$W/c.hatf" >"$W/stats.json" || fail "stats --json"
python3 - "$W/sites.json" "$W/stats.json" <<'PY' || fail "at_peak_bytes of the sites do not add up to max_live_bytes"
import json, sys
s, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert s["max_live_bytes"] == t["max_live_bytes"] == sum(x["at_peak_bytes"] for x in s["top"]) > 0
PY
echo "ok"
