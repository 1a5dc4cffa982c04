/* frames_text.c — a frame as lines of text; see frames_text.h. */
#include "cli_util.h"
#include "frames_text.h"

void frames_put(frames *f, hatf_buf *o, const char *prefix, uint64_t addr)
{
    const srcline *in;
    size_t n = frames_inlined(f, addr, &in);
    for (size_t i = 0; i < n; i++)
        cli_put(o, "%s%s (inlined) %s:%d\n", prefix, frames_inlined_name(f, &in[i]), in[i].file, in[i].line);
    char text[1024];
    frames_describe(f, addr, text, sizeof text);
    cli_put(o, "%s%s\n", prefix, text);
}
