#!/bin/sh
# Service names ignore letter case as Windows' registry ignores it, in
# every script of its upper-case table, not in ASCII alone: a provider
# named Όμικρον (Greek, with tonos; planted with regtool's own hive
# writer, tests/cli/mkhostile.c, as hivexsh takes ASCII names alone) is
# found by query as όΜΙΚΡΟΝ; install --create-service of an INI whose
# drivername is όΜΙΚΡΟΝ is refused, naming the registry's Όμικρον, as it
# would replace that service's Library; uninstall όΜΙΚΡΟΝ removes
# Όμικρον's range as its own (it was on top; Last Counter, below that
# range and the Vietnamese provider's, stays), not as another provider's
# that overlaps it. And a Vietnamese name (Ạ/ạ).
. tests/cli/lib.sh

MKH=$TMPDIR/mkhostile
# shellcheck disable=SC2086
cc $SANFLAGS -Ilib -o "$MKH" tests/cli/mkhostile.c \
    "$(dirname "$REGTOOL")/libregtool.a" -linih || fail "cannot build mkhostile"

D=$TMPDIR/w
S="--store hive:$D"
SY=$D/Windows/System32/config/SYSTEM
expect_exit 0 "$REGTOOL" $S init --languages 009
NAME=$(printf '\316\214\316\274\316\271\316\272\317\201\316\277\316\275')   # Όμικρον
OTHER=$(printf '\317\214\316\234\316\231\316\232\316\241\316\237\316\235')  # όΜΙΚΡΟΝ
"$MKH" "$SY" "$NAME" omikron.dll omikron.ini 5000 || fail "mkhostile"
VIET=$(printf 'Vi\341\272\240t')    # ViẠt
VIET_OTHER=$(printf 'VI\341\272\241T') # VIạT
"$MKH" "$SY" "$VIET" viet.dll viet.ini 4000 || fail "mkhostile"

expect_exit 0 "$REGTOOL" $S query "$OTHER"
expect_grep "^  $NAME$" "$OUT"
expect_grep "^    Library       omikron.dll$" "$OUT"
expect_exit 0 "$REGTOOL" $S query "$VIET_OTHER"
expect_grep "^  $VIET$" "$OUT"

printf '#define OBJ 0\r\n#define CTR 2\r\n' >"$TMPDIR/sym.h"
printf '[info]\r\ndrivername=%s\r\nsymbolfile=sym.h\r\n\r\n[languages]\r\n009=English\r\n\r\n[objects]\r\nOBJ_009_NAME=Evil\r\n\r\n[text]\r\nOBJ_009_NAME=Evil\r\nOBJ_009_HELP=Evil object.\r\nCTR_009_NAME=Evil count\r\nCTR_009_HELP=Evil counter.\r\n' \
    "$OTHER" >"$TMPDIR/other.ini"
# The lock file a writer leaves (empty): a refused writer creates it.
: >"$D/Windows/System32/config/regtool.lock"
tree_state "$D" >"$TMPDIR/before"
expect_exit 4 "$REGTOOL" $S install --replace --create-service \
    --library 'C:\Users\Public\evil.dll' --open O --collect C --close X "$TMPDIR/other.ini"
expect_grep "service '$NAME' (the INI's drivername '$OTHER' is the same service: service names ignore case) already has a Library (omikron.dll)" "$ERR"
expect_same_tree "$D" "$TMPDIR/before"

expect_exit 0 "$REGTOOL" $S uninstall "$OTHER"
expect_grep "^uninstalled $OTHER: names 5000-5002, help 5001-5003" "$OUT"
expect_grep "^Last Counter 3990 unchanged: '$OTHER' was on top (Last Counter 3990 lies below its names 5000-5002, the highest of all); not raised to where its install found it (First Counter 5000 - 2): an uninstall never raises it$" "$OUT"
expect_exit 0 "$REGTOOL" $S query --json "$NAME"
jq -e '.providers[0].first_counter == null' "$OUT" >/dev/null ||
    fail "uninstall left Όμικρον's range: $(cat "$OUT")"
echo "names_any_case: ok"
