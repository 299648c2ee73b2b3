# An interrupt (Ctrl-C, SIGTERM) during init ends it as a failure does:
# exit 130 (143), "interrupted: the tree was not made", and what init had
# made removed (its files and the folders it created, the named one too),
# so that the next init at the same place is not refused as a half-made
# tree. A folder the user had made, and what was in it, stay. The
# interrupt comes after each of init's file writes in turn
# (REGTOOL_SIGNAL_AT_WRITE, the test build), in both layouts.
. tests/cli/lib.sh

REGTOOL=$REGTOOL_TESTING
mkdir -p "$TMPDIR/w/mine"
echo "the user's own" >"$TMPDIR/w/mine/notes.txt"
tree_state "$TMPDIR/w" >"$TMPDIR/before"

for layout in files registry; do
    k=1 sig=INT want=130 done=
    while [ $k -le 40 ]; do
        for dir in "$TMPDIR/w/new/tree" "$TMPDIR/w/mine"; do
            REGTOOL_SIGNAL_AT_WRITE=$k REGTOOL_SIGNAL=$sig \
                $REGTOOL --store "hive:$dir" init --languages 009,019 \
                --layout $layout >"$OUT" 2>"$ERR"
            rc=$?
            if [ $rc -eq 0 ]; then
                # Past init's last write: the whole tree, as without a signal.
                [ $k -gt 3 ] || fail "$layout: init made no writes to interrupt"
                [ -f "$dir/Windows/System32/PerfStringBackup.INI" ] ||
                    fail "$layout: init exited 0 without its backup"
                done=1
                continue
            fi
            [ $rc -eq $want ] || { cat "$ERR"; fail "$layout: SIG$sig at write $k: exit $rc, want $want"; }
            expect_grep "init: interrupted: the tree was not made" "$ERR"
            [ "$(wc -l <"$ERR")" -eq 1 ] || { cat "$ERR"; fail "$layout k=$k: more than the interrupt said"; }
            expect_same_tree "$TMPDIR/w" "$TMPDIR/before"
        done
        [ -z "$done" ] || break
        k=$((k + 1))
        if [ $sig = INT ]; then sig=TERM want=143; else sig=INT want=130; fi
    done
    [ -n "$done" ] || fail "$layout: init still interrupted after 40 writes"
    # Each write of both layouts was interrupted once: 2 languages make
    # 16 .dat files in the files layout, 4 in the registry one, then the
    # two hives and the backup.
    case $layout in
    files) [ $k -eq 20 ] || fail "files layout: $((k - 1)) writes, want 19" ;;
    registry) [ $k -eq 8 ] || fail "registry layout: $((k - 1)) writes, want 7" ;;
    esac
    # The interrupted inits left nothing the next one refuses.
    expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/w/new/tree" audit
    rm -rf "$TMPDIR/w/new" "$TMPDIR/w/mine/Windows"
    expect_same_tree "$TMPDIR/w" "$TMPDIR/before"
done
