/* source_columns.c — many events of a source as rows of fixed columns
 * (hatf_source_read_columns, include/hatf_source.h): what
 * `hatrace convert --to csv` writes and the Python package's arrays hold,
 * one definition for both.
 */
#include <limits.h>
#include <string.h>

#include "hatf.h"
#include "hatf_source.h"

/* Store v as row i of col (a column of T), if the column is wanted. The store
 * goes through memcpy: an array of structs need not align its fields. */
#define PUT(col, T, i, stride, v)                                             \
    do {                                                                      \
        if (col) {                                                            \
            T x_ = (T)(v);                                                    \
            memcpy((char *)(col) + (i) * ((stride) ? (stride) : sizeof x_), &x_, sizeof x_); \
        }                                                                     \
    } while (0)

HATF_API const char *hatf_columns_function_name(unsigned code)
{
    static const char *const maps[] = { "mmap", "munmap", "mremap", "brk", "brk-shrink", "(other)" };
    if (code == 0) return "";
    if (code >= HATF_COLUMNS_FN_MMAP && code <= HATF_COLUMNS_FN_OTHER) return maps[code - HATF_COLUMNS_FN_MMAP];
    return code < HATF_FN_COUNT_ ? hatf_func_name(code) : NULL;
}

/* A mapping note's fields in the columns (hatf_columns above). @return 1 if ev is one. */
static int map_fields(const hatf_event *ev, unsigned *fn, uint64_t *addr, uint64_t *old, uint64_t *size)
{
    hatf_map m;
    if (!hatf_map_parse(ev, &m)) return 0;
    *addr = m.addr, *old = m.old_addr, *size = m.len;
    if (m.kind == HATF_MAP_BRK) *size = m.delta < 0 ? 0 - (uint64_t)m.delta : (uint64_t)m.delta;
    *fn = m.kind == HATF_MAP_MMAP ? HATF_COLUMNS_FN_MMAP : m.kind == HATF_MAP_MUNMAP ? HATF_COLUMNS_FN_MUNMAP
        : m.kind == HATF_MAP_MREMAP ? HATF_COLUMNS_FN_MREMAP : m.delta < 0 ? HATF_COLUMNS_FN_BRK_SHRINK : HATF_COLUMNS_FN_BRK;
    return 1;
}

HATF_API int hatf_source_read_columns(hatf_source *s, const hatf_columns *c, size_t max)
{
    if (!s || !c || !max) return HATF_E_USAGE;
    if (max > INT_MAX) max = INT_MAX;
    uint64_t num = 1, den = 1;
    const hatf_info *info = hatf_source_info(s);
    if (info && info->time_unit_ns_num && info->time_unit_ns_den) {
        num = info->time_unit_ns_num;
        den = info->time_unit_ns_den;
    }
    size_t st = c->stride, n = 0;
    while (n < max) {
        hatf_event ev;
        int rc = hatf_source_next(s, &ev);
        if (rc < 0) return n ? (int)n : rc;  /* the source keeps its error for the next call */
        if (rc == 0) break;
        hatf_attrs a;
        hatf_event_attrs(&ev, &a);
        unsigned fn = hatf_plain_func(ev.op);  /* an absent func is the plain call */
        if (hatf_attrs_has(&a, HATF_A_FUNC)) {
            uint64_t v = a.value[HATF_A_FUNC];
            fn = v > 0 && v < HATF_FN_COUNT_ ? (unsigned)v : HATF_COLUMNS_FN_OTHER;
        }
        int realloc = hatf_op_is_realloc(ev.op);
        uint64_t address = realloc ? ev.new_addr : hatf_op_has_addr(ev.op) ? ev.addr : 0;
        uint64_t old_address = realloc ? ev.addr : 0, size = hatf_op_has_size(ev.op) ? ev.size : 0;
        if (ev.op == HATF_OP_COMMENT) map_fields(&ev, &fn, &address, &old_address, &size);
        PUT(c->time, uint64_t, n, st, ev.time);
        PUT(c->time_ns, uint64_t, n, st, num == den ? ev.time
            : (uint64_t)((unsigned __int128)ev.time * num / den));
        PUT(c->thread, uint64_t, n, st, ev.thread);
        PUT(c->heap, uint64_t, n, st, ev.heap);
        PUT(c->op, uint8_t, n, st, ev.op);
        PUT(c->size, uint64_t, n, st, size);
        PUT(c->address, uint64_t, n, st, address);
        PUT(c->old_address, uint64_t, n, st, old_address);
        PUT(c->function, uint8_t, n, st, fn);
        PUT(c->stack, uint64_t, n, st, hatf_attrs_get(&a, HATF_A_STACK, 0));
        PUT(c->failed, uint8_t, n, st, hatf_event_failed_by(&ev, &a));
        n++;
    }
    return (int)n;
}
