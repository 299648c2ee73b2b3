#!/bin/sh
# Checks that make mutants' list has not rotted: every mutant's edit in
# tools/mutants.sh (OLD, and OLD2 when one bug takes two) occurs exactly
# once in its FILE, as the script needs to plant it. The code moves on
# and an anchor that no longer matches, or matches twice, only showed
# when make mutants ran (minutes of builds); this reads the list without
# building anything. The list is what tools/mutants.sh holds between its
# "# --- the mutants" and "# --- the table" lines, run here with a
# mutant function of this script's own; OLD2 is looked for in FILE with
# OLD already replaced by NEW, as the script plants them. Prints each
# edit that does not apply, as FILE: NAME: OLD occurs N times, and exits
# 1 when there is one; else prints how many edits apply.
#   sh tools/check-mutants.sh [REPO]   (REPO: this repository)
set -eu
repo=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$repo"

list=$(sed -n '/^# --- the mutants /,/^# --- the table /p' tools/mutants.sh)
[ -n "$list" ] || { echo "tools/mutants.sh: no list of mutants found" >&2; exit 2; }

bad=0 n_mutants=0 n_edits=0
OLD='' NEW='' OLD2='' NEW2=''
# mutant NAME FILE TARGET: counts OLD (and OLD2) in FILE.
mutant() {
    n_mutants=$((n_mutants + 1))
    # perl is Debian's essential perl-base, as in tools/mutants.sh.
    if ! out=$(OLD=$OLD NEW=$NEW OLD2=$OLD2 perl -e '
        my ($name, $p) = @ARGV;
        open(my $in, "<:raw", $p) or do { print "$p: $name: $!\n"; exit 1 };
        local $/; my $s = <$in>; close $in;
        # count STRING: its occurrences in $s, overlapping ones too, and
        # where the first is (as tools/mutants.sh counts them).
        sub count {
            my ($old) = @_; my ($n, $at) = (0, -1);
            for (my $i = index($s, $old); $i >= 0; $i = index($s, $old, $i + 1)) {
                $at = $i if $n++ == 0;
            }
            return ($n, $at);
        }
        my $edits = 1;
        my ($n, $at) = count($ENV{OLD});
        if ($n != 1) {
            print "$p: $name: OLD occurs $n times, not once:\n$ENV{OLD}\n";
            exit 1;
        }
        if ($ENV{OLD2} ne "") {
            $edits = 2;
            substr($s, $at, length($ENV{OLD})) = $ENV{NEW};
            ($n) = count($ENV{OLD2});
            if ($n != 1) {
                print "$p: $name: OLD2 occurs $n times, not once:\n$ENV{OLD2}\n";
                exit 1;
            }
        }
        print $edits;' "$1" "$2"); then
        printf '%s\n' "$out"
        bad=1
    else
        n_edits=$((n_edits + out))
    fi
    OLD2='' NEW2=''
}
eval "$list"

[ "$n_mutants" -gt 0 ] || { echo "tools/mutants.sh: no mutant in its list" >&2; exit 2; }
[ $bad -eq 0 ] || exit 1
echo "mutants: all $n_edits edits of $n_mutants mutants apply"
