#!/bin/sh
# Memory in proportion to the input, and size caps (docs/testing.md "Tests for bad
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
#   query and names of a psb: store of 65536 tiny [PerfStrings_] sections
#       (one short string each, UTF-16LE as Windows writes it; each
#       language's lists and tables started at 64 and 256 slots: 178 MB
#       for 3.3 MB)                               10 x the file + 24 MB
#   audit of it (two findings in each language, held to be sorted: each
#       finding's message, language and fix were heap blocks of their
#       own: 82 MB; then each finding's 56-byte record and its message's
#       bytes: 68.7 MB; now 32 bytes a finding, the same words about
#       every language kept once: 56 MB)          10 x the file + 24 MB
#   query and audit of a .reg store of 30000 tiny Perflib language keys
#       (a Counter and a Help of one pair each; each table's index
#       started at 256 entries: audit took 276 MB for 5.1 MB)
#                                                 10 x the file + 24 MB
#   query, names and audit of a psb: store of 400000 bare [PERF_x]
#       sections (about 13 bytes each, UTF-8; the database's 120-byte
#       record of each service, the parse's and the database's heap
#       block for each name and their 16-byte index entries: 114 MB for
#       5.1 MB), and query of it in UTF-16LE (twice the bytes)
#                                                 10 x the file + 24 MB
#   names, repair (--dry-run and real) and restore (--dry-run and real,
#       of a backup of the tree as made) of a registry-layout SOFTWARE
#       whose Perflib\009 Counter is 500000 tiny pairs "2", "2" (8 bytes
#       each: every one but the first a duplicate both verbs remove;
#       5.4 MB: restore took 84 MB and repair 81 MB, each removed pair
#       decoded twice and compared as 16-byte items; then 45 MB and
#       55 MB, every pair's text a heap block of its own (32 bytes for
#       a 2-byte text) and a backup sorting 32 bytes a pair: 12 x the
#       input from 17 MB of hives on; now 31 MB and 38 MB, the texts of a
#       decoded table in one block, 8.3 x)      8 x the hives + 8 MB
#   query, names 2 and audit of a SYSTEM whose 2000 services all name
#       one subkey list of 2000 keys (each service's list read and
#       indexed as its own: 122 MB for 456 KB, the square of the hive;
#       now the second key naming the list is refused where the list is
#       read, damage said as such)              10 x the hive + 24 MB
#   rebuild of a files-layout tree whose perfc009.dat (System32's and
#       SysWOW64's) is 500000 tiny pairs "2", "2" (8 bytes each; the
#       tables as installed, perfd009.dat, give index 2 its text, and the
#       rest is lost), and its dry run, which lists each string lost
#       (the database was read decoded and decoded again into the change
#       that replaces the table, what is lost counted in 33 bytes a pair
#       and listed from a copy of each: 12 x the tables at 2 M pairs;
#       now read as stored, decoded once, counted and listed in 5 bytes
#       a pair: 7.9 x); and the same tree without perfd009.dat (its
#       tables as installed, which a hostile tree need not have: the
#       base, all 500000 pairs, is then taken from the current tables
#       and the table stays as it is; each pair taken was a heap block
#       of its own and sorted as 40-byte records: 67 MB, 13 x the
#       tables; now their texts in one block and 4-byte positions
#       sorted: 34 MB, 6.6 x)
#                                                 8 x the tables + 8 MB
#   diff --pairs of that tree against one as made (499999 pairs only in
#       A: 52 MB, 9.7 x; now 32 MB, 6 x)          8 x the tables + 8 MB
#   backup --format reg of a tree whose PerfOS Library is 50 MB (its
#       text, 300 MB, was made whole before the cap refused it: 19 x the
#       value; now refused from the values' sizes)
#                                                 10 x the tree + 24 MB
#   a psb: store and restore of a sparse 1536 MiB backup whose line 4
#       is a NUL, UTF-16 or UTF-8 (read whole first: 1.5 GB; review 42
#       R42-6, review 43 R43-10)
#                                                 16 MB
# A regtool that holds each input byte ten times over fails them.
#
# Caps: a .dat table and a .reg file over 256 MiB, a PerfStringBackup
# file over 1536 MiB (sparse files here) are refused by their size before
# a byte is read: exit 2 (lodctr 13), a message naming the file, its size
# and the cap, nothing written, in a few MB.
. tests/cli/lib.sh

