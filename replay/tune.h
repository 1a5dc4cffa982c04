/* tune.h — replay as a tuning tool (hatrace replay --tune, docs/replay.md
 * "Tuning"): the settings an allocator is replayed under, and the figures of
 * each setting over its repeated runs.
 *
 *   tune_grid.c     settings: the built-in grid per allocator, 'ALLOC:KEY=VALUE'
 *                   as given by the user, and the environment that applies them
 *   tune_figures.c  median and min-max per figure, the Pareto front, the best
 *                   setting for an objective
 *   tune_print.c    the table, JSON and chart
 */
#ifndef HATRACE_REPLAY_TUNE_H
#define HATRACE_REPLAY_TUNE_H

#include <stdio.h>

#include "replay.h"

/* ---- settings (tune_grid.c) ------------------------------------------------ */
#define RP_TUNE_KEYS 8         /* KEY=VALUE pairs in one setting, at most */
#define RP_TUNE_ENV_LEN 512

typedef struct rp_tune_setting {
    char alloc[16];            /* glibc, jemalloc, tcmalloc or mimalloc */
    char label[256];           /* "arena_max=1,trim_threshold=65536", or "default" */
    unsigned nenv;
    char env[RP_TUNE_KEYS][RP_TUNE_ENV_LEN];  /* NAME=VALUE, what the child's environment gets */
    int builtin;               /* from the built-in grid */
} rp_tune_setting;

/* Parse 'ALLOC:KEY=VALUE[,KEY=VALUE...]' ('ALLOC:' alone: its defaults) into
 * s. A key the allocator of Debian 12 would ignore without a word is refused.
 * @return 0, or HATF_E_USAGE with err naming the problem. */
int rp_tune_parse(const char *spec, rp_tune_setting *s, hatf_err *err);
/* The built-in grid of allocator alloc (its defaults first) appended to
 * *set (n settings, grown). @return 0, or -1 out of memory. */
int rp_tune_grid(const char *alloc, rp_tune_setting **set, unsigned *n);
/* The environment variables the settings set: unset before the runs so that
 * the defaults are the allocator's own. NULL-terminated; a trailing '_'
 * stands for any name that starts so. */
extern const char *const rp_tune_env_names[];
/* The setting's variables as one line for a shell ("" for the defaults). */
void rp_tune_env_line(const rp_tune_setting *s, char *buf, size_t cap);

/* ---- figures (tune_figures.c) ---------------------------------------------- */
enum {
    RP_TF_PEAK_RSS,            /* peak_rss_bytes */
    RP_TF_FRAG_TIME,           /* frag_time_avg */
    RP_TF_FRAG_PEAK_LIVE,      /* frag_at_peak_live */
    RP_TF_FRAG_PEAK_RSS,       /* frag_at_peak_rss */
    RP_TF_FRAG_PEAK_PEAK,      /* frag_peak_over_peak */
    RP_TF_OPS_PER_S,           /* ops_per_s */
    RP_TF_P99_NS,              /* the largest p99 among the call kinds timed */
    RP_TF_COUNT_
};
extern const char *const rp_tune_figure_keys[RP_TF_COUNT_];

typedef struct rp_tune_stat { double med, min, max; } rp_tune_stat;

typedef struct rp_tune_row {
    const rp_tune_setting *s;
    int failed;                /* a run failed or crashed: msg says how, no figures */
    char msg[256];
    unsigned runs;             /* runs that gave figures */
    rp_tune_stat fig[RP_TF_COUNT_];
    int pareto;                /* no other setting has both less peak resident and more throughput */
    int def;                   /* index of its allocator's defaults among the rows, -1: none */
} rp_tune_row;

typedef enum rp_tune_objective { RP_OBJ_RSS, RP_OBJ_THROUGHPUT, RP_OBJ_LATENCY, RP_OBJ_BALANCED } rp_tune_objective;
extern const char *const rp_tune_objective_names[4];

/* Median, min and max of each figure over the n runs into row. */
void rp_tune_summarize(const rp_result *runs, unsigned n, rp_tune_row *row);
/* Mark the Pareto front (peak resident against throughput) and each row's
 * defaults. */
void rp_tune_front(rp_tune_row *rows, unsigned n);
/* The best row for the objective, -1 when every row failed. */
int rp_tune_best(const rp_tune_row *rows, unsigned n, rp_tune_objective obj);
/* Does the figure's range (min-max) of row a stay clear of row b's? Then the
 * difference of their medians is more than the noise of the runs. */
int rp_tune_apart(const rp_tune_row *a, const rp_tune_row *b, unsigned fig);

/* ---- output (tune_print.c) ------------------------------------------------- */
typedef struct rp_tune_ctx {
    const char *trace;
    unsigned repeat;
    rp_tune_objective objective;
    uint64_t program_rss;      /* the recorded program's peak resident bytes, 0: not sampled */
    uint64_t peak_live_bytes;
    const char *touch, *threads;
    const char *const *paths;  /* per row: the shared object preloaded ("" for glibc) */
} rp_tune_ctx;

void rp_tune_print_table(FILE *f, const rp_tune_ctx *c, const rp_tune_row *rows, unsigned n, int best);
void rp_tune_print_json(FILE *f, const rp_tune_ctx *c, const rp_tune_row *rows, unsigned n, int best);
/* Peak resident against throughput, one point per setting, with gnuplot.
 * @return 0 or negative with err set. */
int rp_tune_plot(const char *png_or_svg, const rp_tune_ctx *c, const rp_tune_row *rows, unsigned n, int best,
                 hatf_err *err);
/* The line to use a setting in production: LD_PRELOAD (when preloaded) and its variables. */
void rp_tune_production_line(const rp_tune_row *row, const char *path, char *buf, size_t cap);

#endif
