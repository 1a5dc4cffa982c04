/* unwind.c — call stacks from the program's DWARF call-frame information
 * (.eh_frame), with a per-thread cache of each code address's frame rule.
 *
 * libunwind's fast path (unw_backtrace) does the same walk but costs about 50
 * instructions per frame plus ~700 per call (context, cursor, its cache); here
 * a cached frame costs a probe of a small near table (L1-resident), two or
 * three loads and a compare.
 *
 * A frame rule says where the caller's frame is: CFA = rsp or rbp + offset,
 * the return address at CFA - 8, the caller's rbp at CFA + offset or still in
 * rbp. It is read once per code address from the object's .eh_frame (found
 * with _dl_find_object through .eh_frame_hdr, lock-free) by running the FDE's
 * CFA program up to that address, exactly as an unwinder does. Anything else
 * (a CFA expression as in signal trampolines and PLTs, a register-held return
 * address, no FDE, a frame outside the thread's stack) makes ht_unwind return
 * -1 and the caller unwinds with libunwind: no guessing, so a stack is either
 * the one the CFI describes or not taken here.
 *
 * Every load is bounded to [current rsp, top of the thread's stack) and each
 * frame's CFA must lie above the last: a broken rule cannot fault or loop.
 * Like libunwind's own trace cache, rules are keyed by address and not
 * forgotten when a library is unloaded.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "prim.h"
#include "unwind.h"

#if defined(__x86_64__) && defined(__GLIBC__) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
#define HT_UNW_CFI 1
#endif

enum {
    R_NONE = 0,     /* empty cache slot */
    R_OK,           /* walkable: the fields hold the rule */
    R_END,          /* the return address is undefined: outermost frame */
    R_CANNOT        /* not described in a way we walk: use libunwind */
};

/* DWARF register numbers (x86-64 psABI) */
enum { DW_RBP = 6, DW_RSP = 7, DW_RA = 16 };

#ifdef HT_UNW_CFI

/* ---- reading .eh_frame ------------------------------------------------------ */

typedef struct rd { const uint8_t *p, *end; int bad; } rd;

static uint64_t uleb(rd *r)
{
    uint64_t v = 0;
    for (int s = 0; ; s += 7) {
        if (r->p >= r->end || s > 63) { r->bad = 1; return 0; }
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << s;
        if (!(b & 0x80)) return v;
    }
}

static int64_t sleb(rd *r)
{
    uint64_t v = 0;
    int s = 0;
    uint8_t b;
    do {
        if (r->p >= r->end || s > 63) { r->bad = 1; return 0; }
        b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << s;
        s += 7;
    } while (b & 0x80);
    if (s < 64 && (b & 0x40)) v |= ~0ULL << s;
    return (int64_t)v;
}

static uint64_t fixed(rd *r, int size)
{
    if (r->end - r->p < size) { r->bad = 1; return 0; }
    uint64_t v = 0;
    memcpy(&v, r->p, (size_t)size);  /* little endian */
    r->p += size;
    return v;
}

/* A pointer in DW_EH_PE encoding enc: absolute or pc-relative, fixed or
 * LEB128 sized (all x86-64 toolchains emit); anything else is bad. */
static uint64_t eh_ptr(rd *r, uint8_t enc)
{
    const uint8_t *at = r->p;
    uint64_t v;
    if (enc == 0xff) { r->bad = 1; return 0; }  /* DW_EH_PE_omit where one is needed */
    switch (enc & 0x0f) {
    case 0x00: v = fixed(r, 8); break;
    case 0x01: v = uleb(r); break;
    case 0x02: v = fixed(r, 2); break;
    case 0x03: v = fixed(r, 4); break;
    case 0x04: v = fixed(r, 8); break;
    case 0x09: v = (uint64_t)sleb(r); break;
    case 0x0a: v = (uint64_t)(int64_t)(int16_t)fixed(r, 2); break;
    case 0x0b: v = (uint64_t)(int64_t)(int32_t)fixed(r, 4); break;
    case 0x0c: v = fixed(r, 8); break;
    default: r->bad = 1; return 0;
    }
    switch (enc & 0x70) {
    case 0x00: break;
    case 0x10: v += (uint64_t)(uintptr_t)at; break;
    default: r->bad = 1; return 0;
    }
    if (enc & 0x80) r->bad = 1;  /* indirect: never for pc_begin */
    return v;
}