TIME=/usr/bin/time
[ -x "$TIME" ] || fail "no $TIME (Debian package time: tools/deps.sh installs it)"
CS="--create-service --library x.dll --open O --collect C --close X"
# refused LABEL EXIT REGEX DIR CMD...: CMD exits EXIT with a line matching
# REGEX, DIR unchanged, in 16 MB at most.
refused() {
    label=$1 code=$2 re=$3 dir=$4
    shift 4
    tree_state "$dir" >"$TMPDIR/before"
    "$TIME" -f %M -o "$TMPDIR/rss" "$@" </dev/null >"$OUT" 2>"$ERR"
    got=$?
    [ "$got" -eq "$code" ] || { cat "$OUT" "$ERR" >&2; fail "$label: exit $got, want $code"; }
    cat "$OUT" "$ERR" | grep -Eq -- "$re" ||
        { cat "$OUT" "$ERR" >&2; fail "$label: no line matches $re"; }
    expect_same_tree "$dir" "$TMPDIR/before" "$label: $dir changed"
    kb=$(tail -n 1 "$TMPDIR/rss")
    printf '%s: exit %s, peak RSS %s MB\n' "$label" "$got" $((kb / 1024))
    if [ "$PLAIN" = 1 ] && [ "$kb" -gt $((16 * 1024)) ]; then
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

    # 1b. Alias cycles, each member's message about its cycle of bounded
    # length (a copy of the whole cycle a member took memory in the
    # square of it: 12000 names, 3.8 GB): an INF copy on a disk, read by
    # rebuild, with a cycle of 12000 names appended; an INI whose keys
    # name every member of a cycle of 2000 (an error line each for the
    # first 1000, and one counting the other 1000: the output linear
    # too, and bounded); one whose symbol file has 50000 aliases of a
    # cycle's members and one of a value of 100 KB that is no number.
    D=$TMPDIR/cycles
    W=$D/w
    mkdir "$D"
    expect_exit 0 "$REGTOOL" --store "hive:$W" init
    expect_exit 0 "$REGTOOL" --store "hive:$W" install $CS ini-samples/transfer.ini
    S=$W/Windows/INF/TransferPerf/0009/CounterOffsets.h
    [ -f "$S" ] || fail "no INF copy of the symbol file at $S"
    awk 'BEGIN { for (k = 0; k < 12000; k++) print "#define C" k " C" (k + 1) % 12000 }' >>"$S"
    in=$(stat -c %s "$S")
    peak "rebuild --dry-run, a cycle of 12000 aliases in an INF copy" \
        $((10 * in + 24 * MB)) "$REGTOOL" --store "hive:$W" rebuild --dry-run
    awk 'BEGIN { for (k = 0; k < 2000; k++) print "#define C" k " C" (k + 1) % 2000 }' >"$D/c.h"
    awk 'BEGIN { printf "[info]\ndrivername=Cyc\nsymbolfile=c.h\n[languages]\n009=English\n[objects]\nC0_009_NAME=\n[text]\n"
                 for (k = 0; k < 2000; k++) printf "C%d_009_NAME=a\nC%d_009_HELP=b\n", k, k }' >"$D/c.ini"
    in=$(( $(stat -c %s "$D/c.ini") + $(stat -c %s "$D/c.h") ))
    PEAK_EXIT_MAX=2 peak "check-ini naming each of a cycle of 2000 aliases" \
        $((10 * in + 24 * MB)) "$REGTOOL" check-ini "$D/c.ini"
    [ "$(cat "$OUT" "$ERR" | grep -c 'alias cycle')" -eq 1000 ] ||
        fail "check-ini does not name the cycle once for each of the first 1000 of its 2000 members"
    expect_grep "c.h:1000: error: \.\.\. and 1000 more errors like this, between lines 1001 and 2000 (only the first 1000 of a kind are listed)$" "$ERR"
    # (the line counting those left out is not about the cycle)
    longest=$(cat "$OUT" "$ERR" | grep -v 'more errors like this' |
              awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
    [ "$longest" -le $(( ${#D} + 120 )) ] ||
        fail "check-ini's lines about a cycle of 2000 grow with the cycle ($longest bytes)"
    expect_grep "c.h:1: error: C0 is in an alias cycle of 2000 names: C0 -> C1 -> C2 -> C3 -> ... -> C0" "$ERR"
    expect_grep "c.h:6: error: C5 is in an alias cycle of 2000 names with C0 (line 1)" "$ERR"
    awk 'BEGIN { for (k = 0; k < 1000; k++) print "#define C" k " C" (k + 1) % 1000
                 printf "#define BAD "; for (k = 0; k < 10000; k++) printf "0123456789"; print ""
                 for (k = 0; k < 50000; k++) print "#define R" k " C" k % 1000
                 for (k = 0; k < 50000; k++) print "#define S" k " BAD" }' >"$D/r.h"
    printf '[info]\ndrivername=Cyc\nsymbolfile=r.h\n[languages]\n009=English\n[objects]\nR0_009_NAME=\n[text]\nR0_009_NAME=a\nR0_009_HELP=b\nS1_009_NAME=a\nS1_009_HELP=b\n' >"$D/r.ini"
    in=$(( $(stat -c %s "$D/r.ini") + $(stat -c %s "$D/r.h") ))
    PEAK_EXIT_MAX=2 peak "check-ini, 50000 aliases of a cycle's members and 50000 of a value of 100 KB" \
        $((10 * in + 24 * MB)) "$REGTOOL" check-ini "$D/r.ini"
    expect_grep "R0: C0 (line 1): alias cycle of 1000 names: C0 -> C1 -> C2 -> C3 -> ... -> C0" "$ERR"
    expect_grep "S1: BAD (line 1001): value '0123456789012345678901234567890123456789012345678901234567890123\.\.\.' is not a number" "$ERR"
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

    # 3. A PerfStringBackup.INI of every language id there is (65536),
    # each section one short string, read as a store.
    P=$TMPDIR/langs.psb
    awk 'BEGIN { printf "\r\n\r\n[Perflib]\r\nBase Index=1847\r\nLast Counter=2\r\nLast Help=3"
                 for (i = 0; i < 65536; i++)
                     printf "\r\n\r\n[PerfStrings_%04x]\r\n2=x", i }' |
        iconv -f UTF-8 -t UTF-16LE >"$P" || fail "cannot write $P"
    in=$(stat -c %s "$P")
    peak "query of a psb: store of 65536 tiny languages ($((in / 1024)) KB)" \
        $((10 * in + 24 * MB)) "$REGTOOL" --store "psb:$P" query
    expect_grep "^Languages  *0000 0001 .* fffe ffff$" "$OUT"
    peak "names of a psb: store of 65536 tiny languages ($((in / 1024)) KB)" \
        $((10 * in + 24 * MB)) "$REGTOOL" --store "psb:$P" names
    expect_grep "^2	x$" "$OUT"
    # Its audit finds two things in each language (131073 findings), and
    # holds them all to sort them, within the same bound: a finding is a
    # 32-byte record, and the words said of every language are kept once
    # (68.7 MB when each finding held its message, 9 MB of them, and a
    # 56-byte record; 82 MB when its message, language and fix were heap
    # blocks of their own).
    expect_exit 2 "$REGTOOL" --store "psb:$P" audit --json
    n_found=$(jq '.findings | length' "$OUT")
    said=$(jq -j '.findings[].message' "$OUT" | wc -c)
    [ "$n_found" -eq 131073 ] || fail "audit of 65536 tiny languages: $n_found findings"
    PEAK_EXIT_MAX=2
    peak "audit of a psb: store of 65536 tiny languages ($((in / 1024)) KB, $n_found findings, $((said / 1024)) KB of messages)" \
        $((10 * in + 24 * MB)) "$REGTOOL" --store "psb:$P" audit
    PEAK_EXIT_MAX=1
    expect_grep "^65536 errors, 0 warnings, 65537 info$" "$OUT"
    rm -f "$P"

    # 4. A .reg store of 30000 Perflib language keys, each with a Counter
    # and a Help of one pair ("2", "x"; "3", "y").
    R=$TMPDIR/langs.reg
    { printf 'Windows Registry Editor Version 5.00\r\n\r\n'
      printf '[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib]\r\n'
      printf '"Base Index"=dword:00000737\r\n"Last Counter"=dword:00000002\r\n"Last Help"=dword:00000003\r\n'
      awk 'BEGIN { for (i = 0; i < 30000; i++)
          printf "\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib\\%04x]\r\n\"Counter\"=hex(7):32,00,00,00,78,00,00,00,00,00\r\n\"Help\"=hex(7):33,00,00,00,79,00,00,00,00,00\r\n", 4096 + i }'
    } >"$R" || fail "cannot write $R"
    in=$(stat -c %s "$R")
    peak "query of a .reg store of 30000 tiny languages ($((in / 1024)) KB)" \
        $((10 * in + 24 * MB)) "$REGTOOL" --store "reg:$R" query
    # (audit: exit 2, the store has no English)
    PEAK_EXIT_MAX=2
    peak "audit of a .reg store of 30000 tiny languages ($((in / 1024)) KB)" \
        $((10 * in + 24 * MB)) "$REGTOOL" --store "reg:$R" audit
    PEAK_EXIT_MAX=1
    expect_grep "^error  *english-missing \\[009\\]: Perflib has no 009" "$OUT"
    expect_grep "^1 error, 0 warnings, 0 info$" "$OUT"
    rm -f "$R"

    # 4b. A .reg file of one key of 1000000 empty values (14 bytes a
    # value): read value by value into the tree, never held whole beside
    # it (as a store, a restore's backup and a System Monitor export), the
    # tree's index at four bytes a slot, a server removed in place (4M
    # such values took 1.13 GB, 1.13 GB and 1.06 GB for 55 MB).
    R=$TMPDIR/values.reg
    awk 'BEGIN { ORS = "\r\n"; print "REGEDIT4"; print ""
                 print "[HKEY_LOCAL_MACHINE\\a]"
                 for (k = 0; k < 1000000; k++) print "\"" k "\"=\"\"" }' >"$R" ||
        fail "cannot write $R"
    in=$(stat -c %s "$R")
    peak "query of a .reg store of one key of 1000000 empty values ($((in / 1024)) KB)" \
        $((10 * in + 24 * MB)) "$REGTOOL" --store "reg:$R" query
    W=$TMPDIR/values-tree
    expect_exit 0 "$REGTOOL" --store "hive:$W" init
    PEAK_EXIT_MAX=2
    peak "restore --dry-run of a .reg file of 1000000 empty values ($((in / 1024)) KB)" \
        $((10 * in + 24 * MB)) "$REGTOOL" --store "hive:$W" restore --dry-run "$R"
    expect_grep "has no \[HKEY_LOCAL_MACHINE" "$ERR"
    PEAK_EXIT_MAX=4
    peak "perfstats remove from a .reg file of 1000000 empty values ($((in / 1024)) KB)" \
        $((10 * in + 24 * MB)) "$REGTOOL" perfstats remove S "$R"
    PEAK_EXIT_MAX=1
    rm -rf "$R" "$W"

    # 5. A PerfStringBackup file of 400000 [PERF_] sections with nothing
    # in them, after an English section of three strings, read as a
    # store: each service costs its section's dozen bytes.
    P=$TMPDIR/services.psb
    awk 'BEGIN { printf "[Perflib]\nBase Index=1847\nLast Counter=2\nLast Help=3"
                 printf "\n\n[PerfStrings_009]\n1=1847\n2=x\n3=y"
                 for (i = 0; i < 400000; i++) printf "\n[PERF_%x]", i }' >"$P" ||
        fail "cannot write $P"
    in=$(stat -c %s "$P")
    peak "query of a psb: store of 400000 bare services ($((in / 1024)) KB)" \
        $((10 * in + 24 * MB)) "$REGTOOL" --store "psb:$P" query
    expect_grep "^Languages  *009$" "$OUT"
    [ "$(grep -c '^  [0-9a-f]*$' "$OUT")" -eq 400000 ] ||
        fail "query does not list the 400000 services"
    expect_grep "^  61a7f$" "$OUT"
    peak "names of a psb: store of 400000 bare services ($((in / 1024)) KB)" \
        $((10 * in + 24 * MB)) "$REGTOOL" --store "psb:$P" names
    expect_grep "^2	x$" "$OUT"
    peak "audit of a psb: store of 400000 bare services ($((in / 1024)) KB)" \
        $((10 * in + 24 * MB)) "$REGTOOL" --store "psb:$P" audit
    expect_grep "^0 errors, 0 warnings, 0 info$" "$OUT"
    iconv -f UTF-8 -t UTF-16LE "$P" >"$P.16" || fail "cannot write $P.16"
    in=$(stat -c %s "$P.16")
    peak "query of a psb: store of 400000 bare services, UTF-16LE ($((in / 1024)) KB)" \
        $((10 * in + 24 * MB)) "$REGTOOL" --store "psb:$P.16" query
    expect_grep "^  61a7f$" "$OUT"
    rm -f "$P" "$P.16"

    # 6. The registry layout, a Counter of 500000 tiny duplicate pairs
    # (tests/cli/mkscale.c writes it with regtool's own hive writer).
    MKSCALE=$TMPDIR/mkscale
    # shellcheck disable=SC2086
    cc $SANFLAGS -Ilib -o "$MKSCALE" tests/cli/mkscale.c \
        "$(dirname "$REGTOOL")/libregtool.a" -linih || fail "cannot build mkscale"
    W=$TMPDIR/dups
    expect_exit 0 "$REGTOOL" --store "hive:$W" init --layout registry
    expect_exit 0 "$REGTOOL" --store "hive:$W" backup "$TMPDIR/dups.ini"
    CFG=$W/Windows/System32/config
    "$MKSCALE" duplicates "$CFG/SOFTWARE" 500000 || fail "mkscale duplicates"
    cp -a "$W" "$TMPDIR/dups-made"
    in=$(( $(stat -c %s "$CFG/SOFTWARE") + $(stat -c %s "$CFG/SYSTEM") ))
    what="a Counter of 500000 tiny duplicate pairs ($((in / 1024)) KB of hives)"
    # Tighter than 10 x + 24 MB: these verbs grow at about 8.3 x the
    # hives (names 6.3 x), so 10 x holds at any size only with room.
    dups_bound=$((8 * in + 8 * MB))
    peak "names of $what" $dups_bound "$REGTOOL" --store "hive:$W" names
    [ "$(grep -c "^2	2$" "$OUT")" -eq 500000 ] || fail "names does not list the 500000 pairs"
    # (repair: exit 2, the table lost its names: errors left)
    PEAK_EXIT_MAX=2
    peak "repair --dry-run of $what" $dups_bound \
        "$REGTOOL" --store "hive:$W" repair --dry-run
    PEAK_EXIT_MAX=1
    expect_grep "index 2 held 500000 times; kept \"2\"" "$OUT"
    expect_grep "^  Perflib\\\\009\\\\Counter: +0 -499999 pairs" "$OUT"
    peak "restore --dry-run of $what" $dups_bound \
        "$REGTOOL" --store "hive:$W" restore --dry-run --force "$TMPDIR/dups.ini"
    expect_grep "(were 500000 and " "$OUT"
    PEAK_EXIT_MAX=2
    peak "repair of $what" $dups_bound \
        "$REGTOOL" --store "hive:$W" repair --backup "$TMPDIR/dups-repair.ini"
    PEAK_EXIT_MAX=1
    expect_grep "index 2 held 500000 times" "$OUT"
    [ "$("$REGTOOL" --store "hive:$W" names | grep -c "^2	")" -eq 1 ] ||
        fail "the repair left index 2 more than once"
    rm -rf "$W" "$TMPDIR/dups-repair.ini"
    mv "$TMPDIR/dups-made" "$W"
    peak "restore of $what" $dups_bound \
        "$REGTOOL" --store "hive:$W" restore --force "$TMPDIR/dups.ini"
    expect_grep "(were 500000 and " "$OUT"
    rm -rf "$W" "$TMPDIR/dups.ini"

    # 6b. A SYSTEM whose 2000 services all name one subkey list of 2000
    # keys (mkscale sharedlist): each service's list was read and indexed
    # as its own, 2000 x 2000 names kept (122 MB and 3 s for 456 KB; 2 GB
    # for 1.5 MB). The second key that names the list is refused where
    # its list is read: query warns of it and goes on, audit reports the
    # database unreadable (exit 2), names 2 does not read that far.
    W=$TMPDIR/shared
    expect_exit 0 "$REGTOOL" --store "hive:$W" init --layout registry
    "$MKSCALE" sharedlist "$W/Windows/System32/config/SYSTEM" 2000 ||
        fail "mkscale sharedlist"
    in=$(stat -c %s "$W/Windows/System32/config/SYSTEM")
    what="a SYSTEM whose 2000 services share one subkey list ($((in / 1024)) KB)"
    shared_re="Services.Scale0+1: subkey list at file offset 0x[0-9a-f]+ belongs to two owners"
    tree_state "$W" >"$TMPDIR/before"
    PEAK_EXIT_MAX=2
    for verb in query "names 2" audit; do
        # shellcheck disable=SC2086
        peak "$verb of $what" $((10 * in + 24 * MB)) \
            "$REGTOOL" --store "hive:$W" $verb
        [ "$verb" = "names 2" ] && continue
        cat "$OUT" "$ERR" | grep -Eq "$shared_re" ||
            { cat "$OUT" "$ERR" >&2; fail "$verb of $what: no line matches $shared_re"; }
    done
    PEAK_EXIT_MAX=1
    expect_same_tree "$W" "$TMPDIR/before" "the shared subkey list's tree changed"
    rm -rf "$W"

    # 7. rebuild of .dat tables of 500000 tiny duplicate pairs.
    W=$TMPDIR/dat-dups
    expect_exit 0 "$REGTOOL" --store "hive:$W" init --layout files
    awk 'BEGIN { for (i = 0; i < 500000; i++) printf "2\n2\n" }' |
        tr '\n' '\000' | iconv -f ASCII -t UTF-16LE >"$TMPDIR/c.dat" ||
        fail "cannot write the duplicates' table"
    printf '\000\000' >>"$TMPDIR/c.dat"
    for dir in System32 SysWOW64; do
        cp "$TMPDIR/c.dat" "$W/Windows/$dir/perfc009.dat"
    done
    tables=$(( $(stat -c %s "$W/Windows/System32/perfc009.dat") +
               $(stat -c %s "$W/Windows/System32/perfh009.dat") ))
    what="a perfc009.dat of 500000 tiny duplicate pairs ($((tables / 1024)) KB of tables)"
    # diff against a tree as made: 499999 pairs only in A, each a record
    # of the difference (40 bytes with two pointers to its texts, and the
    # stored tables kept beside their decoded pairs: 52 MB; now 28 bytes
    # with two positions, the stored forms freed once decoded: 32 MB).
    expect_exit 0 "$REGTOOL" --store "hive:$W-made" init --layout files
    peak "diff --pairs of $what" $((8 * tables + 8 * MB)) \
        "$REGTOOL" diff --pairs "hive:$W" "hive:$W-made"
    expect_grep "^  009 base (Windows' own): Counter 499999/923/1, " "$OUT"
    [ "$(grep -c '^    Counter 2          only in A: 2$' "$OUT")" -eq 499999 ] ||
        fail "diff --pairs does not list the 499999 pairs only in A"
    rm -rf "$W-made"
    # Without the tables as installed, the base is the current tables'.
    cp -R "$W" "$W-no-perfd"
    rm -f "$W-no-perfd/Windows/System32/perfd009.dat" \
        "$W-no-perfd/Windows/SysWOW64/perfd009.dat"
    peak "rebuild without perfd009.dat of $what" $((8 * tables + 8 * MB)) \
        "$REGTOOL" --store "hive:$W-no-perfd" rebuild
    expect_grep "^language 009: base from the current tables; 500000 names .*, unchanged$" "$OUT"
    expect_grep "0 changes, nothing to write" "$OUT"
    for dir in System32 SysWOW64; do
        cmp -s "$TMPDIR/c.dat" "$W-no-perfd/Windows/$dir/perfc009.dat" ||
            fail "the rebuild without perfd009.dat changed $dir's perfc009.dat"
    done
    rm -rf "$W-no-perfd" "$TMPDIR/c.dat"
    # The dry run lists each string lost from the change itself.
    peak "rebuild --dry-run of $what" $((8 * tables + 8 * MB)) \
        "$REGTOOL" --store "hive:$W" rebuild --dry-run
    [ "$(grep -c '^  lost Perflib\\009\\Counter 2 2$' "$OUT")" -eq 499999 ] ||
        fail "rebuild --dry-run does not list the 499999 strings lost"
    peak "rebuild of $what" $((8 * tables + 8 * MB)) \
        "$REGTOOL" --store "hive:$W" rebuild
    expect_grep "499999 strings of the current tables will be lost" "$OUT"
    [ "$("$REGTOOL" --store "hive:$W" names | grep -c "^2	")" -eq 1 ] ||
        fail "the rebuild left index 2 more than once"
    cmp -s "$W/Windows/System32/perfc009.dat" "$W/Windows/SysWOW64/perfc009.dat" ||
        fail "the rebuild left SysWOW64's perfc009.dat unlike System32's"
    rm -rf "$W"
