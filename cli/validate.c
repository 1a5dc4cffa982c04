/* validate.c — hatrace validate: a deep check of a trace.
 *
 * Reads the events in global time order, has analyze/validate.c check each
 * one (validate.h says what it checks and how), and prints one line per
 * problem: "FILE: record R, offset O: what", then the notes and a summary.
 */
#include <stdio.h>

#include "cli_util.h"
#include "commands.h"
#include "validate.h"

static const char help[] =
    "usage: hatrace validate [--from FORMAT] [--max-errors N] [--strict] [--from-time T]\n"
    "                        [--to-time T] [--phase NAME] [--thread N] [-j N] FILE\n"
    "\n"
    "Check a trace deeply and print one line per problem, with its record\n"
    "number and byte offset, then a summary. Problems: malformed or truncated\n"
    "records, container damage, dropped events, time going backwards on a\n"
    "thread, a free of an address never allocated or already freed, an\n"
    "allocation of an address still live, a realloc of an unknown address,\n"
    "events on a thread after its thread-destroy, a duplicate thread-create,\n"
    "use or destroy of a heap never created, a heap created twice, use of a\n"
    "heap or of its objects after its heap-destroy, a free naming another heap\n"
    "than the object's, a mismatched release (new with free, malloc with delete,\n"
    "new[] with delete, new with delete[], ...).\n"
    "\n"
    "An address handed out again just before the realloc or free that released\n"
    "it (a harmless reordering across threads) is tolerated when the release\n"
    "arrives within 1000 records or 10 us (even when the receiving thread owned\n"
    "the old object: a realloc is stamped after it returns); these are counted as resolved\n"
    "inversions in a note.\n"
    "\n"
    "In a fork child's trace (its header says forked), a release of an address\n"
    "the child never allocated is an object inherited from the parent: counted\n"
    "in a note, not a problem (a second release of it still is).\n"    "Likewise in an attached recording's trace (hatrace record -p; its header\n"
    "says attached), such a release is of an object allocated before tracing.\n"
    "\n"
    "A process that died of a signal (the recorder's note, hatrace-signal ...\n"
    "fatal) is named in a note; its thread's events after the note are problems.\n"
    "\n"
    "  --from FORMAT     hatrace (default), hatf1.0, text or metatf\n"
    "  --max-errors N    print at most N problems (default 100; 0: no limit)\n"
    "  --strict          stop at the first damaged part of a container (exit 1)\n"
    "                    instead of reading on past it (the damage said, exit 3)\n"
    WINDOW_HELP
    "  -j, --jobs N      read on N threads (default: one per core;\n"
    "                    1: this thread alone)\n"
    "  -h, --help        this help\n"
    "\n"
    "exit status: 0 no problem, 1 problems found or the file cannot be read.\n";

#define U(x) ((unsigned long long)(x))

/* The problems as printed: all counted, the first max_shown (0: all) shown. */
typedef struct shown {
    const char *path;
    uint64_t problems, shown, max_shown;
} shown;

static int may_show(shown *p)
{
    p->problems++;
    if (p->max_shown && p->shown >= p->max_shown) return 0;
    p->shown++;
    return 1;
}

static void say_problem(void *ctx, uint64_t rec, uint64_t off, const char *msg)
{
    shown *p = ctx;
    if (may_show(p)) printf("%s: record %llu, offset %llu: %s\n", p->path, U(rec), U(off), msg);
}

/* The container's damage and dropped events, found before any event. */
static void say_container(shown *p, hatf_source *s)
{
    hatf_reader *r = hatf_source_container(s);
    if (!r) return;
    const char *const *lines;
    size_t n = hatf_reader_damage(r, &lines);
    for (size_t i = 0; i < n; i++)  /* damage lines name their own offset */
        if (may_show(p)) printf("%s: container damage: %s\n", p->path, lines[i]);
    const hatf_counters *ct = hatf_reader_counters(r);
    if (ct->dropped && may_show(p))
        printf("%s: the recorder dropped %llu events (counted in the index)\n", p->path, U(ct->dropped));
}

#define PLURAL(n, one, more) ((n) == 1 ? (one) : (more))

