#!/usr/bin/env bash
# diff.sh - what step NN adds to the step before: `make diff STEP=NN`.
# The book's diffs (docs/filters/book.lua) come from here too, so the two
# always agree: one tool, `git diff --no-index --histogram`, which keeps a
# deleted function and a new one apart instead of interleaving their
# braces, follows a renamed file (core_simple.c -> core.c in step 32) and,
# in colour, shows code that moved unchanged as moved (step 23 moves most
# of main.c into dezero/). A file the step drops is one line, not its
# whole text: `step52/tour.c: removed in step 53 (250 lines)`.
#
#   mk/diff.sh PREV NN            the two steps' sources (what git does
#                                 not ignore: no builds, no binaries)
#   mk/diff.sh PREV NN FILE       one file of the two steps (main.c,
#                                 dezero/core.c)
#   mk/diff.sh --files OLD NEW    two files (the book's one-definition
#                                 diffs); either may be /dev/null
# Options, before the rest:
#   -U N      lines of context (3)
#   --book    for the book's filter: no pager, and moved lines marked by
#             colour codes (below) whatever the terminal
set -u
cd "$(dirname "$0")/.."
root=$PWD
context=3
book=false
files=false
while [ $# -gt 0 ]; do
    case $1 in
        -U) context=$2; shift 2 ;;
        --book) book=true; shift ;;
        --files) files=true; shift ;;
        *) break ;;
    esac
done
usage() {
    sed -n '11,16p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

git_diff=(git -c core.quotePath=false diff --no-index --histogram
          --find-renames --no-prefix "-U$context")
if $book; then
    # The filter reads a line's first colour to tell added (green) from
    # added by a move (cyan), removed (red) from moved away (magenta);
    # everything else is left uncoloured. --color-moved=blocks counts a
    # run of lines as moved when it has 20 letters or digits or more, so
    # a lone `}` never does.
    git_diff=(git -c color.diff.old=red -c color.diff.new=green
              -c color.diff.oldMoved=magenta
              -c color.diff.oldMovedAlternative=magenta
              -c color.diff.newMoved=cyan
              -c color.diff.newMovedAlternative=cyan
              -c color.diff.meta=normal -c color.diff.frag=normal
              -c color.diff.func=normal -c color.diff.context=normal
              "${git_diff[@]:1}" --no-ext-diff --color=always
              --color-moved=blocks --ws-error-highlight=none)
else
    # In a terminal: moved code dimmed, so that what changed stands out.
    git_diff+=(--color-moved=dimmed-zebra)
fi

run() {
    if $book; then
        GIT_PAGER=cat "${git_diff[@]}" "$@"
    else
        "${git_diff[@]}" "$@"
    fi
    # git diff exits 1 when the inputs differ, which is no error here.
    [ $? -le 1 ]
}

if $files; then
    [ $# -eq 2 ] || usage
    run "$1" "$2"
    exit
fi
[ $# -eq 2 ] || [ $# -eq 3 ] || usage
prev=$(printf '%02d' "$((10#$1))") nn=$(printf '%02d' "$((10#$2))")
for n in "$prev" "$nn"; do
    [ -d "steps/step$n" ] || { echo "there is no steps/step$n" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The one line for a file the step drops (the book's filter reads it).
removed() {   # PATH LINES
    echo "$1: removed in step $((10#$nn)) ($2 lines)"
}
if [ $# -eq 3 ]; then
    file=$3
    [ -f "steps/step$prev/$file" ] || [ -f "steps/step$nn/$file" ] || {
        echo "neither steps/step$prev nor steps/step$nn has $file" >&2
        exit 2; }
    old=steps/step$prev/$file new=steps/step$nn/$file
    [ -f "$old" ] || old=/dev/null
    [ -f "$new" ] || new=/dev/null
    if [ "$new" = /dev/null ]; then
        removed "${old#steps/}" "$(wc -l < "$old")"
        exit
    fi
    # From the steps folder, so that the paths read step01/main.c.
    cd steps && run "${old#steps/}" "${new#steps/}"
    exit
fi
for n in "$prev" "$nn"; do
    mkdir -p "$tmp/step$n"
    (cd "steps/step$n" &&
     git ls-files --cached --others --exclude-standard -z . |
         xargs -0 -r cp --parents -t "$tmp/step$n")
done
cd "$tmp" || exit 1
# The files the step drops (not those it renames) leave the diff, and
# each becomes one line after it.
gone=()
while IFS=$'\t' read -r status path; do
    [ "$status" = D ] && gone+=("$path")
done < <("${git_diff[0]}" diff --no-index --find-renames --no-prefix \
         --name-status "step$prev" "step$nn")
lines=()
for path in "${gone[@]}"; do
    lines+=("$(wc -l < "$path")")
    rm "$path"
done
run "step$prev" "step$nn" || exit 1
for i in "${!gone[@]}"; do
    removed "${gone[$i]}" "${lines[$i]}"
done
