#!/usr/bin/env python3
"""check-layers.py — the layers hold (docs/architecture.md, "What each folder may include").

Reads every C source and header of the layers' folders, resolves each quoted
#include as the compiler does (the including file's own folder first, then the
folder's include paths, read from `make print-INC_<folder>`), and fails on:

  * an include from a lower layer to a higher one (include <- hatf <- analyze <-
    replay, cli; preload uses hatf, never analyze, replay or cli);
  * inside hatf/, the same between its subsystems' folders (the shared files
    at hatf/ itself <- hatf1 <- container, metatf; container <- text; all of
    them <- readers), and from above hatf/ an include of a subsystem's header
    (a layer above sees only the shared headers at hatf/ itself), but for
    the KNOWN_UPWARD below;
  * a folder of a layer that is not listed here (its files would go unread);
  * a circle between modules (a module is x.c with its header x.h: a.c
    including b.h and b.c including a.h is a circle, as is a.h <-> b.h),
    but for the KNOWN_CIRCLES below;
  * given a build folder (-b BUILD), a call the same way: a symbol a layer's
    objects use but do not define, defined by the objects of a layer it may
    not include (a layer above hatf/ may call any of it: its public API is
    defined across the subsystems).

Usage: scripts/check-layers.py [-b BUILD]   (exit 0 ok, 1 a rule broken, 2 bad usage)
"""
import os
import re
import subprocess
import sys

# what each folder may include (its own folder always); "hatf" is the files
# every subsystem of libhatf shares, at hatf/ itself
MAY_INCLUDE = {
    "include": {"include"},
    "hatf": {"include", "hatf"},
    "hatf/hatf1": {"include", "hatf", "hatf/hatf1"},
    "hatf/metatf": {"include", "hatf", "hatf/hatf1", "hatf/metatf"},
    "hatf/container": {"include", "hatf", "hatf/hatf1", "hatf/container"},
    "hatf/text": {"include", "hatf", "hatf/hatf1", "hatf/container", "hatf/text"},
    "hatf/readers": {"include", "hatf", "hatf/hatf1", "hatf/metatf", "hatf/container", "hatf/text",
                     "hatf/readers"},
    "preload": {"include", "hatf", "preload"},
    "analyze": {"include", "hatf", "analyze"},
    "replay": {"include", "hatf", "analyze", "replay"},
    "cli": {"include", "hatf", "analyze", "replay", "cli"},
}
# Circles known and not yet broken: each must still be found exactly (so the
# list cannot go stale); any other circle fails.
KNOWN_CIRCLES = []
# Includes and calls against the rules above, known and meant; each must still
# be found (so the list cannot go stale). The recorder's plain events are
# coded in one pass, the HATF 1.0 record with its container's time and
# addresses (container_plain.h): written beside the coder whose state it
# runs, it takes the container's release times from the writer.
KNOWN_UPWARD = [("hatf/hatf1/hatf1_encode.c", "hatf/container/container_plain.h")]
KNOWN_UPWARD_CALLS = [("hatf/hatf1", "hatf_release_add_", "hatf/container")]
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def include_paths(folder):
    """The folder's -I paths as the Makefile gives them (include/ has none)."""
    if folder == "include":
        return []
    folder = folder.split("/")[0]  # hatf's subsystems: INC_hatf
    out = subprocess.run(["make", "-s", "--no-print-directory", "print-INC_" + folder],
                         capture_output=True, text=True, check=True).stdout.split()
    if not out:
        raise SystemExit("check-layers: make print-INC_%s names no include path" % folder)
    return [p[2:] for p in out if p.startswith("-I")]


def layer_of(path):
    """The folder of MAY_INCLUDE a file is in: hatf/container for hatf/container/x.c."""
    parts = path.split("/")
    if len(parts) < 2:
        return None
    return "/".join(parts[:2]) if parts[0] == "hatf" and len(parts) > 2 else parts[0]


def unknown_folders():
    """Folders with C files under a layer that MAY_INCLUDE does not name."""
    out = []
    for top in [f for f in MAY_INCLUDE if "/" not in f]:
        for d, _, names in os.walk(top):
            if d not in MAY_INCLUDE and any(n.endswith((".c", ".h")) for n in names):
                out.append("%s/ is no folder of check-layers.py's MAY_INCLUDE: its files go unchecked" % d)
    return sorted(out)


def sources():
    files = []
    for folder in MAY_INCLUDE:
        for name in sorted(os.listdir(folder)):
            if name.endswith((".c", ".h")):
                files.append(folder + "/" + name)
    return files


def resolve(path, name, paths):
    for d in [os.path.dirname(path)] + paths:
        cand = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(cand):
            return cand
    return None


