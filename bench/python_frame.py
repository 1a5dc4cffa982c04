#!/usr/bin/python3
"""The DataFrame of a large trace against `hatrace stats` on it.

    make -j2 bench && bench/python_frame.py [--build build] [--runs 5] [--steps 6000000 | --sim SECONDS] [TRACE]

Without TRACE it records build/bench/alloc_chain STEPS (one thread, two
events a step: 12 M events by default) into a scratch folder, or with --sim
build/bench/server_sim 8 SECONDS (8 threads freeing each other's objects:
about 5 M events a second on 2 cores, read in the causal order of threads). Then, interleaved RUNS times:
`hatrace stats TRACE` (wall time of the command, decoding and counting in C)
and, in this one Python process, Trace(TRACE).to_pandas() and .events()
(libhatf fills the columns in batches, hatf_source_read_columns). Prints the
median of each, the first to_pandas() apart (a process's first large arrays
cost the kernel more: pages never touched before), and the ratio
to_pandas / stats. Goal (issue 25): at most 2.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace", nargs="?")
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--steps", type=int, default=6000000, help="alloc_chain steps (2 events each)")
    ap.add_argument("--sim", type=int, metavar="SECONDS", help="record server_sim 8 SECONDS instead")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    hatrace_cmd = os.path.join(build, "hatrace")
    os.environ.setdefault("HATRACE_LIBHATF", os.path.join(build, "libhatf.so"))
    import hatrace
    import pandas  # noqa: F401 (imported before the timing: to_pandas() would import it)

    with tempfile.TemporaryDirectory() as tmp:
        path = args.trace
        if not path:
            path = os.path.join(tmp, "bench.hatf")
            prog = ["server_sim", "8", str(args.sim)] if args.sim else ["alloc_chain", str(args.steps)]
            prog[0] = os.path.join(build, "bench", prog[0])
            subprocess.run([hatrace_cmd, "record", "-o", path, "--"] + prog, check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        t = hatrace.open(path)
        size = os.path.getsize(path)
        stats_s, frame_s, events_s = [], [], []
        rows = 0
        for _ in range(args.runs):
            t0 = time.perf_counter()
            subprocess.run([hatrace_cmd, "stats", path], check=True, stdout=subprocess.DEVNULL)
            stats_s.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            df = t.to_pandas()
            frame_s.append(time.perf_counter() - t0)
            rows = len(df)
            del df
            t0 = time.perf_counter()
            a = t.events()
            events_s.append(time.perf_counter() - t0)
            del a
    st, fr, ev = statistics.median(stats_s), statistics.median(frame_s[1:] or frame_s), statistics.median(events_s)
    what = args.trace or ("server_sim 8 %d" % args.sim if args.sim else "alloc_chain %d" % args.steps)
    print("trace: %d events, %.1f MB (%s)" % (rows, size / 1e6, what))
    print("hatrace stats:      %.3f s   (median of %d; %.1f M events/s)" % (st, len(stats_s), rows / st / 1e6))
    print("to_pandas():        %.3f s   (median of runs 2..%d; %.1f M events/s; first run %.3f s)"
          % (fr, len(frame_s), rows / fr / 1e6, frame_s[0]))
    print("events():           %.3f s   (median of %d, a structured array)" % (ev, len(events_s)))
    print("to_pandas / stats:  %.2f   (first run %.2f; goal: at most 2)" % (fr / st, frame_s[0] / st))
    return 0


if __name__ == "__main__":
    sys.exit(main())
