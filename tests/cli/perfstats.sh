# perfstats over Windows 95 REGEDIT4 exports (ini-samples/win95/, code
# page 1252 with a byte outside ASCII): list in text and JSON, the audit's
# findings with their lines and exit codes, remove with its [-KEY] patch
# (the file written is the sample without the server, byte for byte),
# and refusals that write nothing.
. tests/cli/lib.sh

S=ini-samples/win95/perfstats.reg
B=ini-samples/win95/perfstats-damaged.reg

expect_exit 0 "$REGTOOL" perfstats list "$S"
expect_grep "^VFAT  File System  (VxD VFAT)" "$OUT"
expect_grep "  BReadsSec            rate   Bytes read/second" "$OUT"
expect_grep "busy … high values" "$OUT"
expect_exit 0 "$REGTOOL" perfstats list --json "$S"
[ "$(jq -r '[.servers[].stats[]] | length' "$OUT")" = 7 ] || fail "not 7 statistics"
[ "$(jq -r '.servers[1].stats[0].kind' "$OUT")" = rate ] || fail "BReadsSec is not a rate"
[ "$(jq -r '.servers[0].stats[1].kind' "$OUT")" = count ] || fail "Threads is not a count"

expect_exit 0 "$REGTOOL" perfstats audit "$S"
expect_grep "3 servers, 0 errors, 0 warnings" "$OUT"
expect_exit 2 "$REGTOOL" perfstats audit "$B"
expect_grep "$B:50: error: statistic KERNEL\\\\Threads is exported again (first at line 12)" "$OUT"
expect_grep "$B:55: error: statistic VMM\\\\cLockedPages has no Name" "$OUT"
expect_grep "$B:64: warning: stat server MSNP32 (Microsoft Network Client) has no statistics" "$OUT"
expect_exit 2 "$REGTOOL" perfstats audit --json "$B"
[ "$(jq -r '[.findings[].id] | join(" ")' "$OUT")" = \
  "stat-duplicate stat-no-name stat-bad-differentiate server-no-stats" ] || fail "audit ids: $(cat "$OUT")"
[ "$(jq -r '.summary.errors' "$OUT")" = 2 ] || fail "not 2 errors"
[ "$(jq -r '.summary.warnings' "$OUT")" = 2 ] || fail "not 2 warnings"
expect_exit 2 "$REGTOOL" perfstats audit "$B"
expect_grep "^4 servers, 2 errors, 2 warnings$" "$OUT"
# Warnings alone: counted as warnings, not errors (exit 1).
printf 'REGEDIT4\r\n\r\n[HKEY_LOCAL_MACHINE\\System\\CurrentControlSet\\Control\\PerfStats\\Enum\\MSNP32]\r\n"Name"="Microsoft Network Client"\r\n\r\n' >"$TMPDIR/warn.reg"
expect_exit 1 "$REGTOOL" perfstats audit "$TMPDIR/warn.reg"
expect_grep "^1 servers, 0 errors, 1 warnings$" "$OUT"

# remove: the sample without VFAT's three keys, byte for byte.
cp "$S" "$TMPDIR/w.reg"
expect_exit 0 "$REGTOOL" perfstats remove --emit-reg "$TMPDIR/p.reg" VFAT "$TMPDIR/w.reg"
expect_grep "removed stat server VFAT" "$OUT"
awk 'BEGIN { RS = "\r\n\r\n"; ORS = "\r\n\r\n" } !/PerfStats\\Enum\\VFAT[]\\]/' "$S" >"$TMPDIR/want.reg"
cmp "$TMPDIR/w.reg" "$TMPDIR/want.reg" || fail "remove wrote something else than the sample without VFAT"
printf 'REGEDIT4\r\n\r\n[-HKEY_LOCAL_MACHINE\\System\\CurrentControlSet\\Control\\PerfStats\\Enum\\VFAT]\r\n\r\n' >"$TMPDIR/want-p.reg"
cmp "$TMPDIR/p.reg" "$TMPDIR/want-p.reg" || fail "the patch is not [-...\\Enum\\VFAT]"
expect_exit 0 "$REGTOOL" perfstats list "$TMPDIR/w.reg"
grep -q VFAT "$OUT" && fail "VFAT still listed"

