#!/bin/sh
# Installs the Debian packages regtool needs, only those missing.
# apt-get update runs once, and only when something has to be installed.
set -eu

# wine, wine64, wine64-tools, libwine-dev: winegcc builds the Winelib test
# programs, wine64 runs them (make wine-check); the wine package sets up
# the winegcc command. gcc-mingw-w64-x86-64: native Windows builds.
PACKAGES="gcc make pkg-config xz-utils libinih-dev libcmocka-dev libhivex-dev \
libhivex-bin libregf-utils reglookup valgrind jq wine wine64 wine64-tools \
libwine-dev gcc-mingw-w64-x86-64"

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
