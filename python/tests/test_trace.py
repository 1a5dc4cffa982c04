"""The package against the hatrace command on the same traces: the DataFrame
against convert --to csv and dump, its figures against stats --json, the
header, threads, damage, the three formats."""

import os
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import hatrace
from hatrace.figures import NAMES

from conftest import INPUTS, run


def stats_figures(trace):
    s = trace.stats()
    return {k: s[k] for k in NAMES}


def test_figures_equal_stats_golden(golden):
    """Every golden input (every op, heaps destroyed with objects live, double
    frees, failed calls), as text and as a container."""
    for text, cont in golden:
        for p in (text, cont):
            t = hatrace.open(p)
            assert hatrace.figures(t.to_pandas()) == stats_figures(t), p
            assert hatrace.figures(t.events()) == stats_figures(t), p


def test_recorded_against_stats_and_dump(recorded, hatrace_cmd):
    for p in recorded:
        t = hatrace.open(p)
        df = t.to_pandas()
        assert hatrace.figures(df) == stats_figures(t)
        dumped = [ln for ln in run(hatrace_cmd, "dump", p).splitlines() if not ln.startswith("#")]
        assert len(df) == len(dumped)
        s = t.stats()
        assert t.counters["events"] == len(df) == s["records"]
        # the functions stats counts (a record without func is its plain call)
        got = df[df["function"] != ""]["function"].value_counts()
        assert {k: int(v) for k, v in got.items() if v} == s["functions"]


def test_header_threads(recorded):
    t = hatrace.open(recorded[0])
    assert t.format == "hatrace" and t.complete is True and t.damage == []
    assert t.pid > 0 and t.cmdline.split()[0].endswith("kvstore") and t.cmdline.endswith(" 5000")
    assert t.time_unit_ns == (1000, 1) and t.clock  # TSC or CLOCK_MONOTONIC
    df = t.to_pandas()
    ids = [i for i, _ in t.threads]
    assert len(ids) == 3 and all(name == "kvstore" for _, name in t.threads)
    assert set(ids) == set(df.loc[df["op"] != "comment", "thread"].unique())
    assert (df["time_ns"].values == df["time"].values * 1000).all()
    assert (np.diff(df["time"].values.astype(np.int64)) >= 0).all()  # global time order
    for tid in ids:
        one = t.to_pandas(thread=tid)
        assert one.equals(df[df["thread"] == tid])
        assert (t.events(thread=tid)["time"] == one["time"].values).all()


def test_csv_is_the_frame(golden, recorded, hatrace_cmd, tmp_path):
    for p in [golden[0][0], golden[-1][1], recorded[0]]:
        t = hatrace.open(p)
        csv = tmp_path / (os.path.basename(p) + ".csv")
        run(hatrace_cmd, "convert", "--from", t.format, "--to", "csv", p, "-o", csv)
        want = pd.read_csv(csv, keep_default_na=False, dtype=str)
        df = t.to_pandas()
        assert list(want.columns) == list(hatrace.COLUMNS) == list(df.columns)
        got = df.astype(str)
        got["stack"] = got["stack"].where(got["stack"] != "0", "")
        got["failed"] = df["failed"].astype(int).astype(str)
        assert got.reset_index(drop=True).equals(want), p


def test_structured_array_is_the_frame(recorded):
    t = hatrace.open(recorded[1])
    a, df = t.events(), t.to_pandas()
    assert a.dtype == hatrace.EVENT_DTYPE and len(a) == len(df)
    for c in hatrace.COLUMNS:
        col = df[c].cat.codes.values if c == "op" else df[c].values
        if c == "function":
            continue
        assert (a[c] == col).all(), c
    names = hatrace.function_names()
    assert (np.array(names, dtype=object)[hatrace.function_codes()[a["function"]]] == df["function"].astype(str).values).all()


