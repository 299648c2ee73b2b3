# Native Windows build (included by the Makefile): the library, the CLI
# and the unit tests cross-compiled with mingw-w64, and the tests run
# under wine64.
#   make windows               build/windows/: regtool.exe with its copies
#                              lodctr.exe and unlodctr.exe, libregtool.a,
#                              regtool.dll with its import library
#                              libregtool.dll.a, the unit tests, then run
#                              them (windows-check)
#   make windows INIH=DIR      with inih from DIR/include and DIR/lib,
#                              e.g. MSYS2's mingw64 prefix with
#                              mingw-w64-x86_64-libinih (code pages are
#                              converted by Windows, no iconv needed)
#   make windows INIH=none     without an INI parser: regtool.exe links
#                              lib/provider/ini_unavailable.c (the verbs
#                              that read INIs say the library is missing)
# By default inih is built here from ../shared/third_party/inih-r55 (the
# release Debian 12's libinih is; Debian ships no mingw build of it), as
# Debian builds it: meson's distro_install passes no INI_* option, so
# ini.c keeps its own defaults and an INI parses the same on both.
# cmocka comes from Debian's source package, built for mingw-w64 by
# tools/mingw-cmocka.sh (Debian ships no mingw build).

WINBUILD    := build/windows
WIN_CC      ?= x86_64-w64-mingw32-gcc
# -Wno-format: gcc checks printf formats against msvcrt's, which lack
# %zu; __USE_MINGW_ANSI_STDIO gives the printf family that has them.
WIN_CFLAGS  := -std=c11 -Wall -Wextra -Wno-format -O2 -g \
               -D_GNU_SOURCE -D__USE_MINGW_ANSI_STDIO=1 -Ilib -MMD -MP
ifeq ($(WERROR),1)
WIN_CFLAGS  += -Werror
endif
WIN_CMOCKA  := $(WINBUILD)/cmocka
INIH        ?=
INIH_SRC    ?= $(abspath ../shared/third_party/inih-r55)
WIN_INIH_OBJ :=

ifeq ($(INIH),none)
WIN_LIB_SRC  := $(filter-out lib/provider/ini_reader.c,$(LIB_SRC)) \
                lib/provider/ini_unavailable.c
WIN_INI_LIBS :=
else ifeq ($(INIH),)
WIN_LIB_SRC  := $(LIB_SRC)
WIN_CFLAGS   += -I$(INIH_SRC)
WIN_INIH_OBJ := $(WINBUILD)/obj/inih/ini.o
WIN_INI_LIBS :=
else
WIN_LIB_SRC  := $(LIB_SRC)
WIN_CFLAGS   += -I$(INIH)/include
WIN_INI_LIBS := -L$(INIH)/lib -linih
endif

# The unit tests that run natively: every tests/test_*.c (a new one runs
# there too) but those listed here, each list with why.
# - POSIX only: fork and wait, mounts, FIFOs, POSIX links and modes.
WIN_TESTS_POSIX    := test_confine test_journal test_regf_log test_jobs \
                      test_special_files
# - The Linux referees (hivexsh, regfexport, reglookup), xz, or the
#   samples of ../shared by their Linux paths.
WIN_TESTS_REFEREES := test_regf_referees test_referee_init_install \
                      test_perf_backup test_regf_sample
# - The live registry's store: Winelib, run by wine.mk (make wine-check).
WIN_TESTS_WINE     := test_store_win32
# - INIs, read through inih: left out only when INIH=none.
WIN_TESTS_INI      := test_ini_reader test_provider_spec test_symbol_file \
                      test_api test_provider_scale test_side_files
WIN_TESTS := $(filter-out $(WIN_TESTS_POSIX) $(WIN_TESTS_REFEREES) \
                          $(WIN_TESTS_WINE) $(if $(filter none,$(INIH)),$(WIN_TESTS_INI)), \
                          $(TEST_SRC:tests/%.c=%))

WIN_LIB_OBJ := $(WIN_LIB_SRC:%.c=$(WINBUILD)/obj/%.o) $(WIN_INIH_OBJ)
WIN_CLI_OBJ := $(CLI_SRC:%.c=$(WINBUILD)/obj/%.o)
WIN_LIB_A   := $(WINBUILD)/libregtool.a
WIN_EXE     := $(WINBUILD)/regtool.exe
WIN_DLL     := $(WINBUILD)/regtool.dll
WIN_IMPLIB  := $(WINBUILD)/libregtool.dll.a
WIN_TEST_EXE := $(WIN_TESTS:%=$(WINBUILD)/tests/%.exe)
WIN_LIBS    := $(WIN_INI_LIBS) -ladvapi32 -lshell32

# The NSIS plugin: NSIS_PLUGIN, WIN32BUILD and the target nsis.
include nsis.mk

.PHONY: windows windows-build windows-check windows-dist
windows: windows-check

