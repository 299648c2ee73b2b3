# A crash at any point of a commit leaves, after the next writer, exactly
# the state before (every file byte for byte) or the state after (the
# .dat files' bytes, both hives' content as a referee reads it, and no
# file more or less). Swept in both layouts over install (files grow),
# uninstall (files shrink), disable and enable; crash points are the
# counted writes (REGTOOL_FAULT_AFTER_WRITES), the journal's creation
# (crash_open.c, preloaded), and the writes of recovery itself: a crash
# while the next writer finishes or discards a commit, then recovery
# again. And an install on a dirty SOFTWARE whose log the commit replays
# (mkdirty.c), with the backup copies it makes first as crash points. With .dat tables a commit touches both hives, the .dat files of
# three languages and their SysWOW64 copies; with tables as values, big
# data in SOFTWARE that grows past the hive's end (bytes written ahead of
# the journal, cut back when a crash comes before the seal).
. tests/cli/lib.sh
# Simulated crashes and signals: the CLI with the test hooks.
REGTOOL=$REGTOOL_TESTING

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

# The crash at a file's creation, preloaded; under AddressSanitizer the
# preloaded library comes before its runtime.
SO=$TMPDIR/crash_open.so
cc -shared -fPIC -o "$SO" tests/cli/crash_open.c -ldl || fail "cannot build crash_open.so"
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
export ASAN_OPTIONS
# A dirty hive with a log to replay (mkdirty.c).
MKDIRTY=$TMPDIR/mkdirty
cc -Ilib -o "$MKDIRTY" tests/cli/mkdirty.c lib/regf/marvin32.c lib/regf/base_block.c ||
    fail "cannot build mkdirty"

C=Windows/System32/config

# files DIR: every file and directory with its bytes' hash, but the lock
# (its holder's note) and the backups of a replayed hive (backups below).
files() {
    tree_state "$1" | grep -v -e ' \./Windows/System32/config/regtool\.lock$' \
        -e '\.regtool-[0-9T]*$'
}

