/* test_iter_batch.c — the container iterators' batched read path: runs
 * handed out by hatf_iter_next_batch, the global merge's runs between
 * threads, mixing with hatf_iter_next, and damage met inside a run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cunit_main.h"
#include "merge_key.h"
#include "hatf_container.h"
#include "container/container_format.h"
#include "container/container_internal.h"

static char path[256];

static uint64_t rng = 0x243F6A8885A308D3ull;
static uint64_t rnd(void) { return ut_xorshift(&rng); }

/* n events of thread t: allocs and frees of its own objects, comments, runs
 * of times that interleave with the other threads, equal times. */
static size_t make_thread(hatf_event *ev, uint64_t t, size_t n)
{
    uint64_t live[32], time = rnd() % 50;
    size_t nlive = 0;
    for (size_t i = 0; i < n; i++) {
        if (rnd() % 8 == 0) time += rnd() % 40;  /* another thread's turn */
        else time += rnd() % 2;                 /* equal times happen */
        hatf_event e = { .thread = t, .time = time, .size = 16 + rnd() % 100 };
        if (i % 37 == 36) {
            e = (hatf_event){ .op = HATF_OP_COMMENT, .data = (const uint8_t *)"note", .data_len = 4 };
        } else if (nlive && (nlive == 32 || rnd() % 2)) {
            e.op = HATF_OP_FREE;
            e.size = 0;
            size_t j = rnd() % nlive;
            e.addr = live[j];
            live[j] = live[--nlive];
        } else {
            e.op = HATF_OP_ALLOC;
            e.addr = (t << 32) + 0x1000 + 32 * i;
            live[nlive++] = e.addr;
        }
        ev[i] = e;
    }
    return n;
}

static int same(const hatf_event *a, const hatf_event *b)
{
    return a->op == b->op && a->size == b->size && a->addr == b->addr && a->thread == b->thread &&
           a->time == b->time && a->data_len == b->data_len &&
           (a->data_len == 0 || memcmp(a->data, b->data, a->data_len) == 0);
}

/* The merge order: by time (a comment takes its thread's last time, 0 before
 * any), ties to the lower thread, then stream order. */
static size_t expected_order(hatf_event **ev, const size_t *n, size_t nt, hatf_event *out)
{
    size_t pos[8] = {0}, k = 0;
    uint64_t last[8] = {0};
    for (;;) {
        size_t best = nt;
        uint64_t bk = 0;
        for (size_t t = 0; t < nt; t++) {
            if (pos[t] == n[t]) continue;
            const hatf_event *e = &ev[t][pos[t]];
            uint64_t key = e->op == HATF_OP_COMMENT ? last[t] : ref_merge_key(e);
            if (best == nt || key < bk) { best = t; bk = key; }  /* threads numbered in order */
        }
        if (best == nt) return k;
        last[best] = bk;
        out[k++] = ev[best][pos[best]++];
    }
}

