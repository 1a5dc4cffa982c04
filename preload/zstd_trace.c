/* zstd_trace.c — zstd's tracing hooks, answered "no tracing" here.
 *
 * libhatrace.so holds zstd from its static archive, which calls these weak
 * hooks when defined: left undefined, the loader would bind them to a
 * recorded program's own definitions, which would then see the recorder's
 * compressions. Defined hidden, they stay the recorder's. */
#define HIDDEN __attribute__((visibility("hidden")))

HIDDEN unsigned long long ZSTD_trace_compress_begin(const void *cctx);
HIDDEN void ZSTD_trace_compress_end(unsigned long long ctx, const void *trace);
HIDDEN unsigned long long ZSTD_trace_decompress_begin(const void *dctx);
HIDDEN void ZSTD_trace_decompress_end(unsigned long long ctx, const void *trace);

unsigned long long ZSTD_trace_compress_begin(const void *cctx) { (void)cctx; return 0; }
void ZSTD_trace_compress_end(unsigned long long ctx, const void *trace) { (void)ctx; (void)trace; }
unsigned long long ZSTD_trace_decompress_begin(const void *dctx) { (void)dctx; return 0; }
void ZSTD_trace_decompress_end(unsigned long long ctx, const void *trace) { (void)ctx; (void)trace; }
