/* fuzz_source.c — hatf_source over arbitrary files in every format.
 *
 * Properties: the same bytes opened as a container (auto), a raw HATF 1.0
 * stream and a text trace never crash or hang; failures carry a known code and
 * a one-line message; positions stay inside the file.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "hatf.h"
#include "hatf_source.h"
#include "fuzz_common.h"

static void read_as(const char *path, hatf_format fmt, size_t size)
{
    hatf_err err = { 0 };
    hatf_source *s = hatf_source_open(path, fmt, &err);
    if (!s) {
        FUZZ_CHECK(fuzz_code_ok(err.code) || err.code == HATF_E_USAGE, "format %d: code %d", fmt, err.code);
        FUZZ_CHECK(err.msg[0] && !strchr(err.msg, '\n'), "format %d: bad message '%s'", fmt, err.msg);
        return;
    }
    hatf_event ev;
    int rc;
    while ((rc = hatf_source_next(s, &ev)) == 1) {
        FUZZ_CHECK(ev.op < HATF_OP_COUNT_, "event with op %u", ev.op);
        FUZZ_CHECK(hatf_source_offset(s) <= size, "format %d: offset past the end", fmt);
    }
    if (rc < 0) {
        const hatf_err *e = hatf_source_error(s);
        FUZZ_CHECK(e && fuzz_code_ok(rc) && e->msg[0] && !strchr(e->msg, '\n'),
                   "format %d: bad error report for %d", fmt, rc);
    }
    hatf_source_close(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_memfile(data, size, path, sizeof path);
    if (fd < 0) return 0;
    read_as(path, HATF_FMT_AUTO, size);
    read_as(path, HATF_FMT_HATF1, size);
    read_as(path, HATF_FMT_TEXT, size);
    close(fd);
    return 0;
}
