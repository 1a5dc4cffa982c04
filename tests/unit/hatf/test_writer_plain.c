/* test_writer_plain.c — the recorder's plain events coded in one pass
 * (hatf_writer_add_plain_, hatf/container/container_plain.h) write the same file, byte
 * for byte, as the same events given to hatf_writer_add as hatf_events: with
 * and without the time conversion, and at a unit above 1 us (the times that
 * keep the order, container_order.h; reallocs with a release lead), in full
 * and fast groups, across group
 * cuts, between events that are not plain (an attribute run, a comment), on
 * several threads, with plain callocs among them (their func and nmemb as
 * the flusher's hatf_attrs_encode writes them, which switch the attribute
 * field between v1 and a default), and with each event in the recorder's
 * short form (one unit) or long form (three) at random where both can hold it. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cunit_main.h"
#include "hatf_container.h"
#include "container/container_plain.h"

enum { MAXEV = 60000, THREADS = 3 };

/* One thread's events, in both forms: the recorder's units (event i starts
 * at unit at[i]) and hatf_events; other[i]: event i is not plain (written
 * with hatf_writer_add in both files: an alloc with other attribute bytes
 * or a numeric attribute, or a comment; it takes no unit). */
typedef struct tset {
    uint64_t raw[MAXEV * HATF_RAW_LONG_UNITS * HATF_RAW_UNIT_WORDS];
    size_t at[MAXEV + 1];
    hatf_event ev[MAXEV];
    uint8_t ab[MAXEV][HATF_ATTRS_MAX];  /* a plain calloc's attribute bytes */
    uint8_t other[MAXEV];
    size_t n;
} tset;

static tset sets[THREADS];
static const uint8_t calloc_attr[] = { 0x01, HATF_FN_CALLOC };  /* any bytes: the writer copies them */
static uint64_t rng = 0x51ab1e5eedull;

/* Event i of s in the recorder's units: short when it can be and shrt. */
static void put_raw(tset *s, size_t i, uint64_t tk, uint64_t a, uint64_t b, uint64_t c, uint64_t d, int shrt)
{
    uint64_t *x = &s->raw[s->at[i] * HATF_RAW_UNIT_WORDS];
    uint64_t word;
    if (shrt && hatf_raw_short((unsigned)tk & 0xff, a, b, c, d, &word)) {
        x[0] = tk | HATF_RAW_SHORT;
        x[1] = word;
    } else {
        x[0] = tk, x[1] = a, x[2] = b, x[3] = c, x[4] = d, x[5] = 0;
    }
    s->at[i + 1] = s->at[i] + hatf_raw_units(x[0]);
}

/* Fill set t (thread t + 1): mostly malloc and free of live objects, some
 * reallocs of every outcome, sizes that widen and narrow the size field,
 * times in runs of equal ticks; with_other: a few non-plain events (2:
 * one in 23, so that a numeric attribute often comes a few records after a
 * calloc's bytes: how stable the attribute's default was decides its bytes). */
