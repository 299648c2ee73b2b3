#!/bin/sh
# Generates the fuzz harnesses' seed corpora into OUT/<harness>/ (build/,
# never the repository: the hives are megabytes), from ini-samples/, the
# real files in $SHARED/research-real and $SHARED/samples (xz, decompressed
# here) and databases made by `regtool init`, `install`, `backup` and
# mkbench. Inputs that hold several files (an INI and its symbol file, a
# hive and its logs) are joined by the separator tests/fuzz/fuzz.h splits
# at; the INI and .reg harnesses read a code-page byte first.
#   sh tests/fuzz/seeds.sh OUT REGTOOL MKBENCH LIBREGTOOL
set -eu
OUT=$1
REGTOOL=$2
MKBENCH=$3
LIBREGTOOL=$4
SHARED=${SHARED:-$(cd "$(dirname "$0")/../../.." && pwd)/shared}
REAL=$SHARED/research-real
SEP='\n--regtool-fuzz-split--\n'
export LC_ALL=C

rm -rf "$OUT"
for h in ini symbol_file multi_sz hive log_replay perf_backup reg_file tree; do
    mkdir -p "$OUT/$h"
done
W=$(mktemp -d "${TMPDIR:-/tmp}/regtool-seeds.XXXXXX")
trap 'rm -rf "$W"' EXIT

# --- INI + symbol file ----------------------------------------------------
# Whether FILE is UTF-16LE: NUL bytes in its first 200.
is_utf16() { [ "$(head -c 200 "$1" | tr -dc '\000' | wc -c)" -gt 0 ]; }

