# The crash sweep (crash_sweep.sh's method) on the verbs that write and
# are not swept there: repair and restore on the hive store in both
# layouts, and install and uninstall on the .reg store. The process is
# ended at each counted write (REGTOOL_FAULT_AFTER_WRITES=k) and, for the
# hive store, at the journal's creation (crash_open.c, preloaded); then
# the next writer recovers, and the database must be exactly the state
# before (every file byte for byte) or the state after (the .dat files'
# bytes and both hives' content as a referee reads it). The .reg store
# replaces its file whole (a new file, fsync, rename): it must be the old
# file's bytes or the new one's, at its creation (preloaded) and at each
# counted write, and the next writer removes a temporary file a crash
# left. Prints the points covered per verb.
. tests/cli/lib.sh
# Simulated crashes and signals: the CLI with the test hooks.
REGTOOL=$REGTOOL_TESTING

P=$TMPDIR/prov
mkdir -p "$P"
# A provider of 40 counters, English and Russian.
{
    i=0
    while [ $i -lt 40 ]; do echo "#define C$i $((2 * i))"; i=$((i + 1)); done
} >"$P/o.h"
{
    printf '[info]\ndrivername=Xfer\nsymbolfile=o.h\n[languages]\n009=English\n019=Russian\n[objects]\nC0_009_NAME=\n[text]\n'
    i=0
    while [ $i -lt 40 ]; do
        printf 'C%d_009_NAME=Counter %d\nC%d_009_HELP=Help text of counter %d.\n' $i $i $i $i
        printf 'C%d_019_NAME=Счётчик %d\nC%d_019_HELP=Описание счётчика %d.\n' $i $i $i $i
        i=$((i + 1))
    done
} >"$P/x.ini"
CS="--create-service --library x.dll --open O --collect C --close X"

SO=$TMPDIR/crash_open.so
cc -shared -fPIC -o "$SO" tests/cli/crash_open.c -ldl || fail "cannot build crash_open.so"
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
export ASAN_OPTIONS

C=Windows/System32/config

# files DIR: every file with its bytes' hash, but the lock.
files() {
    tree_state "$1" | grep -v ' \./Windows/System32/config/regtool\.lock$'
}

