/* hatf_api.h — the export macro of libhatf.
 *
 * The library is compiled with -fvisibility=hidden; HATF_API marks the
 * definitions of the public functions (the declarations in include/hatf*.h)
 * so that libhatf.so exports them and nothing else. hatf/libhatf.map then
 * keeps the exported names to hatf_*. Users of the library need not care.
 */
#ifndef HATF_API_H
#define HATF_API_H

#ifndef HATF_API
#if defined(__GNUC__) || defined(__clang__)
#define HATF_API __attribute__((visibility("default")))
#else
#define HATF_API
#endif
#endif

#endif /* HATF_API_H */
