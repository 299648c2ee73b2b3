#!/bin/sh
# End-to-end runs under Wine: the win32 store's unit tests (store contract
# included), the crash sweep with the Winelib helper and with the native
# (mingw-w64) one, the crash sweep of each verb that writes through the
# Winelib regtool (crash_sweep_verbs.sh), the provider end to end and a
# smoke run of the Winelib regtool, all in a
# throwaway prefix that is made here and removed afterwards.
# Usage: tests/wine/run.sh BUILD_DIR [WINDOWS_BUILD_DIR], from the
# repository root (build/wine and build/windows): with the second, the
# provider end to end runs again with the native PE regtool.exe, and its
# lodctr.exe and unlodctr.exe copied into the prefix's system32.
set -eu
build=$1
native=${2:-}
PREFIX_DIR=$(cd "$build" && pwd)/prefix
. tests/wine/prefix.sh

# The CLI on the live store of the fresh prefix: Wine's own Perflib, as
# lodctr /Q would show it (009 is Wine's predefined-handle stub table).
out=$("$WINE64" "$build/regtool.exe.so" --store live query --json)
case "$out" in
*'"base_index":1847'*'"languages":["009"'*) echo "wine regtool --store live query: ok" ;;
*) echo "tests/wine: --store live query printed '$out'" >&2; exit 1 ;;
esac

sh tests/wine/provider_e2e.sh "$build" "$build/regtool.exe.so"
[ -z "$native" ] ||
    sh tests/wine/provider_e2e.sh "$build" "$native/regtool.exe" "$native"

"$WINE64" "$build/test_store_win32.exe.so"
sh tests/wine/crash_sweep.sh "$build/sweep.exe.so"
sh tests/wine/crash_sweep.sh "$build/mingw/sweep.exe"
sh tests/wine/crash_sweep_verbs.sh "$build/sweep.exe.so" "$build/regtool.exe.so"
out=$("$WINE64" "$build/regtool.exe.so" version)
case "$out" in
regtool\ *) echo "wine regtool: $out" ;;
*) echo "tests/wine: regtool.exe.so version printed '$out'" >&2; exit 1 ;;
esac
