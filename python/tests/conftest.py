"""Shared fixtures: the hatrace command, the golden inputs, and traces of the
bundled example (examples/kvstore) recorded once per test run."""

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("BUILD", REPO / "build"))
INPUTS = REPO / "tests" / "golden" / "inputs"


@pytest.fixture(scope="session")
def hatrace_cmd():
    cmd = os.environ.get("HATRACE", str(BUILD / "hatrace"))
    if not os.access(cmd, os.X_OK):
        pytest.fail("no hatrace command at %s (make, or set HATRACE)" % cmd)
    os.environ["HATRACE"] = cmd  # what Trace.stats() runs
    return cmd


def run(*args, **kw):
    return subprocess.run([str(a) for a in args], check=True, stdout=subprocess.PIPE, text=True, **kw).stdout


@pytest.fixture(scope="session")
def golden(hatrace_cmd, tmp_path_factory):
    """Each golden text input and its container copy: [(text, container)]."""
    d = tmp_path_factory.mktemp("golden")
    out = []
    for t in sorted(INPUTS.glob("*.txt")):
        c = d / (t.stem + ".hatf")
        run(hatrace_cmd, "convert", "--from", "text", t, "-o", c)
        out.append((t, c))
    return out


@pytest.fixture(scope="session")
def recorded(hatrace_cmd, tmp_path_factory):
    """Three traces of examples/kvstore (three threads, values handed from one
    to another), of 5000, 10000 and 20000 operations."""
    prog = BUILD / "examples" / "kvstore"
    if not os.access(prog, os.X_OK):
        pytest.fail("examples/kvstore is not built")
    d = tmp_path_factory.mktemp("recorded")
    out = []
    for n in (5000, 10000, 20000):
        p = d / ("kv%d.hatf" % n)
        run(hatrace_cmd, "record", "-o", p, "--", prog, n, stderr=subprocess.DEVNULL)
        out.append(p)
    return out
