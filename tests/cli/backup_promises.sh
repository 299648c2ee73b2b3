# What backup promises, across the verbs that write one (backup, its .reg
# form, lodctr /S, repair's own backup):
#  1. Stopped at any of its writes, by Ctrl-C or SIGTERM
#     (REGTOOL_SIGNAL_AT_WRITE=k) or by a crash (REGTOOL_FAULT_AFTER_WRITES=k),
#     a backup leaves either no FILE or a complete one, equal to an
#     uninterrupted backup; an interrupt says which, exits 130 (143) and
#     leaves no temporary file; a crash leaves at most FILE.tmp.*.
#  2. A real SIGINT/SIGTERM while a backup of a 20 MB hive is being
#     written: while it runs nothing is under FILE's name, and after the
#     interrupt nothing is left.
#  3. repair's backup, restored, gives back the database repair found,
#     byte for byte (every .dat table, Perflib's values); of a damaged
#     table, the pairs readable in it.
#  4. A backup of a database with a damaged table saves every pair
#     readable in it (the other tables whole), names the table, exit 1.
. tests/cli/lib.sh

MKBENCH=$(dirname "$REGTOOL")/bench/mkbench
# Simulated crashes and signals: the CLI with the test hooks.
REGTOOL=$REGTOOL_TESTING
L=$TMPDIR/bin/lodctr
mkdir -p "$TMPDIR/bin" && ln -s "$REGTOOL" "$L"
T=$TMPDIR/t
S="--store hive:$T"
expect_exit 0 "$REGTOOL" $S init --languages 009,00C,019
expect_exit 0 "$REGTOOL" $S backup "$TMPDIR/full.ini"
tree_state "$T" >"$TMPDIR/tree.start"

# The files whose name starts with $1's in its folder, one a line.
left() { for f in "$1"*; do if [ -e "$f" ]; then basename "$f"; fi; done; }

# --- 1. every write point ----------------------------------------------------
# sweep HOW WANT FMT CMD...: runs CMD (which writes $B) with HOW=k for
# k = 1, 2, ... until it completes without being stopped; FMT: the
# uninterrupted file $B must equal.
B=$TMPDIR/sweep/b
mkdir -p "$TMPDIR/sweep"
sweep() {
    how=$1 full=$2; shift 2
    k=1 none=0 whole=0
    while :; do
        rm -f "$B" "$B".tmp.*
        sig=INT want=130
        [ $((k % 2)) -eq 0 ] && sig=TERM want=143
        [ "$how" = crash ] && want=99
        if [ "$how" = crash ]; then
            REGTOOL_FAULT_AFTER_WRITES=$k "$@" >"$OUT" 2>"$ERR"
        else
            REGTOOL_SIGNAL_AT_WRITE=$k REGTOOL_SIGNAL=$sig "$@" >"$OUT" 2>"$ERR"
        fi
        rc=$?
        [ $rc -eq 0 ] && break
        [ $rc -eq $want ] || { cat "$ERR"; fail "$how at write $k of $*: exit $rc, want $want"; }
        if [ -e "$B" ]; then
            cmp -s "$B" "$full" || fail "$how at write $k of $*: $(wc -c <"$B") bytes left under the file's name, not the whole backup"
            whole=$((whole + 1))
            [ "$how" = crash ] ||
                expect_grep "^regtool: interrupted after the backup was saved: the file is complete$" "$ERR"
        else
            none=$((none + 1))
            [ "$how" = crash ] ||
                expect_grep "^\(regtool\|lodctr\): interrupted: nothing was saved (no part of $B was left)$" "$ERR"
        fi
        if [ "$how" = crash ]; then
            # A crash cleans nothing up: at most the temporary file.
            [ -z "$(left "$B" | grep -v -x -e "b" -e 'b\.tmp\..*')" ] ||
                fail "crash at write $k: left $(left "$B" | tr "\n" " ")"
        else
            [ -z "$(left "$B" | grep -v -x b)" ] || fail "$how at write $k of $*: left $(left "$B" | tr "\n" " ")"
        fi
        k=$((k + 1))
        [ $k -lt 100 ] || fail "$*: still stopped at write 100"
    done
    cmp -s "$B" "$full" || fail "$*: the uninterrupted run's file differs"
    [ $none -gt 0 ] || fail "$how of $*: no point left no file"
    echo "$how: $* stopped at $((k - 1)) writes: $none left no file, $whole a whole one"
}
for how in signal crash; do
    sweep $how "$TMPDIR/full.ini" "$REGTOOL" $S backup "$B"
