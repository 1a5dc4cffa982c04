/* plan.c — the plan's memory while it is built, and its flat form.
 *
 * The parent compiles once and writes the flat form into a memfd; each child
 * maps it read-only and prefaulted, so the plan costs the child no malloc and
 * its pages are resident before the baseline RSS is taken.
 *
 * Flat form (native byte order, never stored on disk):
 *   rp_flat_header | nthreads x rp_flat_thread | ops of thread 0 | ops of thread 1 ...
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay.h"

#define RP_FLAT_MAGIC 0x4e414c5059525048ull  /* "HPRYPLAN" */

typedef struct rp_flat_header {
    uint64_t magic;
    uint32_t nthreads, nslots;
    uint32_t single, pad;
    rp_plan_stats st;
} rp_flat_header;

typedef struct rp_flat_thread {
    uint64_t trace_thread, nops, calls, bump_bytes, ops_offset;
} rp_flat_thread;

void rp_plan_free(rp_plan *p)
{
    if (p->map) {
        munmap(p->map, p->map_len);
        free(p->threads);
    } else if (p->threads) {
        for (uint32_t t = 0; t < p->nthreads; t++) free(p->threads[t].ops);
        free(p->threads);
    }
    free(p->caps);
    memset(p, 0, sizeof *p);
}

int64_t rp_plan_add_thread(rp_plan *p, uint64_t trace_thread)
{
    uint32_t n = p->nthreads;
    if ((n & (n - 1)) == 0) {  /* grow at powers of two */
        uint32_t cap = n ? 2 * n : 4;
        rp_thread_plan *t = realloc(p->threads, cap * sizeof *t);
        if (!t) return -1;
        p->threads = t;
        uint64_t *c = realloc(p->caps, cap * sizeof *c);
        if (!c) return -1;
        p->caps = c;
    }
    memset(&p->threads[n], 0, sizeof p->threads[n]);
    p->threads[n].trace_thread = trace_thread;
    p->caps[n] = 0;
    p->nthreads = n + 1;
    return n;
}

int64_t rp_plan_push(rp_plan *p, uint32_t t, rp_op op)
{
    rp_thread_plan *th = &p->threads[t];
    if (th->nops == p->caps[t]) {
        uint64_t cap = p->caps[t] ? 2 * p->caps[t] : 1024;
        rp_op *o = realloc(th->ops, cap * sizeof *o);
        if (!o) return -1;
        th->ops = o;
        p->caps[t] = cap;
    }
    th->ops[th->nops] = op;
    if (rp_kind_is_call(rp_op_kind(&op))) th->calls++;
    return (int64_t)th->nops++;
}

static int write_all(int fd, const void *buf, size_t n)
{
    const char *c = buf;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return HATF_E_IO;
        }
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

int rp_plan_save(const rp_plan *p, int fd)
{
    rp_flat_header h = { .magic = RP_FLAT_MAGIC, .nthreads = p->nthreads, .nslots = p->nslots,
                         .single = (uint32_t)p->single, .st = p->st };
    if (write_all(fd, &h, sizeof h)) return HATF_E_IO;
    uint64_t off = sizeof h + (uint64_t)p->nthreads * sizeof(rp_flat_thread);
    for (uint32_t t = 0; t < p->nthreads; t++) {
        const rp_thread_plan *th = &p->threads[t];
        rp_flat_thread ft = { th->trace_thread, th->nops, th->calls, th->bump_bytes, off };
        if (write_all(fd, &ft, sizeof ft)) return HATF_E_IO;
        off += th->nops * sizeof(rp_op);
    }
    for (uint32_t t = 0; t < p->nthreads; t++)
        if (write_all(fd, p->threads[t].ops, p->threads[t].nops * sizeof(rp_op))) return HATF_E_IO;
    return 0;
}

int rp_plan_load(int fd, rp_plan *p, hatf_err *err)
{
    memset(p, 0, sizeof *p);
    struct stat sb;
    if (fstat(fd, &sb) < 0 || (size_t)sb.st_size < sizeof(rp_flat_header))
        return hatf_err_set(err, HATF_E_IO, 0, "plan: cannot read the plan file");
    size_t len = (size_t)sb.st_size;
    void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (m == MAP_FAILED) return hatf_err_set(err, HATF_E_IO, 0, "plan: mmap: %s", strerror(errno));
    const rp_flat_header *h = m;
    size_t need = sizeof *h + (size_t)h->nthreads * sizeof(rp_flat_thread);
    if (h->magic != RP_FLAT_MAGIC || need > len) {
        munmap(m, len);
        return hatf_err_set(err, HATF_E_CORRUPT, 0, "plan: bad flat plan");
    }
    /* The thread table is tiny; malloc it before the baseline is taken. */
    p->threads = calloc(h->nthreads ? h->nthreads : 1, sizeof *p->threads);
    if (!p->threads) {
        munmap(m, len);
        return hatf_err_set(err, HATF_E_NOMEM, 0, "plan: out of memory");
    }
    const rp_flat_thread *ft = (const rp_flat_thread *)(h + 1);
    for (uint32_t t = 0; t < h->nthreads; t++) {
        if (ft[t].ops_offset > len || ft[t].nops > (len - ft[t].ops_offset) / sizeof(rp_op)) {
            free(p->threads);
            munmap(m, len);
            return hatf_err_set(err, HATF_E_CORRUPT, 0, "plan: thread %u out of bounds", t);
        }
        p->threads[t] = (rp_thread_plan){ ft[t].trace_thread, ft[t].nops, ft[t].calls,
                                          ft[t].bump_bytes,
                                          (rp_op *)((char *)m + ft[t].ops_offset) };
    }
    p->nthreads = h->nthreads;
    p->nslots = h->nslots;
    p->single = (int)h->single;
    p->st = h->st;
    p->map = m;
    p->map_len = len;
    return 0;
}
