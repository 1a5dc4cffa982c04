/* dump.c — hatrace dump: a trace in the text form, one event per line. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli_util.h"
#include "commands.h"
#include "frames_text.h"
#include "hatf_metatf.h"
#include "hatf_text.h"
#include "sites.h"
#include "textout.h"

static const char help[] =
    "usage: hatrace dump [--from FORMAT] [--limit N] [--stacks [--no-demangle] [--no-lines]]\n"
    "                    [--records] [-j N] FILE\n"
    "\n"
    "Print the events of a trace in the text form (docs/format-text.md), one per\n"
    "line, in global time order. The output is itself a text trace: it starts\n"
    "with '#hatrace-text 1', and for a container a '# container' line with the\n"
    "header (pid, start time, clock, time unit, address size, command line;\n"
    "convert --from text reads it back) and a '# damage:' line per damaged part\n"
    "(in the header, or at the end for damage found while reading).\n"
    "A Meta-TF file whose DTD is not of heap events is printed record by record\n"
    "(docs/metatf.md, \"Records as text\").\n"
    "\n"
    "  --from FORMAT  hatrace (default, recognised by its magic), hatf1.0, text\n"
    "                 or metatf (recognised by its magic)\n"
    "  --limit N      stop after N events\n"
    "  --stacks       under each record with a stack attribute, its frames by\n"
    "                 name, one '#   at function+offset (module)' line each\n"
    "                 and the call's source file:line where this machine has the\n"
    "                 module's debug information (same build id)\n"
    "  --no-demangle  C++ and Rust function names as the symbol table has them\n"
    "                 (they are shown demangled by default)\n"
    "  --no-lines     no source lines (nor any look at the modules' files)\n"
    "  --records      metatf: every record as its DTD describes it (metadata,\n"
    "                 string-table and name records too), not heap events\n"
    "  --strict       stop at the first damaged part of a container (exit 1)\n"
    "                 instead of reading on past it (the damage said, exit 3)\n"
    "  -j, --jobs N   read on N threads (default: one per core; 1: this thread alone)\n"
    "  -h, --help     this help\n";

void textout_header(hatf_source *s, const hatf_info *info, hatf_buf *out)
{
    hatf_buf_append(out, HATF_TEXT_MAGIC "\n", strlen(HATF_TEXT_MAGIC) + 1);
    hatf_reader *r = hatf_source_container(s);
    if (!r) return;
    hatf_buf_append(out, "# container ", 12);
    textout_container_fields(info ? info : hatf_reader_info(r), hatf_reader_complete(r), out);
    hatf_buf_append(out, "\n", 1);
    textout_damage(r, 0, out);  /* a damaged file still dumps what is intact; say what is missing */
}

void textout_damage(hatf_reader *r, size_t from, hatf_buf *out)
{
    const char *const *lines;
    size_t nd = hatf_reader_damage(r, &lines);
    for (size_t i = from; i < nd; i++) {
        hatf_buf_append(out, "# damage: ", 10);
        hatf_buf_append(out, lines[i], strlen(lines[i]));
        hatf_buf_append(out, "\n", 1);
    }
}

void textout_container_fields(const hatf_info *in, int complete, hatf_buf *out)
{
    char line[512];
    char when[32] = "?";
    time_t t = (time_t)(in->start_realtime_ns / 1000000000u);
    struct tm tm;
    if (gmtime_r(&t, &tm)) strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    int n = snprintf(line, sizeof line,
                     "%u.%u pid %u ppid %u start %s clock %s unit %llu/%llu ns %u-bit%s%s%s cmdline ",
                     in->version_major, in->version_minor, in->pid, in->ppid, when,
                     in->clock[0] ? in->clock : "?", (unsigned long long)in->time_unit_ns_num,
                     (unsigned long long)in->time_unit_ns_den, in->address_bits,
                     (in->flags & HATF_INFO_FORKED) ? " forked" : "",
                     (in->flags & HATF_INFO_ATTACHED) ? " attached" : "", complete ? "" : " incomplete");
    hatf_buf_append(out, line, n > 0 && (size_t)n < sizeof line ? (size_t)n : 0);
    /* the command line as a quoted text, escaped like a comment */
    hatf_event c = { .op = HATF_OP_COMMENT, .data = (const uint8_t *)in->cmdline,
                     .data_len = (uint16_t)strnlen(in->cmdline, sizeof in->cmdline) };
    size_t mark = out->len;
    hatf_text_format(&c, out);
    /* keep only the quoted part of "0 0 0 comment \"...\"\n" */
    const char *pfx = "0 0 0 comment ";
    size_t pl = strlen(pfx);
    if (out->len >= mark + pl) {
        memmove(out->p + mark, out->p + mark + pl, out->len - mark - pl);
        out->len -= pl;
    }
    if (out->len > mark && out->p[out->len - 1] == '\n') out->len--;
}

