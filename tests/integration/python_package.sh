#!/usr/bin/env bash
# The Python package (python/hatrace) with Debian's python3 and its numpy,
# pandas, pytest, dask and distributed: python/tests against the hatrace
# command on the same traces (golden inputs, recordings of examples/kvstore;
# a Dask computation on a two-process local cluster), examples/dask_histogram.py,
# then the package as
# `make install` puts it, found and finding libhatf, libhatanalyze and hatrace
# without any environment variable. Skipped (77) when a Debian Python package is missing
# (scripts/install-deps.sh installs them).
set -u
fail() { echo "FAIL: $*"; exit 1; }
: "${BUILD:?}" "${HATRACE:?}"
PY=${PYTHON:-/usr/bin/python3}
cd "$(dirname "$0")/../.."
[ -x "$PY" ] || { echo "no $PY"; exit 77; }
"$PY" -c 'import numpy, pandas, pytest, dask.dataframe, distributed' 2>/dev/null ||
  { echo "Debian's python3-numpy, -pandas, -pytest, -dask or -distributed missing (scripts/install-deps.sh)"; exit 77; }
[ -x "$BUILD/examples/kvstore" ] && [ -f "$BUILD/libhatf.so" ] || fail "not built"
export PYTHONDONTWRITEBYTECODE=1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

HATRACE_LIBHATF=$BUILD/libhatf.so HATRACE_LIBHATANALYZE=$BUILD/libhatanalyze.so PYTHONPATH=python BUILD=$BUILD \
  timeout 600 "$PY" -m pytest -q -p no:cacheprovider -W ignore::DeprecationWarning python/tests ||
  fail "python/tests"

# the Dask example, on a local cluster of one worker: the histogram of the trace
mkdir -p "$W/traces"
"$HATRACE" convert --from text tests/golden/inputs/basic.txt -o "$W/traces/b.hatf" || fail "convert"
PYTHONPATH=python HATRACE_LIBHATF=$BUILD/libhatf.so HATRACE_LIBHATANALYZE=$BUILD/libhatanalyze.so timeout 300 "$PY" -W ignore::DeprecationWarning \
  examples/dask_histogram.py --workers 1 "$W/traces" >"$W/example.txt" 2>"$W/example.err" ||
  { cat "$W/example.err"; fail "examples/dask_histogram.py"; }
grep -q '^16..31  *1$' "$W/example.txt" && grep -q '^malloc  *2  *124$' "$W/example.txt" ||
  { cat "$W/example.txt"; fail "examples/dask_histogram.py: not the trace's histogram"; }

# install what $BUILD holds: with the contract checks if it was built with them (make test)
: "${CHECKS=$(grep -qe -DHATF_CHECKS "$BUILD/.flags" 2>/dev/null && echo 1)}"; export CHECKS
# installed: the package finds the libhatf and hatrace of its prefix
make -s install PREFIX="$W/p" B="$BUILD" PYTHON="$PY" >"$W/install.log" 2>&1 || { cat "$W/install.log"; fail "make install"; }
site=$(echo "$W"/p/lib/python3*/dist-packages)
[ -f "$site/hatrace/__init__.py" ] || fail "package not installed under $W/p/lib"
out=$(cd "$W" && env -u HATRACE -u HATRACE_LIBHATF -u HATRACE_LIBHATANALYZE PYTHONPATH="$site" "$PY" -c '
import sys, hatrace, hatrace._lib as L
t = hatrace.open(sys.argv[1])
df = t.to_pandas()
print(len(df), t.stats()["records"], hatrace.figures(df)["records"], L.lib()._name, L.analyze()._name,
      L.hatrace_command())' "$W/traces/b.hatf") ||
  fail "installed package"
[ "$out" = "14 14 14 $W/p/lib/libhatf.so.0 $W/p/lib/libhatanalyze.so.0 $W/p/bin/hatrace" ] ||
  fail "installed package said: $out"
make -s uninstall PREFIX="$W/p" B="$BUILD" PYTHON="$PY" >/dev/null || fail "make uninstall"
[ ! -e "$site/hatrace" ] || fail "uninstall left the package"
echo "python_package: ok"
