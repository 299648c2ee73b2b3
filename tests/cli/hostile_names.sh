#!/bin/sh
# A hostile tree's names reach the terminal escaped (issue 37): a service
# whose name holds an OSC title sequence, a BEL, a newline followed by a
# forged summary line, a right-to-left override and a C1 CSI; a Library
# holding a clear-screen sequence; a PerfIniFile holding an OSC sequence
# (planted with regtool's own hive writer, tests/cli/mkhostile.c: a newline
# in a key name is beyond hivexsh and .reg files); a counter name in
# perfc009.dat holding an OSC sequence and a newline; a journal whose note
# holds the same. For query, names, audit, audit --libraries, repair
# --dry-run, uninstall (dry run and real), install --dry-run and
# check-ini, and the journal's pending-change lines (and backup, which
# leaves such a service out of a PerfStringBackup file): no raw ESC, BEL or
# CSI byte, no raw U+202E, no forged line, and the escaped form
# (\x1b, \x07, \n, \u202e, \u009b) where the name is shown; nor a raw
# invisible character (U+200F, U+200B, U+FEFF, U+00AD, the tag U+E0041),
# each escaped (\u200f, ..., \U000e0041). French, Russian, Chinese and
# Greek text is printed as it is. --json keeps the exact
# text, escaped as JSON (\u001b), and reads back byte for byte.
. tests/cli/lib.sh

MKH=$TMPDIR/mkhostile
# shellcheck disable=SC2086
cc $SANFLAGS -Ilib -o "$MKH" tests/cli/mkhostile.c \
    "$(dirname "$REGTOOL")/libregtool.a" -linih || fail "cannot build mkhostile"
MKJ=$TMPDIR/mkjournal
cc -Ilib -o "$MKJ" tests/cli/mkjournal.c lib/commit/crc32.c ||
    fail "cannot build mkjournal"

# The forged line each hostile text carries after its newline.
FORGED='0 errors, 0 warnings, 0 info'
# After them, the invisible characters that make one name look like
# another or reorder it: U+200F RIGHT-TO-LEFT MARK, U+200B ZERO WIDTH
# SPACE, U+FEFF, U+00AD SOFT HYPHEN and U+E0041 TAG LATIN CAPITAL A.
HIDDEN=$(printf '\342\200\217\342\200\213\357\273\277\302\255\363\240\201\201')
SVC=$(printf 'Evil\033]0;pwned\007\n%s\342\200\256\302\233X%sY' "$FORGED" "$HIDDEN")
SVC_SHOWN="Evil\\x1b]0;pwned\\x07\\n$FORGED\\u202e\\u009bX\\u200f\\u200b\\ufeff\\u00ad\\U000e0041Y"
LIB=$(printf 'C:\\Users\\Public\\e\033[2J\007.dll')
LIB_SHOWN='C:\Users\Public\e\x1b[2J\x07.dll'
INIF=$(printf 'x\033]0;t\007.ini')
INIF_SHOWN='x\x1b]0;t\x07.ini'
CTR_SHOWN="Ctr\\x1b]0;pwned\\x07\\n$FORGED"

D=$TMPDIR/w
C=$D/Windows/System32/config
expect_exit 0 "$REGTOOL" --store "hive:$D" init --languages 009
"$MKH" "$C/SYSTEM" "$SVC" "$LIB" "$INIF" 5000 || fail "mkhostile"
# Index 4000 in perfc009.dat: above Last Counter, in no provider's range.
F=$D/Windows/System32/perfc009.dat
head -c -2 "$F" >"$F.new"
printf '4000\000Ctr\033]0;pwned\007\n%s\000\000' "$FORGED" |
    iconv -f UTF-8 -t UTF-16LE >>"$F.new" || fail "iconv"
mv "$F.new" "$F"
cp -a "$D" "$TMPDIR/pristine"

# clean LABEL: neither output holds a byte a terminal acts on (ESC, BEL,
# the C1 CSI 0x9b alone or as UTF-8, U+202E), one of the invisible
# characters of HIDDEN, or a line that begins with the forged summary.
clean() {
    for f in "$OUT" "$ERR"; do
        if LC_ALL=C grep -q "$(printf '[\033\007\233]')" "$f" ||
            LC_ALL=C grep -qF "$(printf '\342\200\256')" "$f" ||
            LC_ALL=C grep -qF "$(printf '\342\200\217')" "$f" ||
            LC_ALL=C grep -qF "$(printf '\342\200\213')" "$f" ||
            LC_ALL=C grep -qF "$(printf '\357\273\277')" "$f" ||
            LC_ALL=C grep -qF "$(printf '\302\255')" "$f" ||
            LC_ALL=C grep -qF "$(printf '\363\240\201\201')" "$f"; then
            od -c "$f" | head -40 >&2
            fail "$1: a raw control character in $f"
        fi
        if grep -q "^$FORGED" "$f"; then
            cat "$f" >&2
            fail "$1: a forged line in $f"
        fi
    done
}
# shows LABEL FILE TEXT: FILE holds TEXT as it is (no pattern).
shows() { grep -qF -- "$3" "$2" || { cat "$2" >&2; fail "$1: no '$3' in $2"; }; }

