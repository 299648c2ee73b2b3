#!/bin/sh
# make windows-dist: the release zip of the native Windows build.
#
#   sh tools/windows-dist.sh WINBUILD VERSION INIH_SRC NSIS_PLUGIN
#       WINBUILD/regtool-VERSION-win64.zip: regtool.exe, its copies
#       lodctr.exe and unlodctr.exe, regtool.dll with its import library
#       and lib/regtool.h, the README as text (CR LF) and the licence of
#       inih, which regtool.exe and regtool.dll contain (INIH_SRC/LICENSE.txt;
#       INIH_SRC "none" when the build took inih from elsewhere, INIH=DIR,
#       or has none, INIH=none: then no licence of it is added), and the
#       NSIS plugin NSIS_PLUGIN (32-bit regtoolnsis.dll) in
#       nsis/x86-unicode/ and its 64-bit build (WINBUILD/nsis/regtoolnsis.dll)
#       in nsis/amd64-unicode/, the folder layout of NSIS's Plugins, with
#       the example installer script contrib/nsis/example.nsi in nsis/.
#   sh tools/windows-dist.sh --check-imports PE...
#       exit 1 naming each PE that imports a DLL Windows does not have
#       itself (libgcc_s_seh-1.dll, libwinpthread-1.dll, an inih or iconv
#       DLL): the zip's binaries must run with nothing installed beside them.
set -eu

# The DLLs every Windows has (System32), in lower case.
SYSTEM_DLLS="kernel32.dll advapi32.dll msvcrt.dll user32.dll shell32.dll
ole32.dll oleaut32.dll ws2_32.dll shlwapi.dll ntdll.dll ucrtbase.dll
bcrypt.dll crypt32.dll version.dll"
OBJDUMP=${OBJDUMP:-x86_64-w64-mingw32-objdump}

check_imports() {
    bad=0
    for pe in "$@"; do
        dlls=$("$OBJDUMP" -p "$pe" | awk '/DLL Name:/ {print $3}') || {
            echo "windows-dist: $pe: not a PE objdump reads" >&2
            return 1
        }
        for d in $dlls; do
            lower=$(printf '%s' "$d" | tr 'A-Z' 'a-z')
            case " $(echo $SYSTEM_DLLS) " in *" $lower "*) continue ;; esac
            case $lower in api-ms-win-*.dll) continue ;; esac
            echo "windows-dist: $pe imports $d, which Windows does not have: it would have to ship beside it" >&2
            bad=1
        done
    done
    return $bad
}

if [ "${1:-}" = --check-imports ]; then
    shift
    check_imports "$@"
    exit $?
fi

[ $# -eq 4 ] || { echo "usage: tools/windows-dist.sh WINBUILD VERSION INIH_SRC NSIS_PLUGIN" >&2; exit 2; }
WINBUILD=$1 VERSION=$2 INIH_SRC=$3 NSIS_PLUGIN=$4
NAME=regtool-$VERSION-win64
STAGE=$WINBUILD/dist/$NAME
ZIP=$WINBUILD/$NAME.zip
BINARIES="regtool.exe lodctr.exe unlodctr.exe regtool.dll"
for f in $BINARIES libregtool.dll.a; do
    [ -f "$WINBUILD/$f" ] || { echo "windows-dist: no $WINBUILD/$f (make windows-build)" >&2; exit 2; }
done
[ "$INIH_SRC" = none ] || [ -r "$INIH_SRC/LICENSE.txt" ] ||
    { echo "windows-dist: no $INIH_SRC/LICENSE.txt" >&2; exit 2; }
NSIS_PLUGIN64=$WINBUILD/nsis/regtoolnsis.dll
for f in "$NSIS_PLUGIN" "$NSIS_PLUGIN64"; do
    [ -f "$f" ] || { echo "windows-dist: no $f (make nsis)" >&2; exit 2; }
done
( cd "$WINBUILD" && check_imports $BINARIES )
check_imports "$NSIS_PLUGIN" "$NSIS_PLUGIN64"

rm -rf "$STAGE" "$ZIP"
mkdir -p "$STAGE"
for f in $BINARIES libregtool.dll.a; do cp "$WINBUILD/$f" "$STAGE/"; done
cp lib/regtool.h "$STAGE/"
mkdir -p "$STAGE/nsis/x86-unicode"
cp "$NSIS_PLUGIN" "$STAGE/nsis/x86-unicode/regtoolnsis.dll"
mkdir -p "$STAGE/nsis/amd64-unicode"
cp "$NSIS_PLUGIN64" "$STAGE/nsis/amd64-unicode/regtoolnsis.dll"
sed 's/\r*$/\r/' contrib/nsis/example.nsi >"$STAGE/nsis/example.nsi"
# Text files as Windows' editors expect them: CR LF.
sed 's/$/\r/' README.md >"$STAGE/README.txt"
TEXTS="README.txt"
if [ "$INIH_SRC" != none ]; then
    sed 's/\r*$/\r/' "$INIH_SRC/LICENSE.txt" >"$STAGE/LICENSE-inih.txt"
    TEXTS="$TEXTS LICENSE-inih.txt"
fi
# -X: no Unix owners or times beyond the DOS ones; entries sorted.
( cd "$WINBUILD/dist" && find "$NAME" -type f | LC_ALL=C sort |
    zip -q -X -@ "../$NAME.zip" )
# What the zip holds, checked against what it must hold.
want=$(printf '%s\n' $BINARIES libregtool.dll.a regtool.h $TEXTS \
    nsis/x86-unicode/regtoolnsis.dll nsis/amd64-unicode/regtoolnsis.dll \
    nsis/example.nsi |
    sed "s|^|$NAME/|" | LC_ALL=C sort)
got=$(zip -sf "$ZIP" | sed -n 's/^  //p' | LC_ALL=C sort)
[ "$want" = "$got" ] || {
    echo "windows-dist: $ZIP holds:" >&2; echo "$got" >&2
    echo "instead of:" >&2; echo "$want" >&2; exit 1
}
echo "windows-dist: $ZIP ($(wc -c <"$ZIP") bytes): $(echo $BINARIES) and the NSIS plugins import only Windows' own DLLs"
