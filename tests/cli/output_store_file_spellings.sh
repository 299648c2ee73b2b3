# An output that is one of the store's own files is refused however the
# tree spells them and however the user reaches them (review 45), exit
# 64, every file as it was:
# - a store that cannot be opened (the disk's author can make any store
#   so: a table in two letter cases here) named by its System32 folder,
#   spelled as a disk upgraded from XP (WINDOWS/system32/CONFIG), a hive
#   pair with --tables, and a pair named from inside its config folder
#   (R45-1: the audit's text replaced the hive, a table or
#   PerfStringBackup.INI, "Nothing was written" said), and one whose
#   folders are in two letter cases (R46-1);
# - a link of the user's of any name to a .dat table (R45-2), to a log
#   the tree names in lower case (R45-3), to PerfStringBackup.INI in
#   another case, and that file named directly on an XP tree (R45-5);
# - a path made longer than can be looked at by repeated slashes or
#   "u/.." steps before the link's name (R45-6: taken for another file,
#   the hive replaced by a writer's patch after its commit), or going up
#   from a file ("afile/../link": R46-5);
# - folders in two letter cases and a pair named through the user's
#   links to a tree's hives (R46-1, R46-3), and a System32 folder beside
#   an empty twin, for a store that opens (R47-4), its --tables too
#   (R48-1); an output named as a folder of the tree in another letter
#   case (R49-6: refused, exit 3), an INF copy's folder (R49-1).
. tests/cli/lib.sh

O=$TMPDIR/orig
expect_exit 0 "$REGTOOL" --store "hive:$O" init --languages 009
U=$TMPDIR/u
mkdir "$U"
fresh() {   # fresh NAME: a copy of the tree as $TMPDIR/NAME, its state kept
    rm -rf "${TMPDIR:?}/$1"
    cp -a "$O" "$TMPDIR/$1"
    tree_state "$TMPDIR/$1" >"$TMPDIR/$1.state"
}
kept() {    # kept NAME WHAT: exit 64, said, NAME's tree as it was
    expect_grep "names one of the store's own files\|it is a file of the tree" "$ERR"
    expect_same_tree "$TMPDIR/$1" "$TMPDIR/$1.state" "$2 changed the tree"
}
in_dir() {  # in_dir "WANT..." DIR CMD...: CMD run in DIR, exit one of WANT
    want=$1; shift
    (cd "$1" && shift && "$@" >"$OUT" 2>"$ERR"; echo $? >"$TMPDIR/rc")
    case " $want " in
    *" $(cat "$TMPDIR/rc") "*) ;;
    *) cat "$ERR" >&2; fail "in $1: $*: exit $(cat "$TMPDIR/rc"), want $want" ;;
    esac
}

# R45-1: stores that cannot be opened.
fresh a
: >"$TMPDIR/a/Windows/System32/PERFC009.DAT"
tree_state "$TMPDIR/a" >"$TMPDIR/a.state"
expect_exit 64 "$REGTOOL" --store "hive:$TMPDIR/a/Windows/System32" audit \
    --textfile "$TMPDIR/a/Windows/System32/config/SOFTWARE"
kept a "an unreadable store named by its System32 folder"
fresh xp
mv "$TMPDIR/xp/Windows" "$TMPDIR/xp/WINDOWS"
mv "$TMPDIR/xp/WINDOWS/System32" "$TMPDIR/xp/WINDOWS/system32"
mv "$TMPDIR/xp/WINDOWS/system32/config" "$TMPDIR/xp/WINDOWS/system32/CONFIG"
: >"$TMPDIR/xp/WINDOWS/system32/PERFC009.DAT"
tree_state "$TMPDIR/xp" >"$TMPDIR/xp.state"
for f in CONFIG/SOFTWARE perfh009.dat PerfStringBackup.INI; do
    expect_exit 64 "$REGTOOL" --store "hive:$TMPDIR/xp" audit \
        --textfile "$TMPDIR/xp/WINDOWS/system32/$f"
    kept xp "an unreadable XP tree's $f"
