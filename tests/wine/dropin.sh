#!/bin/sh
# Makes regtool the lodctr.exe and unlodctr.exe of a Wine prefix, in place
# of Wine's stubs (which change nothing and report success): programs in
# the prefix that shell out to lodctr then get a real one.
# Usage: WINEPREFIX=... sh tests/wine/dropin.sh BUILD_DIR (build/wine, or
# build/windows for the native PE copies)
#
# The Winelib regtool (BUILD_DIR/regtool.exe.so) answers as lodctr or
# unlodctr by the name it is run under (regtool/lodctr.c), so it is copied
# under both names, and each system directory of the prefix (system32, and
# syswow64 where the prefix has one) gets a launcher of that name: a shell
# script, as winegcc writes for every Winelib program, which Wine runs when
# a Windows program starts it. Paths the programs give (C:\dir\x.ini) are
# mapped to Unix paths by regtool (rt_os_user_path). The name database is
# the prefix's registry (the live store) unless REGTOOL_STORE says
# otherwise.
set -eu
build=$(cd "$1" && pwd)
[ -n "${WINEPREFIX:-}" ] || { echo "dropin.sh: set WINEPREFIX" >&2; exit 2; }
# The native build (make windows: BUILD_DIR/lodctr.exe and unlodctr.exe,
# PE copies of regtool.exe) is copied in as it is, as an administrator
# copies it from the release zip; Wine runs a real PE of that name in
# place of its builtin stub once the prefix's DllOverrides say "native"
# for that program (Wine otherwise prefers its builtin one in system32,
# which changes nothing and reports success). SysWOW64 is left alone: a
# 64-bit PE is no program of it.
if [ ! -f "$build/regtool.exe.so" ] && [ -f "$build/lodctr.exe" ]; then
    for name in lodctr unlodctr; do
        sysdir="$WINEPREFIX/drive_c/windows/system32"
        cp "$build/$name.exe" "$sysdir/$name.exe.new"
        mv -f "$sysdir/$name.exe.new" "$sysdir/$name.exe"
        "${WINE64:-wine}" reg add 'HKCU\Software\Wine\DllOverrides' \
            /v "$name.exe" /d native /f >/dev/null 2>&1 ||
            { echo "dropin.sh: cannot set the DllOverride of $name.exe" >&2; exit 1; }
    done
    echo "wine: the native regtool is lodctr.exe and unlodctr.exe of $WINEPREFIX's system32"
    exit 0
fi
[ -f "$build/regtool.exe.so" ] || { echo "dropin.sh: no $build/regtool.exe.so (make wine-build) nor $build/lodctr.exe (make windows-build)" >&2; exit 2; }
loader=${WINELOADER:-${WINE64:-wine}}
mkdir -p "$build/dropin"
for name in lodctr unlodctr; do
    cp "$build/regtool.exe.so" "$build/dropin/$name.exe.so"
    for dir in system32 syswow64; do
        sysdir="$WINEPREFIX/drive_c/windows/$dir"
        [ -d "$sysdir" ] || continue
        # Replaced through a new file and a rename: a Wine process starting
        # the old one meanwhile sees either.
        cat >"$sysdir/$name.exe.new" <<LAUNCHER
#!/bin/sh
# $name.exe of this Wine prefix: regtool's $name (tests/wine/dropin.sh).
exec "$loader" "$build/dropin/$name.exe.so" "\$@"
LAUNCHER
        chmod 755 "$sysdir/$name.exe.new"
        mv -f "$sysdir/$name.exe.new" "$sysdir/$name.exe"
    done
done
echo "wine: regtool is lodctr.exe and unlodctr.exe of $WINEPREFIX"