done
expect_same_tree "$T" "$TMPDIR/tree.start"
# The .reg backup is written whole, then renamed: stopped at its write,
# no file (on a one-language tree: its text is slow to make).
R1=$TMPDIR/r1
expect_exit 0 "$REGTOOL" --store "hive:$R1" init --languages 009 --layout registry
rm -f "$B"
REGTOOL_SIGNAL_AT_WRITE=1 "$REGTOOL" --store "hive:$R1" backup --format reg "$B" >"$OUT" 2>"$ERR"
rc=$?
[ $rc -eq 130 ] || { cat "$ERR"; fail ".reg backup, SIGINT at its write: exit $rc"; }
expect_grep "^regtool: interrupted: nothing was saved (no part of $B was left)$" "$ERR"
[ -z "$(left "$B")" ] || fail ".reg backup interrupted left $(left "$B" | tr "\n" " ")"
REGTOOL_FAULT_AFTER_WRITES=1 "$REGTOOL" --store "hive:$R1" backup --format reg "$B" >"$OUT" 2>"$ERR"
[ $? -eq 99 ] || fail ".reg backup, crash at its write: not stopped"
[ ! -e "$B" ] || fail ".reg backup, crash at its write: $B is there"
rm -f "$B".tmp.*
# A backup after a crash takes FILE itself: the temporary file another
# run left is not FILE.
rm -f "$B"
REGTOOL_FAULT_AFTER_WRITES=2 "$REGTOOL" $S backup "$B" >"$OUT" 2>&1
[ -n "$(left "$B")" ] || fail "the crash left no temporary file to test with"
expect_exit 0 "$REGTOOL" $S backup "$B"
cmp -s "$B" "$TMPDIR/full.ini" || fail "the backup after a crash differs"
# lodctr /S: the same writes, the same promise, and the exit status of
# docs/reference.md's table: 1223 (ERROR_CANCELLED), 130 on SIGINT and 143 on
# SIGTERM, named in a line (one point of each signal).
for sig in INT TERM; do
    want=130; [ $sig = TERM ] && want=143
    rm -f "$B" "$B".tmp.*
    REGTOOL_SIGNAL_AT_WRITE=2 REGTOOL_SIGNAL=$sig REGTOOL_STORE="hive:$T" "$L" "/S:$B" >"$OUT" 2>"$ERR"
    rc=$?
    [ $rc -eq $want ] || { cat "$ERR"; fail "lodctr /S, SIG$sig at write 2: exit $rc, want $want"; }
    expect_grep "^lodctr: interrupted: nothing was saved (no part of $B was left)$" "$ERR"
    expect_grep "^lodctr: Win32 error 1223 (ERROR_CANCELLED: interrupted); exit status $want" "$ERR"
    [ -z "$(left "$B")" ] || fail "lodctr /S interrupted left $(left "$B" | tr "\n" " ")"
done
# --- 2. a real interrupt, mid-backup --------------------------------------------
W=$TMPDIR/w0
expect_exit 0 "$MKBENCH" hives "$W" --extra 0 --size 20 --layout registry
for sig in INT TERM; do
    want=130; [ $sig = TERM ] && want=143
    tries=0
    while :; do
        rm -f "$B" "$B".tmp.*
        "$REGTOOL" --store "hive:$W" backup "$B" >"$OUT" 2>"$ERR" &
        pid=$!
        # Stopped once its temporary file is there, so that the signal
        # comes mid-backup however fast it runs.
        n=0
        until [ -n "$(left "$B")" ] || ! kill -0 $pid 2>/dev/null || [ $n -ge 20000 ]; do
            n=$((n + 1))
        done
        if kill -STOP $pid 2>/dev/null && [ -n "$(left "$B" | grep -x 'b\.tmp\..*')" ]; then
            [ ! -e "$B" ] || fail "SIG$sig: $B is there while the backup is being written"
            kill -$sig $pid; kill -CONT $pid
            wait $pid; rc=$?
            break
        fi
        kill -CONT $pid 2>/dev/null; wait $pid
        tries=$((tries + 1))
        [ $tries -lt 20 ] || fail "SIG$sig: no backup could be caught while it ran"
    done
    [ $rc -eq $want ] || { cat "$ERR"; fail "SIG$sig mid-backup: exit $rc, want $want"; }
    expect_grep "^regtool: interrupted: nothing was saved (no part of $B was left)$" "$ERR"
    [ -z "$(left "$B")" ] || fail "SIG$sig mid-backup left $(left "$B" | tr "\n" " ")"