fi

# 8. Caps, on sparse files: refused before they are read.
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

# The side files a change removes or rewrites whole are looked for, not
# read: a 4 GiB (sparse) PerfStringBackup.INI is rewritten by disable and
# uninstall, a 4 GiB symbol file of the INF copy removed, each in a few
# MB; the INF copy's INI, which uninstall reads for its symbol file's
# name, is refused over the 16 MiB an INI may be, nothing written.
expect_exit 0 "$REGTOOL" --store "hive:$W" init --layout files
expect_exit 0 "$REGTOOL" --store "hive:$W" install $CS "$TMPDIR/replication.ini"
PSB=$W/Windows/System32/PerfStringBackup.INI
INF=$W/Windows/INF/ReplicationPerf/0009
cp -a "$W" "$TMPDIR/caps-installed"
truncate -s 4G "$PSB" "$INF/ReplicationOffsets.h"
for verb in disable uninstall; do
    "$TIME" -f %M -o "$TMPDIR/rss" "$REGTOOL" --store "hive:$W" $verb \
        ReplicationPerf >"$OUT" 2>"$ERR" </dev/null ||
        { cat "$ERR" >&2; fail "$verb with a 4 GiB PerfStringBackup.INI failed"; }
    kb=$(tail -n 1 "$TMPDIR/rss")
    [ "$PLAIN" = 0 ] || [ "$kb" -le $((16 * 1024)) ] ||
        fail "$verb with a 4 GiB PerfStringBackup.INI: peak RSS $kb KB over 16 MB"
    [ "$(stat -c %s "$PSB")" -lt $((16 * MB)) ] ||
        fail "$verb left the 4 GiB PerfStringBackup.INI"
    truncate -s 4G "$PSB"