def include_graph(files):
    """(file -> [included files], problems)."""
    paths = {f: include_paths(f) for f in MAY_INCLUDE}
    graph, problems = {}, []
    for f in files:
        text = open(f, encoding="utf-8", errors="replace").read()
        graph[f] = []
        for name in INCLUDE_RE.findall(text):
            target = resolve(f, name, paths[layer_of(f)])
            if target is None:
                problems.append('%s: #include "%s" is found nowhere on its include paths' % (f, name))
                continue
            graph[f].append(target)
    return graph, problems


def layer_problems(graph):
    out, known = [], set()
    for f, targets in graph.items():
        for t in targets:
            if layer_of(t) not in MAY_INCLUDE[layer_of(f)]:
                if (f, t) in KNOWN_UPWARD:
                    known.add((f, t))
                else:
                    out.append('%s includes %s: %s/ may not include %s/' % (f, t, layer_of(f), layer_of(t)))
    out += ["the known include %s -> %s is gone: take it out of KNOWN_UPWARD" % k
            for k in KNOWN_UPWARD if k not in known]
    return out


def module_of(path):
    return os.path.splitext(path)[0]


def circles(graph):
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    edges = {}
    for f, targets in graph.items():
        m = module_of(f)
        edges.setdefault(m, set())
        for t in targets:
            if module_of(t) != m:
                edges[m].add(module_of(t))
                edges.setdefault(module_of(t), set())
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(edges[nxt]))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def nm(args, objs):
    out = subprocess.run(["nm"] + args + objs, capture_output=True, text=True, check=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and not line.endswith(":"):
            names.add(parts[-1].split("@")[0])
    return names


def call_problems(build):
    """Undefined symbols of a layer's objects defined by a layer it may not include."""
    objs = {}
    for folder in MAY_INCLUDE:
        # the objects of today's sources (a moved file's old object may linger)
        objs[folder] = [os.path.join(build, "obj", f[:-2] + ".o") for f in sources() if
                        layer_of(f) == folder and f.endswith(".c")]
        objs[folder] = [o for o in objs[folder] if os.path.isfile(o)]
    objs = {f: o for f, o in objs.items() if o}
    missing = [f for f in MAY_INCLUDE if f != "include" and not objs.get(f)]
    if missing:
        raise SystemExit("check-layers: %s: no objects of %s (build first)" % (build, ", ".join(missing)))
    # the recorder defines the C library's own names (malloc, mmap...) to
    # interpose them: a call to one of those is a call to the C library
    libc = subprocess.run([os.environ.get("CC") or "cc", "-print-file-name=libc.so.6"], capture_output=True, text=True,
                          check=True).stdout.strip()
    libc_names = nm(["-D", "--defined-only"], [libc])
    defined = {f: nm(["--defined-only", "-g"], o) - libc_names for f, o in objs.items()}
    out, known = [], set()
    for f, o in objs.items():
        for sym in sorted(nm(["-u"], o)):
            for other, names in defined.items():
                # above hatf/, libhatf is one layer
                seen_as = other if f.startswith("hatf") else other.split("/")[0]
                if other != f and sym in names and seen_as not in MAY_INCLUDE[f]:
                    if (f, sym, other) in KNOWN_UPWARD_CALLS:
                        known.add((f, sym, other))
                    else:
                        out.append("%s/ calls %s, defined in %s/" % (f, sym, other))
    out += ["the known call %s/ -> %s (%s/) is gone: take it out of KNOWN_UPWARD_CALLS" % k
            for k in KNOWN_UPWARD_CALLS if k not in known]
    return out


def main(argv):
    build = None
    if len(argv) == 2 and argv[0] == "-b":
        build = argv[1]
    elif argv:
        print("usage: scripts/check-layers.py [-b BUILD]", file=sys.stderr)
        return 2
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    files = sources()
    graph, problems = include_graph(files)
    problems += unknown_folders() + layer_problems(graph)
    found = circles(graph)
    problems += ["circle between modules: " + " -> ".join(c) for c in found if c not in KNOWN_CIRCLES]
    problems += ["the known circle " + " -> ".join(c) + " is gone: take it out of KNOWN_CIRCLES"
                 for c in KNOWN_CIRCLES if c not in found]
    if build:
        problems += call_problems(build)
    for p in problems:
        print("check-layers: " + p, file=sys.stderr)
    if problems:
        return 1
    edges = sum(len(t) for t in graph.values())
    print("check-layers: %d files, %d includes: no include%s upward but the %d known, no circle but the %d known" %
          (len(files), edges, " or call" if build else "", len(KNOWN_UPWARD) + (len(KNOWN_UPWARD_CALLS) if build else 0),
           len(KNOWN_CIRCLES)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
