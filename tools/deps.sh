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
# makensis builds x86-unicode installers) and its example installer;
# wine32:i386 (CHECK_FOREIGN) runs that installer in a 64-bit prefix
# (tests/nsis/run.sh).
# prometheus: its promtool checks regtool audit --format prometheus's
# output and contrib/prometheus's rules (tests/cli/prometheus.sh).
CHECK="$DEMO pkg-config xz-utils time libcmocka-dev libhivex-dev libhivex-bin \
libwin-hivex-perl libregf-utils reglookup valgrind jq groff-base g++ wine \
wine64 wine64-tools libwine-dev gcc-mingw-w64-x86-64 clang libclang-rt-14-dev prometheus \
zip gcc-mingw-w64-i686 nsis"
# Packages of another architecture, installed after CHECK and only where
# apt can without removing anything: Debian's i386 and amd64 libraries must
# be of one version (Multi-Arch: same), which they are not while a mirror
# has the one architecture's security updates and not yet the other's;
# then apt would remove wine64 to install wine32. Without them
# tests/nsis/run.sh says what it skipped.
CHECK_FOREIGN="wine32:i386"

# make bench: libhivex-dev for bench/hivexpeer.c, libwin-hivex-perl for
# hivexregedit.
BENCH="$DEMO libhivex-dev libwin-hivex-perl"

# make coverage: the unit and CLI suites' tools as in CHECK, and gcovr,
# which reads the gcov counters and writes the report (gcov comes with
# gcc).
COVERAGE="$DEMO pkg-config xz-utils time libcmocka-dev libhivex-dev \
libhivex-bin libwin-hivex-perl libregf-utils reglookup jq groff-base gcovr \
prometheus"

FOREIGN=""
case "${1:-check}" in
demo) PACKAGES=$DEMO ;;
check) PACKAGES=$CHECK FOREIGN=$CHECK_FOREIGN ;;
bench) PACKAGES=$BENCH ;;
coverage) PACKAGES=$COVERAGE ;;
*) echo "usage: tools/deps.sh [demo|check|bench|coverage]" >&2; exit 2 ;;
esac

installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}
missing="" foreign=""
for p in $PACKAGES; do
    installed "$p" || missing="$missing $p"
done
for p in $FOREIGN; do
    installed "$p" || foreign="$foreign $p"
done
[ -z "$missing$foreign" ] && exit 0

echo "deps: installing$missing$foreign"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
        echo "deps: missing packages:$missing$foreign; run as root or install them" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
# A package of another architecture needs it in dpkg's list before
# apt-get update fetches that architecture's index; one added here is
# taken out again if its packages cannot be installed, so that no later
# update fails on its index.
added=""
for p in $foreign; do
    arch=${p#*:}
    if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
        $SUDO dpkg --add-architecture "$arch"
        added="$added $arch"
    fi
done
# An index that cannot be fetched (a mirror being synced) fails the update
# but leaves the others: the installs below say whether they suffice.
$SUDO apt-get update -q || echo "deps: apt-get update failed in part" >&2
if [ -n "$missing" ]; then
    # shellcheck disable=SC2086
    $SUDO apt-get install -y -q --no-install-recommends $missing
fi
# shellcheck disable=SC2086
if [ -n "$foreign" ] &&
    ! $SUDO apt-get install -y -q --no-install-recommends --no-remove $foreign; then
    echo "deps: cannot install$foreign without removing packages; the tests that need them say what they skip" >&2
    for arch in $added; do
        $SUDO dpkg --remove-architecture "$arch" || true
    done
fi
