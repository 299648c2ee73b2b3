# A dry run refuses what its commit would refuse, in the same words and
# with the same exit code, having written nothing: what stands where the
# commit writes a file the plan never reads (an INF copy's folder planted
# as a file, a FIFO, a link to a host folder; a SysWOW64 table or an INF
# copy's symbol file hard-linked to a host file), and a REGEDIT4 store
# whose code page cannot hold the new texts (review 37 F4, F5: each dry
# run said exit 0), and what the writer's begin() refuses (a journal or a
# lock that is a folder, a FIFO or a link: review 38 F3), also when there
# is nothing to change. Every file, inside the tree and out,
# byte-identical.
. tests/cli/lib.sh

P=$TMPDIR/prov
mkdir -p "$P"
printf '#define OBJ 0\n#define CNT 2\n' >"$P/o.h"
printf '[info]\ndrivername=Xfer\nsymbolfile=o.h\n[languages]\n009=English\n019=Russian\n[text]\nOBJ_009_NAME=Xfer\nOBJ_009_HELP=X.\nCNT_009_NAME=Count\nCNT_009_HELP=C.\nOBJ_019_NAME=Передача\nOBJ_019_HELP=П.\nCNT_019_NAME=Счётчик\nCNT_019_HELP=С.\n' >"$P/x.ini"
CS="--create-service --library x.dll --open O --collect C --close X"

PRISTINE=$TMPDIR/pristine
expect_exit 0 "$REGTOOL" --store "hive:$PRISTINE/w" init --layout files
T=$TMPDIR/t
W=$T/w/Windows
HOST=$TMPDIR/host
mkdir -p "$HOST/folder"
fresh() { rm -rf "$T"; cp -a "$PRISTINE" "$T"; mkdir -p "$W/INF"; }

# agree CODE VERB...: the dry run and the real run of VERB on the tree
# both exit CODE with the same first line (warnings aside), and the tree
# and the host folder are as they were.
agree() {
    code=$1; shift
    # The writer's lock file the real run takes is no change.
    tree_state "$T" ! -name regtool.lock >"$TMPDIR/before"
    tree_state "$HOST" >"$TMPDIR/host_before"
    verb=$1; shift
    # shellcheck disable=SC2086
    expect_exit "$code" "$REGTOOL" --store "hive:$T/w" $verb --dry-run "$@"
    grep -v '^regtool: warning\|^  ' "$ERR" | head -n 1 >"$TMPDIR/dry_said"
    tree_state "$T" ! -name regtool.lock | diff "$TMPDIR/before" - >&2 ||
        fail "the dry run of $verb changed the tree"
    # shellcheck disable=SC2086
    expect_exit "$code" "$REGTOOL" --store "hive:$T/w" $verb "$@"
    grep -v '^regtool: warning\|^  ' "$ERR" | head -n 1 >"$TMPDIR/real_said"
    tree_state "$T" ! -name regtool.lock | diff "$TMPDIR/before" - >&2 ||
        fail "$verb changed the tree"
    expect_same_tree "$HOST" "$TMPDIR/host_before"
    [ -s "$TMPDIR/real_said" ] || fail "$verb: the real run said nothing"
    cmp -s "$TMPDIR/dry_said" "$TMPDIR/real_said" ||
        fail "$verb: the dry run said '$(cat "$TMPDIR/dry_said")', the real run '$(cat "$TMPDIR/real_said")'"
}

# What stands where install makes INF\Xfer\0009.
fresh; echo x >"$W/INF/Xfer"
agree 3 install $CS "$P/x.ini"
expect_grep "INF/Xfer is not a folder" "$TMPDIR/real_said"
fresh; mkfifo "$W/INF/Xfer"
agree 3 install $CS "$P/x.ini"
fresh; ln -s "$HOST/folder" "$W/INF/Xfer"
agree 3 install $CS "$P/x.ini"
expect_grep "symbolic link" "$TMPDIR/real_said"
fresh; mkdir -p "$W/INF/Xfer"; echo x >"$W/INF/Xfer/0009"
agree 3 install $CS "$P/x.ini"
expect_grep "INF/Xfer/0009 is not a folder" "$TMPDIR/real_said"

# A SysWOW64 table the install appends to without reading it, a second
# name of a host file.
fresh
cp "$W/SysWOW64/perfc009.dat" "$HOST/table"
rm "$W/SysWOW64/perfc009.dat"
ln "$HOST/table" "$W/SysWOW64/perfc009.dat"
agree 3 install $CS "$P/x.ini"
expect_grep "hard link" "$TMPDIR/real_said"

# An installed provider whose INF copy's symbol file, removed unread by
# the uninstall, is a second name of a host file.
fresh
expect_exit 0 "$REGTOOL" --store "hive:$T/w" install $CS "$P/x.ini"
H=$W/INF/Xfer/0009/o.h
[ -f "$H" ] || fail "no INF copy of the symbol file at $H"
cp "$H" "$HOST/symbols"
rm "$H"
ln "$HOST/symbols" "$H"
agree 3 uninstall Xfer
expect_grep "hard link" "$TMPDIR/real_said"

