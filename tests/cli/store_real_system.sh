# The hive store on a SYSTEM hive that Windows 7 wrote (shared samples),
# paired with a SOFTWARE hive from init: 35 services with a Performance
# key, 26 with ranges, exactly as lodctr left them.
. tests/cli/lib.sh

S=$SHARED/samples/SYSTEM.xz
[ -r "$S" ] || fail "missing sample $S"
D=$TMPDIR/win
expect_exit 0 $REGTOOL --store "hive:$D" init --languages 009 --layout registry
xz -dc "$S" >"$D/Windows/System32/config/SYSTEM"
expect_exit 0 $REGTOOL --store "hive:$D" query --json
[ "$(grep -o '"name":' "$OUT" | wc -l)" -eq 35 ] || fail "not 35 providers"
[ "$(grep -o '"first_counter":[0-9]' "$OUT" | wc -l)" -eq 26 ] || fail "not 26 ranges"
expect_grep '"name":".NETFramework","library":"[^"]*","open":"[^"]*","collect":"[^"]*","close":"[^"]*","first_counter":4216,"last_counter":4390,"first_help":4217,"last_help":4391' "$OUT"
expect_grep '"name":"ESENT",[^}]*"first_counter":2602,"last_counter":3698' "$OUT"
expect_grep '"name":"WmiApRpl",[^}]*"first_counter":8002,"last_counter":8206' "$OUT"
expect_grep '"name":"PerfDisk","library":"[^"]*",[^}]*"first_counter":null' "$OUT"
# The sample hive itself is never written by a read.
xz -dc "$S" | cmp - "$D/Windows/System32/config/SYSTEM" || fail "query wrote the SYSTEM hive"