done
mkdir "$TMPDIR/pair" "$TMPDIR/tables"
cp "$O/Windows/System32/config/SOFTWARE" "$O/Windows/System32/config/SYSTEM" "$TMPDIR/pair/"
cp "$O/Windows/System32/perfc009.dat" "$O/Windows/System32/perfh009.dat" "$TMPDIR/tables/"
: >"$TMPDIR/tables/PERFC009.DAT"
tree_state "$TMPDIR/tables" >"$TMPDIR/tables.state"
expect_exit 64 "$REGTOOL" --store "hive:$TMPDIR/pair/SOFTWARE,$TMPDIR/pair/SYSTEM" \
    --tables "$TMPDIR/tables" audit --textfile "$TMPDIR/tables/perfh009.dat"
kept tables "an unreadable pair's --tables table"
fresh in
: >"$TMPDIR/in/Windows/System32/PERFC009.DAT"
tree_state "$TMPDIR/in" >"$TMPDIR/in.state"
for f in perfh009.dat PerfStringBackup.INI; do
    in_dir 64 "$TMPDIR/in/Windows/System32/config" "$REGTOOL" --store hive:SOFTWARE,SYSTEM \
        audit --textfile "$TMPDIR/in/Windows/System32/$f"
    kept in "a pair named from its config folder, $f"
done

# A folder on the way in two letter cases (which is what makes the store
# unreadable: no spelling of the layout is found): any file below the
# tree bearing a store file's name, or an INF copy's (review 46 R46-1:
# the hive, a table, the journal replaced).
for twin in windows Windows/system32 Windows/System32/CONFIG; do
    fresh tw
    mkdir "$TMPDIR/tw/$twin"
    tree_state "$TMPDIR/tw" >"$TMPDIR/tw.state"
    for f in config/SOFTWARE config/SYSTEM.LOG1 config/regtool.journal perfh009.dat \
        PerfStringBackup.INI; do
        expect_exit 64 "$REGTOOL" --store "hive:$TMPDIR/tw" audit \
            --textfile "$TMPDIR/tw/Windows/System32/$f"
        kept tw "an unreadable tree with $twin's twin, $f"
    done
done
# SysWOW64 in two letter cases, neither the one the store spells: its
# tables are the store's for an audit and for hive recover -o (R46-1).
fresh wow
mv "$TMPDIR/wow/Windows/SysWOW64" "$TMPDIR/wow/Windows/SYSWOW64"
mkdir "$TMPDIR/wow/Windows/syswow64"
tree_state "$TMPDIR/wow" >"$TMPDIR/wow.state"
expect_exit 64 "$REGTOOL" --store "hive:$TMPDIR/wow" audit \
    --textfile "$TMPDIR/wow/Windows/SYSWOW64/perfh009.dat"
kept wow "an audit --textfile over SYSWOW64's table"
expect_exit 64 "$REGTOOL" hive recover "$TMPDIR/wow/Windows/System32/config/SOFTWARE" \
    -o "$TMPDIR/wow/Windows/SYSWOW64/perfh009.dat" --force
kept wow "hive recover -o over SYSWOW64's table"
# A hive pair named through the user's links to a tree's hives (refused
# as links, so unreadable): the tree of the hives they lead to (R46-3).
fresh pl
ln -s "$TMPDIR/pl/Windows/System32/config/SOFTWARE" "$U/pl-sw"
ln -s "$TMPDIR/pl/Windows/System32/config/SYSTEM" "$U/pl-sy"
for f in perfh009.dat PerfStringBackup.INI config/regtool.journal; do
    expect_exit 64 "$REGTOOL" --store "hive:$U/pl-sw,$U/pl-sy" audit \
        --textfile "$TMPDIR/pl/Windows/System32/$f"
    kept pl "a pair through the user's links, $f"
