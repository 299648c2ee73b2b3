#!/bin/sh
# The sample provider (ini-samples/provider/transferperf.dll) under Wine,
# read by tests/wine/perfconsumer.exe through HKEY_PERFORMANCE_DATA, in
# the prefix that tests/wine/run.sh made (WINE64, WINEPREFIX exported).
# Usage: tests/wine/provider_e2e.sh BUILD_DIR REGTOOL [DROPIN_DIR]
# REGTOOL: the Winelib build's regtool.exe.so, or the native PE
# regtool.exe; DROPIN_DIR (BUILD_DIR): the build whose lodctr and unlodctr
# become the prefix's (tests/wine/dropin.sh), build/windows for the PE's.
#
# Wine 8 serves Perflib\009 through a predefined handle: a fixed stub
# table that nothing can write. regtool --store live install leaves it
# alone and says so, and writes the languages Wine lets be written:
# CurrentLanguage and, here, French (00C), whose keys the test makes with
# the base tables first. The provider's INI is English and French
# (tests/wine/transfer-fr.ini, the objects of ini-samples/transfer.ini).
set -eu
build=$1
regtool=$2
dropin=${3:-$1}
case "$regtool" in
*.exe.so) who="wine provider" ;;
*) who="wine provider, native regtool.exe" ;;
esac
consumer="$build/mingw/perfconsumer.exe"
dll_dir="$WINEPREFIX/drive_c/regtool-perf"
svc='HKLM\SYSTEM\CurrentControlSet\Services\TransferPerf'
lang='HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Perflib\CurrentLanguage'
. tests/common.sh
FAIL_WHO="tests/wine: $who"
# Wine's reg.exe, its output and status; run again (up to three times)
# when Wine could not start it at all ("ShellExecuteEx failed"), which
# a fresh prefix's loader does now and then: no answer of reg's.
wine_reg() {
    for _try in 1 2 3; do
        _out=$("$WINE64" reg "$@" 2>&1) && { printf '%s\n' "$_out"; return 0; }
        _rc=$?
        case "$_out" in
        *'ShellExecuteEx failed'*) sleep 1 ;;
        *) break ;;
        esac
    done
    printf '%s\n' "$_out"
    return "$_rc"
}
reg() { wine_reg "$@" >/dev/null || fail "reg $*"; }
expect() {  # NAME OUTPUT PATTERN...: every pattern is a line of OUTPUT
    what=$1 out=$2
    shift 2
    for p in "$@"; do
        printf '%s\n' "$out" | tr -d '\r' | grep -qxF -- "$p" ||
            fail "$what: no line '$p' in:
$out"
    done
}

mkdir -p "$dll_dir"
cp "$build/mingw/transferperf.dll" "$dll_dir/"

# Base tables for CurrentLanguage (Wine's own, those 009 serves) and for
# French.
perflib='HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Perflib'
reg add "$lang" /v Counter /t REG_MULTI_SZ /d '1\01847\01846\0End Marker' /f
reg add "$lang" /v Help /t REG_MULTI_SZ /d '1847\0End Marker' /f
reg add "$perflib\\00C" /v Counter /t REG_MULTI_SZ /d '1\01847\01846\0Marqueur de fin' /f
reg add "$perflib\\00C" /v Help /t REG_MULTI_SZ /d '1847\0Marqueur de fin' /f
ini_dir=$(mktemp -d)
trap 'rm -rf "$ini_dir"' EXIT
cp tests/wine/transfer-fr.ini ini-samples/CounterOffsets.h "$ini_dir/"
install_args="--create-service --library C:\\regtool-perf\\transferperf.dll \
    --open OpenTransfer --collect CollectTransfer --close CloseTransfer"

# The plan install carries out (--dry-run reads, never writes).
# shellcheck disable=SC2086
out=$("$WINE64" "$regtool" --store live install --dry-run $install_args \
      "$ini_dir/transfer-fr.ini" 2>&1) || fail "live install --dry-run: $out"
case "$out" in
'would install TransferPerf: names 1848-1860, help 1849-1861'*) ;;
*) fail "live install --dry-run printed '$out'" ;;
esac

# shellcheck disable=SC2086
out=$("$WINE64" "$regtool" --store live install $install_args \
      "$ini_dir/transfer-fr.ini" 2>&1) || fail "live install: $out"
