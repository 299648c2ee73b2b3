# A writer that finds the lock held says once who holds it, waits up to
# --wait SECONDS (60 by default), then exits 3 with that message, having
# written nothing. A reader waits behind a writer the same way. When the
# holder lets go in time, the writer goes on.
. tests/cli/lib.sh

P=$TMPDIR/prov
mkdir -p "$P"
printf '#define OBJ 0\n#define CNT 2\n' >"$P/o.h"
printf '[info]\ndrivername=Xfer\nsymbolfile=o.h\n[languages]\n009=English\n[text]\nOBJ_009_NAME=Xfer\nOBJ_009_HELP=X.\nCNT_009_NAME=Count\nCNT_009_HELP=C.\n' >"$P/x.ini"
CS="--create-service --library x.dll --open O --collect C --close X"
W=$TMPDIR/w
C=$W/Windows/System32/config
expect_exit 0 $REGTOOL --store "hive:$W" init --languages 009
# Another regtool holds the lock: its note, as a holder writes it, and an
# exclusive flock held for 30 seconds.
now=$(date +%s)
printf 'pid 4242 started %s\n' "$now" >"$C/regtool.lock"
hold_lock -x "$C/regtool.lock" 30
trap 'kill $holder 2>/dev/null' EXIT
tree_state "$W" >"$TMPDIR/before"
started=$(date -u -d "@$now" '+%Y-%m-%d %H:%M:%S UTC')
t0=$(date +%s%N)
# shellcheck disable=SC2086
expect_exit 3 $REGTOOL --wait 2 --store "hive:$W" install $CS "$P/x.ini"
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
# At least the 2 s asked for; the upper bound only tells it from the
# default 60 s, with room for a loaded machine.
[ $ms -ge 2000 ] && [ $ms -le 15000 ] || fail "waited $ms ms, not about 2 s"
expect_grep "^regtool: waiting for another regtool (pid 4242, started $started) holding $C/regtool.lock$" "$ERR"
[ "$(grep -c "^regtool: waiting" "$ERR")" -eq 1 ] || fail "said more than once: $(cat "$ERR")"
expect_grep "gave up after 2 s waiting for another regtool (pid 4242, started $started) holding .*regtool.lock; nothing was written ('regtool --wait SECONDS' waits longer)" "$ERR"
expect_same_tree "$W" "$TMPDIR/before"
# A reader behind the writer.
expect_exit 3 $REGTOOL --wait 1 --store "hive:$W" names
expect_grep "waiting for another regtool (pid 4242" "$ERR"
expect_same_tree "$W" "$TMPDIR/before"
# --wait 0: no waiting at all.
# shellcheck disable=SC2086
expect_exit 3 $REGTOOL --wait 0 --store "hive:$W" install $CS "$P/x.ini"
expect_grep "gave up after 0 s" "$ERR"
# --wait 0 does not wait, so it never says it waits: only that it gave up.
! grep -q "^regtool: waiting for" "$ERR" || fail "--wait 0 said it waits: $(cat "$ERR")"
expect_exit 64 $REGTOOL --wait soon --store "hive:$W" names
expect_grep "wait soon: give the seconds" "$ERR"
kill $holder; wait $holder 2>/dev/null

# The holder lets go within the wait: the writer says it waits, then
# installs.
hold_lock -x "$C/regtool.lock" 3
# shellcheck disable=SC2086
expect_exit 0 $REGTOOL --store "hive:$W" install $CS "$P/x.ini"
expect_grep "^regtool: waiting for another regtool" "$ERR"
expect_grep "^installed Xfer" "$OUT"
wait $holder
# Released: the lock file holds no note any more.
[ ! -s "$C/regtool.lock" ] || fail "stale note in the lock file: $(cat "$C/regtool.lock")"
