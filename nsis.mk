# The NSIS plugin (included by windows.mk): regtoolnsis.dll, x86-unicode
# as Debian's makensis 3.08 builds installers, from contrib/nsis/ and the
# plugin API of ../shared/third_party/nsis-3.08-pluginapi, with a 32-bit
# build of the library linked in (one DLL importing only Windows' own).
#   make nsis         build/windows32/regtoolnsis.dll, the example
#                     installer contrib/nsis/example.nsi built with
#                     makensis (32 and 64-bit), and the plugin's test host
#                     (32 and 64-bit)
# tests/nsis/run.sh (in windows-check) runs them under Wine.

WIN32BUILD   := build/windows32
WIN32_CC     ?= i686-w64-mingw32-gcc
NSIS_API     ?= $(abspath ../shared/third_party/nsis-3.08-pluginapi)
MAKENSIS     ?= makensis
# The 32-bit library: the 64-bit build's sources and flags, with inih
# always built from INIH_SRC (../shared): INIH=DIR names a 64-bit inih and
# INIH=none none, while the plugin always reads INIs.
WIN32_CFLAGS := $(filter-out -I$(INIH)/include,$(WIN_CFLAGS)) -I$(INIH_SRC)
WIN32_LIB_SRC := $(LIB_SRC)
WIN32_LIB_OBJ := $(WIN32_LIB_SRC:%.c=$(WIN32BUILD)/obj/%.o) \
                 $(WIN32BUILD)/obj/inih/ini.o
WIN32_LIB_A  := $(WIN32BUILD)/libregtool.a
NSIS_PLUGIN  := $(WIN32BUILD)/regtoolnsis.dll
# The same plugin built for 64-bit installers (amd64-unicode), which
# wine64 can run through the test host when 32-bit Wine is missing.
NSIS_PLUGIN64 := $(WINBUILD)/nsis/regtoolnsis.dll
NSIS_HOSTS   := $(WIN32BUILD)/plugin_host.exe $(WINBUILD)/nsis/plugin_host.exe
NSIS_EXAMPLE := $(WIN32BUILD)/regtool-example-setup.exe
# The same installer for 64-bit Windows (amd64-unicode, Debian's makensis
# has its stubs), with the 64-bit plugin: the one wine64 runs whole.
NSIS_EXAMPLE64 := $(WINBUILD)/nsis/regtool-example-setup.exe
NSIS_PLUGIN_CFLAGS := -std=c11 -Wall -Wextra -O2 -DUNICODE -D_UNICODE \
                      -I$(NSIS_API) -Ilib $(if $(filter 1,$(WERROR)),-Werror)

.PHONY: nsis
nsis: $(NSIS_PLUGIN) $(NSIS_PLUGIN64) $(NSIS_HOSTS) $(NSIS_EXAMPLE) \
      $(NSIS_EXAMPLE64)

$(WIN32BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(WIN32_CC) $(WIN32_CFLAGS) -c $< -o $@

$(WIN32BUILD)/obj/inih/ini.o: $(INIH_SRC)/ini.c
	@mkdir -p $(dir $@)
	$(WIN32_CC) -std=c11 -O2 -g -Wall -c $< -o $@

$(WIN32_LIB_A): $(WIN32_LIB_OBJ)
	rm -f $@ && $(WIN32_CC:gcc=ar) rcs $@ $^

# pluginapi.c is NSIS's file, compiled unchanged: warnings shown, not
# errors.
$(WIN32BUILD)/obj/nsis/pluginapi.o: $(NSIS_API)/pluginapi.c
	@test -r $< || { echo "nsis: no plugin API at $(NSIS_API) (../shared/third_party; or NSIS_API=DIR)" >&2; exit 2; }
	@mkdir -p $(dir $@)
	$(WIN32_CC) -std=c11 -O2 -Wall -DUNICODE -D_UNICODE -c $< -o $@

$(WINBUILD)/obj/nsis/pluginapi.o: $(NSIS_API)/pluginapi.c
	@mkdir -p $(dir $@)
	$(WIN_CC) -std=c11 -O2 -Wall -DUNICODE -D_UNICODE -c $< -o $@

# The plugin exports Install and Uninstall, and the library's regtool_*
# functions (dllexport in lib/api/api.c) beside them: the 32-bit
# regtool.dll that Inno Setup's 32-bit setup calls
# (docs/guide-installer-authors.md). -s: no symbols in what installers ship.
$(NSIS_PLUGIN): contrib/nsis/regtoolnsis.c lib/regtool.h \
                $(WIN32BUILD)/obj/nsis/pluginapi.o $(WIN32_LIB_A)
	$(WIN32_CC) $(NSIS_PLUGIN_CFLAGS) -shared -static-libgcc -s -o $@ \
	    contrib/nsis/regtoolnsis.c $(WIN32BUILD)/obj/nsis/pluginapi.o \
	    $(WIN32_LIB_A) -ladvapi32 -lshell32

$(NSIS_PLUGIN64): contrib/nsis/regtoolnsis.c lib/regtool.h \
                  $(WINBUILD)/obj/nsis/pluginapi.o $(WIN_LIB_A)
	@mkdir -p $(dir $@)
	$(WIN_CC) $(NSIS_PLUGIN_CFLAGS) -shared -static-libgcc -s -o $@ \
	    contrib/nsis/regtoolnsis.c $(WINBUILD)/obj/nsis/pluginapi.o \
	    $(WIN_LIB_A) $(WIN_LIBS)

$(WIN32BUILD)/plugin_host.exe: tests/nsis/plugin_host.c
	@mkdir -p $(dir $@)
	$(WIN32_CC) $(NSIS_PLUGIN_CFLAGS) -o $@ $<

$(WINBUILD)/nsis/plugin_host.exe: tests/nsis/plugin_host.c
	@mkdir -p $(dir $@)
	$(WIN_CC) $(NSIS_PLUGIN_CFLAGS) -o $@ $<

# The example installer, with the plugin found beside the build
# (!addplugindir) and the sample provider of ini-samples.
$(NSIS_EXAMPLE): contrib/nsis/example.nsi $(NSIS_PLUGIN) \
                 ini-samples/replication.ini ini-samples/ReplicationOffsets.h
	$(MAKENSIS) -V2 -DPLUGIN_DIR=$(abspath $(WIN32BUILD)) \
	    -DSAMPLES=$(abspath ini-samples) -DOUTFILE=$(abspath $@) \
	    contrib/nsis/example.nsi

$(NSIS_EXAMPLE64): contrib/nsis/example.nsi $(NSIS_PLUGIN64) \
                   ini-samples/replication.ini ini-samples/ReplicationOffsets.h
	$(MAKENSIS) -V2 -DTARGET=amd64-unicode \
	    -DPLUGIN_DIR=$(abspath $(WINBUILD)/nsis) -DSAMPLES=$(abspath ini-samples) \
	    -DOUTFILE=$(abspath $@) contrib/nsis/example.nsi

-include $(WIN32_LIB_OBJ:.o=.d)
