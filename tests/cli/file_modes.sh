# The permission bits of what regtool writes: a new file gets what the
# umask leaves (never a hostile tree file's 0666 copied as it is: hive
# recover's output under umask 077 is 0600, under 022 0644), a file
# replaced keeps its own owner's and group's (a 0600 backup rewritten by
# backup --force, a 0600 .reg file rewritten by perfstats remove, a 0660
# .reg store a team shares, a 0640 textfile a monitoring group reads),
# and its owner and group (when root writes it), while what others may
# do is as the umask leaves it, never a set-user-ID or set-group-ID bit
# (a .reg store of 4666 rewritten by install: 0664).
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
expect_mode 664 "$TMPDIR/s.reg"

# A group's file, replaced by root: still the group's, with its bits.
if [ "$(id -u)" = 0 ] && getent passwd nobody >/dev/null && getent group nogroup >/dev/null; then
    owner() { stat -c '%U:%G %a' "$1"; }
    chown nobody:nogroup "$TMPDIR/s.reg"
    chmod 0660 "$TMPDIR/s.reg"
    expect_exit 0 "$REGTOOL" --store "reg:$TMPDIR/s.reg" disable TransferPerf
    [ "$(owner "$TMPDIR/s.reg")" = "nobody:nogroup 660" ] ||
        fail "a reg: store of nobody:nogroup 660 is now $(owner "$TMPDIR/s.reg")"
    : >"$TMPDIR/m.prom"
    chown nobody:nogroup "$TMPDIR/m.prom"
    chmod 0640 "$TMPDIR/m.prom"
    expect_exit 0 "$REGTOOL" --store "hive:$D" audit --textfile "$TMPDIR/m.prom"
    [ "$(owner "$TMPDIR/m.prom")" = "nobody:nogroup 640" ] ||
        fail "a textfile of nobody:nogroup 640 is now $(owner "$TMPDIR/m.prom")"
    [ -s "$TMPDIR/m.prom" ] || fail "audit --textfile wrote nothing"
fi

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