static void make_set(tset *s, uint64_t thread, int with_other)
{
    uint64_t live[512];
    size_t nlive = 0;
    uint64_t next = 0x7f0000000000ull + thread * 0x10000000ull, tick = 1000 * thread;
    const unsigned T = HATF_RAW_TIME_SHIFT;
    s->n = 0;
    s->at[0] = 0;
    while (s->n < MAXEV) {
        uint64_t r = ut_xorshift(&rng);
        size_t i = s->n++;
        int shrt = (r >> 45) % 4 != 0;  /* the recorder's short form where it fits, 3 in 4 */
        if (r % 7 == 0) tick += 1 + (r >> 40) % 5000;  /* else the same tick */
        uint64_t size = (r >> 8) % 100 < 90 ? 16 + (r >> 16) % 200 : 4096 + (r >> 16) % 100000;
        s->other[i] = with_other && r % (with_other == 2 ? 23 : 997) == 0;
        if (s->other[i]) {
            hatf_event *e = &s->ev[i];
            memset(e, 0, sizeof *e);
            e->thread = thread;
            e->time = tick;
            if (r & 1) {
                e->op = HATF_OP_COMMENT;
                e->data = (const uint8_t *)"phase";
                e->data_len = 5;
            } else {
                e->op = HATF_OP_ALLOC;
                e->size = size;
                e->addr = next += 64;
                if (r & 2) {
                    e->attr_is_bytes = 1;
                    e->data = calloc_attr;
                    e->data_len = sizeof calloc_attr;
                } else {  /* a number: coded by how stable the attribute was (a default, or stored) */
                    e->attr = 1 + (r >> 20) % 3;
                }
            }
            s->at[i + 1] = s->at[i];
            continue;
        }
        unsigned pick = (unsigned)(r >> 50) % 10;
        uint64_t tk, a, b = 0, c = 0, d = 0;
        hatf_event *e = &s->ev[i];
        memset(e, 0, sizeof *e);
        if (nlive && (pick < 4 || nlive == 512)) {  /* free */
            size_t j = (r >> 20) % nlive;
            tk = tick << T | HATF_FN_FREE;
            a = live[j];
            live[j] = live[--nlive];
            e->op = HATF_OP_FREE;
        } else if (pick == 4) {  /* realloc: of NULL, to 0, in place, moved */
            size_t j = nlive ? (r >> 20) % nlive : 0;
            unsigned how = nlive ? (unsigned)(r >> 30) % 4 : 0;
            static const uint8_t ops[4] = { HATF_OP_REALLOC_NEW, HATF_OP_REALLOC_FREE, HATF_OP_REALLOC_INPLACE,
                                            HATF_OP_REALLOC_MOVE };
            tk = tick << T | HATF_FN_REALLOC;
            b = how == 1 ? 0 : size;
            a = how == 0 ? 0 : live[j];
            c = how == 1 ? 0 : how == 2 ? live[j] : (next += 64 + size);
            if (how == 0) live[nlive++] = c;
            else if (how == 1) live[j] = live[--nlive];
            else live[j] = c;
            e->op = ops[how];
            e->size = b;
            e->new_addr = c;
            if (how % 2 && r % 3) {  /* moved or freed: gave its block back up to 10 us before its stamp */
                uint64_t lead = 1 + (r >> 36) % 30000;
                if (lead > tick) lead = tick;
                d = hatf_raw_release_d(tick - lead);
                e->release_lead = lead;
            }
        } else if (pick == 5 || (pick == 6 && (r & 1))) {  /* calloc: its func and nmemb as the flusher's */
            uint64_t nmemb = (r >> 24) % 300, elsize = 1 + (r >> 34) % 64;
            if (r % 4999 == 0) nmemb = 1ull << 40, elsize = 1ull << 30;  /* a product past 64 bits */
            tk = tick << T | HATF_FN_CALLOC;
            b = nmemb;
            c = elsize;
            a = next += 64 + size;
            live[nlive++] = a;
            e->op = HATF_OP_ALLOC;
            uint64_t total;
            e->size = __builtin_mul_overflow(nmemb, elsize, &total) ? UINT64_MAX : total;
            hatf_attrs at = { .present = 1u << HATF_A_FUNC | 1u << HATF_A_NMEMB };
            at.value[HATF_A_FUNC] = HATF_FN_CALLOC;
            at.value[HATF_A_NMEMB] = nmemb;
            e->attr_is_bytes = 1;
            e->data = s->ab[i];
            e->data_len = (uint16_t)hatf_attrs_encode(&at, s->ab[i]);
        } else {  /* malloc: over 64 KiB, never short */
            tk = tick << T | HATF_FN_MALLOC;
            b = size;
            a = next += 64 + size;
            live[nlive++] = a;
            e->op = HATF_OP_ALLOC;
            e->size = b;
        }
        e->addr = a;
        e->thread = thread;
        e->time = tick;
        put_raw(s, i, tk, a, b, c, d, shrt);
        CU_ASSERT_TRUE(hatf_raw_plain(s->raw[s->at[i] * HATF_RAW_UNIT_WORDS]));
    }
}

/* Write every set, threads in turn, in batches of 1..256 (the same cuts for
 * both ways): plain events through hatf_writer_add_plain_ when plain_way,
 * else all through hatf_writer_add. fast: every other round of batches in
 * fast groups. */
static int write_file(const char *path, int plain_way, uint64_t time_res, int fast, size_t chunk_events)
{
    hatf_info in = { .address_bits = 64, .time_unit_ns_num = 1, .time_unit_ns_den = 3 };  /* ticks of 1/3 ns */
    strcpy(in.clock, "TSC");
    hatf_writer_opts o = { .chunk_events = chunk_events, .time_res_ns = time_res };
    hatf_err err = { 0 };
    unlink(path);
    hatf_writer *w = hatf_writer_create(path, 0, &in, &o, &err);
    if (!w) return -1;
    size_t pos[THREADS] = { 0 };
    uint64_t brng = 0xba7c4e5ull;
    for (int more = 1, round = 0; more; round++) {
        more = 0;
        if (fast) hatf_writer_set_coding_(w, round & 1 ? HATF_CODING_STORED_ : HATF_CODING_FULL_);
        for (int t = 0; t < THREADS; t++) {
            tset *s = &sets[t];
            size_t k = 1 + ut_xorshift(&brng) % 256;
            if (k > s->n - pos[t]) k = s->n - pos[t];
            if (!k) continue;
            more = 1;
            size_t end = pos[t] + k;
            if (!plain_way) {
                if (hatf_writer_add(w, s->ev + pos[t], k)) return -2;
                pos[t] = end;
                continue;
            }
            while (pos[t] < end) {
                size_t i = pos[t], j = i;
                while (j < end && s->other[j]) j++;
                if (j > i) {  /* as the recorder's flusher: its comments stay with their thread */
                    hatf_writer_comment_thread_(w, (uint64_t)t + 1);
                    if (hatf_writer_add(w, s->ev + i, j - i)) return -3;
                    pos[t] = j;
                    continue;
                }
                size_t events, stop = i;
                while (stop < end && !s->other[stop]) stop++;  /* the recorder's units hold plain events only */
                long took = hatf_writer_add_plain_(w, (uint64_t)t + 1, s->raw + s->at[i] * HATF_RAW_UNIT_WORDS,
                                                   s->at[stop] - s->at[i], &events);
                if (took <= 0 || s->at[i + events] - s->at[i] != (size_t)took) return -4;
                pos[t] += events;
            }
        }
    }
    return hatf_writer_close(w, NULL, &err);
}

