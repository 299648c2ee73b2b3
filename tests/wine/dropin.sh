#!/bin/sh
# Makes regtool the lodctr.exe and unlodctr.exe of a Wine prefix, in place
# of Wine's stubs (which change nothing and report success): programs in
# the prefix that shell out to lodctr then get a real one.
# Usage: WINEPREFIX=... sh tests/wine/dropin.sh BUILD_DIR (build/wine)
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
[ -f "$build/regtool.exe.so" ] || { echo "dropin.sh: no $build/regtool.exe.so (make wine-build)" >&2; exit 2; }
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
