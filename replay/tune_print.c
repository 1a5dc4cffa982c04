/* tune_print.c — replay --tune's table, JSON and chart (docs/replay.md,
 * "Tuning"). The figures come from tune_figures.c; here they are only shown. */
#include <stdio.h>
#include <string.h>

#include "tune.h"

#define MIB 1048576.0

/* How each figure is shown in the table: its heading and its scale. */
static const struct {
    const char *head;
    double scale;
} shown[RP_TF_COUNT_] = {
    { "peak resident MiB", MIB }, { "frag time-avg", 1 }, { "frag at peak live", 1 },
    { "frag at peak rss", 1 }, { "frag peak/peak", 1 }, { "Mcalls/s", 1e6 }, { "p99 us", 1e3 },
};

void rp_tune_production_line(const rp_tune_row *row, const char *path, char *buf, size_t cap)
{
    char env[RP_TUNE_KEYS * RP_TUNE_ENV_LEN];
    rp_tune_env_line(row->s, env, sizeof env);
    snprintf(buf, cap, "%s%s%s%s", path && *path ? "LD_PRELOAD=" : "", path ? path : "",
             path && *path && *env ? " " : "", env);
}

static void name_of(const rp_tune_row *r, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s %s", r->s->alloc, r->s->label);
}

/* Digits after the point for three significant ones in v, at least one. */
static int digits(double v)
{
    int d = 2;
    for (double a = v < 0 ? -v : v; a >= 10 && d > 0; a /= 10) d--;
    return d ? d : 1;
}

static void cell(char *buf, size_t cap, const rp_tune_stat *st, unsigned f)
{
    double k = shown[f].scale;
    int d = digits(st->med / k);
    snprintf(buf, cap, "%.*f [%.*f-%.*f]", d, st->med / k, d, st->min / k, d, st->max / k);
}

static void print_best(FILE *f, const rp_tune_ctx *c, const rp_tune_row *rows, int best)
{
    const rp_tune_row *b = &rows[best];
    char name[300], hb[32], hd[32], line[RP_TUNE_KEYS * RP_TUNE_ENV_LEN + 4200];
    name_of(b, name, sizeof name);
    fprintf(f, "best for %s: %s: peak resident %s, %.3g Mcalls/s, p99 %.3g us\n",
            rp_tune_objective_names[c->objective], name, rp_human((uint64_t)b->fig[RP_TF_PEAK_RSS].med, hb, sizeof hb),
            b->fig[RP_TF_OPS_PER_S].med / 1e6, b->fig[RP_TF_P99_NS].med / 1e3);
    if (b->def >= 0 && b->def != best) {
        const rp_tune_row *d = &rows[b->def];
        int one = b->runs < 2 || d->runs < 2;  /* no spread to judge by */
        double gain = d->fig[RP_TF_PEAK_RSS].med ? b->fig[RP_TF_PEAK_RSS].med / d->fig[RP_TF_PEAK_RSS].med - 1 : 0;
        double speed = d->fig[RP_TF_OPS_PER_S].med ? b->fig[RP_TF_OPS_PER_S].med / d->fig[RP_TF_OPS_PER_S].med - 1 : 0;
        fprintf(f, "  against %s's defaults: peak resident %s -> %s (%+.1f%%, %s), throughput %+.1f%% (%s)\n",
                b->s->alloc, rp_human((uint64_t)d->fig[RP_TF_PEAK_RSS].med, hd, sizeof hd), hb, 100 * gain,
                one ? "one run: no spread to judge by" : rp_tune_apart(b, d, RP_TF_PEAK_RSS) ? "beyond the spread of the runs"
                : "within the spread of the runs",
                100 * speed, one ? "one run" : rp_tune_apart(b, d, RP_TF_OPS_PER_S) ? "beyond the spread" : "within the spread");
    }
    rp_tune_production_line(b, c->paths[best], line, sizeof line);
    fprintf(f, "  in production: %s\n", *line ? line : "(the defaults: no variable to set)");
}