/* The FDE covering pc, from the object's .eh_frame_hdr binary search table. */
static const uint8_t *find_fde(uintptr_t pc)
{
    struct dl_find_object fo;
    if (_dl_find_object((void *)pc, &fo) != 0 || !fo.dlfo_eh_frame) return NULL;
    const uint8_t *hdr = fo.dlfo_eh_frame;
    /* version 1; the table: fde count udata4, entries datarel sdata4 pairs */
    if (hdr[0] != 1 || hdr[2] != 0x03 || hdr[3] != 0x3b) return NULL;
    rd r = { hdr + 4, hdr + 4 + 16, 0 };
    eh_ptr(&r, hdr[1]);  /* eh_frame_ptr: not needed */
    uint32_t count = (uint32_t)fixed(&r, 4);
    if (r.bad || count == 0) return NULL;
    const int32_t *t = (const int32_t *)(const void *)r.p;
    intptr_t rel = (intptr_t)pc - (intptr_t)hdr;
    uint32_t lo = 0, hi = count;  /* last entry with start <= pc */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t[2 * mid] <= rel) lo = mid;
        else hi = mid;
    }
    if (t[2 * lo] > rel) return NULL;
    return hdr + t[2 * lo + 1];
}

/* ---- the CFA program ---------------------------------------------------------- */

typedef struct rule_reg { uint8_t how; int64_t off; } rule_reg;  /* how: see RR_ */
enum { RR_SAME, RR_OFFSET, RR_UNDEF, RR_OTHER };

typedef struct cfstate {
    int cfa_reg;            /* DWARF register, -1: an expression */
    int64_t cfa_off;
    rule_reg rbp, ra;
} cfstate;

static rule_reg *tracked(cfstate *s, uint64_t reg)
{
    return reg == DW_RBP ? &s->rbp : reg == DW_RA ? &s->ra : NULL;
}

/* Run the CFA instructions in r from location loc while loc <= pc.
 * init: the state after the CIE's instructions (DW_CFA_restore), NULL while
 * running them. @return 0, or -1 on what we do not model. */
static int run_cfa(rd *r, cfstate *s, const cfstate *init, uint64_t loc, uint64_t pc,
                   uint64_t caf, int64_t daf)
{
    cfstate stack[8];
    int depth = 0;
    while (r->p < r->end && !r->bad) {
        uint8_t op = *r->p++;
        uint64_t reg = op & 0x3f, delta = 0;
        rule_reg *rr;
        switch (op >> 6) {
        case 1: delta = reg * caf; goto advance;
        case 2:
            if ((rr = tracked(s, reg))) *rr = (rule_reg){ RR_OFFSET, (int64_t)uleb(r) * daf };
            else uleb(r);
            continue;
        case 3:
            if (!init) return -1;
            if ((rr = tracked(s, reg))) *rr = *tracked((cfstate *)init, reg);
            continue;
        }
        switch (op) {
        case 0x00: continue;                                  /* nop */
        case 0x02: delta = fixed(r, 1) * caf; goto advance;   /* advance_loc1 */
        case 0x03: delta = fixed(r, 2) * caf; goto advance;
        case 0x04: delta = fixed(r, 4) * caf; goto advance;
        case 0x05: case 0x11: case 0x2f: {                    /* offset_extended(_sf), GNU negative */
            reg = uleb(r);
            int64_t off = op == 0x11 ? sleb(r) * daf : (int64_t)uleb(r) * daf;
            if (op == 0x2f) off = -off;
            if ((rr = tracked(s, reg))) *rr = (rule_reg){ RR_OFFSET, off };
            continue;
        }
        case 0x06:                                            /* restore_extended */
            reg = uleb(r);
            if (!init) return -1;
            if ((rr = tracked(s, reg))) *rr = *tracked((cfstate *)init, reg);
            continue;
        case 0x07: case 0x08:                                 /* undefined, same_value */
            reg = uleb(r);
            if ((rr = tracked(s, reg))) *rr = (rule_reg){ op == 0x07 ? RR_UNDEF : RR_SAME, 0 };
            continue;
        case 0x09: case 0x14: case 0x15:                      /* register, val_offset(_sf) */
            reg = uleb(r);
            if (op == 0x15) sleb(r); else uleb(r);
            if ((rr = tracked(s, reg))) rr->how = RR_OTHER;
            continue;
        case 0x10: case 0x16: {                               /* expression, val_expression */
            reg = uleb(r);
            uint64_t n = uleb(r);
            if (n > (uint64_t)(r->end - r->p)) return -1;
            r->p += n;
            if ((rr = tracked(s, reg))) rr->how = RR_OTHER;
            continue;
        }
        case 0x0a:                                            /* remember_state */
            if (depth == 8) return -1;
            stack[depth++] = *s;
            continue;
        case 0x0b:                                            /* restore_state */
            if (depth == 0) return -1;
            *s = stack[--depth];
            continue;
        case 0x0c: s->cfa_reg = (int)uleb(r); s->cfa_off = (int64_t)uleb(r); continue;
        case 0x12: s->cfa_reg = (int)uleb(r); s->cfa_off = sleb(r) * daf; continue;
        case 0x0d: s->cfa_reg = (int)uleb(r); continue;
        case 0x0e: s->cfa_off = (int64_t)uleb(r); continue;
        case 0x13: s->cfa_off = sleb(r) * daf; continue;
        case 0x0f: {                                          /* def_cfa_expression */
            uint64_t n = uleb(r);
            if (n > (uint64_t)(r->end - r->p)) return -1;
            r->p += n;
            s->cfa_reg = -1;
            continue;
        }
        case 0x2e: uleb(r); continue;                         /* GNU_args_size */
        default: return -1;                                   /* set_loc and the rest */
        }
    advance:
        if (loc + delta > pc) return 0;  /* the row for pc is the current one */
        loc += delta;
    }
    return r->bad ? -1 : 0;
}

