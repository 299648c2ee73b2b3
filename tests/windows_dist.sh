#!/bin/sh
# make windows-dist, as make check's windows stage runs it: the zip is
# made and holds what it must (tools/windows-dist.sh checks its listing),
# its binaries import only Windows' own DLLs, and the import check refuses
# a PE that imports another DLL (one made here with dlltool: foo.dll).
#   sh tests/windows_dist.sh WINBUILD VERSION INIH_SRC NSIS_PLUGIN
set -eu
WINBUILD=$1 VERSION=$2 INIH_SRC=$3 NSIS_PLUGIN=$4
fail() { echo "FAIL: windows-dist: $*" >&2; exit 1; }
sh tools/windows-dist.sh "$WINBUILD" "$VERSION" "$INIH_SRC" "$NSIS_PLUGIN" || fail "the zip was not made"
[ -s "$WINBUILD/regtool-$VERSION-win64.zip" ] || fail "no zip"
# The plugins NSIS calls by name (32 and 64-bit): Install and Uninstall,
# undecorated.
for p in "$NSIS_PLUGIN" "$WINBUILD/nsis/regtoolnsis.dll"; do
    for f in Install Uninstall; do
        x86_64-w64-mingw32-objdump -p "$p" | grep -q "\] $f\$" ||
            fail "$p exports no $f"
    done
done
T=$WINBUILD/dist/import-check
rm -rf "$T"; mkdir -p "$T"
printf 'LIBRARY foo.dll\nEXPORTS\nbar\n' >"$T/foo.def"
x86_64-w64-mingw32-dlltool -d "$T/foo.def" -l "$T/libfoo.a" || fail "dlltool"
printf 'int bar(void);\nint main(void) { return bar(); }\n' >"$T/uses_foo.c"
x86_64-w64-mingw32-gcc -o "$T/uses_foo.exe" "$T/uses_foo.c" "$T/libfoo.a" || fail "cannot build uses_foo.exe"
if sh tools/windows-dist.sh --check-imports "$T/uses_foo.exe" 2>"$T/err"; then
    fail "a PE importing foo.dll passed the import check"
fi
grep -q "uses_foo.exe imports foo.dll, which Windows does not have" "$T/err" ||
    fail "the refusal does not name the DLL: $(cat "$T/err")"
rm -rf "$T"
echo "windows-dist: ok"