done
[ ! -e "$INF" ] || fail "uninstall left the INF copy with its 4 GiB symbol file"
rm -rf "$W"
mv "$TMPDIR/caps-installed" "$W"
truncate -s 4G "$INF/replication.ini"
refused "uninstall, a 4 GiB INF copy's INI" 2 \
    "replication\.ini: 4294967296 bytes, larger than the 16 MiB an INF copy's file may be; nothing was read" \
    "$W" "$REGTOOL" --store "hive:$W" uninstall ReplicationPerf
rm -rf "$W"

expect_exit 0 "$REGTOOL" --store "hive:$W" init --layout files
expect_exit 4 "$REGTOOL" --store "hive:$W" disable NoSuchService
I=$TMPDIR/in
mkdir "$I"
# A PerfStringBackup file may be 1536 MiB: what regtool backup writes of
# any tree whose .dat tables are within their 1 GiB (test_backup's
# test_backup_cap_holds_any_backup); one byte more is refused, before it
# is mapped. A .reg file may be 256 MiB: one that starts as a .reg file
# and is larger is refused once its first bytes say so, before it is
# parsed.
truncate -s $((1536 * MB + 1)) "$I/big.psb"
printf 'Windows Registry Editor Version 5.00\r\n\r\n' | iconv -f UTF-8 -t UTF-16LE |
    { printf '\377\376'; cat; } >"$I/big.reg"
