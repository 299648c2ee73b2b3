# regtool hive recover: replays the logs of real Windows hives.
. tests/cli/lib.sh
S=$SHARED/samples
d=$TMPDIR/hives; mkdir -p "$d"
for f in transactions_NTUSER.DAT transactions_ntuser.dat.log1 \
         transactions_ntuser.dat.log2 UsrClass.dat UsrClass.dat.LOG1 \
         UsrClass.dat.LOG2; do
    xz -dc "$S/$f.xz" >"$d/$f" || fail "cannot decompress $f"
done
sha() { sha256sum "$1" | cut -d' ' -f1; }
before=$(sha "$d/transactions_NTUSER.DAT")

# Logs named in lower case beside an upper-case primary.
expect_exit 0 "$REGTOOL" hive recover "$d/transactions_NTUSER.DAT" -o "$TMPDIR/ntuser"
[ "$(sha "$TMPDIR/ntuser")" = 0a7a7b2d1eb24ab63455f5a83e554601d88fe558d0ba1c1068a7e1102c79a092 ] ||
    fail "recovered NTUSER differs"
expect_grep "23 log entries applied (sequence 566 to 588)" "$OUT"
expect_grep "LOG2 .*not used" "$OUT"
[ "$(sha "$d/transactions_NTUSER.DAT")" = "$before" ] || fail "primary modified"

# LOG1 then LOG2; the logs renamed to other letter cases still count.
mv "$d/UsrClass.dat.LOG1" "$d/usrclass.DAT.log1"
mv "$d/UsrClass.dat.LOG2" "$d/USRCLASS.dat.Log2"
expect_exit 0 "$REGTOOL" hive recover -o "$TMPDIR/usrclass" "$d/UsrClass.dat"
[ "$(sha "$TMPDIR/usrclass")" = 0c52ea278e8c524fd13c146b060f7801af7791a1cad5b04ae9e6e06617de0e3e ] ||
    fail "recovered UsrClass differs"
expect_grep "14 log entries applied (sequence 287 to 300)" "$OUT"

# A recovered hive is clean: exit 1, OUT an identical copy.
expect_exit 1 "$REGTOOL" hive recover "$TMPDIR/ntuser" -o "$TMPDIR/again"
cmp -s "$TMPDIR/ntuser" "$TMPDIR/again" || fail "copy of a clean hive differs"
expect_grep "not dirty" "$OUT"
# With its logs beside it: each is listed, read and not used, for the
# reason said (Windows ignores the logs of a clean hive).
mkdir "$TMPDIR/clean"; cp "$TMPDIR/ntuser" "$TMPDIR/clean/NTUSER.DAT"
cp "$d/transactions_ntuser.dat.log1" "$TMPDIR/clean/NTUSER.DAT.LOG1"
cp "$d/transactions_ntuser.dat.log2" "$TMPDIR/clean/NTUSER.DAT.LOG2"
expect_exit 1 "$REGTOOL" hive recover "$TMPDIR/clean/NTUSER.DAT" -o "$TMPDIR/again2"
cmp -s "$TMPDIR/ntuser" "$TMPDIR/again2" || fail "copy of a clean hive with logs differs"
expect_grep "not dirty (sequence numbers 588/588): its logs are ignored" "$OUT"
expect_grep "^  LOG1 .*/clean/NTUSER.DAT.LOG1: new format, sequence 566, 23 valid entries; not used: the primary is not dirty" "$OUT"
expect_grep "^  LOG2 .*/clean/NTUSER.DAT.LOG2: new format, sequence 562, 1 valid entry; not used: the primary is not dirty" "$OUT"

# Overwriting the hive itself or one of its logs is refused.
expect_exit 64 "$REGTOOL" hive recover "$d/transactions_NTUSER.DAT" -o "$d/transactions_NTUSER.DAT"
expect_grep "transactions_NTUSER.DAT' itself" "$ERR"
[ "$(sha "$d/transactions_NTUSER.DAT")" = "$before" ] || fail "primary overwritten"
expect_exit 64 "$REGTOOL" hive recover "$d/transactions_NTUSER.DAT" -o "$d/transactions_ntuser.dat.log1"
expect_grep "transaction log" "$ERR"
# Nor into its folder under another letter case: Windows sees one name
# where Linux sees two, and the tree would hold a twin of the hive or of
# a log (every verb then refuses it as ambiguous). A log's name is
# refused whether that log is there or not.
for twin in transactions_ntuser.dat transactions_NTUSER.DAT.log transactions_ntuser.DAT.LOG2; do
    expect_exit 64 "$REGTOOL" hive recover "$d/transactions_NTUSER.DAT" -o "$d/$twin"
    [ ! -e "$d/$twin" ] || fail "hive recover wrote $twin beside the hive"
done

# Nor as regtool's journal or lock beside it (review 42 R42-7: a hive
# written as the journal left every writer of its tree refused), with
# --force too.
for f in regtool.journal REGTOOL.LOCK ./regtool.journal; do
    expect_exit 64 "$REGTOOL" hive recover --force "$d/transactions_NTUSER.DAT" -o "$d/$f"
    expect_grep "it is a file of the tree the hive .* lies in" "$ERR"
    [ ! -e "$d/$f" ] || fail "hive recover wrote $f beside the hive"
