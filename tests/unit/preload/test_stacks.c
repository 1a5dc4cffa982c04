/* test_stacks.c — call stacks: the per-thread dedup table and its
 * process-wide ids (preload/stacks.c), and the stack, module and symbol
 * entries of the container's tables stream (hatf/container/container_tables.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cunit_main.h"
#include "hatf_container.h"
#include "ring.h"
#include "recorder.h"
#include "prim.h"
#include "stacks.h"

static ht_ring *new_ring(uint32_t cap)
{
    ht_ring *r = aligned_alloc(64, (ht_ring_bytes(cap) + 63) & ~(size_t)63);
    memset(r, 0, ht_ring_bytes(cap));
    ht_ring_init(r, cap);
    return r;
}

/* hook() plays malloc (skipped with ht_stack_here's own frame); caller_a and
 * caller_b are two allocation sites; in_ring runs one on a given ring. With
 * depth 2 a stack is [caller's return address, in_ring's]. */
#define KEEP() __asm__ volatile("" ::: "memory")
static __attribute__((noinline)) uint64_t hook(void) { uint64_t id = ht_stack_here(); KEEP(); return id; }
static __attribute__((noinline)) uint64_t caller_a(void) { uint64_t id = hook(); KEEP(); return id; }
static __attribute__((noinline)) uint64_t caller_b(void) { uint64_t id = hook(); KEEP(); return id; }
static __attribute__((noinline)) uint64_t in_ring(ht_ring *r, uint64_t (*f)(void))
{
    ht_t.ring = r;
    uint64_t id = f();
    KEEP();
    return id;
}

/* The i-th unit of a ring's run as the event starting there. */
static const ht_rawev *ev_at(const uint64_t *w, size_t i)
{
    return (const ht_rawev *)(const void *)&w[i * HT_UNIT_WORDS];
}

/* STACK events waiting in r: their count, and the last one in *last. */
static size_t stack_events(ht_ring *r, ht_rawev *last)
{
    const uint64_t *w;
    size_t n = ht_ring_peek(r, &w, 1000), k = 0;
    for (size_t i = 0; i < n; i += hatf_raw_units(w[i * HT_UNIT_WORDS]))
        if ((ev_at(w, i)->tk & HT_KIND_MASK) == HT_K_STACK) { k++; *last = *ev_at(w, i); }
    return k;
}

/* The flusher's part: take every event waiting in r (the stacks' frames). */
static void take_all(ht_ring *r)
{
    const uint64_t *w;
    size_t n = ht_ring_peek(r, &w, 1000), i = 0;
    while (i < n) {
        ht_stacks_take(NULL, r, ev_at(w, i));
        i += hatf_raw_units(w[i * HT_UNIT_WORDS]);
    }
    ht_ring_consume(r, i);
}

static void test_dedup_and_global_ids(void)
{
    ht_ring *r1 = new_ring(64), *r2 = new_ring(64);
    ht_stack_depth = 2;
    ht_untraced_enter(&ht_t);  /* as thread_attach does (pre: untraced) */
    ht_stacks_attach(r1);
    ht_stacks_attach(r2);
    ht_untraced_leave(&ht_t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r1->stk);

    uint64_t a[3], b1;
    for (int i = 0; i < 3; i++) a[i] = in_ring(r1, caller_a);
    b1 = in_ring(r1, caller_b);
    CU_ASSERT(a[0] != 0);
    CU_ASSERT(a[0] == a[1] && a[1] == a[2]);  /* same stack: same local id, announced once */
    CU_ASSERT(b1 != 0 && b1 != a[0]);
    ht_rawev last;
    CU_ASSERT_EQUAL(stack_events(r1, &last), 2);
    CU_ASSERT_EQUAL(last.a, b1);
    CU_ASSERT_EQUAL(last.c, 2);
    uint64_t a1 = a[0];

    /* the flusher gives ids in the order it takes stacks; a thread's ids map */
    take_all(r1);
    uint64_t ga = ht_stacks_gid(r1, a1), gb = ht_stacks_gid(r1, b1);
    CU_ASSERT(ga != 0 && gb != 0 && ga != gb);
    CU_ASSERT_EQUAL(ht_stacks_gid(r1, 0), 0);
    CU_ASSERT_EQUAL(ht_stacks_gid(r1, 12345), 0);  /* a slot never announced */

    /* another thread (ring) with the same stack gets the same global id */
    uint64_t b2 = in_ring(r2, caller_b);
    CU_ASSERT_EQUAL(stack_events(r2, &last), 1);
    take_all(r2);
    CU_ASSERT_EQUAL(ht_stacks_gid(r2, b2), gb);

    /* inside a hook (busy) or untraced: no stack, nothing written */
    ht_t.busy = 1;
    CU_ASSERT_EQUAL(in_ring(r2, caller_a), 0);
    ht_t.busy = 0;
    ht_t.untraced = 1;
    CU_ASSERT_EQUAL(in_ring(r2, caller_a), 0);
    ht_t.untraced = 0;
    CU_ASSERT_EQUAL(ht_ring_fill(r2), 0);
    ht_t.ring = NULL;
    ht_stack_depth = 0;
}