truncate -s 257M "$I/big.reg"
refused "restore big.psb (1536 MiB and a byte)" 2 \
    "^regtool: .*big\.psb: 1610612737 bytes, larger than the 1536 MiB a PerfStringBackup or \.reg file may be; nothing was read$" \
    "$W" "$REGTOOL" --store "hive:$W" restore "$I/big.psb"
refused "restore big.reg (257 MiB)" 2 \
    "^regtool: .*big\.reg: 269484032 bytes, larger than the 256 MiB a \.reg file may be; nothing was read$" \
    "$W" "$REGTOOL" --store "hive:$W" restore "$I/big.reg"
ln -s "$REGTOOL" "$TMPDIR/lodctr"
refused "lodctr /R:big.psb (1536 MiB and a byte)" 13 \
    "^lodctr: .*big\.psb: 1610612737 bytes, larger than the 1536 MiB" \
    "$W" env REGTOOL_STORE="hive:$W" "$TMPDIR/lodctr" "/R:$I/big.psb"
refused "psb: store of 1536 MiB and a byte" 2 \
    "big\.psb: 1610612737 bytes, larger than the 1536 MiB a PerfStringBackup file may be; nothing was read" \
    "$I" "$REGTOOL" --store "psb:$I/big.psb" names 2
# Within the cap, a sparse backup whose fourth line starts its zeros is
# refused at that line, having read a piece of it: it was read whole
# first, 1.5 GB for each such file (an audit --fleet's uploads: review
# 42 R42-6).
{ printf '\377\376'; printf '\r\n[Perflib]\r\nBase Index=1847\r\n' |
    iconv -f UTF-8 -t UTF-16LE; } >"$I/zeros.psb"
truncate -s 1536M "$I/zeros.psb"
refused "psb: store of 1536 MiB, zeros from line 4" 2 \
    "zeros\.psb:4: a NUL character in the text" \
    "$I" "$REGTOOL" --store "psb:$I/zeros.psb" names 2
refused "restore of 1536 MiB, zeros from line 4" 2 \
    "zeros\.psb:4: a NUL character in the text" \
    "$W" "$REGTOOL" --store "hive:$W" restore "$I/zeros.psb"
