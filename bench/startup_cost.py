#!/usr/bin/env python3
# startup_cost.py — what the recorder costs a short-lived process: the
# program run natively and under LD_PRELOAD of each build given, interleaved,
# RUNS rounds; per way the median wall time and CPU time (user + system of the
# process and all its threads, from wait4, to the microsecond) per run, and
# the difference to native. Traces go to a scratch folder and are removed
# after each run.
#
#   bench/startup_cost.py [-n RUNS] BUILD_DIR [BUILD_DIR...] -- PROGRAM [ARGS...]
#   e.g. bench/startup_cost.py -n 200 build-old build -- sort /etc/passwd
import os
import shutil
import statistics
import sys
import tempfile
import time


def usage():
    sys.exit("usage: bench/startup_cost.py [-n RUNS] BUILD_DIR [BUILD_DIR...] -- PROGRAM [ARGS...]")


def run_once(cmd, env):
    t0 = time.monotonic_ns()
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        try:
            os.execvpe(cmd[0], cmd, env)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic_ns() - t0
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) == 127:
        sys.exit("startup_cost.py: %s failed (status %d)" % (cmd[0], status))
    return wall / 1e3, (ru.ru_utime + ru.ru_stime) * 1e6


def main():
    args = sys.argv[1:]
    runs = 100
    if args[:1] == ["-n"]:
        if len(args) < 2:
            usage()
        runs, args = int(args[1]), args[2:]
    if "--" not in args:
        usage()
    k = args.index("--")
    builds, cmd = args[:k], args[k + 1:]
    if not builds or not cmd:
        usage()
    for b in builds:
        if not os.path.isfile(os.path.join(b, "libhatrace.so")):
            sys.exit("startup_cost.py: %s/libhatrace.so: not built" % b)
    scratch = tempfile.mkdtemp()
    ways = [("native", None)] + [(b, os.path.abspath(os.path.join(b, "libhatrace.so"))) for b in builds]
    got = {name: ([], []) for name, _ in ways}
    try:
        for _ in range(runs):
            for name, lib in ways:
                env = dict(os.environ)
                if lib:
                    env["LD_PRELOAD"] = lib
                    env["HATRACE_OUTPUT"] = os.path.join(scratch, "t.%p.hatf")
                wall, cpu = run_once(cmd, env)
                got[name][0].append(wall)
                got[name][1].append(cpu)
                for f in os.listdir(scratch):
                    os.unlink(os.path.join(scratch, f))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    nat_wall = statistics.median(got["native"][0])
    nat_cpu = statistics.median(got["native"][1])
    print("%s, %d interleaved runs; medians per run (us)" % (" ".join(cmd), runs))
    print("%-24s %10s %10s %12s %12s" % ("way", "wall", "cpu", "wall-native", "cpu-native"))
    for name, _ in ways:
        w, c = statistics.median(got[name][0]), statistics.median(got[name][1])
        print("%-24s %10.0f %10.0f %12.0f %12.0f" % (name, w, c, w - nat_wall, c - nat_cpu))


main()
