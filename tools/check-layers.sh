#!/bin/sh
# Checks that includes only point down the layers (docs/design.md, "Layers"):
#
#   regtool/  the CLI (only ops/, platform/, 8
#             lib/regtool.h and its cli.h)
#   api/      the public API (lib/regtool.h) 7
#   ops/      the operations the CLI and    6
#             the API call (ops/ops.h)
#   engine/   planning on a database        5
#   store/    the stores                    4
#   regf/     hive files   provider/ INIs   3  (neither uses the other)
#   commit/   journal, lock, counted I/O    2
#   model/    pure data and logic           1
#   platform/ the OS calls                  0
#
# A file may include headers of its own layer and of lower ranks. Both
# `#include "layer/x.h"` and a bare `#include "x.h"` of a file in its own
# directory are understood. The operating system's own headers (<unistd.h>,
# <fcntl.h>, <dirent.h>, <sys/...>, <io.h>, <windows.h>) belong to the
# platform layer alone; the live-registry store (store/store_win32*,
# store/win32_*) may include <windows.h> for advapi32. The public header
# lib/regtool.h includes no header of the library: installers get it
# alone, and none of the internal structures may show through. The CLI
# stands on the operations layer alone: regtool/ includes only its cli.h,
# lib/regtool.h, ops/ and platform/ headers, calls no store's function
# table (->ops->), and no file of it calls a function a verb file (one
# defining cmd_* or *_main) defines, the dispatchers main.c and hive.c
# aside: verbs share the CLI's common files, never each other. The ops
# headers listed in OPS_OWN_TYPES give the CLI the operations' own types
# and nothing of the layers below: each includes only the public header,
# other headers of that list, platform/ headers and the C library's.
# Prints each violation as FILE:LINE and exits 1 when there is one.
#   sh tools/check-layers.sh [REPO]   (REPO: this repository)
set -eu
repo=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$repo"

# rank LAYER: its rank in $r ("" for no layer). A function setting a
# variable, not a command substitution: the check runs it for every
# include of every file, and a fork each was most of its time.
rank() {
    case "$1" in
    platform) r=0 ;; model) r=1 ;; commit) r=2 ;;
    regf | provider) r=3 ;; store) r=4 ;; engine) r=5 ;;
    ops) r=6 ;; api) r=7 ;; regtool) r=8 ;; *) r="" ;;
    esac
}
# layer_of FILE: its layer in $layer.
layer_of() {
    case "$1" in
    regtool/*) layer=regtool ;;
    *) layer=${1#lib/}; layer=${layer%%/*} ;;
    esac
}

OPS_OWN_TYPES="lib/ops/hive_files.h lib/ops/perfstats_reg.h"

bad=0
files=""
for f in lib/*/*.[ch] regtool/*.[ch]; do
    [ -f "$f" ] || continue
    layer_of "$f"
    rank "$layer"
    if [ -z "$r" ]; then
        echo "$f: directory '$layer' is not a known layer (tools/check-layers.sh)"
        bad=1
        continue
    fi
    files="$files $f"
done
# Every include of those files, read by one awk: KIND FILE LINE TARGET,
# KIND q for "quoted" and a for <angled>.
includes=${TMPDIR:-/tmp}/check-layers-includes.$$
# shellcheck disable=SC2086
[ -z "$files" ] || awk '
    /^[ \t]*#[ \t]*include[ \t]*"/ { split($0, q, "\""); print "q " FILENAME " " FNR " " q[2] }
    /^[ \t]*#[ \t]*include[ \t]*</ { split($0, q, "[<>]"); print "a " FILENAME " " FNR " " q[2] }
' $files >"$includes"
while read -r kind f line target; do
    layer_of "$f"
    rank "$layer"
    own=$r
    if [ "$kind" = a ]; then
        [ "$layer" = platform ] && continue
        case "$target" in
        unistd.h | fcntl.h | dirent.h | io.h | direct.h | sys/*) ;;
        windows.h)
            case "$f" in
            lib/store/store_win32* | lib/store/win32_*) continue ;;
            esac ;;
        *) continue ;;
        esac
        echo "$f:$line: includes <$target>: calls to the operating system belong in lib/platform/"
        bad=1
        continue
    fi
    case "$target" in
    */*) tlayer=${target%%/*} ;;
    regtool.h) tlayer=api ;;  # the public header, -Ilib
    *) tlayer=$layer ;;   # a header beside the file
    esac
    rank "$tlayer"
    trank=$r
    # The CLI's door to the library is the operations layer: its own
    # header, the public one, the ops headers and the platform's.
    if [ "$layer" = regtool ]; then
        case "$target" in
        cli.h | regtool.h | ops/*.h | platform/*.h) ;;
        *)
            echo "$f:$line: the CLI includes \"$target\": regtool/ includes only cli.h, regtool.h, ops/ and platform/ headers (what it needs of the rest, lib/ops/ops.h gives it)"
            bad=1
            continue ;;
        esac
    fi
    if [ -z "$trank" ]; then
        echo "$f:$line: includes \"$target\", which is in no layer"
        bad=1
    elif [ "$tlayer" != "$layer" ] && [ "$trank" -ge "$own" ]; then
        echo "$f:$line: $layer (rank $own) includes \"$target\" from $tlayer (rank $trank): includes must point down"
        bad=1
    fi
done <"$includes"
rm -f "$includes"
if [ -f lib/regtool.h ]; then
    for hit in $(awk '/^[ \t]*#[ \t]*include[ \t]*"/ {
                          split($0, q, "\""); print FNR ":" q[2] }' lib/regtool.h); do
        echo "lib/regtool.h:${hit%%:*}: the public header includes \"${hit#*:}\": only the C library's headers may be included there"
        bad=1
    done
fi
# The operations' own types: nothing of a lower layer shows through.
for f in $OPS_OWN_TYPES; do
    if [ ! -f "$f" ]; then
        echo "$f: listed in OPS_OWN_TYPES (tools/check-layers.sh) but missing"
        bad=1
        continue
    fi
    for hit in $(awk '/^[ \t]*#[ \t]*include[ \t]*"/ {
                          split($0, q, "\""); print FNR ":\"" q[2] }
                      /^[ \t]*#[ \t]*include[ \t]*</ {
                          split($0, q, "[<>]"); print FNR ":<" q[2] }' "$f"); do
        line=${hit%%:*}
        target=${hit#*:}
        case "$target" in
        '"'regtool.h | '"'platform/*.h | '<'regtool.h) continue ;;
        '"'ops/*.h | '"'*.h)
            name=${target#?}
            case "$name" in */*) ;; *) name=ops/$name ;; esac
            case " $OPS_OWN_TYPES " in *" lib/$name "*) continue ;; esac ;;
        '<'assert.h | '<'ctype.h | '<'errno.h | '<'float.h | '<'inttypes.h | \
        '<'limits.h | '<'stdalign.h | '<'stdarg.h | '<'stdbool.h | \
        '<'stddef.h | '<'stdint.h | '<'stdio.h | '<'stdlib.h | '<'string.h | \
        '<'time.h | '<'wchar.h) continue ;;
        esac
        case "$target" in
        '<'*) shown="${target}>" ;;
        *) shown="${target}\"" ;;
        esac
        echo "$f:$line: includes $shown: an ops header of OPS_OWN_TYPES gives the CLI only the operations' own types; it includes only regtool.h, platform/ headers, the C library's and the other headers of OPS_OWN_TYPES (tools/check-layers.sh)"
        bad=1
    done
