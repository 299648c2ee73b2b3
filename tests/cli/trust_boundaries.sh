# Trust boundaries of install, uninstall and audit --libraries. A tree
# from `regtool init` has the system's PerfOS (its Library, no range); it
# gets, with hivexsh, Acme, a third-party service whose installer wrote
# its Library, and Vendor, whose Object List names base-range objects.
# An INI whose drivername is PerfOS, perfos or "PerfOS " is refused (exit
# 4, the store byte-identical), with or without --create-service, and so
# are PerfDisk (a built-in name the tree has no service of), Vendor, a
# service with a range below Base Index, and .reg backups restored that
# would change PerfOS's Library or range or Base Index; lodctr refuses
# too (183). --create-service never replaces Acme's Library; --force does
# both. Then audit --libraries says system-library-replaced for a PerfOS
# with a range, and library-user-writable for the Library values that
# lead into Users or the writable folders of the Windows directory; a
# SysWOW64-only DLL is not missing. A PerfIniFile of "." or ".." is an
# audit warning, a rebuild note and a repair --from-ini note, and
# uninstall (and unlodctr) removes the provider all the same, naming the
# INF copy it left. Last, the SYSTEM hive Windows 7 wrote refuses an INI
# onto its own PerfOS.
. tests/cli/lib.sh

D=$TMPDIR/win
SY=$D/Windows/System32/config/SYSTEM
S="--store hive:$D"
expect_exit 0 "$REGTOOL" $S init --languages 009
# The lock file a writer that ran before leaves (empty): it is the lock,
# not a change, when a refused writer creates it.
: >"$D/Windows/System32/config/regtool.lock"

