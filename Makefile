# hatrace — top-level Makefile
#
#   make                  build/libhatf.a, build/hatrace, build/libhatrace.so
#   make test             build and run every test (unit, golden, integration, short fuzz)
#   make check            the quick part of test: unit and golden tests
#   make fuzz             run every libFuzzer target for FUZZ_SECONDS each (needs clang)
#   make bench            build the benchmarks (run them from bench/, see bench/README.md)
#   make install PREFIX=/usr/local DESTDIR=
#   make SANITIZE=address,undefined test     (or thread)
#   make check-sanitizers  make SANITIZE=address,undefined test, and the ring and
#                         flusher tests under TSan (in $(B)-asan and $(B)-tsan;
#                         scripts/check-sanitizers.sh). Under SANITIZE,
#                         libhatrace.so alone is built without the sanitizer.
#   make stress           long variants of tests/integration/reliability_*.sh
#   make V=1              show the commands
#
# Sources are found by folder, so a new module is a new file, not a Makefile edit:
#   hatf/*.c      -> libhatf.a           (the format library)
#   replay/*.c    -> libhatreplay.a      (linked into the command)
#   preload/*.c   -> libhatrace.so       (preload/hooks.c holds the interposed symbols;
#                                         the rest also goes into libhatpreload.a for tests)
#   cli/*.c       -> hatrace
#   tests/unit/test_*.c      -> one CUnit program each (main: tests/unit/cunit_main.c)
#   tests/workloads/*.c|*.cc -> programs run under the preload
#   tests/fuzz/fuzz_*.c      -> libFuzzer targets (clang)
#   bench/*.c                -> benchmark programs
#   examples/*.c             -> example programs (the README's demo records one)
#   report/                  -> the page of hatrace report: `npm ci` installs the libraries
#                               report/package-lock.json pins into $(B)/report, and
#                               report/embed.mjs makes $(B)/gen/report_page.c from them and
#                               report/page.html, report.css, report.js (linked into hatrace)

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DESTDIR ?=
PKG_CONFIG ?= pkg-config

CC ?= cc
CXX ?= c++
CLANG ?= clang
B ?= build

CFLAGS ?= -O2 -g
CXXFLAGS ?= -O2 -g
# Required flags stay apart from the user's CFLAGS.
REQ_CFLAGS := -std=gnu11 -Wall -Wextra -Wshadow -Wstrict-prototypes -fPIC \
              -fvisibility=hidden -Iinclude -Ihatf -MMD -MP -D_GNU_SOURCE
LIBS := -lzstd -lxxhash -lpthread -ldl -lm
# the command alone: C++ and Rust names demangled (cli/frames.c), source lines (cli/srclines.c)
CLI_LIBS := -liberty -ldw -lelf

ifneq ($(SANITIZE),)
SAN_CFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
LDSAN := -fsanitize=$(SANITIZE)
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