# backups DIR HOW: the copies a commit replaying a dirty hive makes of it
# and its logs first (FILE.regtool-STAMP) hold FILE as it was in $FROM:
# HOW=whole, each of SOFTWARE and SOFTWARE.LOG1 copied whole; HOW=prefix,
# those there so far (a crash may stop one midway) hold its first bytes.
backups() {
    n=0
    for b in "$1/$C"/*.regtool-*; do
        [ -e "$b" ] || continue
        n=$((n + 1))
        o=$FROM/$C/$(basename "${b%.regtool-*}")
        [ -e "$o" ] || fail "$_label: backup $(basename "$b") of no file"
        if [ "$2" = whole ]; then
            cmp -s "$b" "$o" || fail "$_label: backup $(basename "$b") differs from the original"
        else
            cmp -s -n "$(wc -c <"$b")" "$b" "$o" ||
                fail "$_label: backup $(basename "$b") is not a copy of the original"
        fi
    done
    if [ "$2" = whole ] && [ -e "$FROM/$C/SOFTWARE.LOG1" ]; then
        [ "$n" -eq 2 ] || fail "$_label: $n backups of the replayed hive, want 2"
    elif [ ! -e "$FROM/$C/SOFTWARE.LOG1" ]; then
        [ "$n" -eq 0 ] || fail "$_label: backups of a clean hive"
    fi
}

# content DIR: what a reader sees, through referees whose exit status is
# checked: both hives' keys and values, and the .dat tables' bytes.
content() {
    for h in SOFTWARE SYSTEM; do
        f=$1/$C/$h
        if [ "$layout" = registry ]; then
            hive_xml "$f"
        else
            reglookup -H "$f" >"$TMPDIR/rl" 2>"$TMPDIR/rl.err" ||
                fail "reglookup cannot read $f: $(cat "$TMPDIR/rl.err")"
            [ ! -s "$TMPDIR/rl.err" ] || fail "reglookup warned on $f: $(cat "$TMPDIR/rl.err")"
            sed 's/,[^,]*$//' "$TMPDIR/rl"
        fi
    done
    if [ "$layout" = files ]; then
        (cd "$1/Windows" && sha256sum System32/*.dat SysWOW64/*.dat) ||
            fail "$1: .dat tables missing"
    fi
}

# run_op OP DIR [VAR=VALUE...]: the change OP on the tree DIR, in the
# environment given.
run_op() {
    _op=$1 _d=$2
    shift 2
    case $_op in
    install) env "$@" $REGTOOL --verbose --store "hive:$_d" install --create-service \
                 --library x.dll --open O --collect C --close X "$P/x.ini" ;;
    *) env "$@" $REGTOOL --verbose --store "hive:$_d" "$_op" Xfer ;;
    esac
}

# points N: the crash points of a commit of N writes: all of them up to
# 10, else the first and last three and about six between (a full sweep
# takes minutes: every kind of write is among these).
points() {
    awk -v n="$1" 'BEGIN { step = int(n / 6)
        for (k = 1; k <= n; k++)
            if (n <= 10 || k <= 3 || k > n - 3 || k % step == 0) print k }'
}

# recover WHAT LABEL: on $W after a crash, a reader that writes nothing
# and reads the files as they are, never the journal: the same tree with
# the journal moved aside reads the same, with the same status (files
# part-way through a sealed commit may not read at all: exit 2, never a
# crash); then a writer (one that then finds nothing to do) that finishes
# or discards the commit, saying so; where nothing was committed, the
# files then read as the reader saw them. WHAT: the commit's description
# in the journal.
recover() {
    jn=$W/$C/regtool.journal
    had=0; [ -e "$jn" ] && had=1
    $REGTOOL --store "hive:$W" names --lang 019 >"$TMPDIR/seen" 2>"$ERR"
    read_rc=$?
    if [ $had = 1 ]; then
        [ -e "$jn" ] || fail "$2: a reader touched the journal"
        grep -q "regtool.journal: .*$1" "$ERR" ||
            fail "$2: the reader did not say what it found: $(cat "$ERR")"
        grep -q "is not yet in the files" "$ERR" && sealed=1 || sealed=0
        mv "$jn" "$jn.aside"
        $REGTOOL --store "hive:$W" names --lang 019 >"$TMPDIR/seen.files" 2>/dev/null
        files_rc=$?
        mv "$jn.aside" "$jn"
        [ "$read_rc" = "$files_rc" ] && cmp -s "$TMPDIR/seen" "$TMPDIR/seen.files" ||
            fail "$2: the reader read the journal, not the files"
    fi
    [ "$read_rc" = 0 ] || { [ "$sealed" = 1 ] && [ "$read_rc" = 2 ]; } ||
        fail "$2: reader failed ($read_rc): $(cat "$ERR")"
    expect_exit 4 $REGTOOL --store "hive:$W" disable NoSuchProvider
    [ $had = 0 ] || grep -q "regtool.journal: \(finished\|discarded\) .*$1" "$ERR" ||
        fail "$2: the writer did not say what it finished: $(cat "$ERR")"
    [ ! -e "$jn" ] || fail "$2: journal left behind"
    [ "$sealed" = 1 ] || $REGTOOL --store "hive:$W" names --lang 019 | cmp -s - "$TMPDIR/seen" ||
        fail "$2: the reader's view before recovery differs from the files after it"
}

# judge LABEL: $W is exactly as before (old) or as after (new).
judge() {
    _label=$1
    if files "$W" | cmp -s - "$TMPDIR/b.files"; then
        backups "$W" prefix
        old=$((old + 1)); outcome=old
        return
    fi
    content "$W" >"$TMPDIR/w.content"
    files "$W" | sed 's/^[^ ]* //' >"$TMPDIR/w.names"
    if cmp -s "$TMPDIR/w.content" "$TMPDIR/a.content"; then
        diff "$TMPDIR/a.names" "$TMPDIR/w.names" >&2 ||
            fail "$1: rolled forward, but with files more or less (diff above)"
        backups "$W" whole
        new=$((new + 1)); outcome=new
    elif cmp -s "$TMPDIR/w.content" "$TMPDIR/b.content"; then
        files "$W" | diff "$TMPDIR/b.files" - >&2
        fail "$1: rolled back, but the files are not byte-identical (diff above)"
    else
        diff "$TMPDIR/b.content" "$TMPDIR/w.content" | head -20 >&2
        fail "$1: a state that is neither before nor after"
    fi
}

# crash LABEL WHAT VAR=VALUE...: OP on a fresh copy of FROM, crashed as the
# variables say, then recovered and judged.
crash() {
    _label=$1 _what=$2
    shift 2
    W=$TMPDIR/w
    rm -rf "$W"
    cp -a "$FROM" "$W"
    run_op "$OP" "$W" "$@" >/dev/null 2>"$TMPDIR/crash.err"
    rc=$?
    [ "$rc" -eq 99 ] ||
        fail "$_label: expected the crash to end the run, got exit $rc: $(cat "$TMPDIR/crash.err")"
    sealed=0
    recover "$_what" "$_label"
    judge "$_label"
}

# recovery_crashes K N OUTCOME: OP crashed at its write K leaves a
# journal whose recovery takes about N writes; the recovering writer
# crashes at its first, second, middle, last but one and last of them,
# each time on a fresh copy; a second recovery then gives OUTCOME, as one
# without a crash does.
recovery_crashes() {
    crashed=0
    for j in $(printf '%s\n' 1 2 $(($2 / 2)) $(($2 - 1)) "$2" | awk '$1 > 0 && !seen[$1]++'); do
        W=$TMPDIR/w
        rm -rf "$W"
        cp -a "$FROM" "$W"
        run_op "$OP" "$W" REGTOOL_FAULT_AFTER_WRITES="$1" >/dev/null 2>&1
        [ -e "$W/$C/regtool.journal" ] || fail "$layout $OP k=$1: no journal to recover"
        REGTOOL_FAULT_AFTER_WRITES=$j $REGTOOL --store "hive:$W" disable NoSuchProvider \
            >/dev/null 2>&1
        rc=$?
        [ "$rc" -eq 4 ] && continue   # recovery took fewer writes
        [ "$rc" -eq 99 ] || fail "$layout $OP k=$1: recovery crashed at $j exited $rc"
        crashed=$((crashed + 1))
        sealed=0
        recover "$OP of Xfer" "$layout $OP k=$1, recovery crashed at write $j"
        judge "$layout $OP k=$1, recovery crashed at write $j"
        [ "$outcome" = "$3" ] ||
            fail "$layout $OP k=$1: recovery crashed at write $j, then gave $outcome, not $3"
    done
    [ "$crashed" -gt 0 ] || fail "$layout $OP k=$1: recovery wrote nothing"
    echo "crash sweep ($layout $OP): recovery of k=$1 crashed $crashed times, each then $3"
}

# sweep OP FROM: every kind of crash point of OP on a copy of the tree
# FROM; the state after OP without a crash is left in $TMPDIR/full.
sweep() {
    OP=$1 FROM=$2
    files "$FROM" >"$TMPDIR/b.files"
    content "$FROM" >"$TMPDIR/b.content"
    rm -rf "$TMPDIR/full"
    cp -a "$FROM" "$TMPDIR/full"
    run_op "$OP" "$TMPDIR/full" >"$OUT" 2>"$ERR" || fail "$layout $OP failed: $(cat "$ERR")"
    writes=$(sed -n 's/.* in \([0-9]*\) writes.*/\1/p' "$ERR")
    [ -n "$writes" ] && [ "$writes" -ge 4 ] ||
        fail "$layout $OP: no write count in: $(cat "$ERR")"
    content "$TMPDIR/full" >"$TMPDIR/a.content"
    files "$TMPDIR/full" | sed 's/^[^ ]* //' >"$TMPDIR/a.names"
    cmp -s "$TMPDIR/b.content" "$TMPDIR/a.content" && fail "$layout $OP changed nothing"

    old=0 new=0 first_sealed="" last_unsealed=""
    # The journal created (opened with O_TRUNC), not a byte in it yet.
    crash "$layout $OP: at the journal's creation" "unfinished change" \
        LD_PRELOAD="$SO" CRASH_OPEN_MATCH=regtool.journal CRASH_OPEN_AT=1
    [ "$outcome" = old ] && [ "$had" = 1 ] ||
        fail "$layout $OP: a crash at the journal's creation left no empty journal, or rolled forward"
    if [ -e "$FROM/$C/SOFTWARE.LOG1" ]; then
        # The backup copies of the dirty hive, each just created: nothing
        # of the commit has begun.
        for b in 1 2; do
            crash "$layout $OP: at backup $b's creation" "" \
                LD_PRELOAD="$SO" CRASH_OPEN_MATCH=.regtool- CRASH_OPEN_AT=$b
            [ "$outcome" = old ] && [ "$had" = 0 ] ||
                fail "$layout $OP: a crash at backup $b's creation changed the files"
        done
    fi
    for k in $(points "$writes"); do
        crash "$layout $OP k=$k" "$OP of Xfer" REGTOOL_FAULT_AFTER_WRITES="$k"
        if [ "$had" = 1 ] && [ "$sealed" = 1 ]; then
            [ -n "$first_sealed" ] || first_sealed=$k
        elif [ "$had" = 1 ]; then
            last_unsealed=$k
        fi
    done
    echo "crash sweep ($layout $OP): $writes writes, $old rolled back, $new rolled forward"
    swept_old=$old
    [ "$old" -gt 1 ] && [ "$new" -gt 0 ] || fail "$layout $OP: the sweep did not see both outcomes"
    [ -n "$first_sealed" ] || fail "$layout $OP: no crash left a sealed journal"
    [ -n "$last_unsealed" ] || fail "$layout $OP: no crash left an unsealed journal"
    recovery_crashes "$first_sealed" $((writes - first_sealed)) new
    recovery_crashes "$last_unsealed" 2 old
}