done
# System32 beside an empty twin: a reader's store opens when named by
# its config or System32 folder or as a hive pair, and its
# PerfStringBackup.INI, which no one spelling finds, is still its own
# (review 47 R47-4: the audit's text, a backup or a patch replaced it).
mkdir -p "$U/tb"
cp "$O/Windows/System32/perfc009.dat" "$O/Windows/System32/perfh009.dat" "$U/tb/"
fresh s32
mv "$TMPDIR/s32/Windows/System32" "$TMPDIR/s32/Windows/SYSTEM32"
mkdir "$TMPDIR/s32/Windows/System32"
tree_state "$TMPDIR/s32" >"$TMPDIR/s32.state"
C=$TMPDIR/s32/Windows/SYSTEM32/config
PSB=$TMPDIR/s32/Windows/SYSTEM32/PerfStringBackup.INI
for store in "$C/SOFTWARE,$C/SYSTEM" "$TMPDIR/s32/Windows/SYSTEM32" "$C"; do
    expect_exit 64 "$REGTOOL" --store "hive:$store" audit --textfile "$PSB"
    kept s32 "an audit --textfile of hive:$store"
    expect_exit 64 "$REGTOOL" --store "hive:$store" backup --force "$PSB"
    kept s32 "a backup --force of hive:$store"
    expect_exit 64 "$REGTOOL" --store "hive:$store" repair --dry-run --emit-reg "$PSB"
    kept s32 "a repair --emit-reg of hive:$store"
    # Its --tables too (review 48 R48-1: the twin's rule returned before
    # the tables were compared, and one was replaced).
    expect_exit 64 "$REGTOOL" --store "hive:$store" --tables "$U/tb" audit \
        --textfile "$U/tb/perfc009.dat"
    expect_exit 64 "$REGTOOL" --store "hive:$store" --tables "$U/tb" backup \
        --force "$U/tb/perfh009.dat"
    cmp -s "$U/tb/perfc009.dat" "$O/Windows/System32/perfc009.dat" &&
        cmp -s "$U/tb/perfh009.dat" "$O/Windows/System32/perfh009.dat" ||
        fail "a table of --tables replaced through hive:$store"
done
# Only PerfStringBackup.INI in two letter cases, a store that opens: its
# --tables are still its own (R48-1).
fresh p2
cp "$TMPDIR/p2/Windows/System32/PerfStringBackup.INI" \
    "$TMPDIR/p2/Windows/System32/PERFSTRINGBACKUP.INI"
expect_exit 64 "$REGTOOL" --store "hive:$TMPDIR/p2" --tables "$U/tb" audit \
    --textfile "$U/tb/perfc009.dat"
expect_exit 64 "$REGTOOL" --store "hive:$TMPDIR/p2" --tables "$U/tb" repair \
    --dry-run --emit-reg "$U/tb/perfc009.dat"
cmp -s "$U/tb/perfc009.dat" "$O/Windows/System32/perfc009.dat" ||
    fail "a table of --tables replaced beside a PerfStringBackup.INI twin"
# An output beneath the tree named as one of its folders in another
# letter case (review 49 R49-6: written beside System32, the tree then
# refused as holding both): refused, exit 3, the tree as it was.
fresh cs
for f in Windows/system32 Windows/SYSWOW64 Windows/System32/CONFIG WINDOWS; do
    expect_exit 3 "$REGTOOL" --store "hive:$TMPDIR/cs" audit --textfile "$TMPDIR/cs/$f"
    expect_grep "another letter case, which Windows sees as the same name" "$ERR"
    expect_same_tree "$TMPDIR/cs" "$TMPDIR/cs.state" "an audit --textfile as $f"
done
expect_exit 3 "$REGTOOL" --store "hive:$TMPDIR/cs" backup --force "$TMPDIR/cs/Windows/system32"
expect_same_tree "$TMPDIR/cs" "$TMPDIR/cs.state" "a backup --force as Windows/system32"
# A name ending in a dot or a blank, which Windows' file layer drops
# (review 50 R50-3: written beside the store's file): refused, exit 3.
for f in "Windows/System32/PerfStringBackup.INI." "Windows/System32/config/SOFTWARE "; do
    expect_exit 3 "$REGTOOL" --store "hive:$TMPDIR/cs" audit --textfile "$TMPDIR/cs/$f"
    expect_grep "its name ends in a dot or a blank, which Windows drops" "$ERR"
    expect_same_tree "$TMPDIR/cs" "$TMPDIR/cs.state" "an audit --textfile as '$f'"
