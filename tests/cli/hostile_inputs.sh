#!/bin/sh
# Hostile inputs: each gets a clear refusal (the exit status docs/reference.md
# documents and a message saying what and where), in bounded memory (peak
# RSS from /usr/bin/time, package `time`), with the store and the inputs
# byte-identical afterwards (nothing written, created or removed).
#
# Bounds asserted (peak RSS; not asserted under AddressSanitizer, whose
# shadow memory and quarantine are no measure of regtool's own):
#   small inputs (drivernames, symbol files, ranges)       64 MB
#   10^6 symbols (a 50 MB INI, a 23 MB symbol file)       64 MB: the INI
#       is over the reader's 16 MiB and refused by its size, before it
#       is read (under the limits, check-ini holds about 6 bytes per
#       byte of INI and symbol file, 190 MB at most; install on an
#       English machine about 9, 290 MB at most: hostile_memory.sh)
#   a 100 MB help line                                     16 MB: the INI
#       is refused by its size, before it is read
#   a 2 GB sparse hive, a hive whose big-data list
#       points at itself                                   64 MB: a hive is
#       read as far as its bins reach, and bins a base block claims past
#       the real ones are not read
#
# Symbol files: the policy is that the symbol file sits in the INI's
# directory. A name with a directory part (../x.h, sub/x.h, /etc/x.h,
# C:\x.h) is refused, and so is a symbolic link there whose target (after
# every link) lies outside the directory; a link that stays inside is
# followed. The message names the INI, the line of symbolfile= and the
# name as written.
. tests/cli/lib.sh

TIME=/usr/bin/time
[ -x "$TIME" ] || fail "no $TIME (Debian package time: tools/deps.sh installs it)"
CS="--create-service --library x.dll --open O --collect C --close X"
MKBAD=$TMPDIR/mkbad
cc -o "$MKBAD" tests/bad/mkbad.c || fail "cannot build mkbad"

for layout in files registry; do
    expect_exit 0 "$REGTOOL" --store "hive:$TMPDIR/pristine-$layout" init --layout $layout
    expect_exit 4 "$REGTOOL" --store "hive:$TMPDIR/pristine-$layout" disable NoSuchService
done

CASE=$TMPDIR/case
# fresh LAYOUT: a new store in $W (config $CFG) and an empty input
# directory $D holding a good INI ($D/x.ini, symbol file $D/o.h).
fresh() {
    rm -rf "$CASE"
    mkdir -p "$CASE/in"
    cp -a "$TMPDIR/pristine-$1" "$CASE/w"
    W=$CASE/w CFG=$CASE/w/Windows/System32/config D=$CASE/in
    cp tests/bad/common/x.ini tests/bad/common/o.h "$D/"
}

# ini DRIVERNAME [SYMBOLFILE]: $D/p.ini, the good INI with these.
ini() {
    printf '[info]\ndrivername=%s\nsymbolfile=%s\n[languages]\n009=English\n[text]\nOBJ_009_NAME=Xfer\nOBJ_009_HELP=X.\nCNT_009_NAME=Count\nCNT_009_HELP=C.\n' \
        "$1" "${2:-o.h}" >"$D/p.ini"
}

n=0
# refused LABEL BOUND_MB EXIT REGEX ARGS...: regtool ARGS in $D, refused
# with EXIT and a line matching REGEX (@D@, @W@ stand for those paths),
# within BOUND_MB of peak RSS, and $CASE (store and inputs) unchanged.
refused() {
    label=$1 bound=$2 code=$3 re=$4
    shift 4
    tree_state "$CASE" >"$TMPDIR/before"
    (cd "$D" && "$TIME" -f %M -o "$TMPDIR/rss" "$REGTOOL" "$@") \
        </dev/null >"$OUT" 2>"$ERR"
    got=$?
    [ "$got" -eq "$code" ] || { cat "$OUT" "$ERR" >&2; fail "$label: exit $got, want $code"; }
    re=$(printf '%s\n' "$re" | sed -e "s|@D@|$D|g" -e "s|@W@|$W|g")
    cat "$OUT" "$ERR" | LC_ALL=C grep -Eaq -- "$re" ||
        { cat "$OUT" "$ERR" >&2; fail "$label: no line matches $re"; }
    tree_state "$CASE" | diff "$TMPDIR/before" - >&2 ||
        fail "$label: the store or the input changed (diff above)"
    kb=$(tail -n 1 "$TMPDIR/rss")
    printf '%s: exit %s, peak RSS %s MB (bound %s MB)\n' "$label" "$got" $((kb / 1024)) "$bound"
    if [ "$ASAN" = 0 ] && [ "$kb" -gt $((bound * 1024)) ]; then
        fail "$label: peak RSS $kb KB over $bound MB"
    fi
    n=$((n + 1))
}

