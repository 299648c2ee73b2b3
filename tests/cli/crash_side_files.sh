# A crash at any point of a commit that writes or removes side files (the
# INF copy, PerfStringBackup.INI) leaves, after the next writer, exactly
# the state before or the state after: every file and folder, the side
# files and .dat tables byte for byte, both hives' content as reglookup
# reads it. Swept (REGTOOL_FAULT_AFTER_WRITES=k) over an install (new
# folders and files under Windows/INF, PerfStringBackup.INI rewritten),
# a rebuild (every table and PerfStringBackup.INI; with .dat tables and
# with tables as hive values) and an uninstall (the INF copy removed with
# its folders). The pattern of crash_sweep.sh.
. tests/cli/lib.sh
# Simulated crashes and signals: the CLI with the test hooks.
REGTOOL=$REGTOOL_TESTING

C=Windows/System32/config
CS="--create-service --library x.dll --open O --collect C --close X"

# files DIR: every file and folder, each file's hash, but the hives
# (their key times differ between runs: compared by content) and the
# lock (its holder's note).
files() {
    tree_state "$1" | grep -v -e ' \./Windows/System32/config/regtool\.lock$' \
        -e ' \./Windows/System32/config/SOFTWARE$' \
        -e ' \./Windows/System32/config/SYSTEM$'
}
# state DIR: files and the hives' content.
state() {
    files "$1"
    for h in SOFTWARE SYSTEM; do
        if [ -n "${BIG_VALUES:-}" ]; then
            # reglookup stops at 1 MB of data (it truncates and warns):
            # tables as values are read whole by hivexregedit.
            hivexregedit --export "$1/$C/$h" '\' 2>"$TMPDIR/rl.err" ||
                fail "hivexregedit cannot read $1/$C/$h: $(cat "$TMPDIR/rl.err")"
            continue
        fi
        reglookup -H "$1/$C/$h" 2>"$TMPDIR/rl.err" | sed 's/,[^,]*$//' ||
            fail "reglookup cannot read $1/$C/$h"
        [ ! -s "$TMPDIR/rl.err" ] || fail "reglookup warned on $h: $(cat "$TMPDIR/rl.err")"
    done
}

run_op() {
    _d=$1
    shift
    case $OP in
    install) env "$@" $REGTOOL --verbose --store "hive:$_d" install $CS ini-samples/replication.ini ;;
    uninstall) env "$@" $REGTOOL --verbose --store "hive:$_d" uninstall ReplicationPerf ;;
    rebuild) env "$@" $REGTOOL --verbose --store "hive:$_d" rebuild ;;
    esac
}

points() {
    awk -v n="$1" 'BEGIN { step = int(n / 8); if (step < 1) step = 1
        for (k = 1; k <= n; k++)
            if (n <= 12 || k <= 3 || k > n - 3 || k % step == 0) print k }'
}

# sweep OP FROM: OP crashed at each point on a copy of FROM, recovered
# by the next writer, judged; the state after OP is left in $TMPDIR/full.
sweep() {
    OP=$1 FROM=$2
    state "$FROM" >"$TMPDIR/before"
    rm -rf "$TMPDIR/full"
    cp -a "$FROM" "$TMPDIR/full"
    run_op "$TMPDIR/full" >"$OUT" 2>"$ERR" || fail "$OP failed: $(cat "$ERR")"
    writes=$(sed -n 's/.* in \([0-9]*\) writes.*/\1/p' "$ERR")
    [ -n "$writes" ] && [ "$writes" -ge 4 ] || fail "$OP: no write count in: $(cat "$ERR")"
    state "$TMPDIR/full" >"$TMPDIR/after"
    cmp -s "$TMPDIR/before" "$TMPDIR/after" && fail "$OP changed nothing"
    old=0 new=0
    for k in $(points "$writes"); do
        W=$TMPDIR/w
        rm -rf "$W"
        cp -a "$FROM" "$W"
        run_op "$W" REGTOOL_FAULT_AFTER_WRITES="$k" >/dev/null 2>"$TMPDIR/crash.err"
        rc=$?
        [ "$rc" -eq 99 ] || fail "$OP k=$k: expected the crash, got exit $rc: $(cat "$TMPDIR/crash.err")"
        expect_exit 4 $REGTOOL --store "hive:$W" disable NoSuchProvider
        [ ! -e "$W/$C/regtool.journal" ] || fail "$OP k=$k: journal left behind"
        state "$W" >"$TMPDIR/w.state"
        if cmp -s "$TMPDIR/w.state" "$TMPDIR/before"; then
            old=$((old + 1))
        elif cmp -s "$TMPDIR/w.state" "$TMPDIR/after"; then
            new=$((new + 1))
        else
            diff "$TMPDIR/before" "$TMPDIR/w.state" | head -10 >&2
            echo "--- against after:" >&2
            diff "$TMPDIR/after" "$TMPDIR/w.state" | head -10 >&2
            fail "$OP k=$k: a state that is neither before nor after"
        fi
    done
    echo "crash sweep ($OP): $writes writes, $old rolled back, $new rolled forward"
    [ "$old" -gt 0 ] && [ "$new" -gt 0 ] || fail "$OP: the sweep did not see both outcomes"
}

T=$TMPDIR/tree
expect_exit 0 $REGTOOL --store "hive:$T" init --languages 009
sweep install "$T"
grep -q './Windows/INF/ReplicationPerf/0009/replication.ini$' "$TMPDIR/after" ||
    fail "the install made no INF copy"
INSTALLED=$TMPDIR/installed
mv "$TMPDIR/full" "$INSTALLED"

# Every table emptied: the rebuild rewrites all of them.
E=$TMPDIR/emptied
cp -a "$INSTALLED" "$E"
for f in "$E"/Windows/System32/perf[ch]*.dat "$E"/Windows/SysWOW64/perf[ch]*.dat; do : >"$f"; done
sweep rebuild "$E"
for f in "$INSTALLED"/Windows/System32/*.dat "$INSTALLED"/Windows/SysWOW64/*.dat; do
    cmp -s "$f" "$TMPDIR/full/${f#"$INSTALLED"/}" || fail "rebuild did not give back $f"
done

sweep uninstall "$INSTALLED"
grep -q 'INF/ReplicationPerf' "$TMPDIR/after" && fail "the uninstall left the INF copy"

# The registry layout (tables as big-data values in SOFTWARE): a provider
# whose Performance key is gone leaves its strings owned by no one, which
# the rebuild drops, rewriting every table and PerfStringBackup.INI.
R=$TMPDIR/registry
expect_exit 0 $REGTOOL --store "hive:$R" init --languages 009,019 --layout registry
# shellcheck disable=SC2086
expect_exit 0 $REGTOOL --store "hive:$R" install $CS ini-samples/replication.ini
printf 'cd \\ControlSet001\\Services\\ReplicationPerf\\Performance\ndel\ncommit\n' |
    hivexsh -w "$R/$C/SYSTEM" >/dev/null 2>&1 || fail "hivexsh could not remove the Performance key"
BIG_VALUES=1 sweep rebuild "$R"
echo "crash sweep of side files: ok"