done
# Letter case as Windows folds it, beyond ASCII (R50-8: É.ini was
# written beside é.ini).
mkdir "$TMPDIR/cs/Windows/Temp"
echo x >"$TMPDIR/cs/Windows/Temp/é.ini"
expect_exit 3 "$REGTOOL" --store "hive:$TMPDIR/cs" audit --textfile "$TMPDIR/cs/Windows/Temp/É.ini"
expect_grep "another letter case, which Windows sees as the same name" "$ERR"
rm -r "$TMPDIR/cs/Windows/Temp"
# A numbered save passes over a name the folder holds in another letter
# case (R50-2: b.ini_001 was written beside B.INI_001).
mkdir "$TMPDIR/cs/Windows/Temp"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/cs" backup "$TMPDIR/cs/Windows/Temp/b.ini"
echo theirs >"$TMPDIR/cs/Windows/Temp/B.INI_001"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/cs" backup "$TMPDIR/cs/Windows/Temp/b.ini"
[ "$(LC_ALL=C ls "$TMPDIR/cs/Windows/Temp" | tr '\n' ' ')" = "B.INI_001 b.ini b.ini_002 " ] ||
    fail "a numbered backup beside B.INI_001: $(ls "$TMPDIR/cs/Windows/Temp")"
rm -r "$TMPDIR/cs/Windows/Temp"
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/cs" query
# An INF copy's folders, which an install makes (R49-1: --emit-reg named
# Windows/INF, the install committed, the patch then lost): the
# store's, spelled as Windows' file layer reads them too (INF. and
# 0009. without their trailing dots and blanks: review 50 R50-3).
CS="--create-service --library x.dll --open O --collect C --close X"
for f in Windows/INF Windows/inf/TransferPerf Windows/INF/TransferPerf/0009 \
    "Windows/INF. ./TransferPerf" "Windows/INF/TransferPerf/0009./x.ini"; do
    # shellcheck disable=SC2086
    expect_exit 64 "$REGTOOL" --store "hive:$TMPDIR/cs" install $CS \
        --emit-reg "$TMPDIR/cs/$f" ini-samples/transfer.ini
    expect_same_tree "$TMPDIR/cs" "$TMPDIR/cs.state" "install --emit-reg $f"
done
# A file of the user's in such a folder is no folder of the install's.
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/cs" install $CS ini-samples/transfer.ini
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/cs" uninstall \
    --emit-reg "$TMPDIR/cs/Windows/INF/TransferPerf/u.reg" TransferPerf
mkdir -p "$TMPDIR/tw/Windows/Temp"
expect_exit 2 "$REGTOOL" --store "hive:$TMPDIR/tw" audit --textfile "$TMPDIR/tw/Windows/Temp/a.prom"
expect_grep "^regtool_audit_success 0" "$TMPDIR/tw/Windows/Temp/a.prom"

# R45-2, R45-3, R45-5: the user's links of any name, the tree's own
# letter cases.
fresh l
L=$TMPDIR/l/Windows/System32
printf 'log\n' >"$L/config/SOFTWARE.log1"
mv "$L/PerfStringBackup.INI" "$L/perfstringbackup.ini"
tree_state "$TMPDIR/l" >"$TMPDIR/l.state"
ln -s "$L/perfh009.dat" "$U/x"
ln -s "$TMPDIR/l/Windows/SysWOW64/perfc009.dat" "$U/perfc009.dat.prom"
ln -s "$L/config/SOFTWARE.log1" "$U/z"
ln -s "$L/perfstringbackup.ini" "$U/p"
S="--store hive:$TMPDIR/l"
for f in x perfc009.dat.prom z p; do
    expect_exit 64 "$REGTOOL" $S audit --textfile "$U/$f"
    kept l "audit --textfile to u/$f"
    expect_exit 64 "$REGTOOL" $S backup --force "$U/$f"
    kept l "backup --force to u/$f"