rm "$I/zeros.psb"
# The same in UTF-8 with its mark (review 43 R43-10: checked whole).
printf '\357\273\277\r\n[Perflib]\r\nBase Index=1847\r\n' >"$I/zeros8.psb"
truncate -s 1536M "$I/zeros8.psb"
refused "psb: store of 1536 MiB of UTF-8, zeros from line 4" 2 \
    "zeros8\.psb:4: a NUL character in the text" \
    "$I" "$REGTOOL" --store "psb:$I/zeros8.psb" names 2
rm "$I/zeros8.psb"
refused "reg: store of 257 MiB" 2 \
    "big\.reg: 269484032 bytes, larger than the 256 MiB a \.reg file may be; nothing was read" \
    "$I" "$REGTOOL" --store "reg:$I/big.reg" install $CS "$TMPDIR/replication.ini"
# backup --format reg writes each table byte as 6 bytes of hex text: a
# tree of 44 MB of tables would make a .reg file of 290 MB, which restore
# and reg: stores refuse. It is not saved (it was, and could not be
# restored); a PerfStringBackup file of the same tree is, and restores.
# On the plain build only: a size rule, whose 44 MB take the sanitizers
# twenty seconds and show them nothing the smaller cases do not.
if [ "$ASAN" = 0 ]; then
    rm -rf "$W"
    expect_exit 0 "$REGTOOL" --store "hive:$W" init --layout files
    awk 'BEGIN { t = sprintf("%5000s", ""); gsub(/ /, "h", t)
                 for (i = 0; i < 4400; i++) printf "%d\n%s\n", 3 + 2 * i, t
                 printf "\n" }' | tr '\n' '\0' | iconv -f ASCII -t UTF-16LE \
        >"$W/Windows/System32/perfh009.dat" || fail "cannot write perfh009.dat"
    cp "$W/Windows/System32/perfh009.dat" "$W/Windows/SysWOW64/perfh009.dat"
    expect_exit 2 "$REGTOOL" --store "hive:$W" backup --format reg "$TMPDIR/big-backup.reg"
    expect_grep "^regtool: backup: the \.reg file would be [0-9]* bytes or more, larger than the 256 MiB a \.reg file may be (restore reads no larger one); nothing was saved: a PerfStringBackup file (without --format reg) holds this database$" "$ERR"
    [ ! -e "$TMPDIR/big-backup.reg" ] || fail "backup --format reg saved a file restore refuses"
    expect_exit 0 "$REGTOOL" --store "hive:$W" backup "$TMPDIR/big-backup.ini"
    expect_exit 0 "$REGTOOL" --store "hive:$W" restore --dry-run "$TMPDIR/big-backup.ini"
    expect_grep "would restore from .*big-backup.ini (UTF-16LE): 0 changes" "$OUT"
    rm -f "$TMPDIR/big-backup.ini"

    # A .reg of a million values with two-character names and empty data
    # (8 bytes a line: keys of 4,356 values, names of any character but
    # capitals and backslash, none equal to another in any case): each
    # value was a record, a heap block for its name and one for its data
    # (14 x the file); read as a tree, and perfstats keeps only what lies
    # below PerfStats\Enum.
    awk 'BEGIN { s = ""; for (c = 35; c < 127; c++) if (c != 92 && !(c >= 65 && c <= 90)) s = s sprintf("%c", c)
                 n = length(s); total = 0; k = 0
                 while (total < 1000000) { printf "[HKEY_USERS\\%d]\n", k++
                     for (a = 1; a <= n && total < 1000000; a++)
                         for (b = 1; b <= n && total < 1000000; b++) {
                             printf "\"%s%s\"=\"\"\n", substr(s, a, 1), substr(s, b, 1); total++ } } }' \
        >"$TMPDIR/tiny.body"
    { printf 'REGEDIT4\n\n'; cat "$TMPDIR/tiny.body"; } >"$TMPDIR/tiny.reg"
    in=$(stat -c %s "$TMPDIR/tiny.reg")
    peak "query of a reg: store of a million tiny values ($((in / 1024)) KB)" \
        $((10 * in + 24 * MB)) "$REGTOOL" --store "reg:$TMPDIR/tiny.reg" query
    PEAK_EXIT_MAX=2 peak "restore --dry-run of a million tiny values ($((in / 1024)) KB)" \
        $((10 * in + 24 * MB)) "$REGTOOL" --store "hive:$W" restore --dry-run "$TMPDIR/tiny.reg"
    peak "perfstats list of a million tiny values ($((in / 1024)) KB)" \
        $((10 * in + 24 * MB)) "$REGTOOL" perfstats list "$TMPDIR/tiny.reg"
    # The same values below a statistic's key, which perfstats reads:
    # each was held (22 x the file, review 39 F1): only Name,
    # Description, Differentiate and VxDName are, one of each. And one
    # statistic's key exported 400,000 times: a finding that it lacks a
    # Name for every section (13 x): once for the key, as import merges
    # them.
    { printf 'REGEDIT4\n\n'
      sed 's/^\[HKEY_USERS\\/[HKEY_LOCAL_MACHINE\\System\\CurrentControlSet\\Control\\PerfStats\\Enum\\S\\/' "$TMPDIR/tiny.body"
    } >"$TMPDIR/tinyenum.reg"
    in=$(stat -c %s "$TMPDIR/tinyenum.reg")
    for verb in list audit; do
        PEAK_EXIT_MAX=2 peak "perfstats $verb of a million tiny values below a statistic ($((in / 1024)) KB)" \
            $((10 * in + 24 * MB)) "$REGTOOL" perfstats $verb "$TMPDIR/tinyenum.reg"
    done
    awk 'BEGIN { printf "REGEDIT4\n"
                 for (i = 0; i < 400000; i++)
                     printf "[HKEY_LOCAL_MACHINE\\System\\CurrentControlSet\\Control\\PerfStats\\Enum\\S\\x]\n" }' \
        >"$TMPDIR/dupstat.reg"
    in=$(stat -c %s "$TMPDIR/dupstat.reg")
    PEAK_EXIT_MAX=2 peak "perfstats audit of one statistic exported 400000 times ($((in / 1024)) KB)" \
        $((10 * in + 24 * MB)) "$REGTOOL" perfstats audit "$TMPDIR/dupstat.reg"
    [ "$(grep -c 'stat-no-name' "$OUT")" = 1 ] ||
        fail "perfstats audit: not one stat-no-name for the key exported 400000 times"
    # Each section of that key with a Differentiate neither TRUE nor
    # FALSE: one stat-duplicate and one stat-bad-differentiate for the
    # key (the last given is what import keeps), not one a section, and
    # no message held for any (a 256-byte message a finding took 14.7 x
    # the file: review 40).
    awk 'BEGIN { printf "REGEDIT4\n"
                 for (i = 0; i < 400000; i++)
                     printf "[HKEY_LOCAL_MACHINE\\System\\CurrentControlSet\\Control\\PerfStats\\Enum\\S\\x]\n\"Differentiate\"=\"z\"\n" }' \
        >"$TMPDIR/dupstat.reg"
    in=$(stat -c %s "$TMPDIR/dupstat.reg")
    PEAK_EXIT_MAX=2 peak "perfstats audit of one statistic exported 400000 times with a bad Differentiate ($((in / 1024)) KB)" \
        $((10 * in + 24 * MB)) "$REGTOOL" perfstats audit "$TMPDIR/dupstat.reg"
    [ "$(grep -c '\[stat-duplicate\]$' "$OUT")" = 1 ] && [ "$(grep -c '\[stat-bad-differentiate\]$' "$OUT")" = 1 ] ||
        fail "perfstats audit: not one finding of each kind for the key exported 400000 times"
    expect_grep "statistic S.x is exported 400000 times (first at line 2)" "$OUT"
    # 200,000 servers of one statistic each (a Differentiate, no Name):
    # each server's list of statistics began at 16 (13 to 21 x the
    # file, review 40).
    awk 'BEGIN { printf "REGEDIT4\n"
                 for (i = 0; i < 200000; i++)
                     printf "[HKEY_LOCAL_MACHINE\\System\\CurrentControlSet\\Control\\PerfStats\\Enum\\S%x\\x]\n\"Differentiate\"=\"z\"\n", i }' \
        >"$TMPDIR/servers.reg"
    in=$(stat -c %s "$TMPDIR/servers.reg")
    for verb in list audit; do
        PEAK_EXIT_MAX=2 peak "perfstats $verb of 200000 servers of one statistic ($((in / 1024)) KB)" \
            $((10 * in + 24 * MB)) "$REGTOOL" perfstats $verb "$TMPDIR/servers.reg"
    done
    expect_grep "^200000 servers, 200000 errors, 200000 warnings" "$OUT"
    rm -f "$TMPDIR/tinyenum.reg" "$TMPDIR/dupstat.reg" "$TMPDIR/servers.reg"
    in=$(stat -c %s "$TMPDIR/tiny.reg")
    # Removing a server from such a file wrote it again from every value
    # held (15 x, review 33 F5): section by section now.
    printf '[HKEY_LOCAL_MACHINE\\System\\CurrentControlSet\\Control\\PerfStats\\Enum\\SRV]\n"Name"="Server"\n' \
        >>"$TMPDIR/tiny.reg"
    peak "perfstats remove from a million tiny values ($((in / 1024)) KB)" \
        $((10 * in + 24 * MB)) "$REGTOOL" perfstats remove SRV "$TMPDIR/tiny.reg"
    grep -q 'PerfStats' "$TMPDIR/tiny.reg" && fail "perfstats remove left the server"
    [ "$(grep -c '^"[^"][^"]"=' "$TMPDIR/tiny.reg")" = 1000000 ] ||
        fail "perfstats remove did not keep the million values"
    # The same values in a reg: store that holds a database (a fresh
    # tree's backup, in UTF-8), written by an install: the change was
    # made on a copy of the tree and the file made as a list of its keys
    # before its text (17 x the file).
    expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/small" init
    expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/small" backup --format reg "$TMPDIR/small.reg"
    { iconv -f UTF-16LE -t UTF-8 "$TMPDIR/small.reg" | tail -c +4
      printf '\r\n'; cat "$TMPDIR/tiny.body"; } >"$TMPDIR/store.reg"
    in=$(stat -c %s "$TMPDIR/store.reg")
    peak "install into a reg: store of a million tiny values ($((in / 1024)) KB)" \
        $((10 * in + 24 * MB)) "$REGTOOL" --store "reg:$TMPDIR/store.reg" install $CS "$TMPDIR/replication.ini"
    expect_exit 0 "$REGTOOL" --store "reg:$TMPDIR/store.reg" query
    expect_grep "replication" "$OUT"
    # every value kept, none written twice
    [ "$(grep -c '^"[^"][^"]"=' "$TMPDIR/store.reg")" = 1000000 ] ||
        fail "the reg: store's write did not keep its million values"
    # One key 500 levels deep of names of 8,000 characters: its write
    # held each level's whole path at once (the sum of them all: 1 GB
    # for 8.6 MB, review 33 F3).
    { iconv -f UTF-16LE -t UTF-8 "$TMPDIR/small.reg" | tail -c +4; printf '\r\n[HKEY_USERS'
      awk 'BEGIN { s = sprintf("%8000s", ""); gsub(/ /, "a", s)
                   for (i = 0; i < 500; i++) printf "\\%s%d", s, i }'
      printf ']\r\n"x"="y"\r\n'; } >"$TMPDIR/store.reg"
    in=$(stat -c %s "$TMPDIR/store.reg")
    peak "install into a reg: store of a key 500 names of 8000 characters deep ($((in / 1024)) KB)" \
        $((10 * in + 24 * MB)) "$REGTOOL" --store "reg:$TMPDIR/store.reg" install $CS "$TMPDIR/replication.ini"
    expect_grep '^"x"="y"' "$TMPDIR/store.reg"
    rm -rf "$TMPDIR/tiny.reg" "$TMPDIR/tiny.body" "$TMPDIR/small" "$TMPDIR/small.reg" "$TMPDIR/store.reg"

    # A value that is no table, 50 MB (PerfOS's Library): its .reg text
    # would pass the cap, and was made whole before the cap refused it (a
    # 100 MB one took 1.9 GB, review 32 F7). As a REG_EXPAND_SZ, a REG_SZ
    # no quoted string can hold and a REG_DWORD not 4 bytes long, the
    # last two written as hex, which the count before the text took for a
    # unit a character or nothing (1.8 GB for a 108 MB tree, review 33
    # F10). Refused by its size before its text is made.
    for kind in bigvalue bigsz bigdword; do
        rm -rf "$W"
        expect_exit 0 "$REGTOOL" --store "hive:$W" init --layout files
        "$MKSCALE" $kind "$W/Windows/System32/config/SYSTEM" 50000000 ||
            fail "mkscale $kind"
        in=$(du -sb "$W" | cut -f1)
        PEAK_EXIT_MAX=2 peak "backup --format reg of a 50 MB Library, $kind ($((in / MB)) MB tree)" \
            $((10 * in + 24 * MB)) "$REGTOOL" --store "hive:$W" backup --format reg "$TMPDIR/big-backup.reg"
        expect_grep "^regtool: backup: the \.reg file would be [0-9]* bytes or more, larger than the 256 MiB" "$ERR"
        [ ! -e "$TMPDIR/big-backup.reg" ] || fail "backup --format reg saved a file restore refuses ($kind)"
    done

    # A thousand Perflib languages planted without tables (and their
    # empty .dat files) and an ordinary INI of 208 KB (200 counters,
    # helps of 1,000 characters): every language gets the INI's texts
    # (English's), 400 MB of tables, so install took 1.43 GB before the
    # journal's cap refused it and its dry run 1 GB and exit 0 (review 34
    # F7); rebuild and repair --from-ini gave each language the INF
    # copy's alike. Counted before they are made: refused, the dry runs
    # too, the tree unchanged.
    rm -rf "$W"
    mkdir -p "$TMPDIR/inis"
    awk 'BEGIN { printf "[info]\r\ndrivername=Big\r\nsymbolfile=big.h\r\n\r\n"
                 printf "[languages]\r\n009=English\r\n\r\n[objects]\r\nC0_009_NAME=Obj\r\n\r\n[text]\r\n"
                 h = ""; for (k = 0; k < 1000; k++) h = h "x"
                 for (j = 0; j < 200; j++)
                     printf "C%d_009_NAME=Counter %d\r\nC%d_009_HELP=%s\r\n", j, j, j, h }' \
        >"$TMPDIR/inis/big.ini"
    awk 'BEGIN { for (j = 0; j < 200; j++) printf "#define C%d %d\r\n", j, 2 * j }' \
        >"$TMPDIR/inis/big.h"
    sed 's/drivername=Big/drivername=Big2/' "$TMPDIR/inis/big.ini" >"$TMPDIR/big2.ini"
    cp "$TMPDIR/inis/big.h" "$TMPDIR/big.h"
    expect_exit 0 "$REGTOOL" --store "hive:$W" init --layout files
    expect_exit 0 "$REGTOOL" --store "hive:$W" install $CS "$TMPDIR/inis/big.ini"
    "$MKSCALE" languages "$W/Windows/System32/config/SOFTWARE" 1000 &&
        "$MKSCALE" tables "$W/Windows/System32" 1000 &&
        "$MKSCALE" tables "$W/Windows/SysWOW64" 1000 || fail "mkscale languages"
    too_large="this change is too large for the store: the (install of 'Big2'|rebuild|repair) would write over [0-9]* bytes of names and help texts into the tables of its 1001 languages"
    for verb in "install $CS" "install --dry-run $CS"; do
        # shellcheck disable=SC2086
        refused "$verb of a 208 KB INI into 1,000 planted languages" 2 "$too_large" \
            "$W" "$REGTOOL" --store "hive:$W" $verb "$TMPDIR/big2.ini"
    done
    for verb in rebuild "rebuild --dry-run"; do
        # shellcheck disable=SC2086
        refused "$verb of a 208 KB INF copy into 1,000 planted languages" 2 "$too_large" \
            "$W" "$REGTOOL" --store "hive:$W" $verb
    done
    # repair counts the texts as it copies them: within 10 x the tree.
    in=$(du -sb "$W" | cut -f1)
    for verb in repair "repair --dry-run"; do
        tree_state "$W" >"$TMPDIR/before"
        # shellcheck disable=SC2086
        PEAK_EXIT=2 peak "$verb --from-ini of a 208 KB INI into 1,000 planted languages ($((in / MB)) MB tree)" \
            $((10 * in + 24 * MB)) "$REGTOOL" --store "hive:$W" $verb --from-ini "$TMPDIR/inis"
        grep -Eq "$too_large" "$ERR" || fail "$verb --from-ini: not refused as too large"
        expect_same_tree "$W" "$TMPDIR/before" "$verb --from-ini changed the tree"
    done

    # A psb: store (read-only: only ever planned on) of a thousand empty
    # language sections, 1.5 MB, and an INI of 20,000 one-letter
    # counters: its count was the 1.5 GiB a backup may be, and the dry
    # run planned 2.8 GB (review 36 F2). Bounded by its file now.
    awk 'BEGIN { printf "[info]\r\ndrivername=Tiny\r\nsymbolfile=tiny.h\r\n[languages]\r\n009=English\r\n[objects]\r\nC0_009_NAME=O\r\n[text]\r\n"
                 for (j = 0; j < 20000; j++) printf "C%d_009_NAME=a\r\nC%d_009_HELP=b\r\n", j, j }' >"$TMPDIR/tiny.ini"
    awk 'BEGIN { for (j = 0; j < 20000; j++) printf "#define C%d %d\r\n", j, 2 * j }' >"$TMPDIR/tiny.h"
    rm -rf "$W" "$TMPDIR/psbs"
    mkdir -p "$TMPDIR/psbs"
    expect_exit 0 "$REGTOOL" --store "hive:$W" init
    { iconv -f UTF-16LE -t UTF-8 "$W/Windows/System32/PerfStringBackup.INI" | sed '1s/^\xef\xbb\xbf//'
      awk 'BEGIN { for (i = 0; i < 1000; i++) printf "\r\n[PerfStrings_%X]\r\n", 4096 + i }'
    } | iconv -f UTF-8 -t UTF-16LE | { printf '\377\376'; cat; } >"$TMPDIR/psbs/psb.ini"
    # shellcheck disable=SC2086
    refused "install --dry-run into a psb: store of 1,000 empty languages" 2 \
        "this change is too large for the store: the install of 'Tiny' would write over [0-9]* bytes" \
        "$TMPDIR/psbs" "$REGTOOL" --store "psb:$TMPDIR/psbs/psb.ini" install --dry-run $CS "$TMPDIR/tiny.ini"
fi
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
