# hatrace — top-level Makefile
#
#   make                  build/libhatf.a, build/libhatf.so (+ its soname links),
#                         build/libhatanalyze.so (+ its soname links),
#                         build/hatf.pc, build/hatanalyze.pc, build/hatrace, build/libhatrace.so
#   make test             build and run every test (unit, golden, integration, short fuzz),
#                         with the contract checks on (CHECKS=1, hatf/hatf_check.h)
#   make check            the quick part of test: unit and golden tests, the layers'
#                         check (scripts/check-layers.py; CHECKS=1 too)
#   make fuzz             run every libFuzzer target for FUZZ_SECONDS each (needs clang)
#   make bench            build the benchmarks (run them from bench/, see bench/README.md)
#   make install PREFIX=/usr/local DESTDIR=   (also LIBDIR, INCLUDEDIR, BINDIR,
#                         PKGCONFIGDIR, MANDIR, PYTHONDIR): hatrace, libhatrace.so, libhatf.so*,
#                         libhatf.a, libhatanalyze.so*, include/*.h, analyze/hatan_api.h,
#                         hatf.pc, hatanalyze.pc (pkg-config names: hatf, hatanalyze), the man pages hatrace(1),
#                         libhatf(3), libhatanalyze(3) (docs/man) and the
#                         Python package python/hatrace
#   make uninstall        (same variables) removes what install put there
#   make SANITIZE=address,undefined test     (or thread)
#   make check-sanitizers  make SANITIZE=address,undefined test, and the ring and
#                         flusher tests under TSan (in $(B)-asan and $(B)-tsan;
#                         scripts/check-sanitizers.sh). Under SANITIZE,
#                         libhatrace.so alone is built without the sanitizer.
#   make stress           long variants of tests/integration/reliability_*.sh
#   make cross-check      every C source compiled (not linked) for aarch64
#                         (needs gcc-aarch64-linux-gnu; also part of make test)
#   make V=1              show the commands
#
# Sources are found by folder, so a new module is a new file, not a Makefile edit:
#   hatf/*.c, hatf/*/*.c -> libhatf.a, libhatf.so.MAJOR.MINOR.PATCH (the format
#                    library: the shared files and a folder per subsystem,
#                    docs/architecture.md "Inside hatf/"; the version is read
#                    from include/hatf_version.h, the .so exports the hatf_*
#                    names of hatf/libhatf.map)
#   analyze/*.c   -> libhatanalyze.a     (the analysis: the figures the commands
#                                         print, computed from libhatf's events;
#                                         linked into the command, the tests and
#                                         the benchmarks; docs/architecture.md),
#                    libhatanalyze.so.MAJOR.MINOR.PATCH (the same, for other programs:
#                                         the Python package; exports the hatan_*
#                                         names of analyze/hatan_api.h)
#   replay/*.c    -> libhatreplay.a      (linked into the command)
#   preload/*.c   -> libhatrace.so       (preload/hooks.c holds the interposed symbols;
#                                         the rest also goes into libhatpreload.a for tests)
#   cli/*.c       -> hatrace
#   tests/unit/MODULE/test_*.c -> one CUnit program each, $(B)/tests/test_* (main:
#                               tests/unit/cunit_main.c; MODULE: hatf analyze preload replay cli)
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
MANDIR ?= $(PREFIX)/share/man
# The Python package: Debian's folder for PREFIX=/usr, else the one Debian's
# python3 searches under another prefix (/usr/local/lib/python3.X/dist-packages)
PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)
PYTHON_VERSION = $(or $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null),3)
PYTHONDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/python3/dist-packages,$(PREFIX)/lib/python$(PYTHON_VERSION)/dist-packages)
DESTDIR ?=
PKG_CONFIG ?= pkg-config

CC ?= cc
CXX ?= c++
CLANG ?= clang
B ?= build

