"""Key figures of `hatrace stats` of a trace's events, computed by the C
function that computes stats' own (libhatanalyze's hatan_stats_columns,
which feeds the rows to analyze/stats.c), so they are stats' figures by
construction, by the rule stats counts live objects with (docs/tools.md,
"Live objects"). The tests still check them against `hatrace stats --json`
on the same traces."""

import ctypes

import numpy as np

from . import _lib

NAMES = ("records", "allocs", "frees", "free_null", "reallocs", "total_bytes", "max_live_objects",
         "max_live_bytes", "live_objects_at_end", "live_bytes_at_end")


def _codes(col):
    """A column of op codes: a categorical's codes, or the codes themselves."""
    cat = getattr(col, "cat", None)
    return np.asarray(cat.codes if cat is not None else col)


def figures(df):
    """records, allocs, frees, free_null, reallocs, total_bytes,
    max_live_objects, max_live_bytes, live_objects_at_end and
    live_bytes_at_end of one trace's events (a DataFrame of to_pandas(), or
    a structured array of events(), in their order), as stats --json names
    them. A dict of ints."""
    get = (lambda c: df[c].values) if hasattr(df, "columns") else (lambda c: df[c])
    cols = {c: np.ascontiguousarray(get(c), dtype=np.uint64) for c in ("heap", "size", "address", "old_address")}
    cols["op"] = np.ascontiguousarray(_codes(df["op"]), dtype=np.uint8)
    cols["failed"] = np.ascontiguousarray(get("failed"), dtype=np.uint8)
    c = _lib.Columns(stride=0, **{k: v.ctypes.data for k, v in cols.items()})
    out = _lib.Figures()
    rc = _lib.analyze().hatan_stats_columns(ctypes.byref(c), len(cols["op"]), ctypes.byref(out))
    if rc == _lib.E_NOMEM:
        raise MemoryError("hatrace.figures: out of memory")
    if rc:
        raise ValueError("hatrace.figures: an op column with a code that is no operation (op_names())")
    return {k: int(getattr(out, k)) for k in NAMES}
