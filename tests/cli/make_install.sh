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
echo "make install: ok"
