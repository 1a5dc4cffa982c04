#!/usr/bin/env bash
# libhatf as a library others build on: `make install` into a scratch prefix
# (reusing the built tree $BUILD), then examples/count_events.c compiled
# against it with pkg-config, once shared (libhatf.so, found through
# LD_LIBRARY_PATH) and once static (libhatf.a), counts as many events as
# `hatrace stats` reports records; a program built with pkg-config's
# hatanalyze gets stats' records and peak from libhatanalyze. libhatf.so exports only hatf_* names and
# carries its soname; uninstall leaves nothing behind.
# Skipped (77) when pkg-config or a C compiler is missing.
set -u
fail() { echo "FAIL: $*"; exit 1; }
: "${BUILD:?}" "${HATRACE:?}"
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
CC=${CC:-cc}
command -v "$PKG_CONFIG" >/dev/null || { echo "no pkg-config"; exit 77; }
command -v "$CC" >/dev/null || { echo "no C compiler ($CC)"; exit 77; }
[ -x "$HATRACE" ] || fail "hatrace not built"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
P=$W/prefix

# install what $BUILD holds: with the contract checks if it was built with them (make test)
: "${CHECKS=$(grep -qe -DHATF_CHECKS "$BUILD/.flags" 2>/dev/null && echo 1)}"; export CHECKS
# the install: nothing to build, so quick (SANITIZE comes through the environment)
make -s install PREFIX="$P" B="$BUILD" >"$W/install.log" 2>&1 || { cat "$W/install.log"; fail "make install"; }
grep -q '^  \(CC\|LD\|AR\) ' "$W/install.log" && fail "make install rebuilt: $(grep -m3 '^  \(CC\|LD\|AR\) ' "$W/install.log")"
export PKG_CONFIG_PATH=$P/lib/pkgconfig
ver=$(sed -n 's/^#define HATF_VERSION_\(MAJOR\|MINOR\|PATCH\)  *\([0-9]*\).*/\2/p' include/hatf_version.h | paste -sd.)
major=${ver%%.*}
[ "$("$PKG_CONFIG" --modversion hatf)" = "$ver" ] || fail "hatf.pc version $("$PKG_CONFIG" --modversion hatf), header $ver"
[ "$("$PKG_CONFIG" --variable=prefix hatf)" = "$P" ] || fail "hatf.pc prefix: $("$PKG_CONFIG" --variable=prefix hatf)"
for f in libhatf.a "libhatf.so.$ver" include/hatf_version.h include/hatf_api.h include/hatf_source.h; do
  case $f in include/*) p=$P/$f;; *) p=$P/lib/$f;; esac
  [ -f "$p" ] || fail "not installed: $f"
done
[ "$(readlink "$P/lib/libhatf.so")" = "libhatf.so.$major" ] || fail "libhatf.so -> $(readlink "$P/lib/libhatf.so")"
[ "$(readlink "$P/lib/libhatf.so.$major")" = "libhatf.so.$ver" ] || fail "libhatf.so.$major -> $(readlink "$P/lib/libhatf.so.$major")"

# the library's face: its soname, and hatf_* names only, with the HATF 1.0
# codec's hatf1_* that include/hatf.h declares (the version node aside)
so=$P/lib/libhatf.so.$ver
readelf -d "$so" | grep -q "SONAME.*\[libhatf\.so\.$major\]" || fail "soname: $(readelf -d "$so" | grep SONAME)"
nm -D --defined-only "$so" | awk '{print $NF}' | sed 's/@.*//' >"$W/syms"
grep -q '^hatf_source_open$' "$W/syms" || fail "hatf_source_open not exported"
grep -q '^hatf_version$' "$W/syms" || fail "hatf_version not exported"
codec=$(grep -o '\bhatf1_[a-z_0-9]*(' include/hatf.h | tr -d '(' | grep -v '_$' | sort -u)
for f in $codec; do grep -qx "$f" "$W/syms" || fail "$f (include/hatf.h) not exported"; done
bad=$(grep -v -e '^hatf_' -e '^HATF_[0-9A-Z_]*$' "$W/syms" | grep -vxF -f <(echo "$codec"))
[ -z "$bad" ] || fail "exported beyond hatf_* and the codec: $(tr '\n' ' ' <<<"$bad")"

