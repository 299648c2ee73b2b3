# make demo keeps working: the demo script, run into a scratch directory,
# ends with the tables byte-for-byte as before the uninstall.
. tests/cli/lib.sh

expect_exit 0 sh tools/demo.sh "$REGTOOL" "$TMPDIR/demo"
expect_grep "installed ReplicationPerf: names 3992-4000, help 3993-4001" "$OUT"
expect_grep "installed TransferPerf: names 4002-4014, help 4003-4015" "$OUT"
expect_grep "^3994	Строк реплицировано/с$" "$OUT"
expect_grep "is byte-for-byte as before TransferPerf was installed" "$OUT"
expect_grep "language 404 is in the INI but not on this machine" "$ERR"