# content DIR: what a reader sees, through referees: both hives' keys and
# values, and the .dat tables' bytes.
content() {
    for h in SOFTWARE SYSTEM; do
        f=$1/$C/$h
        if [ "$layout" = registry ]; then
            hive_xml "$f"
        else
            reglookup -H "$f" >"$TMPDIR/rl" 2>"$TMPDIR/rl.err" ||
                fail "reglookup cannot read $f: $(cat "$TMPDIR/rl.err")"
            sed 's/,[^,]*$//' "$TMPDIR/rl"
        fi
    done
    if [ "$layout" = files ]; then
        (cd "$1/Windows" && sha256sum System32/*.dat SysWOW64/*.dat) ||
            fail "$1: .dat tables missing"
    fi
}

# run_op DIR [VAR=VALUE...]: $OP on the tree DIR.
run_op() {
    _d=$1
    shift
    case $OP in
    repair) env "$@" $REGTOOL --verbose --store "hive:$_d" repair --enable-disabled \
                --backup "$TMPDIR/bk.ini" ;;
    restore) env "$@" $REGTOOL --verbose --store "hive:$_d" restore "$TMPDIR/b2.ini" ;;
    esac
}

# judge LABEL: $W is exactly as before (old) or as after (new).
judge() {
    if files "$W" | cmp -s - "$TMPDIR/b.files"; then
        old=$((old + 1))
        return
    fi
    content "$W" >"$TMPDIR/w.content"
    files "$W" | sed 's/^[^ ]* //' >"$TMPDIR/w.names"
    if cmp -s "$TMPDIR/w.content" "$TMPDIR/a.content"; then
        diff "$TMPDIR/a.names" "$TMPDIR/w.names" >&2 ||
            fail "$1: rolled forward, but with files more or less (diff above)"
        new=$((new + 1))
    elif cmp -s "$TMPDIR/w.content" "$TMPDIR/b.content"; then
        files "$W" | diff "$TMPDIR/b.files" - >&2
        fail "$1: rolled back, but the files are not byte-identical (diff above)"
    else
        diff "$TMPDIR/b.content" "$TMPDIR/w.content" | head -20 >&2
        fail "$1: a state that is neither before nor after"
    fi
}

# crash LABEL VAR=VALUE...: $OP on a fresh copy of $FROM, ended as the
# variables say; a writer then recovers (and finds nothing to do); judged.
crash() {
    _label=$1
    shift
    W=$TMPDIR/w
    rm -rf "$W" "$TMPDIR/bk.ini"*
    cp -a "$FROM" "$W"
    run_op "$W" "$@" >/dev/null 2>"$TMPDIR/crash.err"
    rc=$?
    [ "$rc" -eq 99 ] ||
        fail "$_label: expected the crash to end the run, got exit $rc: $(cat "$TMPDIR/crash.err")"
    expect_exit 4 $REGTOOL --store "hive:$W" disable NoSuchProvider
    [ ! -e "$W/$C/regtool.journal" ] || fail "$_label: journal left behind"
    judge "$_label"
    covered=$((covered + 1))
}

# sweep OP FROM: every crash point of OP on a copy of FROM.
sweep() {
    OP=$1 FROM=$2
    files "$FROM" >"$TMPDIR/b.files"
    content "$FROM" >"$TMPDIR/b.content"
    rm -rf "$TMPDIR/full" "$TMPDIR/bk.ini"*
    cp -a "$FROM" "$TMPDIR/full"
    run_op "$TMPDIR/full" >"$OUT" 2>"$ERR" || fail "$layout $OP failed: $(cat "$OUT" "$ERR")"
    writes=$(sed -n 's/.* in \([0-9]*\) writes.*/\1/p' "$ERR" | tail -1)
    [ -n "$writes" ] && [ "$writes" -ge 3 ] ||
        fail "$layout $OP: no write count in: $(cat "$ERR")"
    content "$TMPDIR/full" >"$TMPDIR/a.content"
    files "$TMPDIR/full" | sed 's/^[^ ]* //' >"$TMPDIR/a.names"
    cmp -s "$TMPDIR/b.content" "$TMPDIR/a.content" && fail "$layout $OP changed nothing"
    old=0 new=0 covered=0
    crash "$layout $OP: at the journal's creation" \
        LD_PRELOAD="$SO" CRASH_OPEN_MATCH=regtool.journal CRASH_OPEN_AT=1
    # Every write point: these commits are short enough.
    for k in $(seq 1 "$writes"); do
        crash "$layout $OP k=$k" REGTOOL_FAULT_AFTER_WRITES="$k"
    done
    [ "$old" -gt 0 ] && [ "$new" -gt 0 ] || fail "$layout $OP: the sweep did not see both outcomes"
    echo "crash sweep ($layout $OP): $writes writes, $covered points (journal creation and $((covered - 1)) writes): $old rolled back, $new rolled forward"
}

for layout in files registry; do
    T0=$TMPDIR/t0-$layout
    expect_exit 0 $REGTOOL --store "hive:$T0" init --languages 009,019 --layout $layout
    # shellcheck disable=SC2086
    expect_exit 0 $REGTOOL --store "hive:$T0" install $CS "$P/x.ini"
    # restore: a backup without the provider's Russian strings (as a
    # backup taken by hand, converted to UTF-8 and edited, would be).
    rm -f "$TMPDIR/b.ini"
    expect_exit 0 $REGTOOL --store "hive:$T0" backup "$TMPDIR/b.ini"
    expect_exit 0 $REGTOOL --store "hive:$T0" query --json Xfer
    fc=$(jq '.providers[0].first_counter' "$OUT")
    lh=$(jq '.providers[0].last_help' "$OUT")
    [ "$fc" -gt 0 ] && [ "$lh" -gt "$fc" ] || fail "query: $(cat "$OUT")"
    iconv -f UTF-16LE -t UTF-8 "$TMPDIR/b.ini" |
        awk -v lo="$fc" -v hi="$lh" '
            { sub(/\r$/, "") }
            /^\[/ { sec = $0 }
            sec == "[PerfStrings_019]" && /^[0-9]+=/ {
                split($0, kv, "="); if (kv[1] + 0 >= lo && kv[1] + 0 <= hi) next }
            { print }' >"$TMPDIR/b2.ini"
    sweep restore "$T0"
    # repair: the restored tree, 019 lacking the provider's strings, with
    # Last Counter below the highest index and the provider disabled (and
    # with .dat tables, SysWOW64's 009 names cut short by a pair).
    T1=$TMPDIR/t1-$layout
    rm -rf "$T1"
    mv "$TMPDIR/full" "$T1"
    perflib_set "$T1/$C/SOFTWARE" "Last_Counter=3000" 2>/dev/null
    expect_exit 0 $REGTOOL --store "hive:$T1" disable Xfer
    if [ $layout = files ]; then
        f=$T1/Windows/SysWOW64/perfc009.dat
        truncate -s "$(( $(stat -c %s "$f") - 10 ))" "$f"
    fi
    sweep repair "$T1"
    rm -rf "$T0" "$T1" "$TMPDIR/full"
done

# The .reg store: install into an export of a registry-layout tree, and
# uninstall from the result. Each crash leaves the file's old bytes or
# its new ones (and maybe the replacement's temporary file beside it).
R0=$TMPDIR/r0
expect_exit 0 $REGTOOL --store "hive:$R0" init --languages 009,019 --layout registry
expect_exit 0 $REGTOOL --store "hive:$R0" backup --format reg "$TMPDIR/before.reg"
rm -rf "$R0"
# reg_op OP FILE [VAR=VALUE...]
reg_op() {
    _o=$1 _f=$2
    shift 2
    case $_o in
    install) env "$@" $REGTOOL --verbose --store "reg:$_f" install $CS "$P/x.ini" ;;
    uninstall) env "$@" $REGTOOL --verbose --store "reg:$_f" uninstall Xfer ;;
    esac
}
reg_sweep() {
    op=$1 from=$2
    mkdir -p "$TMPDIR/reg"
    rm -f "$TMPDIR/reg/"*
    cp "$from" "$TMPDIR/reg/a.reg"
    reg_op "$op" "$TMPDIR/reg/a.reg" >"$OUT" 2>"$ERR" || fail "reg $op: $(cat "$ERR")"
    writes=$(sed -n 's/.* in \([0-9]*\) writes.*/\1/p' "$ERR" | tail -1)
    [ -n "$writes" ] && [ "$writes" -ge 2 ] || fail "reg $op: no write count in: $(cat "$ERR")"
    cmp -s "$from" "$TMPDIR/reg/a.reg" && fail "reg $op changed nothing"
    cp "$TMPDIR/reg/a.reg" "$TMPDIR/after-$op.reg"
    old=0 new=0 covered=0 stray=0
    k=0
    while [ $k -le "$writes" ]; do
        rm -f "$TMPDIR/reg/"*
        cp "$from" "$TMPDIR/reg/a.reg"
        if [ $k = 0 ]; then
            # At the temporary file's creation.
            reg_op "$op" "$TMPDIR/reg/a.reg" LD_PRELOAD="$SO" CRASH_OPEN_MATCH=a.reg.tmp. \
                CRASH_OPEN_AT=1 >/dev/null 2>&1
        else
            reg_op "$op" "$TMPDIR/reg/a.reg" REGTOOL_FAULT_AFTER_WRITES=$k >/dev/null 2>&1
        fi
        rc=$?
        [ "$rc" -eq 99 ] || fail "reg $op, crash point $k: exit $rc"
        cp "$TMPDIR/reg/a.reg" "$TMPDIR/reg.judged"
        if cmp -s "$from" "$TMPDIR/reg/a.reg"; then
            old=$((old + 1))
        elif cmp -s "$TMPDIR/after-$op.reg" "$TMPDIR/reg/a.reg"; then
            new=$((new + 1))
        else
            fail "reg $op, crash point $k: the file is neither before nor after"
        fi
        # The store opens and reads it whole.
        expect_exit 0 $REGTOOL --store "reg:$TMPDIR/reg/a.reg" query
        n=$(find "$TMPDIR/reg" -name 'a.reg.tmp.*' | wc -l)
        stray=$((stray + n))
        # The next writer (which finds nothing to do) removes the crashed
        # one's temporary file: nothing is left but the store and the lock.
        expect_exit 4 $REGTOOL --store "reg:$TMPDIR/reg/a.reg" disable NoSuchProvider
        [ "$(find "$TMPDIR/reg" -type f ! -name a.reg.lock)" = "$TMPDIR/reg/a.reg" ] ||
            fail "reg $op, crash point $k: left $(ls "$TMPDIR/reg")"
        cmp -s "$TMPDIR/reg/a.reg" "$TMPDIR/reg.judged" ||
            fail "reg $op, crash point $k: the next writer changed the file"
        covered=$((covered + 1))
        k=$((k + 1))
    done
    [ "$old" -gt 0 ] && [ "$new" -gt 0 ] || fail "reg $op: the sweep did not see both outcomes"
    [ "$stray" -gt 0 ] || fail "reg $op: no crash left a temporary file"
    echo "crash sweep (reg $op): $writes writes, $covered points (the temporary file's creation and $writes writes): $old old, $new new; $stray temporary files left by a crash, each removed by the next writer"
}
reg_sweep install "$TMPDIR/before.reg"
reg_sweep uninstall "$TMPDIR/after-install.reg"