def test_formats(golden, hatrace_cmd, tmp_path):
    text = INPUTS / "basic.txt"
    h1 = tmp_path / "basic.hatf1"
    run(hatrace_cmd, "convert", "--from", "text", "--to", "hatf1.0", text, "-o", h1)
    with pytest.raises(ValueError, match="format='hatf1.0'"):
        hatrace.open(h1)
    a, b = hatrace.open(h1, format="hatf1.0"), hatrace.open(text)
    assert a.format == "hatf1.0" and b.format == "text" and b.has_header is False
    assert a.to_pandas().equals(b.to_pandas())
    assert b.threads == [(1, None), (2, None)]
    with pytest.raises(hatrace.HatraceError, match="not a text trace"):
        hatrace.open(h1, format="text")
    # Meta-TF, known by its magic, read by its DTD: the same events
    mtf = tmp_path / "basic.mtf"
    run(hatrace_cmd, "convert", "--from", "text", "--to", "metatf", text, "-o", mtf)
    m = hatrace.open(mtf)
    assert m.format == "metatf"
    assert m.to_pandas().equals(b.to_pandas())


def test_damaged_container(recorded, tmp_path):
    """A container cut short reads on past its cut group, says so in damage,
    and its figures are still stats'; strict=True stops there instead."""
    cut = tmp_path / "cut.hatf"
    shutil.copy(recorded[2], cut)
    os.truncate(cut, os.path.getsize(cut) * 2 // 3)
    t = hatrace.open(cut)
    assert t.complete is False and t.damage
    with pytest.warns(hatrace.DamageWarning, match="cut.hatf: the trace is damaged or cut: .*offset [0-9]+: "):
        df = t.to_pandas()
    assert 0 < len(df) < hatrace.open(recorded[2]).counters["events"]
    assert hatrace.figures(df) == stats_figures(t)
    with pytest.raises(hatrace.HatraceError):
        bad = tmp_path / "bad.hatf"
        data = bytearray(recorded[2].read_bytes())
        data[len(data) // 3] ^= 0xFF  # inside a chunk: its checksum fails
        bad.write_bytes(bytes(data))
        hatrace.open(bad, strict=True).to_pandas()
    # read on past it by default, the damaged group listed and named in a
    # warning (a frame that looks whole would pass a loss off silently)
    t = hatrace.open(bad)
    with pytest.warns(hatrace.DamageWarning, match=r"bad.hatf: .*offset [0-9]+: .*(checksum|skipped)"):
        t.to_pandas()
    assert any("checksum" in d or "skipped" in d for d in t.damage)
    with pytest.warns(hatrace.DamageWarning):
        t.events()


def test_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        hatrace.open(tmp_path / "none.hatf")
    (tmp_path / "x").write_text("hello\n")
    with pytest.raises(ValueError):
        hatrace.open(tmp_path / "x")
    with pytest.raises(ValueError, match="unknown format"):
        hatrace.open(tmp_path / "x", format="csv")
    empty = hatrace.empty_frame()
    assert list(empty.columns) == list(hatrace.COLUMNS) and len(empty) == 0


@pytest.mark.filterwarnings("ignore::hatrace.DamageWarning")
def test_jobs_same_frame(recorded, tmp_path):
    """Read on one thread or several (jobs), the frame and the damage are the
    same, intact or damaged; a bad jobs value is refused."""
    bad = tmp_path / "bad.hatf"
    data = bytearray(recorded[2].read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad.write_bytes(bytes(data))
    for p in list(recorded) + [bad]:
        one = hatrace.open(p, jobs=1)
        df = one.to_pandas()
        assert len(df) > 0
        for j in (2, 4, 0):
            many = hatrace.open(p, jobs=j)
            assert many.to_pandas().equals(df), (p, j)
            assert many.damage == one.damage
    with pytest.raises(ValueError, match="jobs"):
        hatrace.open(recorded[0], jobs=-1)


def test_intact_does_not_warn(recorded):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hatrace.open(recorded[0]).to_pandas()


def test_out_of_memory(recorded, tmp_path, monkeypatch):
    """Memory the rows cannot get is the package's error, with the file and
    an offset, not NumPy's MemoryError or the OSError of a refused mapping."""
    import hatrace.trace as tr

    def refuse(*a, **k):
        raise OSError(12, "Cannot allocate memory")
    t = hatrace.open(recorded[0])
    monkeypatch.setattr(tr, "_zeros", refuse)
    with pytest.raises(hatrace.HatraceError, match=r"kv5000.hatf: offset [0-9]+: out of memory") as e:
        t.to_pandas()
    assert e.value.code == -1 and e.value.path.endswith("kv5000.hatf")


def test_lying_event_count(hatrace_cmd, tmp_path):
    """An index that claims 2^20 events for each of 2000 one-event groups (2^31
    in all): the rows are not taken from the claim (64 GB before), the two
    thousand events come, and the warning names the damage."""
    import sys
    sys.path.insert(0, str(INPUTS.parents[1] / "integration"))
    import hatf_craft as c
    one = tmp_path / "one.hatf"
    txt = tmp_path / "one.txt"
    txt.write_text("#hatrace-text 1\n10 1 0 alloc 24 0x1000\n20 2 0 free 0x1000\n")
    run(hatrace_cmd, "convert", "--from", "text", txt, "-o", one)
    h, ch = c.parse(one.read_bytes())
    groups = [x.copy(seq=k) for k in range(2000) for x in ch[:2]]
    lie = tmp_path / "lie.hatf"
    c.write(str(lie), h, groups, index=lambda placed: c.index_payload(
        [(off, x.copy(events=1 << 20)) for off, x in placed]))
    t = hatrace.open(lie)
    with pytest.warns(hatrace.DamageWarning, match="lie.hatf: .*ends after 1 of 1048576 events"):
        df = t.to_pandas()
    assert len(df) == 2000


def test_stacks_equal_stats_sites(hatrace_cmd, tmp_path):
    """Trace.stacks() of a recording with stacks (tests/workloads/stacks_sites:
    a static function, a shared library's, two threads) gives every site's
    frames as stats --sites --json does: the same addresses in the same
    order, the same names and offsets where the trace names the frame, the
    same source file and line; and its text copy gives the same frame."""
    from conftest import BUILD
    prog = BUILD / "workloads" / "stacks_sites"
    if not os.access(prog, os.X_OK):
        pytest.fail("tests/workloads/stacks_sites is not built (make tests)")
    p = tmp_path / "s.hatf"
    run(hatrace_cmd, "record", "--stacks", "-o", p, "--", prog, stderr=subprocess.DEVNULL)
    t = hatrace.open(p)
    df = t.stacks()
    sites = t.stats("--sites", "--top", "0")["top"]
    assert len(sites) >= 4 and len(df) > 0
    names, lined = set(), set()
    for site in sites:
        mine = df[df["stack"] == site["stack"]].sort_values("depth")
        assert [int(a, 16) for a in (f["addr"] for f in site["frames"])] == list(mine["address"])
        for f, (_, row) in zip(site["frames"], mine.iterrows()):
            if row["function"]:
                assert (f["function"], f["offset"]) == (row["function"], row["function_offset"])
                names.add(row["function"])
            assert (row["file"], row["line"]) == (f.get("file", ""), f.get("line", 0))
            if row["file"]:
                lined.add(row["function"])
    assert {"static_leaf", "lib_make", "grow_buf", "thread_leaf", "main"} <= names
    # source lines where the workload's debug information gives them (it is built with -g)
    assert {"static_leaf", "lib_make", "grow_buf", "thread_leaf", "main"} <= lined, lined
    assert list(t.stacks(lines=False).columns) == list(df.columns[:-2])
    txt = tmp_path / "s.txt"
    run(hatrace_cmd, "convert", "--to", "text", p, "-o", txt)
    pd.testing.assert_frame_equal(hatrace.open(txt).stacks(), df)
