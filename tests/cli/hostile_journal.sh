# A journal found in a tree is data, not a command (issue 37): whoever
# wrote the disk wrote its regtool.journal too, CRCs and all (mkjournal
# computes them). Victim files lie OUTSIDE the tree, in $TMPDIR/victim.
# - a sealed journal whose record writes, cuts or removes a host file, by
#   '..', an absolute path, a backslash or a control character, or names
#   a file of the tree that is not one of the store's: a writer exits 2
#   naming the journal and the record's path and saying to move it aside;
#   every victim and the whole tree stay byte-identical, the journal too;
# - the same for an unsealed journal whose intent block names a host file
#   (its roll-back would cut the file to 0 bytes);
# - a good record before the bad one is not applied either: everything is
#   checked before anything is done, what stands at each path too (a
#   later record's file a link: the first record's file byte-identical);
# - a journal that is a device, a FIFO, a link, a hard link or larger than any commit
#   writes is refused without being read (no hang, no unbounded memory);
# - a file that is no journal of ours (a hive, random bytes) is refused and
#   left in place, not discarded; an unsealed journal of ours is discarded;
# - readers (names, query, audit, backup, dry runs) never replay, say in
#   one line what is pending, and read the files as they are: a journal
#   that would put back a clean SYSTEM does not hide a provider whose
#   Library is in C:\Users\Public from audit --libraries;
# - a writer prints each file and its bytes before it replays a journal
#   of the store's own files, then finishes it.
. tests/cli/lib.sh

MKJ=$TMPDIR/mkjournal
cc -Ilib -o "$MKJ" tests/cli/mkjournal.c lib/commit/crc32.c ||
    fail "cannot build mkjournal"

P=$TMPDIR/prov
mkdir -p "$P"
printf '#define OBJ 0\n#define CNT 2\n' >"$P/o.h"
printf '[info]\ndrivername=Xfer\nsymbolfile=o.h\n[languages]\n009=English\n[text]\nOBJ_009_NAME=Xfer\nOBJ_009_HELP=X.\nCNT_009_NAME=Count\nCNT_009_HELP=C.\n' >"$P/x.ini"

# A clean tree (kept for its SYSTEM), and one with a provider whose
# Library is where users can write.
CLEAN=$TMPDIR/clean/w
expect_exit 0 $REGTOOL --store "hive:$CLEAN" init --languages 009
PRISTINE=$TMPDIR/pristine/w
cp -a "$TMPDIR/clean" "$TMPDIR/pristine"
expect_exit 0 $REGTOOL --store "hive:$PRISTINE" install --create-service \
    --library 'C:\Users\Public\evil.dll' --open O --collect C --close X "$P/x.ini"
rm -f "$PRISTINE/Windows/System32/config/regtool.lock"

T=$TMPDIR/t
W=$T/w
C=$W/Windows/System32/config
J=$C/regtool.journal
V=$TMPDIR/victim
# Relative to the journal's base (the Windows directory), the way out.
OUT_OF=../../../../../../../..
fresh() {
    rm -rf "$T" "$V"
    mkdir -p "$T" "$V/cron.d"
    cp -a "$PRISTINE" "$W"
    # The lock file as any released one is (a writer creates it first).
    : >"$C/regtool.lock"
    printf 'root:x:0:0:root:/root:/bin/sh\n' >"$V/passwd"
    printf 'keep me\n' >"$V/keep"
}
# snapshot: the tree and the victims (as tree_state sees them), for
# unchanged; the journal by its kind and size, and its bytes when small
# (hashing a journal of gigabytes would take a minute).
state() {
    (cd "$TMPDIR" &&
        find t victim ! -path t/w/Windows/System32/config/regtool.journal \
            \( \( -type f -exec sha256sum {} + \) -o -printf 'dir %p\n' \) |
        LC_ALL=C sort -k2)
    ls -ln "$J" 2>/dev/null | cut -d' ' -f1,5
}
snapshot() { state >"$TMPDIR/before"; }
unchanged() {
    [ -f "$C/SOFTWARE" ] && [ -f "$V/keep" ] || fail "$1: no tree or victims to compare"
    state | diff "$TMPDIR/before" - >&2 ||
        fail "$1: the tree or a victim changed (diff above)"
    [ ! -f "$J" ] || [ -L "$J" ] || [ "$(wc -c <"$J")" -gt 100000 ] ||
        cmp -s "$J" "$TMPDIR/planted" || fail "$1: the journal changed"
}

