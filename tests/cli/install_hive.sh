# Install and uninstall on hive stores of both layouts, judged by an
# independent reader (reglookup) and by the .dat files' bytes.
. tests/cli/lib.sh

P=$TMPDIR/prov
mkdir -p "$P"
cat >"$P/offsets.h" <<'H'
#define XFER_OBJECT 0
#define BYTES_SENT  2
#define BYTES_RECV  4
H
cat >"$P/xfer.ini" <<'I'
[info]
drivername=Xfer
symbolfile=offsets.h

[languages]
009=English
019=Russian

[objects]
XFER_OBJECT_009_NAME=

[text]
XFER_OBJECT_009_NAME=Xfer
XFER_OBJECT_009_HELP=Transfers; with a semicolon.
BYTES_SENT_009_NAME=Bytes Sent
BYTES_SENT_009_HELP=Bytes sent.
BYTES_RECV_009_NAME=Bytes Received
BYTES_RECV_009_HELP=Bytes received.
XFER_OBJECT_019_NAME=Передача
XFER_OBJECT_019_HELP=Передача файлов.
BYTES_SENT_019_NAME=Отправлено байт
BYTES_SENT_019_HELP=Байт отправлено.
BYTES_RECV_019_NAME=Получено байт
BYTES_RECV_019_HELP=Байт получено.
I

# Content of both hives as independent readers see them, without key times
# and cell offsets, which may differ (docs/design.md, "Uninstall"). With
# tables as values, libhivex's hivexml (it reads 1 MB values in full;
# regfexport takes seconds on them, reglookup stops at 1 MB). With .dat
# tables, libregf's regfexport: Perflib\009 is then a predefined-handle key,
# which hivex cannot read ("Numerical result out of range").
content() {
    for h in SOFTWARE SYSTEM; do
        f="$1/Windows/System32/config/$h"
        if [ "$layout" = registry ]; then
            hive_xml "$f"
        else
            regfexport "$f" || fail "regfexport $h"
        fi
    done
}

# In the files layout SysWOW64 holds a second copy of every .dat table,
# which every change keeps identical to System32's (lodctr /R rebuilds
# both): compared after each command that changes anything.
wow_same() {
    [ "$layout" = files ] || return 0
    n=0
    for f in "$D"/Windows/System32/perf?[0-9A-Fa-f]*.dat; do
        [ -e "$f" ] || continue
        n=$((n + 1))
        cmp -s "$f" "$D/Windows/SysWOW64/$(basename "$f")" ||
            fail "after $1: SysWOW64/$(basename "$f") differs from System32's"
    done
    [ "$n" -ge 6 ] || fail "after $1: only $n .dat tables in System32"
    for f in "$D"/Windows/SysWOW64/perf?[0-9A-Fa-f]*.dat; do
        [ -e "$D/Windows/System32/$(basename "$f")" ] ||
            fail "after $1: SysWOW64/$(basename "$f") has no System32 twin"
    done
}

# counters LANG: the LANG Counter table as "index<TAB>name" lines, read
# by a referee: hivexget from SOFTWARE's Perflib\LANG (tables as values),
# iconv from perfcLANG.dat (.dat tables); never by regtool.
counters() {
    if [ "$layout" = registry ]; then
        hivexget "$D/Windows/System32/config/SOFTWARE" \
            "Microsoft\\Windows NT\\CurrentVersion\\Perflib\\$1" Counter \
            >"$TMPDIR/table" || fail "hivexget could not read Perflib\\$1\\Counter"
    else
        iconv -f UTF-16LE -t UTF-8 "$D/Windows/System32/perfc$1.dat" | tr '\000' '\n' \
            >"$TMPDIR/table" && [ -s "$TMPDIR/table" ] || fail "cannot read perfc$1.dat"
    fi
    awk 'NR % 2 { i = $0; next } { print i "\t" $0 }' "$TMPDIR/table"
}

CS="--create-service --library %SystemRoot%\\xfer.dll --open Open --collect Collect --close Close"
# A new provider without --create-service: refused, nothing written, and
# the command that creates the service is printed; filled in, it installs.
D=$TMPDIR/hint
expect_exit 0 $REGTOOL --store "hive:$D" init --languages 009
: >"$D/Windows/System32/config/regtool.lock"   # as any writer leaves it
tree_state "$D" >"$TMPDIR/before"
expect_exit 4 $REGTOOL --store "hive:$D" install --replace "$P/xfer.ini"
expect_grep "service 'Xfer' does not exist" "$ERR"
expect_same_tree "$D" "$TMPDIR/before"
hint=$(sed -n 's/^  \(.*install --create-service .*\)$/\1/p' "$ERR")
[ "$hint" = "regtool --store hive:$D install --create-service --library DLL --open FUNCTION --collect FUNCTION --close FUNCTION --replace $P/xfer.ini" ] ||
    fail "no create-service command after the error: $(cat "$ERR")"
hint=$(echo "$hint" | sed -e 's/^regtool //' -e 's/DLL/xfer.dll/' -e 's/FUNCTION/Open/' \
    -e 's/FUNCTION/Collect/' -e 's/FUNCTION/Close/')
eval "expect_exit 0 \$REGTOOL $hint"
expect_grep "^installed Xfer" "$OUT"

