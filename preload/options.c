/* options.c — the recorder's options, all in one table, read from HATRACE_*
 * environment variables without allocating (we may be inside the first malloc). */
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "prim.h"

typedef struct ht_option {
    const char *env;
    long def, min, max;
    long value;
    const char *what;
    const char *const *words;  /* if set, the values by name: words[v] */
} ht_option;

static const char *const effort_words[] = { "auto", "fast", "full", "stored", NULL };

static ht_option options[HT_OPT_COUNT_] = {
    [HT_OPT_ZSTD_LEVEL] = { "HATRACE_ZSTD_LEVEL", 3, -7, 19, 0,
                            "zstd level of the trace chunks (flusher CPU vs file size)" },
    [HT_OPT_RING_SIZE] = { "HATRACE_RING_SIZE", 131072, 64, 1L << 24, 0,
                           "events per thread ring (rounded up to a power of two)" },
    [HT_OPT_FLUSH_MS] = { "HATRACE_FLUSH_MS", 100, 1, 60000, 0,
                          "flusher wake-up interval in ms (sooner as the rings fill: a quarter full at their rate)" },
    [HT_OPT_FOLLOW_CHILDREN] = { "HATRACE_FOLLOW_CHILDREN", 1, 0, 1, 0,
                                 "1: trace forked children and exec'd programs, each in its own file" },
    [HT_OPT_DROP] = { "HATRACE_DROP", 0, 0, 1, 0,
                      "1: drop (and count) events when a ring is full instead of waiting" },
    [HT_OPT_VERBOSE] = { "HATRACE_VERBOSE", 0, 0, 2, 0,
                         "1: print the options and the trace path at start, the counts at the end" },
    [HT_OPT_STACKS] = { "HATRACE_STACKS", 0, 0, 256, 0,
                        "frames of call stack per allocation (0: off; yes: 32)" },
    [HT_OPT_STACKS_FP] = { "HATRACE_STACKS_FP", 0, 0, 1, 0,
                           "1: walk frame pointers instead of unwinding (x86-64; programs built with them)" },
    [HT_OPT_STACKS_CHECK] = { "HATRACE_STACKS_CHECK", 0, 0, 1, 0,
                              "1: check every stack with libunwind and every frame name with dladdr; count differences (tests)" },
    [HT_OPT_TIME_RES] = { "HATRACE_TIME_RES", 1000, 0, 1000000000, 0,
                          "ns per stored time unit, rounded down (0: the raw clock); coarser is smaller" },
    [HT_OPT_ENCODE_HELPER] = { "HATRACE_ENCODE_HELPER", 1, 0, 1, 0,
                               "1: a helper thread encodes full chunk groups, yielding its CPU often (the flusher does what it leaves)" },
    [HT_OPT_EFFORT] = { "HATRACE_EFFORT", HT_EFFORT_AUTO, 0, 3, 0,
                        "coding of the chunk groups: fast (auto: the default; packed by zstd), stored (unpacked) or full (the address model)",
                        effort_words },
};

static const char *output = "hatrace.%e.%p.hatf";
static const char *clock_name = "auto";
static const char *report;
static char output_buf[4096], report_buf[4096];

static int copy_str(char *dst, size_t cap, const char *src, const char *name)
{
    size_t n = strlen(src);
    if (n >= cap) {
        ht_warn("%s is longer than %zu bytes, ignored", name, cap - 1);
        return 0;
    }
    memcpy(dst, src, n + 1);
    return 1;
}

int ht_parse_long(const char *s, long *out)
{
    int neg = 0;
    if (*s == '-') { neg = 1; s++; }
    if (*s < '0' || *s > '9') return -1;
    long v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > (1L << 40)) return -1;
        v = v * 10 + (*s - '0');
    }
    long mul = 1;
    if (*s == 'k' || *s == 'K') mul = 1L << 10, s++;
    else if (*s == 'm' || *s == 'M') mul = 1L << 20, s++;
    else if (*s == 'g' || *s == 'G') mul = 1L << 30, s++;
    if (*s) return -1;
    if (v > (1L << 40) / mul) return -1;
    *out = neg ? -v * mul : v * mul;
    return 0;
}

static const char *from_environment(const char *name) { return getenv(name); }
static const char *(*option_source)(const char *) = from_environment;