# 1. Drivernames that would name another key than a Services subkey: the
# INI refused at its line, unlodctr's and every writer's argument refused.
long=$(printf 'D%.0s' $(seq 1 300))
for layout in files registry; do
    for name in '..\x' 'a\b' '' '..' "$long"; do
        fresh $layout
        ini "$name"
        case $name in
        '') why="drivername is empty" ;;
        ..) why="drivername '\.\.' is a path step, not a service name" ;;
        D*) why="drivername is 300 characters long, longer than a registry key name \(255\)" ;;
        *) why="drivername '.*' contains '\\\\'" ;;
        esac
        refused "install drivername '$(printf %.12s "$name")' ($layout)" 64 2 \
            "^@D@/p\.ini:2: error: $why" --store "hive:$W" install $CS "$D/p.ini"
        for verb in uninstall disable enable; do
            refused "$verb '$(printf %.12s "$name")' ($layout)" 64 2 \
                "is not a service name \(a subkey of Services\): it (is empty|holds '[\\\\/]'|is a path step|is longer than 255 characters); nothing was written" \
                --store "hive:$W" $verb "$name"
        done
    done
done
fresh files
REGTOOL_STORE=hive:$W; export REGTOOL_STORE
# unlodctr (the binary under that name) answers ERROR_INVALID_PARAMETER.
ln -s "$REGTOOL" "$TMPDIR/unlodctr"
R=$REGTOOL; REGTOOL=$TMPDIR/unlodctr
refused "unlodctr '..\\x'" 64 87 "^unlodctr: '\.\.\\\\x' is not a service name" '..\x'
REGTOOL=$R
unset REGTOOL_STORE

# 2. Symbol files outside the INI's directory, directly or through links.
mkdir "$TMPDIR/outside"
printf '#define OBJ 0\n#define CNT 2\n' >"$TMPDIR/outside/o.h"
for sym in ../o.h sub/o.h "$TMPDIR/outside/o.h" 'C:\o.h' '..\o.h' link.h chain.h; do
    fresh files
    mkdir "$D/sub"; cp "$D/o.h" "$D/sub/o.h"
    ln -s "$TMPDIR/outside/o.h" "$D/link.h"   # leads out
    ln -s link.h "$D/chain.h"                 # a link to that link
    ini Xfer "$sym"
    esc=$(printf '%s\n' "$sym" | sed 's/[].\\[*^$]/\\&/g')
    refused "symbolfile=$sym" 64 2 \
        "^@D@/p\.ini:3: error: symbol file $esc is not in the INI's directory$" \
        --store "hive:$W" install $CS "$D/p.ini"
done
# Even a link that stays in the directory is refused by name, as the INI
# itself is: what it names may change between a look and the read.
fresh files
ln -s o.h "$D/inside.h"
ini Xfer inside.h
refused "symbolfile=inside.h (a link, though inside)" 64 2 \
    "inside.h is a symbolic link" --store "hive:$W" install --dry-run $CS "$D/p.ini"

# 3. Offsets landing in the base range or on another provider: a .reg
# store whose Xfer records a range there. install --replace would reuse
# the range, uninstall would remove the strings there: both refused. And
# an offset so large that the range would pass the last index.
fresh registry
"$REGTOOL" --store "hive:$W" backup --format reg "$TMPDIR/full.reg" >/dev/null ||
    fail "backup --format reg"
iconv -f UTF-16 -t UTF-8 "$TMPDIR/full.reg" >"$TMPDIR/full8.reg"
net=$("$REGTOOL" --store "reg:$TMPDIR/full8.reg" query .NETFramework |
      sed -n 's/^ *Counter *\([0-9]*\) \.\. .*/\1/p')
