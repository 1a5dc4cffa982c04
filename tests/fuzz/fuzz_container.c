/* fuzz_container.c — the container reader on arbitrary files.
 *
 * Properties: opening and reading never crash, hang or allocate without bound;
 * a refused file and a failed iterator report a known code with a one-line
 * message; damage lines are single non-empty lines; when every thread reads
 * cleanly, the thread iterators together yield exactly the events the chunk
 * headers announce, and the global iterator yields the same number.
 *
 * Checksums guard every chunk, so plain byte mutations rarely get past them.
 * A custom mutator therefore repairs the header, chunk and trailer checksums
 * after three mutations in four, letting the fuzzer reach the chunk payloads
 * (HATF 1.0 records, address model, tables); seeds with stored (uncompressed)
 * chunks put those bytes in reach of the mutations directly.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "hatf.h"
#include "hatf_container.h"
#include "bytes.h"
#include "fuzz_common.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* Recompute every checksum a reader checks, in place (layout: container_format.h). */
static void repair_checksums(uint8_t *p, size_t size)
{
    if (size < 16 || memcmp(p, HATF_CONTAINER_MAGIC, 8) != 0) return;
    uint32_t hlen = hatf_load_le32(p + 12);
    if (hlen < 16 || hlen > size) return;
    hatf_store_le64(p + hlen - 8, XXH3_64bits(p, hlen - 8));
    size_t off = hlen;
    while (off + 64 <= size && memcmp(p + off, "HCHK", 4) == 0) {
        uint8_t *h = p + off;
        size_t stored = hatf_load_le32(h + 28);
        if (stored > size - off - 64) stored = size - off - 64;  /* cut: leave it cut */
        hatf_store_le64(h + 48, XXH3_64bits(h + 64, stored));
        hatf_store_le32(h + 56, (uint32_t)XXH3_64bits(h, 56));
        off += 64 + stored;
    }
    if (size >= hlen + 32 && memcmp(p + size - 8, "HATF-END", 8) == 0)
        hatf_store_le32(p + size - 16, (uint32_t)XXH3_64bits(p + size - 32, 16));
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned seed)
{
    size = LLVMFuzzerMutate(data, size, max_size);
    if (seed % 4 != 0) repair_checksums(data, size);
    return size;
}

static int drain(hatf_iter *it, uint64_t *count, uint64_t input_len)
{
    hatf_event ev;
    int rc;
    while ((rc = hatf_iter_next(it, &ev)) == 1) {
        FUZZ_CHECK(ev.op < HATF_OP_COUNT_, "event with op %u", ev.op);
        (*count)++;
    }
    if (rc < 0) {
        const hatf_err *e = hatf_iter_error(it);
        FUZZ_CHECK(e != NULL, "no error object after code %d", rc);
        fuzz_check_err(rc, e, input_len);
    }
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_memfile(data, size, path, sizeof path);
    if (fd < 0) return 0;
    hatf_err err = { 0 };
    hatf_reader *r = hatf_reader_open(path, &err);
    if (!r) {
        fuzz_check_err(err.code, &err, size);
        close(fd);
        return 0;
    }
    const hatf_info *info = hatf_reader_info(r);
    FUZZ_CHECK(info != NULL, "no info");
    FUZZ_CHECK(memchr(info->cmdline, 0, sizeof info->cmdline) && memchr(info->clock, 0, sizeof info->clock) &&
               memchr(info->parent_trace, 0, sizeof info->parent_trace), "header string not terminated");
    FUZZ_CHECK(hatf_reader_counters(r) != NULL, "no counters");

    const char *const *lines;
    size_t nd = hatf_reader_damage(r, &lines);
    for (size_t i = 0; i < nd; i++)
        FUZZ_CHECK(lines[i] && lines[i][0] && !strchr(lines[i], '\n'), "damage line %zu is bad", i);
    if (hatf_reader_complete(r) == 0) FUZZ_CHECK(nd > 0, "incomplete file without a damage line");

    const uint64_t *threads;
    size_t nt = hatf_reader_threads(r, &threads);
    uint64_t per_thread = 0;
    int all_clean = 1;
    for (size_t i = 0; i < nt; i++) {
        (void)hatf_reader_thread_name(r, threads[i]);
        hatf_iter *it = hatf_iter_thread(r, threads[i]);
        if (!it) { all_clean = 0; continue; }
        if (drain(it, &per_thread, size) != 0) all_clean = 0;
        hatf_iter_free(it);
    }
    (void)hatf_reader_heap_name(r, 0);
    uint64_t announced = hatf_reader_event_count(r);
    if (all_clean)
        FUZZ_CHECK(per_thread == announced, "threads yield %llu events, chunk headers say %llu",
                   (unsigned long long)per_thread, (unsigned long long)announced);

    hatf_iter *g = hatf_iter_global(r);
    if (g) {
        uint64_t global = 0;
        int rc = drain(g, &global, size);
        if (all_clean && rc == 0)
            FUZZ_CHECK(global == per_thread, "global iterator yields %llu events, threads %llu",
                       (unsigned long long)global, (unsigned long long)per_thread);
        hatf_iter_free(g);
    }
    hatf_reader_close(r);
    close(fd);
    return 0;
}