void ht_options_from(const char *(*get)(const char *name)) { option_source = get; }

void ht_options_init(void)
{
    for (int i = 0; i < HT_OPT_COUNT_; i++) {
        ht_option *o = &options[i];
        o->value = o->def;
        const char *s = option_source(o->env);
        if (!s || !*s) continue;
        long v;
        if (o->words) {
            for (v = 0; o->words[v] && strcmp(o->words[v], s); v++) continue;
            if (!o->words[v]) {
                ht_warn("%s=%s is invalid (expected %s, %s or %s), using %s", o->env, s, o->words[0], o->words[1],
                        o->words[2], o->words[o->def]);
                continue;
            }
        } else if (!strcmp(s, "yes") || !strcmp(s, "true")) v = i == HT_OPT_STACKS ? 32 : 1;
        else if (!strcmp(s, "no") || !strcmp(s, "false")) v = 0;
        else if (ht_parse_long(s, &v) < 0 || v < o->min || v > o->max) {
            ht_warn("%s=%s is invalid (expected %ld..%ld), using %ld", o->env, s, o->min,
                    o->max, o->def);
            continue;
        }
        o->value = v;
    }
    /* copies: programs such as redis rewrite their environment block in place
     * to change their process title */
    const char *s = option_source("HATRACE_OUTPUT");
    if (s && *s && copy_str(output_buf, sizeof output_buf, s, "HATRACE_OUTPUT")) output = output_buf;
    s = option_source("HATRACE_CLOCK");
    if (s && *s) {
        if (!strcmp(s, "tsc")) clock_name = "tsc";
        else if (!strcmp(s, "monotonic")) clock_name = "monotonic";
        else if (strcmp(s, "auto")) ht_warn("HATRACE_CLOCK=%s is invalid (expected auto, tsc or monotonic), using auto", s);
    }
    s = option_source("HATRACE_REPORT");
    report = s && *s && copy_str(report_buf, sizeof report_buf, s, "HATRACE_REPORT") ? report_buf : NULL;
    if (options[HT_OPT_VERBOSE].value) {
        for (int i = 0; i < HT_OPT_COUNT_; i++)
            ht_say("option %s=%ld (%s)", options[i].env, options[i].value, options[i].what);
        ht_say("option HATRACE_OUTPUT=%s, HATRACE_CLOCK=%s", output, clock_name);
    }
}

long ht_opt(ht_opt_id id) { return options[id].value; }
const char *ht_opt_output(void) { return output; }
const char *ht_opt_clock(void) { return clock_name; }
const char *ht_opt_report(void) { return report; }

static int put_str(char *out, size_t cap, size_t *n, const char *s)
{
    size_t l = strlen(s);
    if (*n + l >= cap) return -1;
    memcpy(out + *n, s, l);
    *n += l;
    return 0;
}

static int put_u64(char *out, size_t cap, size_t *n, uint64_t v)
{
    char tmp[24];
    int i = (int)sizeof tmp;
    tmp[--i] = 0;
    do { tmp[--i] = (char)('0' + v % 10); v /= 10; } while (v);
    return put_str(out, cap, n, tmp + i);
}

int ht_expand_pattern(const char *pattern, char *out, size_t cap, uint32_t pid,
                      const char *prog, uint64_t start_s)
{
    size_t n = 0;
    for (const char *p = pattern; *p; p++) {
        int r = 0;
        if (*p != '%' || !p[1]) {
            if (n + 1 >= cap) return -1;
            out[n++] = *p;
            continue;
        }
        switch (*++p) {
        case 'p': r = put_u64(out, cap, &n, pid); break;
        case 't': r = put_u64(out, cap, &n, start_s); break;
        case 'e': {
            /* a program name never contributes a '/' */
            char name[256];
            size_t k = 0;
            for (const char *q = prog; *q && k < sizeof name - 1; q++) name[k++] = *q == '/' ? '_' : *q;
            name[k] = 0;
            r = put_str(out, cap, &n, k ? name : "unknown");
            break;
        }
        case '%': r = put_str(out, cap, &n, "%"); break;
        default: {
            char two[3] = { '%', *p, 0 };
            r = put_str(out, cap, &n, two);
        }
        }
        if (r) return -1;
    }
    if (n >= cap) return -1;
    out[n] = 0;
    return 0;
}
