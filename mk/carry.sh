#!/usr/bin/env bash
# carry.sh - carries a fix made in one step to every later step that
# holds the same code (CONTRIBUTING.md 6, carrying a fix with carry.sh).
#
#   mk/carry.sh N          apply the uncommitted change to steps/stepNN
#                          to each later step
#   mk/carry.sh N --check  only say where it would and would not apply
#
# The change is `git diff` of steps/stepNN (staged or not). Each later
# step gets the same patch with its own paths; a step whose code around
# the change differs is named and left alone, to fix by hand (then run
# this again from that step). `make test` builds and runs every step, so
# a copy that was missed shows up there.
set -u
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '5,7p' "$0"; exit 2; }
from=$(printf '%02d' "$((10#$1))")
check=${2:-}
patch=$(git diff HEAD -- "steps/step$from")
[ -n "$patch" ] || { echo "carry.sh: steps/step$from has no change"; exit 2; }

status=0
for dir in steps/step[0-9][0-9]; do
    to=${dir#steps/step}
    (( 10#$to > 10#$from )) || continue
    moved=$(sed -e "s#\(^\(---\|+++\) [ab]/steps/step\)$from/#\1$to/#" \
                -e "s#^\(diff --git a/steps/step\)$from/\(.* b/steps/step\)$from/#\1$to/\2$to/#" \
            <<< "$patch")
    if git apply --check <<< "$moved" 2>/dev/null; then
        [ "$check" = --check ] || git apply <<< "$moved"
        echo "step$to: applied${check:+ (check only)}"
    elif git apply --reverse --check <<< "$moved" 2>/dev/null; then
        echo "step$to: already has it"
    else
        echo "step$to: does not apply; its code differs here, fix by hand"
        status=1
    fi
done
exit $status
