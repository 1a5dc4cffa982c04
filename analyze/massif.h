/* massif.h — the call trees of massif's detailed snapshots (analyze/massif.c):
 * what the allocation sites held at one moment, as a tree of the places in
 * their call chains with massif's default threshold; cli/overtime_print.c
 * writes them in massif's file format (stats --massif).
 *
 * A tree node is a place in the call chains: a frame's own function at its
 * return address, or one of the functions inlined at that call (the same
 * address, innermost first, as dump --stacks shows them). A node's callers
 * are sorted by their bytes, largest first; callers below 1 % of the
 * snapshot are summed into one entry after the others.
 */
#ifndef ANALYZE_MASSIF_H
#define ANALYZE_MASSIF_H

#include <stddef.h>
#include <stdint.h>

#include "frames.h"
#include "site.h"

/* inl: the index among the functions inlined at addr, or their count (the frame's own) */
typedef struct massif_place { uint64_t addr; uint32_t inl; } massif_place;

/* One line of the tree, in the order massif writes them (a node, then its
 * callers' subtrees, then its entry below the threshold if any). */
typedef struct massif_line {
    int below;            /* 0: a node; 1: the sum of a node's callers below the threshold */
    size_t depth;         /* the node's depth (the root: 0); below: its node's depth + 1 */
    uint64_t bytes;
    size_t children;      /* a node: its callers shown (the entry below the threshold counts one);
                             below: the places summed in it */
    massif_place place;   /* a node but the root: its place */
} massif_line;

typedef void massif_line_fn(void *ctx, const massif_line *l);

/* The tree of what the sites v[0..n) held: bytes[i] for site i, or with
 * bytes NULL their at_peak_bytes (at_peak) or live_bytes; each line given
 * to put(ctx, ...) in order. @return 0, or -1 out of memory. */
int massif_tree(frames *fr, const site *v, size_t n, int at_peak, const uint64_t *bytes, massif_line_fn *put,
                void *ctx);

#endif
