/* common.c — the version, the contract checks' report, errors, byte buffers, names and hatrace attribute lists. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hatf.h"
#include "bytes.h"
#include "hatf_check.h"

HATF_API const char *hatf_version(void) { return HATF_VERSION_STRING; }
HATF_API unsigned hatf_version_number(void) { return HATF_VERSION_NUMBER; }

#ifdef HATF_CHECKS
void hatf_pre_failed_(const char *msg)
{
    ssize_t w = write(2, msg, strlen(msg));
    (void)w;
    abort();
}
#endif

static const char *const op_names[HATF_OP_COUNT_] = {
    "alloc", "free", "realloc-inplace", "realloc-move", "realloc-new", "realloc-free",
    "heap-create", "heap-destroy", "thread-create", "thread-destroy", "comment",
};

HATF_API const char *hatf_op_name(unsigned op) { return op < HATF_OP_COUNT_ ? op_names[op] : NULL; }

HATF_API int hatf_op_from_name(const char *name, size_t len)
{
    for (int i = 0; i < HATF_OP_COUNT_; i++)
        if (strlen(op_names[i]) == len && memcmp(op_names[i], name, len) == 0) return i;
    return -1;
}

static const char *const func_names[HATF_FN_COUNT_] = {
    NULL, "malloc", "calloc", "realloc", "reallocarray", "free", "posix_memalign",
    "aligned_alloc", "memalign", "valloc", "pvalloc", "new", "delete", "new[]", "delete[]",
};

HATF_API const char *hatf_func_name(unsigned fn) { return fn && fn < HATF_FN_COUNT_ ? func_names[fn] : NULL; }

HATF_API int hatf_func_from_name(const char *name, size_t len)
{
    for (int i = 1; i < HATF_FN_COUNT_; i++)
        if (strlen(func_names[i]) == len && memcmp(func_names[i], name, len) == 0) return i;
    return -1;
}

HATF_API const char *hatf_strerror(int code)
{
    switch (code) {
    case HATF_OK: return "success";
    case HATF_E_NOMEM: return "out of memory";
    case HATF_E_IO: return "input/output error";
    case HATF_E_TRUNCATED: return "truncated";
    case HATF_E_CORRUPT: return "corrupt data";
    case HATF_E_VERSION: return "unsupported version";
    case HATF_E_USAGE: return "invalid argument";
    case HATF_E_LIMIT: return "value out of range";
    default: return "unknown error";
    }
}

HATF_API int hatf_err_set(hatf_err *e, int code, uint64_t offset, const char *fmt, ...)
{
    if (!e || e->code) return code;
    e->code = code;
    e->offset = offset;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    for (char *p = e->msg; *p; p++)  /* one line, always */
        if (*p == '\n' || *p == '\r') *p = ' ';
    return code;
}

HATF_API const char *hatf_err_text(const hatf_err *e)
{
    if (!e->msg[0]) return hatf_strerror(e->code);
    char pre[40];
    int n = snprintf(pre, sizeof pre, "offset %llu: ", (unsigned long long)e->offset);
    return strncmp(e->msg, pre, (size_t)n) == 0 ? e->msg + n : e->msg;
}

HATF_API void hatf_buf_init(hatf_buf *b) { memset(b, 0, sizeof *b); }

HATF_API void hatf_buf_free(hatf_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

HATF_API uint8_t *hatf_buf_reserve(hatf_buf *b, size_t n)
{
    if (b->failed) return NULL;
    if (b->cap - b->len < n) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->len < n) {
            if (cap > SIZE_MAX / 2) { b->failed = 1; return NULL; }
            cap *= 2;
        }
        uint8_t *p = realloc(b->p, cap);
        if (!p) { b->failed = 1; return NULL; }
        b->p = p;
        b->cap = cap;
    }
    return b->p + b->len;
}

HATF_API void hatf_buf_append(hatf_buf *b, const void *src, size_t n)
{
    uint8_t *d = hatf_buf_reserve(b, n);
    if (!d) return;
    if (n) memcpy(d, src, n);
    b->len += n;
}

HATF_API size_t hatf_attrs_encode(const hatf_attrs *a, uint8_t *out)
{
    size_t n = 0;
    /* only the keys present, in ascending order (the recorder's flusher
     * encodes an attribute or two per event) */
    for (uint32_t left = a->present & (((1u << HATF_A_KEY_MAX_) - 1) << 1); left; left &= left - 1) {
        unsigned k = (unsigned)__builtin_ctz(left);
        out[n++] = (uint8_t)k;
        n += hatf_varint_put(out + n, a->value[k]);
    }
    return n;
}

HATF_API int hatf_event_attrs(const hatf_event *ev, hatf_attrs *a)
{
    if (ev->attr_is_bytes == HATF_ATTRS_HATRACE && hatf_attrs_decode(ev->data, ev->data_len, a) == 0) return 0;
    memset(a, 0, sizeof *a);  /* decode may have filled some keys before it failed */
    return -1;
}

HATF_API int hatf_event_failed(const hatf_event *ev)
{
    hatf_attrs a;
    hatf_event_attrs(ev, &a);
    return hatf_event_failed_by(ev, &a);
}

HATF_API int hatf_attrs_decode(const uint8_t *p, size_t n, hatf_attrs *a)
{
    memset(a, 0, sizeof *a);
    unsigned last = 0;
    size_t i = 0;
    while (i < n) {
        unsigned k = p[i++];
        if (k <= last || k > HATF_A_KEY_MAX_) return -1;
        uint64_t v;
        size_t used = hatf_varint_get(p + i, n - i, &v);
        if (!used) return -1;
        /* canonical only: the shortest varint, so re-encoding is byte-exact */
        uint8_t tmp[HATF_VARINT_MAX];
        if (hatf_varint_put(tmp, v) != used) return -1;
        i += used;
        a->value[k] = v;
        a->present |= 1u << k;
        last = k;
    }
    return 0;
}