# plant MKJOURNAL-ARGS...: the journal in the tree, a copy to compare.
plant() { "$MKJ" "$J" "$@" && cp "$J" "$TMPDIR/planted" || fail "mkjournal $*"; }

# refused LABEL PATH-IN-MESSAGE MKJOURNAL-ARGS...: the journal planted, a
# writer refuses it whole with exit 2, and nothing changes anywhere.
refused() {
    _label=$1 _shown=$2
    shift 2
    fresh
    plant "$@"
    snapshot
    expect_exit 2 $REGTOOL --store "hive:$W" enable Xfer
    expect_grep "regtool.journal: .*names '$_shown'" "$ERR"
    expect_grep "the journal is refused whole: nothing was replayed, cut back or removed" "$ERR"
    expect_grep "move it aside (mv $J $J.refused)" "$ERR"
    grep -q "finish" "$ERR" && fail "$_label: a refused journal was finished"
    unchanged "$_label"
    [ ! -e "$V/cron.d/x" ] || fail "$_label: a host file was created"
}

# The issue's journal: a new file in cron.d, mode 0644, by '..'.
refused "write by .." "$OUT_OF$V/cron.d/x" \
    "w|$OUT_OF$V/cron.d/x|0|* * * * * root evil\\n"
# Overwriting, cutting and removing a host file.
refused "overwrite" "$OUT_OF$V/passwd" "w|$OUT_OF$V/passwd|0|evil::0:0::/:/bin/sh\\n"
refused "cut" "$OUT_OF$V/keep" "s|$OUT_OF$V/keep|0"
refused "delete" "$OUT_OF$V/keep" "d|$OUT_OF$V/keep|0"
refused "absolute" "$V/keep" "d|$V/keep|0"
refused "backslash" '\.\.\\x5c\.\.\\x5ckeep' 'd|..\..\keep|0'
refused "control character" 'INF/x\\x1b\[2J/0009/a.ini' 'w|INF/x\x1b[2J/0009/a.ini|0|x'
# In the tree, but no file of the store: a driver, a file beside the
# hives, a table of another name.
refused "not a store file" "System32/drivers/evil.sys" "w|System32/drivers/evil.sys|0|MZ"
refused "beside the hives" "System32/config/SAM" "s|System32/config/SAM|0"
# An INF copy's shape, but names no install makes: a device, a name
# Windows trims, a short name's shape that is another provider's folder
# on Windows (review 43 R43-8).
refused "device in an INF record" "INF/CON/0009/COM1" "w|INF/CON/0009/COM1|0|x"
refused "short name in an INF record" "INF/TRANSF~1/0009/transfer.ini" \
    "w|INF/TRANSF~1/0009/transfer.ini|0|OVER"
refused "trimmed name in an INF record" "INF/Planted\./0009/x.ini" \
    "w|INF/Planted./0009/x.ini|0|x"
# A store file grown past what such a file may be (sparse, so free on
# disk): a hive past the 2 GB its reader takes made the store unreadable,
# PerfStringBackup.INI past a backup's 1536 MiB, a table past its 256 MiB.
refused "hive past 2 GB" "System32/config/SOFTWARE" "s|System32/config/SOFTWARE|3000000000"
expect_grep "it makes the file larger than the 2147487744 bytes such a file of the store may be" "$ERR"
refused "side file past its cap" "System32/PerfStringBackup.INI" "w|System32/PerfStringBackup.INI|2000000000|x"
refused "table past its cap" "System32/perfc009.dat" "s|System32/perfc009.dat|300000000"
# Each file within its cap, but together past what any commit of the
# store leaves them (hundreds of sparse tables from a journal of a few
# kilobytes): refused whole by the total, which is the hives' journal
# bound, the tables' cap in all (1 GiB) and a backup's (1.5 GiB).
fresh
set --
for l in 009 007 00C 010 011 019 404 804; do
    set -- "$@" "s|System32/perfc$l.dat|250000000" "s|System32/perfh$l.dat|250000000"
