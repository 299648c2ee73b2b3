# Wine build and tests (included by the Makefile after windows.mk): the
# library, the CLI and the win32 store's tests built as Winelib programs
# with winegcc, and the crash-sweep helper built as a native Windows
# program with mingw-w64; all run under wine64 by tests/wine/run.sh in a
# throwaway prefix.
#   make wine         build into build/wine/ (regtool.exe: the whole CLI)
#   make wine-check   build, then run tests/wine/run.sh (the native
#                     PE of windows.mk included)

WINEGCC   ?= winegcc
WBUILD    := build/wine
WINE_LIBS := -linih -ladvapi32

WINE_LIB_OBJ  := $(LIB_SRC:%.c=$(WBUILD)/obj/%.o)
WINE_CLI_OBJ  := $(CLI_SRC:%.c=$(WBUILD)/obj/%.o)
WINE_FIXTURE  := $(WBUILD)/obj/tests/wine/win32_fixture.o
WINE_LIB_A    := $(WBUILD)/libregtool.a
WINE_PROGRAMS := $(WBUILD)/regtool.exe.so $(WBUILD)/test_store_win32.exe.so \
                 $(WBUILD)/sweep.exe.so $(WBUILD)/mingw/sweep.exe \
                 $(WBUILD)/mingw/transferperf.dll $(WBUILD)/mingw/perfconsumer.exe \
                 $(foreach n,1 2 3,$(WBUILD)/mingw/transferperf-fault$(n).dll)

# The crash sweep's native helper links the native Windows library of
# windows.mk (included first).
.PHONY: wine wine-build wine-check
wine: wine-build
wine-build: $(WINE_PROGRAMS)

# The native regtool.exe (windows.mk) runs the provider end to end too:
# on the live store, and as the prefix's lodctr.exe and unlodctr.exe.
wine-check: wine-build $(WIN_EXE) $(WINBUILD)/lodctr.exe $(WINBUILD)/unlodctr.exe
	@sh tests/wine/run.sh $(WBUILD) $(WINBUILD)

# A test build throughout: its regtool.exe is the one the crash sweeps
# end at the k-th write (RT_TESTING: lib/commit/io_count.c's hooks).
$(WBUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(WINEGCC) $(CFLAGS_COMMON) -DRT_TESTING -Itests/wine $(CFLAGS) -c $< -o $@

$(WINE_LIB_A): $(WINE_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

# winegcc -o NAME.exe writes NAME.exe.so and a launcher script NAME.exe.
$(WBUILD)/regtool.exe.so: $(WINE_CLI_OBJ) $(WINE_LIB_A)
	$(WINEGCC) -o $(WBUILD)/regtool.exe $^ $(WINE_LIBS)

$(WBUILD)/test_store_win32.exe.so: $(WBUILD)/obj/tests/test_store_win32.o \
                                   $(WINE_FIXTURE) $(WINE_LIB_A)
	$(WINEGCC) -o $(WBUILD)/test_store_win32.exe $^ -lcmocka $(WINE_LIBS)

$(WBUILD)/sweep.exe.so: $(WBUILD)/obj/tests/wine/sweep.o $(WINE_FIXTURE) \
                        $(WINE_LIB_A)
	$(WINEGCC) -o $(WBUILD)/sweep.exe $^ $(WINE_LIBS)

$(WBUILD)/mingw/sweep.exe: tests/wine/sweep.c tests/wine/win32_fixture.c \
                           $(WIN_TESTING_OBJ) $(WIN_LIB_A)
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WIN_CFLAGS) -Itests/wine -o $@ tests/wine/sweep.c \
	    tests/wine/win32_fixture.c $(WIN_TESTING_OBJ) $(WIN_LIB_A) -ladvapi32

# The sample provider DLL of ini-samples/transfer.ini and the consumer
# that reads it through HKEY_PERFORMANCE_DATA (tests/wine/provider_e2e.sh).
$(WBUILD)/mingw/transferperf.dll: ini-samples/provider/transferperf.c \
                                  ini-samples/provider/transferperf.def \
                                  ini-samples/CounterOffsets.h
	@mkdir -p $(dir $@)
	$(WIN_CC) -std=c11 -Wall -Wextra -Werror -O2 -shared -o $@ \
	    ini-samples/provider/transferperf.c \
	    ini-samples/provider/transferperf.def -ladvapi32

# The same provider with one mistake each (TRANSFERPERF_FAULT in the
# source), for regtool verify's findings.
$(WBUILD)/mingw/transferperf-fault%.dll: ini-samples/provider/transferperf.c \
                                         ini-samples/provider/transferperf.def \
                                         ini-samples/CounterOffsets.h
	@mkdir -p $(dir $@)
	$(WIN_CC) -std=c11 -Wall -Wextra -Werror -O2 -shared \
	    -DTRANSFERPERF_FAULT=$* -o $@ ini-samples/provider/transferperf.c \
	    ini-samples/provider/transferperf.def -ladvapi32

$(WBUILD)/mingw/perfconsumer.exe: tests/wine/perfconsumer.c
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WIN_CFLAGS) -o $@ tests/wine/perfconsumer.c -ladvapi32

-include $(WINE_LIB_OBJ:.o=.d) $(WINE_CLI_OBJ:.o=.d) \
         $(WBUILD)/obj/tests/test_store_win32.d \
         $(WBUILD)/obj/tests/wine/win32_fixture.d $(WBUILD)/obj/tests/wine/sweep.d