static void test_table_entries(void)
{
    char path[] = "/tmp/test_stacks.XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    hatf_info info;
    memset(&info, 0, sizeof info);
    info.address_bits = 64;
    info.time_unit_ns_num = info.time_unit_ns_den = 1;
    hatf_err err = {0};
    hatf_writer *w = hatf_writer_open_fd(fd, &info, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    uint64_t f1[3] = { 0x401000, 0x7f0000001234, 0x401800 };
    uint64_t f2[1] = { 0x1 };
    uint64_t big[300];
    for (int i = 0; i < 300; i++) big[i] = 0x400000 + (uint64_t)i;
    CU_ASSERT_EQUAL(hatf_writer_stack(w, 2, f2, 1), 0);
    CU_ASSERT_EQUAL(hatf_writer_stack(w, 1, f1, 3), 0);
    CU_ASSERT_EQUAL(hatf_writer_stack(w, 3, big, 300), 0);  /* cut at HATF_STACK_MAX */
    hatf_module m = { .id = 1, .start = 0x400000, .end = 0x402000, .bias = 0,
                      .build_id = { 0xde, 0xad, 0xbe, 0xef }, .build_id_len = 4, .path = "/usr/bin/prog" };
    CU_ASSERT_EQUAL(hatf_writer_module(w, &m), 0);
    hatf_symbol s1 = { .addr = 0x401000, .module = 1, .offset = 0x10, .name = "main" };
    hatf_symbol s2 = { .addr = 0x401800, .module = 1, .offset = 0, .name = "" };
    CU_ASSERT_EQUAL(hatf_writer_symbol(w, &s1), 0);
    CU_ASSERT_EQUAL(hatf_writer_symbol(w, &s2), 0);
    hatf_event ev = { .op = HATF_OP_ALLOC, .size = 8, .addr = 0x1000, .thread = 1, .time = 1 };
    CU_ASSERT_EQUAL(hatf_writer_add(w, &ev, 1), 0);
    CU_ASSERT_EQUAL(hatf_writer_close(w, NULL, &err), 0);

    hatf_reader *r = hatf_reader_open(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(hatf_reader_damage(r, NULL), 0);
    CU_ASSERT_EQUAL(hatf_reader_stack_count(r), 3);
    const uint64_t *fr;
    CU_ASSERT_EQUAL(hatf_reader_stack(r, 1, &fr), 3);
    CU_ASSERT(fr[0] == 0x401000 && fr[1] == 0x7f0000001234 && fr[2] == 0x401800);
    CU_ASSERT_EQUAL(hatf_reader_stack(r, 2, &fr), 1);
    CU_ASSERT_EQUAL(fr[0], 1);
    CU_ASSERT_EQUAL(hatf_reader_stack(r, 3, &fr), HATF_STACK_MAX);
    CU_ASSERT_EQUAL(fr[HATF_STACK_MAX - 1], 0x400000 + HATF_STACK_MAX - 1);
    CU_ASSERT_EQUAL(hatf_reader_stack(r, 4, &fr), 0);
    const hatf_module *mods;
    CU_ASSERT_EQUAL_FATAL(hatf_reader_modules(r, &mods), 1);
    CU_ASSERT(mods[0].start == 0x400000 && mods[0].end == 0x402000 && mods[0].build_id_len == 4);
    CU_ASSERT(mods[0].build_id[3] == 0xef);
    CU_ASSERT_STRING_EQUAL(mods[0].path, "/usr/bin/prog");
    const hatf_symbol *s = hatf_reader_symbol(r, 0x401000);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_STRING_EQUAL(s->name, "main");
    CU_ASSERT(s->offset == 0x10 && s->module == 1);
    s = hatf_reader_symbol(r, 0x401800);
    CU_ASSERT(s && s->name[0] == 0);
    CU_ASSERT_PTR_NULL(hatf_reader_symbol(r, 0x401001));
    hatf_reader_close(r);
    unlink(path);
}

/* An id given twice (or more) in the tables: the reader keeps the first entry,
 * for stacks, modules and symbols alike, whatever order its sort leaves. */
static void test_repeated_ids(void)
{
    char path[256];
    hatf_info info;
    memset(&info, 0, sizeof info);
    info.address_bits = 64;
    info.time_unit_ns_num = info.time_unit_ns_den = 1;
    hatf_err err = {0};
    hatf_writer *w = hatf_writer_create(ut_path(path, sizeof path, "repeated.hatf"), 0, &info, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    uint64_t f[3] = { 0xa, 0xb, 0xc };
    CU_ASSERT_EQUAL(hatf_writer_stack(w, 5, f, 1), 0);
    CU_ASSERT_EQUAL(hatf_writer_stack(w, 7, f, 0), 0);  /* no frames: shares its offset with the next */
    CU_ASSERT_EQUAL(hatf_writer_stack(w, 7, f + 1, 2), 0);
    CU_ASSERT_EQUAL(hatf_writer_stack(w, 5, f + 1, 2), 0);
    char name[64];
    for (int i = 0; i < 200; i++) {  /* 20 modules and 20 symbols, each given 10 times */
        snprintf(name, sizeof name, "/lib/m%d-%.*s", i, i % 7 * 5, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
        hatf_module m = { .id = 1 + (uint64_t)(i * 7 % 20), .start = (uint64_t)i, .path = name };
        CU_ASSERT_EQUAL(hatf_writer_module(w, &m), 0);
        hatf_symbol s = { .addr = 0x401000 + (uint64_t)(i * 7 % 20), .offset = (uint64_t)i, .name = name + 5 };
        CU_ASSERT_EQUAL(hatf_writer_symbol(w, &s), 0);
    }
    hatf_event ev = { .op = HATF_OP_ALLOC, .size = 8, .addr = 0x1000, .thread = 1, .time = 1 };
    CU_ASSERT_EQUAL(hatf_writer_add(w, &ev, 1), 0);
    CU_ASSERT_EQUAL(hatf_writer_close(w, NULL, &err), 0);

    hatf_reader *r = hatf_reader_open(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(hatf_reader_stack_count(r), 2);
    const uint64_t *fr;
    CU_ASSERT_EQUAL(hatf_reader_stack(r, 5, &fr), 1);
    CU_ASSERT_EQUAL(fr[0], 0xa);
    CU_ASSERT_EQUAL(hatf_reader_stack(r, 7, &fr), 0);
    const hatf_module *mods;
    CU_ASSERT_EQUAL_FATAL(hatf_reader_modules(r, &mods), 20);
    for (int i = 0; i < 20; i++) {  /* the first entry of id 1 + i*7%20 is i's */
        int first = i * 3 % 20;     /* 7 * 3 = 1 (mod 20) */
        CU_ASSERT_EQUAL(mods[i].id, (uint64_t)i + 1);
        CU_ASSERT_EQUAL(mods[i].start, (uint64_t)first);
        snprintf(name, sizeof name, "/lib/m%d-%.*s", first, first % 7 * 5, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
        CU_ASSERT_STRING_EQUAL(mods[i].path, name);
        const hatf_symbol *s = hatf_reader_symbol(r, 0x401000 + (uint64_t)i);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        CU_ASSERT_EQUAL(s->offset, (uint64_t)first);
        CU_ASSERT_STRING_EQUAL(s->name, name + 5);
    }
    hatf_reader_close(r);
}

static CU_TestInfo tests[] = {
    { "dedup table and process-wide ids", test_dedup_and_global_ids },
    { "stack, module and symbol entries", test_table_entries },
    { "repeated ids: the first entry wins", test_repeated_ids },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = {
    { .pName = "stacks", .pTests = tests },
    CU_SUITE_INFO_NULL,
};