/* A Meta-TF file record by record: its header as '# ' lines, then a line per record. */
static int dump_records(const char *path, hatf_metatf_reader *mr, uint64_t limit)
{
    hatf_buf out;
    hatf_buf_init(&out);
    hatf_buf_append(&out, "#metatf-records 1\n", 18);
    hatf_metatf_header_text(mr, &out);
    int rc = CLI_OK;
    for (uint64_t n = 0; n < limit; n++) {
        int r = hatf_metatf_next_text(mr, &out);
        if (r == 0) break;
        if (r < 0) { cli_error_at(path, hatf_metatf_error(mr)); rc = CLI_FAIL; break; }
        if (out.len >= 1 << 16) {
            fwrite(out.p, 1, out.len, stdout);
            out.len = 0;
        }
    }
    if (out.failed && rc == CLI_OK) { cli_error("%s: out of memory", path); rc = CLI_FAIL; }
    fwrite(out.p, 1, out.len, stdout);
    hatf_buf_free(&out);
    return rc;
}

/* The events of s, one per line (with stacks: each one's frames under it).
 * @return a CLI_* exit code. */
static int dump_events(hatf_source *s, const char *path, uint64_t limit, int stacks, int demangle, int lines)
{
    frames fr;
    if (frames_init(&fr, hatf_source_tables(s), demangle, stacks && lines)) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    hatf_buf out;
    hatf_buf_init(&out);
    textout_header(s, NULL, &out);
    int rc = CLI_OK;
    if (hatf_text_format_tables(hatf_source_tables(s), HATF_TEXT_TABLES, &out) < 0) {
        cli_error("%s: out of memory", path);
        rc = CLI_FAIL;
    }
    hatf_reader *cr = hatf_source_container(s);
    size_t shown = cr ? hatf_reader_damage(cr, NULL) : 0;  /* the header's '# damage:' lines */
    hatf_event ev;
    for (uint64_t n = 0; n < limit && rc == CLI_OK; n++) {
        int r = hatf_source_next(s, &ev);
        if (r == 0) break;
        if (r < 0) { rc = cli_source_failed(path, s); break; }
        if (hatf_text_format(&ev, &out) < 0) { cli_error("%s: out of memory", path); rc = CLI_FAIL; break; }
        uint64_t sid = stacks ? sites_event_stack(&ev) : 0;
        if (sid) {  /* as comment lines: the output stays a text trace */
            const uint64_t *f;
            size_t nf = sites_stack(fr.r, sid, &f);
            for (size_t k = 0; k < nf; k++) frames_put(&fr, &out, "#   at ", f[k]);
        }
        if (out.len >= 1 << 16) {
            fwrite(out.p, 1, out.len, stdout);
            out.len = 0;
        }
    }
    if (cr) textout_damage(cr, shown, &out);  /* and the damage found while reading, at the end */
    if (out.failed && rc == CLI_OK) { cli_error("%s: out of memory", path); rc = CLI_FAIL; }
    fwrite(out.p, 1, out.len, stdout);
    rc = cli_read_end(path, s, rc);
    hatf_buf_free(&out);
    frames_free(&fr);
    return rc;
}

int cmd_dump(int argc, char **argv)
{
    static const struct option opts[] = {
        { "from", required_argument, NULL, 'f' },
        { "limit", required_argument, NULL, 'n' },
        { "stacks", no_argument, NULL, 's' },
        { "no-demangle", no_argument, NULL, 'D' },
        { "no-lines", no_argument, NULL, 'L' },
        { "records", no_argument, NULL, 'R' },
        { "strict", no_argument, NULL, CLI_O_STRICT },
        CLI_JOBS_OPTION,
        { "help", no_argument, NULL, 'h' },
        { 0 },
    };
    hatf_format fmt = HATF_FMT_AUTO;
    uint64_t limit = UINT64_MAX;
    int c, rc, stacks = 0, demangle = 1, lines = 1, records = 0;
    cli_getopt_begin();
    while ((c = getopt_long(argc, argv, ":hj:", opts, NULL)) != -1) {
        switch (c) {
        case 'f': if ((rc = cli_parse_format("dump", "--from", optarg, &fmt))) return rc; break;
        case 'n': if ((rc = cli_parse_u64("dump", "--limit", optarg, &limit))) return rc; break;
        case 's': stacks = 1; break;
        case 'D': demangle = 0; break;
        case 'L': lines = 0; break;
        case 'R': records = 1; break;
        case CLI_O_STRICT: cli_strict = 1; break;
        case 'j': if ((rc = cli_parse_jobs("dump", optarg))) return rc; break;
        case 'h': return cli_help(help);
        default: return cli_bad_option("dump", c, argv);
        }
    }
    const char *path;
    if ((rc = cli_one_file("dump", argc, argv, fmt, &path))) return rc;
    hatf_source *s = cli_open_source(path, fmt);
    if (!s) return CLI_FAIL;
    hatf_metatf_reader *mr = hatf_source_metatf(s);
    if (records && !mr) {
        hatf_source_close(s);
        return cli_usage("dump", "--records applies to a Meta-TF file (--from metatf)");
    }
    if (mr && (records || !hatf_metatf_dtd_events(hatf_metatf_reader_dtd(mr)))) rc = dump_records(path, mr, limit);
    else rc = dump_events(s, path, limit, stacks, demangle, lines);
    hatf_source_close(s);
    return cli_finish_stdout(rc);
}