CFLAGS ?= -O2 -g
CXXFLAGS ?= -O2 -g
# Required flags stay apart from the user's CFLAGS.
REQ_CFLAGS := -std=gnu11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -fPIC \
              -fvisibility=hidden -MMD -MP -D_GNU_SOURCE
LIBS := -lzstd -lxxhash -lpthread -ldl -lm
# the command alone: C++ and Rust names demangled (analyze/frames.c), source lines (analyze/srclines.c),
# gzip for convert --to pprof and heaptrack (cli/export_sink.c)
CLI_LIBS := -liberty -ldw -lelf -lz
# the benchmarks alone: gzip's figures beside zstd's (bench/format_size.c)
BENCH_LIBS := -lz

# Contract checks (HATF_PRE, hatf/hatf_check.h): CHECKS=1 compiles every
# object with -DHATF_CHECKS. make test and make check set it, so the tests run
# with the checks on (make CHECKS=0 test: without); a plain make leaves them
# out (then a later make rebuilds, as for any change of flags).
CHECKS ?=
check test: CHECKS = 1
CHECK_CFLAGS = $(if $(filter 1,$(CHECKS)),-DHATF_CHECKS)

ifneq ($(SANITIZE),)
SAN_CFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
LDSAN := -fsanitize=$(SANITIZE)
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

# The version: include/hatf_version.h alone holds it.
hatf_version_part = $(shell sed -n 's/^\#define HATF_VERSION_$(1)  *\([0-9][0-9]*\).*/\1/p' include/hatf_version.h)
HATF_MAJOR := $(call hatf_version_part,MAJOR)
HATF_MINOR := $(call hatf_version_part,MINOR)
HATF_PATCH := $(call hatf_version_part,PATCH)
HATF_VERSION := $(HATF_MAJOR).$(HATF_MINOR).$(HATF_PATCH)
ifneq ($(words $(HATF_MAJOR) $(HATF_MINOR) $(HATF_PATCH)),3)
$(error include/hatf_version.h: no HATF_VERSION_MAJOR, _MINOR and _PATCH numbers)
endif
HATF_SONAME := libhatf.so.$(HATF_MAJOR)
HATF_SO_REAL := libhatf.so.$(HATF_VERSION)
# libhatf.so's own dependencies (no -ldl: the library does not load anything)
HATF_SO_LIBS := -lzstd -lxxhash -lpthread -lm

