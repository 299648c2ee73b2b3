# regtool: one entry point for building, testing and the demo.
#   make          library and CLI in build/
#   make check    deps, then tools/check.sh: every build, then the unit
#                 tests under valgrind and under AddressSanitizer +
#                 UndefinedBehaviorSanitizer, a CLI round trip under
#                 valgrind, the CLI scripts on the sanitizer build (the
#                 memory-bound ones and the crash sweeps on the plain
#                 build), each fuzz harness 10 seconds, the win32 store
#                 under Wine and the native Windows build under wine64;
#                 each stage's time
#                 printed (make unit, cli-tests, valgrind, wine-check,
#                 windows-check, fuzz-short run one of them)
#   make demo     deps, build, the demo on an embedded default store
#   make bench    the benchmarks (bench/, not part of make check): workloads
#                 W0, W1 (79 MB SOFTWARE), W2, Ws in both layouts, medians,
#                 the floor, the libhivex peers; bench/results.json
#   make install  regtool, its lodctr/unlodctr links and regtool(1) under
#                 $(DESTDIR)$(PREFIX) (PREFIX: /usr/local; BINDIR, LIBDIR,
#                 INCLUDEDIR, MANDIR, PKGCONFIGDIR each overridable), and
#                 the library: libregtool.so, libregtool.a, regtool.h,
#                 regtool.pc; make uninstall removes them again
#   CFLAGS, CPPFLAGS, LDFLAGS are the caller's (CFLAGS: -g -O2 unless
#   given); WERROR=1 turns warnings into errors (make check sets it)
#   make mutants  plants each of a list of one-line bugs in a scratch copy
#                 and runs the test that must catch it (tools/mutants.sh,
#                 not part of make check); fails if one survives
#   make coverage the unit and CLI suites under gcov in build/cov/ (COV=1),
#                 a gcovr report in build/coverage/ (index.html, per-file
#                 table), and a check that every lib/ file under 85% lines
#                 or 75% branches is explained in docs/testing.md
#                 (tools/coverage.sh; not part of make check: it takes long)
#   make mutation-score  mutants generated at random places of lib/ and
#                 regtool/ (SEED=, default today; MUTANTS=, default 60),
#                 each run against the unit tests and a few quick CLI
#                 scripts; prints the survivors and the score
#                 (tools/mutation-score.sh, not part of make check)
#   make fuzz     the libFuzzer harnesses (tests/fuzz/), FUZZ_SECONDS each
#                 (default 60) after replaying tests/fuzz/regressions/
#   make deps     install missing Debian packages (make deps-demo: the
#                 demo's only)
#   make fresh-check  make demo and make check on a minimal Debian 12 root
#                 (debootstrap; needs root and Debian's package servers)

BUILD   ?= build
SAN     ?=
COV     ?=
CC      ?= cc
PKGS    := inih cmocka

# Packagers' variables are theirs: CFLAGS (optimisation, hardening),
# CPPFLAGS and LDFLAGS are taken as given, after what the code needs
# (C11, the feature macros, warnings). -Werror only when asked: a newer
# compiler's new warning must not break a distribution's build, while
# make check asks for it (WERROR=1) so that no warning lands here.
CFLAGS   ?= -g -O2
CPPFLAGS ?=
WERROR   ?=
CFLAGS_COMMON := -std=c11 -Wall -Wextra -D_GNU_SOURCE \
                 -D_FILE_OFFSET_BITS=64 -Ilib -MMD -MP
ifeq ($(WERROR),1)
CFLAGS_COMMON += -Werror
endif
# The sanitizer and coverage builds' own flags come after CFLAGS, so that
# theirs (-O1, -O0) win over a packager's -O2.
# A plain build's objects serve the shared library too (PIC_OBJ below).
CFLAGS_MODE := -fPIC -fno-semantic-interposition
ifeq ($(SAN),1)
CFLAGS_MODE   := -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
                 -fno-omit-frame-pointer
