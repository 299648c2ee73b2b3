#!/bin/sh
# Memory in proportion to the input, and size caps (README "Tests for bad
# input, crashes and concurrency").
#
# Bounds asserted (peak RSS from /usr/bin/time; not asserted under
# AddressSanitizer, whose shadow memory and quarantine are no measure of
# regtool's own, and the big inputs are not made there):
#   check-ini of a big INI (20000 symbols, NAME and HELP in three
#       languages) and its symbol file, and its install on an English
#       machine and on one with its three languages, in both layouts
#                                                 10 x (INI + symbol file)
#                                                 + 24 MB
#   repair of a perfc009.dat of 400000 more pairs (short texts: the most
#       pairs a byte)                             10 x the tables + 24 MB
# A regtool that holds each input byte ten times over fails them.
#
# Caps: a .dat table, a PerfStringBackup file and a .reg file over
# 256 MiB (sparse files here) are refused by their size before a byte is
# read: exit 2 (lodctr 13), a message naming the file, its size and the
# cap, nothing written, in a few MB.
. tests/cli/lib.sh

TIME=/usr/bin/time
[ -x "$TIME" ] || fail "no $TIME (Debian package time: tools/deps.sh installs it)"
ASAN=0
ldd "$REGTOOL" 2>/dev/null | grep -q libasan && ASAN=1
CS="--create-service --library x.dll --open O --collect C --close X"
MB=1048576

# state DIR: tree_state, but a file over 64 MB (a sparse file of the
# caps) by its size, time and blocks rather than its 256 MB of zeros.
state() {
    (cd "$1" && find . | LC_ALL=C sort | while IFS= read -r f; do
        if [ -f "$f" ] && [ "$(stat -c %s "$f")" -gt $((64 * MB)) ]; then
            echo "big $(stat -c '%s %y %b' "$f") $f"
        elif [ -f "$f" ]; then echo "$(sha256sum <"$f" | cut -c1-64) $f"
        else echo "dir $f"; fi
    done)
}

# peak LABEL BOUND_BYTES CMD...: CMD exits 0 or 1 (repair's warnings
# left) within BOUND_BYTES of peak RSS.
peak() {
    label=$1 bound=$2
    shift 2
    "$TIME" -f %M -o "$TMPDIR/rss" "$@" >"$OUT" 2>"$ERR"
    got=$?
    [ "$got" -le 1 ] || { cat "$OUT" "$ERR" >&2; fail "$label: exit $got"; }
    kb=$(tail -n 1 "$TMPDIR/rss")
    printf '%s: peak RSS %s MB (bound %s MB)\n' "$label" $((kb / 1024)) \
        $((bound / MB))
    if [ "$ASAN" = 0 ] && [ $((kb * 1024)) -gt "$bound" ]; then
        fail "$label: peak RSS $kb KB over $((bound / MB)) MB"
    fi
}

# refused LABEL EXIT REGEX DIR CMD...: CMD exits EXIT with a line matching
# REGEX, DIR unchanged, in 16 MB at most.
refused() {
    label=$1 code=$2 re=$3 dir=$4
    shift 4
    state "$dir" >"$TMPDIR/before"
    "$TIME" -f %M -o "$TMPDIR/rss" "$@" </dev/null >"$OUT" 2>"$ERR"
    got=$?
    [ "$got" -eq "$code" ] || { cat "$OUT" "$ERR" >&2; fail "$label: exit $got, want $code"; }
    cat "$OUT" "$ERR" | grep -Eq -- "$re" ||
        { cat "$OUT" "$ERR" >&2; fail "$label: no line matches $re"; }
    state "$dir" | diff "$TMPDIR/before" - >&2 ||
        fail "$label: $dir changed (diff above)"
    kb=$(tail -n 1 "$TMPDIR/rss")
    printf '%s: exit %s, peak RSS %s MB\n' "$label" "$got" $((kb / 1024))
    if [ "$ASAN" = 0 ] && [ "$kb" -gt $((16 * 1024)) ]; then
        fail "$label: peak RSS $kb KB over 16 MB"
    fi
}