done
plant "$@"
snapshot
expect_exit 2 $REGTOOL --store "hive:$W" enable Xfer
expect_grep "regtool.journal: its 16 files would reach 4000000000 bytes in all, more than the [0-9]* any commit of this store leaves them" "$ERR"
expect_grep "the journal is refused whole: nothing was replayed, cut back or removed" "$ERR"
unchanged "files past the total"
# An unsealed journal: its intent block would cut a host file to 0 bytes
# when the next writer rolls it back.
refused "intent block" "$OUT_OF$V/passwd" -u "i|$OUT_OF$V/passwd|0"
expect_grep "the intent block's entry 1 names" "$ERR"
# A good record first: still nothing is applied.
refused "checked first" "$OUT_OF$V/keep" "w|System32/config/SYSTEM|0|regf-but-not" \
    "d|$OUT_OF$V/keep|0"
expect_grep "record 2 names" "$ERR"
# What stands at a record's path is checked before any record is
# applied: a second record whose file is a link to a host file leaves
# the first record's SYSTEM byte-identical (it was written before the
# refusal at the second record's turn).
fresh
rm -f "$W/Windows/System32/PerfStringBackup.INI"
ln -s "$V/keep" "$W/Windows/System32/PerfStringBackup.INI"
plant "w|System32/config/SYSTEM|4096|EVIL" "w|System32/PerfStringBackup.INI|0|evil"
snapshot
expect_exit 2 $REGTOOL --store "hive:$W" enable Xfer
expect_grep "it would write System32/PerfStringBackup.INI, but .*PerfStringBackup.INI is a symbolic link, not a regular file; nothing was replayed, cut back or removed, and the journal stays" "$ERR"
grep -q ": finished the" "$ERR" && fail "a journal with a linked file was finished"
unchanged "second record a link"
# A removal pruning folders above the tree.
fresh
plant "d|INF/Xfer/0009/x.ini|9"
snapshot
expect_exit 2 $REGTOOL --store "hive:$W" uninstall Xfer
expect_grep "record 1 names 'INF/Xfer/0009/x.ini': its removal would remove folders above the tree" "$ERR"
unchanged "prune"

# Journals that are not read at all: larger than any commit writes (a
# sparse file: nothing is allocated to say no), a device, a link to a host
# file, a FIFO.
fresh
truncate -s 3G "$J"
snapshot
expect_exit 2 $REGTOOL --store "hive:$W" enable Xfer
expect_grep "regtool.journal: 3221225472 bytes, more than the [0-9]* any commit of this store writes" "$ERR"
unchanged "huge"
rm "$J"
ln -s /dev/zero "$J"
snapshot
expect_exit 2 $REGTOOL --store "hive:$W" enable Xfer
expect_grep "regtool.journal: not a regular file" "$ERR"
unchanged "device"
rm "$J"
ln -s "$V/passwd" "$J"
snapshot
expect_exit 2 $REGTOOL --store "hive:$W" enable Xfer
expect_grep "regtool.journal: not a regular file" "$ERR"
unchanged "link"
rm "$J"
mkfifo "$J"
snapshot
expect_exit 2 timeout 10 $REGTOOL --store "hive:$W" enable Xfer
expect_grep "regtool.journal: not a regular file" "$ERR"
unchanged "fifo"
rm "$J"
# A hard link to a host file (a tree on the host's file system): refused
# as a hard link before a byte is read, by writers and readers alike, and
# none of the host file's bytes is shown.
printf 'SECRET-TOKEN-0123\n' >"$V/token"
ln "$V/token" "$J"
cp "$V/token" "$TMPDIR/planted"
snapshot
for cmd in "enable Xfer" "query"; do
    case $cmd in enable*) rc=2 ;; *) rc=0 ;; esac
    # shellcheck disable=SC2086
    expect_exit $rc $REGTOOL --store "hive:$W" $cmd
    expect_grep "regtool.journal: not a journal of regtool: it is a hard link (2 links), and regtool writes no file of a tree that another name shares; the journal is refused whole" "$ERR"
    grep -q SECRET "$ERR" "$OUT" && fail "hard-linked journal, $cmd: the host file's bytes were shown"
    unchanged "hard-linked journal, $cmd"
