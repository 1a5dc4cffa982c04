/* export.h — a trace in the file formats of other tools, for hatrace convert
 * --to pprof|chrome|speedscope|heaptrack (cli/export.c dispatches; one file
 * per format: export_pprof.c, export_chrome.c, export_speedscope.c,
 * export_heaptrack.c). Every figure comes from the counts hatrace's own
 * commands print (sites.h, overtime.h, phases.h, heaplive.h) and every frame
 * from frames.h, so an export says what stats says (docs/tools.md, "Exports").
 */
#ifndef HATRACE_CLI_EXPORT_H
#define HATRACE_CLI_EXPORT_H

#include <stdint.h>

#include "export_sink.h"
#include "hatf_source.h"
#include "sites.h"

enum { EXPORT_PPROF, EXPORT_CHROME, EXPORT_SPEEDSCOPE, EXPORT_HEAPTRACK };
enum { EXPORT_INUSE_PEAK, EXPORT_INUSE_END };

typedef struct export_opts {
    int kind;             /* EXPORT_* */
    const char *in;       /* the trace */
    hatf_format from;
    const char *out;      /* the file to write, - for standard output */
    int force;            /* overwrite out */
    int inuse;            /* pprof: the inuse_* figures at the heap's peak or at the end */
    uint64_t points;      /* chrome: counter values per track, at most */
} export_opts;

/* The export's kind from --to's word. @return EXPORT_*, or -1 when the word
 * names none (a trace format, or nothing). */
int export_kind(const char *word);

/* Write the export o asks for. @return a CLI_* exit code (said on stderr). */
int export_run(const export_opts *o);

/* For the exports of the sites (pprof, speedscope): the sites of o->in as
 * stats --sites counts them, frames demangled and with their source lines
 * (said when the trace has no stacks), and the sink for o->out (codec:
 * SINK_*). @return CLI_OK or CLI_PARTIAL (a damaged trace, said) with *l
 * and *k to close, or CLI_FAIL after saying why (nothing to close). */
int export_open_sites(const export_opts *o, int codec, sites_list *l, export_sink **k);

int export_pprof(const export_opts *o);
int export_chrome(const export_opts *o);
int export_speedscope(const export_opts *o);
int export_heaptrack(const export_opts *o);

#endif