/* The frame rule at code address pc (exact: the caller passes a return
 * address minus one). */
static ht_unw_rule rule_at(uintptr_t pc)
{
    ht_unw_rule out = { .ip = pc, .kind = R_CANNOT };
    const uint8_t *fde = find_fde(pc);
    if (!fde) return out;
    rd r = { fde, fde + 8, 0 };
    uint64_t len = fixed(&r, 4);
    if (len == 0 || len >= 0xfffffff0u) return out;  /* 64-bit lengths: not in .eh_frame of DSOs */
    const uint8_t *fend = fde + 4 + len;
    r.end = fend;
    const uint8_t *cie_at = r.p;
    uint32_t cie_off = (uint32_t)fixed(&r, 4);
    if (cie_off == 0) return out;  /* a CIE, not an FDE */
    const uint8_t *cie = cie_at - cie_off;

    /* the CIE: augmentation, alignment factors, return register, encodings */
    rd c = { cie, cie + 8, 0 };
    uint64_t clen = fixed(&c, 4);
    if (clen == 0 || clen >= 0xfffffff0u) return out;
    c.end = cie + 4 + clen;
    if (fixed(&c, 4) != 0) return out;
    uint8_t ver = (uint8_t)fixed(&c, 1);
    if (ver != 1 && ver != 3) return out;
    const char *aug = (const char *)c.p;
    size_t alen = strnlen(aug, (size_t)(c.end - c.p));
    if (aug + alen >= (const char *)c.end) return out;
    c.p += alen + 1;
    uint64_t caf = uleb(&c);
    int64_t daf = sleb(&c);
    uint64_t ra_reg = ver == 1 ? fixed(&c, 1) : uleb(&c);
    uint8_t fde_enc = 0;
    int zaug = aug[0] == 'z';
    if (zaug) {
        uint64_t n = uleb(&c);
        const uint8_t *aend = c.p + n;
        if (c.bad || n > (uint64_t)(c.end - c.p)) return out;
        for (const char *a = aug + 1; *a; a++) {
            if (*a == 'R') fde_enc = (uint8_t)fixed(&c, 1);
            else if (*a == 'L') fixed(&c, 1);
            else if (*a == 'P') eh_ptr(&c, (uint8_t)fixed(&c, 1) & 0x7f);  /* not followed */
            else return out;  /* 'S' (a signal frame: libunwind's job) and the unknown */
        }
        c.p = aend;
    } else if (alen) {
        return out;  /* old "eh" augmentations */
    }
    if (c.bad || ra_reg != DW_RA) return out;

    /* the FDE: the range, then its augmentation data */
    uint64_t start = eh_ptr(&r, fde_enc);
    uint64_t range = eh_ptr(&r, fde_enc & 0x0f);
    if (r.bad || pc < start || pc - start >= range) return out;
    if (zaug) {
        uint64_t n = uleb(&r);
        if (r.bad || n > (uint64_t)(r.end - r.p)) return out;
        r.p += n;
    }

    cfstate init = { .cfa_reg = -1, .cfa_off = 0, .rbp = { RR_SAME, 0 }, .ra = { RR_UNDEF, 0 } };
    if (run_cfa(&c, &init, NULL, start, start, caf, daf) < 0) return out;
    cfstate s = init;
    if (run_cfa(&r, &s, &init, start, pc, caf, daf) < 0) return out;

    if (s.ra.how == RR_UNDEF) { out.kind = R_END; return out; }
    if (s.ra.how != RR_OFFSET || s.ra.off != -8) return out;
    if (s.cfa_reg != DW_RSP && s.cfa_reg != DW_RBP) return out;
    if (s.cfa_off < 8 || s.cfa_off > INT32_MAX) return out;
    if (s.rbp.how == RR_OFFSET) {
        if (s.rbp.off >= 0 || s.rbp.off < INT16_MIN) return out;  /* saved below the CFA */
        out.rbp_off = (int16_t)s.rbp.off;
    } else if (s.rbp.how != RR_SAME) {
        return out;
    }
    out.cfa_rbp = s.cfa_reg == DW_RBP;
    out.cfa_off = (int32_t)s.cfa_off;
    out.kind = R_OK;
    return out;
}