expect "live install" "$out" \
    'installed TransferPerf: names 1848-1860, help 1849-1861' \
    "  009              not written: served by the system as a fixed table of 2 pairs (Wine's stub), which nothing can change" \
    '  00C              7 names, text from 00C' \
    '  CurrentLanguage  7 names, text from 009'
# What an independent reader sees: Wine's reg.exe.
out=$(wine_reg query "$perflib\\00C" /v Counter 2>&1) || fail "reg query 00C: $out"
case "$out" in
*'Marqueur de fin\01848\0Transfert\01850\0Octets envoy'*'\01856\0Pair\0'*'\01860\0Pairs actifs'*) ;;
*) fail "reg query of 00C's Counter after install: $out" ;;
esac
out=$(wine_reg query "$svc\\Performance" /v 'Object List' 2>&1) || fail "reg query Object List: $out"
case "$out" in
*'REG_SZ'*'1848 1856'*) ;;
*) fail "Object List after install: $out" ;;
esac
printf "%s\n" "$who: live install wrote CurrentLanguage and 00C, left Wine's 009 stub alone and said so: ok"

# The same commit left the INF copy where Windows' lodctr /R finds it:
# C:\windows\INF\TransferPerf\0009\, the INI and its symbol file as given.
inf_file() {
    find "$WINEPREFIX/drive_c/windows" -ipath "*/inf/transferperf/0009/$1" 2>/dev/null
}
for f in transfer-fr.ini CounterOffsets.h; do
    copy=$(inf_file "$f")
    [ -n "$copy" ] || fail "no INF copy of $f after live install"
    cmp -s "$copy" "$ini_dir/$f" || fail "the INF copy of $f differs from the file installed"
done
printf '%s\n' "$who: live install copied the INI and symbol file to INF\\TransferPerf\\0009: ok"

# The other verbs on the live store: names, disable/enable (as reg.exe
# sees them), backup, then restore after damage.
out=$("$WINE64" "$regtool" --store live names --lang 00C 1848 1856 2>&1) || fail "live names: $out"
expect "live names" "$out" "$(printf '1848\tTransfert')" "$(printf '1856\tPair')"
"$WINE64" "$regtool" --store live disable TransferPerf >/dev/null 2>&1 || fail "live disable"
out=$(wine_reg query "$svc\\Performance" /v 'Disable Performance Counters' 2>&1) || fail "no Disable value after disable: $out"
case "$out" in *REG_DWORD*0x1*) ;; *) fail "after live disable: $out" ;; esac
"$WINE64" "$regtool" --store live enable TransferPerf >/dev/null 2>&1 || fail "live enable"
out=$(wine_reg query "$svc\\Performance" /v 'Disable Performance Counters' 2>&1) || :
case "$out" in *REG_DWORD*0x1*) fail "still disabled after live enable: $out" ;; esac
backup="$ini_dir/live-backup.ini"
out=$("$WINE64" "$regtool" --store live backup "$backup" 2>&1) || fail "live backup: $out"
reg add "$perflib\\00C" /v Counter /t REG_MULTI_SZ /d '1\01847\01846\0Marqueur de fin' /f
out=$("$WINE64" "$regtool" --store live restore "$backup" 2>&1) || fail "live restore: $out"
out=$(wine_reg query "$perflib\\00C" /v Counter 2>&1) || fail "reg query 00C: $out"
case "$out" in
*'\01848\0Transfert\0'*'\01860\0Pairs actifs'*) ;;
*) fail "00C's Counter after live restore: $out" ;;
esac
echo "$who: names, disable/enable, backup and restore on the live store: ok"

transfer_lines() {
    expect "$1" "$2" \
        'object 1848 "Transfer" help 1849 "Provides information related to transferring files."' \
        'counter 1850 "Bytes Sent" help 1851 "Number of bytes sent in the last transfer."' \
        'counter 1852 "Available Bytes" help 1853 "Number of bytes still to be sent in the current transfer; zero when no transfer is in progress."' \
        'counter 1854 "Bytes Sent/sec" help 1855 "Rate at which bytes are sent."' \
        '  Bytes Sent = 123456' '  Available Bytes = 4096' '  Bytes Sent/sec = 777'
}
for q in 1848 Global "1856 1848"; do
    out=$("$WINE64" "$consumer" CurrentLanguage Transfer "$q" 2>&1) ||
        fail "consumer Transfer '$q' failed: $out"
    transfer_lines "query $q" "$out"
    # The consumer's first 256 bytes are short: the provider said so.
    case "$out" in
    *'buffer grown 0 times'*) fail "query $q: ERROR_MORE_DATA never seen: $out" ;;
    esac