done
rm "$J" "$V/token"

# A file that is no journal of ours (a hive copied there, random bytes)
# is not an unfinished change: a writer refuses it (exit 2) naming it but
# not showing its bytes, and leaves it, byte for byte; a reader says so in one
# line. An unsealed journal of ours is still discarded.
for junk in hive random; do
    fresh
    case $junk in
    hive) cp "$C/SOFTWARE" "$J" ;;
    random) printf '\217\023\247U\340\001\234B{=garbage\n' >"$J" ;;
    esac
    cp "$J" "$TMPDIR/planted"
    snapshot
    expect_exit 2 $REGTOOL --store "hive:$W" enable Xfer
    expect_grep "regtool.journal: not a journal of regtool (it does not begin with 'RTJOURN3'): it is refused and left where it is, not discarded as an unfinished change; nothing was written" "$ERR"
    # Its bytes are not shown: it may be anyone's file.
    grep -q "begins with\|garbage\|regf" "$ERR" && fail "$junk as the journal: its bytes were shown"
    expect_grep "move it aside (mv $J $J.refused)" "$ERR"
    unchanged "$junk as the journal"
    cmp -s "$J" "$TMPDIR/planted" || fail "$junk as the journal: not left in place"
    expect_exit 0 $REGTOOL --store "hive:$W" names --json
    expect_grep "not a journal of regtool" "$ERR"
    unchanged "$junk as the journal, read"
done
fresh
sys_size=$(wc -c <"$C/SYSTEM")
plant -u "i|System32/config/SYSTEM|$sys_size"
expect_exit 0 $REGTOOL --store "hive:$W" disable Xfer
expect_grep "regtool.journal: discarded .*, which never reached its commit point" "$ERR"
[ ! -e "$J" ] || fail "an unsealed journal of ours was not discarded"

# Readers never replay. Their output and status with a planted journal
# are what they are without one; the journal costs one line on stderr,
# and for audit one finding more (journal-refused, an error;
# journal-pending, a warning), all else the same.
# audit_same WHAT: $OUT is the clean audit's output but for its journal
# finding and its count of findings.
audit_same() {
    grep -v "^[a-z]* *journal-\|^[0-9]* error" "$OUT" >"$TMPDIR/audit.now"
    grep -v "^[0-9]* error" "$TMPDIR/audit.clean" >"$TMPDIR/audit.was"
    cmp -s "$TMPDIR/audit.now" "$TMPDIR/audit.was" || {
        diff "$TMPDIR/audit.was" "$TMPDIR/audit.now" >&2
        fail "$1 (diff above)"
    }
}
fresh
expect_exit 1 $REGTOOL --store "hive:$W" audit --libraries
expect_grep "Library C:.Users.Public.evil.dll is in a place users can write to" "$OUT"
cp "$OUT" "$TMPDIR/audit.clean"
expect_exit 0 $REGTOOL --store "hive:$W" names --json
cp "$OUT" "$TMPDIR/names.clean"
expect_exit 0 $REGTOOL --store "hive:$W" backup "$TMPDIR/backup.clean"
# A refused journal: readers say so and go on.
plant "w|$OUT_OF$V/cron.d/x|0|* * * * * root evil\\n"
snapshot
expect_exit 2 $REGTOOL --store "hive:$W" audit --libraries
audit_same "audit changed by a refused journal"
expect_grep "^error *journal-refused: .*names '$OUT_OF$V/cron.d/x': a '..' component; the journal is refused whole" "$OUT"
expect_grep "names '$OUT_OF$V/cron.d/x': a '..' component; the journal is refused whole" "$ERR"
[ "$(wc -l <"$ERR")" -eq 1 ] || fail "more than one line: $(cat "$ERR")"
expect_exit 0 $REGTOOL --store "hive:$W" names --json
cmp -s "$OUT" "$TMPDIR/names.clean" || fail "names changed by a refused journal"
unchanged "readers of a refused journal"