static inline ht_unw_rule *near_of(ht_unw *u, uintptr_t ip)
{
    return &u->near[(ip * 0x9e3779b97f4a7c15ULL) >> (64 - HT_UNW_NEAR_BITS)];
}

static inline ht_unw_rule *slot_of(ht_unw *u, uintptr_t ip)
{
    return &u->slot[(ip * 0x9e3779b97f4a7c15ULL) >> (64 - HT_UNW_BITS)];
}

/* ip's rule when neither its home slot e nor the next holds it: found among
 * the HT_UNW_WINDOW slots from e, or read and put in the first empty one (the
 * home slot when none is: one slot per address would thrash on two addresses
 * sharing it). Slots never empty again, so a hit is always within the window. */
__attribute__((noinline)) static ht_unw_rule *rule_miss(ht_unw_rule *e, uintptr_t ip)
{
    ht_unw_rule *x = e;
    for (int k = 1; k < HT_UNW_WINDOW && x->ip; k++)
        if ((++x)->ip == ip) return x;
    if (x->ip) x = e;  /* a full window: evict the home slot's */
    *x = rule_at(ip);
    return x;
}

__attribute__((noinline)) int ht_unwind(ht_unw *u, uint64_t *out, int max)
{
    uintptr_t ip, sp, bp;
    /* where we are, with the registers the rule at this address refers to */
    __asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
                     : "=r"(ip), "=r"(sp), "=r"(bp));
    const uintptr_t lo = sp, hi = u->hi;
    if (sp < u->lo || sp >= hi) return -1;  /* not on the thread's own stack */
    int n = 0;
    while (n < max) {
        ht_unw_rule *e = near_of(u, ip);
        if (HT_UNLIKELY(e->ip != ip)) {  /* ip > 0: 0 is empty */
            ht_unw_rule *f = slot_of(u, ip);
            if (f->ip != ip) f = f[1].ip == ip ? f + 1 : rule_miss(f, ip);
            *e = *f;
        }
        /* other kinds than R_OK have cfa_off 0: the CFA check sorts them out */
        uintptr_t cfa = (e->cfa_rbp ? bp : sp) + (uint32_t)e->cfa_off;
        if (HT_UNLIKELY(cfa < sp + 8 || cfa > hi)) {
            if (e->kind == R_END) break;
            return -1;
        }
        if (e->rbp_off) {
            uintptr_t a = cfa + e->rbp_off;
            if (a < lo) return -1;
            bp = *(const uintptr_t *)a;
        }
        uintptr_t ra = *(const uintptr_t *)(cfa - 8);
        sp = cfa;
        if (ra < 4096) break;  /* no caller */
        out[n++] = ra;
        ip = ra - 1;  /* inside the call: a noreturn call may end the function */
    }
    return n;
}

int ht_unwind_attach(ht_unw *u)
{
    HATF_PRE(ht_t.untraced > 0);
    u->lo = u->hi = 0;
    pthread_attr_t a;
    if (pthread_getattr_np(pthread_self(), &a)) return -1;
    void *lo;
    size_t size;
    if (!pthread_attr_getstack(&a, &lo, &size)) {
        u->lo = (uintptr_t)lo;
        u->hi = (uintptr_t)lo + size;
    }
    pthread_attr_destroy(&a);
    return u->hi ? 0 : -1;
}

#else  /* no DWARF walker here: libunwind does every stack */

int ht_unwind(ht_unw *u, uint64_t *out, int max)
{
    (void)u, (void)out, (void)max;
    return -1;
}

int ht_unwind_attach(ht_unw *u)
{
    HATF_PRE(ht_t.untraced > 0);
    u->lo = u->hi = 0;
    return -1;
}

#endif
