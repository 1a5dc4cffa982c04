"""hatrace.dask on a distributed cluster of two worker processes: per trace
the figures of stats --json, and over all traces the size histogram and the
functions stats counts, summed."""

import collections

import pytest

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

import hatrace  # noqa: E402
import hatrace.dask  # noqa: E402
from hatrace.figures import NAMES  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


def test_figures_per_trace(client, recorded, golden):
    paths = [str(p) for p in recorded] + [str(golden[0][1])]
    ddf = hatrace.dask.read_traces(paths)
    assert ddf.npartitions == len(paths)
    got = hatrace.dask.trace_figures(ddf)
    for p in paths:
        s = hatrace.open(p).stats()
        assert {k: int(got.loc[p, k]) for k in NAMES} == {k: s[k] for k in NAMES}, p


def test_histogram_and_functions(client, recorded):
    ddf = hatrace.dask.read_traces([str(p) for p in recorded])
    made = ddf[(ddf.op == "alloc") & (ddf.address != 0)]
    # stats' buckets: size 0, then [2^k, 2^(k+1))
    bucket = made["size"].map_partitions(lambda s: s.apply(int.bit_length), meta=("size", "int64"))
    hist = bucket.value_counts().compute()
    funcs = ddf[ddf.function != ""].groupby("function", observed=True).size().compute()
    want_h, want_f = collections.Counter(), collections.Counter()
    for p in recorded:
        s = hatrace.open(p).stats()
        for b in s["size_histogram"]:
            want_h[b["max"].bit_length() if b["max"] else 0] += b["count"]
        want_f.update(s["functions"])
    assert {int(k): int(v) for k, v in hist.items()} == dict(want_h)
    assert {k: int(v) for k, v in funcs.items() if v} == dict(want_f)
