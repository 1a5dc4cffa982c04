#!/usr/bin/python3
"""resident_truth.py — the recorded resident size against the native one
(issue 42's bar), for bench/resident_truth.sh and the test
record_resident_truth. One program at a time:

  resident_truth.py native CMD...   prints "maxrss_kb shared_kb anon_kb native_kb"
  resident_truth.py table           reads rows on stdin, prints the table

native: runs CMD under /usr/bin/time -f %M (its maximum resident size, file
pages in) and reads its /proc/PID/status every 2 ms while it runs: the shared
pages (RssFile + RssShmem: the libraries', the program's own file, shared
memory) at the reading where VmRSS was largest, i.e. near the peak, and the
largest RssAnon read (a check: the anonymous peak as far as the readings
caught it). %M minus the shared pages is the native figure the recorder's
samples (resident less shared) are held to; the kernel reads %M from per-CPU
counters that may lag by 32 pages a CPU, so the larger of it and the largest
RssAnon read (an exact sum since Linux 6.16) is taken. But %M minus the shared
pages read is only as good as that reading: the pages of files a program
touches after its last reading (exiting: libc's exit paths, the freeing) are in
%M and in no reading, and at 0.18 MiB anonymous they put %M - shared 40 % over
it. So a peak the readings saw held (HELD_READINGS of them within a page of the
largest RssAnon) is that reading alone; the workloads of our own hold their
peak (tests/workloads/resident_hold). The native figure is the fourth field.
"""
import os
import subprocess
import sys
import tempfile
import time

HELD_READINGS = 10  # 20 ms at the peak: no spike between readings decides it
PAGE_KB = 4


def status(pid):
    out = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "RssAnon", "RssFile", "RssShmem"):
                    out[k] = int(v.split()[0])
    except OSError:
        return None
    return out if len(out) == 4 else None


def child_of(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            kids = f.read().split()
        return int(kids[0]) if kids else None
    except OSError:
        return None


def native(cmd):
    with tempfile.NamedTemporaryFile("r", suffix=".kb") as out:
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", out.name] + cmd,
                             stdout=subprocess.DEVNULL)
        kid, best_rss, shared, anons = None, -1, 0, []
        while p.poll() is None:
            kid = kid or child_of(p.pid)
            s = status(kid) if kid else None
            if s:
                if s["VmRSS"] > best_rss:
                    best_rss, shared = s["VmRSS"], s["RssFile"] + s["RssShmem"]
                anons.append(s["RssAnon"])
            time.sleep(0.002)
        if p.returncode != 0:
            sys.exit("resident_truth: %s exited %d natively" % (cmd[0], p.returncode))
        maxrss = int(out.read().split()[-1])
    anon = max(anons, default=0)
    held = sum(a >= anon - PAGE_KB for a in anons) >= HELD_READINGS
    print(maxrss, shared, anon, anon if held else max(maxrss - shared, anon))


def table():
    """rows: NAME MAXRSS_KB SHARED_KB ANON_KB NATIVE_KB RECORDED_BYTES PEAK_LIVE_BYTES"""
    print("%-12s %8s %8s %8s %8s %8s %8s %9s %6s  %s" % ("program", "native%M", "shared", "%M-sh", "anon_poll",
                                                        "native", "recorded", "peak_live", "ratio", "bar"))
    bad = 0
    for line in sys.stdin:
        f = line.split()
        if len(f) != 7:
            continue
        name, m, sh, an, nat, rec, live = f[0], *map(float, f[1:])
        want = nat * 1024
        ratio = rec / want if want > 0 else float("inf")
        # a program that allocates more than it touches is below its peak
        # live natively too: that half of the bar cannot apply to it
        ok = abs(ratio - 1) <= 0.10 and (rec >= live or want < live)
        bad += not ok
        why = "pass" if ok else "FAIL" + (" (below peak live)" if rec < live else "")
        if ok and rec < live:
            why += " (native below peak live too)"
        mb = lambda b: "%.2f" % (b / 1048576)
        print("%-12s %8s %8s %8s %8s %8s %8s %9s %6.3f  %s" % (name, mb(m * 1024), mb(sh * 1024), mb((m - sh) * 1024),
                                                              mb(an * 1024), mb(want), mb(rec), mb(live), ratio, why))
    print("(MiB; native = anon_poll where the readings saw the peak held, else max(%M - shared, anon_poll);"
          " ratio = recorded / native;"
          " bar: within 10 % and never below peak live)")
    return bad


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "native":
        native(sys.argv[2:])
    elif sys.argv[1:] == ["table"]:
        sys.exit(1 if table() else 0)
    else:
        sys.exit(__doc__)
