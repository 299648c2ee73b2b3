#!/bin/sh
# An INI and its symbol file that someone else may write (a vendor folder
# on the disk regtool repairs) are each read once, and the INF copy holds
# those bytes: a writer swapping either name between the real file and a
# link to a root-only host file while install runs never gets the host
# file into the tree. Each install either installs, its INF copy the real
# files byte for byte, or refuses the link by name; the host file and,
# on a refusal, the tree keep their bytes. (An INF copy read a second
# time once took the host file in about one install of twenty.)
. tests/cli/lib.sh

HOST=$TMPDIR/host
mkdir -p "$HOST"
printf 'root:$6$secret-hash-not-for-the-tree:19000:0:99999:7:::\n' >"$HOST/shadow"
chmod 600 "$HOST/shadow"
tree_state "$HOST" >"$TMPDIR/host.state"
V=$TMPDIR/vendor
mkdir -p "$V"
cp ini-samples/transfer.ini "$V/real.ini"
cp ini-samples/CounterOffsets.h "$V/real.h"
cp "$V/real.ini" "$V/transfer.ini"
cp "$V/real.h" "$V/CounterOffsets.h"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/pristine" init --layout files
CS="--create-service --library x.dll --open O --collect C --close X"

# swap NAME REAL: NAME becomes, again and again, a link to the host file
# and then the real file (a hard link of it), each by an atomic rename.
swap() {
    while :; do
        ln -sf "$HOST/shadow" "$V/.$1.new" && mv -T "$V/.$1.new" "$V/$1"
        ln -f "$V/$2" "$V/.$1.new" && mv -T "$V/.$1.new" "$V/$1"
    done
}
swap transfer.ini real.ini >/dev/null 2>&1 &
swapper1=$!
swap CounterOffsets.h real.h >/dev/null 2>&1 &
swapper2=$!
trap 'kill $swapper1 $swapper2 2>/dev/null' EXIT

T=$TMPDIR/t
INF=$T/Windows/INF/TransferPerf/0009
installed=0 refused=0 i=0
while [ $i -lt 40 ]; do
    i=$((i + 1))
    rm -rf "$T"
    cp -a "$TMPDIR/pristine" "$T"
    tree_state "$T" >"$TMPDIR/before"
    timeout 20 "$REGTOOL" --store "hive:$T" install $CS "$V/transfer.ini" \
        >"$OUT" 2>"$ERR"
    rc=$?
    ! grep -rqa 'secret-hash' "$T" "$OUT" "$ERR" ||
        fail "run $i: the host file's text reached the tree or the output"
    if [ $rc -eq 0 ]; then
        cmp -s "$INF/transfer.ini" "$V/real.ini" ||
            fail "run $i: the INF copy's INI is not the real one"
        cmp -s "$INF/CounterOffsets.h" "$V/real.h" ||
            fail "run $i: the INF copy's symbol file is not the real one"
        installed=$((installed + 1))
    else
        [ $rc -ne 124 ] || fail "run $i: install did not end within 20 s"
        grep -q 'is a symbolic link\|does not exist\|is not in the INI' "$ERR" ||
            { cat "$ERR" >&2; fail "run $i: exit $rc without naming the link"; }
        expect_same_tree "$T" "$TMPDIR/before"
        refused=$((refused + 1))
    fi
done
kill $swapper1 $swapper2 2>/dev/null
expect_same_tree "$HOST" "$TMPDIR/host.state"
echo "hostile_ini_swap: $installed installs, $refused refused, host file untouched"

