/* export_sink.c — an export's output file; see export_sink.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "cli_util.h"
#include "export_sink.h"

#define FLUSH_AT (1u << 20)

struct export_sink {
    const char *path;
    int fd, created, codec, failed;
    hatf_buf buf;      /* the export's bytes not yet passed on */
    hatf_buf packed;   /* compressed bytes */
    z_stream z;
    ZSTD_CCtx *zc;
};

static int write_fd(export_sink *k, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(k->fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            cli_error("%s: write: %s", k->path, strerror(errno));
            return -1;
        }
        p += w, n -= (size_t)w;
    }
    return 0;
}

export_sink *sink_open(const char *path, const char *in_path, int force, int codec)
{
    export_sink *k = calloc(1, sizeof *k);
    if (!k) { cli_error("out of memory"); return NULL; }
    k->path = path;
    k->codec = codec;
    k->fd = -1;
    hatf_buf_init(&k->buf);
    hatf_buf_init(&k->packed);
    if (codec == SINK_GZIP && deflateInit2(&k->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        cli_error("%s: cannot start gzip", path);
        free(k);
        return NULL;
    }
    if (codec == SINK_ZSTD && !(k->zc = ZSTD_createCCtx())) {
        cli_error("out of memory");
        free(k);
        return NULL;
    }
    struct stat a, b;
    if (strcmp(path, "-") == 0) {
        k->fd = STDOUT_FILENO;
    } else if (stat(in_path, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
        cli_error("%s: is the input file too", path);
    } else if (!force && lstat(path, &b) == 0) {
        cli_error("%s: exists (use --force to overwrite)", path);
    } else if ((k->fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL),
                             cli_derived_mode(in_path))) < 0) {
        cli_error("%s: cannot create: %s", path, strerror(errno));
    } else {
        k->created = 1;
    }
    if (k->fd < 0) {
        sink_close(k, 0);
        return NULL;
    }
    return k;
}

hatf_buf *sink_buf(export_sink *k) { return &k->buf; }

/* Compress in (all of it; end: and close the stream) into k->packed. */
static int compress_into(export_sink *k, const uint8_t *in, size_t n, int end)
{
    if (k->codec == SINK_GZIP) {
        k->z.next_in = (Bytef *)(uintptr_t)in;
        k->z.avail_in = (uInt)n;
        int zr;
        do {
            uint8_t *p = hatf_buf_reserve(&k->packed, 1 << 16);
            if (!p) return -1;
            k->z.next_out = p;
            k->z.avail_out = 1 << 16;
            zr = deflate(&k->z, end ? Z_FINISH : Z_NO_FLUSH);
            k->packed.len += (1 << 16) - k->z.avail_out;
        } while (k->z.avail_in || (end && zr != Z_STREAM_END) || (!end && k->z.avail_out == 0));
        return zr == Z_STREAM_ERROR ? -1 : 0;
    }
    ZSTD_inBuffer zin = { in, n, 0 };
    size_t left;
    do {
        uint8_t *p = hatf_buf_reserve(&k->packed, ZSTD_CStreamOutSize());
        if (!p) return -1;
        ZSTD_outBuffer zout = { p, ZSTD_CStreamOutSize(), 0 };
        left = ZSTD_compressStream2(k->zc, &zout, &zin, end ? ZSTD_e_end : ZSTD_e_continue);
        if (ZSTD_isError(left)) return -1;
        k->packed.len += zout.pos;
    } while (zin.pos < zin.size || (end && left));
    return 0;
}

static int pass_on(export_sink *k, int end)
{
    if (k->buf.failed) {
        cli_error("%s: out of memory", k->path);
        return -1;
    }
    if (k->codec == SINK_PLAIN) {
        int rc = write_fd(k, k->buf.p, k->buf.len);
        k->buf.len = 0;
        return rc;
    }
    if (compress_into(k, k->buf.p, k->buf.len, end) < 0 || k->packed.failed) {
        cli_error("%s: cannot compress the output", k->path);
        return -1;
    }
    k->buf.len = 0;
    int rc = write_fd(k, k->packed.p, k->packed.len);
    k->packed.len = 0;
    return rc;
}

int sink_flush(export_sink *k, int now)
{
    if (k->failed) return -1;
    if ((now || k->buf.len >= FLUSH_AT || k->buf.failed) && pass_on(k, 0) < 0) k->failed = 1;
    return k->failed ? -1 : 0;
}

int sink_close(export_sink *k, int ok)
{
    int rc = ok && !k->failed && pass_on(k, 1) == 0 ? 0 : -1;
    if (k->fd >= 0 && k->fd != STDOUT_FILENO && close(k->fd) < 0 && rc == 0) {
        cli_error("%s: close: %s", k->path, strerror(errno));
        rc = -1;
    }
    if (rc && k->created) unlink(k->path);
    if (k->codec == SINK_GZIP) deflateEnd(&k->z);
    ZSTD_freeCCtx(k->zc);
    hatf_buf_free(&k->buf);
    hatf_buf_free(&k->packed);
    free(k);
    return rc;
}
