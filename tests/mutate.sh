#!/usr/bin/env bash
# mutate.sh - mutation testing: does the suite notice what a reader
# breaks? Each mutant in tests/mutants/ is a small patch (a bug a reader
# could write); the script applies it, runs the narrowest suite that
# should catch it, `tests/run.sh N`, and takes the patch back out.
# A mutant the suite does not fail on survives: a gap in the tests.
#
#   tests/mutate.sh                 every mutant
#   tests/mutate.sh NAME...         the mutants named (file names without
#                                   .patch, or their paths)
#
# A mutant is `git diff` output with a header before it (git apply skips
# text before the first "diff --git"):
#   Step: 39                        the step whose suite must kill it
#   What: one line saying what the mutant breaks
# Make one: change a file, `git diff > tests/mutants/NAME.patch`, add the
# two header lines on top, and `git checkout` the file.
#
# It ends with the kill rate, the time, and the survivors; it fails when
# one survives. Each killed mutant is shown with the first failure the
# suite listed, which must name the step, the file and what differs.
# The patches are applied to the working tree, so the files they touch
# must have no uncommitted changes; they are restored on any exit.
set -u
cd "$(dirname "$0")/.."
unset MAKEFLAGS MFLAGS

mutants=()
if [ $# -gt 0 ]; then
    for name in "$@"; do
        name=${name##*/}
        mutants+=("tests/mutants/${name%.patch}.patch")
    done
else
    mutants=(tests/mutants/*.patch)
fi

applied=""
restore() {
    if [ -n "$applied" ]; then
        git apply -R "$applied" || echo "mutate.sh: could not take out" \
            "$applied; restore its files with git checkout" >&2
        applied=""
    fi
}
trap restore EXIT
trap 'exit 130' INT TERM

killed=0 total=0 survivors=() start=$SECONDS
log=$(mktemp)
trap 'restore; rm -f "$log"' EXIT

for patch in "${mutants[@]}"; do
    [ -f "$patch" ] || { echo "mutate.sh: no mutant $patch" >&2; exit 2; }
    name=$(basename "$patch" .patch)
    step=$(sed -n 's/^Step: *\([0-9]*\).*/\1/p' "$patch" | head -1)
    what=$(sed -n 's/^What: *//p' "$patch" | head -1)
    [ -n "$step" ] || { echo "mutate.sh: $patch has no Step: line" >&2; exit 2; }
    files=$(sed -n 's|^+++ b/||p' "$patch")
    # shellcheck disable=SC2086
    if ! git diff --quiet HEAD -- $files; then
        echo "mutate.sh: $patch touches files with uncommitted changes:" \
             $files >&2
        exit 2
    fi
    if ! git apply "$patch"; then
        echo "mutate.sh: $patch does not apply; update it" >&2
        exit 2
    fi
    applied=$patch
    total=$((total + 1))
    t0=$SECONDS
    tests/run.sh "$step" > "$log" 2>&1
    status=$?
    restore
    seconds=$((SECONDS - t0))
    if [ $status -ne 0 ]; then
        killed=$((killed + 1))
        first=$(sed -n '/^Failed (program: test/{n;p;q}' "$log" | sed 's/^ *//')
        printf 'killed    %-34s %3ss  step %s\n          %s\n' "$name" \
               "$seconds" "$step" "${first:-(run.sh failed: $(tail -1 "$log"))}"
    else
        survivors+=("$name (step $step): $what")
        printf 'SURVIVED  %-34s %3ss  step %s: %s\n' "$name" "$seconds" \
               "$step" "$what"
    fi
done

elapsed=$((SECONDS - start))
echo
echo "$killed of $total mutants killed ($((total ? 100 * killed / total : 0))%)" \
     "in $((elapsed / 60)) min $((elapsed % 60)) s"
if [ ${#survivors[@]} -gt 0 ]; then
    echo "Survivors (the suite does not notice these):"
    printf '  %s\n' "${survivors[@]}"
    exit 1
fi