if [ "$ASAN" = 0 ]; then
    # 1. A big INI and its symbol file: check-ini and install.
    D=$TMPDIR/big
    mkdir "$D"
    awk 'BEGIN { print "#ifndef BIG_H"; print "#define BIG_H"
                 for (i = 0; i < 20000; i++)
                     printf "#define COUNTER_%05d %d\n", i, 2 * i
                 print "#endif" }' >"$D/big.h"
    awk 'BEGIN { n = split("009 007 00C", L, " ")
                 printf "[info]\ndrivername=BigProvider\nsymbolfile=big.h\n"
                 printf "[languages]\n009=English\n007=German\n00C=French\n"
                 printf "[objects]\nCOUNTER_00000_009_NAME=Big\n[text]\n"
                 for (i = 0; i < 20000; i++) for (j = 1; j <= n; j++)
                     printf "COUNTER_%05d_%s_NAME=Counter %d (%s)\nCOUNTER_%05d_%s_HELP=What counter %d of the big provider counts, in language %s.\n",
                         i, L[j], i, L[j], i, L[j], i, L[j] }' >"$D/big.ini"
    in=$(( $(stat -c %s "$D/big.ini") + $(stat -c %s "$D/big.h") ))
    peak "check-ini of $((in / 1024)) KB of INI and symbol file" \
        $((10 * in + 24 * MB)) "$REGTOOL" check-ini "$D/big.ini"
    # Every language of the INI on the machine: each gets its text, in
    # System32's and SysWOW64's tables (or Perflib's values), and
    # PerfStringBackup.INI all of it again; the journal is written from
    # the change's own bytes, not from a copy of them.
    for layout in files registry; do
        for langs in 009 009,007,00C; do
            W=$TMPDIR/w-$layout-$(echo "$langs" | tr , -)
            expect_exit 0 "$REGTOOL" --store "hive:$W" init --layout "$layout" --languages "$langs"
            peak "install of $((in / 1024)) KB of INI and symbol file ($layout layout, languages $langs)" \
                $((10 * in + 24 * MB)) "$REGTOOL" --store "hive:$W" install $CS "$D/big.ini"
            expect_grep "installed BigProvider" "$OUT"
            rm -rf "$W"
        done
    done
    rm -rf "$D"

    # 2. repair of a perfc009.dat 400000 pairs longer, past Last Counter.
    W=$TMPDIR/rep
    expect_exit 0 "$REGTOOL" --store "hive:$W" init --layout files
    for dir in System32 SysWOW64; do
        c=$W/Windows/$dir/perfc009.dat
        size=$(stat -c %s "$c")
        { head -c $((size - 2)) "$c"
          awk 'BEGIN { for (i = 0; i < 400000; i++) printf "%d\n%d\n", 10000 + 2 * i, i % 100 }' |
              tr '\n' '\000' | iconv -f ASCII -t UTF-16LE
          printf '\000\000'
        } >"$TMPDIR/c.dat"
        mv "$TMPDIR/c.dat" "$c"
    done
    tables=$(( $(stat -c %s "$W/Windows/System32/perfc009.dat") +
               $(stat -c %s "$W/Windows/System32/perfh009.dat") ))
    peak "repair of $((tables / 1024)) KB of tables" $((10 * tables + 24 * MB)) \
        "$REGTOOL" --store "hive:$W" repair --backup "$TMPDIR/repair-backup.ini"
    expect_grep "Last Counter: 3990 -> 809998" "$OUT"
    # The backup it saved first holds the strings, as regtool backup's.
    [ "$(iconv -f UTF-16LE -t UTF-8 "$TMPDIR/repair-backup.ini" | grep -c '^809998=99')" -eq 1 ] ||
        fail "the repair's backup lacks the table's last pair"
    rm -rf "$W" "$TMPDIR/repair-backup.ini"
fi

# 3. Caps, on sparse files: refused before they are read.
W=$TMPDIR/caps
expect_exit 0 "$REGTOOL" --store "hive:$W" init --layout files
# Its lock file, as a writer before leaves it (empty).
expect_exit 4 "$REGTOOL" --store "hive:$W" disable NoSuchService
cp ini-samples/replication.ini ini-samples/ReplicationOffsets.h "$TMPDIR/"
truncate -s 257M "$W/Windows/System32/perfh009.dat"
dat_re="perfh009\.dat: 269484032 bytes, larger than the 256 MiB a \.dat table may be; nothing was read"
refused "install, a 257 MiB perfh009.dat" 2 "$dat_re" "$W" \
    "$REGTOOL" --store "hive:$W" install $CS "$TMPDIR/replication.ini"
refused "repair, a 257 MiB perfh009.dat" 2 "$dat_re" "$W" \
    "$REGTOOL" --store "hive:$W" repair --backup "$TMPDIR/none.ini"
[ ! -e "$TMPDIR/none.ini" ] || fail "repair saved a backup of a database it refused"
refused "names --help-text, a 257 MiB perfh009.dat" 2 "$dat_re" "$W" \
    "$REGTOOL" --store "hive:$W" names --help-text 2
rm -rf "$W"

expect_exit 0 "$REGTOOL" --store "hive:$W" init --layout files
expect_exit 4 "$REGTOOL" --store "hive:$W" disable NoSuchService
I=$TMPDIR/in
mkdir "$I"
truncate -s 257M "$I/big.psb" "$I/big.reg"
for f in big.psb big.reg; do
    refused "restore $f (257 MiB)" 2 \
        "^regtool: .*$f: 269484032 bytes, larger than the 256 MiB a PerfStringBackup or \.reg file may be; nothing was read$" \
        "$W" "$REGTOOL" --store "hive:$W" restore "$I/$f"
done
ln -s "$REGTOOL" "$TMPDIR/lodctr"
refused "lodctr /R:big.psb (257 MiB)" 13 \
    "^lodctr: .*big\.psb: 269484032 bytes, larger than the 256 MiB" \
    "$W" env REGTOOL_STORE="hive:$W" "$TMPDIR/lodctr" "/R:$I/big.psb"
refused "psb: store of 257 MiB" 2 \
    "big\.psb: 269484032 bytes, larger than the 256 MiB a PerfStringBackup file may be; nothing was read" \
    "$I" "$REGTOOL" --store "psb:$I/big.psb" names 2
refused "reg: store of 257 MiB" 2 \
    "big\.reg: 269484032 bytes, larger than the 256 MiB a \.reg file may be; nothing was read" \
    "$I" "$REGTOOL" --store "reg:$I/big.reg" install $CS "$TMPDIR/replication.ini"
# Tables each under their cap that add up past what a tree's tables may
# be together (1 GiB): sparse, they cost nothing on disk. Refused at the
# open, before any is read.
rm -rf "$W"
expect_exit 0 "$REGTOOL" --store "hive:$W" init --layout files --languages 009,019,00C,007
for f in "$W"/Windows/System32/perf[ch]0*.dat "$W"/Windows/SysWOW64/perf[ch]0*.dat; do
    truncate -s 200M "$f"
done
for verb in audit "repair --dry-run" "install $CS $TMPDIR/replication.ini"; do
    # shellcheck disable=SC2086
    refused "$verb, 16 sparse tables of 200 MB" 2 \
        "come to 3355443200 bytes, more than the 1024 MiB a tree's tables may be together; nothing was read" \
        "$W" "$REGTOOL" --store "hive:$W" $verb
done
echo "hostile_memory: ok"
