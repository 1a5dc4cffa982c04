/* got_patch.h — redirect a running process's calls of named functions by
 * rewriting the relocated slots that hold their addresses (the GOT: PLT
 * jump slots, GLOB_DAT entries, plain 64-bit pointers), and put them back.
 * Used by attach.c, where the recorder is loaded too late for LD_PRELOAD's
 * symbol interposition. x86-64 ELF only (R_X86_64_* relocations).
 */
#ifndef HT_GOT_PATCH_H
#define HT_GOT_PATCH_H

#include <stddef.h>
#include <stdint.h>

/* A function to redirect: its name and where its calls go instead. */
typedef struct ht_got_target {
    const char *name;
    void *hook;
} ht_got_target;

/* Rewrite, in every loaded object not patched yet (but the object holding
 * skip, the dynamic linker and the vDSO), each slot bound to one of the n
 * targets' names, remembering what it held. pre: the caller holds the
 * patcher's lock (ht_got_lock). @return slots rewritten, or -1 when the
 * record of them could not grow (those found so far stay rewritten). */
long ht_got_patch_new(const ht_got_target *t, size_t n, const void *skip);
/* Put back every slot rewritten, in objects still loaded. pre: lock held. */
void ht_got_restore(void);
/* Forget the slots of objects no longer loaded (after a dlclose). pre: lock held. */
void ht_got_forget_unloaded(void);
/* The patcher's lock: recursive (a dlclose runs destructors that may dlopen). */
void ht_got_lock(void);
void ht_got_unlock(void);

#endif /* HT_GOT_PATCH_H */
