# regtool hive check: version, size, dirty state and findings, as text
# and JSON, with exit codes 0 clean / 1 dirty or warnings / 2 errors.
. tests/cli/lib.sh

xz -dc "$SHARED/samples/SYSTEM.xz" > "$TMPDIR/SYSTEM"
xz -dc "$SHARED/samples/transactions_NTUSER.DAT.xz" > "$TMPDIR/NTUSER.DAT"

expect_exit 0 "$REGTOOL" hive check "$TMPDIR/SYSTEM"
expect_grep "version 1.5, 11771904 bytes, clean, sequence 13983/13983" "$OUT"
expect_grep "0 errors, 0 warnings" "$OUT"

expect_exit 0 "$REGTOOL" hive check --json "$TMPDIR/SYSTEM"
expect_grep '"version":"1.5","size":11771904,"dirty":false,"sequence":\[13983,13983\],"logs":\[\],"replay":null,"journal":null,"findings":\[\]}' "$OUT"

# A dirty hive without its logs applied: readable, reported, exit 1.
expect_exit 1 "$REGTOOL" hive check --json "$TMPDIR/NTUSER.DAT"
expect_grep '"dirty":true,"sequence":\[567,566\]' "$OUT"
expect_grep '"severity":"warning","offset":4,"message":"sequence numbers differ (567/566)' "$OUT"
expect_grep '"logs":\[\],"replay":null' "$OUT"

# With its logs beside it: what they hold and what replay would apply
# (the samples README: 23 entries, 566 to 588, LOG2 older and unused).
xz -dc "$SHARED/samples/transactions_ntuser.dat.log1.xz" > "$TMPDIR/NTUSER.DAT.LOG1"
xz -dc "$SHARED/samples/transactions_ntuser.dat.log2.xz" > "$TMPDIR/NTUSER.DAT.LOG2"
expect_exit 1 "$REGTOOL" hive check --json "$TMPDIR/NTUSER.DAT"
expect_grep '"logs":\[{"file":"[^"]*NTUSER.DAT.LOG1","format":"new","entries":23},{"file":"[^"]*NTUSER.DAT.LOG2","format":"new","entries":1}\],"replay":{"entries":23,"sequence":\[566,588\]}' "$OUT"
expect_exit 1 "$REGTOOL" hive check "$TMPDIR/NTUSER.DAT"
expect_grep "replay would apply 23 entries, sequence 566 to 588" "$OUT"
expect_grep "LOG2: new, 1 valid entries; not used" "$OUT"

# Truncated: a structural error, exit 2, naming what is wrong.
head -c 500000 "$TMPDIR/SYSTEM" > "$TMPDIR/short"
expect_exit 2 "$REGTOOL" hive check "$TMPDIR/short"
expect_grep "error at file offset 0x28: hive bins size 0xb39000 but only 0x79120 bytes follow the base block (truncated)" "$OUT"

# Not a hive at all, a missing file, bad usage.
printf 'hello' > "$TMPDIR/text"
expect_exit 2 "$REGTOOL" hive check --json "$TMPDIR/text"
expect_grep '"version":null' "$OUT"
expect_grep 'shorter than the 4096-byte base block' "$OUT"
# A hive cut inside its base block (its "regf" there, the rest missing)
# and a file as long as a base block that does not start with "regf":
# neither is a hive, and no version or sequence is read from them.
head -c 1000 "$TMPDIR/SYSTEM" > "$TMPDIR/cut"
expect_exit 2 "$REGTOOL" hive check --json "$TMPDIR/cut"
expect_grep '"version":null,"size":1000,"dirty":false,"sequence":null' "$OUT"
expect_grep 'file is 1000 bytes, shorter than the 4096-byte base block' "$OUT"
expect_exit 2 "$REGTOOL" hive check "$TMPDIR/cut"
expect_grep "^$TMPDIR/cut: not a hive, 1000 bytes$" "$OUT"
yes 'not a hive at all' | head -c 8192 > "$TMPDIR/foreign"
expect_exit 2 "$REGTOOL" hive check --json "$TMPDIR/foreign"
expect_grep '"version":null,"size":8192,"dirty":false,"sequence":null' "$OUT"
expect_grep "file offset 0x0: signature is not 'regf'" "$OUT"
expect_exit 2 "$REGTOOL" hive check "$TMPDIR/foreign"
expect_grep "^$TMPDIR/foreign: not a hive, 8192 bytes$" "$OUT"
expect_exit 3 "$REGTOOL" hive check "$TMPDIR/missing"
expect_grep "No such file" "$ERR"
expect_exit 64 "$REGTOOL" hive check
expect_exit 64 "$REGTOOL" hive check --bogus "$TMPDIR/SYSTEM"
expect_exit 64 "$REGTOOL" hive frobnicate

# --help; and a regtool commit left pending beside the hive is reported.
expect_exit 0 "$REGTOOL" hive check --help
expect_grep "--json" "$OUT"
mkdir "$TMPDIR/cfg"; cp "$TMPDIR/SYSTEM" "$TMPDIR/cfg/SYSTEM"
printf 'RTJOURN2partial' >"$TMPDIR/cfg/regtool.journal"
expect_exit 1 "$REGTOOL" hive check "$TMPDIR/cfg/SYSTEM"
expect_grep "pending regtool commit: $TMPDIR/cfg/regtool.journal (15 bytes)" "$OUT"
expect_exit 1 "$REGTOOL" hive check --json "$TMPDIR/cfg/SYSTEM"
expect_grep "\"journal\":{\"file\":\"$TMPDIR/cfg/regtool.journal\",\"bytes\":15}" "$OUT"
