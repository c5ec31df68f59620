#!/usr/bin/env bash
# diff.sh - what step NN adds to the step before: `make diff STEP=NN`.
# Compares the two folders' sources (what git does not ignore: no
# builds, no binaries), and follows a renamed file, so that step 32's
# core_simple.c -> core.c shows as the lines that changed.
set -u
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: mk/diff.sh PREV NN" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in "$1" "$2"; do
    [ -d "steps/step$n" ] || { echo "there is no steps/step$n" >&2; exit 2; }
    mkdir -p "$tmp/step$n"
    (cd "steps/step$n" &&
     git ls-files --cached --others --exclude-standard -z . |
         xargs -0 -r cp --parents -t "$tmp/step$n")
done
cd "$tmp" && git diff --no-index --find-renames "step$1" "step$2"
test $? -le 1