static void write_file(hatf_event **ev, const size_t *n, size_t nt, size_t chunk_events)
{
    hatf_err err = {0};
    hatf_writer_opts o = { .chunk_events = chunk_events };
    unlink(path);
    hatf_writer *w = hatf_writer_create(path, 0, NULL, &o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    for (size_t t = 0; t < nt; t++) CU_ASSERT_EQUAL(hatf_writer_add(w, ev[t], n[t]), 0);
    CU_ASSERT_EQUAL(hatf_writer_close(w, NULL, &err), 0);
}

/* A run never mixes threads; hand-computed runs of the global iterator. */
static void test_runs_by_hand(void)
{
    hatf_event a[] = {  /* thread 1 */
        { .op = HATF_OP_ALLOC, .thread = 1, .time = 1, .size = 8, .addr = 0x100 },
        { .op = HATF_OP_ALLOC, .thread = 1, .time = 2, .size = 8, .addr = 0x200 },
        { .op = HATF_OP_FREE, .thread = 1, .time = 3, .addr = 0x100 },
        { .op = HATF_OP_FREE, .thread = 1, .time = 5, .addr = 0x200 },  /* tie with thread 2: first */
        { .op = HATF_OP_COMMENT, .data = (const uint8_t *)"c", .data_len = 1 },  /* keeps time 5 */
        { .op = HATF_OP_ALLOC, .thread = 1, .time = 10, .size = 8, .addr = 0x300 },
    };
    hatf_event b[] = {  /* thread 2 */
        { .op = HATF_OP_ALLOC, .thread = 2, .time = 4, .size = 8, .addr = 0x900 },
        { .op = HATF_OP_ALLOC, .thread = 2, .time = 5, .size = 8, .addr = 0xa00 },
        { .op = HATF_OP_FREE, .thread = 2, .time = 6, .addr = 0x900 },
        { .op = HATF_OP_FREE, .thread = 2, .time = 12, .addr = 0xa00 },
    };
    hatf_event *ev[2] = { a, b };
    size_t n[2] = { 6, 4 };
    write_file(ev, n, 2, 0);
    hatf_err err = {0};
    hatf_reader *r = hatf_reader_open(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    hatf_iter *it = hatf_iter_global(r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(it);
    /* runs: t1 {1,2,3}, t2 {4}, t1 {5,comment}, t2 {5,6}, t1 {10}, t2 {12} */
    static const int want_len[] = { 3, 1, 2, 2, 1, 1 };
    static const uint64_t want_first[] = { 1, 4, 5, 5, 10, 12 };
    static const uint64_t want_thread[] = { 1, 2, 1, 2, 1, 2 };
    const hatf_event *e;
    int k, runs = 0;
    while ((k = hatf_iter_next_batch(it, &e)) > 0 && runs < 6) {
        CU_ASSERT_EQUAL(k, want_len[runs]);
        CU_ASSERT_EQUAL(e[0].time, want_first[runs]);
        CU_ASSERT_EQUAL(e[0].thread, want_thread[runs]);
        runs++;
    }
    CU_ASSERT_EQUAL(runs, 6);
    CU_ASSERT_EQUAL(k, 0);
    CU_ASSERT_EQUAL(hatf_iter_next_batch(it, &e), 0);  /* stays at the end */
    hatf_iter_free(it);

    /* a thread iterator hands out one run per decoded batch */
    it = hatf_iter_thread(r, 1);
    CU_ASSERT_EQUAL(hatf_iter_next_batch(it, &e), 6);
    CU_ASSERT_EQUAL(e[4].op, HATF_OP_COMMENT);
    CU_ASSERT_EQUAL(e[4].data_len, 1);
    CU_ASSERT_EQUAL(e[4].data[0], 'c');
    CU_ASSERT_EQUAL(hatf_iter_next_batch(it, &e), 0);
    hatf_iter_free(it);
    hatf_reader_close(r);
}

/* Runs of a thread iterator follow the chunk groups and the batch size. */
static void test_thread_runs(void)
{
    static hatf_event a[1000];
    hatf_event *ev[1] = { a };
    size_t n[1] = { make_thread(a, 1, 1000) };
    write_file(ev, n, 1, 300);
    hatf_err err = {0};
    hatf_reader *r = hatf_reader_open(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    hatf_iter *it = hatf_iter_thread(r, 1);
    /* groups of 300, 300, 300, 100 events, each decoded HATF_CURSOR_BATCH at a time */
    size_t want[16], nw = 0;
    for (size_t g = 0; g < 4; g++)
        for (size_t left = g < 3 ? 300 : 100; left; ) {
            size_t k = left < HATF_CURSOR_BATCH ? left : HATF_CURSOR_BATCH;
            want[nw++] = k;
            left -= k;
        }
    const hatf_event *e;
    int k;
    size_t runs = 0, pos = 0, bad = 0;
    while ((k = hatf_iter_next_batch(it, &e)) > 0) {
        if (runs < nw) CU_ASSERT_EQUAL((size_t)k, want[runs]);
        for (int i = 0; i < k; i++, pos++)
            if (pos >= 1000 || !same(&e[i], &a[pos])) bad++;
        runs++;
    }
    CU_ASSERT_EQUAL(k, 0);
    CU_ASSERT_EQUAL(runs, nw);
    CU_ASSERT_EQUAL(pos, 1000);
    CU_ASSERT_EQUAL(bad, 0);
    hatf_iter_free(it);
    hatf_reader_close(r);
}

/* Four threads, groups that end inside batches: hatf_iter_next, batches,
 * and the two mixed all give the merge order. */
static void test_global_merge(void)
{
    static hatf_event th[4][3000], want[12000];
    hatf_event *ev[4];
    size_t n[4], total = 0;
    for (size_t t = 0; t < 4; t++) {
        ev[t] = th[t];
        n[t] = make_thread(th[t], t + 1, 1000 + 600 * t);
        total += n[t];
    }
    CU_ASSERT_EQUAL_FATAL(expected_order(ev, n, 4, want), total);
    write_file(ev, n, 4, 700);
    hatf_err err = {0};
    hatf_reader *r = hatf_reader_open(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    for (int mode = 0; mode < 3; mode++) {  /* next, batch, alternating */
        hatf_iter *it = hatf_iter_global(r);
        size_t pos = 0, bad = 0, calls = 0, mixed = 0;
        int k = 0;
        for (;;) {
            const hatf_event *e;
            hatf_event one;
            if (mode == 0 || (mode == 2 && calls % 2)) {
                k = hatf_iter_next(it, &one);
                e = &one;
            } else {
                k = hatf_iter_next_batch(it, &e);
            }
            calls++;
            if (k <= 0) break;
            uint64_t run_thread = 0;  /* comments carry no thread */
            for (int i = 0; i < k; i++, pos++) {
                if (pos >= total || !same(&e[i], &want[pos])) bad++;
                if (e[i].op == HATF_OP_COMMENT) continue;
                if (run_thread && e[i].thread != run_thread) mixed++;
                run_thread = e[i].thread;
            }
        }
        CU_ASSERT_EQUAL(k, 0);
        CU_ASSERT_EQUAL(pos, total);
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT_EQUAL(mixed, 0);
        if (mode == 1) CU_ASSERT(calls < total / 2);  /* runs, not single events */
        hatf_iter_free(it);
    }
    hatf_reader_close(r);
}

/* A bad chunk of kind inside the file (the second group of thread 1): the
 * batch before it, one error naming that chunk's offset, then the rest. */
static void damage_in_batches(unsigned kind)
{
    static hatf_event a[900], b[900];
    hatf_event *ev[2] = { a, b };
    size_t n[2] = { make_thread(a, 1, 900), make_thread(b, 2, 900) };
    write_file(ev, n, 2, 300);
    FILE *f = fopen(path, "r+b");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    uint8_t buf[1 << 16];
    size_t len = fread(buf, 1, sizeof buf, f);
    CU_ASSERT_FATAL(len < sizeof buf);
    /* flip a payload byte */
    size_t pos = hatf_load_le32(buf + 12), seen = 0, hit = 0, chunk = 0;
    while (pos + HATF_CK_HDR <= len) {
        hatf_chunk_hdr h;
        if (hatf_ck_hdr_unpack(buf + pos, &h) != 0) break;
        if (h.kind == kind && h.thread == 1 && seen++ == 1) {
            chunk = pos;
            hit = pos + HATF_CK_HDR + 3;
            break;
        }
        pos += HATF_CK_HDR + h.stored_len;
    }
    CU_ASSERT_FATAL(hit != 0);
    buf[hit] ^= 0x20;
    fseek(f, 0, SEEK_SET);
    fwrite(buf, 1, len, f);
    fclose(f);
    char prefix[40];
    snprintf(prefix, sizeof prefix, "offset %zu: ", chunk);

    hatf_err err = {0};
    hatf_reader *r = hatf_reader_open(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    for (int global = 0; global < 2; global++) {
        hatf_iter *it = global ? hatf_iter_global(r) : hatf_iter_thread(r, 1);
        const hatf_event *e;
        int k;
        size_t got = 0, errors = 0, before_error = 0;
        while ((k = hatf_iter_next_batch(it, &e)) != 0) {
            if (k < 0) {
                const hatf_err *ie = hatf_iter_error(it);
                errors++;
                CU_ASSERT_EQUAL(k, HATF_E_CORRUPT);
                CU_ASSERT_PTR_NOT_NULL(strstr(ie->msg, "checksum mismatch"));
                /* the offset is the damaged chunk's, the one the message names */
                CU_ASSERT_EQUAL(ie->offset, chunk);
                CU_ASSERT_EQUAL(strncmp(ie->msg, prefix, strlen(prefix)), 0);
                CU_ASSERT_PTR_EQUAL(hatf_err_text(ie), ie->msg + strlen(prefix));
                before_error = got;
                if (errors > 5) break;
                continue;
            }
            got += (size_t)k;
        }
        CU_ASSERT_EQUAL(errors, 1);
        CU_ASSERT_EQUAL(got, global ? 1500 : 600);  /* group 1 of thread 1 lost */
        if (!global) CU_ASSERT_EQUAL(before_error, 300);
        hatf_iter_free(it);
    }
    hatf_reader_close(r);
}

static void test_damage_in_batches(void) { damage_in_batches(HATF_CK_RECORDS); }
static void test_damage_in_addresses(void) { damage_in_batches(HATF_CK_ADDRS); }

/* hatf_err_text drops only a leading "offset N: " that names the error's own offset. */
static void test_err_text(void)
{
    hatf_err e = {0};
    CU_ASSERT_STRING_EQUAL(hatf_err_text(&e), hatf_strerror(0));
    hatf_err_set(&e, HATF_E_CORRUPT, 4096, "offset 4096: records chunk bad");
    CU_ASSERT_STRING_EQUAL(hatf_err_text(&e), "records chunk bad");
    hatf_err f = {0};
    hatf_err_set(&f, HATF_E_CORRUPT, 409, "offset 4096: records chunk bad");
    CU_ASSERT_STRING_EQUAL(hatf_err_text(&f), "offset 4096: records chunk bad");
    hatf_err g = {0};
    hatf_err_set(&g, HATF_E_VERSION, 8, "version 2.0 is newer");
    CU_ASSERT_STRING_EQUAL(hatf_err_text(&g), "version 2.0 is newer");
}

static int setup(void)
{
    ut_path(path, sizeof path, "batch.hatf");
    return 0;
}

static CU_TestInfo tests[] = {
    { "runs by hand", test_runs_by_hand },
    { "thread runs", test_thread_runs },
    { "global merge", test_global_merge },
    { "damage in batches", test_damage_in_batches },
    { "damage in addresses", test_damage_in_addresses },
    { "error text", test_err_text },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = {
    { .pName = "iter_batch", .pInitFunc = setup, .pTests = tests },
    CU_SUITE_INFO_NULL,
};