for layout in registry files; do
    D=$TMPDIR/$layout
    expect_exit 0 $REGTOOL --store "hive:$D" init --languages 009,019,00C --layout $layout
    wow_same init
    # The provider's installer creates its service; then the database
    # without the provider's names is the state to come back to.
    # shellcheck disable=SC2086
    expect_exit 0 $REGTOOL --store "hive:$D" install $CS "$P/xfer.ini"
    wow_same "install --create-service"
    expect_exit 0 $REGTOOL --store "hive:$D" uninstall Xfer
    wow_same uninstall
    content "$D" >"$TMPDIR/before"
    [ -s "$TMPDIR/before" ] || fail "the referee read nothing"
    # The .dat tables to come back to: 009, 019 and 00C's two each in
    # the files layout, none with tables as values; the tables as
    # installed (perfdLLL.dat, perfiLLL.dat) in both.
    rm -rf "$TMPDIR/dat-before"
    mkdir -p "$TMPDIR/dat-before"
    ndat=$(find "$D/Windows/System32" -maxdepth 1 -name 'perf[ch]*.dat' | wc -l)
    ninst=$(find "$D/Windows/System32" -maxdepth 1 -name 'perf[di]*.dat' | wc -l)
    [ "$ninst" -eq 6 ] || fail "$layout layout: $ninst tables as installed in System32, want 6"
    if [ "$layout" = files ]; then
        [ "$ndat" -eq 6 ] || fail "files layout: $ndat .dat tables in System32, want 6"
        cp "$D"/Windows/System32/*.dat "$TMPDIR/dat-before/" || fail "cannot keep the .dat tables"
    else
        [ "$ndat" -eq 0 ] || fail "registry layout: $ndat .dat files in System32"
    fi

    expect_exit 0 $REGTOOL --store "hive:$D" install "$P/xfer.ini"
    expect_grep "names 3992-3996, help 3993-3997" "$OUT"
    wow_same install
    # The referees see the service values, the Russian names in 019's
    # table, and in 00C (no text of its own) the English ones.
    reglookup -H -p /ControlSet001/Services/Xfer/Performance \
        "$D/Windows/System32/config/SYSTEM" >"$TMPDIR/svc" || fail "reglookup SYSTEM"
    expect_grep "First Counter,DWORD,0x00000F98" "$TMPDIR/svc"
    expect_grep "Object List,SZ,3992" "$TMPDIR/svc"
    counters 019 >"$TMPDIR/c019"
    expect_grep "^3992	Передача$" "$TMPDIR/c019"
    expect_grep "^3994	Отправлено байт$" "$TMPDIR/c019"
    expect_grep "^3996	Получено байт$" "$TMPDIR/c019"
    counters 00C >"$TMPDIR/c00C"
    expect_grep "^3994	Bytes Sent$" "$TMPDIR/c00C"
    expect_exit 0 $REGTOOL --store "hive:$D" names --lang 019 3994
    expect_grep "3994	Отправлено байт" "$OUT"

    # Installing again is refused and writes nothing.
    content "$D" >"$TMPDIR/installed"
    # shellcheck disable=SC2086
    expect_exit 4 $REGTOOL --store "hive:$D" install $CS "$P/xfer.ini"
    expect_grep "already installed" "$ERR"
    content "$D" >"$TMPDIR/again"
    cmp -s "$TMPDIR/installed" "$TMPDIR/again" || fail "refused install changed the hives"

    expect_exit 0 $REGTOOL --store "hive:$D" uninstall Xfer
    wow_same "uninstall (second)"
    content "$D" >"$TMPDIR/after"
    cmp -s "$TMPDIR/before" "$TMPDIR/after" || {
        diff "$TMPDIR/before" "$TMPDIR/after" | head -20
        fail "$layout: uninstall did not restore the hives"
    }
    n=0
    for f in "$TMPDIR"/dat-before/*.dat; do
        [ "$layout" = files ] || break
        n=$((n + 1))
        cmp "$f" "$D/Windows/System32/$(basename "$f")" || fail "$f differs after uninstall"
        cmp "$f" "$D/Windows/SysWOW64/$(basename "$f")" || fail "SysWOW64 copy of $f differs"
    done
    [ "$layout" = registry ] || [ "$n" -eq 12 ] || fail "only $n .dat tables compared (6 current, 6 as installed)"
    # The other changes, each followed by the comparison.
    expect_exit 0 $REGTOOL --store "hive:$D" install "$P/xfer.ini"
    wow_same "install (again)"
    expect_exit 0 $REGTOOL --store "hive:$D" disable Xfer
    wow_same disable
    expect_exit 0 $REGTOOL --store "hive:$D" enable Xfer
    wow_same enable
    expect_exit 0 $REGTOOL --store "hive:$D" install --replace "$P/xfer.ini"
    wow_same "install --replace"
    expect_exit 0 $REGTOOL --store "hive:$D" uninstall Xfer
    wow_same "uninstall (last)"
done

# A provider of one object and no counter: a range of one index each
# (First Help = Last Help), which install and uninstall find in the
# tail of the tables they read: installed, then removed to the byte, in
# both layouts (planted set 32: a tail that missed a one-index range made
# the uninstall fail, exit 3, and no test had such a provider).
printf '#define ONE 0\n' >"$P/one.h"
printf '[info]\ndrivername=OneObj\nsymbolfile=one.h\n[languages]\n009=English\n[objects]\nONE_009_NAME=One\n[text]\nONE_009_NAME=One object\nONE_009_HELP=Its only help.\n' >"$P/one.ini"
for layout in files registry; do
    D=$TMPDIR/one-$layout
    expect_exit 0 $REGTOOL --store "hive:$D" init --languages 009 --layout "$layout"
    # shellcheck disable=SC2086
    expect_exit 0 $REGTOOL --store "hive:$D" install $CS "$P/one.ini"
    expect_exit 0 $REGTOOL --store "hive:$D" names --provider OneObj
    expect_grep "One object" "$OUT"
    expect_exit 0 $REGTOOL --store "hive:$D" uninstall OneObj
    expect_exit 0 $REGTOOL --store "hive:$D" names
    ! grep -q "One object\|Its only help" "$OUT" || fail "$layout: OneObj's texts left after uninstall"
done
