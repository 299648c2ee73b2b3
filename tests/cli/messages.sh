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

# A store that is not there says which hive is missing: by its role in
# hive:SOFTWARE,SYSTEM, and in a tree that holds only one of them.
C=$D/Windows/System32/config
expect_exit 4 "$REGTOOL" --store "hive:$TMPDIR/nonexist,$C/SYSTEM" query
expect_grep "^regtool: $TMPDIR/nonexist,$C/SYSTEM: the SOFTWARE hive $TMPDIR/nonexist does not exist (hive:SOFTWARE,SYSTEM names SOFTWARE first)$" "$ERR"
expect_exit 4 "$REGTOOL" --store "hive:$C/SOFTWARE,$TMPDIR/nonexist" query
expect_grep ": the SYSTEM hive $TMPDIR/nonexist does not exist" "$ERR"
mkdir -p "$TMPDIR/half/Windows/System32/config"
cp "$C/SYSTEM" "$TMPDIR/half/Windows/System32/config/"
expect_exit 4 "$REGTOOL" --store "hive:$TMPDIR/half" query
expect_grep "no SOFTWARE and SYSTEM hives found .*: SYSTEM is in Windows/System32/config but SOFTWARE is missing there$" "$ERR"

# A dirty SOFTWARE replayed from its log by a writer: one line names the
# log replayed and the copies of the files as they were, which exist.
MKDIRTY=$TMPDIR/mkdirty
cc -Ilib -o "$MKDIRTY" tests/cli/mkdirty.c lib/regf/marvin32.c \
    lib/regf/base_block.c || fail "cannot build mkdirty"
DZ=$TMPDIR/dirty
expect_exit 0 "$REGTOOL" --store "hive:$DZ" init --languages 009 --layout registry
"$MKDIRTY" "$DZ/Windows/System32/config/SOFTWARE" || fail "mkdirty"
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$DZ" install $CS ini-samples/transfer.ini
expect_grep "^regtool: $DZ/Windows/System32/config/SOFTWARE was dirty: its transaction logs (SOFTWARE.LOG1) were replayed into it for this change; the files as they were are kept beside it as SOFTWARE.regtool-[0-9T]*, SOFTWARE.LOG1.regtool-[0-9T]*$" "$ERR"
for f in $(sed -n 's/.*kept beside it as //p' "$ERR" | tr -d ,); do
    [ -s "$DZ/Windows/System32/config/$f" ] || fail "$f is named but not there"
done

# lodctr and unlodctr take no --replace or --force (lodctr's syntax has
# none): their refusals name the regtool command that does it, in full.
mkdir -p "$TMPDIR/bin"
ln -s "$REGTOOL" "$TMPDIR/bin/lodctr"
ln -s "$REGTOOL" "$TMPDIR/bin/unlodctr"
L=$TMPDIR/bin/lodctr
U=$TMPDIR/bin/unlodctr
export REGTOOL_STORE="hive:$D"
expect_exit 183 "$L" ini-samples/transfer.ini
expect_grep "^lodctr: 'TransferPerf' is already installed .*'regtool install --replace' upgrades it in place, or uninstall it first ('regtool uninstall', unlodctr)$" "$ERR"
if grep -q 'use --replace' "$ERR"; then fail "lodctr suggests an option it lacks"; fi
expect_exit 87 "$L" --replace ini-samples/transfer.ini
# The refused writer's lock file stays, empty: removing it is unsafe
# (docs/reference.md, "One writer at a time").
[ -f "$C/regtool.lock" ] && [ ! -s "$C/regtool.lock" ] ||
    fail "the lock file after a refused writer: $(ls -l "$C/regtool.lock" 2>&1)"
