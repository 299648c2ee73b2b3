#!/bin/sh
# Hostile transaction logs, sparse and huge hive files, and interrupts of
# what waits or blocks:
#  - a dirty SOFTWARE whose SOFTWARE.LOG1 is 3 GB of sparse zeros behind
#    its one entry: the writer that replays it reads the log only as far
#    as its entries (peak RSS bounded), and the copy it keeps aside
#    (SOFTWARE.LOG1.regtool-STAMP) holds the base block and the entry,
#    sparse-sized, at the log's mode (0600); the primary's copy keeps its
#    0640. A "log" that is no log (a secret, mode 0600) is not copied.
#  - hive check of a 2 GB sparse hive whose base block covers 8 KB names
#    the discrepancy; hive recover reads and writes only the 8 KB, clean
#    or dirty; a store replays the dirty one from its 8 KB and, as it
#    does a clean one, refuses to write it.
#  - SIGTERM and SIGINT end a reader or a writer waiting for the lock, or
#    blocked opening a FIFO planted as a hive or a journal (or, where
#    such a file is refused before it is opened, the refusal names it):
#    exit 143 or 130 with a message, the tree untouched. A FIFO as the
#    lock file is refused, nothing written.
# Peak RSS bound: 64 MB (not asserted under AddressSanitizer, whose shadow
# memory is no measure of regtool's own). Outside ASan every measured run
# also gets a 1 GB address-space limit, so that a regression fails at
# once instead of filling the machine's memory.
. tests/cli/lib.sh

TIME=/usr/bin/time
[ -x "$TIME" ] || fail "no $TIME (Debian package time: tools/deps.sh installs it)"
MKDIRTY=$TMPDIR/mkdirty
cc -Ilib -o "$MKDIRTY" tests/cli/mkdirty.c lib/regf/marvin32.c \
    lib/regf/base_block.c || fail "cannot build mkdirty"
umask 022
C=Windows/System32/config
PRISTINE=$TMPDIR/pristine
expect_exit 0 "$REGTOOL" --store "hive:$PRISTINE" init --languages 009