# The release zip (tools/windows-dist.sh): the binaries, the header, the
# README, the NSIS plugin (nsis.mk) with its example, and inih's licence
# (the plugin holds inih whichever INIH regtool.exe was built with);
# refused when a binary imports a DLL that Windows does not have itself.
windows-dist: $(WIN_EXE) $(WINBUILD)/lodctr.exe $(WINBUILD)/unlodctr.exe $(WIN_DLL) $(NSIS_PLUGIN) $(NSIS_PLUGIN64)
	@sh tools/windows-dist.sh $(WINBUILD) $(API_VERSION) $(INIH_SRC) $(NSIS_PLUGIN)

windows-build: $(WIN_EXE) $(WINBUILD)/lodctr.exe $(WINBUILD)/unlodctr.exe $(WIN_DLL) $(WIN_TEST_EXE) $(WINBUILD)/tests/api_header.exe nsis

# api_header: lib/regtool.h's test program, linked through the import
# library, so it runs only when regtool.dll exports what the header says.
# tests/nsis/run.sh: the NSIS plugin and its example installer (nsis.mk),
# unless regtool.exe reads no INI (INIH=none).
windows-check: windows-build
	@sh tests/run-windows.sh $(WINBUILD) $(WIN_TESTS) api_header
	$(if $(filter none,$(INIH)),,@sh tests/nsis/run.sh $(WINBUILD) $(WIN32BUILD))
	@sh tests/windows_dist.sh $(WINBUILD) $(API_VERSION) $(INIH_SRC) $(NSIS_PLUGIN)

$(WIN_CMOCKA)/lib/libcmocka.a:
	@sh tools/mingw-cmocka.sh $(WIN_CMOCKA)

$(WINBUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WIN_CFLAGS) -c $< -o $@

# inih's ini.c as Debian compiles it (no INI_* define), warnings shown
# but not errors: it is someone else's file, compiled unchanged.
$(WINBUILD)/obj/inih/ini.o: $(INIH_SRC)/ini.c
	@test -r $< || { echo "windows: no inih at $(INIH_SRC) (../shared/third_party; or INIH=DIR, INIH=none)" >&2; exit 2; }
	@mkdir -p $(dir $@)
	$(WIN_CC) -std=c11 -O2 -g -Wall -c $< -o $@

$(WINBUILD)/obj/tests/%.o: tests/%.c $(WIN_CMOCKA)/lib/libcmocka.a
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WIN_CFLAGS) -I$(WIN_CMOCKA)/include -c $< -o $@

$(WIN_LIB_A): $(WIN_LIB_OBJ)
	rm -f $@ && $(WIN_CC:gcc=ar) rcs $@ $^

# The DLL exports what lib/regtool.h marks REGTOOL_API (dllexport), and
# nothing else: ld exports every symbol only when none is marked. libgcc
# is linked in: a shared -shared default would make installers ship
# libgcc_s_seh-1.dll beside it.
$(WIN_DLL): $(WIN_LIB_OBJ)
	$(WIN_CC) -shared -static-libgcc -o $@ $(WIN_LIB_OBJ) \
	    -Wl,--out-implib,$(WIN_IMPLIB) $(WIN_LIBS)

$(WINBUILD)/tests/api_header.exe: tests/api_header.c lib/regtool.h $(WIN_DLL)
	@mkdir -p $(dir $@)
	$(WIN_CC) -std=c89 -pedantic -Wall -Wextra -Werror -Ilib -o $@ \
	    tests/api_header.c $(WIN_IMPLIB)
	cp $(WIN_DLL) $(dir $@)

$(WIN_EXE): $(WIN_CLI_OBJ) $(WIN_LIB_A)
	$(WIN_CC) -o $@ $(WIN_CLI_OBJ) $(WIN_LIB_A) $(WIN_LIBS)

# lodctr.exe and unlodctr.exe: regtool.exe under the names it answers to
# as lodctr and unlodctr (copies: Windows has no links a program may
# count on), for a System32 or a PATH where programs run lodctr by name.
$(WINBUILD)/lodctr.exe $(WINBUILD)/unlodctr.exe: $(WIN_EXE)
	cp $< $@

# The test hooks, for the test programs only (as WIN_TESTING_OBJ in the
# Makefile): regtool.exe and regtool.dll have none.
WIN_TESTING_OBJ := $(WINBUILD)/obj/testing/lib/commit/io_count.o
$(WIN_TESTING_OBJ): lib/commit/io_count.c
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WIN_CFLAGS) -DRT_TESTING -c $< -o $@

$(WINBUILD)/tests/%.exe: $(WINBUILD)/obj/tests/%.o $(WIN_TESTING_OBJ) $(WIN_LIB_A)
	@mkdir -p $(dir $@)
	$(WIN_CC) -o $@ $< $(WIN_TESTING_OBJ) $(WIN_LIB_A) $(WIN_CMOCKA)/lib/libcmocka.a $(WIN_LIBS)

-include $(WIN_LIB_OBJ:.o=.d) $(WIN_CLI_OBJ:.o=.d) \
         $(WIN_TESTS:%=$(WINBUILD)/obj/tests/%.d)
