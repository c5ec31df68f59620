#!/usr/bin/env bash
# train_gpu.sh - the training section of `make bench-gpu`, run after
# bench_gpu's table (mk/gpu.mk): an epoch of step 52 on the GPU against
# the peers measured in this run:
#   the GEMM floor, its 3,600 products alone (bench_gpu's row "step 52
#   epoch, its GEMMs alone", read from the table's copy in $2),
#   PyTorch on the GPU (train_torch_gpu.py) where python3 (or $PY) has
#   a PyTorch that sees a CUDA device; skipped, saying why, elsewhere,
# each with ours / the peer. Step 52 trains 3 epochs (DEZERO_EPOCHS=3):
# the first also starts cuBLAS and fills the memory pool, so the epoch
# compared is the better of the other two. It trains on MNIST where
# the cache ($DEZERO_CACHE_DIR, else ~/.dezero) has it, otherwise on
# synthetic digits of MNIST's shapes (tests/mnist_tiny.c), as
# gpu-check and bench/train.sh do; the time is the same either way.
#   usage: bench/train_gpu.sh VARIANT BENCH_GPU_TABLE
set -u
cd "$(dirname "$0")/.." || exit 1
variant=${1:-default}
table=${2:?usage: bench/train_gpu.sh VARIANT BENCH_GPU_TABLE}
PY=${PY:-python3}
bin=steps/step52
[ "$variant" = default ] || bin=$bin/build/$variant
program=$PWD/$bin/step52
cache=${DEZERO_CACHE_DIR:-$HOME/.dezero}
scratch=
if [ -f "$cache/train-images-idx3-ubyte.gz" ] ||
   [ -f "$cache/train-images-idx3-ubyte" ]; then
    data="MNIST"
else
    scratch=$(mktemp -d)
    "tests/build/$variant/gpu/mnist_tiny" "$scratch" 60000 10000 \
        > /dev/null || exit 1
    cache=$scratch
    data="synthetic digits of MNIST's shapes (no MNIST in the cache)"
fi
workdir=$(mktemp -d)
trap 'rm -rf "$workdir" ${scratch:+"$scratch"}' EXIT

echo
echo "training, an epoch of step 52 on the GPU (60,000 images, batches" \
     "of 100) on $data"
(cd "$workdir" && DEZERO_CACHE_DIR="$cache" DEZERO_EPOCHS=3 "$program") \
    > "$workdir/step52.log" 2>&1 ||
    { tail -n 15 "$workdir/step52.log"; echo "train_gpu.sh: step 52 failed" >&2
      exit 1; }
if grep -q "training on the CPU" "$workdir/step52.log"; then
    grep "training on the CPU" "$workdir/step52.log" >&2
    echo "train_gpu.sh: step 52 did not train on the GPU" >&2
    exit 1
fi
# "epoch: 2, loss: 1.2740, time: 2.1804[sec]": the seconds of each.
times=$(sed -n 's/^epoch: [0-9]*,.*time: \([0-9.]*\)\[sec\].*/\1/p' \
        "$workdir/step52.log")
first=$(head -1 <<< "$times")
ours=$(tail -n +2 <<< "$times" | sort -g | head -1)
if [ -z "$ours" ]; then
    echo "train_gpu.sh: no epoch lines from step 52" >&2
    exit 1
fi
# bench_gpu's table: columns apart by two spaces or more; device_ms third.
floor_ms=$(awk -F'  +' '$1 == "step 52 epoch, its GEMMs alone" { print $3 }' \
           "$table")

line() {    # name seconds [ratio]
    printf '%-46s %10s %10s\n' "$1" "$2" "${3:-}"
}
ratio() {   # ours / peer
    awk -v a="$ours" -v b="$1" 'BEGIN { printf "%.2fx", a / b }'
}
line peer s/epoch ours/peer
line "DeZero in C, step 52 (epoch 1, with start-up)" "$first"
line "DeZero in C, step 52 (best of epochs 2, 3)" "$ours"
if [ -n "$floor_ms" ]; then
    floor=$(awk -v ms="$floor_ms" 'BEGIN { printf "%.4f", ms / 1000 }')
    line "its GEMMs alone (bench_gpu's floor)" "$floor" "$(ratio "$floor")"
else
    echo "(no GEMM floor: bench_gpu's table has no row for it)"
fi
if ! "$PY" -c 'import torch' 2> /dev/null; then
    echo "(no PyTorch for $PY to compare with: pip install torch, or set PY)"
elif torch=$("$PY" bench/train_torch_gpu.py 2> "$workdir/torch.err"); then
    IFS=$'\t' read -r name seconds <<< "$torch"
    seconds=$(awk -v s="$seconds" 'BEGIN { printf "%.4f", s }')
    line "$name" "$seconds" "$(ratio "$seconds")"
else
    echo "(no PyTorch figure: $(tail -n 1 "$workdir/torch.err"))"
fi
echo "ours/peer: step 52's epoch over the peer's; above 1.00 is slower."
