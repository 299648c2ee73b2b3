# The reg: store on a .reg export of Perflib and the Services keys: the
# export is made by hivexregedit (an independent writer) from a tree
# regtool initialised; regtool reads the same database from it as from
# the hive (query, and the backup, byte for byte), and install, then
# uninstall, on the .reg file and on the hive leave the same database. A
# malformed file or a patch is refused with its line, exit 2, the file
# untouched; a dry run writes nothing.
. tests/cli/lib.sh

CS="--create-service --library x.dll --open O --collect C --close X"
D=$TMPDIR/tree
C=$D/Windows/System32/config
expect_exit 0 "$REGTOOL" --store "hive:$D" init --languages 009,019 --layout registry

export_reg() {
    hivexregedit --export --prefix 'HKEY_LOCAL_MACHINE\SOFTWARE' "$C/SOFTWARE" \
        '\Microsoft\Windows NT\CurrentVersion\Perflib' >"$TMPDIR/sw.reg" || fail "hivexregedit SOFTWARE"
    hivexregedit --export --prefix 'HKEY_LOCAL_MACHINE\SYSTEM' "$C/SYSTEM" \
        '\ControlSet001\Services' >"$TMPDIR/sys.reg" || fail "hivexregedit SYSTEM"
    { cat "$TMPDIR/sw.reg"
      tail -n +2 "$TMPDIR/sys.reg" | sed 's/\\ControlSet001\\/\\CurrentControlSet\\/'
    } >"$1"
}
R=$TMPDIR/db.reg
# As reg export writes it: UTF-16LE with a BOM, CR LF.
export_reg "$TMPDIR/db8.reg"
{ printf '\377\376'; sed 's/$/\r/' "$TMPDIR/db8.reg" | iconv -f UTF-8 -t UTF-16LE; } >"$R"

# The same database through both stores: query (but the layout line) and
# the whole backup file.
same_db() {
    rm -f "$TMPDIR"/b-*.ini
    expect_exit 0 "$REGTOOL" --store "reg:$R" backup "$TMPDIR/b-reg.ini"
    expect_exit 0 "$REGTOOL" --store "hive:$D" backup "$TMPDIR/b-hive.ini"
    cmp "$TMPDIR/b-reg.ini" "$TMPDIR/b-hive.ini" || fail "$1: backups differ"
    "$REGTOOL" --store "reg:$R" query --json | sed 's/^{"layout":"[^"]*"//' >"$TMPDIR/q-reg"
    "$REGTOOL" --store "hive:$D" query --json | sed 's/^{"layout":"[^"]*"//' >"$TMPDIR/q-hive"
    cmp "$TMPDIR/q-reg" "$TMPDIR/q-hive" || fail "$1: query differs"
    for l in 009 019; do
        for h in "" --help-text; do
            "$REGTOOL" --store "reg:$R" names --lang $l $h >"$TMPDIR/n-reg"
            "$REGTOOL" --store "hive:$D" names --lang $l $h >"$TMPDIR/n-hive"
            cmp "$TMPDIR/n-reg" "$TMPDIR/n-hive" || fail "$1: names $l $h differ"
        done
    done
}
same_db "as exported"
expect_exit 0 "$REGTOOL" --store "reg:$R" query
expect_grep "a .reg file (tables as hex(7) values): $R" "$OUT"

# A dry run writes nothing.
cp "$R" "$TMPDIR/before.reg"
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "reg:$R" install --dry-run $CS ini-samples/replication.ini
cmp "$R" "$TMPDIR/before.reg" || fail "install --dry-run wrote the .reg file"

# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "reg:$R" install $CS ini-samples/replication.ini
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$D" install $CS ini-samples/replication.ini
same_db "after install"
# The file regtool wrote is still what reg export writes.
head -c 6 "$R" | od -An -tx1 | grep -q 'ff fe 57 00 69 00' || fail "the .reg file lost its BOM"
# It reads back the same as the hive written by the same install.
export_reg "$TMPDIR/hive-after.reg"
expect_exit 0 "$REGTOOL" --store "reg:$TMPDIR/hive-after.reg" backup "$TMPDIR/b-x.ini"
cmp "$TMPDIR/b-x.ini" "$TMPDIR/b-reg.ini" || fail "hivexregedit's export of the hive differs"
expect_exit 4 "$REGTOOL" --store "reg:$R" install ini-samples/replication.ini

expect_exit 0 "$REGTOOL" --store "reg:$R" uninstall ReplicationPerf
expect_exit 0 "$REGTOOL" --store "hive:$D" uninstall ReplicationPerf
same_db "after uninstall"

# Malformed: exit 2, the file and line named, nothing written.
cp "$R" "$TMPDIR/good.reg"
printf 'Windows Registry Editor Version 5.00\r\n\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE]\r\n"x"=dword:zz\r\n' >"$R"
cp "$R" "$TMPDIR/bad.reg"
# shellcheck disable=SC2086
expect_exit 2 "$REGTOOL" --store "reg:$R" install $CS ini-samples/replication.ini
expect_grep "$R:4: dword: takes 1 to 8 hex digits" "$ERR"
cmp "$R" "$TMPDIR/bad.reg" || fail "a malformed file was written"
printf 'Windows Registry Editor Version 5.00\r\n\r\n[-HKEY_LOCAL_MACHINE\\SOFTWARE\\X]\r\n' >"$R"
expect_exit 2 "$REGTOOL" --store "reg:$R" names
expect_grep "$R:3: this .reg file deletes a key, a patch" "$ERR"
expect_exit 4 "$REGTOOL" --store "reg:$TMPDIR/none.reg" names
expect_grep "cannot read $TMPDIR/none.reg" "$ERR"

# Interrupted after its new file is written and synced, before the rename
# (the store's commit point): the file as it was, no temporary left, and
# "nothing changed" (review 38 F4: the rename was made and the change
# called complete). A signal after the rename: the change complete.
cp "$TMPDIR/good.reg" "$R"
cp "$R" "$TMPDIR/before.reg"
# shellcheck disable=SC2086
REGTOOL_SIGNAL_AT_WRITE=1 REGTOOL_SIGNAL=TERM expect_exit 143 \
    "$REGTOOL_TESTING" --store "reg:$R" install $CS ini-samples/replication.ini
expect_grep "interrupted: nothing changed" "$ERR"
cmp "$R" "$TMPDIR/before.reg" || fail "an interrupt before the rename changed $R"
[ -z "$(find "$TMPDIR" -maxdepth 1 -name 'db.reg.tmp.*')" ] || fail "a temporary left beside $R"
# shellcheck disable=SC2086
REGTOOL_SIGNAL_AT_WRITE=2 REGTOOL_SIGNAL=TERM expect_exit 143 \
    "$REGTOOL_TESTING" --store "reg:$R" install $CS ini-samples/replication.ini
expect_grep "interrupted after the commit point: the change is complete" "$ERR"
! cmp -s "$R" "$TMPDIR/before.reg" || fail "the change interrupted after its rename is not in $R"
