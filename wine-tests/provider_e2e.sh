#!/bin/sh
# The sample provider (ini-samples/provider/transferperf.dll) under Wine,
# read by wine-tests/perfconsumer.exe through HKEY_PERFORMANCE_DATA, in
# the prefix that wine-tests/run.sh made (WINE64, WINEPREFIX exported).
# Usage: wine-tests/provider_e2e.sh BUILD_DIR REGTOOL_EXE_SO
#
# regtool --store live install refuses on Wine 8: Perflib\009 is a
# predefined-handle key there that serves a fixed stub table and cannot be
# written, and install writes every language of the machine. That refusal
# is asserted; the provider's registration (the service's Performance key,
# and its names in Perflib\CurrentLanguage, a language Wine lets be
# written) is then made with reg.exe, as install would make it, so that
# Wine's loading of the Library, the provider and the consumer are tested.
# regtool --store live uninstall then removes it (009 holds none of its
# names, so nothing is asked of it there).
set -eu
build=$1
regtool=$2
consumer="$build/mingw/perfconsumer.exe"
dll_dir="$WINEPREFIX/drive_c/regtool-perf"
svc='HKLM\SYSTEM\CurrentControlSet\Services\TransferPerf'
lang='HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Perflib\CurrentLanguage'
fail() { echo "wine-tests: provider: $*" >&2; exit 1; }
reg() { "$WINE64" reg "$@" >/dev/null 2>&1 || fail "reg $*"; }
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

# Base tables for CurrentLanguage: Wine's own (those 009 serves).
reg add "$lang" /v Counter /t REG_MULTI_SZ /d '1\01847\01846\0End Marker' /f
reg add "$lang" /v Help /t REG_MULTI_SZ /d '1847\0End Marker' /f

set +e
out=$("$WINE64" "$regtool" --store live install --create-service \
      --library 'C:\regtool-perf\transferperf.dll' --open OpenTransfer \
      --collect CollectTransfer --close CloseTransfer ini-samples/transfer.ini 2>&1)
rc=$?
set -e
[ "$rc" -eq 3 ] || fail "live install exited $rc: $out"
case "$out" in
*'tables of language 009 are served by the system'*'nothing was written') ;;
*) fail "live install printed '$out'" ;;
esac
printf "%s\n" "wine provider: live install refused (Perflib\\009 is Wine's stub): ok"

# The plan install would carry out (--dry-run reads, never writes):
# the registration below follows it.
out=$("$WINE64" "$regtool" --store live install --dry-run --create-service \
      --library 'C:\regtool-perf\transferperf.dll' --open OpenTransfer \
      --collect CollectTransfer --close CloseTransfer ini-samples/transfer.ini 2>&1) ||
    fail "live install --dry-run: $out"
case "$out" in
'would install TransferPerf: names 1848-1860, help 1849-1861'*) ;;
*) fail "live install --dry-run printed '$out'" ;;
esac

# What install would write, in CurrentLanguage only (the help of Bytes
# Sent/sec and Peer shortened: reg.exe's /d takes no backslashes).
reg add "$svc\\Performance" /v Library /t REG_SZ /d 'C:\regtool-perf\transferperf.dll' /f
reg add "$svc\\Performance" /v Open /t REG_SZ /d OpenTransfer /f
reg add "$svc\\Performance" /v Collect /t REG_SZ /d CollectTransfer /f
reg add "$svc\\Performance" /v Close /t REG_SZ /d CloseTransfer /f
reg add "$svc\\Performance" /v 'First Counter' /t REG_DWORD /d 1848 /f
reg add "$svc\\Performance" /v 'First Help' /t REG_DWORD /d 1849 /f
reg add "$svc\\Performance" /v 'Last Counter' /t REG_DWORD /d 1860 /f
reg add "$svc\\Performance" /v 'Last Help' /t REG_DWORD /d 1861 /f
reg add "$svc\\Performance" /v 'Object List' /t REG_SZ /d '1848 1856' /f
reg add "$lang" /v Counter /t REG_MULTI_SZ /f /d '1\01847\01846\0End Marker\01848\0Transfer\01850\0Bytes Sent\01852\0Available Bytes\01854\0Bytes Sent/sec\01856\0Peer\01858\0Bytes Received/sec\01860\0Active Peers'
reg add "$lang" /v Help /t REG_MULTI_SZ /f /d '1847\0End Marker\01849\0Provides information related to transferring files.\01851\0Number of bytes sent in the last transfer.\01853\0Number of bytes still to be sent in the current transfer; zero when no transfer is in progress.\01855\0Rate at which bytes are sent.\01857\0Provides information about the peers.\01859\0Rate at which the peer acknowledges received bytes.\01861\0Number of peers with a transfer in progress.'

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
echo "wine provider: Wine loads transferperf.dll, consumer reads Transfer and Peer: ok"

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
echo "wine provider: after regtool uninstall the consumer no longer resolves Transfer: ok"

# Leave the prefix as run.sh found it for the tests that follow.
reg delete "$svc" /f
reg delete "$lang" /f