done

# --- 3. repair's backup gives back what repair found ----------------------------
# A database repair changes: 019 lacks the pairs from 3000 on (a valid
# table, written by restore), Last Counter lowered.
iconv -f UTF-16LE -t UTF-8 "$TMPDIR/full.ini" |
    awk 'BEGIN { RS = "\r\n"; ORS = "\r\n" }
         /^\[/ { s = $0 }
         s == "[PerfStrings_019]" && /^[0-9]+=/ && $0 + 0 >= 3000 { next }
         { print }' | head -c -2 | iconv -f UTF-8 -t UTF-16LE >"$TMPDIR/cut.ini"
expect_exit 0 "$REGTOOL" $S restore "$TMPDIR/cut.ini"
perflib_set "$T/Windows/System32/config/SOFTWARE" Last_Counter=3840
state() {
    (cd "$T/Windows" && sha256sum System32/*.dat SysWOW64/*.dat)
    printf '%s\n' 'cd \Microsoft\Windows NT\CurrentVersion\Perflib' lsval |
        hivexsh "$T/Windows/System32/config/SOFTWARE"
}
state >"$TMPDIR/found"
expect_exit 0 "$REGTOOL" $S backup "$TMPDIR/found.ini"
tree_state "$T" >"$TMPDIR/tree.found"
# repair's backup, stopped at each of its writes: no backup file and the
# tree untouched, or the whole backup, and then the repair stops before
# its commit: nothing changed.
R=$TMPDIR/r
k=1
while :; do
    rm -rf "$R" "$B" "$B".tmp.*; cp -a "$T" "$R"
    REGTOOL_SIGNAL_AT_WRITE=$k "$REGTOOL" --store "hive:$R" repair --backup "$B" >"$OUT" 2>"$ERR"
    rc=$?
    [ $rc -eq 130 ] || { cat "$ERR"; fail "repair, SIGINT at write $k: exit $rc"; }
    [ -z "$(left "$B" | grep -v -x b)" ] || fail "repair at write $k: left $(left "$B" | tr "\n" " ")"
    tree_state "$R" | cmp -s - "$TMPDIR/tree.found" || fail "repair at write $k: the tree changed"
    if [ -e "$B" ]; then
        cmp -s "$B" "$TMPDIR/found.ini" || fail "repair at write $k: a partial backup"
        expect_grep "^regtool: interrupted: nothing changed$" "$ERR"
        break
    fi
    expect_grep "^regtool: interrupted: nothing was saved (no part of $B was left)$" "$ERR"
    k=$((k + 1))
    [ $k -lt 100 ] || fail "repair's backup never completed"
done
echo "repair: its backup stopped at each of its $k writes"
expect_exit 0 "$REGTOOL" $S repair --backup "$TMPDIR/repair.ini"
cmp -s "$TMPDIR/repair.ini" "$TMPDIR/found.ini" || fail "repair's backup is not what backup saves"
expect_grep "entries-filled \[019\]" "$OUT"
expect_grep "Last Counter: 3840 ->" "$OUT"
state | cmp -s - "$TMPDIR/found" && fail "repair changed nothing"
expect_exit 0 "$REGTOOL" $S restore "$TMPDIR/repair.ini"
state | diff "$TMPDIR/found" - >&2 || fail "repair's backup restored is not the database repair found"

# The same with a damaged table (00C's Help): the other tables byte for
# byte, the damaged one's readable pairs.
H=$T/Windows/System32/perfh00C.dat
n=$(wc -c <"$H")
# Help index 2101 made "x101": not a number, a reader stops there.
at=$(grep -obUaP '\x00\x002\x001\x000\x001\x00\x00\x00' "$H" | head -n 1 | cut -d: -f1)
[ -n "$at" ] || fail "no index 2101 in $H"
printf 'x' | dd of="$H" bs=1 seek=$((at + 2)) conv=notrunc 2>/dev/null
state | grep -v ' S[a-zA-Z0-9]*/perfh00C.dat$' >"$TMPDIR/found"

# --- 4. a backup of the damaged database ----------------------------------------
# (taken before repair rewrites the table)
expect_exit 1 "$REGTOOL" $S backup "$TMPDIR/damaged.ini"
expect_grep "^regtool: saved 3 languages and 4 services to $TMPDIR/damaged.ini" "$OUT"
expect_grep "^regtool: backup: Perflib\\\\00C\\\\Help is damaged at byte $((at + 2)) of $n (.*): saved the [0-9]* pairs readable in it" "$ERR"
expect_grep "^regtool: backup: 1 damaged table: " "$ERR"
saved=$(sed -n 's/.*: saved the \([0-9]*\) pairs readable.*/\1/p' "$ERR")
# Each section as INDEX=TEXT lines, the section's name first on each.
pairs() { iconv -f UTF-16LE -t UTF-8 "$1" | tr -d '\r' | awk '/^\[/ { s = $0 } /^[0-9]+=/ { print s $0 }'; }
pairs "$TMPDIR/full.ini" | LC_ALL=C sort >"$TMPDIR/full.pairs"
pairs "$TMPDIR/damaged.ini" | LC_ALL=C sort >"$TMPDIR/damaged.pairs"
# 009 and 019 as they are, 00C's names whole, its help texts those that
# read: each one the full backup's, as many as the message says.
grep -v '^\[PerfStrings_00C\]' "$TMPDIR/damaged.pairs" >"$TMPDIR/a"
pairs "$TMPDIR/repair.ini" | grep -v '^\[PerfStrings_00C\]' | LC_ALL=C sort >"$TMPDIR/b"
cmp -s "$TMPDIR/a" "$TMPDIR/b" || fail "the damaged database's backup differs in its undamaged languages"
names() { grep '^\[PerfStrings_00C\]' "$1" | awk -F'[]=]' '$2 % 2 == 0 || $2 == 1'; }
helps() { grep '^\[PerfStrings_00C\]' "$1" | awk -F'[]=]' '$2 % 2 == 1 && $2 != 1'; }
names "$TMPDIR/full.pairs" >"$TMPDIR/a"; names "$TMPDIR/damaged.pairs" >"$TMPDIR/b"
cmp -s "$TMPDIR/a" "$TMPDIR/b" || fail "00C's names are not all in the damaged database's backup"
helps "$TMPDIR/damaged.pairs" >"$TMPDIR/b"
[ "$(wc -l <"$TMPDIR/b")" -eq "$saved" ] && [ "$saved" -gt 0 ] ||
    fail "00C's help: $(wc -l <"$TMPDIR/b") in the file, the message says $saved"
[ -z "$(LC_ALL=C comm -23 "$TMPDIR/b" "$TMPDIR/full.pairs")" ] ||
    fail "00C's help texts saved are not the table's"
# lodctr /S saves it as well, names the damaged table the same way, and
# returns 0 (Win32 has no "done with warnings" code; docs/reference.md's table).
REGTOOL_STORE="hive:$T" expect_exit 0 "$L" "/S:$TMPDIR/damaged-lodctr.ini"
cmp -s "$TMPDIR/damaged-lodctr.ini" "$TMPDIR/damaged.ini" || fail "lodctr /S saved another file"
expect_grep "^lodctr: backup: Perflib\\\\00C\\\\Help is damaged at byte $((at + 2)) of $n (.*): saved the $saved pairs readable in it" "$ERR"
expect_grep "^lodctr: backup: 1 damaged table: " "$ERR"

expect_exit 0 "$REGTOOL" $S repair --backup "$TMPDIR/repair2.ini"
cmp -s "$TMPDIR/repair2.ini" "$TMPDIR/damaged.ini" || fail "repair's backup is not what backup saves"
expect_exit 0 "$REGTOOL" $S restore "$TMPDIR/repair2.ini"
state | grep -v ' S[a-zA-Z0-9]*/perfh00C.dat$' | diff "$TMPDIR/found" - >&2 ||
    fail "repair's backup of the damaged database restored is not the database repair found"
# and the damaged table is back as its readable pairs: saved again, the
# same file.
expect_exit 0 "$REGTOOL" $S backup "$TMPDIR/again.ini"
cmp -s "$TMPDIR/again.ini" "$TMPDIR/repair2.ini" || fail "the restored 00C Help is not the pairs repair's backup held"
echo "backup promises kept"