# The audit-hiding journal: all its records are the store's own (SYSTEM
# written whole with a clean hive's bytes, no Xfer in it), sealed. The
# audit reads the files, not what the journal would make of them.
sys_size=$(wc -c <"$CLEAN/Windows/System32/config/SYSTEM")
plant -n "change of 1 values" \
    "f|System32/config/SYSTEM|0|$CLEAN/Windows/System32/config/SYSTEM" \
    "s|System32/config/SYSTEM|$sys_size"
snapshot
expect_exit 1 $REGTOOL --store "hive:$W" audit --libraries
audit_same "a journal changed what audit sees"
expect_grep "^warning *journal-pending: .*is not yet in the files, which are read as they are" "$OUT"
expect_grep "regtool.journal: the change of 1 values committed at .* is not yet in the files, which are read as they are (part-way through it, if a crash stopped it there); it would change System32/config/SYSTEM ($sys_size bytes) in $W/Windows" "$ERR"
[ "$(wc -l <"$ERR")" -eq 1 ] || fail "more than one line: $(cat "$ERR")"
for cmd in "names --json" "query Xfer" "uninstall --dry-run Xfer"; do
    # shellcheck disable=SC2086
    expect_exit 0 $REGTOOL --store "hive:$W" $cmd
    expect_grep "is not yet in the files, which are read as they are" "$ERR"
done
expect_exit 0 $REGTOOL --store "hive:$W" names --json
cmp -s "$OUT" "$TMPDIR/names.clean" || fail "names read the journal"
expect_exit 0 $REGTOOL --store "hive:$W" backup "$TMPDIR/backup.pending"
cmp -s "$TMPDIR/backup.pending" "$TMPDIR/backup.clean" || fail "backup read the journal"
rm -f "$TMPDIR/backup.pending"
# The dry runs of the recovery verbs are readers too: nothing written, the
# journal neither replayed nor removed, said all the same (they had taken
# the writer's path, applied it and removed it).
for cmd in "repair --dry-run" "rebuild --dry-run --accept-loss" \
    "restore --dry-run --force $TMPDIR/backup.clean"; do
    # shellcheck disable=SC2086
    $REGTOOL --store "hive:$W" $cmd >"$OUT" 2>"$ERR" || [ $? -eq 1 ] ||
        fail "$cmd: exit $?: $(cat "$ERR")"
    expect_grep "is not yet in the files, which are read as they are" "$ERR"
done
unchanged "readers"

# A writer finishes a journal of the store's own files, saying first what
# it writes: the file and its bytes.
expect_exit 4 $REGTOOL --store "hive:$W" enable NoSuchProvider
expect_grep "regtool.journal: finishing the change of 1 values committed at .*, which changes 1 file:" "$ERR"
expect_grep "^regtool:   $C/SYSTEM: $sys_size bytes written, $sys_size bytes long after" "$ERR"
expect_grep "regtool.journal: finished the change of 1 values" "$ERR"
[ "$(grep -n finishing "$ERR" | cut -d: -f1)" -lt "$(grep -n finished "$ERR" | cut -d: -f1)" ] ||
    fail "the writer did not say what it writes before writing it"
cmp -s "$C/SYSTEM" "$CLEAN/Windows/System32/config/SYSTEM" || fail "SYSTEM not replayed"
[ ! -e "$J" ] || fail "journal not retired"
