# Eight writers on one hive store at once: each waits its turn, none is lost.
. tests/cli/lib.sh

D=$TMPDIR/win
expect_exit 0 $REGTOOL --store "hive:$D" init --languages 009,019 --layout registry
for i in 1 2 3 4 5 6 7 8; do
    P=$TMPDIR/p$i
    mkdir -p "$P"
    printf '#define OBJ 0\n#define CNT 2\n' >"$P/o.h"
    printf '[info]\ndrivername=Prov%s\nsymbolfile=o.h\n[languages]\n009=English\n[text]\nOBJ_009_NAME=Prov%s\nOBJ_009_HELP=P.\nCNT_009_NAME=Count%s\nCNT_009_HELP=C.\n' "$i" "$i" "$i" >"$P/p.ini"
done
pids=""
for i in 1 2 3 4 5 6 7 8; do
    $REGTOOL --store "hive:$D" install --create-service --library x.dll \
        --open O --collect C --close X "$TMPDIR/p$i/p.ini" >"$TMPDIR/out$i" 2>&1 &
    pids="$pids $!"
done
rc=0
for p in $pids; do wait "$p" || rc=1; done
[ "$rc" -eq 0 ] || fail "a writer failed"
for i in 1 2 3 4 5 6 7 8; do
    grep -q "^installed Prov$i" "$TMPDIR/out$i" || { cat "$TMPDIR/out$i"; fail "Prov$i not installed"; }
    expect_exit 0 $REGTOOL --store "hive:$D" names "Prov$i" "Count$i"
done
# Eight distinct ranges, no index twice, as an independent reader sees them.
reglookup -H -p /Microsoft/Windows\ NT/CurrentVersion/Perflib "$D/Windows/System32/config/SOFTWARE" >/dev/null || fail reglookup
expect_exit 0 $REGTOOL --store "hive:$D" query --json
for i in 1 2 3 4 5 6 7 8; do expect_grep "\"name\":\"Prov$i\"" "$OUT"; done
n=$(grep -o '"first_counter":[0-9]*' "$OUT" | sort | uniq -d | wc -l)
[ "$n" -eq 0 ] || fail "two providers share a First Counter"
