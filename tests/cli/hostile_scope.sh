#!/bin/sh
# A hostile tree's scope (issue 37): whatever folder of a tree a store or
# a verb is given, nothing it reaches through that tree lies outside it.
# The red team's reproducers, each the same hostile tree, the same verb
# and the same victim outside the tree:
#  01 the store named as the tree's System32/config (or System32): links
#     at System32/PerfStringBackup.INI and at Windows/INF, above that
#     folder, are refused (install);
#  02 rebuild --from DIR: an INF copy or a .dat table of DIR linked to a
#     host secret is not read, and no byte of it is printed;
#  03 hive check and hive recover of a hive that is a FIFO return at once;
#  04 --tables DIR: the SysWOW64 copy beside DIR linked to a host file is
#     refused (install);
#  06 hive check and hive recover of a dirty hive whose SOFTWARE.LOG1 is
#     a link to a host file: the link is refused by name, its size is not
#     told, its entries are not applied, nothing is written;
#  07 the store named as System32/config, a planted journal (valid CRCs,
#     naming only a store file) and System32/perfc009.dat linked to a host
#     file: the next writer (disable) writes no byte through the link;
#  09 hives named directly: the .dat tables are not taken from the folder
#     above theirs, and a link among tables named with --tables is refused.
# Each: the exit status docs/reference.md gives, the message naming the link or
# the refusal, within `timeout 20`, the host folder byte-identical, and the
# tree too where regtool refuses.
. tests/cli/lib.sh

HOST=$TMPDIR/host
mkdir -p "$HOST/infdir"
printf 'host file: must never change\n' >"$HOST/victim"
printf 'root:x:0:0::/root:/bin/bash\n' >"$HOST/passwd"
# A secret shaped like an INI, whose symbol file name would be printed
# if it were read as one.
printf '[info]\ndrivername=RedTeam\nsymbolfile=root_password_hunter2\n' >"$HOST/secret.ini"
printf 'hunter2' >"$HOST/secret7"       # 7 bytes: its size is a fact too
tree_state "$HOST" >"$TMPDIR/host.state"
host_same() { expect_same_tree "$HOST" "$TMPDIR/host.state"; }
# no_secret: neither output tells anything of the host's secrets.
no_secret() {
    ! grep -q hunter2 "$OUT" "$ERR" || { cat "$OUT" "$ERR" >&2; fail "$1: a secret was printed"; }
}
# names_link WHAT: the message names WHAT as a link, or as no file.
names_link() {
    grep -Eq -- "$1 (is a symbolic link|is not a file|is a FIFO, not a regular file)" "$ERR" ||
        { cat "$ERR" >&2; fail "no word of $1 as a link in $ERR"; }
}

P=$TMPDIR/prov
mkdir -p "$P"
printf '#define OBJ 0\n' >"$P/p.h"
printf '[info]\ndrivername=RedTeam\nsymbolfile=p.h\n[languages]\n009=English\n[objects]\nOBJ_009_NAME=Obj\n[text]\nOBJ_009_NAME=Obj\nOBJ_009_HELP=Obj help\n' >"$P/p.ini"
CS="--create-service --library p.dll --open O --collect C --close X"

T=$TMPDIR/t
W=$T/Windows
C=$W/System32/config
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/pristine" init
cp -a "$TMPDIR/pristine" "$TMPDIR/installed"
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/installed" install $CS "$P/p.ini"
# A tree as a writer leaves it: with its (empty) lock file, which a
# writer creates before it reads anything else.
fresh() { rm -rf "$T"; cp -a "$TMPDIR/$1" "$T"; : >"$C/regtool.lock"; }
snap() { tree_state "$T" >"$TMPDIR/before"; }
tree_same() { expect_same_tree "$T" "$TMPDIR/before"; }

