# Messages that lead somewhere (issue 38, item 8): each refusal or notice
# names what it is about and what to do, in words that apply to the store
# and the mode at hand.
. tests/cli/lib.sh

D=$TMPDIR/win
S="--store hive:$D"
CS="--create-service --library x.dll --open O --collect C --close X"
expect_exit 0 "$REGTOOL" $S init --languages 009 --layout registry
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" $S install $CS ini-samples/transfer.ini

# audit of a PerfStringBackup file: backups never hold Library or the
# procedures, so their absence is not reported; a help text whose name is
# lost inside a provider's range points to the provider's INI, not to
# pruning orphans (which would not bring the name back).
expect_exit 0 "$REGTOOL" $S backup "$TMPDIR/bk.ini"
iconv -f UTF-16LE -t UTF-8 "$TMPDIR/bk.ini" | sed '/^3994=/d' |
    iconv -f UTF-8 -t UTF-16LE >"$TMPDIR/lost.ini" || fail "iconv"
expect_exit 0 "$REGTOOL" audit "psb:$TMPDIR/bk.ini"
if grep -q 'library-missing\|procedures-missing' "$OUT"; then
    fail "audit of a backup reports Library or procedures it cannot hold"
fi
expect_exit 0 "$REGTOOL" audit --libraries "psb:$TMPDIR/bk.ini"
expect_grep '^info    libraries-not-in-store: .*holds no provider.s Library' "$OUT"
expect_exit 1 "$REGTOOL" audit "psb:$TMPDIR/lost.ini"
expect_grep "^warning help-without-name \[009\]: .* in a provider's range without a name at the index before them" "$OUT"
expect_grep '^        3995 "Number of bytes sent' "$OUT"
expect_grep '^        fix: regtool repair --from-ini DIR' "$OUT"
if grep -q 'prune-orphans\|at index - 1' "$OUT"; then
    fail "help-without-name in a range: $(cat "$OUT")"
fi
