"""Many traces as one Dask DataFrame, one partition per trace file.

    import hatrace.dask
    ddf = hatrace.dask.read_traces("traces/")          # a folder, a glob, or a list of paths
    ddf[ddf.op == "alloc"].groupby("function")["size"].sum().compute()
    hatrace.dask.trace_figures(ddf)                     # stats' key figures per trace

Each partition is Trace(path).to_pandas() with a first column "trace" (the
path, categorical, the same categories in every partition), read where the
partition is computed: a worker of a distributed cluster needs the package,
libhatf (libhatanalyze too for trace_figures) and the files at the same paths. A partition is a whole trace, in
its global time order, so figures that follow objects over time (live bytes,
peaks) are computed per partition.
"""

import glob
import os

import numpy as np
import pandas as pd

from .figures import NAMES, figures
from .trace import Trace, empty_frame


def _paths(paths):
    if isinstance(paths, (str, os.PathLike)):
        p = os.fspath(paths)
        if os.path.isdir(p):
            return sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".hatf"))
        found = sorted(glob.glob(p))
        return found if found else [p]
    return [os.fspath(p) for p in paths]


def _with_trace(df, path, paths):
    codes = np.full(len(df), paths.index(path) if len(df) else 0, dtype=np.int32)
    df.insert(0, "trace", pd.Categorical.from_codes(codes, categories=paths))
    return df


def _partition(path, paths, format, strict):
    return _with_trace(Trace(path, format=format, strict=strict).to_pandas(), path, paths)


def meta(paths):
    """The frame of no rows read_traces(paths)'s partitions have."""
    return _with_trace(empty_frame(), None, list(paths))


def read_traces(paths, format=None, strict=False):
    """A Dask DataFrame of the events of paths: a folder (its *.hatf files),
    a glob pattern, one path or a list of them; one partition per file, in
    that order, each in its global time order (Trace.to_pandas(), with the
    column "trace" first). format and strict as for Trace; nothing is read
    before compute."""
    import dask
    import dask.dataframe as dd
    paths = _paths(paths)
    if not paths:
        raise ValueError("no trace files")
    parts = [dask.delayed(_partition)(p, paths, format, strict) for p in paths]
    return dd.from_delayed(parts, meta=meta(paths), verify_meta=False)


def _figures_frame(df):
    if len(df) == 0:
        return pd.DataFrame({k: pd.Series(dtype=np.int64) for k in NAMES}, index=pd.Index([], name="trace"))
    f = figures(df)
    return pd.DataFrame({k: [f[k]] for k in NAMES}, index=pd.Index([df["trace"].iloc[0]], name="trace"))


def trace_figures(ddf, **compute_args):
    """stats' key figures (hatrace.figures) of each trace of read_traces'
    frame, one row per trace, computed by the partitions where they are
    (with the current Dask scheduler or client). A pandas DataFrame indexed
    by path."""
    m = pd.DataFrame({k: pd.Series(dtype=np.int64) for k in NAMES}, index=pd.Index([], name="trace", dtype=object))
    return ddf.map_partitions(_figures_frame, meta=m).compute(**compute_args)
