#!/bin/sh
# An interrupt (SIGTERM; SIGHUP too) while a verb saves a file the user named ends it
# at once, and the file is replaced whole or not at all: its temporary
# (NAME.tmp.*) is removed, nothing else is left beside it, the file is as
# it was, and the message says so. strace delivers the signal as the
# temporary is synced, the last step before the rename (and as it is
# made, and as it is renamed): a Ctrl-C, a systemd stop of a textfile
# timer, a shutdown. The verbs that save
# without a journal: audit --textfile, hive recover -o, perfstats remove,
# a dry run's --emit-reg.
. tests/cli/lib.sh
if ! strace -f -o /dev/null true 2>/dev/null; then
    echo "not run: strace cannot trace here"
    exit 0
fi
T=$TMPDIR/t
expect_exit 0 "$REGTOOL" --store "hive:$T" init
OUTS=$TMPDIR/outs
mkdir "$OUTS"
printf 'old\n' >"$OUTS/a.prom"
printf 'REGEDIT4\n\n[HKEY_LOCAL_MACHINE\\System\\CurrentControlSet\\Control\\PerfStats\\Enum\\SRV]\n"Name"="Server"\n' \
    >"$OUTS/ps.reg"
cp "$OUTS/ps.reg" "$OUTS/ps.kept"
cp "$OUTS/a.prom" "$OUTS/a.kept"
# perfstats remove's lock, which stays beside the file as a reg: store's
# writer's does: there from the start, so that what is left is the same
# after every verb.
: >"$OUTS/ps.reg.lock"

# interrupted LABEL CMD...: CMD gets SIGTERM (SIG: another) at its first
# fsync.
interrupted() {
    label=$1
    shift
    strace -f -o /dev/null -e trace=fsync -e inject=fsync:signal="${SIG:-TERM}" \
        "$REGTOOL" "$@" >"$OUT" 2>"$ERR"
    got=$?
    case ${SIG:-TERM} in HUP) want=129 ;; *) want=143 ;; esac
    [ "$got" -eq "$want" ] || { cat "$ERR" >&2; fail "$label: exit $got, want $want"; }
    expect_grep "^regtool: interrupted: stopped at once (a file it was saving is left as it was" "$ERR"
    left=$(ls -A "$OUTS" | tr '\n' ' ')
    [ "$left" = "a.kept a.prom ps.kept ps.reg ps.reg.lock " ] ||
        fail "$label: left in the output's folder: $left"
}
interrupted "audit --textfile" --store "hive:$T" audit --textfile "$OUTS/a.prom"
cmp -s "$OUTS/a.prom" "$OUTS/a.kept" || fail "audit --textfile: the textfile changed"
interrupted "hive recover -o" hive recover "$T/Windows/System32/config/SOFTWARE" \
    -o "$OUTS/rec.hive"
interrupted "perfstats remove" perfstats remove SRV "$OUTS/ps.reg"
cmp -s "$OUTS/ps.reg" "$OUTS/ps.kept" || fail "perfstats remove: the file changed"
CS="--create-service --library x.dll --open O --collect C --close X"
# shellcheck disable=SC2086
interrupted "install --dry-run --emit-reg" --store "hive:$T" install --dry-run $CS \
    --emit-reg "$OUTS/p.reg" ini-samples/transfer.ini
# A closed terminal or ssh session (SIGHUP) under a save: the same, where
# it left the whole copy beside the output (review 33 F8); and a backup,
# which stops between its parts.
SIG=HUP interrupted "audit --textfile, SIGHUP" --store "hive:$T" audit --textfile "$OUTS/a.prom"
cmp -s "$OUTS/a.prom" "$OUTS/a.kept" || fail "audit --textfile: the textfile changed"
# (The backup ends through exit, whose leak check cannot run traced.)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    strace -f -o /dev/null -e trace=fsync -e inject=fsync:signal=HUP \
    "$REGTOOL" --store "hive:$T" backup "$TMPDIR/b.ini" >"$OUT" 2>"$ERR"
got=$?
[ "$got" -eq 129 ] || { cat "$ERR" >&2; fail "backup, SIGHUP: exit $got, want 129"; }
expect_grep "^regtool: interrupted after the backup was saved: the file is complete" "$ERR"
[ -z "$(ls "$TMPDIR" | grep '\.tmp\.')" ] || fail "backup, SIGHUP: a temporary left"
# A signal that comes as the temporary is renamed into place (the rename
# done, the process not yet past it): the file IS replaced, whole, and
# the message says so, not that it was left as it was.
for out in a.prom rec.hive; do
    case $out in
    a.prom) set -- --store "hive:$T" audit --textfile "$OUTS/a.prom" ;;
    *) set -- hive recover "$T/Windows/System32/config/SOFTWARE" -o "$OUTS/rec.hive" ;;
    esac
    strace -f -o /dev/null -e trace=rename,renameat,renameat2 \
        -e inject=rename,renameat,renameat2:signal=TERM "$REGTOOL" "$@" >"$OUT" 2>"$ERR"
    got=$?
    [ "$got" -eq 143 ] || { cat "$ERR" >&2; fail "$out at its rename: exit $got, want 143"; }
    expect_grep "^regtool: interrupted: stopped at once (a file it was saving had just been put in place, whole;" "$ERR"
    grep -q "left as it was" "$ERR" && fail "$out at its rename: said left as it was"
    [ -z "$(ls -A "$OUTS" | grep '\.tmp\.')" ] || fail "$out at its rename: a temporary left"