done
# Nor, the hive in a tree's System32/config, over the tree's other files,
# --force or not: the other hive and its logs, a .dat table of System32
# or SysWOW64 (current or as installed), PerfStringBackup.INI, an INF
# copy's file (review 42 R42-7: a table was replaced by a hive). A name
# of its own there is written.
T=$TMPDIR/tree
expect_exit 0 "$REGTOOL" --store "hive:$T" init --layout files
W=$T/Windows
tree_state "$T" >"$TMPDIR/tree-before"
for f in "$W/System32/config/SOFTWARE" "$W/System32/config/software.LOG1" \
    "$W/System32/perfc009.dat" "$W/System32/PERFH009.DAT" \
    "$W/System32/perfd009.dat" "$W/SysWOW64/perfc009.dat" \
    "$W/System32/PerfStringBackup.ini" "$W/INF/TransferPerf/0009/t.ini" \
    "$W/System32/config/./regtool.journal" "$W/./System32/perfc009.dat"; do
    expect_exit 64 "$REGTOOL" hive recover --force "$W/System32/config/SYSTEM" -o "$f"
    expect_grep "it is a file of the tree the hive .* lies in" "$ERR"
    expect_same_tree "$T" "$TMPDIR/tree-before" "hive recover -o $f changed the tree"
done
expect_exit 1 "$REGTOOL" hive recover "$W/System32/config/SYSTEM" -o "$W/System32/config/SYSTEM.copy"
cmp -s "$W/System32/config/SYSTEM" "$W/System32/config/SYSTEM.copy" ||
    fail "hive recover's copy of a clean SYSTEM differs"

# Dirty without logs: nothing written.
mkdir "$d/alone"; cp "$d/transactions_NTUSER.DAT" "$d/alone/"
expect_exit 2 "$REGTOOL" hive recover "$d/alone/transactions_NTUSER.DAT" -o "$TMPDIR/none"
expect_grep "no transaction log" "$ERR"
[ ! -e "$TMPDIR/none" ] || fail "output written for an unrecoverable hive"

# A log given as the hive; a damaged only log.
expect_exit 2 "$REGTOOL" hive recover "$d/usrclass.DAT.log1" -o "$TMPDIR/x"
expect_grep "usrclass.DAT.log1: file type 6" "$ERR"
head -c 300 "$d/transactions_ntuser.dat.log1" >"$d/alone/transactions_NTUSER.DAT.LOG1"
expect_exit 2 "$REGTOOL" hive recover "$d/alone/transactions_NTUSER.DAT" -o "$TMPDIR/x"
expect_grep "LOG1 .*shorter than a log base block" "$ERR"

# I/O errors and usage.
expect_exit 3 "$REGTOOL" hive recover "$d/missing" -o "$TMPDIR/x"
expect_grep "cannot read '$d/missing'" "$ERR"
expect_exit 3 "$REGTOOL" hive recover "$d/UsrClass.dat" -o "$TMPDIR/no/such/dir/x"
expect_grep "cannot write" "$ERR"
ls "$TMPDIR" | grep -q '\.tmp\.' && fail "temporary file left behind"
expect_exit 64 "$REGTOOL" hive recover "$d/UsrClass.dat"
expect_exit 64 "$REGTOOL" hive frobnicate

# An existing OUT is replaced only with --force.
echo keep >"$TMPDIR/taken"
expect_exit 64 "$REGTOOL" hive recover "$d/transactions_NTUSER.DAT" -o "$TMPDIR/taken"
expect_grep "refusing to overwrite '$TMPDIR/taken': it exists (--force replaces it)" "$ERR"
[ "$(cat "$TMPDIR/taken")" = keep ] || fail "OUT overwritten without --force"
expect_exit 0 "$REGTOOL" hive recover --force "$d/transactions_NTUSER.DAT" -o "$TMPDIR/taken"
cmp -s "$TMPDIR/taken" "$TMPDIR/ntuser" || fail "--force did not write the recovered hive"
expect_exit 0 "$REGTOOL" hive recover --help
expect_grep "--force" "$OUT"

# A log over 4 GiB, which Windows never writes, is refused (a sparse file
# here): hive check says so, hive recover exits 3 and writes no OUT; the
# hive and its logs are not touched.
big=$TMPDIR/big; mkdir "$big"
for f in transactions_NTUSER.DAT transactions_ntuser.dat.log1 transactions_ntuser.dat.log2; do
    xz -dc "$S/$f.xz" >"$big/$f" || fail "cannot decompress $f"
done
truncate -s $((4 * 1024 * 1024 * 1024 + 1)) "$big/transactions_ntuser.dat.log1"
# (sha256 of all but the sparse log, whose 4 GiB would take minutes: its
# size, time and blocks)
big_state() {
    sha256sum "$big/transactions_NTUSER.DAT" "$big/transactions_ntuser.dat.log2"
    stat -c '%n %s %b %Y' "$big/transactions_ntuser.dat.log1"
    ls -A "$big"
}
big_state >"$TMPDIR/big.state"
# The log named by its last components: Windows shows the folder as Z:/tmp/...
expect_exit 1 "$REGTOOL" hive check "$big/transactions_NTUSER.DAT"
expect_grep "/transactions_ntuser.dat.log1': File too large" "$OUT"
expect_exit 3 "$REGTOOL" hive recover "$big/transactions_NTUSER.DAT" -o "$TMPDIR/big.out"
expect_grep "/transactions_ntuser.dat.log1': File too large" "$ERR"
[ ! -e "$TMPDIR/big.out" ] || fail "hive recover wrote OUT from a hive whose log is over 4 GiB"
ls "$TMPDIR" | grep -q '^big\.out' && fail "hive recover left $(ls "$TMPDIR" | grep '^big\.out')"
big_state | diff "$TMPDIR/big.state" - >&2 || fail "the hive or its logs changed (diff above)"
