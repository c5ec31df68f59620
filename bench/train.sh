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
# MNIST's shapes. Everything runs ROUNDS times (default 3), in turn, and
# each row keeps its best, so that a busy moment of the machine hits
# every side alike.
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

# best[name] is the least of a row's seconds over the rounds, order
# keeps the rows in their first order; rss1 and rss3 are step 51's
# largest peaks.
declare -A best
order=()
keep() {        # rows "name<TAB>seconds", one a line
    local name seconds
    while IFS=$'\t' read -r name seconds; do
        [ -n "$name" ] || continue
        if [ -z "${best[$name]:-}" ]; then
            order+=("$name")
            best[$name]=$seconds
        elif awk -v a="$seconds" -v b="${best[$name]}" \
                 'BEGIN { exit !(a < b) }'; then
            best[$name]=$seconds
        fi
    done <<< "$1"
}
rss1=0 rss3=0
for ((round = 0; round < ROUNDS; round++)); do
    keep "$(./build/train_floor)" || exit 1
    [ "$have_numpy" = 1 ] && { keep "$($PY train_numpy.py)" || exit 1; }
    [ "$have_torch" = 1 ] && { keep "$($PY train_torch.py)" || exit 1; }
    if [ -n "$step51" ]; then
        run_step51 1
        keep "step 51, a run of 1 epoch"$'\t'"$wall"
        (( kb > rss1 )) && rss1=$kb
        run_step51 3
        keep "step 51, a run of 3 epochs"$'\t'"$wall"
        (( kb > rss3 )) && rss3=$kb
    fi
done

echo
echo "training, one epoch of step 51 (60,000 images, then the test pass" \
     "over 10,000), the best of $ROUNDS runs each"
printf '%-40s %10s\n' peer s/epoch
for name in "${order[@]}"; do
    case $name in "step 51, a run"*) continue ;; esac
    printf '%-40s %10.3f\n' "$name" "${best[$name]}"
done
if [ -z "$step51" ]; then
    echo "(the framework's own epoch arrives with step 51)"
    exit 0
fi
ours=$(awk -v a="${best[step 51, a run of 1 epoch]}" \
           -v b="${best[step 51, a run of 3 epochs]}" \
           'BEGIN { print (b - a) / 2 }')
printf '%-40s %10.3f\n' "DeZero in C, step 51" "$ours"
printf '%-40s %10.3f\n' "  (a whole run of 1 epoch: + load, start)" \
    "${best[step 51, a run of 1 epoch]}"
echo
echo "step 51 trained on $data"
# Flat memory from epoch to epoch shows as the same peak in both runs.
printf 'its peak resident memory: %.1f MB in a run of 1 epoch, %.1f MB' \
    "$(awk -v k="$rss1" 'BEGIN { print k / 1024 }')" \
    "$(awk -v k="$rss3" 'BEGIN { print k / 1024 }')"
echo " in a run of 3"
# Our ratio to each peer that does an epoch's work: not to the floor's
# rows of the training alone, which are there to show what the test
# pass and the input gradient cost.
for name in "${order[@]}"; do
    case $name in
    "step 51, a run"* | "gemm floor, training" | "gemm floor, training w/o"*)
        continue ;;
    esac
    printf '%-44s %6.2f\n' "ours / $name" \
        "$(awk -v a="$ours" -v b="${best[$name]}" 'BEGIN { print a / b }')"
done
