#!/bin/sh
# make fresh-check: the README's two set-up commands, run as a new user
# would run them, on a minimal Debian 12 that has nothing but `make`.
#
#   sh tools/fresh-check.sh [SHARED_DIR]      (SHARED_DIR: ../shared)
#
# 1. A minimal bookworm root made with `debootstrap --variant=minbase`,
#    cached in build/fresh/base (kept until `make clean`; a root that did
#    not finish building is never used).
# 2. A copy of that root in build/fresh/root, with /proc, /sys and /dev
#    mounted, holding a clean clone of this repository's HEAD at
#    /src/main and a copy of SHARED_DIR at /src/shared.
# 3. Inside it: `apt-get install make`, then `make demo`, then `make check`,
#    each timed, with the number of Debian packages each one installed.
#
# Needs root (debootstrap, chroot, mount) and Debian's package servers,
# as `make deps` does. Without either it says so and exits 1.
# FRESH_MIRROR overrides the mirror (default: the one apt uses here).
# SHARED_DIR may be a symbolic link: its target is copied.
# FRESH_TARGETS replaces `check` in step 3 (e.g. "deps wine-check" to
# look into one stage on the fresh root); make fresh-check never sets it.
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
shared=$(cd "${1:-$repo/../shared}" 2>/dev/null && pwd -P) || {
    echo "fresh-check: no shared directory at ${1:-$repo/../shared}" >&2
    exit 1
}
work=$repo/build/fresh
base=$work/base
root=$work/root

fail() { echo "fresh-check: $*" >&2; exit 1; }
now() { date +%s; }
phase_start=0
phase() { phase_start=$(now); printf '\n== fresh-check: %s\n' "$*"; }
phase_done() { echo "== fresh-check: $1 took $(( $(now) - phase_start )) s"; }

[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, chroot and mount); run it as root or with sudo"
command -v git >/dev/null 2>&1 || fail "needs git to make a clean clone"
git -C "$repo" rev-parse --verify -q HEAD >/dev/null ||
    fail "$repo is not a git checkout with a commit"

# The mirror apt uses on this machine, so the fresh root reaches the same
# servers; deb.debian.org where none is configured.
mirror=${FRESH_MIRROR:-}
if [ -z "$mirror" ]; then
    mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
                 /etc/apt/sources.list.d/*.sources 2>/dev/null |
             sed -n 's|^URIs: *\(https\{0,1\}://[^ ]*/debian\)/*$|\1|p;
                     s|^deb  *\(https\{0,1\}://[^ ]*/debian\)/* .*bookworm .*|\1|p' |
             head -n 1)
    mirror=${mirror:-http://deb.debian.org/debian}
fi

if ! command -v debootstrap >/dev/null 2>&1; then
    phase "installing debootstrap on this machine"
    DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null ||
        fail "apt-get update failed: Debian's package servers cannot be reached"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        debootstrap >/dev/null || fail "cannot install debootstrap"
fi

unmount_root() {
    for m in dev/shm dev/pts dev sys proc; do
        if mountpoint -q "$root/$m" 2>/dev/null; then
            umount -l "$root/$m" 2>/dev/null || true
        fi
    done
}
trap unmount_root EXIT INT TERM

mkdir -p "$work"
if [ ! -f "$base/.regtool-base-complete" ]; then
    phase "debootstrap --variant=minbase bookworm from $mirror (cached in $base)"
    rm -rf --one-file-system "$base"
    if ! debootstrap --variant=minbase bookworm "$base" "$mirror" \
            >"$work/debootstrap.log" 2>&1; then
        tail -n 20 "$work/debootstrap.log" >&2
        fail "debootstrap failed (log: $work/debootstrap.log): root and Debian's package servers are needed"
    fi
    # Only the minimal system's own state is cached: no package lists.
    rm -rf "$base"/var/lib/apt/lists/* "$base"/var/cache/apt/archives/*.deb
    touch "$base/.regtool-base-complete"
    phase_done "debootstrap"
else
    echo "fresh-check: using the cached minimal root in $base"
fi

phase "a fresh copy of the minimal root, a clean clone and ../shared"
unmount_root
# --one-file-system: a mount left in the root (by a run killed before its
# trap) must not take the host's /dev with it.
rm -rf --one-file-system "$root"
cp -a "$base" "$root"
mkdir -p "$root/src"
git clone -q --no-hardlinks "$repo" "$root/src/main"
cp -a "$shared" "$root/src/shared"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
mount -t tmpfs shm "$root/dev/shm"
phase_done "copy"

# Everything below runs inside the fresh root with a clean environment,
# as root (make deps needs root or sudo), as a new user would type it.
in_root() {
    chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        DEBIAN_FRONTEND=noninteractive /bin/sh -c "$1"
}
count_packages() {
    in_root "dpkg-query -W -f='\${db:Status-Status}\n' | grep -c '^installed$'"
}

phase "apt-get install make (the one thing the README asks for first)"
in_root "apt-get update -q >/dev/null && apt-get install -y -q make >/dev/null" ||
    fail "apt-get install make failed inside the fresh root: Debian's package servers cannot be reached"
phase_done "installing make"
n0=$(count_packages)

phase "make demo"
in_root "cd /src/main && make demo" || fail "make demo failed on a fresh Debian 12"
phase_done "make demo"
n1=$(count_packages)

targets=${FRESH_TARGETS:-check}
phase "make $targets"
in_root "cd /src/main && make $targets" || fail "make $targets failed on a fresh Debian 12"
phase_done "make $targets"
n2=$(count_packages)

echo
echo "fresh-check: passed on a minimal Debian 12 ($n0 packages with make)"
echo "fresh-check: make demo installed $((n1 - n0)) packages, make check $((n2 - n1)) more"
unmount_root
rm -rf --one-file-system "$root"
