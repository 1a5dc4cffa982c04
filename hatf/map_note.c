/* map_note.c — the recorder's notes of the program's own mappings
 * (HATF_MAP_PREFIX comments, include/hatf.h): read back for stats' counts
 * and the columns of convert --to csv and the Python package. */
#include <stdio.h>
#include <string.h>

#include "hatf.h"

HATF_API int hatf_map_parse(const hatf_event *ev, hatf_map *out)
{
    size_t mark = sizeof HATF_MAP_PREFIX - 1;
    if (ev->op != HATF_OP_COMMENT || ev->data_len <= mark || ev->data_len >= 128 ||
        memcmp(ev->data, HATF_MAP_PREFIX, mark))
        return 0;
    char text[128], kind[8] = "";
    memcpy(text, ev->data + mark, ev->data_len - mark);
    text[ev->data_len - mark] = 0;
    unsigned long long a, b, c, d;
    long long delta;
    memset(out, 0, sizeof *out);
    if (sscanf(text, "mmap %llx %llu %7s", &a, &b, kind) >= 2) {
        *out = (hatf_map){ .kind = HATF_MAP_MMAP, .addr = a, .len = b, .file = !strcmp(kind, "file") };
    } else if (sscanf(text, "munmap %llx %llu", &a, &b) == 2) {
        *out = (hatf_map){ .kind = HATF_MAP_MUNMAP, .addr = a, .len = b };
    } else if (sscanf(text, "mremap %llx %llu %llx %llu", &a, &b, &c, &d) == 4) {
        *out = (hatf_map){ .kind = HATF_MAP_MREMAP, .old_addr = a, .old_len = b, .addr = c, .len = d };
    } else if (sscanf(text, "brk %lld", &delta) == 1) {
        *out = (hatf_map){ .kind = HATF_MAP_BRK, .delta = delta };
    } else {
        return 0;
    }
    return 1;
}
