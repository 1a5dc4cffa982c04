/* hatf_text.h — the text form of a trace: one event per line, for people.
 *
 * The grammar is in docs/format-text.md. The text form holds the events
 * (not the encoding choices), so binary -> text -> binary keeps every event.
 */
#ifndef HATF_TEXT_H
#define HATF_TEXT_H

#include <stdio.h>
#include "hatf.h"
#include "hatf_container.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HATF_TEXT_MAGIC "#hatrace-text 1"  /* first line of a text trace */
#define HATF_TEXT_LINE_MAX 140000          /* longest line the parser accepts */

/* Format one event as a line (with '\n') into out.
 * @return 0, or HATF_E_NOMEM. */
int hatf_text_format(const hatf_event *ev, hatf_buf *out);

/* Parse one line (without its '\n'). Blank lines and lines starting with "#"
 * are not events: @return 0. @return 1 with *ev filled; ev->data points into
 * scratch (reused by the next call). @return negative with err set, naming
 * the column. line_offset is the byte offset of the line in its file. */
int hatf_text_parse(const char *line, size_t len, uint64_t line_offset,
                    hatf_event *ev, hatf_buf *scratch, hatf_err *err);

/* The parts of a trace's tables hatf_text_format_tables writes. */
#define HATF_TEXT_STACKS   1u  /* the stacks' frames and the stack depth */
#define HATF_TEXT_NAMES    2u  /* with the stacks, the load map and the frames' symbols */
#define HATF_TEXT_RESIDENT 4u  /* the resident memory samples */
#define HATF_TEXT_TABLES (HATF_TEXT_STACKS | HATF_TEXT_NAMES | HATF_TEXT_RESIDENT)

/* Append r's tables (parts, a mask of HATF_TEXT_*) as the text form's table
 * lines (docs/format-text.md, "Tables"): "#stack-depth", "#resident",
 * "#module", "#symbol" (of the stacks' frames), "#stack", which the text
 * source reads back (hatf_source_tables). Writers put them after the header
 * lines, before the first event. r NULL: nothing.
 * @return 0, or HATF_E_NOMEM. */
int hatf_text_format_tables(hatf_reader *r, unsigned parts, hatf_buf *out);

#ifdef __cplusplus
}
#endif
#endif /* HATF_TEXT_H */
