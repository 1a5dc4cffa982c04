/* unwind.h — the stack walk from DWARF call-frame information (unwind.c). */
#ifndef HT_UNWIND_H
#define HT_UNWIND_H

#include <stdint.h>

#include "prim.h"

/* cached frame rules per thread: 16384 (256 KiB), an address's in the window
 * of slots from its home one (hence the extra slots at the end); 256 near copies */
enum { HT_UNW_BITS = 14, HT_UNW_WINDOW = 8, HT_UNW_NEAR_BITS = 8 };
/* How to find a frame's caller, for one code address (see unwind.c). */
typedef struct ht_unw_rule {
    uintptr_t ip;           /* the code address; 0: empty slot */
    int32_t cfa_off;        /* CFA = (cfa_rbp ? rbp : rsp) + cfa_off */
    int16_t rbp_off;        /* the caller's rbp saved at CFA + rbp_off; 0: still in rbp */
    uint8_t cfa_rbp, kind;
} ht_unw_rule;
/* A thread's unwinder: its stack's bounds and rule caches (no lock: one
 * thread). near copies the rules of recent addresses into 4 KiB that stay in
 * the L1 cache between walks; slot, every address's, spans 256 KiB. */
typedef struct ht_unw {
    uintptr_t lo, hi;
    ht_unw_rule near[1 << HT_UNW_NEAR_BITS];
    ht_unw_rule slot[(1 << HT_UNW_BITS) + HT_UNW_WINDOW];
} ht_unw;
/* Take the calling thread's stack bounds. pre: untraced (it may allocate).
 * @return 0, or -1 when unknown (then ht_unwind always returns -1). */
int ht_unwind_attach(ht_unw *u) HT_HIDDEN;
/* Like unw_backtrace: the return addresses of the calling function's frame
 * and its callers', innermost first, into out[0..max). No lock, no malloc,
 * async-signal-safe. @return the count, or -1 when the stack cannot be
 * walked from the call-frame information (then take libunwind's). */
int ht_unwind(ht_unw *u, uint64_t *out, int max) HT_HIDDEN;

#endif /* HT_UNWIND_H */
