/* test_metatf.c — the Meta-TF DTD parser's errors, the shipped HATF DTD, and
 * events written under it read back equal by the DTD-driven reader, from a
 * file and from a pipe (whose header counts stay "not known"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cunit_main.h"
#include "hatf.h"
#include "hatf_metatf.h"
#include "hatf_source.h"

static const char ok_head[] = "metatf-dtd 1\nsection s strings\nsection r records\n";

/* A DTD and the line its error must name (0: it parses). */
static const struct { const char *text; unsigned line; const char *says; } cases[] = {
    { "", 1, "empty DTD" },
    { "# only a comment\n", 1, "empty DTD" },
    { "metatf-dtd 2\n", 1, "newer than this reader" },
    { "record a 1\nend\n", 1, "first line must be" },
    { "metatf-dtd 1\nsection r records\nrecord a 1\n  field x uint 3\nend\n", 4, "unknown width '3'" },
    { "metatf-dtd 1\nsection r records\nrecord a 1\n  field x uint v1\nend\n", 4, "needs type text" },
    { "metatf-dtd 1\nsection r records\nrecord a 1\n  field x text 4\nend\n", 4, "needs a vfield width" },
    { "metatf-dtd 1\nsection r records\nrecord a 1\n  field x text 4 sectionOffset nope\nend\n", 4, "no section 'nope'" },
    { "metatf-dtd 1\nsection r records\nrecord a 1\n  field x text 4 sectionOffset r\nend\n", 4, "holds records" },
    { "metatf-dtd 1\nsection r records\nrecord a 1\n  x\nend\n", 4, "no field 'x' declared at the top" },
    { "metatf-dtd 1\nsection r records\nrecord a 1\n  field x uint 1\n  field x uint 1\nend\n", 5, "already a field" },
    { "metatf-dtd 1\nsection r records\nrecord a 1\n  repeat l n\n    field y uint 1\n  end\nend\n", 4, "no field 'n'" },
    { "metatf-dtd 1\nsection r records\nrecord a 1\n  field y uint 1\n", 4, "ends inside 'a'" },
    { "metatf-dtd 1\nsection r records\nrecord a 1\nend\nrecord b 1\nend\n", 5, "tag '1' is taken" },
    { "metatf-dtd 1\nsection r records\nrecord a 256\nend\n", 3, "does not fit the tag width" },
    { "metatf-dtd 1\nsection r records\nrecord a 1\n  group g\n  end\nend\n", 5, "'g' has no fields" },
    { "metatf-dtd 1\nsection r records\nrecord c 1 = comment\n  field n uint 1\nend\n", 5, "exactly one field" },
    { "metatf-dtd 1\nsection r records\nfield t 0 uint 4 delta\n", 3, "a number is missing" },
    { "metatf-dtd 1\nsection r records\nfield t 0 uint 4\nfield u 0 uint 4\n", 4, "field code '0' is taken" },
    { "metatf-dtd 1\nsection r records\nend\n", 3, "end without" },
    { "metatf-dtd 1\nsection r records\nrecord a 1\nend\nbogus\n", 5, "unknown line 'bogus'" },
    { "metatf-dtd 1\nsection s strings\nrecord a 1\nend\n", 4, "no records section" },
    { "metatf-dtd 1\nsection r records\nrecord a 1 = metadata\nrecord b 2\n  field \x01 uint 1\nend\n", 5, "not printable" },
    { "metatf-dtd 1\nsection r records\nrecord a 1\n  field y uint 1 stride 0 1\n  repeat l 65536\n", 5, "more than 65535" },
};

static void test_dtd_errors(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hatf_err err = { 0 };
        size_t len = strlen(cases[i].text);
        hatf_metatf_dtd *d = hatf_metatf_dtd_parse(cases[i].text, len, &err);
        CU_ASSERT_PTR_NULL(d);
        hatf_metatf_dtd_free(d);
        char want[32];
        snprintf(want, sizeof want, "DTD line %u: ", cases[i].line);
        if (strncmp(err.msg, want, strlen(want)) != 0 || !strstr(err.msg, cases[i].says))
            fprintf(stderr, "\ncase %zu: '%s', wanted '%s...%s'\n", i, err.msg, want, cases[i].says);
        CU_ASSERT(strncmp(err.msg, want, strlen(want)) == 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, cases[i].says));
        CU_ASSERT(err.code < 0 && !strchr(err.msg, '\n'));
        /* the offset is the named line's start */
        size_t off = 0;
        for (unsigned l = 1; l < cases[i].line && off < len; l++) off = (size_t)(strchr(cases[i].text + off, '\n') - cases[i].text) + 1;
        CU_ASSERT(err.offset == off || err.offset == len);
    }
}