# a small trace with every kind of record and a comment (stats counts it as a record)
txt=tests/golden/inputs/basic.txt
"$HATRACE" convert --from text "$txt" -o "$W/t.hatf" || fail "convert"
want=$("$HATRACE" stats --json "$W/t.hatf" | sed -n 's/^ *"records": *\([0-9]*\),*$/\1/p')
[ "${want:-0}" -gt 0 ] || fail "no records count from stats"

# (a) shared
# shellcheck disable=SC2046  # pkg-config's flags are meant to split
"$CC" -Wall -Wextra -Werror -o "$W/count_shared" examples/count_events.c \
  $("$PKG_CONFIG" --cflags --libs hatf) 2>"$W/cc.err" || fail "shared build: $(cat "$W/cc.err")"
readelf -d "$W/count_shared" | grep -q "NEEDED.*\[libhatf\.so\.$major\]" || fail "shared build does not need libhatf.so.$major"
got=$(LD_LIBRARY_PATH=$P/lib "$W/count_shared" "$W/t.hatf") || fail "count_shared failed"
[ "$got" = "$want" ] || fail "shared: $got events, stats says $want records"
got=$(LD_LIBRARY_PATH=$P/lib "$W/count_shared" "$txt" text) || fail "count_shared (text) failed"
[ "$got" = "$want" ] || fail "shared, text form: $got events, stats says $want records"

# (b) static: libhatf.a, then what it needs (pkg-config --static)
libs=$("$PKG_CONFIG" --static --libs hatf)
libs=${libs/-lhatf/-Wl,-Bstatic -lhatf -Wl,-Bdynamic}
# shellcheck disable=SC2046,SC2086
"$CC" -Wall -Wextra -Werror ${SANITIZE:+-fsanitize=$SANITIZE} -o "$W/count_static" examples/count_events.c \
  $("$PKG_CONFIG" --cflags hatf) $libs 2>"$W/cc.err" || fail "static build: $(cat "$W/cc.err")"
readelf -d "$W/count_static" | grep -q 'NEEDED.*libhatf' && fail "static build needs libhatf.so"
got=$("$W/count_static" "$W/t.hatf") || fail "count_static failed"
[ "$got" = "$want" ] || fail "static: $got events, stats says $want records"

# (c) libhatanalyze through its pkg-config name: its figures of the trace
# are stats' (the records, the peak)
[ "$("$PKG_CONFIG" --modversion hatanalyze)" = "$ver" ] || fail "hatanalyze.pc version $("$PKG_CONFIG" --modversion hatanalyze)"
cat >"$W/figures.c" <<'C'
#include <stdio.h>
#include <hatan_api.h>
int main(int argc, char **argv)
{
    hatan_figures f;
    hatf_err err;
    if (argc < 2 || hatan_stats_file(argv[1], HATF_FMT_AUTO, 1, 1, &f, &err) < 0) return 1;
    printf("%llu %llu\n", (unsigned long long)f.records, (unsigned long long)f.max_live_bytes);
    return 0;
}
C
# shellcheck disable=SC2046  # pkg-config's flags are meant to split
"$CC" -Wall -Wextra -Werror -o "$W/figures" "$W/figures.c" $("$PKG_CONFIG" --cflags --libs hatanalyze) \
  2>"$W/cc.err" || fail "hatanalyze build: $(cat "$W/cc.err")"
readelf -d "$W/figures" | grep -q "NEEDED.*\[libhatanalyze\.so\.$major\]" || fail "does not need libhatanalyze.so.$major"
peak=$("$HATRACE" stats --json "$W/t.hatf" | sed -n 's/^ *"max_live_bytes": *\([0-9]*\),*$/\1/p')
got=$(LD_LIBRARY_PATH=$P/lib "$W/figures" "$W/t.hatf") || fail "figures failed"
[ "$got" = "$want $peak" ] || fail "libhatanalyze: '$got', stats says '$want $peak'"

# uninstall: nothing of ours is left (the folders stay)
make -s uninstall PREFIX="$P" B="$BUILD" >/dev/null 2>&1 || fail "make uninstall"
left=$(find "$P" ! -type d)
[ -z "$left" ] || fail "left after uninstall: $(tr '\n' ' ' <<<"$left")"
echo "ok: $want events, shared and static, libhatf $ver; libhatanalyze by pkg-config"
