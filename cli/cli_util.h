/* cli_util.h — what every subcommand of hatrace shares: option parsing,
 * opening a trace, printing errors, exit codes.
 *
 * Conventions for a subcommand (see cli/dump.c for a short example):
 *   - parse options with getopt_long after cli_getopt_begin(); pass an
 *     unexpected result to cli_bad_option() and return what it returns;
 *   - --help prints the command's help to stdout and exits 0;
 *   - every error is ONE line on stderr, "hatrace: FILE: offset N: what";
 *   - return CLI_OK, CLI_FAIL (bad input or failure) or CLI_USAGE.
 */
#ifndef HATRACE_CLI_UTIL_H
#define HATRACE_CLI_UTIL_H

#include <getopt.h>
#include <stdint.h>
#include <sys/types.h>

#include "hatf.h"
#include "hatf_source.h"

enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };
/* hatrace record: a trace of the run is missing or incomplete for a reason
 * other than the program's death (a process could not create its trace file
 * and ran untraced, or writing a trace stopped early); the command's own
 * status is printed instead. */
enum { CLI_RECORD_UNTRACED = 125 };
/* A reading command's output covers only what could be read: the trace is
 * damaged or cut (its damaged chunk groups were passed over). */
enum { CLI_PARTIAL = 3 };
/* --strict (dump, stats, convert, replay): stop at the first damage instead
 * of reading on past it. The option's getopt code, and its setting. */
enum { CLI_O_STRICT = 900 };
extern int cli_strict;
/* -j N, --jobs N (dump, stats, validate, convert, replay, report): read a
 * container on N threads (hatf_source_jobs); 0, the default: one per core. */
extern unsigned cli_jobs;
#define CLI_JOBS_OPTION { "jobs", required_argument, NULL, 'j' }
/* Parse -j's value (1 to HATF_SOURCE_JOBS_MAX) into cli_jobs.
 * @return 0, or CLI_USAGE after printing the problem. */
int cli_parse_jobs(const char *cmd, const char *arg);

/* the command's version is the library's (include/hatf_version.h) */
#define HATRACE_VERSION HATF_VERSION_STRING

/* "hatrace: " + message + newline on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "hatrace: FILE: offset N: msg" from an hatf_err (the offset part is left out
 * when msg already starts with "offset"). */
void cli_error_at(const char *file, const hatf_err *e);

/* "hatrace CMD: msg (see 'hatrace CMD --help')" on stderr. @return CLI_USAGE. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reset getopt for a subcommand's argv (argv[0] is the subcommand) and make it
 * quiet: errors are reported through cli_bad_option. Start the short-option
 * string with ":" so a missing argument is told apart from an unknown option
 * (options may then come after the file, as in "hatrace convert IN -o OUT");
 * a command that runs a program (record) uses "+:" so options stop at it. */
void cli_getopt_begin(void);

/* Report what getopt_long returned ('?' unknown, ':' missing argument, or an
 * option the command did not handle). @return CLI_USAGE. */
int cli_bad_option(const char *cmd, int c, char **argv);

/* Print help text (to stdout). @return CLI_OK. */
int cli_help(const char *text);

/* Parse an unsigned decimal option value ("--limit 10").
 * @return 0, or CLI_USAGE after printing the problem. */
int cli_parse_u64(const char *cmd, const char *opt, const char *arg, uint64_t *out);

/* Parse a value that is one of n words ("--sort bytes"): *out = its index.
 * @return 0, or CLI_USAGE after "OPT: 'ARG' is not W0, W1 or W2". */
int cli_parse_word(const char *cmd, const char *opt, const char *arg, const char *const *words, size_t n,
                   int *out);

/* Parse a format name for --from/--to ("hatrace", "hatf1.0", "text").
 * @return 0, or CLI_USAGE after printing the problem. */
int cli_parse_format(const char *cmd, const char *opt, const char *arg, hatf_format *out);

/* Exactly one operand (the input file) after the options. "-", a pipe or
 * any other input that is not a regular file is first copied into an
 * unnamed temporary file, which cli_open_source opens in its place (every
 * format needs to read at random, and some commands read twice); only its
 * first block when it does not start as format fmt (the --from given, or
 * AUTO) says.
 * @return 0 with *path set (as the user gave it, for messages), CLI_USAGE or
 * CLI_FAIL after printing the problem. */
