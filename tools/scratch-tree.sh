# Sourced by tools/mutants.sh and tools/mutation-score.sh: both plant bugs
# in a copy of the tree, never in the tree itself.
# scratch_tree ROOT SCRATCH: copies ROOT's tracked files as they are now
# (edits included, times kept) into SCRATCH/tree, and links SCRATCH/shared
# to $SHARED, so that tests reading ../shared from the tree find it beside
# the copy.
scratch_tree() {
    mkdir -p "$2/tree" || return 1
    ln -sfn "$SHARED" "$2/shared" || return 1
    (cd "$1" && git ls-files -z | xargs -0 cp -p --parents -t "$2/tree")
}