# ini_seed INI CPBYTE: the INI with its symbolfile= renamed s.h (what the
# harness writes the symbol file as), then the symbol file it named, if
# one is in its directory.
n=0
ini_seed() {
    f=$1
    n=$((n + 1))
    o=$OUT/ini/$n-$(basename "$f")
    if is_utf16 "$f"; then
        sym=$(tr -d '\000\r' <"$f" |
            sed -n 's/^[[:space:]]*symbolfile[[:space:]]*=[[:space:]]*//Ip' | head -n 1)
        iconv -f UTF-16LE -t UTF-8 "$f" 2>/dev/null |
            sed 's/^\([[:space:]]*symbolfile[[:space:]]*=[[:space:]]*\)[^\r]*/\1s.h/I' |
            iconv -f UTF-8 -t UTF-16LE >"$W/ini" 2>/dev/null || cp "$f" "$W/ini"
    else
        sym=$(tr -d '\r' <"$f" |
            sed -n 's/^[[:space:]]*symbolfile[[:space:]]*=[[:space:]]*//Ip' | head -n 1)
        sed 's/^\([[:space:]]*symbolfile[[:space:]]*=[[:space:]]*\)[^\r]*/\1s.h/I' \
            "$f" >"$W/ini"
    fi
    printf "\\$2" >"$o"
    cat "$W/ini" >>"$o"
    s=""
    [ -n "$sym" ] && s=$(find "$(dirname "$f")" -maxdepth 1 -iname "$sym" | head -n 1)
    if [ -n "$s" ]; then
        printf "$SEP" >>"$o"
        cat "$s" >>"$o"
    fi
}
for f in ini-samples/*.ini ini-samples/*/*.ini "$REAL"/providers/*/*.Ini; do
    case $f in *cp1251*) cp=002 ;; *) cp=000 ;; esac
    ini_seed "$f" "$cp"
done
"$MKBENCH" provider "$W/prov" --symbols 20 >/dev/null
ini_seed "$W/prov/bench.ini" 000

# --- symbol files ----------------------------------------------------------
for f in ini-samples/*.h ini-samples/*/*.h ini-samples/dotnet/*.tmp \
         "$REAL"/providers/*/*.h "$W"/prov/*.h; do
    cp "$f" "$OUT/symbol_file/$(basename "$f")"
done

# --- databases: a small Windows tree, a provider installed, its backups --
T=$W/tree
"$REGTOOL" --store "hive:$T" init --languages 009,019 --layout files >/dev/null
"$REGTOOL" --store "hive:$T" install --create-service --library bench.dll \
    --open Open --collect Collect --close Close "$W/prov/bench.ini" >/dev/null 2>&1
C=$T/Windows/System32/config
cp "$C/SOFTWARE" "$OUT/hive/SOFTWARE-files"
cp "$C/SYSTEM" "$OUT/hive/SYSTEM-installed"
"$REGTOOL" --store "hive:$T" backup "$W/psb.ini" >/dev/null
"$REGTOOL" --store "hive:$T" backup --format reg "$W/backup.reg" >/dev/null
"$MKBENCH" hives "$W/mb" --languages 009 --extra 0 --size 1 --help-chars 40 \
    --layout registry >/dev/null
cp "$W/mb/Windows/System32/config/SOFTWARE" "$OUT/hive/SOFTWARE-registry"
xz -dc "$SHARED/samples/transactions_NTUSER.DAT.xz" >"$OUT/hive/NTUSER.DAT"

# --- MULTI_SZ blobs: whole and cut at a string boundary ---------------------
D=$T/Windows/System32
cp "$D/perfc009.dat" "$OUT/multi_sz/perfc009"
# first N strings of BLOB, an even count, with the list's closing NUL.
head_blob() {
    iconv -f UTF-16LE -t UTF-8 "$1" | tr '\000' '\n' | head -n "$2" |
        tr '\n' '\000' | iconv -f UTF-8 -t UTF-16LE
    printf '\000\000'
}
head_blob "$D/perfc009.dat" 40 >"$OUT/multi_sz/perfc009-40"
head_blob "$D/perfh009.dat" 20 >"$OUT/multi_sz/perfh009-20"
head_blob "$D/perfc019.dat" 30 >"$OUT/multi_sz/perfc019-30"
# Leading zeros kept, a supplementary character (a surrogate pair).
printf '0002\000System\000\000' | iconv -f UTF-8 -t UTF-16LE >"$OUT/multi_sz/zeros"
printf '4\000\360\237\230\200 emoji\000\000' | iconv -f UTF-8 -t UTF-16LE \
    >"$OUT/multi_sz/surrogate"

# --- PerfStringBackup files: whole, and their first lines -----------------
cp "$W/psb.ini" "$OUT/perf_backup/generated"
for f in "$REAL"/perfstringbackup/*.xz; do
    b=$(basename "$f" .xz)
    xz -dc "$f" >"$OUT/perf_backup/$b"
    # The first 120 lines, in the file's own encoding: a small valid seed.
    if is_utf16 "$OUT/perf_backup/$b"; then
        iconv -f UTF-16LE -t UTF-8 "$OUT/perf_backup/$b" | head -n 120 |
            iconv -f UTF-8 -t UTF-16LE >"$OUT/perf_backup/head-$b"
    else
        head -n 120 "$OUT/perf_backup/$b" >"$OUT/perf_backup/head-$b"
    fi
done

# --- .reg files (code page byte 0: 1252) ------------------------------------
reg_seed() { { printf '\000'; cat "$1"; } >"$OUT/reg_file/$2"; }
reg_seed "$W/backup.reg" backup.reg
iconv -f UTF-16LE -t UTF-8 "$W/backup.reg" | head -n 60 | iconv -f UTF-8 -t UTF-16LE \
    >"$W/head.reg"
reg_seed "$W/head.reg" head.reg
for f in ini-samples/win95/*.reg; do
    reg_seed "$f" "$(basename "$f")"
done
"$REGTOOL" --store "hive:$T" uninstall --dry-run --emit-reg "$W/un.reg" BenchPerf \
    >/dev/null 2>&1 && reg_seed "$W/un.reg" uninstall.reg

# --- hive + logs ------------------------------------------------------------
cc -Ilib -o "$W/mkdirty" tests/cli/mkdirty.c lib/regf/marvin32.c lib/regf/base_block.c
cp "$C/SYSTEM" "$W/SYSTEM"
"$W/mkdirty" "$W/SYSTEM"
{ cat "$W/SYSTEM"; printf "$SEP"; cat "$W/SYSTEM.LOG1"; } >"$OUT/log_replay/mkdirty-SYSTEM"
xz -dc "$SHARED/samples/transactions_NTUSER.DAT.xz" >"$W/p"
{ cat "$W/p"; printf "$SEP"; xz -dc "$SHARED/samples/transactions_ntuser.dat.log1.xz"
  printf "$SEP"; xz -dc "$SHARED/samples/transactions_ntuser.dat.log2.xz"; } \
    >"$OUT/log_replay/NTUSER"
{ xz -dc "$SHARED/samples/UsrClass.dat.xz"; printf "$SEP"
  xz -dc "$SHARED/samples/UsrClass.dat.LOG1.xz"; printf "$SEP"
  xz -dc "$SHARED/samples/UsrClass.dat.LOG2.xz"; } >"$OUT/log_replay/UsrClass"

# --- whole trees (fuzz_tree) -----------------------------------------------
# Trees made by `regtool init` in both layouts, cut small so that each run
# takes milliseconds, not the 200 ms of the base tables' 1.4 MB: a restore
# from their own PerfStringBackup keeping the first 40 indices, with short
# texts, and one provider (ESENT) given a range of five pairs among them
# (the others lose theirs). The registry layout's SOFTWARE is made from
# the files layout's (mkregistry.c), as a hive never shrinks: init's own
# stays 1.5 MB after the restore. Each tree then also with TransferPerf
# installed, and with the journal a crash leaves in that install
# (REGTOOL_FAULT_AFTER_WRITES): before its commit point, and after it
# with none of it yet in the files. The parts are those fuzz_tree.c reads: SOFTWARE,
# SYSTEM, perfc009.dat, perfh009.dat (empty: none), regtool.journal.
cc -std=c11 -D_GNU_SOURCE -Ilib -o "$W/mkregistry" tests/fuzz/mkregistry.c \
    "$LIBREGTOOL" -linih
"$REGTOOL" --store "hive:$W/tree-files" init --languages 009 --layout files >/dev/null
"$REGTOOL" --store "hive:$W/tree-files" backup "$W/files.psb" >/dev/null
iconv -f UTF-16LE -t UTF-8 "$W/files.psb" | tr -d '\r' | awk -F= '
    /^\[/ { keep = $0 == "[Perflib]" || $0 ~ /^\[PerfStrings_/ }
    /^\[PerfStrings_/ {
        print "[PERF_ESENT]\nFirst Counter=30\nFirst Help=31\nLast Counter=38\nLast Help=39\n"
    }
    !keep { next }
    /^[0-9]+=/ && $1 > 1 {
        if ($1 <= 40) print $1 "=" ($1 % 2 ? "Help text " : "Name ") $1
        next
    }
    { print }' | sed 's/$/\r/' | iconv -f UTF-8 -t UTF-16LE >"$W/tiny.psb"
"$REGTOOL" --store "hive:$W/tree-files" restore --force "$W/tiny.psb" >/dev/null
TC=Windows/System32/config
F=$W/tree-files/Windows/System32
R=$W/tree-registry/$TC
mkdir -p "$R"
cp "$F/config/SYSTEM" "$R/SYSTEM"
"$W/mkregistry" "$F/config/SOFTWARE" "$F/perfc009.dat" "$F/perfh009.dat" \
    "$R/SOFTWARE"

# tree_seed DIR NAME: DIR's files as one fuzz_tree input.
tree_seed() {
    d=$1/Windows/System32
    {
        cat "$d/config/SOFTWARE"
        printf "$SEP"
        cat "$d/config/SYSTEM"
        printf "$SEP"
        [ ! -e "$d/perfc009.dat" ] || cat "$d/perfc009.dat"
        printf "$SEP"
        [ ! -e "$d/perfh009.dat" ] || cat "$d/perfh009.dat"
        if [ -e "$d/config/regtool.journal" ]; then
            printf "$SEP"
            cat "$d/config/regtool.journal"
        fi
    } >"$OUT/tree/$2"
}
# install_transfer DIR [K]: TransferPerf installed in DIR; with K, the
# process ends at its K-th write as a power cut would.
install_transfer() {
    env ${2:+REGTOOL_FAULT_AFTER_WRITES=$2} "$REGTOOL" --store "hive:$1" \
        install --create-service --library transferperf.dll \
        --open OpenTransfer --collect CollectTransfer --close CloseTransfer \
        ini-samples/transfer-utf8.ini >/dev/null 2>&1
}
for layout in files registry; do
    t=$W/tree-$layout
    tree_seed "$t" "$layout"
    # The first crash that leaves a journal short of its commit point,
    # and the first that leaves it sealed (the registry layout writes
    # more before its seal: big data past the hive's end).
    k=0 open="" sealed=""
    while [ -z "$sealed" ] && [ $k -lt 60 ]; do
        k=$((k + 1))
        rm -rf "$W/crash"
        cp -R "$t" "$W/crash"
        install_transfer "$W/crash" "$k" || true
        [ -e "$W/crash/$TC/regtool.journal" ] || continue
        if "$REGTOOL" --store "hive:$W/crash" query 2>&1 >/dev/null |
            grep -q 'is not yet in the files'; then
            sealed=$k
            tree_seed "$W/crash" "$layout-journal-sealed"
        elif [ -z "$open" ]; then
            open=$k
            tree_seed "$W/crash" "$layout-journal-open"
        fi
    done
    [ -n "$open" ] && [ -n "$sealed" ] || {
        echo "seeds: no crash of an install left both journals ($layout)" >&2
        exit 1
    }
    install_transfer "$t" || { echo "seeds: install in $t failed" >&2; exit 1; }
    tree_seed "$t" "$layout-installed"
done

for h in "$OUT"/*; do
    echo "seeds: $(basename "$h"): $(ls "$h" | wc -l) files, $(du -sk "$h" | cut -f1) KB"
done