int cli_one_file(const char *cmd, int argc, char **argv, hatf_format fmt, const char **path);

/* Open a trace; on failure print the one-line error and return NULL. A
 * container's damaged chunk groups are passed over (unless --strict); it is
 * read on cli_jobs threads. */
hatf_source *cli_open_source(const char *path, hatf_format fmt);

/* The permission bits of a file made from the trace at in_path (convert's
 * text, CSV or Meta-TF, report's page): the input's own, so that a private
 * 0600 trace gives private copies (they carry its command line and its
 * program's addresses); 0666 for a pipe, as before. The umask applies. */
mode_t cli_derived_mode(const char *in_path);

/* After a command has read s: a damaged or cut container gets its damage
 * lines on stderr (what, where, how many events) and one line saying the
 * output is partial. @return rc, or CLI_PARTIAL for CLI_OK on such a trace. */
int cli_read_end(const char *path, hatf_source *s, int rc);

/* Print the error of a source whose next() failed. @return CLI_FAIL. */
int cli_source_failed(const char *path, const hatf_source *s);

/* Flush stdout and report a write error. @return rc, or CLI_FAIL on error. */
int cli_finish_stdout(int rc);

/* Time unit of a source in ns as num/den: its header's (a container's, or what
 * a text trace or a HATF 1.0 stream written by hatrace carries); 1/1, i.e.
 * nanoseconds, for another writer's stream, which does not say. */
void cli_time_unit(hatf_source *s, uint64_t *num, uint64_t *den);
/* CLOCK_MONOTONIC now, in milliseconds and in seconds (the commands' waits and delays). */
uint64_t cli_now_ms(void);
double cli_now_s(void);

/* Append printf-style text to o (one piece at most 8191 bytes; longer is cut). */
void cli_put(hatf_buf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Append s to out as a JSON string (quotes and escapes included). */
void cli_json_string(hatf_buf *out, const char *s);

/* A signal the recorder noted, in words: "signal 11 (SIGSEGV, address not
 * mapped) on thread 3 at address 0x0", or "... sent by process 1234". */
void cli_signal_text(const hatf_signal *s, char *out, size_t cap);

/* The window options of the reading commands (stats, report, validate, replay). */
enum { WINDOW_O_FROM = 950, WINDOW_O_TO, WINDOW_O_PHASE, WINDOW_O_THREAD };

#define WINDOW_OPTIONS                                                  \
    { "from-time", required_argument, NULL, WINDOW_O_FROM },            \
    { "to-time", required_argument, NULL, WINDOW_O_TO },                \
    { "phase", required_argument, NULL, WINDOW_O_PHASE },               \
    { "thread", required_argument, NULL, WINDOW_O_THREAD }

/* The options' lines of a command's --help. */
#define WINDOW_HELP                                                                      \
    "  --from-time T, --to-time T  only the events from T on, and before T: a time\n"   \
    "                 since the trace's start, in s, ms, us or ns (1.5s, 250ms;\n"      \
    "                 s when no unit is given)\n"                                        \
    "  --phase NAME   only the phase NAME (as stats --phases names them: from the\n"     \
    "                 program's comment NAME to its next one; \"(start)\": before\n"     \
    "                 the first)\n"                                                      \
    "  --thread N     only the calls of thread N and the objects they made (their\n"     \
    "                 frees by any thread included); docs/tools.md, \"Windows\"\n"

/* 1 when opt is one of WINDOW_OPTIONS. */
static inline int window_option(int opt) { return opt >= WINDOW_O_FROM && opt <= WINDOW_O_THREAD; }

/* Take a window option's value for the sources cli_open_source opens next
 * (analyze/window.h says what a window holds).
 * @return 0, or CLI_USAGE after saying why. */
int window_parse(const char *cmd, int opt, const char *arg);

/* 1 when a window option was given. */
int window_given(void);

/* "T" as nanoseconds ("1.5s", "250ms", "20us", "100ns", "2"). @return 0 or -1. */
int window_parse_time(const char *arg, uint64_t *ns);

#endif
