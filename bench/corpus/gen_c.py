# gen_c.py N — writes to stdout a C file of N modules for `gcc -O2 -c` (cc1):
# each module a struct, an enum, a table of strings, static helpers that
# inline, a switch-heavy dispatcher, loops over arrays and a recursive
# function, so cc1 builds and drops many trees, RTL and bitmaps. Deterministic.
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
out = ["#include <stddef.h>", "#include <string.h>", "#include <stdlib.h>", ""]
for m in range(n):
    k = 5 + m % 7
    out.append("enum op%d { %s };" % (m, ", ".join("OP%d_%d" % (m, i) for i in range(k))))
    out.append("struct rec%d { int id; long sum; double w[%d]; const char *name; struct rec%d *next; };" % (m, k, m))
    out.append("static const char *names%d[] = { %s };" % (m, ", ".join('"n%d_%d"' % (m, i) for i in range(k))))
    out.append("static inline long mix%d(long a, long b) { return (a * %d) ^ (b >> %d) ^ (a + b * %d); }" % (m, 31 + m, 1 + m % 13, 7 + m))
    out.append("static long walk%d(struct rec%d *r, int depth) {" % (m, m))
    out.append("  long s = 0;")
    out.append("  for (; r != NULL; r = r->next) {")
    out.append("    for (int i = 0; i < %d; i++) s += (long)(r->w[i] * %d.5) + mix%d(r->id, i);" % (k, m % 9 + 1, m))
    out.append("    if (depth > 0 && (r->id & 3) == 0) s += walk%d(r->next, depth - 1);" % m)
    out.append("  }")
    out.append("  return s;")
    out.append("}")
    out.append("long dispatch%d(enum op%d op, struct rec%d *r, long x) {" % (m, m, m))
    out.append("  switch (op) {")
    for i in range(k):
        out.append("  case OP%d_%d:" % (m, i))
        out.append("    x = mix%d(x, %d) + (long)strlen(names%d[%d]);" % (m, i, m, i))
        out.append("    if (r && r->w[%d] > %d.0) x += walk%d(r, %d); else x -= %d;" % (i, i, m, i % 4, i * 3 + 1))
        out.append("    for (int j = 0; j < %d; j++) { x ^= j * %d; if (x & 1) x += mix%d(j, x); }" % (i + 2, m + 1, m))
        out.append("    break;")
    out.append("  default: x = -1;")
    out.append("  }")
    out.append("  return x;")
    out.append("}")
    out.append("struct rec%d *build%d(int count) {" % (m, m))
    out.append("  struct rec%d *head = NULL;" % m)
    out.append("  for (int i = 0; i < count; i++) {")
    out.append("    struct rec%d *r = calloc(1, sizeof *r);" % m)
    out.append("    if (!r) break;")
    out.append("    r->id = i; r->name = names%d[i %% %d]; r->next = head;" % (m, k))
    out.append("    for (int j = 0; j < %d; j++) r->w[j] = (i * %d + j) / 7.0;" % (k, m + 3))
    out.append("    r->sum = dispatch%d((enum op%d)(i %% %d), r, i);" % (m, m, k))
    out.append("    head = r;")
    out.append("  }")
    out.append("  return head;")
    out.append("}")
    out.append("")
out.append("long run_all(int count) {")
out.append("  long s = 0;")
for m in range(n):
    out.append("  { struct rec%d *h = build%d(count); s += walk%d(h, 2); while (h) { struct rec%d *x = h->next; free(h); h = x; } }" % (m, m, m, m))
out.append("  return s;")
out.append("}")
print("\n".join(out))
