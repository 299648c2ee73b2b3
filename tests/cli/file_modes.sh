# The permission bits of what regtool writes: a new file gets what the
# umask leaves (never a hostile tree file's 0666 copied as it is: hive
# recover's output under umask 077 is 0600, under 022 0644), a file
# replaced keeps its own (a 0600 backup rewritten by backup --force, a
# 0600 .reg file rewritten by perfstats remove), and never a set-user-ID
# or set-group-ID bit (a .reg store of 4666 rewritten by install: 0644).
# The journal of a commit, which holds pieces of the hives, is readable
# by no one the hives are not readable by (0600 hives: a 0600 journal,
# seen where a simulated power cut leaves it).
. tests/cli/lib.sh

mode() { stat -c %a "$1"; }
expect_mode() {
    [ "$(mode "$2")" = "$1" ] || fail "$2: mode $(mode "$2"), want $1"
}

D=$TMPDIR/win
C=$D/Windows/System32/config
expect_exit 0 "$REGTOOL" --store "hive:$D" init --languages 009
chmod 0666 "$C/SOFTWARE"
for m in 077:600 022:644; do
    rm -f "$TMPDIR/recovered"
    # (exit 1: a clean hive, copied as it is)
    (umask "${m%%:*}" && exec "$REGTOOL" hive recover "$C/SOFTWARE" -o "$TMPDIR/recovered") \
        >"$OUT" 2>"$ERR"
    rc=$?
    [ $rc -le 1 ] || { cat "$ERR" >&2; fail "hive recover exited $rc"; }
    expect_mode "${m#*:}" "$TMPDIR/recovered"
done
chmod 0644 "$C/SOFTWARE"

umask 022
: >"$TMPDIR/bk.ini"
chmod 0600 "$TMPDIR/bk.ini"
expect_exit 0 "$REGTOOL" --store "hive:$D" backup --force "$TMPDIR/bk.ini"
expect_mode 600 "$TMPDIR/bk.ini"
[ -s "$TMPDIR/bk.ini" ] || fail "backup --force wrote nothing"

cp ini-samples/win95/perfstats.reg "$TMPDIR/ps.reg"
chmod 0600 "$TMPDIR/ps.reg"
expect_exit 0 "$REGTOOL" perfstats remove KERNEL "$TMPDIR/ps.reg"
expect_mode 600 "$TMPDIR/ps.reg"

expect_exit 0 "$REGTOOL" --store "hive:$D" backup --format reg "$TMPDIR/s.reg"
chmod 4666 "$TMPDIR/s.reg"
expect_exit 0 "$REGTOOL" --store "reg:$TMPDIR/s.reg" install --create-service \
    --library x.dll --open O --collect C --close X ini-samples/transfer.ini
expect_mode 644 "$TMPDIR/s.reg"

# The journal: left by a power cut simulated after its first write.
if [ -x "$REGTOOL_TESTING" ]; then
    chmod 0600 "$C/SOFTWARE" "$C/SYSTEM" "$D"/Windows/System32/*.dat \
        "$D/Windows/System32/PerfStringBackup.INI"
    REGTOOL_FAULT_AFTER_WRITES=1 "$REGTOOL_TESTING" --store "hive:$D" \
        install --create-service --library x.dll --open O --collect C \
        --close X ini-samples/transfer.ini >"$OUT" 2>"$ERR"
    [ -f "$C/regtool.journal" ] || fail "no journal left by the power cut"
    expect_mode 600 "$C/regtool.journal"
fi
echo "file modes: as the umask and the files replaced say, never set-user-ID"