HATF_SRC := $(wildcard hatf/*.c)
REPLAY_SRC := $(wildcard replay/*.c)
PRELOAD_SRC := $(wildcard preload/*.c)
PRELOAD_CORE_SRC := $(filter-out preload/hooks.c,$(PRELOAD_SRC))
CLI_SRC := $(wildcard cli/*.c)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
WORK_C := $(wildcard tests/workloads/*.c)
WORK_CC := $(wildcard tests/workloads/*.cc)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
BENCH_SRC := $(wildcard bench/*.c)
EXAMPLE_SRC := $(wildcard examples/*.c)

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))
HATF_OBJ := $(call obj,$(HATF_SRC))
REPLAY_OBJ := $(call obj,$(REPLAY_SRC))
PRELOAD_OBJ := $(call obj,$(PRELOAD_SRC))
PRELOAD_CORE_OBJ := $(call obj,$(PRELOAD_CORE_SRC))
CLI_OBJ := $(call obj,$(CLI_SRC)) $(B)/obj/$(B)/gen/report_page.o
UNIT_BIN := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
WORK_BIN := $(patsubst tests/workloads/%.c,$(B)/workloads/%,$(WORK_C)) \
            $(patsubst tests/workloads/%.cc,$(B)/workloads/%,$(WORK_CC))
FUZZ_BIN := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(FUZZ_SRC))
BENCH_BIN := $(patsubst bench/%.c,$(B)/bench/%,$(BENCH_SRC))
EXAMPLE_BIN := $(patsubst examples/%.c,$(B)/examples/%,$(EXAMPLE_SRC))

PRELOAD_SO := $(if $(PRELOAD_SRC),$(B)/libhatrace.so)
# libunwind (call stacks, preload/stacks.c): optional; Debian keeps its header under the multiarch dir
HAVE_UNWIND := $(if $(wildcard /usr/include/libunwind.h /usr/include/*/libunwind.h),y)
PRELOAD_LIBS := $(LIBS) $(if $(HAVE_UNWIND),-lunwind)
REQ_CFLAGS += $(if $(HAVE_UNWIND),-DHT_HAVE_LIBUNWIND)
# libhatrace.so is loaded into ordinary programs, which a sanitizer runtime in
# it would kill: under SANITIZE it is built from objects of its own, in
# $(B)/obj-so, without the sanitizer; everything else is sanitized.
SO_CFLAGS := $(REQ_CFLAGS)
REQ_CFLAGS += $(SAN_CFLAGS)

all: $(B)/libhatf.a $(B)/hatrace $(PRELOAD_SO) $(B)/hatf.pc $(EXAMPLE_BIN)

# Rebuild everything when the flags change.
FLAGS_ID := $(CC) $(CFLAGS) $(REQ_CFLAGS) $(SANITIZE)
$(B)/.flags: FORCE
	@mkdir -p $(B)
	@echo '$(FLAGS_ID)' | cmp -s - $@ || echo '$(FLAGS_ID)' > $@

$(B)/obj/%.o: %.c $(B)/.flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC      $<')
	$(Q)$(CC) $(REQ_CFLAGS) $(CFLAGS) -c $< -o $@

$(B)/libhatf.a: $(HATF_OBJ)
	@$(if $(Q),echo '  AR      $@')
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/libhatreplay.a: $(REPLAY_OBJ)
	@$(if $(Q),echo '  AR      $@')
	$(Q)rm -f $@ && $(if $^,ar rcs $@ $^,printf '!<arch>\n' > $@)

$(B)/libhatpreload.a: $(PRELOAD_CORE_OBJ)
	@$(if $(Q),echo '  AR      $@')
	$(Q)rm -f $@ && $(if $^,ar rcs $@ $^,printf '!<arch>\n' > $@)

$(B)/hatrace: $(CLI_OBJ) $(B)/libhatreplay.a $(B)/libhatf.a
	@$(if $(Q),echo '  LD      $@')
	$(Q)$(CC) $(CFLAGS) $(LDSAN) -o $@ $(CLI_OBJ) $(B)/libhatreplay.a $(B)/libhatf.a $(LIBS) $(CLI_LIBS) $(LDFLAGS)

ifneq ($(SANITIZE),)
SO_INPUT := $(patsubst %.c,$(B)/obj-so/%.o,$(PRELOAD_SRC)) $(B)/obj-so/libhatf.a
else
SO_INPUT := $(PRELOAD_OBJ) $(B)/libhatf.a
endif

$(B)/obj-so/%.o: %.c $(B)/.flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC      $@')
	$(Q)$(CC) $(SO_CFLAGS) $(CFLAGS) -c $< -o $@

$(B)/obj-so/libhatf.a: $(patsubst %.c,$(B)/obj-so/%.o,$(HATF_SRC))
	@$(if $(Q),echo '  AR      $@')
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/libhatrace.so: $(SO_INPUT) preload/exports.map
	@$(if $(Q),echo '  LD      $@')
	$(Q)$(CC) -shared $(CFLAGS) -Wl,--version-script=preload/exports.map -Wl,-z,now \
	    -o $@ $(SO_INPUT) $(PRELOAD_LIBS) $(LDFLAGS)

