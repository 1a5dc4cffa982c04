/* textout.h — the head of a text trace written by dump and convert (cli/dump.c). */
#ifndef HATRACE_CLI_TEXTOUT_H
#define HATRACE_CLI_TEXTOUT_H

#include "hatf.h"
#include "hatf_container.h"
#include "hatf_source.h"

/* Append "#hatrace-text 1\n" and, for a container, one '#' line with its header
 * (version, pid, start, clock, time unit, command line): info's fields, or
 * with info NULL the container's own. */
void textout_header(hatf_source *s, const hatf_info *info, hatf_buf *out);

/* Append the fields of that line, after "# container ", without its newline:
 * "V.v pid P ppid Q start ISO clock C unit N/D ns B-bit[ forked][ incomplete]
 * cmdline \"...\"" (a HATF 1.0 stream's mark carries them too). */
void textout_container_fields(const hatf_info *in, int complete, hatf_buf *out);

/* Append "# damage: LINE\n" for the container's damage lines from number
 * from on (the header gives those known at open; convert adds later ones). */
void textout_damage(hatf_reader *r, size_t from, hatf_buf *out);

#endif
