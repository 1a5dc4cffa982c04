"""hatrace: heap traces as data.

    import hatrace
    t = hatrace.open("server.hatf")       # a container, a text trace, or format="hatf1.0"
    t.pid, t.cmdline, t.time_unit_ns, t.complete, t.threads, t.damage
    df = t.to_pandas()                    # one row per event, in global time order
    a = t.events()                        # the same as a NumPy structured array
    hatrace.figures(df)                   # records, allocs, max_live_bytes, ... of the rows, as stats'
    t.stats()                             # what `hatrace stats --json` says, parsed (libhatanalyze)

The events are decoded by libhatf (libhatf.so, through ctypes) in batches of
columns (hatf_source_read_columns); the columns are those of
`hatrace convert --to csv` (docs/tools.md). hatrace.dask reads many traces as
one Dask DataFrame. The library is looked for in $HATRACE_LIBHATF, the
checkout's build/ folder, where make install put it, and the loader's path.
figures() and Trace.stacks() call libhatanalyze (the figures and frames of the
hatrace commands, computed by the same C code), found the same way
($HATRACE_LIBHATANALYZE first).
"""

from .figures import figures
from .trace import (COLUMNS, EVENT_DTYPE, DamageWarning, HatraceError, Trace, empty_frame, function_codes,
                    function_names, op_names)

__all__ = ["COLUMNS", "EVENT_DTYPE", "DamageWarning", "HatraceError", "Trace", "empty_frame", "figures",
           "function_codes", "function_names", "op_names", "open"]


def open(path, format=None, strict=False, jobs=0):  # noqa: A001 (the package's open, as gzip.open)
    """The trace at path: Trace(path, format, strict, jobs)."""
    return Trace(path, format=format, strict=strict, jobs=jobs)