# hatrace report's page. Without node and npm the page is left empty and
# `hatrace report` says so (scripts/install-deps.sh installs them).
NODE ?= node
NPM ?= npm
HAVE_NPM := $(if $(shell command -v $(NODE) 2>/dev/null),$(if $(shell command -v $(NPM) 2>/dev/null),y))
REPORT_FILES := report/page.html report/report.css report/report.js report/embed.mjs
REPORT_MODULES := $(B)/report/node_modules/.package-lock.json

$(REPORT_MODULES): report/package.json report/package-lock.json
	@mkdir -p $(B)/report
	@$(if $(Q),echo '  NPM CI  $(B)/report')
	$(Q)cp report/package.json report/package-lock.json $(B)/report/
	$(Q)cd $(B)/report && $(NPM) ci --ignore-scripts --no-audit --no-fund --loglevel=error
	$(Q)touch $@

ifeq ($(HAVE_NPM),y)
$(B)/gen/report_page.c: $(REPORT_FILES) $(REPORT_MODULES)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  GEN     $@')
	$(Q)$(NODE) report/embed.mjs $(B)/report/node_modules $@.tmp && mv $@.tmp $@
else
$(B)/gen/report_page.c: FORCE
	@mkdir -p $(dir $@)
	@echo 'hatrace report: node or npm not found: hatrace is built without the report page' >&2
	@printf '#include <stddef.h>\n#include "report_page.h"\nconst int report_page_made = 0;\nconst char report_page_before[] = "", report_page_after[] = "";\nconst size_t report_page_before_len = 0, report_page_after_len = 0;\n' > $@.tmp
	@cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@
endif
$(B)/obj/$(B)/gen/report_page.o: REQ_CFLAGS += -Icli

# Each test file declares its tests; tests/unit/cunit_main.c is their main().
TEST_LIBS := $(B)/libhatpreload.a $(B)/libhatreplay.a $(B)/libhatf.a
TEST_MAIN := $(B)/obj/tests/unit/cunit_main.o
$(B)/tests/%: tests/unit/%.c $(TEST_MAIN) $(TEST_LIBS) $(B)/.flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  TEST    $@')
	$(Q)$(CC) $(REQ_CFLAGS) -Itests $(CFLAGS) $(LDSAN) -o $@ $< $(TEST_MAIN) $(TEST_LIBS) -lcunit $(PRELOAD_LIBS) $(LDFLAGS)

$(B)/workloads/%: tests/workloads/%.c $(B)/.flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC      $@')
	$(Q)$(CC) -std=gnu11 -Wall -Wextra -Iinclude -O1 -g -o $@ $< -lpthread -ldl $(LDFLAGS)

# stacks_sites allocates from a shared library of its own (found next to it)
$(B)/workloads/libstacks_lib.so: tests/workloads/lib/stacks_lib.c $(B)/.flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC      $@')
	$(Q)$(CC) -std=gnu11 -Wall -Wextra -O1 -g -shared -fPIC -o $@ $<
$(B)/workloads/stacks_sites: $(B)/workloads/libstacks_lib.so
$(B)/workloads/stacks_sites: LDFLAGS += -L$(B)/workloads -lstacks_lib -Wl,-rpath,'$$ORIGIN'

# heap_mimalloc calls mimalloc's heap API: link libmimalloc when its header is there
$(B)/workloads/heap_mimalloc: LDFLAGS += $(if $(wildcard /usr/include/mimalloc.h),-lmimalloc)

$(B)/examples/%: examples/%.c $(B)/.flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC      $@')
	$(Q)$(CC) -std=gnu11 -Wall -Wextra -O2 -g -o $@ $< -lpthread $(LDFLAGS)

$(B)/workloads/%: tests/workloads/%.cc $(B)/.flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CXX     $@')
	$(Q)$(CXX) -Wall -Wextra -Iinclude -O1 -g -o $@ $< -lpthread $(LDFLAGS)

