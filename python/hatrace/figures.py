"""Key figures of `hatrace stats` computed from a trace's DataFrame with
NumPy alone (vectorised, no loop over events), by the rule stats counts live
objects with (docs/tools.md, "Live objects"): an allocation or a realloc
makes an object in the event's heap (replacing one still live at that
address), a free or a realloc ends the object at its address whatever its
heap, a heap-destroy ends every object still live in its heap, a failed
realloc changes nothing, and an allocation of address 0 (a failed one) makes
nothing. The peaks are taken after every event, as stats takes them.

The tests check these against `hatrace stats --json` on the same traces."""

import numpy as np

# hatf_op codes (include/hatf.h)
ALLOC, FREE, REALLOC_INPLACE, REALLOC_MOVE, REALLOC_NEW, REALLOC_FREE = range(6)
HEAP_DESTROY = 7

NAMES = ("records", "allocs", "frees", "free_null", "reallocs", "total_bytes", "max_live_objects",
         "max_live_bytes", "live_objects_at_end", "live_bytes_at_end")


def _codes(col):
    """A column of op codes: a categorical's codes, or the codes themselves."""
    cat = getattr(col, "cat", None)
    return np.asarray(cat.codes if cat is not None else col).astype(np.int8, copy=False)


def _sum_by_row(rows, values, n):
    """Per row 0..n-1, the sum of values at that row (exact, int64)."""
    out = np.zeros(n, dtype=np.int64)
    if len(rows) == 0:
        return out
    order = np.argsort(rows, kind="stable")
    r, v = rows[order], values[order]
    starts = np.flatnonzero(np.r_[True, r[1:] != r[:-1]])
    out[r[starts]] = np.add.reduceat(v, starts)
    return out


def live_changes(op, heap, size, address, old_address, failed):
    """Per event, the change of the live objects and of the live bytes it
    makes (two int64 arrays): their running sums are the live objects and
    bytes after each event."""
    n = len(op)
    realloc = (op >= REALLOC_INPLACE) & (op <= REALLOC_FREE)
    done = ~(realloc & failed)  # a failed realloc left its block as it was
    makes = done & (address != 0) & ((op == ALLOC) | (realloc & (op != REALLOC_FREE)))
    ends_at = np.where(op == FREE, address, np.where(realloc & (op != REALLOC_NEW), old_address, 0))
    ends = done & (ends_at != 0)

    mrow, erow = np.flatnonzero(makes), np.flatnonzero(ends)
    msize = size[mrow].astype(np.int64)
    never = n  # a row past the last: still live at the end
    # Each object ends at the next event on its address (a release, or an
    # allocation that replaces it), or at its heap's next destroy if earlier.
    addr = np.concatenate([ends_at[erow], address[mrow]])
    row = np.concatenate([erow, mrow])
    kind = np.concatenate([np.zeros(len(erow), np.int8), np.ones(len(mrow), np.int8)])  # a release first
    order = np.lexsort((kind, row, addr))
    a_s, r_s = addr[order], row[order]
    nxt = np.full(len(order), never, dtype=np.int64)
    same = a_s[1:] == a_s[:-1]
    nxt[:-1][same] = r_s[1:][same]
    end_row = np.empty(len(mrow), dtype=np.int64)
    is_make = order >= len(erow)
    end_row[order[is_make] - len(erow)] = nxt[is_make]

    drow = np.flatnonzero(op == HEAP_DESTROY)
    if len(drow) and len(mrow):
        ids, dense = np.unique(np.concatenate([heap[mrow], heap[drow]]), return_inverse=True)
        mdense, ddense = dense[:len(mrow)].astype(np.int64), dense[len(mrow):].astype(np.int64)
        dkey = np.sort(ddense * (n + 1) + drow)
        at = np.searchsorted(dkey, mdense * (n + 1) + mrow, side="right")
        cand = dkey[np.minimum(at, len(dkey) - 1)]
        hit = (at < len(dkey)) & (cand // (n + 1) == mdense)
        end_row = np.where(hit, np.minimum(end_row, cand % (n + 1)), end_row)

    ended = end_row < never
    objects = np.zeros(n, dtype=np.int64)
    objects[mrow] += 1
    objects -= np.bincount(end_row[ended], minlength=n)[:n].astype(np.int64)
    nbytes = np.zeros(n, dtype=np.int64)
    nbytes[mrow] += msize
    nbytes -= _sum_by_row(end_row[ended], msize[ended], n)
    return objects, nbytes


def figures(df):
    """records, allocs, frees, free_null, reallocs, total_bytes,
    max_live_objects, max_live_bytes, live_objects_at_end and
    live_bytes_at_end of one trace's events (a DataFrame of to_pandas(), or
    a structured array of events(), in their order), as stats --json names
    them. A dict of ints."""
    col = (lambda c: df[c].values) if hasattr(df, "columns") else (lambda c: df[c])
    op = _codes(df["op"]) if hasattr(df, "columns") else np.asarray(df["op"]).astype(np.int8)
    address, size = col("address"), col("size")
    objects, nbytes = live_changes(op, col("heap"), size, address, col("old_address"),
                                   np.asarray(col("failed")).astype(bool))
    live_o, live_b = np.cumsum(objects), np.cumsum(nbytes)
    made = (op == ALLOC) & (address != 0)
    return {
        "records": int(len(op)),
        "allocs": int(np.count_nonzero(op == ALLOC)),
        "frees": int(np.count_nonzero(op == FREE)),
        "free_null": int(np.count_nonzero((op == FREE) & (address == 0))),
        "reallocs": int(np.count_nonzero((op >= REALLOC_INPLACE) & (op <= REALLOC_FREE))),
        "total_bytes": int(size[made].sum(dtype=np.uint64)),
        "max_live_objects": int(max(live_o.max(initial=0), 0)),
        "max_live_bytes": int(max(live_b.max(initial=0), 0)),
        "live_objects_at_end": int(live_o[-1]) if len(op) else 0,
        "live_bytes_at_end": int(live_b[-1]) if len(op) else 0,
    }
