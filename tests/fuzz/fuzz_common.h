/* fuzz_common.h — helpers shared by the libFuzzer targets (each target is
 * built on its own from tests/fuzz/fuzz_<name>.c, so this is header-only). */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hatf.h"

/* Stop with a message libFuzzer reports as a crash (a property was broken). */
#define FUZZ_CHECK(cond, ...)                                               \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            abort();                                                        \
        }                                                                   \
    } while (0)

/* The fields an event carries once decoded; data compared by content. */
static inline int fuzz_event_equal(const hatf_event *a, const hatf_event *b)
{
    if (a->op != b->op || a->size != b->size || a->addr != b->addr ||
        a->new_addr != b->new_addr || a->thread != b->thread || a->heap != b->heap ||
        a->time != b->time || a->attr != b->attr || a->attr_is_bytes != b->attr_is_bytes ||
        a->data_len != b->data_len)
        return 0;
    return a->data_len == 0 || memcmp(a->data, b->data, a->data_len) == 0;
}

static inline void fuzz_event_print(const char *what, const hatf_event *e)
{
    fprintf(stderr, "%s: op %u size %llu addr %#llx new %#llx thread %llu heap %llu time %llu"
            " attr %llu bytes %u len %u\n", what, e->op, (unsigned long long)e->size,
            (unsigned long long)e->addr, (unsigned long long)e->new_addr,
            (unsigned long long)e->thread, (unsigned long long)e->heap,
            (unsigned long long)e->time, (unsigned long long)e->attr, e->attr_is_bytes,
            e->data_len);
}

/* An in-memory file holding data, named by a /proc path readers can open.
 * @return the fd (close it when done) or -1; path gets the name. */
static inline int fuzz_memfile(const uint8_t *data, size_t size, char *path, size_t pathlen)
{
    int fd = memfd_create("fuzz", MFD_CLOEXEC);
    if (fd < 0) return -1;
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(fd, data + off, size - off);
        if (w <= 0) { close(fd); return -1; }
        off += (size_t)w;
    }
    snprintf(path, pathlen, "/proc/self/fd/%d", fd);
    return fd;
}

/* Error codes a reader may legitimately return for bad input. */
static inline int fuzz_code_ok(int code)
{
    return code == HATF_E_TRUNCATED || code == HATF_E_CORRUPT || code == HATF_E_VERSION ||
           code == HATF_E_LIMIT || code == HATF_E_NOMEM || code == HATF_E_IO;
}

/* Every error must follow the library's convention: a known negative code and
 * a one-line, non-empty message whose offset lies inside (or at the end of) the input. */
static inline void fuzz_check_err(int rc, const hatf_err *e, uint64_t input_len)
{
    FUZZ_CHECK(fuzz_code_ok(rc), "unexpected code %d", rc);
    FUZZ_CHECK(e->code == rc, "err.code %d but returned %d", e->code, rc);
    FUZZ_CHECK(e->msg[0] != 0, "empty message for code %d", rc);
    FUZZ_CHECK(strchr(e->msg, '\n') == NULL, "message has a newline: %s", e->msg);
    FUZZ_CHECK(e->offset <= input_len, "offset %llu past input length %llu (%s)",
               (unsigned long long)e->offset, (unsigned long long)input_len, e->msg);
}

#endif /* FUZZ_COMMON_H */