done
grep -q '^regtool_audit_success 1$' "$OUTS/a.prom" || fail "the textfile was not put in place whole"
expect_exit 0 "$REGTOOL" hive check "$OUTS/rec.hive"
# A signal that comes as the temporary's open returns, before anything
# else (review 41 R41-5: taken before the temporary was recorded, it
# left NAME.tmp.* beside the file): found by a traced run (the open
# whose flags say O_CREAT|O_EXCL, by its number among the opens).
for out in a.prom rec.hive; do
    case $out in
    a.prom) set -- --store "hive:$T" audit --textfile "$OUTS/a.prom" ;;
    *) set -- hive recover "$T/Windows/System32/config/SOFTWARE" -o "$OUTS/rec.hive" ;;
    esac
    rm -f "$OUTS/rec.hive"
    strace -f -o "$TMPDIR/opens" -e trace=openat,openat2 "$REGTOOL" "$@" >/dev/null 2>&1
    line=$(grep -n 'O_CREAT|O_EXCL' "$TMPDIR/opens" | head -n 1 | cut -d: -f1)
    [ -n "$line" ] || fail "$out: no O_CREAT|O_EXCL open traced"
    call=$(sed -n "${line}p" "$TMPDIR/opens" | sed 's/^[0-9]* *//; s/(.*//')
    nth=$(head -n "$line" "$TMPDIR/opens" | sed 's/^[0-9]* *//' | grep -c "^$call(")
    rm -f "$OUTS/rec.hive"
    strace -f -o /dev/null -e trace=openat,openat2 \
        -e inject="$call":signal=TERM:when="$nth" "$REGTOOL" "$@" >"$OUT" 2>"$ERR"
    got=$?
    [ "$got" -eq 143 ] || { cat "$ERR" >&2; fail "$out at its temporary's open: exit $got, want 143"; }
    [ -z "$(ls -A "$OUTS" | grep '\.tmp\.')" ] || fail "$out at its temporary's open: a temporary left"
done
# A SIGTERM as a writer prints its last line, its change made: exit 143
# and a line that says the run was interrupted as it ended, not exit 0
# as though no signal had come (the line printed stands).
# (These end through exit, whose leak check cannot run traced.)
NOLEAK=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
ASAN_OPTIONS=$NOLEAK strace -f -o /dev/null -e trace=write -e inject=write:signal=TERM \
    "$REGTOOL" --store "hive:$T" disable PerfOS >"$OUT" 2>"$ERR"
got=$?
[ "$got" -eq 143 ] || { cat "$ERR" >&2; fail "disable, SIGTERM at its last line: exit $got, want 143"; }
expect_grep "^disabled PerfOS$" "$OUT"
expect_grep "^regtool: interrupted as it ended: what it did and said above is complete$" "$ERR"
expect_exit 0 "$REGTOOL" --store "hive:$T" query PerfOS
expect_grep "disabled" "$OUT"
ln -s "$REGTOOL" "$TMPDIR/lodctr"
ASAN_OPTIONS=$NOLEAK REGTOOL_STORE="hive:$T" strace -f -o /dev/null -e trace=write \
    -e inject=write:signal=TERM "$TMPDIR/lodctr" /E:PerfOS >"$OUT" 2>"$ERR"
got=$?
[ "$got" -eq 143 ] || { cat "$ERR" >&2; fail "lodctr /E, SIGTERM at its last line: exit $got, want 143"; }
expect_grep "^lodctr: interrupted as it ended" "$ERR"
# A writer with nothing to change interrupted at the writer's lock:
# nothing changed, and it says so (review 40 R40-6: "after the commit
# point: the change is complete", with no commit).
for args in rebuild repair; do
    # shellcheck disable=SC2086
    ASAN_OPTIONS=$NOLEAK strace -f -o /dev/null -e trace=flock \
        -e inject=flock:signal=TERM:when=2 "$REGTOOL" --store "hive:$T" $args >"$OUT" 2>"$ERR"
    got=$?
    [ "$got" -eq 143 ] || { cat "$ERR" >&2; fail "$args, SIGTERM at its lock: exit $got, want 143"; }
    expect_grep "^regtool: interrupted: nothing changed$" "$ERR"
    grep -q "commit point" "$ERR" && fail "$args with nothing to change: said a commit point"
done
# unlodctr interrupted while its store opens (at the reader's lock):
# nothing changed, said as regtool's writers say it (it said "stopped at
# once", the words of a verb that takes no interrupts over).
expect_exit 0 "$REGTOOL" --store "hive:$T" install $CS ini-samples/transfer.ini
ln -s "$REGTOOL" "$TMPDIR/unlodctr"
ASAN_OPTIONS=$NOLEAK REGTOOL_STORE="hive:$T" strace -f -o /dev/null -e trace=flock \
    -e inject=flock:signal=TERM:when=1 "$TMPDIR/unlodctr" TransferPerf >"$OUT" 2>"$ERR"
got=$?
[ "$got" -eq 143 ] || { cat "$ERR" >&2; fail "unlodctr, SIGTERM at its store's lock: exit $got, want 143"; }
expect_grep "^unlodctr: interrupted: nothing changed$" "$ERR"
expect_exit 0 "$REGTOOL" --store "hive:$T" query TransferPerf
expect_grep "^    Counter       3992 \.\. 4004$" "$OUT"
echo ok