expect_exit 0 "$REGTOOL" $S backup --format reg "$TMPDIR/store16.reg"
# Restored over a copy that lost a provider: the changes are written
# (and the line says nothing of "nothing to write").
cp -a "$D" "$TMPDIR/rs"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/rs" uninstall TransferPerf
# diff names the one provider whose range holds the pairs that differ.
expect_exit 1 "$REGTOOL" diff "hive:$D" "hive:$TMPDIR/rs"
expect_grep "^  pairs differ in the ranges of: TransferPerf ([0-9]*)$" "$OUT"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/rs" restore "$TMPDIR/store16.reg"
expect_grep "^regtool: restored from $TMPDIR/store16.reg (.reg): [1-9][0-9]* changes$" "$OUT"
# A backup whose file and its 999 numbered names all exist is refused
# as a conflict (exit 4) that says so.
mkdir "$TMPDIR/full"
: >"$TMPDIR/full/s.ini"
i=1
while [ $i -le 999 ]; do : >"$TMPDIR/full/s.ini_$(printf %03d $i)"; i=$((i + 1)); done
expect_exit 4 "$REGTOOL" $S backup "$TMPDIR/full/s.ini"
expect_grep "^regtool: $TMPDIR/full/s.ini and $TMPDIR/full/s.ini_001 to $TMPDIR/full/s.ini_999 all exist; nothing was saved (--force overwrites FILE)$" "$ERR"
# Ctrl-C at a backup's first write (the test build's hook): the backup
# stops between two parts, says nothing was saved, exits 130 and leaves
# neither FILE nor its temporary file.
REGTOOL_SIGNAL_AT_WRITE=1 "$REGTOOL_TESTING" $S backup "$TMPDIR/int.ini" >"$OUT" 2>"$ERR"
rc=$?
[ $rc -eq 130 ] || { cat "$ERR"; fail "backup, SIGINT at its first write: exit $rc, want 130"; }
expect_grep "^regtool: interrupted: nothing was saved (no part of $TMPDIR/int.ini was left)$" "$ERR"
for f in "$TMPDIR"/int.ini*; do
    [ ! -e "$f" ] || fail "backup interrupted at its first write left $f"
done
iconv -f UTF-16 -t UTF-8 "$TMPDIR/store16.reg" >"$TMPDIR/store.reg" || fail "iconv"
{ printf '\r\n[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services\\Xfer]\r\n'
  printf '\r\n[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services\\Xfer\\Performance]\r\n'
  printf '"Library"="x.dll"\r\n"Open"="O"\r\n"Collect"="C"\r\n"Close"="X"\r\n'
  printf '"First Counter"=dword:00000002\r\n"First Help"=dword:00000003\r\n'
  printf '"Last Counter"=dword:00000004\r\n"Last Help"=dword:00000005\r\n'
} >>"$TMPDIR/store.reg"
expect_exit 13 env REGTOOL_STORE="reg:$TMPDIR/store.reg" "$U" Xfer
expect_grep "^unlodctr: refusing to uninstall 'Xfer': .*nothing was written ('regtool uninstall --force' removes the range anyway)$" "$ERR"
expect_exit 87 env REGTOOL_STORE="reg:$TMPDIR/store.reg" "$U" --force Xfer

# Exit statuses on POSIX are 8 bits: a Win32 code above 255 is named in a
# line and exits as docs/reference.md's table says (1009, a damaged database: 241,
# as a POSIX parent sees lodctr.exe's 1009 under Wine); a damaged SYSTEM
# hive is not "not found".
cp -a "$D" "$TMPDIR/bad"
printf 'XXXX' | dd of="$TMPDIR/bad/Windows/System32/config/SYSTEM" bs=1 seek=4096 \
    conv=notrunc 2>/dev/null || fail "dd"
tree_state "$TMPDIR/bad" >"$TMPDIR/bad.state"
for a in ini-samples/transfer.ini /Q /E:PerfOS /R; do
    expect_exit 241 env REGTOOL_STORE="hive:$TMPDIR/bad" "$L" $a
    expect_grep "SYSTEM: file offset 0x1000: hive bin signature" "$ERR"
    expect_grep "^lodctr: Win32 error 1009 (ERROR_BADDB: the name database is damaged); exit status 241" "$ERR"
done
expect_exit 241 env REGTOOL_STORE="hive:$TMPDIR/bad" "$U" TransferPerf
expect_grep "^unlodctr: Win32 error 1009 " "$ERR"
# lodctr /S of that store: the same code, and no file.
expect_exit 241 env REGTOOL_STORE="hive:$TMPDIR/bad" "$L" "/S:$TMPDIR/bad-save.ini"
expect_grep "^lodctr: Win32 error 1009 (ERROR_BADDB: the name database is damaged); exit status 241" "$ERR"
[ -z "$(ls "$TMPDIR" | grep '^bad-save')" ] || fail "lodctr /S of a damaged store left $(ls "$TMPDIR" | grep '^bad-save')"
expect_same_tree "$TMPDIR/bad" "$TMPDIR/bad.state"

# A Windows path means nothing on Linux: /S:C:\... is refused with
# ERROR_PATH_NOT_FOUND instead of creating a file of that name here.
mkdir "$TMPDIR/cwd"
tree_state "$TMPDIR/cwd" >"$TMPDIR/cwd.state"
(cd "$TMPDIR/cwd" && "$L" '/S:C:\Windows\Temp\x.ini' >"$OUT" 2>"$ERR"; echo $? >"$TMPDIR/rc")
[ "$(cat "$TMPDIR/rc")" -eq 3 ] || fail "lodctr /S:C:\\... exited $(cat "$TMPDIR/rc"), want 3"
expect_grep '^lodctr: /S:C:\\Windows\\Temp\\x.ini: a Windows path, which names no file on this system' "$ERR"
expect_same_tree "$TMPDIR/cwd" "$TMPDIR/cwd.state"
expect_exit 3 "$L" '/R:Temp\x.ini'
expect_exit 0 "$L" "/S:$TMPDIR/cwd/x.ini"
[ -s "$TMPDIR/cwd/x.ini" ] || fail "lodctr /S:/path saved nothing"

