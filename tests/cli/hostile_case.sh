#!/bin/sh
# Names that differ only in letter case in one folder of a tree
# (perfc009.dat and PERFC009.DAT in System32, SOFTWARE and software in
# config, System32 and system32, an INF folder's driver twice): Windows'
# file system does not tell them apart, so such a tree is ambiguous,
# and which file Windows would use is not known. Every verb refuses it,
# reader or writer, with exit 2 (a store that is not what it claims) and
# a message naming both names, before anything is written: every file
# of the tree keeps its bytes (tree_state), within `timeout 20`.
. tests/cli/lib.sh

T=$TMPDIR/t
W=$T/Windows
C=$W/System32/config
INI=ini-samples/transfer.ini
CS="--create-service --library x.dll --open O --collect C --close X"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/pristine" init
fresh() { rm -rf "$T"; cp -a "$TMPDIR/pristine" "$T"; : >"$C/regtool.lock"; }
# refused LABEL FOLDER A B VERB...: VERB exits 2 naming FOLDER, A and B;
# the tree as it was.
refused() {
    label=$1 folder=$2 a=$3 b=$4
    shift 4
    tree_state "$T" >"$TMPDIR/before"
    # shellcheck disable=SC2086
    timeout 20 "$REGTOOL" --store "hive:$T" "$@" >"$OUT" 2>"$ERR"
    got=$?
    [ "$got" -eq 2 ] || { cat "$OUT" "$ERR" >&2; fail "$label: exit $got, want 2"; }
    grep "$folder holds both " "$ERR" | grep -F "$a" | grep -F "$b" |
        grep -q "differ only in letter case" ||
        { cat "$ERR" >&2; fail "$label: the refusal does not name $folder, $a and $b"; }
    expect_same_tree "$T" "$TMPDIR/before"
    echo "$label: exit 2, both names said"
}

# perfc009.dat and PERFC009.DAT (another table's bytes) in System32:
# install, uninstall, query and a dry run, all refused.
fresh
cp "$W/System32/perfh009.dat" "$W/System32/PERFC009.DAT"
# shellcheck disable=SC2086
refused "install, perfc009.dat twice" "$W/System32" perfc009.dat PERFC009.DAT \
    install $CS "$INI"
refused "disable, perfc009.dat twice" "$W/System32" perfc009.dat PERFC009.DAT \
    disable PerfOS
refused "query, perfc009.dat twice" "$W/System32" perfc009.dat PERFC009.DAT query
# shellcheck disable=SC2086
refused "install --dry-run, perfc009.dat twice" "$W/System32" perfc009.dat \
    PERFC009.DAT install --dry-run $CS "$INI"

# The SysWOW64 copy's perfh009.dat twice.
fresh
cp "$W/SysWOW64/perfh009.dat" "$W/SysWOW64/PerfH009.dat"
# shellcheck disable=SC2086
refused "install, SysWOW64 perfh009.dat twice" "$W/SysWOW64" perfh009.dat \
    PerfH009.dat install $CS "$INI"

# SOFTWARE and software in config.
fresh
cp "$C/SOFTWARE" "$C/software"
# shellcheck disable=SC2086
refused "install, SOFTWARE twice" "$C" SOFTWARE software install $CS "$INI"
refused "query, SOFTWARE twice" "$C" SOFTWARE software query

# System32 and system32 (an empty one) in Windows.
fresh
mkdir "$W/system32"
# shellcheck disable=SC2086
refused "install, System32 twice" "$W" System32 system32 install $CS "$INI"

# An installed provider's INF folder twice (TransferPerf, transferperf):
# uninstall would remove one copy of the INI and leave Windows the
# other.
fresh
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$T" install $CS "$INI"
cp -a "$W/INF/TransferPerf" "$W/INF/transferperf"
refused "uninstall, INF folder twice" "$W/INF" TransferPerf transferperf \
    uninstall TransferPerf
echo "hostile case: every tree with two names for one refused, nothing written"
