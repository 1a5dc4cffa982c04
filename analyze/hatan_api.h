/* hatan_api.h — libhatanalyze: hatrace's figures for programs other than the
 * hatrace command (the Python package calls it through ctypes), computed by
 * the same functions of analyze/ the commands print (docs/architecture.md).
 * The library links libhatf.so; it exports the hatan_* names below and
 * nothing else (analyze/libhatanalyze.map). libhatanalyze(3) documents them.
 *
 * Thread safety: each handle to one thread at a time; different handles and
 * the stateless calls on any threads.
 */
#ifndef HATAN_API_H
#define HATAN_API_H

#include <stddef.h>
#include <stdint.h>

#include "hatf.h"
#include "hatf_source.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef HATAN_API
#define HATAN_API __attribute__((visibility("default")))
#endif

/* The API's version: a later version only adds. */
#define HATAN_API_VERSION 2  /* 2: hatan_stats_json, hatan_free */

/* HATAN_API_VERSION of the library loaded (a caller built against an older
 * header checks it is at least its own). */
HATAN_API unsigned hatan_api_version(void);

/* The key figures of hatrace stats (stats --json's names; analyze/stats.c
 * counts them, by the live-object rule of docs/tools.md, "Live objects"). */
typedef struct hatan_figures {
    uint64_t records;              /* events, comments included */
    uint64_t allocs, frees, free_null, reallocs;
    uint64_t total_bytes;          /* asked for by the allocations that made an object */
    uint64_t max_live_objects, max_live_bytes;
    uint64_t live_objects_at_end, live_bytes_at_end;
    uint64_t temporary;            /* temporary allocations (stats --sites' "temporary") */
    uint64_t first_time, last_time;  /* of the timed events, in the trace's units (0, 0: none) */
} hatan_figures;

/* The figures of every event of the trace at path, read as hatrace stats
 * reads it: fmt as its --from (HATF_FMT_AUTO: by the magic), read_on: pass a
 * container's damaged chunk groups over (as the commands do without
 * --strict), jobs as -j (0: one thread per core).
 * @return 0, or a negative HATF_E_* code with *err saying what and where
 * (the events before the error are not returned). */
HATAN_API int hatan_stats_file(const char *path, hatf_format fmt, int read_on, unsigned jobs, hatan_figures *out,
                               hatf_err *err);

/* Every figure of hatrace stats --json of the trace at path, as that JSON
 * text (docs/tools.md, "stats": the same object, byte for byte, "file"
 * being path), read as hatan_stats_file reads it. *json: a NUL-terminated
 * string to release with hatan_free. @return as hatan_stats_file. (API 2) */
HATAN_API int hatan_stats_json(const char *path, hatf_format fmt, int read_on, unsigned jobs, char **json,
                               hatf_err *err);

/* Release what the library gave (hatan_stats_json's text); NULL allowed. (API 2) */
HATAN_API void hatan_free(void *p);

/* The figures of n rows given as the columns hatf_source_read_columns
 * writes (rows of any source, or a selection of them, in their order): op,
 * heap, size, address, old_address and failed are needed (when n > 0),
 * thread and time are used when given (else 0), the others are not read.
 * @return 0; HATF_E_USAGE when a needed column is NULL or a row's op is no
 * hatf_op (*out is then not filled); HATF_E_NOMEM. */
HATAN_API int hatan_stats_columns(const hatf_columns *c, size_t n, hatan_figures *out);

/* One frame of a stored call stack, as convert --to csv's frames table
 * names it. Strings are owned by the handle (valid until hatan_frames_close). */
typedef struct hatan_frame {
    uint64_t stack;           /* the stack's id (the events' stack column) */
    uint64_t depth;           /* 0: the innermost frame */
    uint64_t address;
    const char *module;       /* file name (no folder) of the module holding it; "" when none */
    uint64_t module_offset;   /* address in that file (minus its load bias); 0 when no module */
    const char *function;     /* the name the trace stored (as the symbol table has it); "" when none */
    uint64_t function_offset; /* address minus the function's start; 0 when unnamed */
    const char *file;         /* source file of the call (analyze/srclines.c); "" when unknown */
    uint64_t line;            /* its line; 0 when unknown */
} hatan_frame;

typedef struct hatan_frames hatan_frames;

/* The frames of the stacks stored in the trace at path (fmt as for
 * hatan_stats_file), in stack order, innermost first; lines: look the
 * source lines up in the modules' debug information on this machine (by
 * build id), else file "" and line 0. A trace without stack tables has no
 * frames. @return the handle, or NULL with *err set. */
HATAN_API hatan_frames *hatan_frames_open(const char *path, hatf_format fmt, int lines, hatf_err *err);
/* The next frame into *out. @return 1, or 0 after the last. */
HATAN_API int hatan_frames_next(hatan_frames *f, hatan_frame *out);
HATAN_API void hatan_frames_close(hatan_frames *f);  /* NULL allowed */

#ifdef __cplusplus
}
#endif

#endif
