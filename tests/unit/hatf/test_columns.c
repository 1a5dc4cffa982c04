/* test_columns.c — hatf_source_read_columns: every op's row, packed columns
 * and an array of structs, batches of any size against hatf_source_next,
 * the time unit, columns left out, errors after some rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cunit_main.h"
#include "hatf.h"
#include "hatf_source.h"

static char path[256];

static const char *write_file(const char *name, const char *text)
{
    ut_path(path, sizeof path, "%s", name);
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(text, 1, strlen(text), f), strlen(text));
    fclose(f);
    return path;
}

/* Every op once; times in units of 1000/3 ns (the '# container' line). */
static const char trace[] =
    "#hatrace-text 1\n"
    "# container 1.0 pid 7 ppid 1 start 1970-01-01T00:00:00Z clock CLOCK_MONOTONIC unit 1000/3 ns 64-bit "
    "cmdline \"prog a\"\n"
    "0 0 0 comment \"hello\"\n"
    "10 1 0 alloc 24 0x1000 func=malloc stack=3\n"
    "11 1 0 alloc 64 0x2000 func=calloc nmemb=4\n"
    "12 1 0 realloc-move 48 0x1000 -> 0x3000 func=realloc stack=9\n"
    "13 1 0 free 0x0 func=free\n"
    "14 2 0 thread-create ostid=4242 parent=1\n"
    "15 2 5 heap-create\n"
    "16 2 5 alloc 100 0x5000\n"
    "17 2 0 realloc-new 16 0x0 -> 0x6000 func=realloc\n"
    "18 1 0 realloc-inplace 128 0x2000 -> 0x2000 func=realloc\n"
    "19 2 5 heap-destroy\n"
    "20 1 0 realloc-free 0 0x3000 -> 0x0 func=realloc\n"
    "21 2 0 free 0x6000 func=free\n"
    "22 1 0 alloc 99999999 0x0 func=malloc failed=1\n"
    "23 1 0 realloc-inplace 77777777 0x2000 -> 0x2000 func=realloc failed=1\n"
    "24 2 0 thread-destroy\n"
    "25 2 0 alloc 8 0x7000 func=200\n";

#define ROWS 17

/* The rows the trace must give: time, thread, heap, op, size, address,
 * old_address, function, stack, failed. */
static const uint64_t want[ROWS][10] = {
    { 0, 0, 0, HATF_OP_COMMENT, 0, 0, 0, 0, 0, 0 },
    { 10, 1, 0, HATF_OP_ALLOC, 24, 0x1000, 0, HATF_FN_MALLOC, 3, 0 },
    { 11, 1, 0, HATF_OP_ALLOC, 64, 0x2000, 0, HATF_FN_CALLOC, 0, 0 },
    { 12, 1, 0, HATF_OP_REALLOC_MOVE, 48, 0x3000, 0x1000, HATF_FN_REALLOC, 9, 0 },
    { 13, 1, 0, HATF_OP_FREE, 0, 0, 0, HATF_FN_FREE, 0, 0 },
    { 14, 2, 0, HATF_OP_THREAD_CREATE, 0, 0, 0, 0, 0, 0 },
    { 15, 2, 5, HATF_OP_HEAP_CREATE, 0, 0, 0, 0, 0, 0 },
    { 16, 2, 5, HATF_OP_ALLOC, 100, 0x5000, 0, HATF_FN_MALLOC, 0, 0 },  /* no func: malloc */
    { 17, 2, 0, HATF_OP_REALLOC_NEW, 16, 0x6000, 0, HATF_FN_REALLOC, 0, 0 },
    { 18, 1, 0, HATF_OP_REALLOC_INPLACE, 128, 0x2000, 0x2000, HATF_FN_REALLOC, 0, 0 },
    { 19, 2, 5, HATF_OP_HEAP_DESTROY, 0, 0, 0, 0, 0, 0 },
    { 20, 1, 0, HATF_OP_REALLOC_FREE, 0, 0, 0x3000, HATF_FN_REALLOC, 0, 0 },
    { 21, 2, 0, HATF_OP_FREE, 0, 0x6000, 0, HATF_FN_FREE, 0, 0 },
    { 22, 1, 0, HATF_OP_ALLOC, 99999999, 0, 0, HATF_FN_MALLOC, 0, 1 },
    { 23, 1, 0, HATF_OP_REALLOC_INPLACE, 77777777, 0x2000, 0x2000, HATF_FN_REALLOC, 0, 1 },
    { 24, 2, 0, HATF_OP_THREAD_DESTROY, 0, 0, 0, 0, 0, 0 },
    { 25, 2, 0, HATF_OP_ALLOC, 8, 0x7000, 0, HATF_COLUMNS_FN_OTHER, 0, 0 },  /* a code unknown here */
};

