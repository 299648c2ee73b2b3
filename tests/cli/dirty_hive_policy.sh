# The writing policy for dirty hives: one without usable logs is read with
# a warning and written only with --force-dirty; a dirty hive that is no
# SOFTWARE hive at all is refused, its logs replayed into nothing.
. tests/cli/lib.sh

S=$SHARED/samples
P=$TMPDIR/prov
mkdir -p "$P"
printf '#define OBJ 0\n#define CNT 2\n' >"$P/o.h"
printf '[info]\ndrivername=Xfer\nsymbolfile=o.h\n[languages]\n009=English\n[text]\nOBJ_009_NAME=Xfer\nOBJ_009_HELP=X.\nCNT_009_NAME=Count\nCNT_009_HELP=C.\n' >"$P/x.ini"
CS="--create-service --library x.dll --open O --collect C --close X"

# A real dirty Windows 10 hive with its logs given as SOFTWARE: a user's
# NTUSER.DAT has no name database, so the store refuses it before anything
# is read from its logs or written: no replay, no backups, every file as
# it was.
D=$TMPDIR/win
expect_exit 0 $REGTOOL --store "hive:$D" init --languages 009 --layout registry
C=$D/Windows/System32/config
xz -dc "$S/transactions_NTUSER.DAT.xz" >"$C/SOFTWARE"
xz -dc "$S/transactions_ntuser.dat.log1.xz" >"$C/SOFTWARE.LOG1"
xz -dc "$S/transactions_ntuser.dat.log2.xz" >"$C/SOFTWARE.LOG2"
tree_state "$D" >"$TMPDIR/before"
# shellcheck disable=SC2086
expect_exit 2 $REGTOOL --store "hive:$D" install $CS "$P/x.ini"
expect_grep "SOFTWARE has no key Microsoft.Windows NT.CurrentVersion.Perflib" "$ERR"
expect_same_tree "$D" "$TMPDIR/before"

# Dirty without logs: read with a warning, never written unless forced.
D2=$TMPDIR/win2
expect_exit 0 $REGTOOL --store "hive:$D2" init --languages 009 --layout registry
C2=$D2/Windows/System32/config
# Bump the primary sequence number: dirty, and no log to replay.
printf '\377' | dd of="$C2/SOFTWARE" bs=1 seek=4 conv=notrunc 2>/dev/null
cp "$C2/SOFTWARE" "$TMPDIR/dirty.copy"
expect_exit 0 $REGTOOL --store "hive:$D2" query
expect_grep "dirty and its logs cannot be replayed" "$ERR"
# shellcheck disable=SC2086
expect_exit 2 $REGTOOL --store "hive:$D2" install $CS "$P/x.ini"
expect_grep "Nothing was written (--force-dirty writes it anyway)" "$ERR"
cmp "$C2/SOFTWARE" "$TMPDIR/dirty.copy" || fail "refused install changed the dirty hive"
# shellcheck disable=SC2086
expect_exit 0 $REGTOOL --store "hive:$D2" --force-dirty install $CS "$P/x.ini"
expect_exit 0 $REGTOOL hive check "$C2/SOFTWARE"

# A dirty SYSTEM without logs is refused the same way: the install (which
# writes both hives) names it and why, and neither hive is written.
D3=$TMPDIR/win3
expect_exit 0 $REGTOOL --store "hive:$D3" init --languages 009 --layout registry
C3=$D3/Windows/System32/config
printf '\377' | dd of="$C3/SYSTEM" bs=1 seek=4 conv=notrunc 2>/dev/null
cp "$C3/SYSTEM" "$TMPDIR/system.copy"
cp "$C3/SOFTWARE" "$TMPDIR/software.copy"
# shellcheck disable=SC2086
expect_exit 2 $REGTOOL --store "hive:$D3" install $CS "$P/x.ini"
expect_grep "config/SYSTEM is dirty and its transaction logs cannot be replayed (dirty (sequence numbers 255/2, bad checksum) and no transaction log beside it)" "$ERR"
cmp "$C3/SYSTEM" "$TMPDIR/system.copy" || fail "refused install changed the dirty SYSTEM"
cmp "$C3/SOFTWARE" "$TMPDIR/software.copy" || fail "refused install changed SOFTWARE"

# Its dry run refuses it too, in the same words (review 37: it warned and
# exited 0). A repair of such a tree saves its backup before the commit
# refuses the hive: the backup stays, and the message says so beside
# "nothing was written" (of the database; review 36).
D4=$TMPDIR/win4
expect_exit 0 $REGTOOL --store "hive:$D4" init --languages 009 --layout registry
C4=$D4/Windows/System32/config
perflib_set "$C4/SOFTWARE" "Last_Counter=3000"
printf '\377' | dd of="$C4/SOFTWARE" bs=1 seek=4 conv=notrunc 2>/dev/null
tree_state "$D4" ! -name regtool.lock >"$TMPDIR/before4"
# shellcheck disable=SC2086
expect_exit 2 $REGTOOL --store "hive:$D4" install --dry-run $CS "$P/x.ini"
expect_grep "SOFTWARE is dirty and its transaction logs cannot be replayed .*Nothing was written (--force-dirty writes it anyway)" "$ERR"
expect_exit 2 $REGTOOL --store "hive:$D4" repair --dry-run --backup "$TMPDIR/b4.ini"
expect_grep "SOFTWARE is dirty and its transaction logs cannot be replayed" "$ERR"
[ ! -e "$TMPDIR/b4.ini" ] || fail "repair --dry-run saved a backup"
expect_exit 2 $REGTOOL --store "hive:$D4" repair --backup "$TMPDIR/b4.ini"
expect_grep "SOFTWARE is dirty and its transaction logs cannot be replayed" "$ERR"
expect_grep "^regtool: repair: the backup saved above stays: it holds the database as it still is$" "$ERR"
expect_grep "saved .* to $DRIVE$TMPDIR/b4.ini" "$OUT"
tree_state "$D4" ! -name regtool.lock | diff "$TMPDIR/before4" - >&2 ||
    fail "a refused repair changed the dirty tree"
