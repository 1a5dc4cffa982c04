/* frames_text.h — a call stack's frame as lines of text (dump --stacks,
 * stats --sites), from analyze/frames.h's names and lines. */
#ifndef HATRACE_CLI_FRAMES_TEXT_H
#define HATRACE_CLI_FRAMES_TEXT_H

#include "frames.h"

/* Append the frame at addr to o as lines of text, each prefix + what it
 * shows + newline: "function (inlined) FILE:LINE" for each function inlined
 * at the call, innermost first, then frames_describe's. */
void frames_put(frames *f, hatf_buf *o, const char *prefix, uint64_t addr);

#endif
