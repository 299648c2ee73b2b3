# A crash after any write of a commit leaves, after the next open, exactly
# the state before (byte for byte) or the state after. With .dat tables the
# commit touches both hives, the .dat files of three languages and their
# SysWOW64 copies; with tables as values, big data in SOFTWARE that grows
# past the hive's end (bytes written ahead of the journal, cut back when a
# crash comes before the seal).
. tests/cli/lib.sh

P=$TMPDIR/prov
mkdir -p "$P"
# A provider of 300 counters, English and Russian: its help texts outgrow
# the last big-data segment of each Help value, so new segments and bins
# are appended to SOFTWARE in the registry layout.
{
    i=0
    while [ $i -lt 300 ]; do echo "#define C$i $((2 * i))"; i=$((i + 1)); done
} >"$P/o.h"
{
    printf '[info]\ndrivername=Xfer\nsymbolfile=o.h\n[languages]\n009=English\n019=Russian\n[objects]\nC0_009_NAME=\n[text]\n'
    i=0
    while [ $i -lt 300 ]; do
        printf 'C%d_009_NAME=Counter %d\nC%d_009_HELP=Help text of counter %d, long enough to fill pages.\n' $i $i $i $i
        printf 'C%d_019_NAME=Счётчик %d\nC%d_019_HELP=Описание счётчика %d, достаточно длинное.\n' $i $i $i $i
        i=$((i + 1))
    done
} >"$P/x.ini"

state() {   # everything a reader sees: both hives by content, .dat bytes
    for h in SOFTWARE SYSTEM; do
        if [ "$layout" = registry ]; then
            # Values over 1 MB: hivexml reads them whole (reglookup stops).
            hivexml "$1/Windows/System32/config/$h" | sed -e 's/<mtime>[^<]*<\/mtime>//g' \
                -e 's/<byte_runs>\(<byte_run [^>]*\/>\)*<\/byte_runs>//g'
        else
            reglookup -H "$1/Windows/System32/config/$h" | sed 's/,[^,]*$//'
        fi
    done
    if [ "$layout" = files ]; then
        (cd "$1/Windows" && sha256sum System32/*.dat SysWOW64/*.dat)
    fi
}

hives() { (cd "$1/Windows/System32/config" && sha256sum SOFTWARE SYSTEM); }

for layout in files registry; do
PRISTINE=$TMPDIR/pristine-$layout
expect_exit 0 $REGTOOL --store "hive:$PRISTINE" init --languages 009,019,00C --layout $layout
install() {
    $REGTOOL --verbose --store "hive:$1" install --create-service \
        --library x.dll --open O --collect C --close X "$P/x.ini"
}
state "$PRISTINE" >"$TMPDIR/before"
hives "$PRISTINE" >"$TMPDIR/hives-before"
rm -rf "$TMPDIR/full"
cp -a "$PRISTINE" "$TMPDIR/full"
install "$TMPDIR/full" >"$OUT" 2>"$ERR" || fail "install failed: $(cat "$ERR")"
state "$TMPDIR/full" >"$TMPDIR/after"
writes=$(sed -n 's/.* in \([0-9]*\) writes.*/\1/p' "$ERR")
[ -n "$writes" ] && [ "$writes" -ge 6 ] || fail "no write count in: $(cat "$ERR")"
cmp -s "$TMPDIR/before" "$TMPDIR/after" && fail "install changed nothing"

old=0 new=0
k=1
while [ "$k" -le "$writes" ]; do
    W=$TMPDIR/k$k
    rm -rf "$W"
    cp -a "$PRISTINE" "$W"
    REGTOOL_FAULT_AFTER_WRITES=$k install "$W" >/dev/null 2>&1
    rc=$?
    [ "$rc" -eq 99 ] || fail "$layout k=$k: expected the fault hook to end the run, got exit $rc"
    # A reader writes nothing: it reads the state as committed (a sealed
    # journal's after-image) and says so. The next writer (here one that
    # then finds nothing to do) finishes or discards the commit, and the
    # files then read as the reader saw them.
    jn=$W/Windows/System32/config/regtool.journal
    had=0; [ -e "$jn" ] && had=1
    $REGTOOL --store "hive:$W" names --lang 019 >"$TMPDIR/seen" 2>"$ERR" ||
        fail "$layout k=$k: reader failed: $(cat "$ERR")"
    if [ $had = 1 ]; then
        [ -e "$jn" ] || fail "$layout k=$k: a reader touched the journal"
        grep -q "regtool.journal: .*install of Xfer" "$ERR" ||
            fail "$layout k=$k: the reader did not say what it found: $(cat "$ERR")"
    fi
    expect_exit 4 $REGTOOL --store "hive:$W" disable NoSuchProvider
    [ $had = 0 ] || grep -q "regtool.journal: \(finished\|discarded\) .*install of Xfer" "$ERR" ||
        fail "$layout k=$k: the writer did not say what it finished: $(cat "$ERR")"
    [ ! -e "$jn" ] || fail "$layout k=$k: journal left behind"
    $REGTOOL --store "hive:$W" names --lang 019 | cmp -s - "$TMPDIR/seen" ||
        fail "$layout k=$k: the reader's view before recovery differs from the files after it"
    state "$W" >"$TMPDIR/state"
    if cmp -s "$TMPDIR/state" "$TMPDIR/before"; then
        hives "$W" | cmp -s - "$TMPDIR/hives-before" ||
            fail "$layout k=$k: rolled back, but the hive files are not byte-identical"
        old=$((old + 1))
    elif cmp -s "$TMPDIR/state" "$TMPDIR/after"; then new=$((new + 1))
    else
        diff "$TMPDIR/before" "$TMPDIR/state" | head -20
        fail "$layout k=$k: a state that is neither before nor after"
    fi
    rm -rf "$W"
    k=$((k + 1))
done
echo "crash sweep ($layout): $writes writes, $old rolled back, $new rolled forward"
if [ "$layout" = registry ]; then
    # Bytes appended ahead of the journal were cut back on those crashes.
    [ "$old" -gt 2 ] || fail "registry layout: no crash after fresh bytes"
fi
[ "$old" -gt 0 ] && [ "$new" -gt 0 ] || fail "sweep did not see both outcomes"
done