# in the order of their names, as when hatf/ was one folder: the objects'
# order, and so the code's layout in the libraries, stays what it was
HATF_ALL := $(wildcard hatf/*.c hatf/*/*.c)
HATF_SRC := $(foreach n,$(sort $(notdir $(HATF_ALL))),$(filter %/$(n),$(HATF_ALL)))
ANALYZE_SRC := $(wildcard analyze/*.c)
REPLAY_SRC := $(wildcard replay/*.c)
PRELOAD_SRC := $(wildcard preload/*.c)
PRELOAD_CORE_SRC := $(filter-out preload/hooks.c preload/attach.c preload/got_patch.c,$(PRELOAD_SRC))
CLI_SRC := $(wildcard cli/*.c)
UNIT_SRC := $(wildcard tests/unit/*/test_*.c)
WORK_C := $(wildcard tests/workloads/*.c)
WORK_CC := $(wildcard tests/workloads/*.cc)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
BENCH_SRC := $(wildcard bench/*.c)
EXAMPLE_SRC := $(wildcard examples/*.c)

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))
HATF_OBJ := $(call obj,$(HATF_SRC))
ANALYZE_OBJ := $(call obj,$(ANALYZE_SRC))
REPLAY_OBJ := $(call obj,$(REPLAY_SRC))
PRELOAD_OBJ := $(call obj,$(PRELOAD_SRC))
PRELOAD_CORE_OBJ := $(call obj,$(PRELOAD_CORE_SRC))
# the generated page's object at a path without $(B) in it: the same file however B is
# spelled (the install tests give B as an absolute path)
REPORT_PAGE_OBJ := $(B)/obj/gen/report_page.o
CLI_OBJ := $(call obj,$(CLI_SRC)) $(REPORT_PAGE_OBJ)
UNIT_BIN := $(patsubst %.c,$(B)/tests/%,$(notdir $(UNIT_SRC)))
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
# zstd and xxhash go into libhatrace.so from Debian's static archives (their
# symbols kept local): two libraries fewer for the loader to find, map and
# relocate in every process recorded (docs/recorder.md, "Start and exit").
# Without the archives, the shared libraries as before.
static_a = $(filter /%,$(shell $(CC) -print-file-name=lib$(1).a))
PRELOAD_STATIC := $(if $(and $(call static_a,zstd),$(call static_a,xxhash)),y)
PRELOAD_STATIC_LIBS := -Wl,--exclude-libs,ALL -Wl,-Bstatic -lzstd -lxxhash -Wl,-Bdynamic \
    $(filter-out -lzstd -lxxhash,$(PRELOAD_LIBS))
PRELOAD_SO_LIBS := $(if $(PRELOAD_STATIC),$(PRELOAD_STATIC_LIBS),$(PRELOAD_LIBS))
# libhatrace.so is loaded into ordinary programs, which a sanitizer runtime in
# it would kill: under SANITIZE it is built from objects of its own, in
# $(B)/obj-so, without the sanitizer; everything else is sanitized.
SO_CFLAGS := $(REQ_CFLAGS)
REQ_CFLAGS += $(SAN_CFLAGS)

# man pages: docs/man/NAME.SECTION with the version filled in
MAN_SRC := $(wildcard docs/man/*.[1-9])
MAN_OUT := $(patsubst docs/man/%,$(B)/man/%,$(MAN_SRC))

all: $(B)/libhatf.a $(B)/libhatf.so $(B)/libhatanalyze.so $(B)/hatrace $(PRELOAD_SO) $(B)/hatf.pc $(B)/hatanalyze.pc $(EXAMPLE_BIN) $(MAN_OUT)

# Rebuild everything when the flags change.
FLAGS_ID = $(CC) $(CFLAGS) $(REQ_CFLAGS) $(CHECK_CFLAGS) $(SANITIZE) $(foreach d,hatf analyze preload replay cli tests bench,$(INC_$(d)))
$(B)/.flags: FORCE
	@mkdir -p $(B)
	@echo '$(FLAGS_ID)' | cmp -s - $@ || echo '$(FLAGS_ID)' > $@

# Each layer sees only the include paths of the layers beneath it (a file's
# own folder is always seen: #include "x.h" looks there first):
#   hatf/     include/ and hatf/ (libhatf: its subsystems' folders include the
#             shared headers at hatf/ by name, each other's by folder,
#             "container/container_internal.h")
#   analyze/  include/, and by their path two of libhatf's internal headers:
#             addrmap.h (the address map, linked from libhatf.a) and
#             hatf_check.h (HATF_PRE)
#   preload/  include/, and of libhatf's internals hatf/hatf_recorder.h alone
#             (included by its path)
#   replay/, cli/   include/ and analyze/ (cli/ includes replay/replay.h by its path)
#   tests/unit     everything (they test internals): include/ analyze/ hatf/ preload/
#                  replay/ cli/ tests/unit/; every test includes by name ("ring.h"),
#                  hatf's subsystems' headers by folder ("hatf1/hatf1_internal.h")
#   bench/         include/ analyze/ hatf/ (format benchmarks read chunk headers and
#                  the HATF 1.0 coder's state)
# (make print-INC_hatf ... : tests/integration/cross_aarch64.sh reads them)
INC_hatf := -Iinclude -Ihatf
INC_analyze := -Iinclude
INC_preload := -Iinclude
INC_replay := -Iinclude -Ianalyze
INC_cli := -Iinclude -Ianalyze
INC_tests := -Iinclude -Ianalyze -Ihatf -Ipreload -Ireplay -Icli -Itests/unit
INC_bench := -Iinclude -Ianalyze -Ihatf
INC = -Iinclude
$(B)/obj/hatf/%.o $(B)/obj-so/hatf/%.o: INC = $(INC_hatf)
$(B)/obj/analyze/%.o: INC = $(INC_analyze)
$(B)/obj/preload/%.o $(B)/obj-so/preload/%.o: INC = $(INC_preload)
$(B)/obj/replay/%.o: INC = $(INC_replay)
$(B)/obj/cli/%.o: INC = $(INC_cli)
$(B)/obj/tests/%.o: INC = $(INC_tests)

$(B)/obj/%.o: %.c $(B)/.flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC      $<')
	$(Q)$(CC) $(REQ_CFLAGS) $(CHECK_CFLAGS) $(INC) $(CFLAGS) -c $< -o $@

$(B)/libhatf.a: $(HATF_OBJ)
	@$(if $(Q),echo '  AR      $@')
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/libhatanalyze.a: $(ANALYZE_OBJ)
	@$(if $(Q),echo '  AR      $@')
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/libhatreplay.a: $(REPLAY_OBJ)
	@$(if $(Q),echo '  AR      $@')
	$(Q)rm -f $@ && $(if $^,ar rcs $@ $^,printf '!<arch>\n' > $@)

$(B)/libhatpreload.a: $(PRELOAD_CORE_OBJ)
	@$(if $(Q),echo '  AR      $@')
	$(Q)rm -f $@ && $(if $^,ar rcs $@ $^,printf '!<arch>\n' > $@)

$(B)/hatrace: $(CLI_OBJ) $(B)/libhatreplay.a $(B)/libhatanalyze.a $(B)/libhatf.a
	@$(if $(Q),echo '  LD      $@')
	$(Q)$(CC) $(CFLAGS) $(LDSAN) -o $@ $(CLI_OBJ) $(B)/libhatreplay.a $(B)/libhatanalyze.a $(B)/libhatf.a \
	    $(LIBS) $(CLI_LIBS) $(LDFLAGS)

ifneq ($(SANITIZE),)
SO_INPUT := $(patsubst %.c,$(B)/obj-so/%.o,$(PRELOAD_SRC)) $(B)/obj-so/libhatf.a
else
SO_INPUT := $(PRELOAD_OBJ) $(B)/libhatf.a
endif

$(B)/obj-so/%.o: %.c $(B)/.flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC      $@')
	$(Q)$(CC) $(SO_CFLAGS) $(CHECK_CFLAGS) $(INC) $(CFLAGS) -c $< -o $@

$(B)/obj-so/libhatf.a: $(patsubst %.c,$(B)/obj-so/%.o,$(HATF_SRC))
	@$(if $(Q),echo '  AR      $@')
	$(Q)rm -f $@ && ar rcs $@ $^

# libhatf.so: the PIC objects of libhatf.a (those of $(B)/obj-so, without the
# sanitizer, under SANITIZE), exporting only hatf_* (hatf/libhatf.map).
HATF_SO_OBJ := $(if $(SANITIZE),$(patsubst %.c,$(B)/obj-so/%.o,$(HATF_SRC)),$(HATF_OBJ))
$(B)/$(HATF_SO_REAL): $(HATF_SO_OBJ) hatf/libhatf.map
	@$(if $(Q),echo '  LD      $@')
	$(Q)$(CC) -shared $(CFLAGS) -Wl,-soname,$(HATF_SONAME) -Wl,--version-script=hatf/libhatf.map \
	    -Wl,--no-undefined -o $@ $(HATF_SO_OBJ) $(HATF_SO_LIBS) $(LDFLAGS)
$(B)/libhatf.so: $(B)/$(HATF_SO_REAL)
	$(Q)ln -sf $(HATF_SO_REAL) $(B)/$(HATF_SONAME) && ln -sf $(HATF_SONAME) $@

# libhatanalyze.so: analyze/'s PIC objects (those of $(B)/obj-so, without the
# sanitizer, under SANITIZE) for programs other than hatrace (the Python
# package), exporting only hatan_* (analyze/hatan_api.h, analyze/libhatanalyze.map).
# It needs libhatf.so (found beside it: rpath $ORIGIN); libhatf's internals
# analyze/ uses (the address map, the contract checks), which libhatf.so does
# not export, come from libhatf.a, linked after it.
HATAN_SONAME := libhatanalyze.so.$(HATF_MAJOR)
HATAN_SO_REAL := libhatanalyze.so.$(HATF_VERSION)
HATAN_SO_OBJ := $(if $(SANITIZE),$(patsubst %.c,$(B)/obj-so/%.o,$(ANALYZE_SRC)) $(B)/obj-so/libhatf.a,$(ANALYZE_OBJ) $(B)/libhatf.a)
HATAN_SO_LIBS := -liberty -ldw -lelf -lpthread -lm
$(B)/obj-so/analyze/%.o: INC = $(INC_analyze)
$(B)/$(HATAN_SO_REAL): $(HATAN_SO_OBJ) analyze/libhatanalyze.map $(B)/libhatf.so
	@$(if $(Q),echo '  LD      $@')
	$(Q)$(CC) -shared $(CFLAGS) -Wl,-soname,$(HATAN_SONAME) -Wl,--version-script=analyze/libhatanalyze.map \
	    -Wl,--no-undefined -Wl,-rpath,'$$ORIGIN' -o $@ $(filter %.o,$(HATAN_SO_OBJ)) $(B)/$(HATF_SO_REAL) \
	    $(filter %.a,$(HATAN_SO_OBJ)) $(HATAN_SO_LIBS) $(LDFLAGS)
$(B)/libhatanalyze.so: $(B)/$(HATAN_SO_REAL)
	$(Q)ln -sf $(HATAN_SO_REAL) $(B)/$(HATAN_SONAME) && ln -sf $(HATAN_SONAME) $@

$(B)/libhatrace.so: $(SO_INPUT) preload/exports.map
	@$(if $(Q),echo '  LD      $@')
	$(Q)$(CC) -shared $(CFLAGS) -Wl,--version-script=preload/exports.map -Wl,-z,now \
	    -o $@ $(SO_INPUT) $(PRELOAD_SO_LIBS) $(LDFLAGS)

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
$(REPORT_PAGE_OBJ): $(B)/gen/report_page.c $(B)/.flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC      $<')
	$(Q)$(CC) $(REQ_CFLAGS) $(CHECK_CFLAGS) -Iinclude -Icli $(CFLAGS) -c $< -o $@

# Each test file declares its tests; tests/unit/cunit_main.c is their main().
TEST_LIBS := $(B)/libhatpreload.a $(B)/libhatreplay.a $(B)/libhatanalyze.a $(B)/libhatf.a
TEST_MAIN := $(B)/obj/tests/unit/cunit_main.o
# A test of a tool's module links that module's object (no test includes a .c).
TEST_OBJ_test_pbwire := $(B)/obj/cli/pbwire.o
# tests that name frames link what analyze/frames.c and srclines.c need
$(B)/tests/test_callgraph $(B)/tests/test_hatan_api $(B)/tests/test_sitefigures: LDFLAGS += $(HATAN_SO_LIBS)
.SECONDEXPANSION:
vpath test_%.c $(sort $(dir $(UNIT_SRC)))
# (dependency files of a build from before the tests moved into their modules'
# folders still name tests/unit/test_*.c: nothing to make for those)
tests/unit/test_%.c: ;
# (nor for those of tests that left tests/unit/tools and tests/unit/cli for tests/unit/analyze)
tests/unit/tools/test_%.c tests/unit/cli/test_%.c: ;
$(B)/tests/%: %.c $(TEST_MAIN) $(TEST_LIBS) $$(TEST_OBJ_$$*) $(B)/.flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  TEST    $@')
	$(Q)$(CC) $(REQ_CFLAGS) $(CHECK_CFLAGS) $(INC_tests) $(CFLAGS) $(LDSAN) -o $@ $< $(TEST_OBJ_$*) $(TEST_MAIN) $(TEST_LIBS) -lcunit \
	    $(PRELOAD_LIBS) $(LDFLAGS)

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

# attach_server dlopens a library of its own while hatrace is attached
$(B)/workloads/libattach_lib.so: tests/workloads/lib/attach_lib.c $(B)/.flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC      $@')
	$(Q)$(CC) -std=gnu11 -Wall -Wextra -O1 -g -shared -fPIC -o $@ $<
$(B)/workloads/attach_server: $(B)/workloads/libattach_lib.so
# thread_exit is counted natively by a counting preload of the tests' own
$(B)/workloads/libcount_frees.so: tests/workloads/lib/count_frees.c $(B)/.flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC      $@')
	$(Q)$(CC) -std=gnu11 -Wall -Wextra -O1 -g -shared -fPIC -o $@ $< -ldl
$(B)/workloads/thread_exit: $(B)/workloads/libcount_frees.so
# a statically linked program, which hatrace record -p refuses
$(B)/workloads/attach_static: LDFLAGS += -static

# heap_mimalloc calls mimalloc's heap API: link libmimalloc when its header is there
$(B)/workloads/heap_mimalloc: LDFLAGS += $(if $(wildcard /usr/include/mimalloc.h),-lmimalloc)

$(B)/examples/%: examples/%.c $(B)/.flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC      $@')
	$(Q)$(CC) -std=gnu11 -Wall -Wextra -Iinclude -O2 -g -o $@ $< -lpthread $(LDFLAGS)

# count_events is a libhatf program (tests/integration/install_pkgconfig.sh
# builds it again against the installed library)
$(B)/examples/count_events: $(B)/libhatf.a
$(B)/examples/count_events: LDFLAGS += $(B)/libhatf.a $(HATF_SO_LIBS) $(LDSAN)

$(B)/workloads/%: tests/workloads/%.cc $(B)/.flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CXX     $@')
	$(Q)$(CXX) -Wall -Wextra -Iinclude -O1 -g -o $@ $< -lpthread $(LDFLAGS)

$(B)/bench/%: bench/%.c $(B)/libhatf.a $(B)/libhatanalyze.a $(B)/libhatreplay.a $(B)/.flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC      $@')
	$(Q)$(CC) $(REQ_CFLAGS) $(CHECK_CFLAGS) $(INC_bench) $(CFLAGS) -O2 -o $@ $< $(B)/libhatreplay.a $(B)/libhatanalyze.a $(B)/libhatf.a \
	    $(LIBS) $(BENCH_LIBS) $(LDFLAGS)

# libFuzzer targets: built with clang from the sources, not from libhatf.a, so
# the whole library is instrumented; undefined behaviour stops the run like a crash.
FUZZ_FLAGS := -std=gnu11 -g -O1 -Iinclude -Ihatf -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
              -fno-sanitize-recover=undefined
$(B)/fuzz/%: tests/fuzz/%.c $(HATF_SRC) $(B)/.flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  FUZZ    $@')
	$(Q)$(CLANG) $(FUZZ_FLAGS) $(CHECK_CFLAGS) -o $@ $< $(HATF_SRC) $(LIBS)

# hatf.pc names the folders of the install; $(B)/.dirs records them so that
# another PREFIX (LIBDIR, INCLUDEDIR) regenerates it. zstd and xxHash are named
# by their own .pc files when the system has them, else as plain -l flags.
DIRS_ID := $(PREFIX) $(LIBDIR) $(INCLUDEDIR)
$(B)/.dirs: FORCE
	@mkdir -p $(B)
	@echo '$(DIRS_ID)' | cmp -s - $@ || echo '$(DIRS_ID)' > $@

pc_dir = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))
HATF_PC_SYS = Requires.private: libzstd libxxhash\nLibs.private: -lpthread -lm
HATF_PC_RAW = Libs.private: $(HATF_SO_LIBS)
HATF_PC_DEPS = $(if $(shell $(PKG_CONFIG) --exists libzstd libxxhash && echo y),$(HATF_PC_SYS),$(HATF_PC_RAW))
$(B)/hatf.pc: $(B)/.dirs include/hatf_version.h Makefile
	@$(if $(Q),echo '  GEN     $@')
	$(Q)printf '%b\n' 'prefix=$(PREFIX)' 'exec_prefix=$${prefix}' \
	    'libdir=$(call pc_dir,$(LIBDIR))' 'includedir=$(call pc_dir,$(INCLUDEDIR))' '' \
	    'Name: hatf' 'Description: HATF heap allocation trace format library (hatrace)' \
	    'Version: $(HATF_VERSION)' 'Libs: -L$${libdir} -lhatf' '$(HATF_PC_DEPS)' \
	    'Cflags: -I$${includedir}' > $@

# hatanalyze.pc: libhatanalyze (analyze/hatan_api.h), shared only; it needs
# libhatf.so and hatf's headers (hatan_api.h includes them).
$(B)/hatanalyze.pc: $(B)/.dirs include/hatf_version.h Makefile
	@$(if $(Q),echo '  GEN     $@')
	$(Q)printf '%b\n' 'prefix=$(PREFIX)' 'exec_prefix=$${prefix}' \
	    'libdir=$(call pc_dir,$(LIBDIR))' 'includedir=$(call pc_dir,$(INCLUDEDIR))' '' \
	    'Name: hatanalyze' 'Description: hatrace'"'"'s figures of HATF traces (libhatanalyze)' \
	    'Version: $(HATF_VERSION)' 'Requires: hatf = $(HATF_VERSION)' 'Libs: -L$${libdir} -lhatanalyze' \
	    'Cflags: -I$${includedir}' > $@

$(B)/man/%: docs/man/% include/hatf_version.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  GEN     $@')
	$(Q)sed 's/@VERSION@/$(HATF_VERSION)/g' $< > $@

FUZZ_SECONDS ?= 60
TEST_FUZZ_SECONDS ?= 10

tests: $(UNIT_BIN) $(WORK_BIN)

check: all $(UNIT_BIN)
	$(Q)B=$(B) SANITIZE=$(SANITIZE) CHECKS=$(CHECKS) scripts/run-tests.sh unit golden layers

test: all $(UNIT_BIN) $(WORK_BIN) $(FUZZ_BIN)
	$(Q)TEST_FUZZ_SECONDS=$(TEST_FUZZ_SECONDS) B=$(B) SANITIZE=$(SANITIZE) CHECKS=$(CHECKS) scripts/run-tests.sh unit golden layers integration fuzz

fuzz: $(FUZZ_BIN)
	$(Q)TEST_FUZZ_SECONDS=$(FUZZ_SECONDS) B=$(B) scripts/run-tests.sh fuzz

bench: all $(BENCH_BIN)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 755 $(B)/hatrace $(DESTDIR)$(BINDIR)/hatrace
	install -m 644 $(B)/libhatf.a $(DESTDIR)$(LIBDIR)/libhatf.a
	install -m 755 $(B)/$(HATF_SO_REAL) $(DESTDIR)$(LIBDIR)/$(HATF_SO_REAL)
	ln -sf $(HATF_SO_REAL) $(DESTDIR)$(LIBDIR)/$(HATF_SONAME)
	ln -sf $(HATF_SONAME) $(DESTDIR)$(LIBDIR)/libhatf.so
	install -m 755 $(B)/$(HATAN_SO_REAL) $(DESTDIR)$(LIBDIR)/$(HATAN_SO_REAL)
	ln -sf $(HATAN_SO_REAL) $(DESTDIR)$(LIBDIR)/$(HATAN_SONAME)
	ln -sf $(HATAN_SONAME) $(DESTDIR)$(LIBDIR)/libhatanalyze.so
	install -m 644 analyze/hatan_api.h $(DESTDIR)$(INCLUDEDIR)/
	$(if $(PRELOAD_SO),install -m 755 $(PRELOAD_SO) $(DESTDIR)$(LIBDIR)/libhatrace.so)
	install -m 644 include/*.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(B)/hatf.pc $(DESTDIR)$(PKGCONFIGDIR)/hatf.pc
	install -m 644 $(B)/hatanalyze.pc $(DESTDIR)$(PKGCONFIGDIR)/hatanalyze.pc
	for m in $(MAN_OUT); do d=$(DESTDIR)$(MANDIR)/man$${m##*.}; \
	    install -d $$d && install -m 644 $$m $$d/ || exit 1; done
	install -d $(DESTDIR)$(PYTHONDIR)/hatrace
	install -m 644 $(filter-out python/hatrace/_installed.py,$(wildcard python/hatrace/*.py)) $(DESTDIR)$(PYTHONDIR)/hatrace/
	printf '"""Where make install put libhatf and hatrace (read by _lib.py)."""\nLIBDIR = %s\nBINDIR = %s\n' \
	    "'$(LIBDIR)'" "'$(BINDIR)'" > $(DESTDIR)$(PYTHONDIR)/hatrace/_installed.py

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/hatrace $(DESTDIR)$(LIBDIR)/libhatrace.so
	rm -f $(DESTDIR)$(LIBDIR)/libhatf.a $(DESTDIR)$(LIBDIR)/libhatf.so
	rm -f $(DESTDIR)$(LIBDIR)/$(HATF_SONAME) $(DESTDIR)$(LIBDIR)/$(HATF_SO_REAL)
	rm -f $(DESTDIR)$(LIBDIR)/libhatanalyze.so $(DESTDIR)$(LIBDIR)/$(HATAN_SONAME) $(DESTDIR)$(LIBDIR)/$(HATAN_SO_REAL)
	rm -f $(DESTDIR)$(INCLUDEDIR)/hatan_api.h
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(notdir $(wildcard include/*.h)))
	rm -f $(DESTDIR)$(PKGCONFIGDIR)/hatf.pc $(DESTDIR)$(PKGCONFIGDIR)/hatanalyze.pc
	for m in $(notdir $(MAN_OUT)); do rm -f $(DESTDIR)$(MANDIR)/man$${m##*.}/$$m; done
	rm -rf $(DESTDIR)$(PYTHONDIR)/hatrace

clean:
	rm -rf $(B)

# The sanitizer builds live in their own folders.
ASAN_B ?= $(B)-asan
TSAN_B ?= $(B)-tsan
check-sanitizers:
	$(Q)ASAN_B=$(ASAN_B) TSAN_B=$(TSAN_B) MAKE="$(MAKE)" scripts/check-sanitizers.sh

# 200 kills, 10 s of 64 threads, a storm of 50,000 threads
stress: all $(WORK_BIN)
	$(Q)for t in tests/integration/reliability_*.sh tests/integration/record_crash.sh; do \
	    echo "== $$t"; \
	    RELIABILITY_TRIALS=200 RELIABILITY_LOAD_MS=10000 RELIABILITY_STORM=50000 CRASH_RUNS=100 \
	    BUILD=$(CURDIR)/$(B) HATRACE=$(CURDIR)/$(B)/hatrace HATRACE_LIB=$(CURDIR)/$(B)/libhatrace.so \
	    bash $$t || exit 1; done

# every C source compiled for aarch64 (tests/integration/cross_aarch64.sh, also in make test)
cross-check:
	$(Q)bash tests/integration/cross_aarch64.sh

# make print-VAR: a variable's value (the cross check reads REQ_CFLAGS)
print-%: FORCE
	@echo '$($*)'

FORCE:
.PHONY: all tests check test fuzz bench install uninstall clean check-sanitizers stress cross-check FORCE
.SECONDARY:

-include $(shell find $(B)/obj $(B)/obj-so $(B)/tests -name '*.d' 2>/dev/null)