LDFLAGS_SAN   := -fsanitize=address,undefined
else ifeq ($(COV),1)
# -O0: every line and branch gcov counts is one the source shows.
# RT_COVERAGE: a simulated power cut (REGTOOL_FAULT_AFTER_WRITES) writes
# the counters before it ends the process (lib/commit/io_count.c).
CFLAGS_MODE   := -O0 --coverage -DRT_COVERAGE
LDFLAGS       += --coverage
endif
# Instrumented objects must never mix with the plain or sanitized ones.
ifeq ($(COV)$(BUILD),1build)
$(error COV=1 needs its own BUILD directory (make coverage uses build/cov))
endif
COMPILE     := $(CC) $(CFLAGS_COMMON) $(CPPFLAGS) $(CFLAGS) $(CFLAGS_MODE)
# The shared library is never sanitized: programs that link it are not.
# Without semantic interposition: the library exports only lib/regtool.h
# (its version script), so its own calls may be inlined as in the static
# library.
COMPILE_PIC := $(CC) $(CFLAGS_COMMON) $(CPPFLAGS) $(CFLAGS) -fPIC \
               -fno-semantic-interposition

# Objects are rebuilt when the flags they were built with change (make
# demo, then make check with WERROR=1; another CFLAGS): the command line
# is kept in the build directory and compared on every run.
FLAGS_FILE  := $(BUILD)/.flags
FLAGS_NOW   := $(COMPILE) | $(COMPILE_PIC)
# Not on a dry run (make -n): that writes nothing.
ifneq ($(MAKECMDGOALS),clean)
ifeq ($(findstring n,$(firstword -$(MAKEFLAGS))),)
ifneq ($(file <$(FLAGS_FILE)),$(FLAGS_NOW))
$(shell mkdir -p $(BUILD))
$(file >$(FLAGS_FILE),$(FLAGS_NOW))
endif
endif
endif
# Written above; a dry run leaves it missing, and objects are then shown
# as to be rebuilt. (Not the default goal: that is all.)
.DEFAULT_GOAL := all
$(FLAGS_FILE): ;

