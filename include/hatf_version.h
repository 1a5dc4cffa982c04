/* hatf_version.h — the version of libhatf and of hatrace, in one place.
 *
 * The Makefile reads HATF_VERSION_MAJOR/MINOR/PATCH from this file for the
 * shared library's file name and soname (libhatf.so.MAJOR) and for hatf.pc;
 * the command prints HATF_VERSION_STRING. Policy (docs/FORMAT.md, "Using
 * libhatf from C"): MAJOR changes when the ABI breaks, MINOR when functions
 * are added, PATCH for fixes.
 */
#ifndef HATF_VERSION_H
#define HATF_VERSION_H

#include "hatf_api.h"

#define HATF_VERSION_MAJOR 0
#define HATF_VERSION_MINOR 3
#define HATF_VERSION_PATCH 0

#define HATF_VERSION_NUMBER \
    (HATF_VERSION_MAJOR * 10000 + HATF_VERSION_MINOR * 100 + HATF_VERSION_PATCH)

#define HATF_VERSION_STR_(x) #x
#define HATF_VERSION_XSTR_(x) HATF_VERSION_STR_(x)
/* "MAJOR.MINOR.PATCH" */
#define HATF_VERSION_STRING \
    HATF_VERSION_XSTR_(HATF_VERSION_MAJOR) "." \
    HATF_VERSION_XSTR_(HATF_VERSION_MINOR) "." \
    HATF_VERSION_XSTR_(HATF_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library actually loaded, which may be newer than the
 * header a program was compiled with (compare with HATF_VERSION_STRING).
 * @return "MAJOR.MINOR.PATCH", a static string. Thread safe. */
const char *hatf_version(void);

/* @return MAJOR*10000 + MINOR*100 + PATCH of the loaded library (0.1.0 -> 100),
 * to compare with HATF_VERSION_NUMBER. Thread safe. */
unsigned hatf_version_number(void);

#ifdef __cplusplus
}
#endif

#endif /* HATF_VERSION_H */
