#!/bin/sh
# Checks that the library and the CLI stay in pieces one can read whole
# (issue 41): no file of lib/ or regtool/ over 1,000 lines, no function
# over 120. Prints each one over, as FILE: N lines or FILE:LINE: NAME: N
# lines, and exits 1 when there is one.
#
# A function is found the simple way the code is written: its definition
# starts at a line at column 0 that begins with a letter and holds a "("
# (the return type and the name, or the first line of the signature);
# its body opens with "{" at column 0 and ends with "}" at column 0. Its
# length counts from the signature's first line to that "}". A struct or
# an initializer never opens with "{" alone at column 0, so none counts.
#
# TO_SPLIT names what is over still and is to be split (issue 41): a
# file, or FILE:FUNCTION. Those are printed, not failed, so that what is
# left shows; anything else over fails.
#   sh tools/check-sizes.sh [REPO]   (REPO: this repository)
set -eu
repo=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$repo"

MAX_FILE_LINES=1000
MAX_FUNCTION_LINES=120
TO_SPLIT=""

bad=0
for f in lib/*/*.[ch] regtool/*.[ch]; do
    [ -f "$f" ] || continue
    n=$(wc -l <"$f")
    if [ "$n" -gt "$MAX_FILE_LINES" ]; then
        case " $(echo $TO_SPLIT) " in
        *" $f "*)
            echo "$f: $n lines (over $MAX_FILE_LINES; to split: issue 41)" ;;
        *)
            echo "$f: $n lines, over $MAX_FILE_LINES: split it along its seams"
            bad=1 ;;
        esac
    fi
    long=$(awk -v max="$MAX_FUNCTION_LINES" -v file="$f" \
               -v to_split=" $(echo $TO_SPLIT) " '
        /^[A-Za-z_]/ && /\(/ && !/;[ \t]*$/ && !in_body { sig = FNR; line = $0 }
        /^\{/ && sig { in_body = 1; start = sig; name = line }
        /^\}/ && in_body {
            n = FNR - start + 1
            if (n > max) {
                sub(/\(.*/, "", name)
                sub(/.*[ *]/, "", name)
                if (index(to_split, " " file ":" name " "))
                    printf "%s:%d: %s: %d lines (over %d; to split: issue 41)\n", file, start, name, n, max
                else
                    printf "%s:%d: %s: %d lines, over %d: split it into named steps\n", file, start, name, n, max
            }
            in_body = 0; sig = 0
        }' "$f")
    if [ -n "$long" ]; then
        echo "$long"
        case "$long" in *"split it into"*) bad=1 ;; esac
    fi
done
exit $bad
