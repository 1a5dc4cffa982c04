#!/usr/bin/env bash
# The man pages (docs/man, built into $BUILD/man with the version filled in):
#  - hatrace(1), libhatf(3) and libhatanalyze(3) render with man -l and with groff -man, with
#    every groff warning on, and print nothing on stderr; make install puts
#    them in PREFIX/share/man/man1 and man3, make uninstall removes them;
#  - hatrace(1) has a section (.SS under COMMANDS) for each command that
#    `hatrace --help` lists and no other, and for each command the long options
#    (--word tokens) of `hatrace CMD --help` are those of its section; the
#    SYNOPSIS, DESCRIPTION and OPTIONS sections hold those of `hatrace --help`.
#    So a new option or command without its man page text fails here;
#  - libhatf(3) names every symbol build/libhatf.so exports (nm -D), and
#    libhatanalyze(3) every one of build/libhatanalyze.so;
#  - libhatf(3)'s first example compiles against the built library and counts
#    the events of a trace as `hatrace stats` counts its records; libhatanalyze(3)'s
#    prints its peak of live bytes as stats --json does.
# Skipped (77) when neither man nor groff is installed.
set -u
fail() { echo "FAIL: $*"; exit 1; }
: "${BUILD:?}" "${HATRACE:?}"
CC=${CC:-cc}
command -v man >/dev/null || command -v groff >/dev/null || { echo "no man, no groff"; exit 77; }
cd "$(dirname "$0")/../.." || exit 1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export LC_ALL=C.UTF-8 MANWIDTH=80

pages=("$BUILD/man/hatrace.1" "$BUILD/man/libhatf.3" "$BUILD/man/libhatanalyze.3")
for p in "${pages[@]}"; do
  [ -f "$p" ] || fail "$p not built"
  if command -v man >/dev/null; then
    man --warnings=w -l "$p" >"$W/out" 2>"$W/err" || fail "man -l $p: $(cat "$W/err")"
    [ -s "$W/err" ] && fail "man -l $p warns: $(head -5 "$W/err")"
    grep -q '^NAME' "$W/out" || fail "man -l $p: no NAME section in $(head -3 "$W/out")"
  fi
  if command -v groff >/dev/null; then
    groff -man -Tutf8 -ww -z "$p" 2>"$W/err" || fail "groff $p: $(cat "$W/err")"
    [ -s "$W/err" ] && fail "groff -man $p warns: $(head -5 "$W/err")"
  fi
done

# install what $BUILD holds: with the contract checks if it was built with them (make test)
: "${CHECKS=$(grep -qe -DHATF_CHECKS "$BUILD/.flags" 2>/dev/null && echo 1)}"; export CHECKS
# make install puts them under PREFIX/share/man (man finds them there), uninstall takes them away
P=$W/prefix
make -s install PREFIX="$P" B="$BUILD" >"$W/install.log" 2>&1 || { cat "$W/install.log"; fail "make install"; }
for f in man1/hatrace.1 man3/libhatf.3 man3/libhatanalyze.3; do
  cmp -s "$P/share/man/$f" "$BUILD/man/${f#*/}" || fail "not installed: share/man/$f"
done
if command -v man >/dev/null; then
  [ "$(man -M "$P/share/man" -w 3 libhatf)" = "$P/share/man/man3/libhatf.3" ] || fail "man -M does not find libhatf(3)"
fi
make -s uninstall PREFIX="$P" B="$BUILD" >/dev/null 2>&1 || fail "make uninstall"
left=$(find "$P" ! -type d)
[ -z "$left" ] || fail "left after uninstall: $(tr '\n' ' ' <<<"$left")"