# 01: the store named as config; PerfStringBackup.INI (a file every
# change rewrites) linked to a host file, then Windows/INF linked to a
# host folder (named as config, then as System32).
fresh pristine
rm "$W/System32/PerfStringBackup.INI"
ln -s "$HOST/victim" "$W/System32/PerfStringBackup.INI"
ln -s "$HOST/infdir" "$W/INF"
snap
# shellcheck disable=SC2086
expect_exit 3 timeout 20 "$REGTOOL" --store "hive:$C" install $CS "$P/p.ini"
names_link "$W/System32/PerfStringBackup.INI"
tree_same
host_same
rm "$W/System32/PerfStringBackup.INI"
cp "$TMPDIR/pristine/Windows/System32/PerfStringBackup.INI" "$W/System32/"
snap
for spec in "$C" "$W/System32"; do
    # shellcheck disable=SC2086
    expect_exit 3 timeout 20 "$REGTOOL" --store "hive:$spec" install $CS "$P/p.ini"
    names_link "$W/INF"
    tree_same
done
host_same

# 02: rebuild --from a copy of an identical machine's Windows folder whose
# INF copy, then whose perfd009.dat, is a link to a host secret.
fresh installed
F=$TMPDIR/from
rm -rf "$F"; cp -a "$W" "$F"
rm "$F/INF/RedTeam/0009/p.ini"
ln -s "$HOST/secret.ini" "$F/INF/RedTeam/0009/p.ini"
snap
expect_exit 0 timeout 20 "$REGTOOL" --store "hive:$T" rebuild --dry-run --from "$F"
no_secret "02 INF copy"
grep -q "$F/INF/RedTeam/0009/p.ini is a symbolic link" "$OUT" ||
    { cat "$OUT" >&2; fail "02: the plan does not name the INF copy's link"; }
tree_same
rm -rf "$F"; cp -a "$W" "$F"
rm "$F/System32/perfd009.dat"
ln -s "$HOST/secret.ini" "$F/System32/perfd009.dat"
expect_exit 3 timeout 20 "$REGTOOL" --store "hive:$T" rebuild --dry-run --from "$F"
names_link "$F/System32/perfd009.dat"
no_secret "02 perfd009.dat"
tree_same
host_same

# 03: SOFTWARE a FIFO: hive check and hive recover refuse it at its open.
fresh pristine
rm "$C/SOFTWARE"
mkfifo "$C/SOFTWARE"
snap
expect_exit 3 timeout 20 "$REGTOOL" hive check "$C/SOFTWARE"
names_link "$C/SOFTWARE"
expect_exit 3 timeout 20 "$REGTOOL" hive recover "$C/SOFTWARE" -o "$TMPDIR/recovered"
names_link "$C/SOFTWARE"
[ ! -e "$TMPDIR/recovered" ] || fail "03: hive recover of a FIFO wrote its output"
tree_same
host_same

# 04: --tables names a second disk's System32, whose SysWOW64 copy of
# perfc009.dat is a link to a host file.
fresh pristine
D2=$TMPDIR/disk2
rm -rf "$D2"
mkdir -p "$D2/Windows/System32" "$D2/Windows/SysWOW64"
cp "$W"/System32/perf?009.dat "$D2/Windows/System32/"
cp "$W/SysWOW64/perfh009.dat" "$D2/Windows/SysWOW64/"
ln -s "$HOST/victim" "$D2/Windows/SysWOW64/perfc009.dat"
tree_state "$D2" >"$TMPDIR/disk2.state"
snap
# shellcheck disable=SC2086
expect_exit 2 timeout 20 "$REGTOOL" --store "hive:$T" --tables "$D2/Windows/System32" \
    install $CS "$P/p.ini"
names_link "$D2/Windows/SysWOW64/perfc009.dat"
tree_same
expect_same_tree "$D2" "$TMPDIR/disk2.state"
host_same

# 06: a dirty SOFTWARE whose SOFTWARE.LOG1 is a link: to a 7-byte secret
# (hive check must not tell its size or read it as a log), then to a log
# that would complete the hive (hive recover must not apply it).
MKDIRTY=$TMPDIR/mkdirty
cc -Ilib -o "$MKDIRTY" tests/cli/mkdirty.c lib/regf/marvin32.c \
    lib/regf/base_block.c || fail "cannot build mkdirty"