done
# The same objects through the French tables.
out=$("$WINE64" "$consumer" 00C Transfert 2>&1) || fail "consumer 00C Transfert failed: $out"
expect "00C Transfert" "$out" \
    'object 1848 "Transfert" help 1849 "Informations sur les transferts de fichiers."' \
    'counter 1850 "Octets envoyés" help 1851 "Nombre d'"'"'octets envoyés lors du dernier transfert."' \
    'counter 1854 "Octets envoyés/s" help 1855 "Débit d'"'"'envoi des octets."' \
    '  Octets envoyés = 123456' '  Octets restants = 4096' '  Octets envoyés/s = 777'
out=$("$WINE64" "$consumer" 00C Pair 2>&1) || fail "consumer 00C Pair failed: $out"
expect "00C Pair" "$out" \
    'object 1856 "Pair" help 1857 "Informations sur les pairs."' \
    'counter 1858 "Octets reçus/s" help 1859 "Débit auquel le pair accuse réception des octets."' \
    'instance "alpha":' '  Octets reçus/s = 1111' '  Pairs actifs = 1'
out=$("$WINE64" "$consumer" CurrentLanguage Peer 2>&1) ||
    fail "consumer Peer failed: $out"
expect "Peer" "$out" 'data block: 1 objects' \
    'object 1856 "Peer" help 1857 "Provides information about the peers."' \
    'counter 1860 "Active Peers" help 1861 "Number of peers with a transfer in progress."' \
    'instance "alpha":' '  Bytes Received/sec = 1111' '  Active Peers = 1' \
    'instance "beta":' '  Bytes Received/sec = 2222' '  Active Peers = 0'
# Costly asks for no object of this provider; 1856 alone only for Peer.
rc=0; out=$("$WINE64" "$consumer" CurrentLanguage Transfer Costly 2>&1) || rc=$?
[ "$rc" -eq 1 ] || fail "Costly: exit $rc: $out"
expect Costly "$out" 'object 1848: not in the data'
rc=0; out=$("$WINE64" "$consumer" CurrentLanguage Transfer 1856 2>&1) || rc=$?
[ "$rc" -eq 1 ] || fail "1856: exit $rc: $out"
expect "query 1856" "$out" 'data block: 1 objects' 'object 1848: not in the data'
echo "$who: Wine loads transferperf.dll, consumer reads Transfer and Peer: ok"

# audit --libraries on the live store looks the DLLs up in the machine's
# own files: transferperf.dll is found (outside the system directories,
# which is said), and once Library names a file that is not there, that
# is said instead.
findings() { "$WINE64" "$regtool" --store live audit --libraries --json 2>&1 || :; }
out=$(findings)
case "$out" in
*'"library-outside-system-dirs"'*'TransferPerf'*) ;;
*) fail "live audit --libraries: no library-outside-system-dirs for TransferPerf in: $out" ;;
esac
case "$out" in
*'library-not-found'*'TransferPerf'* | *'library-files-unchecked'*)
    fail "live audit --libraries did not find transferperf.dll: $out" ;;
esac
reg add "$svc\\Performance" /v Library /t REG_SZ /d 'C:\regtool-perf\absent.dll' /f
out=$(findings)
case "$out" in
*'"library-not-found"'*'absent.dll'*) ;;
*) fail "live audit --libraries: no library-not-found for absent.dll in: $out" ;;
esac
reg add "$svc\\Performance" /v Library /t REG_SZ /d 'C:\regtool-perf\transferperf.dll' /f
echo "$who: audit --libraries checks the live machine's files: ok"

