/* frames.h — frame addresses of call stacks as people read them: function,
 * offset and module, C++ and Rust names demangled (analyze/frames.c). Used by
 * dump --stacks and stats --sites.
 *
 * The trace keeps each function's name as the program's symbol table has it
 * (mangled); demangling is for display only, done once per name and kept.
 */
#ifndef ANALYZE_FRAMES_H
#define ANALYZE_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "addrmap.h"
#include "hatf_container.h"
#include "srclines.h"

typedef struct frames {
    hatf_reader *r;   /* NULL: a trace without stack tables (text, raw HATF 1.0) */
    int demangle;     /* show demangled names */
    addrmap names;    /* a stored name (its address in the reader) -> its demangled copy, or none */
    srclines *lines;  /* NULL: no source lines */
} frames;

/* lines: look source lines up (srclines.h). @return 0, or -1 when out of memory. */
int frames_init(frames *f, hatf_reader *r, int demangle, int lines);
void frames_free(frames *f);

/* The name of the function holding addr as shown (demangled when f->demangle),
 * and *offset = addr - its start: the trace's name, else (with lines) the
 * module's own symbol on this machine; NULL when neither names it. */
const char *frames_function(frames *f, uint64_t addr, uint64_t *offset);

/* name demangled (C++, Rust), or NULL when it is not a mangled name. The
 * result is owned by f and lives as long as it. name must stay valid as long
 * as f (it is the cache key). */
const char *frames_demangled(frames *f, const char *name);

/* The file name of the module holding addr (no directory), and *vaddr = addr
 * in the module's file (minus its load bias); NULL when in no known module. */
const char *frames_module(frames *f, uint64_t addr, uint64_t *vaddr);

/* The source file and line of the call frame addr returns to, in the
 * frame's own function (-1: unknown, or lines are off). */
int frames_line(frames *f, uint64_t addr, const char **file, int *line);

/* The functions inlined at that call, innermost first (srclines.h), with
 * their lines. @return their count (0: none, unknown, or lines are off). */
size_t frames_inlined(frames *f, uint64_t addr, const srcline **in);

/* An inlined function's name as shown (demangled when f->demangle). */
const char *frames_inlined_name(frames *f, const srcline *in);

/* A frame is one place of a call chain per function inlined at its call
 * (innermost first), then one for its own function: frames_inlined + 1 places.
 * Place i of the frame at addr: the function's name as shown (NULL when
 * nothing names it), *file and *line of the call (*file NULL when unknown). */
const char *frames_place(frames *f, uint64_t addr, size_t i, const char **file, int *line);

/* The module holding addr (by its symbol, else by the address ranges of
 * the load map), NULL when in no known module. */
const hatf_module *frames_module_of(frames *f, uint64_t addr);

/* The places of the frame at addr (frames_place): frames_inlined + 1. */
size_t frames_places(frames *f, uint64_t addr);

/* frames_place, but a place nothing names gets its flame-graph node's name
 * (frames_node: "module+0xvaddr" or "0xaddr") in tmp. Never NULL. */
const char *frames_place_named(frames *f, uint64_t addr, size_t i, const char **file, int *line, char *tmp,
                               size_t cap);

/* "function+0xoff (module)", "0xaddr (module)" or "0xaddr" into out, and
 * " FILE:LINE" after it when the line is known. */
void frames_describe(frames *f, uint64_t addr, char *out, size_t cap);

/* A frame as one flame-graph node: "function" (no offset, so the calls a
 * function makes from different lines merge), else "module+0xvaddr", else
 * "0xaddr"; ';' (the folded format's separator) and line breaks become '_'. */
void frames_node(frames *f, uint64_t addr, char *out, size_t cap);

/* An inlined function as a flame-graph node, as frames_node. */
void frames_inlined_node(frames *f, const srcline *in, char *out, size_t cap);

#endif
