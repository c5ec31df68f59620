#!/usr/bin/env bash
# train.sh - the training section of `make bench`: seconds per epoch of
# step 51's MLP (784-1000-10, sigmoid, SGD, batches of 100, 60,000
# images) for each peer that this machine has, measured in this run:
#   the GEMM floor (build/train_floor: the same matmuls, bare cblas),
#   a hand-written NumPy loop (Debian's python3-numpy),
#   PyTorch on the CPU (Debian's python3-torch),
# and the framework's own epoch (step 51's program) with our ratio to
# each. The peers train on random data of MNIST's shapes.
set -u
cd "$(dirname "$0")"
PY=/usr/bin/python3
rows=$(./build/train_floor) || exit 1
if $PY -c 'import numpy' 2>/dev/null; then
    rows+=$'\n'$($PY train_numpy.py) || exit 1
else
    echo "(no NumPy for $PY: apt-get install python3-numpy to compare)"
fi
if $PY -c 'import torch' 2>/dev/null; then
    rows+=$'\n'$($PY train_torch.py) || exit 1
else
    echo "(no PyTorch for $PY: apt-get install python3-torch to compare)"
fi
echo
echo "training, one epoch of step 51's MLP (random data of MNIST's shapes)"
printf '%-40s %10s\n' peer s/epoch
while IFS=$'\t' read -r name seconds; do
    printf '%-40s %10.3f\n' "$name" "$seconds"
done <<< "$rows"

# The framework's own epoch: step 51's program run for one epoch
# (DEZERO_EPOCHS=1), on the real MNIST where the cache has it, otherwise
# on 60,000 + 10,000 synthetic digits of MNIST's shapes (the suite's
# tests/mnist_tiny.c). Its time includes reading the files and the test
# pass over 10,000 images, which the peers' rows do not: the ratios
# below are, if anything, against us.
step51=../steps/step51/step51
if [ ! -x "$step51" ]; then
    echo "(the framework's own epoch arrives with step 51)"
    exit 0
fi
cache=${DEZERO_CACHE_DIR:-$HOME/.dezero}
scratch=
if [ -f "$cache/train-images-idx3-ubyte.gz" ] ||
   [ -f "$cache/train-images-idx3-ubyte" ]; then
    data="the real MNIST in $cache"
else
    scratch=$(mktemp -d)
    ./build/mnist_tiny "$scratch" 60000 10000 || exit 1
    cache=$scratch
    data="synthetic digits of MNIST's shapes (no MNIST in the cache)"
fi
# It runs in a folder of its own: the pictures it draws stay out of bench/.
workdir=$(mktemp -d)
rss=$PWD/build/step51.rss
start=$(date +%s.%N)
(cd "$workdir" && /usr/bin/time -f %M -o "$rss" \
    env DEZERO_CACHE_DIR="$cache" DEZERO_EPOCHS=1 "$OLDPWD/$step51" \
    >/dev/null) || { echo "train.sh: step 51 failed" >&2; exit 1; }
end=$(date +%s.%N)
rm -rf "$workdir" ${scratch:+"$scratch"}
ours=$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')
printf '%-40s %10.3f\n' "DeZero in C, step 51 (+ load + test)" "$ours"
echo
echo "step 51 trained on $data"
printf 'its peak resident memory: %d MB\n' \
    $(( $(tail -1 build/step51.rss) / 1024 ))
while IFS=$'\t' read -r name seconds; do
    printf '%-44s %6.2f\n' "ours / $name" \
        "$(awk -v a="$ours" -v b="$seconds" 'BEGIN { print a / b }')"
done <<< "$rows"