# What the writer's begin() refuses before any change (review 38 F3): a
# journal that is not a regular file, a lock that is not one.
for what in journal lock; do
    for kind in folder fifo link; do
        fresh
        F=$W/System32/config/regtool.$what
        case $kind in
        folder) mkdir "$F" ;;
        fifo) mkfifo "$F" ;;
        link) ln -s "$HOST/folder" "$F" ;;
        esac
        code=3
        [ "$what" = journal ] && code=2
        agree "$code" install $CS "$P/x.ini"
        # A refusal says what stands there, once (review 40: the lock's
        # said it again after "nothing was written: X to be writable").
        grep -q "to be writable" "$TMPDIR/real_said" &&
            fail "$what as a $kind: $(cat "$TMPDIR/real_said")"
        # With nothing to change (repair of a clean tree) the real run
        # takes the lock all the same: the dry run refuses as it does
        # (it said "nothing to repair", exit 0: reviews 39 and 40).
        agree "$code" repair
    done
done
# A lock file that is a second name of another file, on a file system
# other than / (there a hard link a tree's owner made may be read, never
# written): refused by the dry run as by the writer. Where /dev/shm is
# such a file system.
SHM=
if [ -d /dev/shm ] && [ -w /dev/shm ] &&
    [ "$(stat -c %d /dev/shm)" != "$(stat -c %d /)" ]; then
    SHM=$(mktemp -d /dev/shm/regtool-dry.XXXXXX) || SHM=
fi
if [ -n "$SHM" ]; then
    trap 'rm -rf "$SHM"' EXIT
    expect_exit 0 "$REGTOOL" --store "hive:$SHM/w" init --layout files
    : >"$SHM/other"
    ln "$SHM/other" "$SHM/w/Windows/System32/config/regtool.lock"
    for run in --dry-run ""; do
        # shellcheck disable=SC2086
        expect_exit 3 "$REGTOOL" --store "hive:$SHM/w" install $run $CS "$P/x.ini"
        expect_grep "regtool.lock is a hard link (2 links): refused" "$ERR"
    done
fi

# A REGEDIT4 store (its text, hex(7) too, in the code page: 1252 by
# default) with a Russian language: the new Russian texts cannot be
# written in it.
R=$TMPDIR/r4/s.reg
mkdir -p "$TMPDIR/r4"
PL='[HKEY_LOCAL_MACHINE\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Perflib'
printf 'REGEDIT4\r\n\r\n%s]\r\n"Base Index"=dword:00000003\r\n"Last Counter"=dword:00000002\r\n"Last Help"=dword:00000003\r\n"Version"=dword:00050001\r\n\r\n%s\\009]\r\n"Counter"=hex(7):31,00,53,79,73,00,00\r\n"Help"=hex(7):33,00,53,00,00\r\n\r\n%s\\019]\r\n"Counter"=hex(7):31,00,53,79,73,00,00\r\n"Help"=hex(7):33,00,53,00,00\r\n' "$PL" "$PL" "$PL" >"$R"
cp "$R" "$TMPDIR/r4.before"
expect_exit 2 "$REGTOOL" --store "reg:$R" install --dry-run $CS "$P/x.ini"
expect_grep "cannot be written in code page 1252" "$ERR"
cmp -s "$R" "$TMPDIR/r4.before" || fail "the dry run changed $R"
expect_exit 2 "$REGTOOL" --store "reg:$R" install $CS "$P/x.ini"
expect_grep "cannot be written in code page 1252" "$ERR"
cmp -s "$R" "$TMPDIR/r4.before" || fail "the real run changed $R"
# In the code page that holds them, both install.
REGTOOL_CODEPAGE=1251 expect_exit 0 "$REGTOOL" --store "reg:$R" install --dry-run $CS "$P/x.ini"
cmp -s "$R" "$TMPDIR/r4.before" || fail "the dry run changed $R"
REGTOOL_CODEPAGE=1251 expect_exit 0 "$REGTOOL" --store "reg:$R" install $CS "$P/x.ini"
! cmp -s "$R" "$TMPDIR/r4.before" || fail "the install left $R as it was"

# A .reg store's lock file (FILE.lock) a FIFO, then a folder: the dry run
# refuses as the writer's begin() does (review 39 F5).
for kind in fifo folder; do
    cp "$TMPDIR/r4.before" "$R"
    rm -rf "$R.lock"
    if [ "$kind" = fifo ]; then mkfifo "$R.lock"; else mkdir "$R.lock"; fi
    REGTOOL_CODEPAGE=1251 expect_exit 3 "$REGTOOL" --store "reg:$R" install --dry-run $CS "$P/x.ini"
    grep -v '^regtool: warning' "$ERR" | head -n 1 >"$TMPDIR/dry_said"
    REGTOOL_CODEPAGE=1251 expect_exit 3 "$REGTOOL" --store "reg:$R" install $CS "$P/x.ini"
    grep -v '^regtool: warning' "$ERR" | head -n 1 >"$TMPDIR/real_said"
    cmp -s "$TMPDIR/dry_said" "$TMPDIR/real_said" ||
        fail "$kind lock: the dry run said '$(cat "$TMPDIR/dry_said")', the real run '$(cat "$TMPDIR/real_said")'"
    cmp -s "$R" "$TMPDIR/r4.before" || fail "a refused install changed $R"
    # A restore of the store's own backup changes nothing: its dry run
    # refuses the lock as the real run does.
    [ -f "$TMPDIR/r4.own.reg" ] || cp "$R" "$TMPDIR/r4.own.reg"
    expect_exit 3 "$REGTOOL" --store "reg:$R" restore --dry-run "$TMPDIR/r4.own.reg"
    expect_grep "s.reg.lock\\(: Is a directory\\| is a FIFO\\)" "$ERR"
    expect_exit 3 "$REGTOOL" --store "reg:$R" restore "$TMPDIR/r4.own.reg"
    expect_grep "s.reg.lock\\(: Is a directory\\| is a FIFO\\)" "$ERR"
done
rm -rf "$R.lock"
