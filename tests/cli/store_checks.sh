# A store is what it claims before anything is written: SOFTWARE holds
# Perflib, SYSTEM the control set Select names, and in the .dat layout
# every language has both its tables where they are looked for. Otherwise
# exit 2, a message naming the file and what is missing, and every file of
# the tree byte-identical (nothing created either). Damaged tables open
# for reading, with a warning; install refuses them, naming audit/repair.
. tests/cli/lib.sh

S=$SHARED/samples
P=$TMPDIR/prov
mkdir -p "$P"
printf '#define OBJ 0\n#define CNT 2\n' >"$P/o.h"
printf '[info]\ndrivername=Xfer\nsymbolfile=o.h\n[languages]\n009=English\n[text]\nOBJ_009_NAME=Xfer\nOBJ_009_HELP=X.\nCNT_009_NAME=Count\nCNT_009_HELP=C.\n' >"$P/x.ini"
CS="--create-service --library x.dll --open O --collect C --close X"

PRISTINE=$TMPDIR/pristine
expect_exit 0 $REGTOOL --store "hive:$PRISTINE/w" init --languages 009,019
W=$TMPDIR/t/w
C=$W/Windows/System32/config
fresh() { rm -rf "$TMPDIR/t"; cp -a "$PRISTINE" "$TMPDIR/t"; }
snap() { tree_state "$TMPDIR/t" >"$TMPDIR/before"; }
same() { expect_same_tree "$TMPDIR/t" "$TMPDIR/before"; }
# refused MESSAGE ARGS...: exit 2, the message, nothing changed.
refused() {
    msg=$1; shift
    # shellcheck disable=SC2086
    expect_exit 2 $REGTOOL "$@"
    expect_grep "$msg" "$ERR"
    same
}

# A user's NTUSER.DAT (the real sample) given as SOFTWARE, the tables
# named with --tables: refused for every verb, the .dat files untouched.
fresh
xz -dc "$S/transactions_NTUSER.DAT.xz" >"$TMPDIR/t/NTUSER.DAT"
snap
for verb in "install $CS $P/x.ini" "install --dry-run $CS $P/x.ini" \
            "uninstall Xfer" "names" "query"; do
    # shellcheck disable=SC2086
    refused "NTUSER.DAT has no key Microsoft.Windows NT.CurrentVersion.Perflib" \
        --store "hive:$TMPDIR/t/NTUSER.DAT,$C/SYSTEM" \
        --tables "$W/Windows/System32" $verb
done
expect_grep "not a SOFTWARE hive" "$ERR"
# The same file copied over the tree's SOFTWARE.
cp "$TMPDIR/t/NTUSER.DAT" "$C/SOFTWARE"
snap
# shellcheck disable=SC2086
refused "SOFTWARE has no key Microsoft.Windows NT.CurrentVersion.Perflib" \
    --store "hive:$W" install $CS "$P/x.ini"
# SOFTWARE and SYSTEM swapped.
fresh; snap
refused "has no key Microsoft.Windows NT.CurrentVersion.Perflib" \
    --store "hive:$C/SYSTEM,$C/SOFTWARE" names
# A SYSTEM hive (the real Windows 7 one) whose Select names a control set
# it lacks: Select\Current = 1, and ControlSet001 is renamed away.
fresh
xz -dc "$S/SYSTEM.xz" >"$C/SYSTEM"
expect_exit 0 $REGTOOL --store "hive:$W" query
printf 'ControlSet00X' | dd of="$C/SYSTEM" bs=1 conv=notrunc \
    seek=$(grep -boa ControlSet001 "$C/SYSTEM" | head -1 | cut -d: -f1) 2>/dev/null
snap
# shellcheck disable=SC2086
refused "SYSTEM has no ControlSet001, the control set its Select.Current names" \
    --store "hive:$W" install $CS "$P/x.ini"

# --tables naming a directory without the tables, or none at all.
fresh; mkdir "$TMPDIR/t/empty"; snap
# shellcheck disable=SC2086
refused "empty/perfc009.dat is missing" \
    --store "hive:$W" --tables "$TMPDIR/t/empty" install $CS "$P/x.ini"
refused "empty/perfc009.dat is missing" --store "hive:$W" --tables "$TMPDIR/t/empty" names
refused "tables $TMPDIR/nonexistent: No such file or directory" \
    --store "hive:$W" --tables "$TMPDIR/nonexistent" names

