# Wine build and tests (included by the Makefile): the library, the CLI
# and the win32 store's tests built as Winelib programs with winegcc, and
# the crash-sweep helper built as a native Windows program with
# mingw-w64; all run under wine64 by wine-tests/run.sh in a throwaway
# prefix.
#   make wine-check   build into build/wine/, then run wine-tests/run.sh

WINEGCC   ?= winegcc
WBUILD    := build/wine
WINE_LIBS := -linih -ladvapi32

WINE_LIB_OBJ  := $(LIB_SRC:%.c=$(WBUILD)/obj/%.o)
WINE_CLI_OBJ  := $(CLI_SRC:%.c=$(WBUILD)/obj/%.o)
WINE_FIXTURE  := $(WBUILD)/obj/wine-tests/win32_fixture.o
WINE_LIB_A    := $(WBUILD)/libregtool.a
WINE_PROGRAMS := $(WBUILD)/regtool.exe.so $(WBUILD)/test_store_win32.exe.so \
                 $(WBUILD)/sweep.exe.so $(WBUILD)/mingw/sweep.exe

# The native build covers the win32 store and what it links: the rest of
# the library is POSIX file code (README, "Building for Windows").
# -Wno-format: mingw's gcc checks rt_error_set's printf formats against
# msvcrt, which lacks %zu; __USE_MINGW_ANSI_STDIO gives a vsnprintf that
# has it.
MINGW_CC     ?= x86_64-w64-mingw32-gcc
MINGW_CFLAGS := -std=c11 -Wall -Wextra -Werror -Wno-format -O2 \
                -D__USE_MINGW_ANSI_STDIO=1 -Ilib -Iwine-tests
MINGW_SRC    := lib/store/store_win32.c lib/store/win32_journal.c \
                lib/store/win32_registry.c lib/store/store.c \
                lib/model/change_set.c lib/model/error.c lib/model/utf16.c \
                lib/commit/io_count.c lib/commit/crc32.c \
                lib/model/name_table.c lib/model/multi_sz.c lib/model/strbuf.c \
                wine-tests/sweep.c wine-tests/win32_fixture.c

.PHONY: wine-build wine-check
wine-build: $(WINE_PROGRAMS)

wine-check: wine-build
	@sh wine-tests/run.sh $(WBUILD)

$(WBUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(WINEGCC) $(CFLAGS_COMMON) -Iwine-tests $(CFLAGS) -c $< -o $@

$(WINE_LIB_A): $(WINE_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

# winegcc -o NAME.exe writes NAME.exe.so and a launcher script NAME.exe.
$(WBUILD)/regtool.exe.so: $(WINE_CLI_OBJ) $(WINE_LIB_A)
	$(WINEGCC) -o $(WBUILD)/regtool.exe $^ $(WINE_LIBS)

$(WBUILD)/test_store_win32.exe.so: $(WBUILD)/obj/tests/test_store_win32.o \
                                   $(WINE_FIXTURE) $(WINE_LIB_A)
	$(WINEGCC) -o $(WBUILD)/test_store_win32.exe $^ -lcmocka $(WINE_LIBS)

$(WBUILD)/sweep.exe.so: $(WBUILD)/obj/wine-tests/sweep.o $(WINE_FIXTURE) \
                        $(WINE_LIB_A)
	$(WINEGCC) -o $(WBUILD)/sweep.exe $^ $(WINE_LIBS)

$(WBUILD)/mingw/sweep.exe: $(MINGW_SRC) $(wildcard lib/*/*.h wine-tests/*.h)
	@mkdir -p $(dir $@)
	$(MINGW_CC) $(MINGW_CFLAGS) -o $@ $(MINGW_SRC) -ladvapi32

-include $(WINE_LIB_OBJ:.o=.d) $(WINE_CLI_OBJ:.o=.d) \
         $(WBUILD)/obj/tests/test_store_win32.d \
         $(WBUILD)/obj/wine-tests/win32_fixture.d $(WBUILD)/obj/wine-tests/sweep.d
