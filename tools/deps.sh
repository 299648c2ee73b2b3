#!/bin/sh
# Installs the Debian packages regtool needs, only those missing.
#   sh tools/deps.sh demo    what `make demo` needs: a C compiler, make, inih
#   sh tools/deps.sh         what `make check` needs as well
#   sh tools/deps.sh bench   what `make bench` needs: the demo's, libhivex
#                            (the peer) and hivexregedit
#   sh tools/deps.sh coverage  what `make coverage` needs: what the unit
#                            and CLI suites need (no Wine, MinGW or clang)
#                            and gcovr
# apt-get update runs once, and only when something has to be installed.
# The lists are what a minimal Debian 12 (debootstrap --variant=minbase)
# lacks; `make fresh-check` proves them there.
set -eu

# gcc + libc6-dev: gcc alone (without recommends) has no C library headers.
DEMO="gcc libc6-dev make libinih-dev"
# cmocka: unit tests. hivex (hivexsh, hivexml; hivexregedit from
# libwin-hivex-perl), libregf-utils (regfexport),
# reglookup: the independent readers that judge what regtool writes.
# valgrind, jq, xz-utils, time (/usr/bin/time: peak RSS in
# tests/cli/hostile_inputs.sh): test tools; groff-base checks the man page. wine, wine64, wine64-tools,
# libwine-dev: winegcc builds the Winelib test programs and wine64 runs
# them (make wine-check); winegcc drives g++ even for C.
# gcc-mingw-w64-x86-64: native Windows builds.
# clang, libclang-rt-14-dev: the fuzz harnesses (make fuzz, tests/fuzz/);
# libFuzzer's runtime (libclang_rt.fuzzer-x86_64.a) and ASan's are in
# libclang-rt-14-dev, which clang only recommends.
# zip: make windows-dist's release zip, which the windows stage makes and
# checks (tests/windows_dist.sh).
# gcc-mingw-w64-i686, nsis: the NSIS plugin (32-bit, as Debian's
# makensis builds x86-unicode installers) and its example installer.
# wine32:i386, which would run that installer in a 64-bit prefix, is not
# installed: Debian's i386 and amd64 libraries must be of one version,
# which they are not while a mirror has one architecture's security
# updates and not yet the other's (apt then removes wine64 for wine32);
# tests/nsis/run.sh runs the 32-bit installer where 32-bit Wine is
# installed and says that it skipped it where not.
# prometheus: its promtool checks regtool audit --format prometheus's
# output and contrib/prometheus's rules (tests/cli/prometheus.sh).
# strace: interrupts a save at its fsync (tests/cli/interrupt_saving.sh)
# and watches what a walk opens (audit_libraries_volume_root.sh).
CHECK="$DEMO pkg-config xz-utils time libcmocka-dev libhivex-dev libhivex-bin \
libwin-hivex-perl libregf-utils reglookup valgrind jq groff-base g++ wine \
wine64 wine64-tools libwine-dev gcc-mingw-w64-x86-64 clang libclang-rt-14-dev prometheus \
zip gcc-mingw-w64-i686 nsis strace"

# make bench: libhivex-dev for bench/hivexpeer.c, libwin-hivex-perl for
# hivexregedit.
BENCH="$DEMO libhivex-dev libwin-hivex-perl"

# make coverage: the unit and CLI suites' tools as in CHECK, and gcovr,
# which reads the gcov counters and writes the report (gcov comes with
# gcc).
COVERAGE="$DEMO pkg-config xz-utils time libcmocka-dev libhivex-dev \
libhivex-bin libwin-hivex-perl libregf-utils reglookup jq groff-base gcovr \
prometheus strace"

case "${1:-check}" in
demo) PACKAGES=$DEMO ;;
check) PACKAGES=$CHECK ;;
bench) PACKAGES=$BENCH ;;
coverage) PACKAGES=$COVERAGE ;;
*) echo "usage: tools/deps.sh [demo|check|bench|coverage]" >&2; exit 2 ;;
esac

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

echo "deps: installing$missing"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
        echo "deps: missing packages:$missing; run as root or install them" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
