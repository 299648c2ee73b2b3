# Ctrl-C (SIGINT) and SIGTERM during an install of the bench provider:
# before the commit point the commit rolls back and says "interrupted:
# nothing changed", after it the commit finishes and says "interrupted
# after the commit point: the change is complete"; exit 130 (143 for
# SIGTERM). The tree is then exactly the state before (every file's
# sha256) or the state after, with no journal left. The interrupts come at
# 20 points spread over the commit's writes (REGTOOL_SIGNAL_AT_WRITE, ten
# in each layout), and
# once as a real kill -INT of a running install on the 79 MB bench hives.
. tests/cli/lib.sh

MKBENCH=$(dirname "$REGTOOL")/bench/mkbench
# Simulated crashes and signals: the CLI with the test hooks.
REGTOOL=$REGTOOL_TESTING
expect_exit 0 "$MKBENCH" provider "$TMPDIR/prov" --symbols 200
INI=$TMPDIR/prov/bench.ini
install() {
    $REGTOOL --verbose --store "hive:$1" install --create-service \
        --library perfbench.dll --open Open --collect Collect --close Close "$INI"
}
# What a reader sees: both hives by content, the .dat tables by bytes.
state() {
    for h in SOFTWARE SYSTEM; do
        if [ "$layout" = registry ]; then
            hive_xml "$1/Windows/System32/config/$h"
        else
            reglookup -H "$1/Windows/System32/config/$h" | sed 's/,[^,]*$//'
        fi
    done
    [ "$layout" = registry ] || (cd "$1/Windows" && sha256sum System32/*.dat SysWOW64/*.dat)
}

# Ten points in each layout: with .dat tables nearly every write comes
# after the commit point; with tables as values the appended hive bins
# are written before it.
for layout in files registry; do
PRISTINE=$TMPDIR/pristine-$layout
expect_exit 0 $REGTOOL --store "hive:$PRISTINE" init --languages 009,019,00C --layout $layout
: >"$PRISTINE/Windows/System32/config/regtool.lock"
tree_state "$PRISTINE" >"$TMPDIR/before"
rm -rf "$TMPDIR/full"; cp -a "$PRISTINE" "$TMPDIR/full"
install "$TMPDIR/full" >"$OUT" 2>"$ERR" || fail "install failed: $(cat "$ERR")"
writes=$(sed -n 's/.* in \([0-9]*\) writes.*/\1/p' "$ERR")
[ -n "$writes" ] && [ "$writes" -ge 10 ] || fail "too few writes: $(cat "$ERR")"
state "$TMPDIR/full" >"$TMPDIR/content-after"

old=0 new=0 i=0
while [ $i -lt 10 ]; do
    k=$((1 + i * (writes - 1) / 9))
    sig=INT want=130
    [ $((i % 4)) -eq 3 ] && sig=TERM want=143
    W=$TMPDIR/w
    rm -rf "$W"; cp -a "$PRISTINE" "$W"
    REGTOOL_SIGNAL_AT_WRITE=$k REGTOOL_SIGNAL=$sig install "$W" >"$OUT" 2>"$ERR"
    rc=$?
    [ $rc -eq $want ] || { cat "$ERR"; fail "$layout: SIG$sig at write $k: exit $rc, want $want"; }
    [ ! -e "$W/Windows/System32/config/regtool.journal" ] || fail "$layout k=$k: journal left"
    if grep -q "^regtool: interrupted: nothing changed$" "$ERR"; then
        grep -q "the change is complete" "$ERR" && fail "$layout k=$k: both messages"
        expect_same_tree "$W" "$TMPDIR/before"
        old=$((old + 1))
    elif grep -q "^regtool: interrupted after the commit point: the change is complete$" "$ERR"; then
        state "$W" | cmp -s - "$TMPDIR/content-after" ||
            fail "$layout k=$k: said complete, but the state is not the state after"
        grep -q "^installed BenchPerf" "$OUT" || fail "$layout k=$k: complete but not reported installed"
        new=$((new + 1))
    else
        cat "$ERR"; fail "$layout: SIG$sig at write $k: no word on what became of the install"
    fi
    # The next command finds no unfinished commit and nothing to say.
    expect_exit 0 $REGTOOL --store "hive:$W" query
    [ ! -s "$ERR" ] || fail "$layout k=$k: query found something to say: $(cat "$ERR")"
    i=$((i + 1))
done
echo "$layout: interrupts at 10 of $writes writes: $old rolled back, $new completed"
[ $old -gt 0 ] && [ $new -gt 0 ] || fail "$layout: the sweep did not see both outcomes"
done

# A real Ctrl-C (kill -INT) of an install running on the bench hives.
D=$TMPDIR/bench
expect_exit 0 "$MKBENCH" hives "$D"
: >"$D/Windows/System32/config/regtool.lock"
tree_state "$D" >"$TMPDIR/bench-before"
$REGTOOL --store "hive:$D" install --create-service --library perfbench.dll \
    --open Open --collect Collect --close Close "$INI" >"$OUT" 2>"$ERR" &
pid=$!
# The signal comes once the install holds the writer lock (its lock file
# is open): the install runs well under a second, so a fixed delay could
# miss it.
n=0
until ls -l /proc/$pid/fd 2>/dev/null | grep -q 'regtool\.lock'; do
    n=$((n + 1))
    [ $n -lt 3000 ] && kill -0 $pid 2>/dev/null || break
    sleep 0.001
done
kill -INT $pid 2>/dev/null || fail "the install ended before the interrupt"
wait $pid
rc=$?
[ $rc -eq 130 ] || { cat "$ERR"; fail "kill -INT: exit $rc, want 130"; }
[ ! -e "$D/Windows/System32/config/regtool.journal" ] || fail "kill -INT: journal left"
if grep -q "^regtool: interrupted: nothing changed$" "$ERR"; then
    expect_same_tree "$D" "$TMPDIR/bench-before"
    echo "kill -INT: rolled back"
else
    expect_grep "^regtool: interrupted after the commit point: the change is complete$" "$ERR"
    expect_exit 0 $REGTOOL --store "hive:$D" names --lang 816 "Bench Service 1"
    expect_exit 0 $REGTOOL hive check "$D/Windows/System32/config/SOFTWARE"
    echo "kill -INT: completed"
fi

# Every other verb that writes the tree catches the interrupt the same
# way: one interrupted mid-commit and killed would leave regtool.journal
# for the next writer to finish or roll back, and no word on what became
# of the change. Each is interrupted at its first write (before its commit
# point; repair's first writes save its backup) and its last (after it,
# by SIGTERM), in the files layout.
layout=files
V=$TMPDIR/verbs
rm -rf "$V"; mkdir -p "$V"
cp -a "$TMPDIR/pristine-files" "$V/installed"
install "$V/installed" >"$OUT" 2>"$ERR" || fail "install failed: $(cat "$ERR")"
cp -a "$V/installed" "$V/disabled"
expect_exit 0 $REGTOOL --store "hive:$V/disabled" disable BenchPerf
# Tables without the provider's strings (its INF copy still there): what
# rebuild restores.
cp -a "$V/installed" "$V/damaged"
for d in System32 SysWOW64; do
    cp "$TMPDIR/pristine-files/Windows/$d/"*.dat "$V/damaged/Windows/$d/" || fail "cp"
done
# The installed tree's backup: what restore brings back to the damaged.
expect_exit 0 $REGTOOL --store "hive:$V/installed" backup "$V/installed.ini"
for verb in uninstall disable enable repair rebuild restore; do
    case $verb in
    uninstall) from=installed args="uninstall BenchPerf" ;;
    disable) from=installed args="disable BenchPerf" ;;
    enable) from=disabled args="enable BenchPerf" ;;
    repair) from=disabled args="repair --enable-disabled --backup $V/bk.ini" ;;
    rebuild) from=damaged args="rebuild" ;;
    restore) from=damaged args="restore $V/installed.ini" ;;
    esac
    tree_state "$V/$from" >"$V/before"
    W=$V/w
    rm -rf "$W" "$V/bk.ini"; cp -a "$V/$from" "$W"
    $REGTOOL --verbose --store "hive:$W" $args >"$OUT" 2>"$ERR" ||
        fail "$verb failed: $(cat "$ERR")"
    writes=$(sed -n 's/.* in \([0-9]*\) writes.*/\1/p' "$ERR")
    [ -n "$writes" ] && [ "$writes" -ge 2 ] || fail "$verb: too few writes: $(cat "$ERR")"
    state "$W" >"$V/after"
    for k in 1 "$writes"; do
        sig=INT want=130
        [ "$k" -eq 1 ] || sig=TERM want=143
        rm -rf "$W" "$V/bk.ini"; cp -a "$V/$from" "$W"
        REGTOOL_SIGNAL_AT_WRITE=$k REGTOOL_SIGNAL=$sig \
            $REGTOOL --verbose --store "hive:$W" $args >"$OUT" 2>"$ERR"
        rc=$?
        [ $rc -eq $want ] || { cat "$ERR"; fail "$verb: SIG$sig at write $k: exit $rc, want $want"; }
        [ ! -e "$W/Windows/System32/config/regtool.journal" ] || fail "$verb k=$k: journal left"
        if grep -q "^regtool: interrupted: nothing \(changed\|was saved\)" "$ERR"; then
            expect_same_tree "$W" "$V/before" "$verb k=$k: said nothing changed, but the tree changed"
        elif grep -q "^regtool: interrupted after the commit point: the change is complete$" "$ERR"; then
            state "$W" | cmp -s - "$V/after" ||
                fail "$verb k=$k: said complete, but the state is not the state after"
        else
            cat "$ERR"; fail "$verb: SIG$sig at write $k: no word on what became of it"
        fi
    done