# Perflib\009 is a predefined-handle key and no .dat file is found: names
# does not print an empty list, a dry run does not promise an install.
fresh; rm "$W"/Windows/System32/*.dat "$W"/Windows/SysWOW64/*.dat; snap
for verb in names "install --dry-run $CS $P/x.ini" "install $CS $P/x.ini"; do
    # shellcheck disable=SC2086
    refused "Perflib.009 is a predefined-handle key, so its tables are in perfc009.dat and perfh009.dat" \
        --store "hive:$W" $verb
done
expect_grep "with --tables DIR" "$ERR"
expect_grep "System32 holds no perfc009.dat; name the directory" "$ERR"
# The hives at the tree's root with no System32 where that layout keeps
# it: said as a sentence.
rm -rf "$TMPDIR/flat"
mkdir -p "$TMPDIR/flat"
cp "$W/Windows/System32/config/SOFTWARE" "$W/Windows/System32/config/SYSTEM" "$TMPDIR/flat/"
expect_exit 2 "$REGTOOL" --store "hive:$TMPDIR/flat" query
expect_grep "is a predefined-handle key, so its tables are in perfc009.dat and perfh009.dat, but no System32 directory where this layout keeps it holds them; name the directory that holds them with --tables DIR" "$ERR"

# A language without one of its files, in System32 or in SysWOW64.
fresh; rm "$W/Windows/System32/perfh019.dat"; snap
# shellcheck disable=SC2086
refused "System32/perfh019.dat is missing: Perflib.019 in .* is a language whose Help table" \
    --store "hive:$W" install $CS "$P/x.ini"
fresh; rm "$W/Windows/SysWOW64/perfc019.dat"; snap
refused "SysWOW64/perfc019.dat is missing" --store "hive:$W" query

# Damaged tables (empty, truncated): read with a warning that says where;
# install and uninstall refuse and name the verbs that help.
for damage in empty truncated; do
    fresh
    if [ $damage = empty ]; then lang=009 table=; : >"$W/Windows/System32/perfc009.dat"
    else lang=019 table=--help-text; head -c 3001 "$PRISTINE/w/Windows/System32/perfh019.dat" >"$W/Windows/System32/perfh019.dat"; fi
    snap
    # names reads only the table it shows, and warns about its damage.
    # shellcheck disable=SC2086
    expect_exit 0 $REGTOOL --store "hive:$W" names --lang $lang $table
    expect_grep "warning: Perflib.$lang.* is damaged at byte" "$ERR"
    # shellcheck disable=SC2086
    expect_exit 2 $REGTOOL --store "hive:$W" install $CS "$P/x.ini"
    expect_grep "is damaged at byte .*nothing was written: run 'regtool audit' and 'regtool repair' first" "$ERR"
    # The writer took its lock (config/regtool.lock) and wrote nothing else.
    rm "$C/regtool.lock"
    same
done
expect_exit 0 $REGTOOL --store "hive:$W" names --lang 019 --help-text
expect_grep "Perflib.019.Help is damaged at byte [0-9]* (missing final NUL terminator)" "$ERR"

# --tables named relative to the working directory, as a user types it
# for a tree beside them: install and uninstall write the tables (the
# commit's file names were taken relative to "/" and refused as an
# internal error), and so with the hives at a folder's root beside them.
fresh
# shellcheck disable=SC2086
(cd "$TMPDIR/t" && exec $REGTOOL --store hive:w --tables w/Windows/System32 install $CS "$P/x.ini") >"$OUT" 2>"$ERR" ||
    fail "install with a relative --tables: $(cat "$ERR")"
expect_exit 0 $REGTOOL --store "hive:$W" names --provider Xfer
expect_grep "Count" "$OUT"
mkdir "$TMPDIR/t/h"
cp "$C/SOFTWARE" "$C/SYSTEM" "$W/Windows/System32/"*.dat "$TMPDIR/t/h/"
(cd "$TMPDIR/t" && exec $REGTOOL --store hive:h --tables h uninstall Xfer) >"$OUT" 2>"$ERR" ||
    fail "uninstall with the hives and tables at a relative folder's root: $(cat "$ERR")"
expect_exit 1 $REGTOOL --store "hive:$TMPDIR/t/h" --tables "$TMPDIR/t/h" names --provider Xfer
expect_grep "Xfer" "$ERR"

# The layout as found: a Perflib\009 that holds a Counter value and no
# Help beside System32's .dat files keeps its tables as values (either
# value says so); only a language key without either, or a predefined-
# handle one, sends the store to the .dat files. Counter and nothing
# else set by hivexsh, the independent writer.
rm -rf "$TMPDIR/t"
expect_exit 0 $REGTOOL --store "hive:$W" init --layout registry
expect_exit 0 $REGTOOL --store "hive:$TMPDIR/t/f" init --layout files
cp "$TMPDIR/t/f/Windows/System32/"perf*.dat "$W/Windows/System32/"
hivexsh -w "$C/SOFTWARE" <<'HIVEX' || fail "hivexsh could not set Perflib\\009\\Counter"
cd \Microsoft\Windows NT\CurrentVersion\Perflib\009
setval 1
Counter
hex:7:31,00,00,00,31,00,38,00,34,00,37,00,00,00,32,00,00,00,53,00,79,00,73,00,00,00,00,00
commit
HIVEX
expect_exit 0 $REGTOOL --store "hive:$W" query
expect_grep "^Layout        tables as values of Perflib.LLL in " "$OUT"
expect_exit 0 $REGTOOL --store "hive:$W" names
expect_grep "^2	Sys$" "$OUT"

# Hives named one by one in sibling folders whose names share a prefix
# (cfg and cfg2): the commit's base is the folder both lie under, so
# each hive is journalled as itself (planted set 34: a folder boundary
# checked on one side made SYSTEM "2/SYSTEM", not a file of the store,
# and the install refused, exit 3).
R=$TMPDIR/sib
expect_exit 0 $REGTOOL --store "hive:$R/w" init --layout registry
mkdir -p "$R/cfg" "$R/cfg2"
mv "$R/w/Windows/System32/config/SOFTWARE" "$R/cfg/SOFTWARE"
mv "$R/w/Windows/System32/config/SYSTEM" "$R/cfg2/SYSTEM"
RS="--store hive:$R/cfg/SOFTWARE,$R/cfg2/SYSTEM"
# shellcheck disable=SC2086
expect_exit 0 $REGTOOL $RS install $CS ini-samples/transfer.ini
expect_exit 0 $REGTOOL $RS query TransferPerf
expect_grep "^    Counter       [0-9]* \.\. [0-9]*$" "$OUT"
expect_exit 0 $REGTOOL $RS uninstall TransferPerf
[ ! -e "$R/cfg/regtool.journal" ] && [ ! -e "$R/regtool.journal" ] || fail "a journal left beside the hives"