void rp_tune_print_table(FILE *f, const rp_tune_ctx *c, const rp_tune_row *rows, unsigned n, int best)
{
    char a[32], b[32], name[300], buf[80];
    int width = 7;  /* "setting" */
    for (unsigned i = 0; i < n; i++) {
        name_of(&rows[i], name, sizeof name);
        if ((int)strlen(name) > width) width = (int)strlen(name);
    }
    fprintf(f, "tune: %s, objective %s, %u run%s per setting, each in its own process; figures: median [min-max] "
            "over the runs\n", c->trace, rp_tune_objective_names[c->objective], c->repeat, c->repeat == 1 ? "" : "s");
    fprintf(f, "touch %s, threads %s, peak live %s", c->touch, c->threads, rp_human(c->peak_live_bytes, a, sizeof a));
    if (c->program_rss) fprintf(f, "; recorded program: peak resident %s", rp_human(c->program_rss, b, sizeof b));
    fputs("\n\n", f);
    fprintf(f, "  %-*s", width, "setting");
    for (unsigned k = 0; k < RP_TF_COUNT_; k++) {
        fprintf(f, "  %-20s", shown[k].head);
        if (k == RP_TF_PEAK_RSS && c->program_rss) fprintf(f, "  %-8s", "/program");
    }
    fputc('\n', f);
    for (unsigned i = 0; i < n; i++) {
        const rp_tune_row *r = &rows[i];
        name_of(r, name, sizeof name);
        fprintf(f, "%c%c%-*s", (int)i == best ? '>' : ' ', r->pareto ? '*' : ' ', width, name);
        if (r->failed) {
            fprintf(f, " failed: %s\n", r->msg);
            continue;
        }
        for (unsigned k = 0; k < RP_TF_COUNT_; k++) {
            cell(buf, sizeof buf, &r->fig[k], k);
            fprintf(f, "  %-20s", buf);
            if (k == RP_TF_PEAK_RSS && c->program_rss)
                fprintf(f, "  %-8.2f", r->fig[k].med / (double)c->program_rss);
        }
        fputc('\n', f);
    }
    fputs("\n*: on the Pareto front (no other setting has both less peak resident memory and more throughput); "
          ">: the best for the objective\n", f);
    if (c->program_rss)
        fputs("/program: the median peak resident over the recorded program's own\n", f);
    if (best >= 0) print_best(f, c, rows, best);
    else fputs("no setting ran to the end: no best\n", f);
}

static void json_stat(FILE *f, const char *key, const rp_tune_stat *s, int last)
{
    fprintf(f, "      \"%s\": {\"median\": %.6g, \"min\": %.6g, \"max\": %.6g}%s\n", key, s->med, s->min, s->max,
            last ? "" : ",");
}