done
# shellcheck disable=SC2086
expect_exit 64 "$REGTOOL" $S install --create-service --library x.dll --open O \
    --collect C --close X --emit-reg "$U/x" ini-samples/transfer.ini
kept l "install --emit-reg to u/x"
expect_exit 64 "$REGTOOL" hive recover "$L/config/SYSTEM" -o "$U/x" --force
kept l "hive recover -o u/x --force"
expect_exit 64 "$REGTOOL" --store "hive:$TMPDIR/xp" audit \
    --textfile "$TMPDIR/xp/WINDOWS/system32/PerfStringBackup.INI"
kept xp "an XP tree's PerfStringBackup.INI"

# A file of the user's, then ".." (R46-5: the kernel goes nowhere from a
# file, so every check's stat said "another file", where the writer's
# walk went up from it and followed the link into the store): refused
# by the writer as by the kernel, exit 3, nothing written, for an
# unreadable tree, a reg: store and perfstats remove's patch.
fresh nf
: >"$TMPDIR/nf/Windows/System32/PERFC009.DAT"
tree_state "$TMPDIR/nf" >"$TMPDIR/nf.state"
: >"$U/afile"
ln -s "$TMPDIR/nf/Windows/System32/config/SOFTWARE" "$U/nf-sw"
expect_exit 3 "$REGTOOL" --store "hive:$TMPDIR/nf" audit --textfile "$U/afile/../nf-sw"
expect_grep "afile is not a folder, and the path goes on beneath it" "$ERR"
expect_same_tree "$TMPDIR/nf" "$TMPDIR/nf.state" "an audit's text through afile/.."
mkdir "$TMPDIR/rs"
cp ini-samples/win95/perfstats.reg "$TMPDIR/rs/w.reg"
printf 'Windows Registry Editor Version 5.00\r\n\r\n[HKEY_LOCAL_MACHINE\\x\r\n' >"$TMPDIR/rs/bad.reg"
ln -s "$TMPDIR/rs/w.reg" "$U/rs-w"
ln -s "$TMPDIR/rs/bad.reg" "$U/rs-bad"
: >"$TMPDIR/rs/w.reg.lock"   # the lock perfstats remove takes, left as it was
tree_state "$TMPDIR/rs" >"$TMPDIR/rs.state"
expect_exit 3 "$REGTOOL" --store "reg:$TMPDIR/rs/bad.reg" audit --textfile "$U/afile/../rs-bad"
expect_exit 3 "$REGTOOL" perfstats remove --emit-reg "$U/afile/../rs-w" VFAT "$TMPDIR/rs/w.reg"
expect_same_tree "$TMPDIR/rs" "$TMPDIR/rs.state" "an output through afile/.. changed a reg: file"

# R45-6: a path too long to look at before the link's name: the store's
# file (64), or too long for the writer too (3), never written.
fresh long
ln -s "$TMPDIR/long/Windows/System32/config/SOFTWARE" "$U/sw"
slashes=$(printf '%4100s' '' | tr ' ' /)
ups=$(printf '%900s' '' | sed 's# #../u/#g')
cp ini-samples/transfer.ini ini-samples/CounterOffsets.h "$TMPDIR/"
for f in "../u${slashes}sw" "${ups}sw"; do
    for store in . "$TMPDIR/long"; do
        in_dir "3 64" "$TMPDIR/long" "$REGTOOL" --store "hive:$store" audit --textfile "$f"
        in_dir "3 64" "$TMPDIR/long" "$REGTOOL" --store "hive:$store" backup --force "$f"
        in_dir "3 64" "$TMPDIR/long" "$REGTOOL" --store "hive:$store" install \
            --create-service --library x.dll --open O --collect C --close X \
            --emit-reg "$f" "$TMPDIR/transfer.ini"
        expect_grep "nothing was written\|names one of the store's own files" "$ERR"
        expect_same_tree "$TMPDIR/long" "$TMPDIR/long.state" "an output through a long path"
    done
done
echo "outputs over the store's files, however spelled: refused"
