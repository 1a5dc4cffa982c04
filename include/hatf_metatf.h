/* hatf_metatf.h — Meta-TF, the self-describing trace form (libhatf).
 *
 * Meta-TF is proposed in section 4 and appendices B and C of Chilimbi, Jones
 * and Zorn (ISMM 2000): a file header, a DTD (a small language describing the
 * trace's sections and records, not an SGML/XML DTD) and sections of records
 * and string tables, read by a reader driven by the DTD. The appendices' exact
 * syntax was not available to us: the DTD language and the header layout here
 * are hatrace's own reading, specified in docs/metatf.md.
 *
 * Reading: hatf_source_open(path, HATF_FMT_METATF, ...) (or HATF_FMT_AUTO,
 * which knows the magic) reads any Meta-TF file by interpreting its DTD. When
 * the DTD says "events hatf" (docs/metatf/hatf.dtd does), its records are
 * heap events and hatf_source_next returns them; any file's records can be
 * read one by one as text with hatf_metatf_next_text.
 * Writing: hatf_metatf_writer_* writes events as Meta-TF under the HATF DTD.
 */
#ifndef HATF_METATF_H
#define HATF_METATF_H

#include "hatf.h"
#include "hatf_source.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The file's first four bytes. */
#define HATF_METATF_MAGIC "\177MTF"
/* The first line of every DTD this library reads. */
#define HATF_METATF_DTD_MAGIC "metatf-dtd 1"

/* ---- the DTD ------------------------------------------------------------ */
typedef struct hatf_metatf_dtd hatf_metatf_dtd;

/* Parse a DTD (text of len bytes, need not be NUL-terminated).
 * @return the DTD, or NULL with *err set: HATF_E_CORRUPT (or HATF_E_LIMIT,
 * HATF_E_VERSION, HATF_E_NOMEM) and a one-line message "DTD line N: ...";
 * err->offset is the byte offset of that line in text. err may be NULL.
 * Never crashes on any input (fuzzed: tests/fuzz/fuzz_metatf_dtd.c). */
hatf_metatf_dtd *hatf_metatf_dtd_parse(const char *text, size_t len, hatf_err *err);
/* Free a DTD; NULL is allowed. */
void hatf_metatf_dtd_free(hatf_metatf_dtd *dtd);
/* The DTD's name (its "name" line), "" when it has none. */
const char *hatf_metatf_dtd_name(const hatf_metatf_dtd *dtd);
/* 1 if the DTD declares its records heap events ("events hatf"). */
int hatf_metatf_dtd_events(const hatf_metatf_dtd *dtd);

/* The HATF DTD this library writes (docs/metatf/hatf.dtd), NUL-terminated. */
const char *hatf_metatf_hatf_dtd(void);

/* ---- reading any Meta-TF file record by record --------------------------- */
typedef struct hatf_metatf_reader hatf_metatf_reader;

/* The Meta-TF reader of a source opened as HATF_FMT_METATF, else NULL.
 * Owned by the source. Read either its events (hatf_source_next) or its
 * records (hatf_metatf_next_text), not both: before the source's first
 * event this puts the reader back at the file's first record. */
hatf_metatf_reader *hatf_source_metatf(hatf_source *s);

/* The reader's DTD (the file's, embedded or at its URL). */
const hatf_metatf_dtd *hatf_metatf_reader_dtd(const hatf_metatf_reader *r);

/* The file's header as text lines starting with "# " (DTD name and where it
 * came from, address class, byte order, sections with their sizes), appended
 * to out. */
void hatf_metatf_header_text(const hatf_metatf_reader *r, hatf_buf *out);

/* The next record, whatever the DTD calls it (metadata and section records
 * included), appended to out as one line: "@OFFSET NAME field=value ...\n"
 * (docs/metatf.md, "Records as text").
 * @return 1, 0 at the end, or a negative HATF_E_* code with
 * hatf_metatf_error saying what and where (then every later call returns it). */
int hatf_metatf_next_text(hatf_metatf_reader *r, hatf_buf *out);

/* The first error met, or one with code 0. */
const hatf_err *hatf_metatf_error(const hatf_metatf_reader *r);

/* ---- writing events under the HATF DTD ------------------------------------ */
typedef struct hatf_metatf_writer hatf_metatf_writer;

/* Start a Meta-TF file on fd (open for writing, at its start), the HATF DTD
 * embedded. info: the text of the hatrace-info record (HATF1_HATRACE_MARK and
 * the header, as convert --to hatf1.0 writes it), or NULL for none (then a
 * reader takes the attribute bytes as another writer's). The file is written
 * as events come; at close the header's counts are filled in when fd can seek
 * (else they say "unknown" and a reader takes the last section to the end).
 * @return the writer, or NULL with *err set. The caller closes fd. */
hatf_metatf_writer *hatf_metatf_writer_open(int fd, const char *info, hatf_err *err);
/* Name a thread (kind 0) or a heap (kind 1): a string in the strings section
 * and a thread-name or heap-name record referring to it. @return 0 or a
 * negative HATF_E_* code. */
int hatf_metatf_writer_name(hatf_metatf_writer *w, int kind, uint64_t id, const char *name);
/* Append one event (comments included). @return 0 or a negative HATF_E_* code. */
int hatf_metatf_writer_add(hatf_metatf_writer *w, const hatf_event *ev);
/* Write what is left, fill in the header, free w (also on error).
 * @return 0 or a negative HATF_E_* code with *err set. */
int hatf_metatf_writer_close(hatf_metatf_writer *w, hatf_err *err);

#ifdef __cplusplus
}
#endif
#endif /* HATF_METATF_H */
