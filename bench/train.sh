#!/usr/bin/env bash
# train.sh - the training section of `make bench`: seconds per epoch of
# step 51 (the MLP 784-1000-10, sigmoid, SGD, batches of 100: training
# on 60,000 images, then the test pass over 10,000) for each peer that
# this machine has, all measured in this run:
#   the GEMM floor (build/train_floor: the same matmuls, bare cblas),
#   a hand-written NumPy loop (Debian's python3-numpy),
#   PyTorch on the CPU (Debian's python3-torch),
# and the framework's own epoch (step 51's program), with our ratio to
# each peer that does the same work. The peers train on random data of
# MNIST's shapes. Everything runs ROUNDS times (default 3), in turn; the
# report gives medians over the rounds, and each ratio pairs figures of
# one round, so that a busy spell of the machine weighs on both sides.
set -u
cd "$(dirname "$0")" || exit 1
PY=/usr/bin/python3
ROUNDS=${ROUNDS:-3}
have_numpy=0 have_torch=0
if $PY -c 'import numpy' 2>/dev/null; then
    have_numpy=1
else
    echo "(no NumPy for $PY: apt-get install python3-numpy to compare)"
fi
if $PY -c 'import torch' 2>/dev/null; then
    have_torch=1
else
    echo "(no PyTorch for $PY: apt-get install python3-torch to compare)"
fi

# The framework's epoch: step 51's program, on the real MNIST where the
# cache has it, otherwise on 60,000 + 10,000 synthetic digits of MNIST's
# shapes (the suite's tests/mnist_tiny.c). A run also reads the files
# and starts up, which is no part of an epoch: its epoch is what a run
# of 3 epochs takes more than a run of 1, halved. Each run is in a
# folder of its own, so that the pictures it draws stay out of bench/.
step51=$PWD/../steps/step51/step51
[ -x "$step51" ] || step51=
cache=${DEZERO_CACHE_DIR:-$HOME/.dezero}
scratch=
if [ -z "$step51" ]; then
    :
elif [ -f "$cache/train-images-idx3-ubyte.gz" ] ||
     [ -f "$cache/train-images-idx3-ubyte" ]; then
    data="the real MNIST in $cache"
else
    scratch=$(mktemp -d)
    ./build/mnist_tiny "$scratch" 60000 10000 || exit 1
    cache=$scratch
    data="synthetic digits of MNIST's shapes (no MNIST in the cache)"
fi
workdir=$(mktemp -d)
trap 'rm -rf "$workdir" ${scratch:+"$scratch"}' EXIT

# Runs step 51 for $1 epochs; sets wall (seconds) and kb (peak RSS).
run_step51() {
    (cd "$workdir" && /usr/bin/time -f '%e %M' -o time.txt \
        env DEZERO_CACHE_DIR="$cache" DEZERO_EPOCHS="$1" "$step51" \
        >/dev/null) || { echo "train.sh: step 51 failed" >&2; exit 1; }
    read -r wall kb < <(tail -1 "$workdir/time.txt")
}

# Every figure goes to a file, a line "round<TAB>name<TAB>seconds", and
# the report below is made of it; rss1 and rss3 are step 51's largest
# peaks.
results=$workdir/results.tsv
record() {      # round, rows "name<TAB>seconds" one a line
    local name seconds
    while IFS=$'\t' read -r name seconds; do
        [ -n "$name" ] && printf '%s\t%s\t%s\n' "$1" "$name" "$seconds"
    done <<< "$2" >> "$results"
}
ONE="step 51, a run of 1 epoch" THREE="step 51, a run of 3 epochs"
rss1=0 rss3=0
for ((round = 0; round < ROUNDS; round++)); do
    if [ -n "$step51" ]; then
        run_step51 1
        record "$round" "$ONE"$'\t'"$wall"
        (( kb > rss1 )) && rss1=$kb
    fi
    rows=$(./build/train_floor) || exit 1
    record "$round" "$rows"
    if [ "$have_numpy" = 1 ]; then
        rows=$($PY train_numpy.py) || exit 1
        record "$round" "$rows"
    fi
    if [ "$have_torch" = 1 ]; then
        rows=$($PY train_torch.py) || exit 1
        record "$round" "$rows"
    fi
    if [ -n "$step51" ]; then
        run_step51 3
        record "$round" "$THREE"$'\t'"$wall"
        (( kb > rss3 )) && rss3=$kb
    fi
done

# Each row's figure is its median over the rounds, ours too: its epoch
# in a round is that round's run of 3 epochs less its run of 1, halved.
# A ratio is the median of the rounds' ratios, each of two figures of
# one round, so that a busy spell of the machine between rounds does
# not make one side look fast. Our ratios are to the peers that do an
# epoch's work: not to the floor's rows of the training alone, which
# are there to show what the test pass and the input gradient cost.
echo
echo "training, one epoch of step 51 (60,000 images, then the test pass" \
     "over 10,000), the median of $ROUNDS rounds"
awk -F'\t' -v one="$ONE" -v three="$THREE" -v rounds="$ROUNDS" '
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
    printf "%-40s %10s\n", "peer", "s/epoch"
    for (k = 1; k <= count; k++) {
        name = names[k]
        if (name == one || name == three)
            continue
        for (r = 0; r < rounds; r++)
            a[r + 1] = value[r, name]
        printf "%-40s %10.3f\n", name, median(a, rounds)
    }
    if (!(one in seen))
        exit
    for (r = 0; r < rounds; r++) {
        ours[r] = (value[r, three] - value[r, one]) / 2
        a[r + 1] = ours[r]
    }
    printf "%-40s %10.3f\n", "DeZero in C, step 51", median(a, rounds)
    for (r = 0; r < rounds; r++)
        a[r + 1] = value[r, one]
    printf "%-40s %10.3f\n", "  (a whole run of 1 epoch: + load, start)",
           median(a, rounds)
    print ""
    for (k = 1; k <= count; k++) {
        name = names[k]
        if (name == one || name == three || name == "gemm floor, training" ||
            name ~ /^gemm floor, training w\/o/)
            continue
        for (r = 0; r < rounds; r++)
            a[r + 1] = ours[r] / value[r, name]
        printf "%-44s %6.2f\n", "ours / " name, median(a, rounds)
    }
}' "$results"
if [ -z "$step51" ]; then
    echo "(the framework's own epoch arrives with step 51)"
    exit 0
fi
echo
echo "step 51 trained on $data"
# Flat memory from epoch to epoch shows as the same peak in both runs.
printf 'its peak resident memory: %.1f MB in a run of 1 epoch, %.1f MB' \
    "$(awk -v k="$rss1" 'BEGIN { print k / 1024 }')" \
    "$(awk -v k="$rss3" 'BEGIN { print k / 1024 }')"
echo " in a run of 3"
