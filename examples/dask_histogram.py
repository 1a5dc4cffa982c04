#!/usr/bin/python3
"""Allocation sizes and bytes by function and by call stack over many traces,
with Dask: one partition per trace file, read where it is computed.

    PYTHONPATH=python examples/dask_histogram.py TRACES_DIR        # a local cluster
    PYTHONPATH=python examples/dask_histogram.py --workers 4 a.hatf b.hatf
    PYTHONPATH=python examples/dask_histogram.py --scheduler tcp://scheduler:8786 /shared/traces

Without --scheduler it starts a local cluster of worker processes
(distributed.LocalCluster). With --scheduler it joins a running cluster, as
distributed.Client("tcp://scheduler:8786") does: start one with
`dask-scheduler` on one machine and `dask-worker tcp://scheduler:8786` on
each of the others. Every worker must import the hatrace package (make
install, or PYTHONPATH) and load libhatf, and see the trace files at the
same paths (a shared file system), because each partition is read by the
worker that computes it.

It prints the size histogram of the allocations that made an object (the
buckets of `hatrace stats`: size 0, then [2^k, 2^(k+1)) bytes), the calls and
bytes per allocating function (malloc, calloc, new, ...: alloc and realloc
records), and the call stacks that allocated the most bytes (traces recorded
with --stacks; stack ids are per trace, so the rows are per trace and stack).
"""

import argparse
import sys

import numpy as np
import pandas as pd

import hatrace.dask

# 1, 2, 4, ..., 2^63: a size's bucket is how many of these are <= it
POWERS = np.array([1 << k for k in range(64)], dtype=np.uint64)


def size_bucket(sizes):
    """Each size's bucket: 0 for size 0, k + 1 for [2^k, 2^(k+1))."""
    return pd.Series(np.searchsorted(POWERS, sizes.values, side="right"), index=sizes.index)


def stack_bytes(part):
    """A partition's (one trace's) bytes per call stack that allocated."""
    made = part[part["stack"] != 0]
    s = made.groupby("stack")["size"].sum()
    trace = str(part["trace"].iloc[0]) if len(part) else ""
    return pd.DataFrame({"trace": [trace] * len(s), "stack": s.index.values, "bytes": s.values})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("traces", nargs="+", help="trace files, or a folder of *.hatf files")
    ap.add_argument("--scheduler", help="address of a running cluster's scheduler, e.g. tcp://scheduler:8786")
    ap.add_argument("--workers", type=int, default=2, help="local worker processes (without --scheduler)")
    ap.add_argument("--top", type=int, default=10, help="call stacks to show")
    args = ap.parse_args()

    import distributed
    if args.scheduler:
        client = distributed.Client(args.scheduler)
    else:
        client = distributed.Client(distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                                             processes=True, dashboard_address=None))
    paths = args.traces[0] if len(args.traces) == 1 else args.traces
    ddf = hatrace.dask.read_traces(paths)
    print("%d traces on %s" % (ddf.npartitions, client.scheduler.address))

    # the three computed together: each trace is read once
    allocs = ddf[(ddf["op"] == "alloc") & (ddf["address"] != 0)]
    hist = allocs["size"].map_partitions(size_bucket, meta=("size", "int64")).value_counts()
    made = ddf[ddf["op"].isin(["alloc", "realloc-inplace", "realloc-move", "realloc-new"]) & (ddf["address"] != 0)]
    by_fn = made.groupby("function")["size"].agg(["count", "sum"])
    meta = pd.DataFrame({"trace": pd.Series(dtype=object), "stack": pd.Series(dtype=np.uint64),
                         "bytes": pd.Series(dtype=np.uint64)})
    by_stack = made.map_partitions(stack_bytes, meta=meta).nlargest(args.top, "bytes")
    hist, by_fn, by_stack = client.compute([hist, by_fn, by_stack], sync=True)

    print("\n%-24s %12s" % ("alloc size", "count"))
    for b, n in hist.sort_index().items():
        if n:
            lo = 0 if b == 0 else 1 << (b - 1)
            hi = 0 if b == 0 else (1 << b) - 1
            print("%-24s %12d" % ("%d..%d" % (lo, hi), n))
    print("\n%-16s %12s %16s" % ("function", "calls", "bytes"))
    for fn, row in by_fn[by_fn["count"] > 0].sort_values("sum", ascending=False).iterrows():
        print("%-16s %12d %16d" % (fn, row["count"], row["sum"]))
    if len(by_stack):
        print("\n%-40s %8s %16s" % ("trace", "stack", "bytes"))
        for _, row in by_stack.iterrows():
            print("%-40s %8d %16d" % (row["trace"][-40:], row["stack"], row["bytes"]))
    else:
        print("\n(no call stacks: record with hatrace record --stacks)")
    client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
