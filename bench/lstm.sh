#!/usr/bin/env bash
# lstm.sh - the recurrent section of `make bench`: step 60's whole run
# (100 epochs of its LSTM on the noisy sine, seeded, then the prediction
# and its picture) against the floor under it, build/lstm_floor: the
# same matrix products, bare cblas_dgemm, on one thread and on
# OpenBLAS's own. Everything runs ROUNDS times (default 3), in turn;
# the report gives medians, and each ratio pairs figures of one round.
# Issue 16 compares step 60 with the Python DeZero's step60.py, which a
# reader's machine does not have: its closing note does, with this
# floor to show how far any program doing the same products can go.
set -u
cd "$(dirname "$0")" || exit 1
ROUNDS=${ROUNDS:-3}
step60=$PWD/../steps/step60/step60
if [ ! -x "$step60" ]; then
    echo "(the recurrent section arrives with step 60)"
    exit 0
fi
workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT

# Every figure goes to a file, a line "round<TAB>name<TAB>seconds".
results=$workdir/results.tsv
STEP60="step 60, 100 epochs"
for ((round = 0; round < ROUNDS; round++)); do
    (cd "$workdir" && /usr/bin/time -f '%e' -o time.txt \
        env DEZERO_SEED=0 "$step60" > /dev/null) ||
        { echo "lstm.sh: step 60 failed" >&2; exit 1; }
    printf '%s\t%s\t%s\n' "$round" "$STEP60" \
        "$(tail -1 "$workdir/time.txt")" >> "$results"
    ./build/lstm_floor | sed "s/^/$round\t/" >> "$results" || exit 1
done

echo
echo "recurrent, step 60's whole run (100 epochs of an LSTM of 100" \
     "features on batches of 30, float64), the median of $ROUNDS rounds"
awk -F'\t' -v ours="$STEP60" -v rounds="$ROUNDS" '
function median(a, n,    i, j, t) {
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
            t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
        }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
    if (!($2 in seen)) { seen[$2] = 1; names[++count] = $2 }
    value[$1, $2] = $3
}
END {
    printf "%-40s %10s\n", "peer", "seconds"
    for (k = 1; k <= count; k++) {
        for (r = 0; r < rounds; r++)
            a[r + 1] = value[r, names[k]]
        printf "%-40s %10.3f\n", names[k], median(a, rounds)
    }
    print ""
    for (k = 1; k <= count; k++) {
        if (names[k] == ours)
            continue
        for (r = 0; r < rounds; r++)
            a[r + 1] = value[r, ours] / value[r, names[k]]
        printf "%-44s %6.2f\n", "step 60 / " names[k], median(a, rounds)
    }
}' "$results"
echo "(step 60's run also starts up, computes its gates and updates," \
     "and predicts 1,000 values)"