# A PerfStringBackup file holds a section's name on one line: the
# service whose name holds a newline is left out of a backup, never
# written as a section header and lines of its own.
expect_exit 0 "$REGTOOL" --store "hive:$D" backup "$TMPDIR/names.ini"
iconv -f UTF-16LE -t UTF-8 "$TMPDIR/names.ini" | grep -q "PERF_Evil" &&
    fail "backup: the service with a newline in its name was written"
# Nor one whose name holds a ']', ends in a blank or holds a line break
# only another reader ends lines at: Windows' profile reader takes
# "[PERF_PerfOS]x]" and "[PERF_PerfOS ]" for PerfOS's section, whose range
# lodctr /R would then set, and "[PERF_Tr]<VT>[Perflib]" for a second
# [Perflib] to a reader that ends lines at VT (review 53 R53-3).
N=$TMPDIR/brackets
cp -a "$D" "$N"
first=5100
for name in 'PerfOS]x' 'PerfOS ' "$(printf 'Tr]\v[Perflib')"; do
    "$MKH" "$N/Windows/System32/config/SYSTEM" "$name" 'C:\x.dll' x.ini \
        $first || fail "mkhostile $name"
    first=$((first + 100))
done
expect_exit 0 "$REGTOOL" --store "hive:$N" backup "$TMPDIR/brackets.ini"
iconv -f UTF-16LE -t UTF-8 "$TMPDIR/brackets.ini" >"$TMPDIR/brackets.txt"
! grep -aq 'PERF_PerfOS\|PERF_Tr' "$TMPDIR/brackets.txt" ||
    fail "backup: a name heading another section was written"
[ "$(grep -ac 'Perflib' "$TMPDIR/brackets.txt")" = 1 ] ||
    fail "backup: a second [Perflib]"
grep -aq '^First Counter=5' "$TMPDIR/brackets.txt" &&
    fail "backup: a planted service's range was written"
expect_exit 0 "$REGTOOL" --store "hive:$D" query
clean query
shows query "$OUT" "  $SVC_SHOWN"
shows query "$OUT" "    Library       $LIB_SHOWN"
shows query "$OUT" "    PerfIniFile   $INIF_SHOWN"

# JSON: the exact text, escaped as JSON; jq reads back the planted bytes.
expect_exit 0 "$REGTOOL" --store "hive:$D" query --json
clean "query --json"
shows "query --json" "$OUT" '"Evil\u001b]0;pwned\u0007\n0 errors, 0 warnings, 0 info\u202e\u009bX\u200f\u200b\ufeff\u00ad\udb40\udc41Y"'
[ "$(jq -r '.providers[] | select(.name | startswith("Evil")) | .library' "$OUT")" = "$LIB" ] ||
    fail "query --json: the Library does not read back"
jq -r '.providers[] | select(.name | startswith("Evil")) | .name' "$OUT" >"$TMPDIR/name.json"
printf '%s\n' "$SVC" | cmp -s - "$TMPDIR/name.json" || fail "query --json: the name does not read back"

expect_exit 2 "$REGTOOL" --store "hive:$D" audit
clean audit
shows audit "$OUT" "error   provider-above-last-counter: $SVC_SHOWN: range ends at 5002/5003"
shows audit "$OUT" "warning library-user-writable: $SVC_SHOWN: Library $LIB_SHOWN is in a place"
shows audit "$OUT" "PerfIniFile '$INIF_SHOWN' is not a file name"
shows audit "$OUT" "        4000 \"$CTR_SHOWN\""
expect_grep '^4 errors, 4 warnings, 1 info$' "$OUT"

expect_exit 2 "$REGTOOL" --store "hive:$D" audit --json
clean "audit --json"
jq -e --arg lib "$LIB" '[.findings[] | select(.id == "library-user-writable") |
        .message | contains($lib)] == [true]' "$OUT" >/dev/null ||
    fail "audit --json: the message does not hold the Library as it is"

expect_exit 1 "$REGTOOL" --store "hive:$D" audit --libraries
clean "audit --libraries"
shows "audit --libraries" "$OUT" "warning library-user-writable: $SVC_SHOWN: Library $LIB_SHOWN"

expect_exit 0 "$REGTOOL" --store "hive:$D" names 4000
clean names
shows names "$OUT" "4000	$CTR_SHOWN"

expect_exit 2 "$REGTOOL" --store "hive:$D" repair --dry-run --prune-orphans
clean "repair --dry-run"
shows "repair --dry-run" "$OUT" "  perfinifile-invalid: $SVC_SHOWN: PerfIniFile '$INIF_SHOWN'"
shows "repair --dry-run" "$OUT" "      - 4000 $CTR_SHOWN"

