#!/usr/bin/env bash
# chapters.sh - the book's chapters in reading order, for the Makefile:
# the introduction; the steps (stepNN.md), each stage's introduction
# (stageN.md, N counting the parts of book.yaml) before the first step
# of that stage that there is; then the chapter after the book
# (examples.md), and the appendices (appendix-*.md). A stage page waits
# until its stage has a step.
set -u
cd "$(dirname "$0")"
ranges=$(sed -n 's/^ *steps: *\([0-9]*\) *- *\([0-9]*\).*/\1 \2/p' book.yaml)
stage_of() {   # the number of the part holding step $1, or nothing
    local i=0 first last
    while read -r first last; do
        i=$((i + 1))
        (( $1 >= first && $1 <= last )) && { echo "$i"; return; }
    done <<< "$ranges"
}
chapters=(intro.md)
shown=" "
for f in step[0-9][0-9].md; do
    [ -f "$f" ] || continue
    stage=$(stage_of "$((10#${f:4:2}))")
    if [ -n "$stage" ] && [ -f "stage$stage.md" ] &&
            [[ $shown != *" $stage "* ]]; then
        chapters+=("stage$stage.md")
        shown+="$stage "
    fi
    chapters+=("$f")
done
# After the last step, the chapter after the book: DeZero's examples/.
[ -f examples.md ] && chapters+=(examples.md)
for f in appendix-*.md; do
    [ -f "$f" ] && chapters+=("$f")
done
echo "${chapters[@]}"
