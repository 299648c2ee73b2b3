# Language subkeys of four hex digits (0404, 0804: real Chinese systems
# carry them, docs/design.md, "The name database") are languages like 404
# and 804: init makes them, names and query list them, an INI's 404 text
# serves a 0404 subkey, and uninstall gives every table back byte for byte.
# A Perflib subkey that is no language (_V2Providers) is left alone, as an
# independent reader sees.
. tests/cli/lib.sh

D=$TMPDIR/win
S="--store hive:$D"
SW=$D/Windows/System32/config/SOFTWARE
CS="--create-service --library x.dll --open O --collect C --close X"
expect_exit 0 "$REGTOOL" $S init --languages 009,0404,0804 --layout registry
expect_exit 0 "$REGTOOL" $S query --json
expect_grep '"languages":\["009","0404","0804"' "$OUT"
expect_exit 64 "$REGTOOL" --store "hive:$TMPDIR/x" init --languages 009,00804
expect_grep "language '00804' is not three or four hex digits" "$ERR"

# _V2Providers with a value, as Windows 10 has it (manifest providers).
printf '%s\n' 'cd \Microsoft\Windows NT\CurrentVersion\Perflib' 'add _V2Providers' \
    'cd _V2Providers' 'setval 1' 'Kept' 'string:manifest' 'commit' |
    hivexsh -w "$SW" || fail "hivexsh could not add _V2Providers"
v2() { hivexsh "$SW" <<'H'
cd \Microsoft\Windows NT\CurrentVersion\Perflib\_V2Providers
lsval
H
}
[ "$(v2)" = '"Kept"="manifest"' ] || fail "_V2Providers before: $(v2)"
expect_exit 0 "$REGTOOL" $S query --json
grep -q '_V2Providers' "$OUT" && fail "_V2Providers listed as a language"

tables() { "$REGTOOL" $S names --lang "$1" --json; "$REGTOOL" $S names --lang "$1" --help-text --json; }
for l in 009 0404 0804; do tables $l >"$TMPDIR/before.$l"; done

# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" $S install $CS ini-samples/replication.ini
expect_grep "^  0404 .* text from 404$" "$OUT"
expect_grep "^  0804 .* text from 009$" "$OUT"
first=$("$REGTOOL" $S query --json ReplicationPerf | sed -n 's/.*"first_counter":\([0-9]*\).*/\1/p')
[ -n "$first" ] || fail "no first counter"
expect_exit 0 "$REGTOOL" $S names --lang 0404 "$first"
expect_grep "^$first	複寫$" "$OUT"
expect_exit 0 "$REGTOOL" $S names --lang 404 "$first"
expect_grep "^$first	複寫$" "$OUT"
expect_exit 0 "$REGTOOL" $S names --lang 804 "$first"
expect_grep "^$first	Replication$" "$OUT"
# An independent reader finds the Chinese text under the 0404 key.
hivexget "$SW" '\Microsoft\Windows NT\CurrentVersion\Perflib\0404' Counter \
    >"$TMPDIR/hx" 2>&1 || fail "hivexget failed: $(cat "$TMPDIR/hx")"
grep -A1 -x "$first" "$TMPDIR/hx" | grep -qx '複寫' ||
    fail "hivexget does not see 0404's new text"

expect_exit 0 "$REGTOOL" $S uninstall ReplicationPerf
for l in 009 0404 0804; do
    tables $l | cmp -s - "$TMPDIR/before.$l" || fail "language $l differs after uninstall"
done
[ "$(v2)" = '"Kept"="manifest"' ] || fail "_V2Providers after: $(v2)"
# The same in the .dat layout: a four-digit language's tables are
# perfc0404.dat and perfh0404.dat, files the store's commits write (a
# name of 13 characters), System32's and SysWOW64's given back byte
# for byte.
F=$TMPDIR/files
expect_exit 0 "$REGTOOL" --store "hive:$F" init --languages 009,0404 --layout files
for d in System32 SysWOW64; do
    cp "$F/Windows/$d/perfc0404.dat" "$TMPDIR/c0404.$d"
    cp "$F/Windows/$d/perfh0404.dat" "$TMPDIR/h0404.$d"
done
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$F" install $CS ini-samples/replication.ini
first=$("$REGTOOL" --store "hive:$F" query --json ReplicationPerf | sed -n 's/.*"first_counter":\([0-9]*\).*/\1/p')
[ -n "$first" ] || fail "no first counter in the .dat layout"
iconv -f UTF-16LE -t UTF-8 "$F/Windows/SysWOW64/perfc0404.dat" | tr '\0' '\n' |
    grep -A1 -x "$first" | grep -qx '複寫' || fail "SysWOW64/perfc0404.dat lacks the 404 text"
expect_exit 0 "$REGTOOL" --store "hive:$F" uninstall ReplicationPerf
for d in System32 SysWOW64; do
    cmp -s "$F/Windows/$d/perfc0404.dat" "$TMPDIR/c0404.$d" || fail "$d/perfc0404.dat differs after uninstall"
    cmp -s "$F/Windows/$d/perfh0404.dat" "$TMPDIR/h0404.$d" || fail "$d/perfh0404.dat differs after uninstall"
done
echo "four-digit languages: ok"