[ -n "$net" ] || fail "no .NETFramework range in init's store"
for where in base provider; do
    if [ $where = base ]; then fc=2; else fc=$((net + 2)); fi
    fresh files
    { cat "$TMPDIR/full8.reg"
      printf '\r\n[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services\\Xfer]\r\n'
      printf '\r\n[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services\\Xfer\\Performance]\r\n'
      printf '"Library"="x.dll"\r\n"Open"="O"\r\n"Collect"="C"\r\n"Close"="X"\r\n'
      printf '"First Counter"=dword:%08x\r\n"First Help"=dword:%08x\r\n' $fc $((fc + 1))
      printf '"Last Counter"=dword:%08x\r\n"Last Help"=dword:%08x\r\n' $((fc + 2)) $((fc + 3))
    } >"$D/store.reg"
    # Its lock file, as a writer before leaves it (empty).
    : >"$D/store.reg.lock"
    # Over the base range, Xfer is one of the system's providers to
    # install (exit 4, tests/cli/trust_boundaries.sh); uninstall says why.
    if [ $where = base ]; then why="range overlaps the system's base range \(Base Index 1847\)"
        refused "install --replace over the $where range" 64 4 \
            "onto service 'Xfer': it is one of the system's providers: its range \(First Counter 2, First Help 3\) lies in the system's base range" \
            --store "reg:$D/store.reg" install --replace "$D/x.ini"
    else why="range overlaps provider '\.NETFramework'"
        refused "install --replace over the $where range" 64 2 \
            "refusing to replace 'Xfer': $why" --store "reg:$D/store.reg" install --replace "$D/x.ini"
    fi
    refused "uninstall over the $where range" 64 2 \
        "refusing to uninstall 'Xfer': $why" --store "reg:$D/store.reg" uninstall Xfer
done
fresh files
printf '#define OBJ 0\n#define CNT 2147483646\n' >"$D/far.h"
ini Xfer far.h
refused "an offset past the last index" 64 2 "^regtool: install .*p\.ini: no room for 2 counters above index [0-9]+$" \
    --store "hive:$W" install $CS "$D/p.ini"

# 4. 10^6 symbols: the INI (50 MB) is over the reader's 16 MiB, and so is
# the symbol file (23 MB).
fresh files
awk 'BEGIN { for (i = 0; i < 1000000; i++) printf "#define S%d %d\n", i, 2 * i }' >"$D/s.h"
awk 'BEGIN { printf "[info]\ndrivername=Xfer\nsymbolfile=s.h\n[languages]\n009=English\n[text]\n"
             for (i = 0; i < 1000000; i++) printf "S%d_009_NAME=N%d\nS%d_009_HELP=H%d\n", i, i, i, i }' >"$D/big.ini"
refused "10^6 symbols (install)" 64 2 "^big\.ini: error: file is larger than 16 MiB$" \
    --store "hive:$W" install $CS big.ini
refused "10^6 symbols (check-ini)" 64 2 "^big\.ini: error: file is larger than 16 MiB$" \
    check-ini big.ini
# The same symbol file named by a small INI: refused by its size.
awk 'BEGIN { printf "[info]\ndrivername=Xfer\nsymbolfile=s.h\n[languages]\n009=English\n[text]\nS0_009_NAME=N\nS0_009_HELP=H\n" }' >"$D/small.ini"
refused "a 23 MB symbol file (check-ini)" 64 2 "^s\.h: error: symbol file is larger than 16 MiB$" \
    check-ini small.ini

# 5. A 100 MB help line: the INI is over the reader's 16 MiB.
fresh registry
{ printf '[info]\ndrivername=Xfer\nsymbolfile=o.h\n[languages]\n009=English\n[text]\nOBJ_009_NAME=X\nOBJ_009_HELP='
  head -c 100000000 /dev/zero | tr '\0' h
  printf '\nCNT_009_NAME=C\nCNT_009_HELP=C\n'
} >"$D/long.ini"
# Its blocks counted once written back (tree_state counts a big file's
# blocks; the file system may add one as it writes the file back).
sync "$D/long.ini"
refused "a 100 MB help line" 16 2 "^long\.ini: error: file is larger than 16 MiB$" \
    --store "hive:$W" install $CS long.ini

# 6. A 2 GB sparse hive: a real SOFTWARE with 2 GB of holes behind its
# bins (read as far as the bins, with a warning; never written), one whose
# base block claims 2 GB of bins (refused where the bins stop), one past
# 2 GB (no hive).
for layout in files registry; do
    fresh $layout
    truncate -s 2G "$CFG/SOFTWARE"
    refused "2 GB sparse SOFTWARE: install ($layout)" 64 2 \
        "SOFTWARE runs [0-9]+ bytes past the hive bins its base block covers \([0-9]* bytes\): no hive Windows writes, and a commit would cut the file to its bins\. Nothing was written$" \
        --store "hive:$W" install $CS "$D/x.ini"
    [ $layout = registry ] || continue
    refused "2 GB sparse SOFTWARE: names reads it ($layout)" 64 0 \
        "^regtool: @W@/Windows/System32/config/SOFTWARE: warning: the file runs [0-9]* bytes past the hive bins" \
        --store "hive:$W" names