fresh pristine
"$MKDIRTY" "$C/SOFTWARE" || fail "mkdirty failed"
mv "$C/SOFTWARE.LOG1" "$HOST/SOFTWARE.LOG1"
tree_state "$HOST" >"$TMPDIR/host.state"
ln -s "$HOST/secret7" "$C/SOFTWARE.LOG1"
snap
for form in "" --json; do
    # shellcheck disable=SC2086
    expect_exit 1 timeout 20 "$REGTOOL" hive check $form "$C/SOFTWARE"
    # The link is named as what it is and refused, never read as a log:
    # no format, no entries, no size of what it points to.
    if [ -z "$form" ]; then
        expect_grep "SOFTWARE.LOG1 is a symbolic link, not a regular file: refused" "$OUT"
        ! grep "LOG1" "$OUT" | grep -v "a symbolic link, not a regular file" | grep -q . ||
            { cat "$OUT" >&2; fail "06: hive check read SOFTWARE.LOG1 through its link"; }
    else
        expect_grep '"file":"[^"]*SOFTWARE.LOG1","format":"invalid","entries":0}' "$OUT"
    fi
    ! grep -Eq '7 bytes|"size":7[,}]' "$OUT" || fail "06: hive check $form told the secret's size"
    no_secret "06 hive check $form"
done
rm "$C/SOFTWARE.LOG1"
ln -s "$HOST/SOFTWARE.LOG1" "$C/SOFTWARE.LOG1"
snap
expect_exit 2 timeout 20 "$REGTOOL" hive recover "$C/SOFTWARE" -o "$TMPDIR/recovered"
# The link is refused by name (not passed over as no log).
expect_grep "SOFTWARE.LOG1 is a symbolic link, not a regular file: refused" "$ERR"
[ ! -e "$TMPDIR/recovered" ] || fail "06: hive recover applied a log read through a link"
tree_same
host_same

# 07: the store named as config; a planted journal naming only a store
# file, which is a link to a host file.
fresh installed
rm "$W/System32/perfc009.dat"
ln -s "$HOST/passwd" "$W/System32/perfc009.dat"
MKJ=$TMPDIR/mkjournal
cc -Ilib -o "$MKJ" tests/cli/mkjournal.c lib/commit/crc32.c ||
    fail "cannot build mkjournal"
"$MKJ" "$C/regtool.journal" 'w|System32/perfc009.dat|0|evil::0:0::/:/bin/sh\n' ||
    fail "mkjournal failed"
snap
expect_exit 2 timeout 20 "$REGTOOL" --store "hive:$C" disable RedTeam
names_link "$W/System32/perfc009.dat"
tree_same
host_same

# 09: SOFTWARE and SYSTEM named directly, in a folder whose parent holds
# .dat tables with perfc009.dat a link to a host file: the parent is not
# searched (the message asks for --tables); named with --tables, the
# link is refused.
fresh pristine
K=$TMPDIR/case
rm -rf "$K"
mkdir -p "$K/hives"
cp "$C/SOFTWARE" "$C/SYSTEM" "$K/hives/"
cp "$W"/System32/perf[dhi]009.dat "$K/"
ln -s "$HOST/victim" "$K/perfc009.dat"
tree_state "$K" >"$TMPDIR/case.state"
# shellcheck disable=SC2086
expect_exit 2 timeout 20 "$REGTOOL" --store "hive:$K/hives/SOFTWARE,$K/hives/SYSTEM" \
    install $CS "$P/p.ini"
expect_grep "name the directory that holds them with --tables DIR" "$ERR"
expect_same_tree "$K" "$TMPDIR/case.state"
host_same
# shellcheck disable=SC2086
expect_exit 2 timeout 20 "$REGTOOL" --store "hive:$K/hives/SOFTWARE,$K/hives/SYSTEM" \
    --tables "$K" install $CS "$P/p.ini"
names_link "$K/perfc009.dat"
expect_same_tree "$K" "$TMPDIR/case.state"
host_same
echo "hostile scope: every reproducer refused, the host untouched"