# measured LABEL WANT CMD...: CMD exits WANT (stdout $OUT, stderr $ERR)
# within 64 MB of peak RSS.
measured() {
    label=$1 want=$2
    shift 2
    if [ "$ASAN" = 0 ]; then
        # shellcheck disable=SC3045 # dash and bash have ulimit -v
        (ulimit -v 1048576 && "$TIME" -f %M -o "$TMPDIR/rss" "$@") \
            </dev/null >"$OUT" 2>"$ERR"
    else
        "$TIME" -f %M -o "$TMPDIR/rss" "$@" </dev/null >"$OUT" 2>"$ERR"
    fi
    got=$?
    [ "$got" -eq "$want" ] || { cat "$OUT" "$ERR" >&2; fail "$label: exit $got, want $want"; }
    kb=$(tail -n 1 "$TMPDIR/rss")
    echo "$label: exit $got, peak RSS $((kb / 1024)) MB (bound 64 MB)"
    if [ "$ASAN" = 0 ] && [ "$kb" -gt $((64 * 1024)) ]; then
        fail "$label: peak RSS $kb KB over 64 MB"
    fi
}
# mode FILE: its permission bits, as 600.
mode() { stat -c %a "$1"; }
# small FILE: it takes under 64 KB of disk, whatever its size.
small() {
    [ "$(du -k "$1" | cut -f1)" -lt 64 ] || fail "$1 takes $(du -k "$1" | cut -f1) KB of disk"
}
# one PATTERN: the one file PATTERN matches.
one() {
    # shellcheck disable=SC2086 # the pattern is to be expanded
    set -- $1
    if [ $# -ne 1 ] || [ ! -e "$1" ]; then
        fail "want one file, found: $*"
    fi
    echo "$1"
}

# 1. A dirty SOFTWARE whose LOG1 is its one entry and 3 GB of sparse
# zeros, at mode 0600; the primary at 0640.
W=$TMPDIR/w1
cp -a "$PRISTINE" "$W"
"$MKDIRTY" "$W/$C/SOFTWARE" || fail "mkdirty failed"
cp "$W/$C/SOFTWARE" "$TMPDIR/software.dirty"
cp "$W/$C/SOFTWARE.LOG1" "$TMPDIR/log1.entries"
entries=$(wc -c <"$TMPDIR/log1.entries")
truncate -s 3G "$W/$C/SOFTWARE.LOG1"
chmod 0600 "$W/$C/SOFTWARE.LOG1"
chmod 0640 "$W/$C/SOFTWARE"
measured "disable PerfOS over a 3 GB sparse LOG1" 0 \
    "$REGTOOL" --store "hive:$W" disable PerfOS
expect_grep "^disabled PerfOS" "$OUT"
log_copy=$(one "$W/$C/SOFTWARE.LOG1.regtool-*")
hive_copy=$(one "$W/$C/SOFTWARE.regtool-*")
[ "$(wc -c <"$log_copy")" -eq "$entries" ] ||
    fail "the log's copy is $(wc -c <"$log_copy") bytes, not its $entries bytes of entries"
cmp -s "$log_copy" "$TMPDIR/log1.entries" || fail "the log's copy is not its base block and entry"
small "$log_copy"
[ "$(mode "$log_copy")" = 600 ] || fail "the log's copy has mode $(mode "$log_copy"), not the log's 600"
cmp -s "$hive_copy" "$TMPDIR/software.dirty" || fail "the primary's copy differs from it"
[ "$(mode "$hive_copy")" = 640 ] || fail "the primary's copy has mode $(mode "$hive_copy"), not its 640"
# The log replayed, the hive written clean.
expect_exit 0 "$REGTOOL" hive check "$W/$C/SOFTWARE"
rm -rf "$W"

# 2. A normal log at 0600, and a "LOG2" that is no log but a secret of
# the same mode (what a link to /etc/shadow reads as): the log is
# replayed and copied at 0600, the secret is not copied.
W=$TMPDIR/w2
cp -a "$PRISTINE" "$W"
"$MKDIRTY" "$W/$C/SOFTWARE" || fail "mkdirty failed"
chmod 0600 "$W/$C/SOFTWARE.LOG1"
# shellcheck disable=SC2016 # a shadow line's dollars, as they are
printf 'root:$6$salt$hash:19000:0:99999:7:::\n' >"$W/$C/SOFTWARE.LOG2"
chmod 0600 "$W/$C/SOFTWARE.LOG2"
measured "disable PerfOS beside a LOG2 that is no log" 0 \
    "$REGTOOL" --store "hive:$W" disable PerfOS
log_copy=$(one "$W/$C/SOFTWARE.LOG1.regtool-*")
[ "$(mode "$log_copy")" = 600 ] || fail "the log's copy has mode $(mode "$log_copy"), not 600"
cmp -s "$log_copy" "$W/$C/SOFTWARE.LOG1" || fail "the log's copy differs from it"
for f in "$W/$C"/SOFTWARE.LOG2.regtool-*; do
    [ ! -e "$f" ] || fail "the file that is no log was copied: $f"
done
rm -rf "$W"

# 3. A 2 GB sparse hive whose base block covers 8 KB (SOFTWARE as init
# writes it), clean and then dirty.
H=$TMPDIR/h
mkdir "$H"
cp "$PRISTINE/$C/SOFTWARE" "$H/clean"
cp "$H/clean" "$H/dirty"
"$MKDIRTY" "$H/dirty" || fail "mkdirty failed"
cp "$H/dirty" "$TMPDIR/dirty.8k"
covered=$(wc -c <"$H/clean")
[ "$covered" -eq 8192 ] || fail "init's SOFTWARE is $covered bytes, not 8 KB"
truncate -s 2G "$H/clean" "$H/dirty"
for kind in clean dirty; do
    want=1
    measured "hive check of the 2 GB $kind hive" "$want" "$REGTOOL" hive check "$H/$kind"
    expect_grep "^warning at file offset 0x28: the file is 2147483648 bytes, 2147475456 past the hive bins its base block covers (8192 bytes)" "$OUT"
    [ $kind = dirty ] && want=0
    measured "hive recover of the 2 GB $kind hive" "$want" \
        "$REGTOOL" hive recover "$H/$kind" -o "$H/$kind.out"
    expect_grep "^note: '$H/$kind' is 2147483648 bytes, 2147475456 past the 8192 its base block and hive bins take up" "$OUT"
    [ "$(wc -c <"$H/$kind.out")" -eq 8192 ] ||
        fail "recover of the $kind hive wrote $(wc -c <"$H/$kind.out") bytes, not the 8192 its base block covers"
    small "$H/$kind.out"
    expect_exit 0 "$REGTOOL" hive check "$H/$kind.out"
done
cmp -s "$H/clean.out" "$PRISTINE/$C/SOFTWARE" || fail "recover of the clean hive is not its 8 KB"
# As a store's SOFTWARE, the dirty one is replayed from its bins alone,
# and, like a clean one, never written.
W=$TMPDIR/w3
cp -a "$PRISTINE" "$W"
mv "$H/dirty" "$W/$C/SOFTWARE"
mv "$H/dirty.LOG1" "$W/$C/SOFTWARE.LOG1"
: >"$W/$C/regtool.lock"
# Every file by its hash, the 2 GB one by its size, time and blocks
# (tree_state), and that one's first 8 KB below.
tree_state "$W" >"$TMPDIR/before"
measured "disable PerfOS with the 2 GB dirty SOFTWARE" 2 \
    "$REGTOOL" --store "hive:$W" disable PerfOS
expect_grep "SOFTWARE runs 2147475456 bytes past the hive bins its base block covers (8192 bytes).*Nothing was written" "$ERR"
expect_same_tree "$W" "$TMPDIR/before" "the refused disable changed the tree"
if [ "$(wc -c <"$W/$C/SOFTWARE")" -ne 2147483648 ] ||
    ! cmp -s -n 8192 "$W/$C/SOFTWARE" "$TMPDIR/dirty.8k"; then
    fail "the refused disable changed SOFTWARE"
fi
rm -rf "$H" "$W"

# 4. Interrupts. alive PID: running (a zombie is not).
alive() {
    s=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)
    [ -n "$s" ] && [ "$s" != Z ]
}
# until_ PID TEST...: polls TEST for up to 10 s while PID runs.
until_() {
    p=$1
    shift
    i=0
    while alive "$p" && ! "$@"; do
        i=$((i + 1))
        [ $i -le 1000 ] || return 1
        sleep 0.01
    done
}
# ends PID SIG WANT LABEL: sends SIG; PID ends within 10 s with WANT.
ends() {
    kill -"$2" "$1" 2>/dev/null
    until_ "$1" false
    if alive "$1"; then
        kill -KILL "$1"
        wait "$1"
        fail "$4: still running 10 s after SIG$2"
    fi
    wait "$1"
    got=$?
    [ "$got" -eq "$3" ] || { cat "$OUT" "$ERR" >&2; fail "$4: exit $got after SIG$2, want $3"; }
}
waiting() { grep -q "waiting for another regtool" "$ERR"; }
blocked_on_fifo() { grep -q wait_for_partner "/proc/$pid/wchan" 2>/dev/null; }

