#!/usr/bin/env python3
"""replay_gen.py — write a synthetic text trace for replay benchmarks and tests.

    replay_gen.py [--ops N] [--threads T] [--seed S] [--cross P] > trace.txt

Each thread keeps a pool of live objects and draws, per operation, an
allocation (sizes mostly small, log-uniform, a few large), a free of a random
live object (some handed over to and freed by another thread), or a realloc
(in place or moving). Live memory swings up and down in phases, so allocators
differ in how much they hand back. Deterministic for a given seed.
"""
import argparse
import random
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", type=int, default=200000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cross", type=float, default=0.05, help="share of frees done by another thread")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    out = sys.stdout
    w = out.write
    w("#hatrace-text 1\n")
    w('0 0 0 comment "synthetic: ops=%d threads=%d seed=%d cross=%g"\n' % (a.ops, a.threads, a.seed, a.cross))
    next_addr = 0x10000
    free_addrs = []              # addresses given back, reused like a real allocator would
    live = [[] for _ in range(a.threads)]   # per thread: [addr, size]
    t = 1000
    for th in range(a.threads):
        w("%d %d 0 thread-create ostid=%d\n" % (t, th + 1, 4000 + th))
        t += 1
    phase_len = max(1000, a.ops // 8)

    def size():
        r = rnd.random()
        if r < 0.90:
            return int(2 ** rnd.uniform(3, 9))       # 8..512
        if r < 0.99:
            return int(2 ** rnd.uniform(9, 14))      # 512..16K
        return int(2 ** rnd.uniform(14, 20))         # 16K..1M

    def new_addr(n):
        nonlocal next_addr
        if free_addrs and rnd.random() < 0.7:
            return free_addrs.pop(rnd.randrange(len(free_addrs)))
        p = next_addr
        next_addr += (n + 4095) // 16 * 16 + 16
        return p

    for i in range(a.ops):
        th = i % a.threads if a.threads > 1 and rnd.random() < 0.5 else rnd.randrange(a.threads)
        pool = live[th]
        growing = (i // phase_len) % 2 == 0
        p_alloc = 0.6 if growing else 0.4
        t += 1
        r = rnd.random()
        if not pool or r < p_alloc:
            n = size()
            addr = new_addr(n)
            # reused addresses may belong to a still-live object in the generator's
            # bookkeeping only if freed; free_addrs holds only freed ones
            if rnd.random() < 0.05:
                w("%d %d 0 alloc %d 0x%x func=calloc nmemb=1\n" % (t, th + 1, n, addr))
            else:
                w("%d %d 0 alloc %d 0x%x func=malloc\n" % (t, th + 1, n, addr))
            pool.append([addr, n])
        elif r < p_alloc + 0.08:
            k = rnd.randrange(len(pool))
            addr, n = pool[k]
            m = max(1, int(n * rnd.uniform(0.5, 2.5)))
            if rnd.random() < 0.5:
                w("%d %d 0 realloc-inplace %d 0x%x -> 0x%x func=realloc\n" % (t, th + 1, m, addr, addr))
                pool[k] = [addr, m]
            else:
                na = new_addr(m)
                w("%d %d 0 realloc-move %d 0x%x -> 0x%x func=realloc\n" % (t, th + 1, m, addr, na))
                free_addrs.append(addr)
                pool[k] = [na, m]
        else:
            k = rnd.randrange(len(pool))
            pool[k], pool[-1] = pool[-1], pool[k]
            addr, n = pool.pop()
            by = th
            if a.threads > 1 and rnd.random() < a.cross:
                by = (th + 1 + rnd.randrange(a.threads - 1)) % a.threads
            w("%d %d 0 free 0x%x\n" % (t, by + 1, addr))
            free_addrs.append(addr)
    for th in range(a.threads):
        for addr, n in live[th]:
            t += 1
            w("%d %d 0 free 0x%x\n" % (t, th + 1, addr))
        t += 1
        w("%d %d 0 thread-destroy\n" % (t, th + 1))


if __name__ == "__main__":
    main()