typedef struct cols {
    uint64_t time[ROWS + 1], time_ns[ROWS + 1], thread[ROWS + 1], heap[ROWS + 1], size[ROWS + 1];
    uint64_t address[ROWS + 1], old_address[ROWS + 1], stack[ROWS + 1];
    uint8_t op[ROWS + 1], function[ROWS + 1], failed[ROWS + 1];
} cols;

static hatf_columns packed(cols *k, size_t at)
{
    return (hatf_columns){ .time = k->time + at, .time_ns = k->time_ns + at, .thread = k->thread + at,
                           .heap = k->heap + at, .size = k->size + at, .address = k->address + at,
                           .old_address = k->old_address + at, .stack = k->stack + at, .op = k->op + at,
                           .function = k->function + at, .failed = k->failed + at };
}

static void check_row(const cols *k, size_t i)
{
    const uint64_t *w = want[i];
    uint64_t got[10] = { k->time[i], k->thread[i], k->heap[i], k->op[i], k->size[i], k->address[i],
                         k->old_address[i], k->function[i], k->stack[i], k->failed[i] };
    for (int j = 0; j < 10; j++)
        if (got[j] != w[j]) {
            fprintf(stderr, "row %zu column %d: %llu, want %llu\n", i, j, (unsigned long long)got[j],
                    (unsigned long long)w[j]);
            CU_FAIL("a column differs");
        }
    CU_ASSERT_EQUAL(k->time_ns[i], w[0] * 1000 / 3);
}