W=$TMPDIR/w4
cp -a "$PRISTINE" "$W"
tree_state "$W" >"$TMPDIR/before"
hold_lock -x "$W/$C/regtool.lock"
trap 'kill $holder 2>/dev/null' EXIT
# A reader waiting behind the writer, then a writer. $ERR is emptied
# before each starts: the background shell opens it only when it gets to
# it, and a "waiting" line left by the one before would be taken for the
# new one's (the signal then comes before it has taken interrupts over).
: >"$ERR"
"$REGTOOL" --store "hive:$W" query >"$OUT" 2>"$ERR" &
pid=$!
until_ $pid waiting || fail "the reader never said it waits"
ends $pid TERM 143 "query waiting for the lock"
expect_grep "^regtool: interrupted: stopped at once" "$ERR"
: >"$ERR"
"$REGTOOL" --store "hive:$W" disable PerfOS >"$OUT" 2>"$ERR" &
pid=$!
until_ $pid waiting || fail "the writer never said it waits"
ends $pid INT 130 "disable waiting for the lock"
expect_grep "^regtool: interrupted while waiting for another regtool" "$ERR"
kill $holder
wait $holder 2>/dev/null
trap - EXIT
# The lock's note was never written, nor anything else.
: >"$W/$C/regtool.lock"
tree_state "$W" | grep -v regtool.lock >"$TMPDIR/after"
grep -v regtool.lock "$TMPDIR/before" | diff - "$TMPDIR/after" >&2 ||
    fail "an interrupted wait changed the tree"

