/* export_sink.h — the file an export writes (cli/export_sink.c): made
 * afresh (an existing one only with --force, never the input itself), its
 * bytes gathered in a buffer and written plain, gzip-compressed (zlib) or
 * zstd-compressed as they come, and removed again when the export fails,
 * so that a failed export leaves no half file behind.
 */
#ifndef HATRACE_CLI_EXPORT_SINK_H
#define HATRACE_CLI_EXPORT_SINK_H

#include "hatf.h"

enum { SINK_PLAIN, SINK_GZIP, SINK_ZSTD };

typedef struct export_sink export_sink;

/* Create path (- : standard output) for an export of in_path, compressed as
 * codec (SINK_*). @return the sink, or NULL after saying why. */
export_sink *sink_open(const char *path, const char *in_path, int force, int codec);

/* Where to append the output; sink_flush passes it on when it has grown. */
hatf_buf *sink_buf(export_sink *k);

/* Write what the buffer holds once it passes a megabyte (all of it when
 * now is set). @return 0, or -1 after saying why. */
int sink_flush(export_sink *k, int now);

/* Finish the file (ok: the export succeeded; otherwise the file is removed).
 * @return 0, or -1 after saying why. */
int sink_close(export_sink *k, int ok);

#endif
