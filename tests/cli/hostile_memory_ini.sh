#!/bin/sh
# Memory in proportion to the input for an INI and its symbol file whose
# lines each draw a message (docs/threat-model.md "Bounded in time and
# memory"; review 32 F4, F8). Each bound is 10 x the input + 24 MB (peak
# RSS from /usr/bin/time; not asserted under AddressSanitizer, whose
# shadow memory and quarantine are no measure of regtool's own, and the
# inputs are an eighth as big there):
#   1. check-ini of an INI whose symbol file is 14 MB of cycles of two
#      aliases (#define a_0 a_1 / #define a_1 a_0 ...), and of cycles of
#      eight; and rebuild --dry-run of a tree whose INF copy of it is that
#      symbol file. Each cycle's chain was sized for names of 64 bytes,
#      copied to each member, and each member kept its message and the
#      trouble's description besides: 288 MB for 14.9 MB (19.4 x), the
#      rebuild 308 MB for a 21.5 MB tree.
#   2. check-ini of an INI whose symbol file is 700,000 definitions with
#      a broken value (#define B<hex> 1+), each of which kept its message
#      and the trouble's description: 172 MB for 12.5 MB (13.7 x).
#   3. check-ini and install --dry-run of an INI whose [text] has
#      1,000,000 keys regtool skips (a<hex>=, 7.9 MB), and rebuild
#      --dry-run of a tree with it as its INF copy: each kept a warning,
#      a heap block for it, its message and the file's name (check-ini
#      260 MB, 32 x; rebuild 310 MB for a 15.3 MB tree). The first 1000
#      of a kind are kept, the rest counted.
#   4. check-ini and install --dry-run of an INI listing 4,096 languages
#      whose [text] has 16,000 keys, each symbol's in one language: each
#      symbol had a text slot for every language listed, used or not
#      (24 bytes x 4,096 a symbol): 1.1 GB for a 322 KB INI (review 34
#      F5). A symbol's texts now cost by its keys.
#   5. check-ini of an INI near the 16 MiB cap whose [text] is 1,280,000
#      NAME keys, each a (symbol, language) of its own over 4,095
#      languages: the keys' texts were held three times at once with
#      their index (doubling growth): 204 MB for 16.7 MB (review 35 F4).
# What the INI never names is never reported: the messages are made for
# the definitions it names, when they are reported.
. tests/cli/lib.sh

TIME=/usr/bin/time
[ -x "$TIME" ] || fail "no $TIME (Debian package time: tools/deps.sh installs it)"
CS="--create-service --library x.dll --open O --collect C --close X"
# size N: N, an eighth of it under the sanitizers.
size() { if [ "$ASAN" = 1 ]; then echo $(($1 / 8)); else echo "$1"; fi; }

# Each peak's command exits 0 (PEAK_EXIT when set).
PEAK_EXIT_MAX=0

S=$PWD/ini-samples
D=$TMPDIR/ini
mkdir "$D" || fail "cannot make $D"
cp "$S/transfer.ini" "$D/" || fail "cannot copy transfer.ini"

# 1. Cycles of L aliases, 14 MB of them, after the sample's symbol file.
for L in 2 8; do
    N=$(size $((14000000 / (L * 24))))
    { cat "$S/CounterOffsets.h"
      awk -v n="$N" -v L="$L" 'BEGIN { for (c = 0; c < n; c++) for (k = 0; k < L; k++)
          printf "#define a%x_%d a%x_%d\n", c, k, c, (k + 1) % L }'
    } >"$D/CounterOffsets.h" || fail "cannot write the symbol file"
    in=$(( $(stat -c %s "$D/transfer.ini") + $(stat -c %s "$D/CounterOffsets.h") ))
    peak "check-ini, $N cycles of $L aliases ($((in / 1024)) KB)" \
        $((10 * in + 24 * MB)) "$REGTOOL" check-ini "$D/transfer.ini"
done
# The same symbol file as the INF copy of an installed provider's.
W=$TMPDIR/w
expect_exit 0 "$REGTOOL" --store "hive:$W" init
cp "$S/CounterOffsets.h" "$TMPDIR/CounterOffsets.h"
cp "$S/transfer.ini" "$TMPDIR/transfer.ini"
expect_exit 0 "$REGTOOL" --store "hive:$W" install $CS "$TMPDIR/transfer.ini"
INF=$W/Windows/INF/TransferPerf/0009
[ -f "$INF/CounterOffsets.h" ] || fail "install made no INF copy of the symbol file"
cp "$D/CounterOffsets.h" "$INF/CounterOffsets.h"
in=$(du -sb "$W" | cut -f1)
peak "rebuild --dry-run of a $((in / 1024)) KB tree, its INF copy's symbol file cycles of 8" \
    $((10 * in + 24 * MB)) "$REGTOOL" --store "hive:$W" rebuild --dry-run

# 2. Definitions with a broken value, none of which the INI names: the
# INI is valid, and nothing is said of them.
N=$(size 700000)
{ cat "$S/CounterOffsets.h"
  awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "#define B%x 1+\n", i }'
} >"$D/CounterOffsets.h" || fail "cannot write the symbol file"
in=$(( $(stat -c %s "$D/transfer.ini") + $(stat -c %s "$D/CounterOffsets.h") ))
peak "check-ini, $N definitions of a broken value ($((in / 1024)) KB)" \
    $((10 * in + 24 * MB)) "$REGTOOL" check-ini "$D/transfer.ini"