# fifo LABEL NAME SIG WANT CMD...: with a FIFO as $W/$C/NAME, CMD (in the
# background) refuses it at once, saying so with its name (exit 2 or 3;
# 0 for a reader that goes on without it), or blocks on it and SIG ends
# it with WANT and a message. Nothing in the
# tree changes (the lock file is left empty, as a writer leaves it).
fifo() {
    label=$1 name=$2 sig=$3 want=$4
    shift 4
    mv "$W/$C/$name" "$TMPDIR/moved" 2>/dev/null
    mkfifo "$W/$C/$name"
    tree_state "$W" >"$TMPDIR/before"
    "$@" >"$OUT" 2>"$ERR" &
    pid=$!
    until_ $pid blocked_on_fifo
    if alive $pid; then
        ends $pid "$sig" "$want" "$label"
        grep -q "^regtool: " "$ERR" || fail "$label: no message after SIG$sig"
    else
        wait $pid
        got=$?
        # 0: a reader that goes on without the file it refuses.
        case $got in 0 | 2 | 3) ;; *) cat "$OUT" "$ERR" >&2; fail "$label: exit $got" ;; esac
        grep -q "$name" "$ERR" || fail "$label: the refusal does not name $name"
    fi
    echo "$label: exit $got"
    expect_same_tree "$W" "$TMPDIR/before"
    rm -f "$W/$C/$name"
    [ ! -e "$TMPDIR/moved" ] || mv "$TMPDIR/moved" "$W/$C/$name"
}
fifo "disable with SYSTEM a FIFO" SYSTEM TERM 143 \
    "$REGTOOL" --store "hive:$W" disable PerfOS
fifo "enable with the journal a FIFO" regtool.journal INT 130 \
    "$REGTOOL" --store "hive:$W" enable PerfOS
fifo "query with the journal a FIFO" regtool.journal TERM 143 \
    "$REGTOOL" --store "hive:$W" query

# A FIFO as the lock file: never taken for one, nothing written.
rm "$W/$C/regtool.lock"
mkfifo "$W/$C/regtool.lock"
tree_state "$W" >"$TMPDIR/before"
expect_exit 3 "$REGTOOL" --store "hive:$W" disable PerfOS
expect_grep "regtool.lock.*nothing was written" "$ERR"
expect_same_tree "$W" "$TMPDIR/before"
rm -f "$W/$C/regtool.lock"

# 5. Something that is not a file named like a log (a FIFO, a folder, a
# dangling link, a link to a host file) as SOFTWARE.LOG1 beside a dirty
# SOFTWARE: refused by name, never opened or read. A writer refuses the
# hive as one whose logs cannot be replayed (exit 2, --force-dirty
# writes it anyway), naming the entry and what it is; a reader reads the
# hive as it is with a warning naming it (exit 0); hive check names it
# (exit 1, dirty); hive recover refuses it (exit 2). Each within
# `timeout 20` (a FIFO must not block), the tree and the host file
# byte-identical. Beside a clean hive the same entry is never read (as
# Windows ignores a clean hive's logs): a writer goes on (exit 0), and
# hive check lists it as not read.
HOST=$TMPDIR/host
mkdir -p "$HOST"
printf 'host file: must never change\n' >"$HOST/victim"
chmod 600 "$HOST/victim"
tree_state "$HOST" >"$TMPDIR/host.state"
W=$TMPDIR/w5
# plant KIND: SOFTWARE.LOG1 as KIND in $W/$C, with the lock file a
# writer leaves.
plant() {
    rm -rf "$W/$C/SOFTWARE.LOG1"
    case $1 in
    fifo) mkfifo "$W/$C/SOFTWARE.LOG1" ;;
    folder) mkdir "$W/$C/SOFTWARE.LOG1" ;;
    dangling) ln -s "$HOST/no-such-file" "$W/$C/SOFTWARE.LOG1" ;;
    host-link) ln -s "$HOST/victim" "$W/$C/SOFTWARE.LOG1" ;;
    esac
    : >"$W/$C/regtool.lock"
}
# bounded WANT LABEL CMD...: CMD exits WANT within 20 s.
bounded() {
    want=$1 label=$2
    shift 2
    timeout 20 "$@" </dev/null >"$OUT" 2>"$ERR"
    got=$?
    [ "$got" -ne 124 ] || fail "$label: still running after 20 s"
    [ "$got" -eq "$want" ] || { cat "$OUT" "$ERR" >&2; fail "$label: exit $got, want $want"; }
    echo "$label: exit $got"
}
for kind in fifo folder dangling host-link; do
    case $kind in
    fifo) what="a FIFO" ;;
    folder) what="a folder" ;;
    *) what="a symbolic link" ;;
    esac
    said="$C/SOFTWARE.LOG1 is $what, not a regular file: refused"
    rm -rf "$W"
    cp -a "$PRISTINE" "$W"
    "$MKDIRTY" "$W/$C/SOFTWARE" || fail "mkdirty failed"
    plant $kind
    tree_state "$W" >"$TMPDIR/before"
    bounded 2 "disable beside a dirty SOFTWARE whose LOG1 is $kind" \
        "$REGTOOL" --store "hive:$W" disable PerfOS
    expect_grep "SOFTWARE is dirty and its transaction logs cannot be replayed ($W/$said)" "$ERR"
    bounded 0 "query beside a dirty SOFTWARE whose LOG1 is $kind" \
        "$REGTOOL" --store "hive:$W" query
    expect_grep "warning: hive is dirty and its logs cannot be replayed ($W/$said)" "$ERR"
    bounded 1 "hive check of a dirty SOFTWARE whose LOG1 is $kind" \
        "$REGTOOL" hive check "$W/$C/SOFTWARE"
    expect_grep "^replay: nothing usable ($W/$said)" "$OUT"
    bounded 2 "hive recover of a dirty SOFTWARE whose LOG1 is $kind" \
        "$REGTOOL" hive recover "$W/$C/SOFTWARE" -o "$TMPDIR/recovered"
    expect_grep "$said" "$ERR"
    [ ! -e "$TMPDIR/recovered" ] || fail "hive recover wrote its output beside a LOG1 that is $kind"
    expect_same_tree "$W" "$TMPDIR/before"
    expect_same_tree "$HOST" "$TMPDIR/host.state"
    [ ! -e "$HOST/no-such-file" ] || fail "the dangling LOG1 created its target"
    # A clean SOFTWARE: the entry is never read, the writer goes on.
    rm -rf "$W"
    cp -a "$PRISTINE" "$W"
    plant $kind
    bounded 0 "disable beside a clean SOFTWARE whose LOG1 is $kind" \
        "$REGTOOL" --store "hive:$W" disable PerfOS
    bounded 0 "hive check of a clean SOFTWARE whose LOG1 is $kind" \
        "$REGTOOL" hive check "$W/$C/SOFTWARE"
    expect_grep "^log $W/$C/SOFTWARE.LOG1: invalid, 0 valid entries; $what, not a regular file: not read" "$OUT"
    expect_same_tree "$HOST" "$TMPDIR/host.state"
    [ ! -e "$HOST/no-such-file" ] || fail "the dangling LOG1 created its target"