/* The two files' bytes equal. */
static void assert_same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fa);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fb);
    long off = 0, differ = -1;
    for (;; off++) {
        int ca = getc(fa), cb = getc(fb);
        if (ca != cb) { differ = off; break; }
        if (ca == EOF) break;
    }
    fclose(fa);
    fclose(fb);
    if (differ >= 0) printf("\n  %s and %s differ at byte %ld\n", a, b, differ);
    CU_ASSERT_EQUAL(differ, -1);
}

static void check_ways(int with_other)
{
    for (int t = 0; t < THREADS; t++) make_set(&sets[t], (uint64_t)t + 1, with_other);
    char a[300], b[300];
    static const uint64_t res[] = { 0, 1000, 10000000 };
    static const size_t chunks[] = { 0, 1000 };
    for (int r = 0; r < 3; r++)
        for (int fast = 0; fast < 2; fast++)
            for (int c = 0; c < 2; c++) {
                ut_path(a, sizeof a, "general-%d-%d-%d-%d.hatf", with_other, r, fast, c);
                ut_path(b, sizeof b, "plain-%d-%d-%d-%d.hatf", with_other, r, fast, c);
                CU_ASSERT_EQUAL_FATAL(write_file(a, 0, res[r], fast, chunks[c]), 0);
                CU_ASSERT_EQUAL_FATAL(write_file(b, 1, res[r], fast, chunks[c]), 0);
                assert_same_file(a, b);
            }
}

static void test_plain_only(void) { check_ways(0); }
static void test_mixed(void) { check_ways(1); }
static void test_dense(void) { check_ways(2); }

/* It takes plain events only: the first that is not plain ends its share. */
static void test_stops_at_other(void)
{
    char path[300];
    ut_path(path, sizeof path, "stop.hatf");
    hatf_info in = { .address_bits = 64, .time_unit_ns_num = 1, .time_unit_ns_den = 1 };
    hatf_err err = { 0 };
    hatf_writer *w = hatf_writer_create(path, 1, &in, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    const unsigned T = HATF_RAW_TIME_SHIFT, U = HATF_RAW_UNIT_WORDS;
    const uint64_t raw[] = {
        10 << T | HATF_FN_MALLOC | HATF_RAW_SHORT, 0x1000 | 16ull << 48,  /* short: 1 unit */
        11 << T | HATF_FN_FREE, 0x1000, 0, 0, 0, 0,                        /* long: 3 */
        12 << T | HATF_FN_CALLOC, 0x2000, 1, 16, 0, 0,                     /* plain too */
        13 << T | HATF_FN_CALLOC | 0x20, 0x3000, 1, 16, 7, 0,  /* a flag bit (a stack): not plain */
        14 << T | HATF_FN_MALLOC | 0x80, 0, 8, 0, 0, 0,
    };
    size_t events = 99;
    CU_ASSERT_EQUAL(hatf_writer_add_plain_(w, 1, raw, 13, &events), 7);
    CU_ASSERT_EQUAL(events, 3);
    CU_ASSERT_EQUAL(hatf_writer_add_plain_(w, 1, raw + 7 * U, 6, &events), 0);
    CU_ASSERT_EQUAL(events, 0);
    CU_ASSERT_EQUAL(hatf_writer_add_plain_(w, 1, raw + 10 * U, 3, &events), 0);
    CU_ASSERT_EQUAL(hatf_writer_close(w, NULL, &err), 0);
}

static CU_TestInfo tests[] = {
    { "plain events only, every way", test_plain_only },
    { "between events that are not plain", test_mixed },
    { "between many events that are not plain", test_dense },
    { "stops at the first that is not plain", test_stops_at_other },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = {
    { .pName = "writer_plain", .pTests = tests },
    CU_SUITE_INFO_NULL,
};