for layout in files registry; do
    PRISTINE=$TMPDIR/pristine-$layout
    expect_exit 0 $REGTOOL --store "hive:$PRISTINE" init --languages 009,019,00C --layout $layout
    sweep install "$PRISTINE"
    if [ "$layout" = registry ]; then
        # Bytes appended ahead of the journal were cut back on those crashes.
        [ "$swept_old" -gt 3 ] || fail "registry layout: no crash after fresh bytes"
    fi
    INSTALLED=$TMPDIR/installed-$layout
    mv "$TMPDIR/full" "$INSTALLED"
    sweep disable "$INSTALLED"
    DISABLED=$TMPDIR/disabled-$layout
    mv "$TMPDIR/full" "$DISABLED"
    sweep enable "$DISABLED"
    sweep uninstall "$INSTALLED"
    rm -rf "$INSTALLED" "$DISABLED" "$TMPDIR/full"
    # A dirty SOFTWARE, its last write in SOFTWARE.LOG1: the commit
    # replays it, copies the hive and its log aside, then writes it whole.
    DIRTY=$TMPDIR/dirty-$layout
    mv "$PRISTINE" "$DIRTY"
    "$MKDIRTY" "$DIRTY/$C/SOFTWARE" || fail "mkdirty failed"
    sweep install "$DIRTY"
    rm -rf "$DIRTY" "$TMPDIR/full"
done
