#!/bin/sh
# Builds cmocka as a static mingw-w64 library for the Windows build of the
# unit tests:
#   sh tools/mingw-cmocka.sh OUTDIR     (the Makefile: build/windows/cmocka)
# gives OUTDIR/lib/libcmocka.a and OUTDIR/include/cmocka.h, which the tests
# cross-compiled with x86_64-w64-mingw32-gcc link against (run under wine64).
#
# Why: Debian ships cmocka only for its own architectures (libcmocka-dev);
# there is no mingw build of it. So this script builds one from Debian's own
# source package of cmocka (bookworm: 1.1.5-2.1), unmodified: it fetches it
# with apt-get source, which checks each file's checksum against the
# archive's signed Sources index, checks the upstream tarball once more
# against the .dsc, and compiles the tarball's src/cmocka.c, the library's
# only source file. Debian's patches to cmocka touch only its documentation;
# the script stops if a later Debian revision patches the code.
#
# cmocka normally gets its config.h from CMake's ConfigureChecks.cmake; it is
# written here instead (see write_config_h) from what those checks find with
# Debian 12's x86_64-w64-mingw32-gcc (12-win32), without running CMake.
#
# Nothing outside OUTDIR is touched: apt runs with a private sources list,
# lists and cache under OUTDIR/src/apt (the system's apt configuration is
# only read, for a proxy if there is one). Needs network access to a Debian
# mirror on the first run only; after that, OUTDIR is the cache and the
# script exits at once.
#
# Environment:
#   CMOCKA_DEBIAN_MIRROR  Debian mirror to fetch from (default: the one in
#                         this machine's apt sources, else deb.debian.org)
#   CMOCKA_DEBIAN_SUITE   suite to take cmocka from (default: bookworm)
#   MINGW_CC, MINGW_AR    cross tools (default: x86_64-w64-mingw32-gcc, -ar)
set -eu