# svc NAME LIBRARY [OBJECT-LIST]: Services\NAME\Performance with these
# values and Open/Collect/Close.
svc() {
    {
        printf '%s\n' 'cd \ControlSet001\Services' "add $1" "cd $1" \
            'add Performance' 'cd Performance'
        if [ $# -gt 2 ]; then printf '%s\n' 'setval 5' 'Object List' "string:$3"
        else echo 'setval 4'; fi
        printf '%s\n' Library "expandstring:$2" Open string:O Collect string:C \
            Close string:X commit
    } | hivexsh -w "$SY" || fail "hivexsh could not add $1"
}
expect_exit 0 "$REGTOOL" $S query --json PerfOS
jq -e '.providers[0] | .library != null and .first_counter == null' "$OUT" >/dev/null ||
    fail "init's PerfOS: $(cat "$OUT")"
svc Acme 'acme.dll'
svc Vendor 'vendor.dll' '238'

printf '#define OBJ 0\r\n#define CTR 2\r\n' >"$TMPDIR/sym.h"
# ini FILE DRIVERNAME: a provider of one object and one counter.
ini() {
    printf '[info]\r\ndrivername=%s\r\nsymbolfile=sym.h\r\n\r\n[languages]\r\n009=English\r\n\r\n[objects]\r\nOBJ_009_NAME=Evil\r\n\r\n[text]\r\nOBJ_009_NAME=Evil\r\nOBJ_009_HELP=Evil object.\r\nCTR_009_NAME=Evil count\r\nCTR_009_HELP=Evil counter.\r\n' \
        "$2" >"$TMPDIR/$1"
}
ini perfos1.ini PerfOS
ini perfos2.ini perfos
ini perfos3.ini 'PerfOS '
ini acme.ini Acme
ini vendor.ini Vendor
EVIL='C:\Users\Public\evil.dll'
CS="--create-service --library $EVIL --open O --collect C --close X"

tree_state "$D" >"$TMPDIR/before"
for i in 1 2 3; do
    expect_exit 4 "$REGTOOL" $S install "$TMPDIR/perfos$i.ini"
    expect_grep "install $TMPDIR/perfos$i.ini onto service 'PerfOS'" "$ERR"
    expect_grep "one of the system's providers" "$ERR"
    expect_grep "'regtool install --force' installs onto it anyway" "$ERR"
    # shellcheck disable=SC2086
    expect_exit 4 "$REGTOOL" $S install $CS "$TMPDIR/perfos$i.ini"
    expect_grep "would replace its Library" "$ERR"
done
expect_exit 4 "$REGTOOL" $S install "$TMPDIR/perfos2.ini"
expect_grep "(the INI's drivername 'perfos' is the same service: service names ignore case)" "$ERR"
expect_exit 4 "$REGTOOL" $S install "$TMPDIR/vendor.ini"
expect_grep "its Object List (238) names objects of the system's base range (Base Index 1847)" "$ERR"
# A built-in provider's name is refused even where the tree has no such
# service (init's tree has no PerfDisk): Windows creates it again.
ini perfdisk.ini PerfDisk
# shellcheck disable=SC2086
expect_exit 4 "$REGTOOL" $S install $CS "$TMPDIR/perfdisk.ini"
expect_grep "onto service 'PerfDisk': it is one of the system's providers: it is one of Windows' built-in providers (this tree has no such service)" "$ERR"
# A .reg backup restored: one that changes PerfOS's Library or gives it
# a range is refused as an install over it (exit 4, even as a dry run),
# and so is one that changes Base Index (the tree byte-identical after).
expect_exit 0 "$REGTOOL" $S backup --format reg "$TMPDIR/own.reg"
# evil_reg FILE KEY-TAIL LINE: own.reg with LINE last in [...KEY-TAIL]
# (of two values of one name, a .reg file's last counts).
evil_reg() {
    iconv -f UTF-16 -t UTF-8 "$TMPDIR/own.reg" | tr -d '\r' |
        TAIL="$2]" LINE="$3" awk '
            !done && !inside && length($0) >= length(ENVIRON["TAIL"]) &&
                substr($0, length($0) - length(ENVIRON["TAIL"]) + 1) == ENVIRON["TAIL"] { inside = 1 }
            inside && $0 == "" { print ENVIRON["LINE"]; inside = 0; done = 1 }
            { print }
            END { if (!done) exit 1 }' >"$TMPDIR/$1.u8" || fail "cannot write $1"
    { printf '\377\376'; iconv -f UTF-8 -t UTF-16LE "$TMPDIR/$1.u8"; } >"$TMPDIR/$1" ||
        fail "cannot write $1"
}
evil_reg lib.reg 'Services\PerfOS\Performance' '"Library"="C:\\Users\\Public\\evil.dll"'
evil_reg range.reg 'Services\PerfOS\Performance' '"First Counter"=dword:00000f00'
evil_reg base.reg 'Perflib' '"Base Index"=dword:00000010'
for f in lib range; do
    for dry in "" --dry-run; do
        expect_exit 4 "$REGTOOL" $S restore $dry "$TMPDIR/$f.reg"
        expect_grep "Services.PerfOS.Performance] in the file would set its $([ $f = lib ] && echo Library || echo 'First Counter'), and PerfOS is one of the system's providers: it is one of Windows' built-in providers" "$ERR"
    done
done
expect_exit 4 "$REGTOOL" $S restore "$TMPDIR/base.reg"
expect_grep "in the file sets Base Index 16, which is not this store's (1847)" "$ERR"
# lodctr /R:FILE restores another machine's backup as Windows' does (its
# --force), but Windows' reads PerfStringBackup files only: a .reg file,
# whatever its name, is refused (13) naming regtool restore, where it
# replaced PerfOS's Library with no word.
cp "$TMPDIR/lib.reg" "$TMPDIR/PerfStringBackup-vendor.ini"
tree_state "$D" >"$TMPDIR/before-r"
expect_exit 13 env REGTOOL_STORE="hive:$D" "$(dirname "$REGTOOL")/lodctr" "/R:$TMPDIR/PerfStringBackup-vendor.ini"
expect_grep "^lodctr: .*PerfStringBackup-vendor.ini is a .reg export, not a PerfStringBackup file: /R: restores those only" "$ERR"
expect_same_tree "$D" "$TMPDIR/before-r"
# A provider's range moved into the base range: refused for any provider.
evil_reg lowrange.reg 'Services\.NETFramework\Performance' '"First Counter"=dword:00000002'
expect_exit 4 "$REGTOOL" $S restore "$TMPDIR/lowrange.reg"
expect_grep "NETFramework.Performance] in the file would set its First Counter to 2, in the system's base range (Base Index 1847)" "$ERR"
# Any provider's Library (.NETFramework's here; ESENT's, a vendor's)
# decides the code every consumer loads: a restore that changes it is
# refused without --force, as an install over it is.
evil_reg netlib.reg 'Services\.NETFramework\Performance' '"Library"="C:\\Users\\Public\\evil.dll"'
for dry in "" --dry-run; do
    expect_exit 4 "$REGTOOL" $S restore $dry "$TMPDIR/netlib.reg"
    expect_grep "NETFramework.Performance] in the file would set its Library, which decides the code every program that reads performance data loads; nothing was written (--force restores it anyway)" "$ERR"
done
# A file whose only language key holds no table restores nothing: it
# would have deleted every provider's range.
printf 'Windows Registry Editor Version 5.00\r\n\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib\\009]\r\n\r\n' |
    iconv -f UTF-8 -t UTF-16 >"$TMPDIR/empty.reg"
expect_exit 2 "$REGTOOL" $S restore "$TMPDIR/empty.reg"
expect_grep "the file has tables for none of this store's languages" "$ERR"
# lodctr refuses it too (183, already exists), naming regtool's way on.
expect_exit 183 env REGTOOL_STORE="hive:$D" "$(dirname "$REGTOOL")/lodctr" "$TMPDIR/perfos2.ini"
expect_grep "^lodctr: refusing to install" "$ERR"
expect_same_tree "$D" "$TMPDIR/before"

# --create-service over Acme's own Library: refused; the same DLL is no
# replacement; --force replaces it.
# shellcheck disable=SC2086
expect_exit 4 "$REGTOOL" $S install $CS "$TMPDIR/acme.ini"
expect_grep "service 'Acme' already has a Library (acme.dll), which --library would replace with C:.Users.Public.evil.dll" "$ERR"
expect_grep "--force replaces it" "$ERR"
expect_same_tree "$D" "$TMPDIR/before"
expect_exit 0 "$REGTOOL" $S install --create-service --library ACME.DLL --open O \
    --collect C --close X "$TMPDIR/acme.ini"
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" $S install --replace --force $CS "$TMPDIR/acme.ini"
expect_exit 0 "$REGTOOL" $S query --json Acme
jq -e --arg l "$EVIL" '.providers[0].library == $l' "$OUT" >/dev/null ||
    fail "--force kept Acme's Library: $(cat "$OUT")"

# A range below Base Index: one of the system's providers, even with
# --replace.
svc Low 'low.dll'
printf '%s\n' 'cd \ControlSet001\Services\Low\Performance' 'setval 5' \
    Library expandstring:low.dll 'First Counter' dword:0x64 'Last Counter' dword:0x66 \
    'First Help' dword:0x65 'Last Help' dword:0x67 commit | hivexsh -w "$SY" ||
    fail "hivexsh could not give Low a range"
ini low.ini Low
tree_state "$D" >"$TMPDIR/before"
expect_exit 4 "$REGTOOL" $S install --replace "$TMPDIR/low.ini"
expect_grep "its range (First Counter 100, First Help 101) lies in the system's base range (Base Index 1847)" "$ERR"
expect_same_tree "$D" "$TMPDIR/before"

# --force installs onto PerfOS and replaces its Library; the audit still
# says system-library-replaced, now that PerfOS has a range.
# shellcheck disable=SC2086
expect_exit 0 "$REGTOOL" $S install --force $CS "$TMPDIR/perfos2.ini"
# And Library values that lead where users write, once resolved.
n=0
for lib in 'C:\Program Files\..\Users\Public\x.dll' 'C:\PROGRA~1\..\Users\Public\x.dll' \
           '%SystemRoot%\Tracing\x.dll' '%SystemRoot%\Registration\CRMLog\x.dll' \
           '%SystemRoot%\System32\..\Temp\x.dll' '%TEMP%\x.dll'; do
    n=$((n + 1))
    svc "W$n" "$lib"
done
expect_exit 1 "$REGTOOL" $S audit --libraries --json
jq -e --argjson n "$n" '
    ([.findings[] | select(.message | startswith("PerfOS")) | select(.severity == "warning") | .id] |
        index("system-library-replaced") and index("system-provider-range") and
        index("library-user-writable")) and
    ([.findings[] | select(.id == "library-user-writable") | .message | select(test("^W[0-9]+: "))] |
        length == $n)' "$OUT" >/dev/null || fail "audit --libraries: $(cat "$OUT")"

# A tree with system files: a DLL only in SysWOW64 is a 32-bit provider's,
# not a missing one (the tree's SysWOW64 need not hold ntdll.dll).
: >"$D/Windows/System32/ntdll.dll"
mkdir -p "$D/Windows/SysWOW64"
: >"$D/Windows/SysWOW64/only32.dll"
svc Old32 only32.dll
expect_exit 1 "$REGTOOL" $S audit --libraries --json
jq -e '[.findings[] | select(.message | startswith("Old32:")) | .id] == ["library-only-in-syswow64"]' \
    "$OUT" >/dev/null || fail "SysWOW64-only DLL: $(cat "$OUT")"

# PerfIniFile "." and "..": audit, rebuild and repair say so; uninstall
# removes the provider and names the INF copy it left.
# set_ini_file VALUE: Acme's Performance values as query reads them, its
# PerfIniFile VALUE.
set_ini_file() {
    "$REGTOOL" $S query --json Acme >"$TMPDIR/acme.json" || fail "query Acme"
    jq -r --arg v "$1" '.providers[0] |
        "cd \\ControlSet001\\Services\\Acme\\Performance", "setval 10",
        "Library", "expandstring:" + .library, "Open", "string:" + .open,
        "Collect", "string:" + .collect, "Close", "string:" + .close,
        "First Counter", "dword:\(.first_counter)", "Last Counter", "dword:\(.last_counter)",
        "First Help", "dword:\(.first_help)", "Last Help", "dword:\(.last_help)",
        "Object List", "string:" + .object_list, "PerfIniFile", "string:" + $v,
        "commit"' "$TMPDIR/acme.json" | hivexsh -w "$SY" || fail "hivexsh: PerfIniFile $1"
}
[ -f "$D/Windows/INF/Acme/0009/acme.ini" ] || fail "no INF copy of acme.ini"
for v in . ..; do
    set_ini_file "$v"
    # (Low's range in the base range is an error of its own.)
    "$REGTOOL" $S audit --json >"$OUT" 2>"$ERR" || :
    jq -e --arg m "Acme: PerfIniFile '$v' is not a file name (it is a path step)" \
        '.findings[] | select(.id == "perfinifile-invalid" and .message == $m)' \
        "$OUT" >/dev/null || fail "PerfIniFile $v: $(cat "$OUT")"
    expect_exit 0 "$REGTOOL" $S rebuild --dry-run
    expect_grep "no INF copy: its PerfIniFile '$v' is not a file name (it is a path step), so no INF copy is read" "$OUT"
    "$REGTOOL" $S repair --dry-run --from-ini "$TMPDIR" >"$OUT" 2>"$ERR" || :
    expect_grep "Acme: its PerfIniFile '$v' is not a file name (it is a path step): its INF copy is not read" "$ERR"
done
expect_exit 0 "$REGTOOL" $S uninstall Acme
expect_grep "^uninstalled Acme: names" "$OUT"
expect_grep "warning: uninstall Acme: its PerfIniFile '..' is not a file name (it is a path step): its INF copy was not looked for; remove INF.Acme. by hand" "$ERR"
expect_exit 0 "$REGTOOL" $S query --json Acme
jq -e '.providers[0] | .first_counter == null and .ini_file == null' "$OUT" >/dev/null ||
    fail "Acme still installed: $(cat "$OUT")"
[ -f "$D/Windows/INF/Acme/0009/acme.ini" ] || fail "the INF copy went"
# unlodctr too.
expect_exit 0 "$REGTOOL" $S install "$TMPDIR/acme.ini"
set_ini_file 'C:acme.ini'
expect_exit 0 env REGTOOL_STORE="hive:$D" "$(dirname "$REGTOOL")/unlodctr" Acme
expect_grep "^unlodctr: warning: its PerfIniFile 'C:acme.ini' is not a file name (it holds ':' (a drive letter or a stream))" "$ERR"

# The SYSTEM hive Windows 7 wrote: its own PerfOS (any case) is refused.
R=$TMPDIR/real
expect_exit 0 "$REGTOOL" --store "hive:$R" init --languages 009 --layout registry
xz -dc "$SHARED/samples/SYSTEM.xz" >"$R/Windows/System32/config/SYSTEM" || fail "sample"
: >"$R/Windows/System32/config/regtool.lock"
tree_state "$R" >"$TMPDIR/before"
expect_exit 4 "$REGTOOL" --store "hive:$R" install "$TMPDIR/perfos2.ini"
expect_grep "onto service 'PerfOS' (the INI's drivername 'perfos'" "$ERR"
expect_grep "one of Windows' built-in providers (Library %SystemRoot%.System32.perfos.dll, no range of its own)" "$ERR"
expect_same_tree "$R" "$TMPDIR/before"

# Names that become the INF copy's paths and that Windows would take for
# other files: a drivername with a short name's shape (TRANSF~1 is
# TransferPerf's folder on Windows: review 43 R43-5), a symbol file that
# is a device or such a name (R43-9: COM1.h became INF\X\0009\COM1.h).
# Refused as input, --force or not, exit 2, nothing written.
mkdir "$TMPDIR/names"
for case in "TRANSF~1 o.h" "Fresh7 COM1.h" "Fresh7 NUL.h" "Fresh7 x.h." \
    "Fresh7 COUNTE~1.H"; do
    set -- $case
    printf '[info]\ndrivername=%s\nsymbolfile=%s\n[languages]\n009=English\n[text]\nOBJ_009_NAME=x\nOBJ_009_HELP=y\n' \
        "$1" "$2" >"$TMPDIR/names/p.ini"
    printf '#define OBJ 0\n' >"$TMPDIR/names/$2"
    expect_exit 2 "$REGTOOL" --store "hive:$R" install --force --create-service \
        --library x.dll --open O --collect C --close X "$TMPDIR/names/p.ini"
    expect_grep "cannot name .*: it \(is a device name\|has the shape of a short\|ends in a dot\)" "$ERR"
    expect_same_tree "$R" "$TMPDIR/before"
    rm -f "$TMPDIR/names/$2"
done
echo "trust_boundaries: ok"