done
fresh registry
size=$(wc -c <"$CFG/SOFTWARE")
truncate -s 2G "$CFG/SOFTWARE"
"$MKBAD" patch "$CFG/SOFTWARE" 40 00f0ff7f && "$MKBAD" fixsum "$CFG/SOFTWARE" ||
    fail "cannot patch the bins size"
refused "2 GB of bins claimed: install" 64 2 \
    "^regtool: @W@/Windows/System32/config/SOFTWARE: file offset 0x$(printf %x "$size"): hive bin signature is not 'hbin'$" \
    --store "hive:$W" install $CS "$D/x.ini"
refused "2 GB of bins claimed: hive check" 64 2 \
    "^error at file offset 0x$(printf %x "$size"): hive bin signature is not 'hbin'$" \
    hive check "$CFG/SOFTWARE"
fresh files
truncate -s 2049M "$CFG/SOFTWARE"
refused "SOFTWARE past 2 GB" 16 2 \
    "^regtool: @W@/Windows/System32/config/SOFTWARE: larger than 2 GB, not a hive$" \
    --store "hive:$W" names

# 7. A big-data value whose segment list points at itself, or whose list
# is the big-data cell itself: refused, naming the hive, key and value.
for how in list db; do
    fresh registry
    "$MKBAD" selfbig "$CFG/SOFTWARE" $how >/dev/null || fail "no big-data cell"
    for verb in names "install $CS $D/x.ini" audit; do
        code=2
        # shellcheck disable=SC2086
        refused "big data, $how points at itself: ${verb%% *}" 64 $code \
            "@W@/Windows/System32/config/SOFTWARE: value Counter of Microsoft\\\\Windows NT\\\\CurrentVersion\\\\Perflib\\\\009: big data segment" \
            --store "hive:$W" $verb
    done
    refused "big data, $how points at itself: hive check" 64 2 \
        "^error at file offset 0x[0-9a-f]+: big data segment" hive check "$CFG/SOFTWARE"
done

# 8. A socket as a hive: refused as the special file it is (exit 2,
# "is a socket, not a regular file"), as a FIFO is, reader and writer
# alike, not taken for a missing store (exit 4, "No such device or
# address", before).
MKSOCK=$TMPDIR/mksock
printf '%s\n' '#include <string.h>' '#include <sys/socket.h>' '#include <sys/un.h>' \
    'int main(int c, char **v) { struct sockaddr_un a = {0}; (void)c;' \
    'a.sun_family = AF_UNIX; strncpy(a.sun_path, v[1], sizeof a.sun_path - 1);' \
    'return bind(socket(AF_UNIX, SOCK_STREAM, 0), (struct sockaddr *)&a, sizeof a) != 0; }' \
    >"$MKSOCK.c"
cc -o "$MKSOCK" "$MKSOCK.c" || fail "cannot build mksock"
for kind in socket FIFO; do
    fresh files
    rm "$CFG/SOFTWARE"
    case $kind in
    socket) "$MKSOCK" "$CFG/SOFTWARE" || fail "no socket made" ;;
    FIFO) mkfifo "$CFG/SOFTWARE" ;;
    esac
    for verb in names "install $CS $D/x.ini"; do
        # shellcheck disable=SC2086
        refused "$kind as SOFTWARE: ${verb%% *}" 16 2 \
            "^regtool: @W@/Windows/System32/config/SOFTWARE: .*SOFTWARE is a $kind, not a regular file: refused$" \
            --store "hive:$W" $verb
    done
done

# 9. A folder where an installed provider's INF copy of its INI is:
# install --replace refuses it naming that path (before: "Is a
# directory" alone).
fresh files
(cd "$D" && "$REGTOOL" --store "hive:$W" install $CS "$D/x.ini") >/dev/null ||
    fail "cannot install x.ini"
rm "$W/Windows/INF/Xfer/0009/x.ini"
mkdir "$W/Windows/INF/Xfer/0009/x.ini"
refused "a folder as the INF copy's INI" 64 3 \
    "^regtool: install @D@/x\.ini: @W@/Windows/INF/Xfer/0009/x\.ini: Is a directory; nothing was written$" \
    --store "hive:$W" install --replace "$D/x.ini"

echo "hostile inputs: $n refusals"
[ "$n" -ge 60 ] || fail "only $n cases ran"
exit 0
