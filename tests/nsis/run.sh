#!/bin/sh
# The NSIS plugin under Wine (make windows-check), in one 64-bit prefix:
#   1. the 64-bit build of the plugin, called through tests/nsis/plugin_host
#      as an installer calls it: regtoolnsis::Install of ini-samples'
#      ReplicationPerf (four languages), its names read back, a failure's
#      "ERROR: " with regtool's own message, then Uninstall;
#   2. the example installer (contrib/nsis/example.nsi) built by makensis
#      for amd64-unicode with the 64-bit plugin, run with /S by wine64,
#      its uninstaller with /S: the names must be in Perflib (read by the
#      64-bit reg.exe and regtool.exe), then gone; then the same for
#      x86-unicode with the 32-bit plugin, run by 32-bit Wine where it is
#      installed. (Wine shares Perflib between the 64-bit view and the
#      32-bit one, Wow6432Node: the 64-bit plugin's names are seen there
#      too, so which view a 32-bit plugin opened cannot be told here; it
#      opens every key with KEY_WOW64_64KEY.)
# Wine 8 serves Perflib\009 as a fixed stub that nothing writes, so the
# languages checked are 019, 00C, 404 and CurrentLanguage (009's text),
# each made first with the base tables, as tests/wine/provider_e2e.sh does.
#   sh tests/nsis/run.sh WINBUILD WIN32BUILD   (build/windows build/windows32)
set -eu
build=$(cd "$1" && pwd)
build32=$(cd "$2" && pwd)
PREFIX_DIR=$build32/prefix
. tests/wine/prefix.sh
. tests/common.sh
FAIL_WHO="tests/nsis"
# 32-bit Wine (wine32:i386): the loader Debian's wine script runs every
# program with when it is there; in this 64-bit prefix it runs the 32-bit
# installer under WOW64.
WINE32=${WINE32:-/usr/lib/wine/wine}

perflib='HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Perflib'
svc='HKLM\SYSTEM\CurrentControlSet\Services\ReplicationPerf'
regtool="$build/regtool.exe"
reg() { "$WINE64" reg "$@" >/dev/null 2>&1 || fail "reg $*"; }
run() {  # OUT COMMAND...: COMMAND's output (no CR) in OUT; its status
    _out=$1; shift
    _rc=0
    "$@" >"$_out.raw" 2>&1 || _rc=$?
    tr -d '\r' <"$_out.raw" >"$_out"
    return $_rc
}
# reg_query OUT KEY: Wine's reg query of KEY's Counter, asked again once
# when it fails saying nothing (seen once on a loaded machine: the
# wineserver, not the registry, at fault; a key not there says so).
reg_query() {
    run "$1" "$WINE64" reg query "$2" /v Counter && return 0
    [ -s "$1" ] && return 1
    sleep 1
    run "$1" "$WINE64" reg query "$2" /v Counter
}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"; wine_prefix_cleanup' EXIT

# Base tables, and the provider's service (lodctr's rule: it must exist).
for l in CurrentLanguage 019 00C 404; do
    reg add "$perflib\\$l" /v Counter /t REG_MULTI_SZ /d '1\01847\01846\0End Marker' /f
    reg add "$perflib\\$l" /v Help /t REG_MULTI_SZ /d '1847\0End Marker' /f
done
reg add "$svc\\Performance" /v Library /t REG_SZ /d 'C:\ReplPerf\ReplPerf.dll' /f

