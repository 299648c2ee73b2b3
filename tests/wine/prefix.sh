# A throwaway Wine prefix for one test run, sourced by tests/wine/run.sh
# and tests/run-windows.sh with PREFIX_DIR set: exports WINE64 and the
# Wine variables, makes the prefix, starts one wineserver, and removes
# both when the sourcing script exits.
WINE64=${WINE64:-/usr/lib/wine/wine64}
WINESERVER=${WINESERVER:-/usr/lib/wine/wineserver64}
[ -x "$WINE64" ] || { echo "$0: no $WINE64 (make deps installs wine64)" >&2; exit 1; }
WINEPREFIX=$PREFIX_DIR
WINELOADER=$WINE64
WINEDEBUG=-all
# No Mono or Gecko download prompts while the prefix is made.
WINEDLLOVERRIDES="mscoree,mshtml="
export WINE64 WINEPREFIX WINELOADER WINEDEBUG WINEDLLOVERRIDES

# The server is told to end and waited for: Wine processes still ending
# may write into the prefix while it is removed ("Directory not empty").
wine_prefix_cleanup() {
    "$WINESERVER" -k 2>/dev/null || true
    "$WINESERVER" -w 2>/dev/null || true
    tries=0
    while ! rm -rf "$WINEPREFIX" 2>/dev/null && [ "$tries" -lt 10 ]; do
        tries=$((tries + 1))
        sleep 1
    done
    [ ! -e "$WINEPREFIX" ] || { echo "$0: cannot remove $WINEPREFIX" >&2; return 1; }
}
wine_prefix_cleanup
trap wine_prefix_cleanup EXIT

# One persistent wineserver for every run, started before any client: a
# server that a client starts quits as soon as its last client exits, and
# a process starting at that moment fails with "wine client error:
# recvmsg: Connection reset by peer".
mkdir -p "$WINEPREFIX"
"$WINESERVER" -p
"$WINE64" wineboot.exe -i >/dev/null 2>&1
