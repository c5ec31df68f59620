#!/usr/bin/env bash
# train.sh - the training section of `make bench`: seconds per epoch of
# step 51's MLP (784-1000-10, sigmoid, SGD, batches of 100, 60,000
# images) for each peer that this machine has, measured in this run:
#   the GEMM floor (build/train_floor: the same matmuls, bare cblas),
#   a hand-written NumPy loop (Debian's python3-numpy),
#   PyTorch on the CPU (Debian's python3-torch),
# and our ratio to each once the framework's own epoch can be timed
# (step 51). The peers train on random data of MNIST's shapes.
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
if [ ! -d ../steps/step51 ]; then
    echo "(the framework's own epoch, and its ratio to each peer, arrive" \
         "with step 51)"
fi
