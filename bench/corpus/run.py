#!/usr/bin/env python3
# run.py OUT LIMIT_S CMD ARGS... — corpus.sh's timer: runs CMD in a process
# group of its own, waits for it and writes "wall_ns cpu_ns" to OUT: the wall
# time from fork to the wait's return and the CPU (user + system, every thread,
# and every descendant CMD waited for) that wait4 reports, to the microsecond
# (GNU time prints 10 ms). After LIMIT_S seconds the group is killed and run.py
# exits 124; otherwise it exits with CMD's status (128 + N for signal N).
import os
import signal
import sys
import time

if len(sys.argv) < 4:
    sys.exit("usage: run.py OUT LIMIT_S CMD ARGS...")
out, limit, cmd = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
t0 = time.monotonic_ns()
pid = os.fork()
if pid == 0:
    os.setpgid(0, 0)
    try:
        os.execvp(cmd[0], cmd)
    except OSError as e:
        print("run.py: %s: %s" % (cmd[0], e.strerror), file=sys.stderr)
    os._exit(127)
try:
    os.setpgid(pid, pid)  # the child may not have run yet
except OSError:
    pass
timed_out = False


def kill_group(signum, frame):
    global timed_out
    timed_out = signum == signal.SIGALRM
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


for s in (signal.SIGALRM, signal.SIGINT, signal.SIGTERM):
    signal.signal(s, kill_group)
signal.setitimer(signal.ITIMER_REAL, limit)
_, status, ru = os.wait4(pid, 0)
t1 = time.monotonic_ns()
signal.setitimer(signal.ITIMER_REAL, 0)
with open(out, "w") as f:
    f.write("%d %d\n" % (t1 - t0, round((ru.ru_utime + ru.ru_stime) * 1e9)))
if timed_out:
    print("run.py: %s: killed after %g s" % (cmd[0], limit), file=sys.stderr)
    sys.exit(124)
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
