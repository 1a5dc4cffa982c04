/* cli_util.c — shared option parsing, opening traces and error printing. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli_util.h"

void cli_error(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (char *p = msg; *p; p++)  /* one line, always */
        if (*p == '\n' || *p == '\r') *p = ' ';
    fprintf(stderr, "hatrace: %s\n", msg);
}

void cli_error_at(const char *file, const hatf_err *e)
{
    cli_error("%s: offset %llu: %s", file, (unsigned long long)e->offset, hatf_err_text(e));
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (cmd)
        fprintf(stderr, "hatrace %s: %s (see 'hatrace %s --help')\n", cmd, msg, cmd);
    else
        fprintf(stderr, "hatrace: %s (see 'hatrace --help')\n", msg);
    return CLI_USAGE;
}

void cli_getopt_begin(void)
{
    optind = 0;  /* glibc: 0 fully reinitialises getopt */
    opterr = 0;
}

int cli_bad_option(const char *cmd, int c, char **argv)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "?";
    if (c == ':') return cli_usage(cmd, "option %s needs a value", arg);
    if (c == '?') {
        if (optopt && optopt < 256) return cli_usage(cmd, "unknown option -%c", optopt);
        return cli_usage(cmd, "unknown option %s", arg);
    }
    return cli_usage(cmd, "unexpected option %s", arg);
}

int cli_help(const char *text)
{
    fputs(text, stdout);
    return cli_finish_stdout(CLI_OK);
}

int cli_parse_u64(const char *cmd, const char *opt, const char *arg, uint64_t *out)
{
    uint64_t v = 0;
    if (!*arg) return cli_usage(cmd, "%s needs a number", opt);
    for (const char *p = arg; *p; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (d > 9 || v > (UINT64_MAX - d) / 10)
            return cli_usage(cmd, "%s needs a non-negative whole number, not '%s'", opt, arg);
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int cli_parse_word(const char *cmd, const char *opt, const char *arg, const char *const *words, size_t n,
                   int *out)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(arg, words[i])) {
            *out = (int)i;
            return 0;
        }
    char list[256];
    size_t len = 0;
    list[0] = 0;
    for (size_t i = 0; i < n && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
                                words[i]);
    return cli_usage(cmd, "%s: '%s' is not %s", opt, arg, list);
}

int cli_parse_format(const char *cmd, const char *opt, const char *arg, hatf_format *out)
{
    int f = hatf_format_from_name(arg);
    if (f < 0) return cli_usage(cmd, "%s: unknown format '%s' (hatrace, hatf1.0, text)", opt, arg);
    *out = (hatf_format)f;
    return 0;
}

int cli_one_file(const char *cmd, int argc, char **argv, const char **path)
{
    if (optind >= argc) return cli_usage(cmd, "missing input file");
    if (optind + 1 < argc) return cli_usage(cmd, "one input file only (got '%s' too)", argv[optind + 1]);
    *path = argv[optind];
    return 0;
}

hatf_source *cli_open_source(const char *path, hatf_format fmt)
{
    hatf_err err = { 0 };
    hatf_source *s = hatf_source_open(path, fmt, &err);
    if (!s) cli_error_at(path, &err);
    return s;
}

int cli_source_failed(const char *path, const hatf_source *s)
{
    cli_error_at(path, hatf_source_error(s));
    return CLI_FAIL;
}

int cli_finish_stdout(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("writing to standard output: %s", strerror(errno));
        return CLI_FAIL;
    }
    return rc;
}

void cli_time_unit(hatf_source *s, uint64_t *num, uint64_t *den)
{
    *num = *den = 1;
    hatf_reader *r = hatf_source_container(s);
    if (!r) return;
    const hatf_info *info = hatf_reader_info(r);
    if (info->time_unit_ns_num && info->time_unit_ns_den) {
        *num = info->time_unit_ns_num;
        *den = info->time_unit_ns_den;
    }
}

void cli_json_string(hatf_buf *out, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    hatf_buf_append(out, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char e[2] = { '\\', (char)c };
            hatf_buf_append(out, e, 2);
        } else if (c < 0x20 || c == 0x7f) {
            char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
            hatf_buf_append(out, e, 6);
        } else {
            hatf_buf_append(out, s, 1);
        }
    }
    hatf_buf_append(out, "\"", 1);
}

void cli_put(hatf_buf *o, const char *fmt, ...)
{
    char line[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n > 0) hatf_buf_append(o, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}