static void test_dtd_good(void)
{
    static const char more[] =
        "name x-1\ntag 2\nfield t 3 uint 4 delta 5   # shared\n"
        "record a 300\n  t\n  u = t\n  field n uint 1\n  repeat l n\n    group g\n      field s text v2\n    end\n  end\nend\n"
        "record m 1 = metadata\nrecord c 2 = comment\n  field text text v1\nend\nrecord s 3 = section\n";
    char buf[1024];
    snprintf(buf, sizeof buf, "%s%s", ok_head, more);
    hatf_err err = { 0 };
    hatf_metatf_dtd *d = hatf_metatf_dtd_parse(buf, strlen(buf), &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_STRING_EQUAL(hatf_metatf_dtd_name(d), "x-1");
    CU_ASSERT_EQUAL(hatf_metatf_dtd_events(d), 0);
    hatf_metatf_dtd_free(d);

    /* the HATF DTD: the library's copy parses and equals docs/metatf/hatf.dtd */
    const char *h = hatf_metatf_hatf_dtd();
    d = hatf_metatf_dtd_parse(h, strlen(h), &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_STRING_EQUAL(hatf_metatf_dtd_name(d), "hatf-1.0");
    CU_ASSERT_EQUAL(hatf_metatf_dtd_events(d), 1);
    hatf_metatf_dtd_free(d);
    FILE *f = fopen("docs/metatf/hatf.dtd", "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    static char file[65536];
    size_t n = fread(file, 1, sizeof file - 1, f);
    fclose(f);
    file[n] = 0;
    CU_ASSERT_STRING_EQUAL(file, h);
}

#define NEV 300000

static void make_events(hatf_event *ev, uint8_t (*attr)[4])
{
    uint64_t rnd = 88172645463325252ull, t = 0;
    for (size_t i = 0; i < NEV; i++) {
        hatf_event *e = &ev[i];
        memset(e, 0, sizeof *e);
        uint64_t r = ut_xorshift(&rnd);
        t += r % 50;
        e->time = t;
        e->thread = 1 + (r >> 8) % 3;
        e->heap = (r >> 12) % 7 == 0 ? 2 : 0;
        switch ((r >> 16) % 6) {
        case 0: case 1: e->op = HATF_OP_ALLOC; e->size = (r >> 20) % 100000; e->addr = ut_xorshift(&rnd); break;
        case 2: e->op = HATF_OP_FREE; e->addr = ut_xorshift(&rnd); break;
        case 3: e->op = HATF_OP_REALLOC_MOVE; e->size = r >> 40; e->addr = r; e->new_addr = ut_xorshift(&rnd); break;
        case 4: e->op = HATF_OP_COMMENT; e->time = e->thread = e->heap = 0; e->data = (const uint8_t *)"phase"; e->data_len = 5; break;
        default: e->op = HATF_OP_THREAD_CREATE; e->heap = 0; break;
        }
        if (e->op != HATF_OP_COMMENT && (r >> 30) % 3 == 0) {  /* attribute bytes: func=calloc */
            attr[i][0] = 1;
            attr[i][1] = 2;
            e->attr_is_bytes = HATF_ATTRS_HATRACE;
            e->data = attr[i];
            e->data_len = 2;
        }
    }
}

static void check_read(const char *p, const hatf_event *want, int known)
{
    hatf_err err = { 0 };
    hatf_source *s = hatf_source_open(p, HATF_FMT_AUTO, &err);
    if (!s) fprintf(stderr, "\n%s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(hatf_source_format(s), HATF_FMT_METATF);
    CU_ASSERT_EQUAL(hatf_source_foreign(s), 0);
    hatf_event ev;
    size_t i = 0;
    int rc;
    while ((rc = hatf_source_next(s, &ev)) == 1 && i < NEV) {
        const hatf_event *w = &want[i++];
        int same = ev.op == w->op && ev.size == w->size && ev.addr == w->addr && ev.new_addr == w->new_addr &&
                   ev.thread == w->thread && ev.heap == w->heap && ev.time == w->time && ev.attr == w->attr &&
                   ev.attr_is_bytes == w->attr_is_bytes && ev.data_len == w->data_len &&
                   (!ev.data_len || memcmp(ev.data, w->data, ev.data_len) == 0);
        if (!same) { fprintf(stderr, "\nevent %zu differs\n", i - 1); CU_FAIL("event differs"); break; }
    }
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(i, NEV);
    /* the header's record count: filled in, or "not known" from a pipe */
    FILE *f = fopen(p, "rb");
    uint8_t h[24];
    CU_ASSERT_EQUAL(fread(h, 1, 24, f), 24);
    fclose(f);
    uint64_t n = 0;
    for (int k = 16; k < 24; k++) n = n << 8 | h[k];
    CU_ASSERT(known ? n > NEV : n == UINT64_MAX);
    hatf_source_close(s);
}

static void test_roundtrip(void)
{
    hatf_event *ev = malloc(NEV * sizeof *ev);
    uint8_t (*attr)[4] = malloc(NEV * sizeof *attr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
    CU_ASSERT_PTR_NOT_NULL_FATAL(attr);
    make_events(ev, attr);
    char p1[256], p2[256], cmd[600];
    ut_path(p1, sizeof p1, "file.mtf");
    ut_path(p2, sizeof p2, "pipe.mtf");
    for (int pipe = 0; pipe < 2; pipe++) {
        FILE *f = pipe ? (snprintf(cmd, sizeof cmd, "cat > '%s'", p2), popen(cmd, "w")) : fopen(p1, "wb");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        hatf_err err = { 0 };
        hatf_metatf_writer *w = hatf_metatf_writer_open(fileno(f), HATF1_HATRACE_MARK, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        CU_ASSERT_EQUAL(hatf_metatf_writer_name(w, 0, 1, "main"), 0);
        for (size_t i = 0; i < NEV; i++) {
            CU_ASSERT_EQUAL_FATAL(hatf_metatf_writer_add(w, &ev[i]), 0);
            if (i == NEV / 2) CU_ASSERT_EQUAL(hatf_metatf_writer_name(w, 1, 2, "pool"), 0);  /* after the header */
        }
        CU_ASSERT_EQUAL(hatf_metatf_writer_close(w, &err), 0);
        CU_ASSERT_EQUAL(pipe ? pclose(f) : fclose(f), 0);
    }
    check_read(p1, ev, 1);
    check_read(p2, ev, 0);
    /* the records of the file: the heap name added on the way resolves */
    hatf_err err = { 0 };
    hatf_source *s = hatf_source_open(p1, HATF_FMT_METATF, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    hatf_metatf_reader *r = hatf_source_metatf(s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    hatf_buf out;
    hatf_buf_init(&out);
    int rc, info = 0, names = 0;
    while ((rc = hatf_metatf_next_text(r, &out)) == 1) {
        hatf_buf_append(&out, "", 1);
        if (strstr((char *)out.p, " hatrace-info text=\"hatrace-hatf1 1\"")) info++;
        if (strstr((char *)out.p, " thread-name id=1 name=\"main\"") || strstr((char *)out.p, " heap-name id=2 name=\"pool\""))
            names++;
        out.len = 0;
    }
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(info, 1);
    CU_ASSERT_EQUAL(names, 2);
    hatf_buf_free(&out);
    hatf_source_close(s);
    free(ev);
    free(attr);
}

static CU_TestInfo tests[] = {
    { "DTD errors name their line", test_dtd_errors },
    { "DTDs that parse, the HATF DTD", test_dtd_good },
    { "events written and read back, file and pipe", test_roundtrip },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = {
    { .pName = "metatf", .pTests = tests },
    CU_SUITE_INFO_NULL,
};