/* The notes and the summary after the problems. */
static void say_notes(shown *p, const validate_figures *f, const hatf_order_stats *ord, int attached)
{
    const char *path = p->path;
    if (p->shown < p->problems)
        printf("%s: %llu more problems not shown (--max-errors)\n", path, U(p->problems - p->shown));
    if (f->died) {
        char how[160];
        cli_signal_text(&f->death, how, sizeof how);
        printf("%s: note: the process died of %s: objects live then are not leaks\n", path, how);
    }
    if (f->inherited)
        printf("%s: note: %llu release%s of objects %s\n", path, U(f->inherited), PLURAL(f->inherited, "", "s"),
               attached ? "allocated before tracing (an attached recording)"
                        : "inherited from the parent (a fork child's trace)");
    if (f->resolved)
        printf("%s: note: resolved %llu inversion%s (address reused just before its release arrived)\n",
               path, U(f->resolved), PLURAL(f->resolved, "", "s"));
    if (ord->early_releases)
        printf("%s: note: %llu release%s stamped before the allocation of its object on another thread, "
               "put after it\n", path, U(ord->early_releases), PLURAL(ord->early_releases, "", "s"));
    if (ord->tie_groups)
        printf("%s: note: %llu group%s of events with one time on several threads sharing an address, "
               "%llu put in another order than the tie order by address liveness\n",
               path, U(ord->tie_groups), PLURAL(ord->tie_groups, "", "s"), U(ord->reordered));
    if (p->problems)
        printf("%s: %llu records, %llu problem%s\n", path, U(f->records), U(p->problems), PLURAL(p->problems, "", "s"));
    else
        printf("%s: %llu records, no problems\n", path, U(f->records));
}

/* Check the trace s at path. @return a CLI_* exit code. */
static int validate_source(hatf_source *s, const char *path, uint64_t max_errors)
{
    shown p = { .path = path, .max_shown = max_errors };
    validate_opts o = { .problem = say_problem, .ctx = &p };
    uint64_t num, den;
    cli_time_unit(s, &num, &den);
    o.ns_per_unit = (double)num / (double)den;
    const hatf_info *info = hatf_source_info(s);  /* NULL: a source without a header */
    o.forked = info && (info->flags & HATF_INFO_FORKED);
    o.attached = info && (info->flags & HATF_INFO_ATTACHED);
    validate *v = validate_new(&o);
    if (!v) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    say_container(&p, s);
    int got = validate_run(v, s, cli_strict), oom = got == VALIDATE_OOM;
    validate_finish(v);
    const validate_figures *f = validate_result(v);
    if (got < 0) validate_read_error(v, hatf_source_error(s));
    hatf_order_stats ord;
    hatf_source_order_stats(s, &ord);
    if (ord.unresolved && may_show(&p))
        printf("%s: %llu group%s of events with one time on several threads ha%s no order consistent "
               "with address liveness (read in tie order)\n",
               path, U(ord.unresolved), PLURAL(ord.unresolved, "", "s"), PLURAL(ord.unresolved, "s", "ve"));
    int rc = p.problems ? CLI_FAIL : CLI_OK;
    if (oom) {
        cli_error("%s: out of memory after %llu records", path, U(f->records));
        rc = CLI_FAIL;
    } else {
        say_notes(&p, f, &ord, o.attached);
    }
    validate_free(v);
    return rc;
}

int cmd_validate(int argc, char **argv)
{
    static const struct option opts[] = {
        { "from", required_argument, NULL, 'f' },
        { "max-errors", required_argument, NULL, 'm' },
        { "strict", no_argument, NULL, CLI_O_STRICT },
        CLI_JOBS_OPTION,
        WINDOW_OPTIONS,
        { "help", no_argument, NULL, 'h' },
        { 0 },
    };
    hatf_format fmt = HATF_FMT_AUTO;
    uint64_t max_errors = 100;
    int c, rc;
    cli_getopt_begin();
    while ((c = getopt_long(argc, argv, ":hj:", opts, NULL)) != -1) {
        if (window_option(c)) {
            if ((rc = window_parse("validate", c, optarg))) return rc;
            continue;
        }
        switch (c) {
        case 'f': if ((rc = cli_parse_format("validate", "--from", optarg, &fmt))) return rc; break;
        case 'm': if ((rc = cli_parse_u64("validate", "--max-errors", optarg, &max_errors))) return rc; break;
        case 'j': if ((rc = cli_parse_jobs("validate", optarg))) return rc; break;
        case CLI_O_STRICT: cli_strict = 1; break;
        case 'h': return cli_help(help);
        default: return cli_bad_option("validate", c, argv);
        }
    }
    const char *path;
    if ((rc = cli_one_file("validate", argc, argv, fmt, &path))) return rc;
    hatf_source *s = cli_open_source(path, fmt);
    if (!s) return CLI_FAIL;
    hatf_source_read_on(s, 0);  /* validate reports each damaged group itself, as a problem */
    rc = validate_source(s, path, max_errors);
    hatf_source_close(s);
    return cli_finish_stdout(rc);
}