/* Every batch size from 1 to past the end gives the same rows. */
static void test_batches(void)
{
    const char *p = write_file("all.txt", trace);
    for (size_t batch = 1; batch <= ROWS + 1; batch++) {
        hatf_err err = { 0 };
        hatf_source *s = hatf_source_open(p, HATF_FMT_TEXT, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        cols *k = calloc(1, sizeof *k);
        CU_ASSERT_PTR_NOT_NULL_FATAL(k);
        size_t n = 0;
        int rc;
        while (n < ROWS + 1) {
            hatf_columns c = packed(k, n);
            size_t room = ROWS + 1 - n < batch ? ROWS + 1 - n : batch;
            if ((rc = hatf_source_read_columns(s, &c, room)) <= 0) break;
            CU_ASSERT((size_t)rc <= room);
            n += (size_t)rc;
        }
        CU_ASSERT_EQUAL(n, ROWS);
        for (size_t i = 0; i < n && i < ROWS; i++) check_row(k, i);
        hatf_columns c = packed(k, 0);
        CU_ASSERT_EQUAL(hatf_source_read_columns(s, &c, 4), 0);  /* the end, again */
        CU_ASSERT_EQUAL(hatf_source_record(s), ROWS - 1);
        free(k);
        hatf_source_close(s);
    }
}

/* One stride for all: the columns are the fields of an array of structs,
 * here rows of 19 bytes where no 8-byte field is aligned; columns left out
 * are not written. */
enum { ROW = 19 };

static uint64_t get64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static void test_struct_rows(void)
{
    hatf_err err = { 0 };
    hatf_source *s = hatf_source_open(write_file("rows.txt", trace), HATF_FMT_TEXT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    /* a row: op at 0, time at 1, address at 9, failed at 17, a byte left alone at 18 */
    unsigned char r[ROWS * ROW + 1];
    memset(r, 'x', sizeof r);
    hatf_columns c = { .stride = ROW, .op = r, .time = (uint64_t *)(void *)(r + 1),
                       .address = (uint64_t *)(void *)(r + 9), .failed = r + 17 };
    CU_ASSERT_EQUAL(hatf_source_read_columns(s, &c, ROWS), ROWS);
    for (size_t i = 0; i < ROWS; i++) {
        const unsigned char *x = r + i * ROW;
        CU_ASSERT(x[0] == want[i][3] && get64(x + 1) == want[i][0] && get64(x + 9) == want[i][5] &&
                  x[17] == want[i][9] && x[18] == 'x');
    }
    CU_ASSERT_EQUAL(r[ROWS * ROW], 'x');
    hatf_source_close(s);
}

/* Rows before a bad line come first; the next call gives the error, and
 * keeps giving it. Bad arguments are usage errors. */
static void test_errors(void)
{
    hatf_err err = { 0 };
    const char bad[] = "#hatrace-text 1\n1 1 0 alloc 8 0x10\n2 1 0 alloc 9 0x20\n3 1 0 free 0x1z\n";
    hatf_source *s = hatf_source_open(write_file("bad.txt", bad), HATF_FMT_TEXT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    uint64_t size[8] = { 0 };
    hatf_columns c = { .size = size };
    CU_ASSERT_EQUAL(hatf_source_read_columns(s, &c, 8), 2);
    CU_ASSERT(size[0] == 8 && size[1] == 9);
    CU_ASSERT_EQUAL(hatf_source_read_columns(s, &c, 8), HATF_E_CORRUPT);
    CU_ASSERT_EQUAL(hatf_source_error(s)->record, 2);
    CU_ASSERT_EQUAL(hatf_source_read_columns(s, &c, 8), HATF_E_CORRUPT);
    CU_ASSERT_EQUAL(hatf_source_read_columns(s, NULL, 8), HATF_E_USAGE);
    CU_ASSERT_EQUAL(hatf_source_read_columns(NULL, &c, 8), HATF_E_USAGE);
    CU_ASSERT_EQUAL(hatf_source_read_columns(s, &c, 0), HATF_E_USAGE);
    hatf_source_close(s);
}

/* A container of two threads: the rows come in hatf_source_next's order. */
static void test_container_order(void)
{
    enum { N = 3000 };
    char cpath[256];
    ut_path(cpath, sizeof cpath, "two.hatf");
    hatf_info info = { .address_bits = 64, .time_unit_ns_num = 1000, .time_unit_ns_den = 1 };
    hatf_err err = { 0 };
    hatf_writer *w = hatf_writer_create(cpath, 1, &info, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    for (uint64_t t = 1; t <= 2; t++)
        for (uint64_t i = 0; i < N; i++) {
            hatf_event e = { .op = i % 2 ? HATF_OP_FREE : HATF_OP_ALLOC, .thread = t, .time = i / 2 * 3 + t,
                             .size = 16 + i, .addr = t << 20 | (i / 2) << 4 };
            if (e.op == HATF_OP_FREE) e.size = 0;
            CU_ASSERT_EQUAL_FATAL(hatf_writer_add(w, &e, 1), 0);
        }
    CU_ASSERT_EQUAL_FATAL(hatf_writer_close(w, NULL, &err), 0);

    hatf_source *a = hatf_source_open(cpath, HATF_FMT_AUTO, &err);
    hatf_source *b = hatf_source_open(cpath, HATF_FMT_AUTO, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    static uint64_t time[2 * N], time_ns[2 * N], thread[2 * N], addr[2 * N];
    size_t n = 0;
    int rc;
    do {
        hatf_columns c = { .time = time + n, .time_ns = time_ns + n, .thread = thread + n, .address = addr + n };
        rc = hatf_source_read_columns(a, &c, 2 * N - n < 777 ? 2 * N - n : 777);
        n += rc > 0 ? (size_t)rc : 0;
    } while (rc > 0 && n < 2 * N);
    CU_ASSERT_EQUAL(n, 2 * N);
    hatf_event ev;
    for (size_t i = 0; i < n; i++) {
        CU_ASSERT_EQUAL_FATAL(hatf_source_next(b, &ev), 1);
        CU_ASSERT(ev.time == time[i] && ev.thread == thread[i] && ev.addr == addr[i] && time_ns[i] == 1000 * time[i]);
    }
    CU_ASSERT_EQUAL(hatf_source_next(b, &ev), 0);
    hatf_source_close(a);
    hatf_source_close(b);
}

static CU_TestInfo tests[] = {
    { "every op, any batch size", test_batches },
    { "array of structs", test_struct_rows },
    { "errors", test_errors },
    { "container order", test_container_order },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = {
    { .pName = "columns", .pTests = tests },
    CU_SUITE_INFO_NULL,
};