done
echo "uninstall, disable, enable, repair, rebuild, restore: interrupts at their first and last writes kept their word"

# As unlodctr and lodctr (/D, /R:file) the same: what became of the
# change said, ERROR_CANCELLED, exit 130 or 143, no journal left (review
# 39 F2, F7: the process ended at once, a journal left; /D said an I/O
# failure, /R after its commit point exited 0). Each at the first and
# the last write of its regtool twin.
mkdir -p "$V/bin"
ln -sf "$REGTOOL" "$V/bin/lodctr"
ln -sf "$REGTOOL" "$V/bin/unlodctr"
for tool in unlodctr lodctr-d lodctr-r; do
    case $tool in
    unlodctr) from=installed twin="uninstall BenchPerf" run="$V/bin/unlodctr BenchPerf" ;;
    lodctr-d) from=installed twin="disable BenchPerf" run="$V/bin/lodctr /D:BenchPerf" ;;
    lodctr-r) from=damaged twin="restore --force $V/installed.ini" run="$V/bin/lodctr /R:$V/installed.ini" ;;
    esac
    tree_state "$V/$from" >"$V/before"
    W=$V/w
    rm -rf "$W"; cp -a "$V/$from" "$W"
    $REGTOOL --verbose --store "hive:$W" $twin >"$OUT" 2>"$ERR" ||
        fail "$twin failed: $(cat "$ERR")"
    writes=$(sed -n 's/.* in \([0-9]*\) writes.*/\1/p' "$ERR")
    state "$W" >"$V/after"
    for k in 1 "$writes"; do
        sig=INT want=130
        [ "$k" -eq 1 ] || sig=TERM want=143
        rm -rf "$W"; cp -a "$V/$from" "$W"
        REGTOOL_STORE="hive:$W" REGTOOL_SIGNAL_AT_WRITE=$k REGTOOL_SIGNAL=$sig \
            $run >"$OUT" 2>"$ERR"
        rc=$?
        [ $rc -eq $want ] || { cat "$ERR"; fail "$tool: SIG$sig at write $k: exit $rc, want $want"; }
        [ ! -e "$W/Windows/System32/config/regtool.journal" ] || fail "$tool k=$k: journal left"
        expect_grep "ERROR_CANCELLED" "$ERR"
        if grep -q "interrupted: nothing changed" "$ERR"; then
            expect_same_tree "$W" "$V/before" "$tool k=$k: said nothing changed, but the tree changed"
        elif grep -q "interrupted after the commit point: the change is complete" "$ERR"; then
            state "$W" | cmp -s - "$V/after" ||
                fail "$tool k=$k: said complete, but the state is not the state after"
        else
            cat "$ERR"; fail "$tool: SIG$sig at write $k: no word on what became of it"
        fi
    done
done
echo "unlodctr, lodctr /D and /R: interrupts at their first and last writes kept their word"