me=mingw-cmocka
die() {
    printf '%s: %s\n' "$me" "$1" >&2
    if [ $# -gt 1 ] && [ -s "$2" ]; then
        printf '%s: last lines of %s:\n' "$me" "$2" >&2
        tail -n 25 "$2" | sed 's/^/    /' >&2
    fi
    exit 1
}

if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: sh tools/mingw-cmocka.sh OUTDIR" >&2
    exit 2
fi

# 1. Cached: nothing to do once both outputs are there.
if [ -f "$1/lib/libcmocka.a" ] && [ -f "$1/include/cmocka.h" ]; then
    exit 0
fi

CC=${MINGW_CC:-x86_64-w64-mingw32-gcc}
AR=${MINGW_AR:-x86_64-w64-mingw32-ar}
SUITE=${CMOCKA_DEBIAN_SUITE:-bookworm}

# The machine's Debian mirror: the first non-security URI of its deb822
# sources, else of a one-line sources.list, else deb.debian.org.
default_mirror() {
    m=""
    if [ -r /etc/apt/sources.list.d/debian.sources ]; then
        m=$(awk '$1 == "URIs:" { for (i = 2; i <= NF; i++)
                     if ($i !~ /security/) { print $i; exit } }' \
            /etc/apt/sources.list.d/debian.sources)
    fi
    if [ -z "$m" ] && [ -r /etc/apt/sources.list ]; then
        m=$(awk '$1 == "deb" { sub(/^deb +(\[[^]]*\] +)?/, "");
                 if ($1 !~ /security/) { print $1; exit } }' \
            /etc/apt/sources.list)
    fi
    echo "${m:-http://deb.debian.org/debian}"
}
MIRROR=${CMOCKA_DEBIAN_MIRROR:-$(default_mirror)}
MIRROR=${MIRROR%/}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

for tool in "$CC" "$AR"; do
    command -v "$tool" >/dev/null 2>&1 ||
        die "$tool not found; install gcc-mingw-w64-x86-64 (sh tools/deps.sh)"
done
for tool in apt-get tar xz sha256sum; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool not found"
done
[ -r "$KEYRING" ] || die "$KEYRING missing; install debian-archive-keyring"

ARG=$1
mkdir -p "$ARG" || die "cannot create $ARG"
OUT=$(cd "$ARG" && pwd) # apt wants absolute paths
SRC=$OUT/src
APTDIR=$SRC/apt
LOG=$SRC/log
rm -rf "$SRC/download"
mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" \
         "$APTDIR/etc" "$SRC/download"
: >"$LOG"

# 2. Fetch Debian's source package with a private apt state.
printf 'deb-src [signed-by=%s] %s %s main\n' "$KEYRING" "$MIRROR" "$SUITE" \
    >"$APTDIR/etc/sources.list"
apt_private() {
    apt-get -q \
        -o Dir::Etc::SourceList="$APTDIR/etc/sources.list" \
        -o Dir::Etc::SourceParts=/nonexistent \
        -o Dir::State::Lists="$APTDIR/lists" \
        -o Dir::Cache="$APTDIR/cache" \
        -o APT::Update::Error-Mode=any \
        "$@"
}
fetch_fail="cannot fetch Debian's cmocka source ($SUITE, from $MIRROR):\
 needs Debian's package servers (CMOCKA_DEBIAN_MIRROR picks another mirror)"
apt_private update >>"$LOG" 2>&1 || die "$fetch_fail" "$LOG"
# apt-get source, --download-only too, checks every file it downloads
# against the size and hashes in the signed Sources index, and fails ("Hash
# Sum mismatch") on any difference.
if ! (cd "$SRC/download" && apt_private source --download-only cmocka) \
    >>"$LOG" 2>&1; then
    if grep -q 'Hash Sum mismatch' "$LOG"; then
        die "Debian's cmocka source from $MIRROR failed apt's checksum\
 check against the signed Sources index (Hash Sum mismatch); not used" "$LOG"
    fi
    die "$fetch_fail" "$LOG"
fi

# The one file of each kind (download/ starts empty on every run).
only() {
    n=""
    for f in "$SRC/download"/$1; do
        if [ -f "$f" ]; then
            [ -z "$n" ] || die "more than one $1 from apt-get source" "$LOG"
            n=$f
        fi
    done
    [ -n "$n" ] || die "apt-get source gave no $1" "$LOG"
    echo "$n"
}
DSC=$(only 'cmocka_*.dsc')
ORIG=$(only 'cmocka_*.orig.tar.[gx]z')
DEBTAR=$(only 'cmocka_*.debian.tar.[gx]z')
VERSION=$(sed -n 's/^Version: *//p' "$DSC")

# Belt and braces: the .dsc apt just verified lists the tarballs' SHA-256.
check_sha256() {
    want=$(awk -v f="${1##*/}" '
        /^Checksums-Sha256:/ { s = 1; next }
        s && /^[^ ]/ { s = 0 }
        s && $3 == f { print $1 }' "$DSC")
    got=$(sha256sum "$1" | cut -d' ' -f1)
    if [ -z "$want" ] || [ "$want" != "$got" ]; then
        die "${1##*/} does not match the SHA-256 in ${DSC##*/}"
    fi
}
check_sha256 "$ORIG"
check_sha256 "$DEBTAR"

# Unpack the upstream tarball, and Debian's packaging to read its patches.
rm -rf "$SRC/tree" "$SRC/debian" "$SRC/build"
mkdir -p "$SRC/tree" "$SRC/debian" "$SRC/build"
tar -xf "$ORIG" -C "$SRC/tree" >>"$LOG" 2>&1 ||
    die "cannot unpack ${ORIG##*/}" "$LOG"
tar -xf "$DEBTAR" -C "$SRC/debian" >>"$LOG" 2>&1 ||
    die "cannot unpack ${DEBTAR##*/}" "$LOG"
set -- "$SRC"/tree/cmocka-*/src/cmocka.c
if [ $# -ne 1 ] || [ ! -f "$1" ]; then
    die "no cmocka-*/src/cmocka.c in ${ORIG##*/}"
fi
TREE=${1%/src/cmocka.c}

# Debian builds libcmocka from the upstream code plus debian/patches; this
# script builds the upstream code alone, which is the same only while no
# patch touches the library's code.
PATCHES=$SRC/debian/debian/patches
if [ -f "$PATCHES/series" ]; then
    # shellcheck disable=SC2013 # patch names have no blanks
    for p in $(sed 's/#.*//' "$PATCHES/series"); do
        if grep -Eq '^\+\+\+ ([^/ ]+/)?(src|include)/' "$PATCHES/$p"; then
            die "Debian's cmocka $VERSION patches the library's code\
 (debian/patches/$p); this script builds the upstream code unpatched"
        fi
    done
fi

# 3. config.h as cmocka's ConfigureChecks.cmake would write it for
# mingw-w64 (x86_64-w64-mingw32-gcc 12-win32, Debian 12). Left undefined,
# because the checks fail there: HAVE_DLFCN_H (no <dlfcn.h>),
# HAVE_SIGLONGJMP, HAVE_STRSIGNAL (not in mingw-w64's CRT: cmocka uses
# setjmp/longjmp and, on _WIN32, an exception filter instead of signals),
# HAVE_CLOCK_GETTIME and so HAVE_CLOCK_REALTIME (clock_gettime is in
# libwinpthread, not linked by default: cmocka then reports 0 s run times);
# WORDS_BIGENDIAN and WORDS_SIZEOF_VOID_P (not checked on WIN32).
# HAVE_MSVC_THREAD_LOCAL_STORAGE is defined as CMake would (gcc only warns
# about __declspec(thread)), but cmocka prefers HAVE_GCC_THREAD_LOCAL_STORAGE.
# The HAVE__*SNPRINTF* ones matter only to MSVC (cmocka_private.h).
write_config_h() {
    cat <<EOF
/* cmocka $VERSION config.h for mingw-w64, written by tools/mingw-cmocka.sh */
#define PACKAGE "cmocka"
#define VERSION "${VERSION%%-*}"

#define HAVE_ASSERT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_IO_H 1
#define HAVE_MALLOC_H 1
#define HAVE_MEMORY_H 1
#define HAVE_SETJMP_H 1
#define HAVE_SIGNAL_H 1
#define HAVE_STDARG_H 1
#define HAVE_STDDEF_H 1
#define HAVE_STDINT_H 1
#define HAVE_STDIO_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRINGS_H 1
#define HAVE_STRING_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_TIME_H 1
#define HAVE_UNISTD_H 1

#define HAVE_STRUCT_TIMESPEC 1

#define HAVE_CALLOC 1
#define HAVE_EXIT 1
#define HAVE_FPRINTF 1
#define HAVE_SNPRINTF 1
#define HAVE__SNPRINTF 1
#define HAVE__SNPRINTF_S 1
#define HAVE_VSNPRINTF 1
#define HAVE__VSNPRINTF 1
#define HAVE__VSNPRINTF_S 1
#define HAVE_FREE 1
#define HAVE_LONGJMP 1
#define HAVE_MALLOC 1
#define HAVE_MEMCPY 1
#define HAVE_MEMSET 1
#define HAVE_PRINTF 1
#define HAVE_SETJMP 1
#define HAVE_SIGNAL 1
#define HAVE_STRCMP 1

#define HAVE_GCC_THREAD_LOCAL_STORAGE 1
#define HAVE_MSVC_THREAD_LOCAL_STORAGE 1
EOF
}
write_config_h >"$SRC/build/config.h"

# Third-party code: cmocka's own C dialect (gnu99) and no warnings beyond
# gcc's defaults (there are none), but a missing declaration, the sign of a
# wrong config.h, is an error. __USE_MINGW_ANSI_STDIO: cmocka formats with
# %zu (leak reports), which msvcrt's vsnprintf lacks; mingw-w64's own has it,
# and %I64u, which cmocka.h uses on _WIN32, as well.
"$CC" -std=gnu99 -O2 -D__USE_MINGW_ANSI_STDIO=1 \
    -Werror=implicit-function-declaration -DHAVE_CONFIG_H \
    -I"$SRC/build" -I"$TREE/include" \
    -c "$TREE/src/cmocka.c" -o "$SRC/build/cmocka.o" >>"$LOG" 2>&1 ||
    die "$CC failed to compile cmocka's src/cmocka.c" "$LOG"
rm -f "$SRC/build/libcmocka.a"
"$AR" rcs "$SRC/build/libcmocka.a" "$SRC/build/cmocka.o" >>"$LOG" 2>&1 ||
    die "$AR failed to archive libcmocka.a" "$LOG"

# Install: the headers first, the library last (and atomically), so that an
# interrupted run is never taken for a finished one.
mkdir -p "$OUT/include" "$OUT/lib"
for h in cmocka.h cmocka_pbc.h cmocka_platform.h; do
    if [ -f "$TREE/include/$h" ]; then
        cp "$TREE/include/$h" "$OUT/include/$h" ||
            die "cannot copy $h to $OUT/include"
    fi
done
if ! cp "$SRC/build/libcmocka.a" "$OUT/lib/libcmocka.a.tmp" ||
   ! mv -f "$OUT/lib/libcmocka.a.tmp" "$OUT/lib/libcmocka.a"; then
    die "cannot install libcmocka.a in $OUT/lib"
fi
echo "$me: built cmocka $VERSION (Debian source package) for mingw-w64 in $ARG"