expect_exit 0 "$REGTOOL" --store "hive:$D" uninstall --dry-run "$SVC"
clean "uninstall --dry-run"
shows "uninstall --dry-run" "$OUT" "would uninstall $SVC_SHOWN: names 5000-5002"
shows "uninstall --dry-run" "$OUT" "  Services\\$SVC_SHOWN\\Performance: delete First Counter"
shows "uninstall --dry-run" "$ERR" "remove INF\\$SVC_SHOWN\\ by hand"
expect_exit 0 "$REGTOOL" --store "hive:$D" uninstall "$SVC"
clean uninstall
shows uninstall "$OUT" "uninstalled $SVC_SHOWN: names 5000-5002"
shows uninstall "$OUT" "Last Counter 3990 -> 4000: '$SVC_SHOWN' was on top"

# An INI: a bidirectional override is no control character to the INI
# reader, and is escaped in the dry run; French, Russian and Chinese
# names are printed as they are. A symbol holding ESC is an error that
# names it escaped.
P=$TMPDIR/prov
mkdir -p "$P"
printf '#define OBJ 0\n#define CTR 2\n' >"$P/p.h"
{
    printf '[info]\ndrivername=Hostile\nsymbolfile=p.h\n[languages]\n009=English\n'
    printf '[objects]\nOBJ_009_NAME=Obj\n[text]\n'
    printf 'OBJ_009_NAME=Obj \342\200\256dlrow\nOBJ_009_HELP=Help text\n'
    printf 'CTR_009_NAME=Caf\303\251 \320\241\321\207\321\221\321\202 \350\256\241\346\225\260 \316\225\317\200\316\265\316\276\n'
    printf 'CTR_009_HELP=Ctr help\n'
} >"$P/p.ini"
cp -a "$TMPDIR/pristine" "$TMPDIR/w2"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/w2" install --dry-run \
    --create-service --library p.dll --open O --collect C --close X "$P/p.ini"
clean "install --dry-run"
shows "install --dry-run" "$OUT" ' Obj \u202edlrow'
shows "install --dry-run" "$OUT" "$(printf ' Caf\303\251 \320\241\321\207\321\221\321\202 \350\256\241\346\225\260 \316\225\317\200\316\265\316\276')"
printf 'CTR\033[2J_009_NAME=x\n' >>"$P/p.ini"
# A key of an undefined symbol is skipped with a warning, as lodctr skips
# it; --strict refuses it: both name it escaped.
expect_exit 0 "$REGTOOL" check-ini "$P/p.ini"
clean check-ini
shows check-ini "$ERR" 'CTR\x1b[2J is not defined in p.h'
expect_exit 1 "$REGTOOL" check-ini --strict "$P/p.ini"
clean "check-ini --strict"
shows "check-ini --strict" "$ERR" 'CTR\x1b[2J is not defined in p.h'

# A journal whose note holds the same: the pending-change line of a
# reader and the lines of the writer that finishes it.
W=$TMPDIR/w3
cp -a "$TMPDIR/pristine" "$W"
size=$(wc -c <"$W/Windows/System32/config/SYSTEM")
"$MKJ" "$W/Windows/System32/config/regtool.journal" \
    -n "$(printf 'install of Caf\303\251\033]0;pwned\007\n%s' "$FORGED")" \
    "s|System32/config/SYSTEM|$size" || fail "mkjournal"
expect_exit 0 "$REGTOOL" --store "hive:$W" query PerfOS
clean "query with a journal"
shows "query with a journal" "$ERR" "$(printf 'the install of Caf\303\251\\x1b]0;pwned\\x07\\n%s committed at' "$FORGED")"
expect_exit 0 "$REGTOOL" --store "hive:$W" disable PerfOS
clean "disable with a journal"
shows "disable with a journal" "$ERR" "finished the install of Caf"

# A provider planted near 2^32, above Last Counter: its uninstall leaves
# Last Counter and Last Help where they lie (raised to First - 2 they
# were past what any install can use: review 33 F4), and an install
# after it finds its room.
H=$TMPDIR/high
expect_exit 0 "$REGTOOL" --store "hive:$H" init --languages 009
"$MKH" "$H/Windows/System32/config/SYSTEM" Hi 'C:\x.dll' x.ini 4294967290 || fail "mkhostile"
expect_exit 0 "$REGTOOL" --store "hive:$H" uninstall Hi
expect_grep "^Last Counter 3990 unchanged: 'Hi' was on top" "$OUT"
expect_grep "^Last Help 3991 unchanged: 'Hi' was on top" "$OUT"
expect_exit 1 "$REGTOOL" --store "hive:$H" audit   # Hi's Library outside: a warning
grep -q "^error\|out-of-range" "$OUT" && fail "the uninstall left an error: $(cat "$OUT")"
expect_exit 0 "$REGTOOL" --store "hive:$H" install --create-service --library x.dll \
    --open O --collect C --close X ini-samples/transfer.ini
expect_grep "names 3992-" "$OUT"

echo "hostile_names: ok"