$(B)/bench/%: bench/%.c $(B)/libhatf.a $(B)/libhatreplay.a $(B)/.flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC      $@')
	$(Q)$(CC) $(REQ_CFLAGS) $(CFLAGS) -O2 -o $@ $< $(B)/libhatreplay.a $(B)/libhatf.a $(LIBS) $(LDFLAGS)

# libFuzzer targets: built with clang from the sources, not from libhatf.a, so
# the whole library is instrumented; undefined behaviour stops the run like a crash.
FUZZ_FLAGS := -std=gnu11 -g -O1 -Iinclude -Ihatf -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
              -fno-sanitize-recover=undefined
$(B)/fuzz/%: tests/fuzz/%.c $(HATF_SRC)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  FUZZ    $@')
	$(Q)$(CLANG) $(FUZZ_FLAGS) -o $@ $< $(HATF_SRC) $(LIBS)

$(B)/hatf.pc: Makefile
	@mkdir -p $(B)
	@printf 'prefix=%s\nexec_prefix=$${prefix}\nlibdir=$${prefix}/lib\nincludedir=$${prefix}/include\n\nName: hatf\nDescription: HATF heap allocation trace format library (hatrace)\nVersion: 0.1.0\nLibs: -L$${libdir} -lhatf\nLibs.private: -lzstd -lxxhash -lpthread -lm\nCflags: -I$${includedir}\n' '$(PREFIX)' > $@

FUZZ_SECONDS ?= 60
TEST_FUZZ_SECONDS ?= 10

tests: $(UNIT_BIN) $(WORK_BIN)

check: all $(UNIT_BIN)
	$(Q)B=$(B) SANITIZE=$(SANITIZE) scripts/run-tests.sh unit golden

test: all $(UNIT_BIN) $(WORK_BIN) $(FUZZ_BIN)
	$(Q)TEST_FUZZ_SECONDS=$(TEST_FUZZ_SECONDS) B=$(B) SANITIZE=$(SANITIZE) scripts/run-tests.sh unit golden integration fuzz

fuzz: $(FUZZ_BIN)
	$(Q)TEST_FUZZ_SECONDS=$(FUZZ_SECONDS) B=$(B) scripts/run-tests.sh fuzz

bench: all $(BENCH_BIN)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 755 $(B)/hatrace $(DESTDIR)$(BINDIR)/hatrace
	install -m 644 $(B)/libhatf.a $(DESTDIR)$(LIBDIR)/libhatf.a
	$(if $(PRELOAD_SO),install -m 755 $(PRELOAD_SO) $(DESTDIR)$(LIBDIR)/libhatrace.so)
	install -m 644 include/*.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(B)/hatf.pc $(DESTDIR)$(PKGCONFIGDIR)/hatf.pc

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/hatrace $(DESTDIR)$(LIBDIR)/libhatf.a $(DESTDIR)$(LIBDIR)/libhatrace.so
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(notdir $(wildcard include/*.h)))
	rm -f $(DESTDIR)$(PKGCONFIGDIR)/hatf.pc

clean:
	rm -rf $(B)

# The sanitizer builds live in their own folders.
ASAN_B ?= $(B)-asan
TSAN_B ?= $(B)-tsan
check-sanitizers:
	$(Q)ASAN_B=$(ASAN_B) TSAN_B=$(TSAN_B) MAKE="$(MAKE)" scripts/check-sanitizers.sh

# 200 kills, 10 s of 64 threads, a storm of 50,000 threads
stress: all $(WORK_BIN)
	$(Q)for t in tests/integration/reliability_*.sh; do \
	    echo "== $$t"; \
	    RELIABILITY_TRIALS=200 RELIABILITY_LOAD_MS=10000 RELIABILITY_STORM=50000 \
	    BUILD=$(CURDIR)/$(B) HATRACE=$(CURDIR)/$(B)/hatrace HATRACE_LIB=$(CURDIR)/$(B)/libhatrace.so \
	    bash $$t || exit 1; done

FORCE:
.PHONY: all tests check test fuzz bench install uninstall clean check-sanitizers stress FORCE
.SECONDARY:

-include $(shell find $(B)/obj $(B)/obj-so $(B)/tests -name '*.d' 2>/dev/null)