done
# The CLI calls operations, not the store's function table.
for hit in $(grep -n -- '->ops->' regtool/*.c 2>/dev/null | cut -d: -f1,2); do
    echo "$hit: the CLI calls a store's function table (->ops->): call the operation (lib/ops/ops.h)"
    bad=1
done
# No circle among the CLI's files: a verb file (one defining a command,
# cmd_* or *_main) uses the operations layer and the CLI's common files
# (cli_*.c, print_change.c, findings.c, ...), never a function another
# verb file defines, called or taken as a pointer; only the dispatchers,
# main.c and hive.c (hive's subverbs), name the verbs.
verb_files=$(grep -l '^int \(cmd_[a-z_]*\|[a-z_]*_main\)(' regtool/*.c 2>/dev/null |
             grep -v '^regtool/main\.c$' || true)
circle=${TMPDIR:-/tmp}/check-layers.$$
# Each function a verb file defines for others ("NAME FILE": a line at
# column 0 naming it before its parameters, not static, not a
# declaration), then one pass over the CLI's files for any use of one
# outside its own file (main.c and hive.c aside): an awk a file, not one
# a file and function.
defined=$(for v in $verb_files; do
    awk -v v="$v" '/^[a-z]/ && !/^static/ && !/;[ \t]*$/ &&
                   match($0, /[a-z_0-9]+\(/) {
                       print substr($0, RSTART, RLENGTH - 1) " " v }' "$v"
done)
awk -v defined="$defined" '
    BEGIN {
        n = split(defined, rows, "\n")
        for (i = 1; i <= n; i++) {
            split(rows[i], w, " ")
            if (w[1] != "") def[w[1]] = w[2]
        }
    }
    FILENAME == "regtool/main.c" || FILENAME == "regtool/hive.c" { next }
    {
        line = $0; sub(/\/\/.*/, "", line); sub(/\/\*.*/, "", line)
        while (match(line, /[a-z_0-9]+/)) {
            id = substr(line, RSTART, RLENGTH)
            line = substr(line, RSTART + RLENGTH)
            if ((id in def) && def[id] != FILENAME && !((FILENAME, FNR, id) in said)) {
                said[FILENAME, FNR, id] = 1
                print FILENAME ":" FNR ": uses " id "(), which the verb file " def[id] \
                      " defines: a verb calls operations (lib/ops/ops.h) and the CLI'"'"'s common files, not another verb"
            }
        }
    }' regtool/*.c >"$circle"
if [ -s "$circle" ]; then
    cat "$circle"
    bad=1
fi
rm -f "$circle"
[ "$bad" -eq 0 ] && echo "layers: every include points down"
exit "$bad"
