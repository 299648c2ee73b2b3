# Uninstall gives Last Counter and Last Help back (docs/design.md,
# "Uninstall") on a real machine's name database: the 009 tables and the
# [Perflib] values of a real PerfStringBackup.INI (docs/design.md, "What
# real machines look like": Last Counter 11174, Last Help 11175, highest
# index present 6137) in a hive store's .dat tables. Tables are compared
# byte for byte, the hives and Perflib values through independent readers
# (regfexport, reglookup); the values are set with hivexsh.
. tests/cli/lib.sh

PSB=$SHARED/research-real/perfstringbackup/psb-C-009.PerfStringBackup.INI.xz
[ -r "$PSB" ] || fail "missing $PSB"
xz -dc "$PSB" | iconv -f UTF-16LE -t UTF-8 | tr -d '\r' >"$TMPDIR/psb.txt" ||
    fail "cannot read $PSB"

# psb_value SECTION KEY: a value of the INI.
psb_value() {
    awk -v sec="[$1]" -v key="$2" '
        $0 == sec { on = 1; next }
        /^\[/ { on = 0 }
        on && index($0, key "=") == 1 { print substr($0, length(key) + 2); exit }
    ' "$TMPDIR/psb.txt"
}

# psb_tables LANG DIR: DIR/perfcLANG.dat and perfhLANG.dat, the blobs
# Windows keeps, from [PerfStrings_LANG]: names at even indices, help at
# odd ones, except the Counter table's first pair 1=<Base Index>. Texts
# with line ends inside (one real file has them) are not handled: a line
# that is not index=text fails the test.
psb_tables() {
    awk -v sec="[PerfStrings_$1]" -v c="$TMPDIR/c.txt" -v h="$TMPDIR/h.txt" '
        BEGIN { printf "" > c; printf "" > h }
        $0 == sec { on = 1; next }
        /^\[/ { on = 0 }
        !on || $0 == "" { next }
        !/^[0-9]+=/ { print "not index=text: " $0; bad = 1; exit }
        { i = substr($0, 1, index($0, "=") - 1) + 0
          printf "%d\001%s\001", i, substr($0, index($0, "=") + 1) > \
              ((i % 2 == 0 || i == 1) ? c : h) }
        END { if (bad) exit 1; printf "\001" > c; printf "\001" > h }
    ' "$TMPDIR/psb.txt" || fail "psb_tables: [PerfStrings_$1]"
    tr '\001' '\000' <"$TMPDIR/c.txt" | iconv -f UTF-8 -t UTF-16LE >"$2/perfc$1.dat"
    tr '\001' '\000' <"$TMPDIR/h.txt" | iconv -f UTF-8 -t UTF-16LE >"$2/perfh$1.dat"
}

LC=$(psb_value Perflib "Last Counter")
LH=$(psb_value Perflib "Last Help")
BASE=$(psb_value Perflib "Base Index")
[ "$LC" = 11174 ] && [ "$LH" = 11175 ] && [ "$BASE" = 1847 ] ||
    fail "[Perflib] of $PSB reads $LC $LH $BASE"

D=$TMPDIR/win
SW=$D/Windows/System32/config/SOFTWARE
SY=$D/Windows/System32/config/SYSTEM
PERFLIB="/Microsoft/Windows NT/CurrentVersion/Perflib"
export REGTOOL_STORE="hive:$D"
expect_exit 0 $REGTOOL init --languages 009 --layout files
psb_tables 009 "$D/Windows/System32"
cp "$D/Windows/System32/perfc009.dat" "$D/Windows/System32/perfh009.dat" \
    "$D/Windows/SysWOW64/"
# The real tables: 6136 the highest name, nothing above it.
expect_exit 1 $REGTOOL names 6136 6138
expect_grep "^6136	HttpWebRequests Failed/Sec$" "$OUT"
expect_grep "index 6138 not found in 009 Counter" "$ERR"

perflib_set "$SW" "Last_Counter=$LC" "Last_Help=$LH"

# The Perflib values as reglookup reads them: "Last Counter 11174 ...".
perflib() {
    reglookup -H -t DWORD -p "$PERFLIB" "$SW" |
        awk -F, -v p="$PERFLIB/" 'index($1, p) == 1 {
            n = substr($1, length(p) + 1); if (n !~ /\//) printf "%s %d\n", n, $3 }'
}
perflib >"$TMPDIR/perflib"
expect_grep "^Last Counter 11174$" "$TMPDIR/perflib"
expect_grep "^Last Help 11175$" "$TMPDIR/perflib"
expect_grep "^Base Index 1847$" "$TMPDIR/perflib"

# The name database as a reader sees it: SOFTWARE (regfexport: with .dat
# tables Perflib\009 is a predefined-handle key, which hivex cannot read),
# the Perflib values, and the .dat tables in System32 and SysWOW64, which
# are also compared byte for byte (same_tables).
database() {
    regfexport "$SW" || fail "regfexport SOFTWARE"
    perflib
    for f in "$D"/Windows/System32/perf?009.dat "$D"/Windows/SysWOW64/perf?009.dat; do
        sha256sum <"$f"
    done
}
mkdir -p "$TMPDIR/dat-real"
cp "$D"/Windows/System32/perf?009.dat "$TMPDIR/dat-real/"
same_tables() {
    for f in "$TMPDIR"/dat-real/*.dat; do
        for dir in System32 SysWOW64; do
            cmp "$f" "$D/Windows/$dir/$(basename "$f")" ||
                fail "$1: $dir/$(basename "$f") differs from the machine's"
        done
    done
}
database >"$TMPDIR/real"
TREE_IGNORE=regtool.lock

P=$TMPDIR/prov
mkdir -p "$P"
printf '#define OBJ 0\n#define SENT 2\n#define RECV 4\n' >"$P/o.h"
mkini() {
    printf '[info]\ndrivername=%s\nsymbolfile=o.h\n[languages]\n009=English\n[objects]\nOBJ_009_NAME=\n[text]\nOBJ_009_NAME=%s\nOBJ_009_HELP=%s.\nSENT_009_NAME=%s Sent\nSENT_009_HELP=Sent.\nRECV_009_NAME=%s Received\nRECV_009_HELP=Received.\n' \
        "$1" "$1" "$1" "$1" "$1" >"$P/$1.ini"
}
mkini Xfer
mkini Peer
CS="--create-service --library %SystemRoot%\\x.dll --open O --collect C --close X"
values() {
    perflib >"$TMPDIR/perflib"
    expect_grep "^Last Counter $1$" "$TMPDIR/perflib"
    expect_grep "^Last Help $2$" "$TMPDIR/perflib"
}

# Two providers (their installers' service keys made here, which changes
# SYSTEM for good): the top one's uninstall, then the other's, give the
# name database back exactly as the machine had it.
# shellcheck disable=SC2086
expect_exit 0 $REGTOOL install $CS "$P/Xfer.ini"
expect_grep "names 11176-11180, help 11177-11181" "$OUT"
values 11180 11181

# --dry-run says what Last Counter and Last Help become, and why.
tree_state "$D" >"$TMPDIR/installed"
expect_exit 0 $REGTOOL uninstall --dry-run Xfer
expect_grep "^Last Counter 11180 -> 11174: 'Xfer' was on top (Last Counter 11180 is within its names 11176-11180), back to where its install found it (First Counter 11176 - 2)$" "$OUT"
expect_grep "^Last Help 11181 -> 11175: 'Xfer' was on top (Last Help 11181 is within its help texts 11177-11181), back to where its install found it (First Help 11177 - 2)$" "$OUT"
expect_grep "^  Perflib: Last Counter = 11174 (REG_DWORD)$" "$OUT"
expect_grep "^  Perflib: Last Help = 11175 (REG_DWORD)$" "$OUT"
expect_same_tree "$D" "$TMPDIR/installed" "uninstall --dry-run wrote to the store"

# shellcheck disable=SC2086
expect_exit 0 $REGTOOL install $CS "$P/Peer.ini"
expect_grep "names 11182-11186, help 11183-11187" "$OUT"
expect_exit 0 $REGTOOL uninstall Peer
expect_grep "^Last Counter 11186 -> 11180: 'Peer' was on top" "$OUT"
values 11180 11181
expect_exit 0 $REGTOOL uninstall Xfer
expect_grep "^Last Counter 11180 -> 11174: 'Xfer' was on top" "$OUT"
expect_grep "^Last Help 11181 -> 11175: 'Xfer' was on top" "$OUT"
values 11174 11175
database | cmp -s - "$TMPDIR/real" || {
    database | diff "$TMPDIR/real" - | head -20
    fail "install and uninstall did not leave the name database as it was"
}
same_tables "install, uninstall"
regfexport "$SY" >"$TMPDIR/system" || fail "regfexport SYSTEM"

# As lodctr and unlodctr: the same indices as the first install, and
# everything back, SYSTEM included.
mkdir -p "$TMPDIR/bin"
ln -s "$REGTOOL" "$TMPDIR/bin/lodctr"
ln -s "$REGTOOL" "$TMPDIR/bin/unlodctr"
expect_exit 0 "$TMPDIR/bin/lodctr" "$P/Xfer.ini"
expect_grep "names 11176-11180, help 11177-11181" "$OUT"
expect_exit 0 "$TMPDIR/bin/unlodctr" Xfer
expect_grep "^unlodctr: Last Counter 11180 -> 11174: 'Xfer' was on top" "$OUT"
expect_grep "^unlodctr: Last Help 11181 -> 11175: 'Xfer' was on top" "$OUT"
database | cmp -s - "$TMPDIR/real" || fail "lodctr, unlodctr did not restore the name database"
regfexport "$SY" | cmp -s - "$TMPDIR/system" || fail "lodctr, unlodctr did not restore SYSTEM"
same_tables "lodctr, unlodctr"

# The lower provider's uninstall leaves both values alone. The top one's
# then goes back to where its install found them: above the lower one's
# old range, which stays handed out.
expect_exit 0 $REGTOOL install "$P/Xfer.ini"
expect_grep "names 11176-11180, help 11177-11181" "$OUT"
expect_exit 0 $REGTOOL install "$P/Peer.ini"
expect_exit 0 $REGTOOL uninstall Xfer
expect_grep "^Last Counter 11186 unchanged: 'Xfer' is not on top (Last Counter 11186 is above its names 11176-11180)$" "$OUT"
expect_grep "^Last Help 11187 unchanged: 'Xfer' is not on top" "$OUT"
values 11186 11187
expect_exit 0 $REGTOOL uninstall Peer
values 11180 11181

# The machine's highest range ([PERF_] with the highest Last Counter: .NET
# CLR Networking 4.0.0.0, 6110-6136) is far below Last Counter: it is not
# on top, and its uninstall leaves both values alone.
awk '/^\[PERF_/ { s = substr($0, 7, length($0) - 7) }
     s != "" && /^(First|Last) (Counter|Help)=/ {
         split($0, kv, "="); v[s, kv[1]] = kv[2]
         if (kv[1] == "Last Counter" && kv[2] + 0 > top) { top = kv[2] + 0; name = s } }
     END { print name
           printf "%d %d %d %d\n", v[name, "First Counter"], v[name, "Last Counter"],
                  v[name, "First Help"], v[name, "Last Help"] }' \
    "$TMPDIR/psb.txt" >"$TMPDIR/top"
NET=$(sed -n 1p "$TMPDIR/top")
# shellcheck disable=SC2046
set -- $(sed -n 2p "$TMPDIR/top")
[ "$NET" = ".NET CLR Networking 4.0.0.0" ] && [ "$*" = "6110 6136 6111 6137" ] ||
    fail "highest [PERF_] range of $PSB reads '$NET' $*"
printf 'cd \\ControlSet001\\Services\nadd %s\ncd %s\nadd Performance\ncd Performance\nsetval 5\nLibrary\nstring:netfxperf.dll\nFirst Counter\ndword:0x%x\nLast Counter\ndword:0x%x\nFirst Help\ndword:0x%x\nLast Help\ndword:0x%x\ncommit\n' \
    "$NET" "$NET" "$@" | hivexsh -w "$SY" || fail "hivexsh could not add $NET"
expect_exit 0 $REGTOOL uninstall "$NET"
expect_grep "names 6110-6136, help 6111-6137 (14 names, 14 help texts" "$OUT"
expect_grep "^Last Counter 11180 unchanged: '$NET' is not on top (Last Counter 11180 is above its names 6110-6136)$" "$OUT"
values 11180 11181
expect_exit 1 $REGTOOL names 6136
