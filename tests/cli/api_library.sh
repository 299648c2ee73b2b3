# The library as installers use it: make install under DESTDIR puts
# libregtool.so (with its soname), libregtool.a, regtool.h and regtool.pc
# there; tests/api_example.c, built with pkg-config against that install,
# installs the sample provider into a `regtool init` tree and uninstalls
# it; lib/regtool.h compiles as C89 and C++98 (tests/api_header.c).
. tests/cli/lib.sh
command -v pkg-config >/dev/null || fail "pkg-config is needed (tools/deps.sh installs it)"

B=$(dirname "$REGTOOL")
# The build directory as the Makefile names it (relative to the tree): the
# same objects named by an absolute path would get dependency files that a
# later plain `make` never matches, and stale objects after a header edit.
case $B in "$PWD"/*) B=${B#"$PWD"/} ;; esac
I=$TMPDIR/dest
P=/opt/rt
expect_exit 0 make -s install BUILD="$B" DESTDIR="$I" PREFIX=$P
L=$I$P/lib
for f in lib/libregtool.so lib/libregtool.a include/regtool.h \
         lib/pkgconfig/regtool.pc; do
    [ -e "$I$P/$f" ] || fail "make install did not install $f"
done
# The soname: libregtool.so.MAJOR, before 1.0 libregtool.so.0.MINOR (a
# 0.x minor may change a structure's size).
major=$(sed -n 's/^#define REGTOOL_VERSION_MAJOR //p' lib/regtool.h)
minor=$(sed -n 's/^#define REGTOOL_VERSION_MINOR //p' lib/regtool.h)
if [ "$major" = 0 ]; then soname=libregtool.so.0.$minor; else soname=libregtool.so.$major; fi
# The file itself, or a link to it when its name is longer (1.x: .so.1.3).
so=$soname
[ ! -L "$L/$soname" ] || so=$(readlink "$L/$soname")
[ -f "$L/$so" ] && [ ! -L "$L/$so" ] || fail "no $soname in $L"
objdump -p "$L/$so" | grep -q "SONAME *$soname\$" ||
    fail "libregtool.so has no soname $soname"
# Only the public functions are exported.
nm -D --defined-only "$L/$so" | awk '$2 == "T" { print $3 }' >"$TMPDIR/exports"
grep -qx regtool_install "$TMPDIR/exports" || fail "regtool_install is not exported"
grep -v '^regtool_' "$TMPDIR/exports" && fail "exports beyond regtool_* (above)"

# pkg-config finds the install: the .pc says PREFIX, the sysroot adds DESTDIR.
export PKG_CONFIG_PATH="$L/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$I"
flags=$(pkg-config --cflags --libs regtool) || fail "pkg-config knows no regtool"
case "$flags" in
*"-I$I$P/include"*"-L$L"*"-lregtool"*) ;;
*) fail "pkg-config printed '$flags'" ;;
esac
[ "$(pkg-config --modversion regtool)" = "$(sed -n 's/^#define REGTOOL_VERSION "\(.*\)"/\1/p' lib/regtool.h)" ] ||
    fail "regtool.pc's version is not the header's"
# shellcheck disable=SC2086
expect_exit 0 cc -std=c99 -Wall -Wextra -Werror -o "$TMPDIR/example" tests/api_example.c $flags
objdump -p "$TMPDIR/example" | grep -q "NEEDED *$soname\$" ||
    fail "the example does not link $soname"
export LD_LIBRARY_PATH="$L"

T=$TMPDIR/win
expect_exit 0 "$REGTOOL" --store "hive:$T" init
"$REGTOOL" --store "hive:$T" names >"$TMPDIR/names.before" || fail "names"
expect_exit 0 "$TMPDIR/example" "hive:$T" ini-samples/transfer.ini TransferPerf 'C:\transferperf.dll'
expect_grep '^installed TransferPerf: names [0-9]*-[0-9]*, help' "$OUT"
range=$(sed -n 's/^installed TransferPerf: names \([0-9]*-[0-9]*\), help \([0-9]*-[0-9]*\)$/\1 \2/p' "$OUT")
[ -n "$range" ] || fail "no ranges in: $(cat "$OUT")"
set -- $range
expect_grep "^query TransferPerf: names $1, help $2\$" "$OUT"
expect_grep "^uninstalled TransferPerf: names $1, help $2 " "$OUT"
"$REGTOOL" --store "hive:$T" names >"$TMPDIR/names.after" || fail "names"
cmp -s "$TMPDIR/names.before" "$TMPDIR/names.after" ||
    fail "install then uninstall did not give back the names"

# A failure: the provider installed already. The example exits with the
# Win32 code and prints the message regtool install prints.
# (The service keeps the Library the example wrote: --create-service
# replaces none without --force.)
expect_exit 0 "$REGTOOL" --store "hive:$T" install --create-service --library 'C:\transferperf.dll' \
    --open OpenTransfer --collect CollectTransfer --close CloseTransfer ini-samples/transfer.ini
expect_exit 4 "$REGTOOL" --store "hive:$T" install ini-samples/transfer.ini
cli_msg=$(sed -n 's/^regtool: //p' "$ERR")
[ -n "$cli_msg" ] || fail "regtool install printed no message"
expect_exit 183 "$TMPDIR/example" "hive:$T" ini-samples/transfer.ini TransferPerf x.dll
grep -qxF "error 183: $cli_msg" "$ERR" || fail "the example's message is not the CLI's '$cli_msg': $(cat "$ERR")"

# The header alone: C89 and C++98, pedantic, and linked against the library.
expect_exit 0 cc -std=c89 -pedantic -Wall -Wextra -Werror -o "$TMPDIR/h89" tests/api_header.c $flags
expect_exit 0 "$TMPDIR/h89"
expect_grep "^unknown store 'nowhere:x'" "$OUT"
expect_grep "^header ok" "$OUT"
expect_exit 0 c++ -std=c++98 -pedantic -Wall -Wextra -Werror -x c++ -o "$TMPDIR/hxx" tests/api_header.c $flags
expect_exit 0 "$TMPDIR/hxx"
expect_grep "^header ok" "$OUT"
echo "api library: ok"