# regtool verify reads the provider's data as a consumer does and checks
# it against the database: clean for the provider as built (009, Wine's
# stub, is said not to be checked); each broken build gives its finding.
verify() { "$WINE64" "$regtool" --store live verify --json TransferPerf 2>&1; }
out=$(verify) || fail "verify of the sample provider: $out"
case "$out" in
*'"summary":{"errors":0,"warnings":0,'*) ;;
*) fail "verify of the sample provider is not clean: $out" ;;
esac
case "$out" in
*'"verify-language-stub","severity":"info","language":"009"'*) ;;
*) fail "verify did not say 009 is Wine's stub: $out" ;;
esac
for fault in 1:verify-misaligned 2:verify-index-parity 3:verify-index-outside-range; do
    n=${fault%%:*} id=${fault#*:}
    cp "$build/mingw/transferperf-fault$n.dll" "$dll_dir/"
    reg add "$svc\\Performance" /v Library /t REG_SZ /d "C:\\regtool-perf\\transferperf-fault$n.dll" /f
    rc=0; out=$(verify) || rc=$?
    [ "$rc" -eq 1 ] || fail "verify of fault $n: exit $rc: $out"
    case "$out" in
    *"\"id\":\"$id\",\"severity\":\"error\""*) ;;
    *) fail "verify of fault $n: no error $id in: $out" ;;
    esac
done
reg add "$svc\\Performance" /v Library /t REG_SZ /d 'C:\regtool-perf\transferperf.dll' /f
echo "$who: verify is clean, and finds each broken provider's mistake: ok"

# A remote store (this machine, named as one): regtool reads no remote
# performance data, and verify fails saying so (exit 3), never a clean
# run with nothing checked.
# cmd_c LINE: LINE run by Wine's cmd, its output and messages together;
# its status. A launch Wine's cmd itself could not make ("Application
# could not be started", "ShellExecuteEx failed": seen once under a
# loaded machine, the program never run; regtool says neither) is made
# once more, the retry said on stderr.
cmd_c() {
    cc_rc=0
    cc_out=$("$WINE64" cmd /c "$1" 2>&1) || cc_rc=$?
    if [ "$cc_rc" -ne 0 ] && { [ -z "$cc_out" ] ||
        printf '%s\n' "$cc_out" | grep -q 'could not be started\|ShellExecuteEx failed'; }; then
        echo "tests/wine: cmd /c $1: Wine did not start it ($cc_out); run again" >&2
        cc_rc=0
        cc_out=$("$WINE64" cmd /c "$1" 2>&1) || cc_rc=$?
    fi
    printf '%s\n' "$cc_out"
    return "$cc_rc"
}
name=$("$WINE64" cmd /c echo %COMPUTERNAME% | tr -d '\r')
rc=0; out=$("$WINE64" "$regtool" --store "live:$name" verify TransferPerf 2>&1) || rc=$?
# (A run that fails without a word is one Wine did not start, as the
# sweeps' wine_run has it: once, under a loaded machine, exit 1 and no
# output. regtool always says why it fails.)
if [ "$rc" -ne 0 ] && [ -z "$out" ]; then
    echo "tests/wine: verify of a remote store exited $rc without a word (Wine did not start it); run again" >&2
    rc=0; out=$("$WINE64" "$regtool" --store "live:$name" verify TransferPerf 2>&1) || rc=$?
fi
[ "$rc" -eq 3 ] || fail "verify of a remote store: exit $rc: $out"
case "$out" in
*"performance data is read from this machine only"*) ;;
*) fail "verify of a remote store said: $out" ;;
esac
echo "$who: verify of a remote store fails, saying why: ok"

# regtool uninstall works on the live store: 009's stub holds none of
# the provider's names, so only CurrentLanguage and the service change.
out=$("$WINE64" "$regtool" --store live uninstall TransferPerf 2>&1) ||
    fail "live uninstall: $out"
case "$out" in
'uninstalled TransferPerf: names 1848-1860, help 1849-1861'*) ;;
*) fail "live uninstall printed '$out'" ;;
esac
rc=0; out=$("$WINE64" "$consumer" CurrentLanguage Transfer 2>&1) || rc=$?
[ "$rc" -eq 1 ] || fail "after removal: exit $rc: $out"
expect "after removal" "$out" '"Transfer": not in the Counter table of CurrentLanguage'
# Nor is the object in the data any more.
rc=0; out=$("$WINE64" "$consumer" CurrentLanguage 1848 Global 2>&1) || rc=$?
[ "$rc" -eq 1 ] || fail "after removal, Global: exit $rc: $out"
expect "after removal, Global" "$out" 'object 1848: not in the data'
rc=0; out=$(verify) || rc=$?
[ "$rc" -eq 1 ] || fail "verify after removal: exit $rc: $out"
case "$out" in
*'"verify-not-installed"'*) ;;
*) fail "verify after removal: no verify-not-installed in: $out" ;;
esac
echo "$who: after regtool uninstall the consumer no longer resolves Transfer, nor verify: ok"
[ -z "$(find "$WINEPREFIX/drive_c/windows" -ipath '*/inf/transferperf*' 2>/dev/null)" ] ||
    fail "the INF copy is left after live uninstall: $(find "$WINEPREFIX/drive_c/windows" -ipath '*/inf/transferperf*')"

