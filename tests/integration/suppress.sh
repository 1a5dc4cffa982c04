#!/usr/bin/env bash
# Leak suppressions (cli/suppress.h) on tests/workloads/supp_leaks, whose
# leaks the program itself lists (keep_cache: 3 objects, 300 bytes;
# real_leak: 2, 100) beside libstdc++'s emergency pool: stats --sites and
# report take each suppression's leaks out of the sites' leaked figures and
# say what each hid (heaptrack's file shape: leak:PATTERN, # comments, with
# * ^ $); the built-in list hides libstdc++'s pool unless
# --no-builtin-suppressions; a trace without stacks is said to have none; a
# bad line or a missing file is one line naming it, exit 1.
. "$(dirname "$0")/record_lib.inc"
need_tools
prog=$BUILD/workloads/supp_leaks
[ -x "$prog" ] || { echo "workload supp_leaks not built"; exit 77; }
record_stacks "$prog" "$W/s.hatf"
"$prog" >"$W/want.txt" || fail "the workload"

# leaked_objects leaked_bytes over all sites, and the "suppressed" list as "origin objects bytes sites" lines
leaks() { python3 -c 'import json, sys; d = json.load(sys.stdin)
print(sum(s["leaked_objects"] for s in d["top"]), sum(s["leaked_bytes"] for s in d["top"]))
for x in d.get("suppressed", []): print(x["origin"], x["objects"], x["bytes"], x["sites"])'; }

"$HATRACE" stats --sites --json --top 0 --no-builtin-suppressions "$W/s.hatf" | leaks >"$W/none.txt" || fail "stats --sites"
"$HATRACE" stats --sites --json --top 0 "$W/s.hatf" | leaks >"$W/builtin.txt" || fail "stats --sites (built-in)"
read -r all_n all_b <"$W/none.txt"
[ "$(wc -l <"$W/none.txt")" = 1 ] || fail "--no-builtin-suppressions still lists suppressions: $(cat "$W/none.txt")"
# the built-in list hid one object, the pool, allocated from libstdc++ while it loaded
read -r origin pool_n pool_b pool_s < <(sed -n 2p "$W/builtin.txt")
[ "$origin $pool_n $pool_s" = "built-in 1 1" ] && [ "$pool_b" -gt 0 ] || fail "built-in: $(cat "$W/builtin.txt")"
[ "$(head -1 "$W/builtin.txt")" = "$((all_n - 1)) $((all_b - pool_b))" ] || fail "built-in: the leaks left $(head -1 "$W/builtin.txt")"
"$HATRACE" stats --sites --no-builtin-suppressions --sort leaked --top 0 "$W/s.hatf" |
  grep -B1 -A1 "leaked 1 objects ($pool_b bytes)" | grep -q '(libstdc++.so' || fail "the pool's site is not libstdc++'s"

# a file: a comment, a blank line, a substring, an anchored pattern with a wildcard, one that matches nothing
printf '%s\n' '# known leaks' 'leak:keep_cache' '' '  leak:^real_l*k(int)$  ' 'leak:no_such_function' >"$W/supp.txt"
"$HATRACE" stats --sites --json --top 0 --suppress "$W/supp.txt" "$W/s.hatf" | leaks >"$W/file.txt" || fail "--suppress"
read -r kc_n kc_b <<<"$(awk '$1 == "keep_cache" { print $2, $3 }' "$W/want.txt")"
read -r rl_n rl_b <<<"$(awk '$1 == "real_leak" { print $2, $3 }' "$W/want.txt")"
want="$((all_n - 1 - kc_n - rl_n)) $((all_b - pool_b - kc_b - rl_b))
$W/supp.txt:2 $kc_n $kc_b $kc_n
$W/supp.txt:4 $rl_n $rl_b $rl_n
$W/supp.txt:5 0 0 0
built-in 1 $pool_b 1"
[ "$(cat "$W/file.txt")" = "$want" ] || fail "--suppress: got
$(cat "$W/file.txt")
want
$want"
"$HATRACE" stats --sites --suppress "$W/supp.txt" "$W/s.hatf" >"$W/file.out" || fail "--suppress (text)"
grep -q "^  leak:keep_cache ($W/supp.txt:2): $kc_n objects ($kc_b bytes) in $kc_n sites$" "$W/file.out" ||
  fail "text: $(sed -n '/suppressed leaks/,$p' "$W/file.out")"
# report: the page's sites carry the same list, and its summary lists them
"$HATRACE" report --suppress "$W/supp.txt" "$W/s.hatf" -o "$W/r.html" 2>"$W/r.err" || {
  grep -q "built without the report's page" "$W/r.err" || fail "report --suppress: $(cat "$W/r.err")"; }
if [ -s "$W/r.html" ]; then
  grep -q "\"origin\": \"$W/supp.txt:2\", \"sites\": $kc_n, \"objects\": $kc_n, \"bytes\": $kc_b}" "$W/r.html" ||
    fail "report: no suppression of keep_cache in the page"
fi

# no stacks: said, nothing suppressed
"$HATRACE" record -o "$W/n.hatf" -- "$prog" >/dev/null 2>&1 || fail "record without stacks"
"$HATRACE" stats --sites --suppress "$W/supp.txt" "$W/n.hatf" >/dev/null 2>"$W/n.err" || fail "no stacks: exit $?"
grep -q "n.hatf: --suppress matches call stacks, and the trace has none (record it with --stacks): nothing suppressed" \
  "$W/n.err" || fail "no stacks: $(cat "$W/n.err")"
# bad files
printf '%s\n' '# ok' 'leak:a' 'frame:b' >"$W/bad.txt"
"$HATRACE" stats --sites --suppress "$W/bad.txt" "$W/s.hatf" >/dev/null 2>"$W/bad.err"; s=$?
[ $s = 1 ] && grep -q "bad.txt: line 3: 'frame:b' is not a suppression" "$W/bad.err" || fail "bad line: exit $s, $(cat "$W/bad.err")"
"$HATRACE" stats --sites --suppress "$W/nosuch" "$W/s.hatf" >/dev/null 2>"$W/bad.err"; s=$?
[ $s = 1 ] && grep -q "nosuch: cannot open the suppressions" "$W/bad.err" || fail "missing file: exit $s"
"$HATRACE" stats --suppress "$W/supp.txt" "$W/s.hatf" >/dev/null 2>&1; [ $? = 2 ] || fail "--suppress without --sites"
echo "suppress: ok"