LIB_SRC   := $(filter-out lib/provider/ini_unavailable.c,$(sort $(wildcard lib/*/*.c)))
CLI_SRC   := $(sort $(wildcard regtool/*.c))
TEST_SRC  := $(sort $(wildcard tests/test_*.c))

LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ   := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
TEST_BIN  := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
LIB_A     := $(BUILD)/libregtool.a
# The shared library: its soname changes with REGTOOL_VERSION_MAJOR, and
# before 1.0 with the minor version too (0.x minors may change a
# structure's size: a program built against 0.1's header must not load
# 0.2's library); its file name is REGTOOL_VERSION. All from lib/regtool.h.
API_VERSION := $(shell sed -n 's/^\#define REGTOOL_VERSION "\(.*\)"/\1/p' lib/regtool.h)
SO_MAJOR  := $(shell sed -n 's/^\#define REGTOOL_VERSION_MAJOR //p' lib/regtool.h)
SO_MINOR  := $(shell sed -n 's/^\#define REGTOOL_VERSION_MINOR //p' lib/regtool.h)
SO_NAME   := libregtool.so.$(if $(filter 0,$(SO_MAJOR)),0.$(SO_MINOR),$(SO_MAJOR))
LIB_SO    := $(BUILD)/libregtool.so.$(API_VERSION)
PIC_OBJ   := $(LIB_SRC:%.c=$(BUILD)/pic/%.o)
# A plain build compiles the library once: its objects are
# position-independent (CFLAGS_MODE above) and make both the static and
# the shared library. The sanitizer and coverage builds keep their own
# instrumented objects for the static library.
ifeq ($(SAN)$(COV),)
PIC_OBJ   := $(LIB_OBJ)
endif
CLI_BIN   := $(BUILD)/regtool
BENCH_BIN := $(BUILD)/bench/mkbench
# The harness's own tools: plain C, no regtool code (bench/floor.c, timeit.c).
BENCH_TOOLS := $(BUILD)/bench/floor $(BUILD)/bench/timeit
PEER_BIN  := $(BUILD)/bench/hivexpeer

LDLIBS    := -linih

.PHONY: check-programs cli-programs valgrind-unit valgrind-cli fuzz-seeds fuzz-run
.PHONY: all check unit cli-tests deps deps-demo demo clean valgrind bench \
        fresh-check install uninstall bench-deps mutants mutation-score api-example \
        fuzz fuzz-build fuzz-short coverage coverage-deps
all: $(LIB_A) $(LIB_SO) $(CLI_BIN) $(BENCH_BIN) $(BENCH_TOOLS)

$(BUILD)/obj/%.o: %.c $(FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(COMPILE) -c $< -o $@

$(LIB_A): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/pic/%.o: %.c $(FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(COMPILE_PIC) -c $< -o $@

# Only the public functions (lib/regtool.h) are exported.
$(LIB_SO): $(PIC_OBJ) lib/api/libregtool.map
	$(CC) $(LDFLAGS) -shared -Wl,--no-undefined -Wl,-soname,$(SO_NAME) \
	    -Wl,--version-script=lib/api/libregtool.map -o $@ $(PIC_OBJ) $(LDLIBS)

$(CLI_BIN): $(CLI_OBJ) $(LIB_A)
	$(CC) $(LDFLAGS_SAN) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB_A) $(LDLIBS)
	ln -sf regtool $(BUILD)/lodctr
	ln -sf regtool $(BUILD)/unlodctr

$(BENCH_BIN): $(BUILD)/obj/bench/mkbench.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) $(LDFLAGS) -o $@ $< $(LIB_A) $(LDLIBS)

$(BENCH_TOOLS): $(BUILD)/bench/%: $(BUILD)/obj/bench/%.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) $(LDFLAGS) -o $@ $<

$(PEER_BIN): $(BUILD)/obj/bench/hivexpeer.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) $(LDFLAGS) -o $@ $< -lhivex

# The test hooks (lib/commit/io_count.c with RT_TESTING: a simulated
# power cut or signal at the k-th write) are built only into what tests
# run: the unit test programs and build/testing/regtool, the CLI the crash
# scripts drive. That object comes before the library, so the library's
# own io_count.o is not linked. The product (build/regtool,
# libregtool.so/.a) has no hook.
TESTING_OBJ := $(BUILD)/obj/testing/lib/commit/io_count.o
TESTING_CLI := $(BUILD)/testing/regtool

$(TESTING_OBJ): lib/commit/io_count.c $(FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(COMPILE) -DRT_TESTING -c $< -o $@

$(TESTING_CLI): $(CLI_OBJ) $(TESTING_OBJ) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) $(LDFLAGS) -o $@ $(CLI_OBJ) $(TESTING_OBJ) $(LIB_A) $(LDLIBS)
	ln -sf regtool $(dir $@)lodctr
	ln -sf regtool $(dir $@)unlodctr

$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(TESTING_OBJ) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) $(LDFLAGS) -o $@ $< $(TESTING_OBJ) $(LIB_A) $(LDLIBS) -lcmocka

deps:
	@sh tools/deps.sh check

deps-demo:
	@sh tools/deps.sh demo

fresh-check:
	@sh tools/fresh-check.sh

# make check: tools/check.sh builds everything (the plain and sanitizer
# builds, fuzz, Wine, Windows), then runs each suite once where once is
# enough, two stages at a time, and prints each stage's time: the unit
# tests under valgrind and under the sanitizers, the CLI round trip under
# valgrind, the CLI scripts on the sanitizer build (those whose memory
# bounds need the plain one and the crash sweeps on that), the fuzz
# harnesses 10 s each, Wine's and the native Windows tests.
check: deps
	@sh tools/check.sh

# What the suites run, built (check builds it twice: plain and SAN=1).
# The shared library is never sanitized: the sanitizer build's would be
# the plain one again, and the scripts that use it run on the plain build
# (tools/check.sh).
CHECK_SO := $(if $(SAN),,$(LIB_SO))
check-programs: $(TEST_BIN) $(CLI_BIN) $(TESTING_CLI) $(CHECK_SO) $(BENCH_BIN) $(BENCH_TOOLS)

unit: $(TEST_BIN) $(CLI_BIN)
	@sh tests/run-unit.sh $(TEST_BIN)

# CLI_SCRIPTS: only these (default: every tests/cli/*.sh).
CLI_SCRIPTS ?=
# What the CLI scripts run (tools/test-map.sh builds it with COV=1).
cli-programs: $(CLI_BIN) $(TESTING_CLI) $(CHECK_SO) $(BENCH_BIN) $(BENCH_TOOLS)
cli-tests: cli-programs
	@sh tests/run-cli.sh $(abspath $(CLI_BIN)) $(CLI_SCRIPTS)

valgrind: valgrind-unit valgrind-cli
valgrind-unit: $(TEST_BIN) $(CLI_BIN)
	@VALGRIND=1 sh tests/run-unit.sh $(TEST_BIN)
valgrind-cli: $(CLI_BIN)
	@sh tests/valgrind-cli.sh $(CLI_BIN)

# Times are printed, never asserted (tests/cli/bench_bytes.sh asserts the
# bytes written, which are deterministic; tests/cli/bench_smoke.sh runs
# the harness on a tiny workload). BENCH_RUNS, BENCH_WORKLOADS: bench/run.sh.
bench-deps:
	@sh tools/deps.sh bench

bench: bench-deps
	$(MAKE) SAN= $(CLI_BIN) $(BENCH_BIN) $(BENCH_TOOLS) $(PEER_BIN)
	@sh bench/run.sh $(abspath $(CLI_BIN)) $(abspath $(BENCH_BIN))

mutants:
	@sh tools/mutants.sh

# Coverage: counters are zeroed, the unit and CLI suites run on the
# instrumented build (COV=1 in the environment, so that the CLI scripts
# that run make in the build directory keep its flags), then
# tools/coverage.sh writes build/coverage/ and checks the targets against
# docs/testing.md. CLI_JOBS: tests/run-cli.sh.
COV_BUILD := build/cov
coverage-deps:
	@sh tools/deps.sh coverage

coverage: coverage-deps
	$(MAKE) BUILD=$(COV_BUILD) COV=1 $(COV_BUILD)/regtool
	find $(COV_BUILD) -name '*.gcda' -delete
	COV=1 $(MAKE) BUILD=$(COV_BUILD) unit cli-tests
	@sh tools/coverage.sh $(COV_BUILD) build/coverage docs/testing.md

mutation-score:
	@nice -n 19 sh tools/mutation-score.sh

# Fuzzing (tests/fuzz/): one libFuzzer harness per parser, and fuzz_tree
# for a whole tree through the stores and the engine, built with
# Debian's clang into build/fuzz/ from library objects compiled with the
# same flags (as SAN=1 builds build/san/). `make fuzz` replays every
# regression input, then runs each harness FUZZ_SECONDS on seeds
# generated into build/fuzz/seeds/; it fails on any crash, leak or UB.
# `make fuzz-short` is that for 20 seconds each, as make check runs it.
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_DIR     := build/fuzz
FUZZ_NAMES   := ini symbol_file multi_sz hive log_replay perf_backup reg_file tree
FUZZ_BIN     := $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz_%)
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_CFLAGS  := -std=c11 -Wall -Wextra -Werror -g -O1 -D_GNU_SOURCE \
                -D_FILE_OFFSET_BITS=64 -Ilib -MMD -MP \
                -fsanitize=fuzzer-no-link,address,undefined \
                -fno-sanitize-recover=all -fno-omit-frame-pointer

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_DIR)/libregtool.a: $(FUZZ_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/obj/tests/fuzz/fuzz_%.o $(FUZZ_DIR)/libregtool.a
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $< \
	    $(FUZZ_DIR)/libregtool.a $(LDLIBS)

fuzz-build: $(FUZZ_BIN)

# Seeds are generated, never committed (hives are megabytes).
# The seeds include trees a simulated crash left: the test build of the CLI.
$(FUZZ_DIR)/seeds/.done: tests/fuzz/seeds.sh tests/fuzz/mkregistry.c $(TESTING_CLI) $(BENCH_BIN) $(LIB_A)
	sh tests/fuzz/seeds.sh $(FUZZ_DIR)/seeds $(TESTING_CLI) $(BENCH_BIN) $(LIB_A)
	touch $@

fuzz-seeds: $(FUZZ_DIR)/seeds/.done

fuzz: fuzz-build fuzz-seeds
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_NAMES)

# The harnesses as built (make check builds them first).
fuzz-run:
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_NAMES)

fuzz-short:
	$(MAKE) fuzz FUZZ_SECONDS=20

demo: deps-demo all
	@sh tools/demo.sh $(abspath $(CLI_BIN))

# Where make install puts things: each directory its own variable, as
# Debian's rules set them (LIBDIR=/usr/lib/$(DEB_HOST_MULTIARCH), say);
# DESTDIR is prefixed at install time only, never written into a file.
PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

# The binary answers as lodctr and unlodctr by its name: relative links.
# The library: the shared one with its soname and development links, the
# static one, the public header and regtool.pc (its paths are LIBDIR's
# and INCLUDEDIR's, not DESTDIR's: pkg-config's PKG_CONFIG_SYSROOT_DIR
# adds that). make all builds all of it.
INSTALLED_LIB := $(notdir $(LIB_SO)) $(SO_NAME) libregtool.so libregtool.a
INSTALLED_MAN := regtool.1 lodctr.1 unlodctr.1

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(LIBDIR) \
	    $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 0755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/$(notdir $(LIB_SO))
	$(if $(filter $(SO_NAME),$(notdir $(LIB_SO))),,ln -sf $(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/$(SO_NAME))
	ln -sf $(SO_NAME) $(DESTDIR)$(LIBDIR)/libregtool.so
	install -m 0644 $(LIB_A) $(DESTDIR)$(LIBDIR)/libregtool.a
	install -m 0644 lib/regtool.h $(DESTDIR)$(INCLUDEDIR)/regtool.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(API_VERSION)|' \
	    lib/api/regtool.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/regtool.pc
	install -m 0755 $(CLI_BIN) $(DESTDIR)$(BINDIR)/regtool
	ln -sf regtool $(DESTDIR)$(BINDIR)/lodctr
	ln -sf regtool $(DESTDIR)$(BINDIR)/unlodctr
	install -m 0644 regtool/regtool.1 $(DESTDIR)$(MANDIR)/man1/regtool.1
	ln -sf regtool.1 $(DESTDIR)$(MANDIR)/man1/lodctr.1
	ln -sf regtool.1 $(DESTDIR)$(MANDIR)/man1/unlodctr.1

# Removes exactly the files and links install put there (the same
# variables); directories stay, as they may be shared.
uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,regtool lodctr unlodctr) \
	    $(addprefix $(DESTDIR)$(LIBDIR)/,$(INSTALLED_LIB)) \
	    $(DESTDIR)$(INCLUDEDIR)/regtool.h $(DESTDIR)$(PKGCONFIGDIR)/regtool.pc \
	    $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(INSTALLED_MAN))

clean:
	@# --one-file-system: a fresh-check root whose mounts outlived a killed
	@# run must not take the host's /dev and /proc with it.
	rm -rf --one-file-system build

.SECONDARY:

include windows.mk
include wine.mk

-include $(LIB_OBJ:.o=.d) $(PIC_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(BUILD)/obj/bench/mkbench.d \
         $(TESTING_OBJ:.o=.d) \
         $(BENCH_TOOLS:$(BUILD)/bench/%=$(BUILD)/obj/bench/%.d) \
         $(BUILD)/obj/bench/hivexpeer.d $(TEST_SRC:%.c=$(BUILD)/obj/%.d) \
         $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_NAMES:%=$(FUZZ_DIR)/obj/tests/fuzz/fuzz_%.d)