! grep -q "is not a number" "$ERR" || fail "check-ini spoke of definitions the INI does not name"
# One the INI names is reported as before.
first=TRANSFER_OBJECT
sed "s/^#define $first .*/#define $first B1/" "$D/CounterOffsets.h" >"$D/broken.h"
mv "$D/broken.h" "$D/CounterOffsets.h"
PEAK_EXIT=2 peak "check-ini, the INI naming one of them" \
    $((10 * in + 24 * MB)) "$REGTOOL" check-ini "$D/transfer.ini"
expect_grep "CounterOffsets.h:[0-9]*: error: $first: B1 (line [0-9]*): value '1+' is not a number$" "$ERR"

# 3. An INI of a million keys that each draw a warning.
N=$(size 1000000)
cp "$S/CounterOffsets.h" "$D/CounterOffsets.h"
{ cat "$S/transfer-utf8.ini"
  awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "a%x=\n", i }'
} >"$D/big.ini" || fail "cannot write big.ini"
in=$(( $(stat -c %s "$D/big.ini") + $(stat -c %s "$D/CounterOffsets.h") ))
peak "check-ini of $N skipped keys ($((in / 1024)) KB)" \
    $((10 * in + 24 * MB)) "$REGTOOL" check-ini "$D/big.ini"
[ "$(grep -c 'is not SYMBOL_LLL_NAME or SYMBOL_LLL_HELP; skipped' "$ERR")" -eq 1000 ] ||
    fail "check-ini did not list the first 1000 skipped keys"
expect_grep "big\.ini:[0-9]*: warning: \.\.\. and $((N - 1000)) more warnings like this, between lines [0-9]* and [0-9]* (only the first 1000 of a kind are listed)$" "$ERR"
peak "check-ini --json of them" $((10 * in + 24 * MB)) \
    "$REGTOOL" check-ini --json "$D/big.ini"
expect_grep "\.\.\. and $((N - 1000)) more warnings like this" "$OUT"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/w2" init
peak "install --dry-run of them" $((10 * in + 24 * MB)) \
    "$REGTOOL" --store "hive:$TMPDIR/w2" install $CS --dry-run "$D/big.ini"
cp "$D/big.ini" "$INF/transfer.ini" || fail "cannot replace the INF copy"
cp "$S/CounterOffsets.h" "$INF/CounterOffsets.h"
in=$(du -sb "$W" | cut -f1)
peak "rebuild --dry-run of a $((in / 1024)) KB tree, its INF copy's INI $N skipped keys" \
    $((10 * in + 24 * MB)) "$REGTOOL" --store "hive:$W" rebuild --dry-run

# 4. 4,096 languages, 16,000 [text] keys: 8,000 symbols, each with a NAME
# and a HELP in one language, the languages taken in turn.
N=$(size 8000)
awk -v n="$N" 'BEGIN { printf "[info]\ndrivername=ManyLang\nsymbolfile=many.h\n\n[languages]\n"
    for (i = 0; i < 4096; i++) printf "%03X=L\n", i
    printf "\n[objects]\nS0_000_NAME=O\n\n[text]\n"
    for (j = 0; j < n; j++) { l = j % 4096
        printf "S%d_%03X_NAME=n%d\nS%d_%03X_HELP=h%d\n", j, l, j, j, l, j } }' \
    >"$D/many.ini" || fail "cannot write many.ini"
awk -v n="$N" 'BEGIN { for (j = 0; j < n; j++) printf "#define S%d %d\n", j, 2 * j }' \
    >"$D/many.h" || fail "cannot write many.h"
in=$(( $(stat -c %s "$D/many.ini") + $(stat -c %s "$D/many.h") ))
peak "check-ini, 4096 languages, $((2 * N)) [text] keys ($((in / 1024)) KB)" \
    $((10 * in + 24 * MB)) "$REGTOOL" check-ini "$D/many.ini"
expect_grep "^  $((2 * N - 2)) S$((N - 1)) counter$" "$OUT"
peak "install --dry-run of it" $((10 * in + 24 * MB)) \
    "$REGTOOL" --store "hive:$TMPDIR/w2" install $CS --dry-run "$D/many.ini"

# 5. (above)
N=$(size 1280000)
awk 'BEGIN { for (s = 0; s < 400; s++) printf "#define %c%c %d\n", 97 + s % 26, 97 + int(s / 26), 2 * s }' >"$D/m.h"
awk -v n="$N" 'BEGIN { printf "[info]\ndrivername=M\nsymbolfile=m.h\n[languages]\n"
    for (l = 1; l < 4096; l++) printf "%03X=x\n", l
    printf "[text]\n"; k = 0
    for (s = 0; k < n; s++) for (l = 1; l < 4096 && k < n; l++) {
        printf "%c%c_%03X_NAME=\n", 97 + s % 26, 97 + int(s / 26), l; k++ } }' >"$D/names.ini"
in=$(stat -c %s "$D/names.ini")
peak "check-ini of $N NAME keys over 4,095 languages ($((in / 1024)) KB)" \
    $((10 * in + 24 * MB)) "$REGTOOL" check-ini "$D/names.ini"
rm -f "$D/names.ini" "$D/m.h"

echo "hostile_memory_ini.sh: ok"
