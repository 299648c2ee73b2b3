#!/bin/sh
# End-to-end runs under Wine: the win32 store's unit tests (store contract
# included), the crash sweep with the Winelib helper and with the native
# (mingw-w64) one, and a smoke run of the Winelib regtool, all in a
# throwaway prefix that is made here and removed afterwards.
# Usage: wine-tests/run.sh BUILD_DIR (build/wine), from the repository root.
set -eu
build=$1
WINE64=${WINE64:-/usr/lib/wine/wine64}
WINESERVER=${WINESERVER:-/usr/lib/wine/wineserver64}
[ -x "$WINE64" ] || { echo "wine-tests: no $WINE64 (make deps installs wine64)" >&2; exit 1; }
WINEPREFIX=$(cd "$build" && pwd)/prefix
WINELOADER=$WINE64
WINEDEBUG=-all
# No Mono or Gecko download prompts while the prefix is made.
WINEDLLOVERRIDES="mscoree,mshtml="
export WINE64 WINEPREFIX WINELOADER WINEDEBUG WINEDLLOVERRIDES

cleanup() {
    "$WINESERVER" -k 2>/dev/null || true
    rm -rf "$WINEPREFIX"
}
cleanup
trap cleanup EXIT
# One persistent wineserver for every run below, started before any
# client: a server that a client starts quits as soon as its last client
# exits, and a process starting at that moment fails with "wine client
# error: recvmsg: Connection reset by peer".
mkdir -p "$WINEPREFIX"
"$WINESERVER" -p
"$WINE64" wineboot.exe -i >/dev/null 2>&1

# The CLI on the live store of the fresh prefix: Wine's own Perflib, as
# lodctr /Q would show it (009 is Wine's predefined-handle stub table).
out=$("$WINE64" "$build/regtool.exe.so" --store live query --json)
case "$out" in
*'"base_index":1847'*'"languages":["009"'*) echo "wine regtool --store live query: ok" ;;
*) echo "wine-tests: --store live query printed '$out'" >&2; exit 1 ;;
esac


"$WINE64" "$build/test_store_win32.exe.so"
sh wine-tests/crash_sweep.sh "$build/sweep.exe.so"
sh wine-tests/crash_sweep.sh "$build/mingw/sweep.exe"
out=$("$WINE64" "$build/regtool.exe.so" version)
case "$out" in
regtool\ *) echo "wine regtool: $out" ;;
*) echo "wine-tests: regtool.exe.so version printed '$out'" >&2; exit 1 ;;
esac