void rp_tune_print_json(FILE *f, const rp_tune_ctx *c, const rp_tune_row *rows, unsigned n, int best)
{
    char line[RP_TUNE_KEYS * RP_TUNE_ENV_LEN + 4200];
    fputs("{\n  \"trace\": ", f);
    rp_json_str(f, c->trace);
    fprintf(f, ",\n  \"objective\": \"%s\",\n  \"repeat\": %u,\n  \"touch\": \"%s\",\n  \"threads\": \"%s\",\n"
            "  \"peak_live_bytes\": %llu,\n", rp_tune_objective_names[c->objective], c->repeat, c->touch, c->threads,
            (unsigned long long)c->peak_live_bytes);
    if (c->program_rss)
        fprintf(f, "  \"program_peak_resident_bytes\": %llu,\n", (unsigned long long)c->program_rss);
    fprintf(f, "  \"best\": %d,\n  \"settings\": [", best);
    for (unsigned i = 0; i < n; i++) {
        const rp_tune_row *r = &rows[i];
        fprintf(f, "%s\n    {\"allocator\": \"%s\", \"setting\": ", i ? "," : "", r->s->alloc);
        rp_json_str(f, r->s->label);
        fputs(", \"env\": [", f);
        for (unsigned k = 0; k < r->s->nenv; k++) {
            fputs(k ? ", " : "", f);
            rp_json_str(f, r->s->env[k]);
        }
        rp_tune_production_line(r, c->paths[i], line, sizeof line);
        fputs("], \"production\": ", f);
        rp_json_str(f, line);
        fprintf(f, ", \"builtin\": %s, \"status\": \"%s\"", r->s->builtin ? "true" : "false", r->failed ? "failed" : "ok");
        if (r->failed) {
            fputs(", \"error\": ", f);
            rp_json_str(f, r->msg);
            fputs("}", f);
            continue;
        }
        fprintf(f, ", \"runs\": %u, \"pareto\": %s, \"best\": %s, \"defaults\": %d,\n     \"figures\": {\n", r->runs,
                r->pareto ? "true" : "false", (int)i == best ? "true" : "false", r->def);
        for (unsigned k = 0; k < RP_TF_COUNT_; k++) json_stat(f, rp_tune_figure_keys[k], &r->fig[k], k + 1 == RP_TF_COUNT_);
        fputs("    }}", f);
    }
    fputs("\n  ]\n}\n", f);
}

int rp_tune_plot(const char *out, const rp_tune_ctx *c, const rp_tune_row *rows, unsigned n, int best, hatf_err *err)
{
    FILE *g = rp_gnuplot_open(out, err);
    if (!g) return err->code;
    char name[300], title[600];
    fputs("$d << EOD\n", g);
    for (unsigned i = 0; i < n; i++) {
        const rp_tune_row *r = &rows[i];
        if (r->failed) continue;
        const rp_tune_stat *t = &r->fig[RP_TF_OPS_PER_S], *m = &r->fig[RP_TF_PEAK_RSS];
        name_of(r, name, sizeof name);
        rp_gnuplot_str(g, name);
        fprintf(g, " %g %g %g %g %g %g %d %d\n", t->med / 1e6, t->min / 1e6, t->max / 1e6, m->med / MIB,
                m->min / MIB, m->max / MIB, r->pareto, (int)i == best);
    }
    fputs("EOD\nset termoption noenhanced\nset key below\nset grid\nset xrange [0:*]\nset yrange [0:*]\nset xlabel 'throughput (Mcalls/s)'\nset ylabel 'peak resident (MiB)'\n", g);
    snprintf(title, sizeof title, "%s: one point per setting (median, bars: min-max of %u run%s), objective %s",
             c->trace, c->repeat, c->repeat == 1 ? "" : "s", rp_tune_objective_names[c->objective]);
    fputs("set title ", g);
    rp_gnuplot_str(g, title);
    if (c->program_rss)
        fprintf(g, "\nset arrow from graph 0, first %g to graph 1, first %g nohead dt 2 lc 'black'\n"
                "set label 'recorded program' at graph 0.01, first %g offset 0,0.7\n",
                (double)c->program_rss / MIB, (double)c->program_rss / MIB, (double)c->program_rss / MIB);
    fputs("\nplot $d using 2:5:3:4:6:7 with xyerrorbars pt 7 title 'setting', "
          "$d using 2:($8 > 0 ? $5 : NaN) with points pt 6 ps 2.5 lw 2 title 'Pareto front', "
          "$d using 2:($9 > 0 ? $5 : NaN) with points pt 3 ps 3 lw 2 title 'best for the objective', "
          "$d using 2:5:1 with labels left offset 1,0.5 font ',8' notitle\n", g);
    int st = pclose(g);
    if (st != 0) return hatf_err_set(err, HATF_E_IO, 0, "gnuplot failed drawing %s", out);
    return 0;
}