done
rm -rf "$W"

# Two logs of one slot, in two letter cases (SOFTWARE.LOG1, SOFTWARE.log1),
# beside a dirty SOFTWARE: which one Windows wrote is not known, so
# neither is replayed; hive check and every reader name both (one was
# taken quietly, the other never named).
W=$TMPDIR/twins
cp -a "$PRISTINE" "$W"
"$MKDIRTY" "$W/$C/SOFTWARE" || fail "mkdirty failed"
cp "$W/$C/SOFTWARE.LOG1" "$W/$C/SOFTWARE.log1"
expect_exit 1 "$REGTOOL" hive check "$W/$C/SOFTWARE"
expect_grep "SOFTWARE.LOG1 and .*SOFTWARE.log1 both name one log of the hive, in two letter cases: which one Windows wrote is not known; refused" "$OUT"
expect_exit 0 "$REGTOOL" --store "hive:$W" query
expect_grep "SOFTWARE: warning: hive is dirty and its logs cannot be replayed (.*SOFTWARE.LOG1 and .*SOFTWARE.log1 both name one log" "$ERR"
rm -rf "$W"

# The names the copies aside would take planted for every second of the
# next two minutes (SOFTWARE.regtool-STAMP): a writer still replays the
# dirty hive, its copy taking another name (each writer failed with
# "File exists"), and no planted file changes.
W=$TMPDIR/stamps
cp -a "$PRISTINE" "$W"
"$MKDIRTY" "$W/$C/SOFTWARE" || fail "mkdirty failed"
now=$(date -u +%s)
awk -v now="$now" 'BEGIN { for (i = -2; i <= 120; i++) print now + i }' |
    while read -r t; do
        : >"$W/$C/SOFTWARE.regtool-$(date -u -d "@$t" +%Y%m%dT%H%M%S)"
    done
expect_exit 0 "$REGTOOL" --store "hive:$W" disable PerfOS
expect_grep "the files as they were are kept beside it as SOFTWARE.regtool-[0-9T]*-[0-9]*-1," "$ERR"
[ -z "$(find "$W/$C" -name 'SOFTWARE.regtool-*' ! -name '*-*-*' -size +0)" ] ||
    fail "a planted SOFTWARE.regtool-STAMP was written"
rm -rf "$W"
