/* chunk_scan.h — walk the chunks of a container file held in memory.
 *
 * For benchmarks that look under the reader: which chunks a file has, how
 * large each is stored. Not for damaged files: the walk stops at the first
 * header that does not check (the reader's resync is not repeated here).
 */
#ifndef HATRACE_BENCH_CHUNK_SCAN_H
#define HATRACE_BENCH_CHUNK_SCAN_H

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container/container_format.h"

/* The whole file in memory (free it), its size in *size. @return NULL with
 * errno set if it cannot be read. */
static inline uint8_t *chunk_file_load(const char *path, size_t *size)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0) return NULL;
    uint8_t *file = NULL;
    if (fstat(fd, &st) == 0 && (file = malloc(st.st_size ? (size_t)st.st_size : 1))) {
        size_t got = 0;
        *size = (size_t)st.st_size;
        while (got < *size) {
            ssize_t k = read(fd, file + got, *size - got);
            if (k <= 0) {
                if (k == 0) errno = EIO;  /* the file shrank */
                free(file);
                file = NULL;
                break;
            }
            got += (size_t)k;
        }
    }
    int e = errno;
    close(fd);
    errno = e;
    return file;
}

/* The next chunk at or after *pos (0: start of the file) into h, its payload
 * at *pos + HATF_CK_HDR. @return 1, or 0 at the end. Advance *pos past the
 * chunk with chunk_skip before the next call. */
static inline int chunk_next(const uint8_t *file, size_t size, size_t *pos, hatf_chunk_hdr *h)
{
    if (*pos == 0) {  /* the first chunk follows the variable-length file header */
        const uint8_t *m = memmem(file, size, HATF_CK_MAGIC, 4);
        *pos = m ? (size_t)(m - file) : size;
    }
    return *pos + HATF_CK_HDR <= size && hatf_ck_hdr_unpack(file + *pos, h) == 0 &&
           *pos + HATF_CK_HDR + h->stored_len <= size;
}

static inline void chunk_skip(size_t *pos, const hatf_chunk_hdr *h)
{
    *pos += HATF_CK_HDR + h->stored_len;
}

#endif
