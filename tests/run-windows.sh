#!/bin/sh
# Runs the native Windows build under wine64 (make windows-check): each
# unit test program given, then the CLI tests that need no INI through
# regtool.exe, in a throwaway Wine prefix.
#   sh tests/run-windows.sh BUILD_DIR TEST...   (BUILD_DIR: build/windows)
set -eu
build=$(cd "$1" && pwd); shift
WINE64=${WINE64:-/usr/lib/wine/wine64}
WINESERVER=${WINESERVER:-/usr/lib/wine/wineserver64}
[ -x "$WINE64" ] || { echo "windows-check: no $WINE64 (make deps installs wine64)" >&2; exit 1; }
WINEPREFIX=$build/prefix
WINEDEBUG=-all
WINEDLLOVERRIDES="mscoree,mshtml="
export WINE64 WINEPREFIX WINEDEBUG WINEDLLOVERRIDES
cleanup() {
    "$WINESERVER" -k 2>/dev/null || true
    rm -rf "$WINEPREFIX"
}
cleanup
trap cleanup EXIT
mkdir -p "$WINEPREFIX"
"$WINESERVER" -p   # one server for every run (wine-tests/run.sh says why)
"$WINE64" wineboot.exe -i >/dev/null 2>&1

passed=0; failed=0; failures=""
for t in "$@"; do
    if "$WINE64" "$build/tests/$t.exe"; then passed=$((passed + 1)); else
        failed=$((failed + 1)); failures="$failures $t"
    fi
done
echo "windows unit test programs: $passed passed, $failed failed"

# regtool.exe as the CLI tests call it: its output without the CR that
# the C runtime's text mode adds, and its exit status.
wrapper=$build/regtool-wine
cat >"$wrapper" <<WRAP
#!/bin/sh
out=\$(mktemp); err=\$(mktemp)
"$WINE64" "$build/regtool.exe" "\$@" >"\$out" 2>"\$err"; rc=\$?
tr -d '\r' <"\$out"; tr -d '\r' <"\$err" >&2
rm -f "\$out" "\$err"
exit \$rc
WRAP
chmod +x "$wrapper"
cli_passed=0; cli_failed=0
for s in tests/cli/noini_verbs.sh tests/cli/hive_check.sh tests/cli/hive_recover.sh; do
    scratch=$(mktemp -d)
    if REGTOOL=$wrapper REGTOOL_WINDOWS=1 SHARED=${SHARED:-$(cd ../shared && pwd)} \
        TMPDIR=$scratch sh "$s" >"$scratch.log" 2>&1; then
        cli_passed=$((cli_passed + 1))
    else
        cli_failed=$((cli_failed + 1)); failures="$failures $(basename "$s")"
        echo "--- $s"; cat "$scratch.log"
    fi
    rm -rf "$scratch" "$scratch.log"
done
echo "windows cli tests: $cli_passed passed, $cli_failed failed"
[ "$failed" -eq 0 ] && [ "$cli_failed" -eq 0 ] || { echo "failed:$failures"; exit 1; }