# --- options: hatrace --help against hatrace(1) ------------------------------
longopts() { grep -oE -- '--[a-z0-9][a-z0-9-]*' | sort -u; }
# the page's text per part, roff escapes undone: $W/sec/top (SYNOPSIS,
# DESCRIPTION, OPTIONS) and $W/sec/cmd.NAME (each .SS under COMMANDS)
mkdir -p "$W/sec"
awk -v dir="$W/sec" '
  /^\.\\"/ { next }
  /^\.SH/ { sh = $2; gsub(/"/, "", sh); ss = ""; next }
  /^\.SS/ { ss = $2; gsub(/"/, "", ss); if (sh == "COMMANDS") printf "" > (dir "/cmd." ss); next }
  {
    line = $0
    gsub(/\\-/, "-", line); gsub(/\\f[BIRP]/, "", line); gsub(/\\&/, "", line)
    if (sh == "COMMANDS" && ss != "") print line >> (dir "/cmd." ss)
    else if (sh == "SYNOPSIS" || sh == "DESCRIPTION" || sh == "OPTIONS") print line >> (dir "/top")
  }' docs/man/hatrace.1

"$HATRACE" --help >"$W/help" || fail "hatrace --help"
cmds=$(sed -n '/^commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p' "$W/help")
[ -n "$cmds" ] || fail "no commands in hatrace --help"
have=$(find "$W/sec" -name 'cmd.*' | sed 's|.*/cmd\.||')
[ "$(sort <<<"$cmds")" = "$(sort <<<"$have")" ] ||
  fail "commands: --help lists $(tr '\n' ' ' <<<"$cmds"), hatrace(1) has sections $(tr '\n' ' ' <<<"$have")"

bad=0
# same NAME HELP-FILE PAGE-FILE
same() {
  longopts <"$2" >"$W/a"; longopts <"$3" >"$W/b"
  if ! cmp -s "$W/a" "$W/b"; then
    echo "$1: only in --help: $(comm -23 "$W/a" "$W/b" | tr '\n' ' ')"
    echo "$1: only in hatrace(1): $(comm -13 "$W/a" "$W/b" | tr '\n' ' ')"
    bad=$((bad + 1))
  fi
}
same "hatrace" "$W/help" "$W/sec/top"
for c in $cmds; do
  "$HATRACE" "$c" --help >"$W/help.$c" 2>&1 || fail "hatrace $c --help"
  same "hatrace $c" "$W/help.$c" "$W/sec/cmd.$c"
done
[ "$bad" -eq 0 ] || fail "$bad parts of hatrace(1) name other long options than --help"

# --- libhatf(3) and libhatanalyze(3) name every function their library exports ---
command -v nm >/dev/null || fail "nm not found (binutils)"
named() { # LIB PAGE LEAST ONE: PAGE names each of LIB's exports (at least LEAST of them, ONE among them)
  nm -D --defined-only "$BUILD/$1" | awk '{ sub(/@.*/, "", $3); print $3 }' | sort -u >"$W/exported"
  [ "$(wc -l <"$W/exported")" -ge "$3" ] && grep -qx "$4" "$W/exported" ||
    fail "nm lists no exports of $BUILD/$1: $(head -3 "$W/exported")"
  : >"$W/unnamed"
  while read -r sym; do
    grep -qw -- "$sym" "docs/man/$2" || echo "$sym" >>"$W/unnamed"
  done <"$W/exported"
  [ ! -s "$W/unnamed" ] || fail "$2 does not name these exported functions: $(tr '\n' ' ' <"$W/unnamed")"
}
named libhatanalyze.so libhatanalyze.3 6 hatan_stats_columns
named libhatf.so libhatf.3 50 hatf_source_open

# --- libhatf(3)'s example ----------------------------------------------------
awk '/^\.EX/ { on = 1; next } /^\.EE/ { exit } on' docs/man/libhatf.3 |
  sed -e 's/\\e/\\/g' -e 's/\\-/-/g' >"$W/example.c"
grep -q hatf_source_open "$W/example.c" || fail "no example in libhatf(3)"
# shellcheck disable=SC2086  # SANITIZE flags as the build used them
"$CC" -std=gnu11 -Wall -Wextra -Werror ${SANITIZE:+-fsanitize=$SANITIZE} -Iinclude -o "$W/example" \
  "$W/example.c" "$BUILD/libhatf.a" -lzstd -lxxhash -lpthread -lm 2>"$W/cc.err" ||
  fail "libhatf(3) example does not build: $(head -5 "$W/cc.err")"
"$HATRACE" convert --from text tests/golden/inputs/basic.txt -o "$W/t.hatf" || fail "convert"
want=$("$HATRACE" stats --json "$W/t.hatf" | sed -n 's/^ *"records": *\([0-9]*\),*$/\1/p')
got=$("$W/example" "$W/t.hatf") || fail "the example failed: $got"
[ "$got" = "$want events (libhatf $(sed -n 's/^#define HATF_VERSION_\(MAJOR\|MINOR\|PATCH\)  *\([0-9]*\).*/\2/p' include/hatf_version.h | paste -sd.))" ] ||
  fail "the example says '$got', stats says $want records"

# --- libhatanalyze(3)'s example: the trace's peak, as stats --json says it -----
awk '/^\.EX/ { on = 1; next } /^\.EE/ { exit } on' docs/man/libhatanalyze.3 |
  sed -e 's/\\e/\\/g' -e 's/\\-/-/g' >"$W/peak.c"
grep -q hatan_stats_file "$W/peak.c" || fail "no example in libhatanalyze(3)"
# shellcheck disable=SC2086
"$CC" -std=gnu11 -Wall -Wextra -Werror ${SANITIZE:+-fsanitize=$SANITIZE} -Iinclude -Ianalyze -o "$W/peak" "$W/peak.c" \
  "$BUILD/libhatanalyze.so" "$BUILD/libhatf.so" -Wl,-rpath,"$BUILD" 2>"$W/cc.err" ||
  fail "libhatanalyze(3) example does not build: $(head -5 "$W/cc.err")"
want=$("$HATRACE" stats --json "$W/t.hatf" | sed -n 's/^ *"max_live_bytes": *\([0-9]*\),*$/\1/p')
got=$("$W/peak" "$W/t.hatf") || fail "the libhatanalyze(3) example failed: $got"
[ -n "$want" ] && [ "$got" = "$want" ] || fail "the libhatanalyze(3) example says '$got', stats says '$want'"
echo "ok: hatrace(1), libhatf(3) and libhatanalyze(3) render cleanly; the libraries' pages name their exported functions; options of $(wc -w <<<"$cmds") commands match --help; the examples work"