out=$("$WINE64" "$consumer" 00C Transfert 2>&1) && fail "after removal, 00C still resolves Transfert: $out"
expect "after removal, 00C" "$out" '"Transfert": not in the Counter table of 00C'
out=$(wine_reg query "$perflib\\00C" /v Counter 2>&1) || fail "reg query 00C: $out"
case "$out" in
*'1848'*) fail "00C keeps the provider's names after uninstall: $out" ;;
esac

# The same through lodctr.exe and unlodctr.exe, as a program that shells
# out to them runs them (cmd /c): tests/wine/dropin.sh made regtool the
# prefix's lodctr and unlodctr. lodctr registers what the service's key
# already says (an installer writes Library, Open, Collect, Close first).
sh tests/wine/dropin.sh "$dropin"
cp "$ini_dir/transfer-fr.ini" "$ini_dir/CounterOffsets.h" "$dll_dir/"
reg add "$svc\\Performance" /v Library /t REG_SZ /d 'C:\regtool-perf\transferperf.dll' /f
reg add "$svc\\Performance" /v Open /t REG_SZ /d OpenTransfer /f
reg add "$svc\\Performance" /v Collect /t REG_SZ /d CollectTransfer /f
reg add "$svc\\Performance" /v Close /t REG_SZ /d CloseTransfer /f
out=$(cmd_c 'lodctr C:\regtool-perf\transfer-fr.ini') ||
    fail "cmd /c lodctr: $out"
expect "lodctr.exe" "$out" \
    'lodctr: installed TransferPerf: names 1848-1860, help 1849-1861' \
    "lodctr: 009 not written: served by the system as a fixed table of 2 pairs (Wine's stub), which nothing can change"
out=$("$WINE64" "$consumer" 00C Transfert 2>&1) || fail "after lodctr.exe, 00C Transfert: $out"
expect "after lodctr.exe, 00C" "$out" \
    'object 1848 "Transfert" help 1849 "Informations sur les transferts de fichiers."' \
    '  Octets envoyés = 123456'
out=$("$WINE64" "$consumer" CurrentLanguage Transfer 2>&1) || fail "after lodctr.exe, Transfer: $out"
transfer_lines "after lodctr.exe" "$out"
# lodctr /S: a backup in Windows' format, where the program asked.
out=$(cmd_c 'lodctr /S:C:\regtool-perf\perfstrings.ini') ||
    fail "cmd /c lodctr /S: $out"
psb="$dll_dir/perfstrings.ini"
[ -s "$psb" ] || fail "lodctr /S wrote no $psb: $out"
iconv -f UTF-16LE -t UTF-8 "$psb" | tr -d '\r' | grep -qx '\[PERF_TransferPerf\]' ||
    fail "lodctr /S: no [PERF_TransferPerf] section in $psb"
out=$(cmd_c 'unlodctr TransferPerf') || fail "cmd /c unlodctr: $out"
expect "unlodctr.exe" "$out" 'unlodctr: removed TransferPerf: names 1848-1860, help 1849-1861'
rc=0; out=$("$WINE64" "$consumer" 00C Transfert 2>&1) || rc=$?
[ "$rc" -eq 1 ] || fail "after unlodctr.exe: exit $rc: $out"
expect "after unlodctr.exe" "$out" '"Transfert": not in the Counter table of 00C'
echo "$who: lodctr.exe and unlodctr.exe run by cmd are regtool's: install, /S and removal in English and French: ok"

# Leave the prefix as run.sh found it for the tests that follow.
reg delete "$svc" /f
reg delete "$lang" /f
reg delete "$perflib\\00C" /f