# A read-only mount: every writer of lodctr exits 5 (ERROR_ACCESS_DENIED,
# which the message explains), none 29 or 2. Mounts need root (make
# mutation-score, run as root, runs this script as nobody).
if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: the read-only and full mounts need root"
    exit 0
fi
MNT=$TMPDIR/ro
mkdir -p "$MNT"
cleanup() { umount "$MNT" 2>/dev/null; }
trap cleanup EXIT
mount -t tmpfs -o size=8m tmpfs "$MNT" || fail "cannot mount a tmpfs"
expect_exit 0 "$REGTOOL" --store "hive:$MNT/w" init --languages 009 --layout registry
rm -f "$MNT/w/Windows/System32/config/regtool.lock"
mount -o remount,ro "$MNT" || fail "cannot remount read-only"
for a in ini-samples/transfer.ini /E:PerfOS /D:PerfOS /R "/R:$TMPDIR/cwd/x.ini"; do
    expect_exit 5 env REGTOOL_STORE="hive:$MNT/w" "$L" "$a"
    expect_grep 'read-only file system' "$ERR"
done
expect_exit 5 env REGTOOL_STORE="hive:$MNT/w" "$U" PerfOS
# lodctr /S to a read-only file system: 5 too, nothing saved; to a full
# one: 112 (ERROR_DISK_FULL), nothing left under the name or beside it.
expect_exit 5 env REGTOOL_STORE="hive:$D" "$L" "/S:$MNT/save.ini"
expect_grep "^lodctr: cannot write $MNT/save.ini: Read-only file system; nothing was saved" "$ERR"
umount "$MNT"
mount -t tmpfs -o size=64k tmpfs "$MNT" || fail "cannot mount a tmpfs"
expect_exit 112 env REGTOOL_STORE="hive:$D" "$L" "/S:$MNT/save.ini"
expect_grep "^lodctr: cannot write $MNT/save.ini: No space left on device; nothing was saved" "$ERR"
[ -z "$(ls -A "$MNT")" ] || fail "lodctr /S on a full disk left $(ls -A "$MNT")"
expect_exit 3 "$REGTOOL" $S backup "$MNT/save.ini"
[ -z "$(ls -A "$MNT")" ] || fail "backup on a full disk left $(ls -A "$MNT")"
# An install whose journal does not fit in what its growth leaves free:
# exit 3, and the message asks for enough: once the bytes it names are
# freed, the same install goes through (1500 counters: the hive and
# PerfStringBackup.INI grow by some 700 KB, the journal takes 2 MB).
umount "$MNT"
mount -t tmpfs -o size=8m tmpfs "$MNT" || fail "cannot mount a tmpfs"
awk 'BEGIN { printf "[info]\ndrivername=Bulk\nsymbolfile=bulk.h\n[languages]\n009=English\n[text]\n"
             for (i = 0; i < 1500; i++)
                 printf "C%d_009_NAME=Bulk counter %d\nC%d_009_HELP=Help text of the bulk counter number %d, long enough to take some room in the table.\n", i, i, i, i }' >"$TMPDIR/bulk.ini"
awk 'BEGIN { for (i = 0; i < 1500; i++) printf "#define C%d %d\n", i, 2 * i }' >"$TMPDIR/bulk.h"
expect_exit 0 "$REGTOOL" --store "hive:$MNT/b" init --languages 009 --layout registry
fill=$(df -Pk "$MNT" | awk 'NR == 2 { print $4 * 1024 - 1000000 }')
head -c "$fill" /dev/zero >"$MNT/fill"
# shellcheck disable=SC2086
expect_exit 3 "$REGTOOL" --store "hive:$MNT/b" install $CS "$TMPDIR/bulk.ini"
expect_grep "^regtool: install .*: $MNT/b/Windows/System32/config/regtool.journal: No space left on device; nothing was written: free [0-9]* bytes on the file system of " "$ERR"
need=$(sed -n 's/.*regtool\.journal: No space left on device; nothing was written: free \([0-9]*\) bytes.*/\1/p' "$ERR")
[ "$need" -lt "$fill" ] || fail "the journal's message asks to free $need bytes, more than the $fill the filler holds"
head -c $((fill - need)) /dev/zero >"$MNT/fill"
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$MNT/b" install $CS "$TMPDIR/bulk.ini"