# Every language's names, through regtool.exe (UTF-8: the texts as the
# INI has them) and the 64-bit reg.exe (which prints only ASCII through a
# pipe: the indices), both reading the 64-bit view.
expect_installed() {  # WHEN
    for spec in "019:Репликация:Разрешено конфликтов" \
                "00C:Réplication:Conflits résolus" \
                "404:複寫:已解決的衝突" \
                "CurrentLanguage:Replication:Conflicts Resolved"; do
        l=${spec%%:*}; rest=${spec#*:}
        first=${rest%%:*}; last=${rest#*:}
        run "$scratch/names" "$WINE64" "$regtool" --store live names \
            --provider ReplicationPerf --lang "$l" ||
            fail "$1: names --provider ReplicationPerf --lang $l: $(cat "$scratch/names")"
        grep -q "^1848	$first	" "$scratch/names" &&
            grep -q "^1856	$last	" "$scratch/names" ||
            fail "$1: language $l lacks 1848 '$first' or 1856 '$last':
$(cat "$scratch/names")"
        reg_query "$scratch/reg" "$perflib\\$l" ||
            fail "$1: reg query $l: $(cat "$scratch/reg")"
        for i in 1848 1850 1852 1854 1856; do
            grep -q "\\\\0$i\\\\0" "$scratch/reg" ||
                fail "$1: reg.exe sees no index $i in $l's Counter: $(cat "$scratch/reg")"
        done
    done
}
expect_removed() {  # WHEN
    for l in 019 00C 404 CurrentLanguage; do
        reg_query "$scratch/reg" "$perflib\\$l" ||
            fail "$1: reg query $l: $(cat "$scratch/reg")"
        grep -q '\\01848\\0' "$scratch/reg" &&
            fail "$1: index 1848 still in $l's Counter: $(cat "$scratch/reg")"
        grep -q '1\\01847\\01846\\0End Marker' "$scratch/reg" ||
            fail "$1: $l's base table changed: $(cat "$scratch/reg")"
    done
    if run "$scratch/query" "$WINE64" "$regtool" --store live names \
        --provider ReplicationPerf; then
        fail "$1: ReplicationPerf still installed: $(cat "$scratch/query")"
    fi
}

# 1. The 64-bit plugin through the host.
host="$build/nsis/plugin_host.exe"
plugin="$build/nsis/regtoolnsis.dll"
mkdir -p "$WINEPREFIX/drive_c/regtool-nsis"
cp ini-samples/replication.ini ini-samples/ReplicationOffsets.h \
    "$WINEPREFIX/drive_c/regtool-nsis/"
run "$scratch/out" "$WINE64" "$host" "$plugin" Install 'C:\regtool-nsis\replication.ini' ||
    fail "plugin Install: $(cat "$scratch/out")"
[ "$(cat "$scratch/out")" = 0 ] || fail "plugin Install pushed '$(cat "$scratch/out")', not 0"
expect_installed "after the plugin's Install"
run "$scratch/out" "$WINE64" "$host" "$plugin" Uninstall ReplicationPerf ||
    fail "plugin Uninstall: $(cat "$scratch/out")"
[ "$(cat "$scratch/out")" = 0 ] || fail "plugin Uninstall pushed '$(cat "$scratch/out")', not 0"
expect_removed "after the plugin's Uninstall"
# A failure: ERROR: and the message regtool prints after "regtool: ".
run "$scratch/cli" "$WINE64" "$regtool" --store live uninstall ReplicationPerf &&
    fail "regtool uninstall of a provider not installed succeeded"
if run "$scratch/out" "$WINE64" "$host" "$plugin" Uninstall ReplicationPerf; then
    fail "plugin Uninstall of a provider not installed pushed 0"
fi
[ "ERROR: $(sed -n 's/^regtool: //p' "$scratch/cli")" = "$(cat "$scratch/out")" ] ||
    fail "plugin pushed '$(cat "$scratch/out")' where regtool said '$(cat "$scratch/cli")'"
if run "$scratch/out" "$WINE64" "$host" "$plugin" Install 'C:\regtool-nsis\absent.ini'; then
    fail "plugin Install of a missing INI pushed 0"
fi
grep -q '^ERROR: C:\\regtool-nsis\\absent.ini: .*cannot open' "$scratch/out" ||
    fail "plugin Install of a missing INI pushed '$(cat "$scratch/out")'"
echo "nsis: the 64-bit plugin installs and removes ReplicationPerf in 019, 00C, 404 and CurrentLanguage, and pushes regtool's message on failure: ok"

# 2. The example installer, built with makensis, run with /S and its
#    uninstaller with /S: SETUP by WINE (LABEL says which).
example() {  # SETUP WINE LABEL
    instdir='C:\regtool-example'
    run "$scratch/out" "$2" "$1" /S "/D=$instdir" ||
        fail "$3 example installer /S: exit $? $(cat "$scratch/out")"
    expect_installed "after the $3 example installer"
    run "$scratch/out" "$2" "$WINEPREFIX/drive_c/regtool-example/uninstall.exe" /S "_?=$instdir" ||
        fail "$3 example uninstaller /S: $(cat "$scratch/out")"
    expect_removed "after the $3 example uninstaller"
    rm -rf "$WINEPREFIX/drive_c/regtool-example"
    echo "nsis: the $3 example installer registers ReplicationPerf in the 64-bit Perflib, its uninstaller removes it: ok"
}
example "$build/nsis/regtool-example-setup.exe" "$WINE64" 64-bit
if [ ! -x "$WINE32" ]; then
    echo "nsis: SKIPPED the 32-bit example installer: no 32-bit Wine ($WINE32: Debian's wine32:i386, which tools/deps.sh does not install)"
    exit 0
fi
example "$build32/regtool-example-setup.exe" "$WINE32" 32-bit
