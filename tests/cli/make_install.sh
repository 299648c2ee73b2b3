# make install puts regtool, its lodctr/unlodctr links and the man page
# under DESTDIR/PREFIX; the installed links answer as lodctr and unlodctr,
# and the man page is well-formed for man(1).
. tests/cli/lib.sh

B=$(dirname "$REGTOOL")
# The build directory as the Makefile names it (relative to the tree): the
# same objects named by an absolute path would get dependency files that a
# later plain `make` never matches, and stale objects after a header edit.
case $B in "$PWD"/*) B=${B#"$PWD"/} ;; esac
I=$TMPDIR/dest
expect_exit 0 make -s install BUILD="$B" DESTDIR="$I" PREFIX=/opt/rt
for f in bin/regtool bin/lodctr bin/unlodctr share/man/man1/regtool.1 \
         share/man/man1/lodctr.1 share/man/man1/unlodctr.1; do
    [ -e "$I/opt/rt/$f" ] || fail "make install did not install $f"
done
[ "$(readlink "$I/opt/rt/bin/lodctr")" = regtool ] || fail "lodctr is not a relative link"
cmp -s "$REGTOOL" "$I/opt/rt/bin/regtool" || fail "the installed binary differs"
expect_exit 0 "$I/opt/rt/bin/lodctr" '/?'
expect_grep "lodctr /Q" "$OUT"
expect_exit 0 "$I/opt/rt/bin/unlodctr" '/?'
expect_grep "unlodctr <driver>" "$OUT"
# The man page: every command of the usage text is described, and groff
# formats it without a warning.
for c in init install uninstall names query enable disable "hive check" \
         "hive recover" check-ini version; do
    grep '^\.B' regtool/regtool.1 | sed 's/\\-/-/g' | grep -q -- "$c" || fail "regtool.1 does not describe $c"
done
groff -man -Tutf8 -ww -z regtool/regtool.1 2>"$ERR" || fail "groff failed"
[ ! -s "$ERR" ] || { cat "$ERR"; fail "groff warns about regtool.1"; }
# A control character (a form feed where \f was meant) is no groff
# warning but prints as garbage.
LC_ALL=C grep -n "$(printf "[\001-\010\013-\037]")" regtool/regtool.1 && fail "regtool.1 holds a control character"

# As a Debian package builds it: each directory its own variable, a
# multiarch LIBDIR; regtool.pc names LIBDIR and INCLUDEDIR, never DESTDIR;
# make uninstall with the same variables takes back every file and link.
D=$TMPDIR/deb
set -- BUILD="$B" DESTDIR="$D" PREFIX=/usr LIBDIR=/usr/lib/x86_64-linux-gnu \
    INCLUDEDIR=/usr/include/rt MANDIR=/usr/share/man
expect_exit 0 make -s install "$@"
for f in usr/bin/regtool usr/bin/lodctr usr/share/man/man1/unlodctr.1 \
         usr/lib/x86_64-linux-gnu/libregtool.so usr/lib/x86_64-linux-gnu/libregtool.a \
         usr/lib/x86_64-linux-gnu/pkgconfig/regtool.pc usr/include/rt/regtool.h; do
    [ -e "$D/$f" ] || fail "make install with LIBDIR, INCLUDEDIR, MANDIR did not install $f"
done
[ ! -e "$D/usr/lib/libregtool.a" ] || fail "make install ignored LIBDIR"
pc=$D/usr/lib/x86_64-linux-gnu/pkgconfig/regtool.pc
grep -qx 'libdir=/usr/lib/x86_64-linux-gnu' "$pc" || fail "regtool.pc's libdir is not LIBDIR"
grep -qx 'includedir=/usr/include/rt' "$pc" || fail "regtool.pc's includedir is not INCLUDEDIR"
grep -q "$D" "$pc" && fail "regtool.pc names DESTDIR"
expect_exit 0 make -s uninstall "$@"
left=$(find "$D" ! -type d)
[ -z "$left" ] || fail "make uninstall left: $left"

# A packager's flags are taken as given, after the code's own; -Werror
# only when asked (make check asks). Dry runs (-n) of one object in a
# build directory of their own, without what make check passes down.
unset MAKEFLAGS MAKELEVEL MFLAGS WERROR SAN COV
F=$TMPDIR/flags
make -n BUILD="$F" CPPFLAGS=-DRT_PACKAGER_CPP CFLAGS='-O1 -fstack-protector-strong' \
    "$F/obj/lib/model/multi_sz.o" >"$OUT" 2>&1 || { cat "$OUT"; fail "make -n failed"; }
expect_grep ' -DRT_PACKAGER_CPP .*-O1 -fstack-protector-strong .*-c lib/model/multi_sz.c' "$OUT"
grep -q -- '-Werror' "$OUT" && fail "-Werror without WERROR=1"
grep -q -- '-O2' "$OUT" && fail "CFLAGS given, yet the default -O2 is there"
make -n BUILD="$F" WERROR=1 "$F/obj/lib/model/multi_sz.o" >"$OUT" 2>&1
expect_grep ' -Werror .*-g -O2 ' "$OUT"
[ ! -e "$F/.flags" ] || fail "a dry run wrote the build directory's flags"
# Plain make builds the CLI and the shared library.
make -n BUILD="$F" >"$OUT" 2>&1
expect_grep "-o $F/regtool " "$OUT"
expect_grep "-o $F/libregtool.so" "$OUT"
echo "make install: ok"
