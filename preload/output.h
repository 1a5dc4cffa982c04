/* output.h — the trace file (output.c): its name, creation, header, report
 * lines, write failures, the SIGXFSZ guard. */
#ifndef HT_OUTPUT_H
#define HT_OUTPUT_H

#include <signal.h>
#include <stdint.h>

#include "prim.h"

/* Open the output of this process now (early error), or in a fork child later.
 * @return 0, or -1 after one message (the program then runs untraced). */
int ht_output_open(void) HT_HIDDEN;
/* pre: wlock held. Open the writer (creating the file first if need be).
 * @return 0, or -1 if the trace is off. */
int ht_writer_open(void) HT_HIDDEN;
/* pre: wlock held. The writer failed: close it, say why, stop recording. */
void ht_write_failed(void) HT_HIDDEN;
/* pre: wlock held. A sample of the process's resident memory into the trace
 * (each flush interval, and at the end). */
void ht_resident_sample(void) HT_HIDDEN;
/* For the program's close hooks (hooks.c): whether fd is the open trace's
 * descriptor, which a close by the program (not the recorder's own code)
 * leaves open, saying it closed. A daemon that closes every descriptor keeps
 * its trace. Cheap unless fd is the trace's number (then one fstat). */
int ht_fd_kept(int fd) HT_HIDDEN;
/* The kept descriptor if it lies in [lo, hi], else -1. */
int ht_fd_kept_in(unsigned lo, unsigned hi) HT_HIDDEN;
/* pre: wlock held. 0 (and recording stops) if the program closed the trace's
 * descriptor and may have reused its number. */
int ht_out_fd_intact(void) HT_HIDDEN;
/* hatrace record's "E" line for this trace, at close: its events, bytes,
 * events dropped, ring waits, the background threads' CPU ns, the events
 * in chunk groups coded fast, ht_fs.death_sig, and the fast events stored
 * unpacked. */
void ht_report_end(uint64_t bytes, uint64_t dropped, uint64_t waits, uint64_t bg_ns,
                   uint64_t fast_events, uint64_t stored_events) HT_HIDDEN;
/* hatrace record's "X" line: writing the trace failed (why), it is incomplete. */
void ht_report_failed(const char *why) HT_HIDDEN;
/* Around a write of the trace from a program thread: SIGXFSZ held, and the
 * one the write raised taken back (see output.c). */
typedef struct ht_xfsz_guard { sigset_t old; int was_pending; } ht_xfsz_guard;
void ht_xfsz_hold(ht_xfsz_guard *g) HT_HIDDEN;
void ht_xfsz_release(ht_xfsz_guard *g) HT_HIDDEN;

/* ---- what output.c needs of the flusher (flusher.c, which calls output.c) ---- */
/* pre: wlock held. Read the CPU time of the flusher and the helper into
 * ht_fs (from the flusher thread or the exiting one; the helper's while the
 * writer is open: it ends with it). */
void ht_background_cpu_read(void) HT_HIDDEN;

#endif /* HT_OUTPUT_H */