# Refusals: no such server (exit 4), a malformed file (exit 2, its line);
# nothing written either time.
cp "$TMPDIR/w.reg" "$TMPDIR/w.before"
# The patch named as the file itself (in another letter case): one write
# would replace the other, so neither is made (review 41), exit 64.
expect_exit 64 "$REGTOOL" perfstats remove --emit-reg "$TMPDIR/W.REG" MSNP32 "$TMPDIR/w.reg"
expect_grep "name one file" "$ERR"
cmp "$TMPDIR/w.reg" "$TMPDIR/w.before" || fail "remove with the file as its patch wrote the file"
# FILE.lock taken as a reg: store's writer takes it (review 42 R42-9):
# one that is a link is refused, nothing written.
rm -f "$TMPDIR/w.reg.lock"
ln -s "$TMPDIR/elsewhere" "$TMPDIR/w.reg.lock"
expect_exit 3 "$REGTOOL" perfstats remove KERNEL "$TMPDIR/w.reg"
expect_grep "w.reg.lock" "$ERR"
expect_grep "nothing was written" "$ERR"
[ "$(grep -c "nothing was written.*nothing was written" "$ERR")" = 0 ] ||
    fail "said twice: $(cat "$ERR")"
cmp "$TMPDIR/w.reg" "$TMPDIR/w.before" || fail "remove beside a link as its lock wrote the file"
[ -e "$TMPDIR/elsewhere" ] && fail "remove followed the link planted as its lock"
rm "$TMPDIR/w.reg.lock"
# Nor may the patch be that lock, which the removal holds while it
# writes (review 44 R44-3: the patch replaced it, a second writer got in).
expect_exit 64 "$REGTOOL" perfstats remove --emit-reg "$TMPDIR/W.reg.LOCK" MSNP32 "$TMPDIR/w.reg"
expect_grep "names the lock" "$ERR"
cmp "$TMPDIR/w.reg" "$TMPDIR/w.before" || fail "remove with its lock as its patch wrote the file"
[ ! -e "$TMPDIR/W.reg.LOCK" ] || fail "the patch was written as the lock"
expect_exit 4 "$REGTOOL" perfstats remove VFAT "$TMPDIR/w.reg"
expect_grep "has no stat server VFAT: nothing was written" "$ERR"
cmp "$TMPDIR/w.reg" "$TMPDIR/w.before" || fail "a refused remove wrote the file"
printf 'REGEDIT4\r\n\r\n[HKEY_LOCAL_MACHINE\\System]\r\n"x"=hex:0g\r\n' >"$TMPDIR/bad.reg"
cp "$TMPDIR/bad.reg" "$TMPDIR/bad.before"
expect_exit 2 "$REGTOOL" perfstats remove KERNEL "$TMPDIR/bad.reg"
expect_grep "$TMPDIR/bad.reg:4: bad hex byte '0g'" "$ERR"
cmp "$TMPDIR/bad.reg" "$TMPDIR/bad.before" || fail "a malformed file was written"
expect_exit 64 "$REGTOOL" perfstats frobnicate "$S"

# A .reg file over the 256 MiB cap (a sparse file: it read the whole of
# it, 4.2 GB of memory for 2 GB, before refusing it) is refused by its
# size, nothing read; a link as the file (an export kept on a disk someone
# else wrote) is refused naming it.
truncate -s 300M "$TMPDIR/huge.reg"
expect_exit 2 timeout 20 "$REGTOOL" perfstats list "$TMPDIR/huge.reg"
expect_grep "huge.reg: larger than the 256 MiB a .reg file may be; nothing was read" "$ERR"
rm -f "$TMPDIR/huge.reg"
ln -s "$PWD/$S" "$TMPDIR/linked.reg"
expect_exit 3 "$REGTOOL" perfstats list "$TMPDIR/linked.reg"
expect_grep "linked.reg is a symbolic link" "$ERR"
echo "perfstats: a .reg file over the cap refused by its size, a link as the file refused"
