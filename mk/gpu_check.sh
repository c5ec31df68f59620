#!/usr/bin/env bash
# gpu_check.sh - the parts of `make gpu-check`, run by mk/gpu.mk once
# everything is built and the GPU has answered; then one table: each
# part, pass or fail, its seconds, its key figures.
#   (a) common's GPU cases           tests/.../gpu/test_gpu --gpu-only
#   (b) step 52's device cases       tests/.../gpu/test_device --gpu-only
#       and step 60's, which add those of steps 53-60: test_device_60
#   (c) step 52 for one epoch        DEZERO_EPOCHS=1 steps/step52/step52,
#       on MNIST where the cache ($DEZERO_CACHE_DIR, else ~/.dezero) has
#       it, otherwise on synthetic digits of MNIST's shapes
#       (tests/mnist_tiny.c, as bench/train.sh does)
#   (d) step 52's tour of device arrays   steps/step52/tour
#   (e) make bench-gpu's table       bench/build/bench_gpu (its training
#       section, bench/train_gpu.sh, is (c) set against (e)'s floor)
#   (f) the PTX path                 (a) again with CUDA_FORCE_PTX_JIT=1:
#       the driver compiles the library's PTX instead of loading its
#       machine code, as on a GPU newer than the library knows
#   (g) (h) (i) steps 57, 58 (VGG16, random weights) and 60 (an epoch of
#       the LSTM) on the device against the host: steps_on_device N
#   (j) the GAN of examples/ (Python runs gan.py on a GPU): ten seeded
#       batches of synthetic digits on the device and on the host, whose
#       printed losses must be the same, then one epoch on the device on
#       the data of (c), which must write its grid, gan_1.png
# Each part's whole output goes to $GPU_CHECK_LOGS (by default
# tests/build/VARIANT/gpu-check/); the tour's and the benchmark's are
# also printed, and the last lines of a part that fails. Each part may
# take PART_TIMEOUT seconds (180). Exits 1 when a part failed.
#   usage: mk/gpu_check.sh VARIANT
# A visit can be rehearsed without a GPU, after `make test`, against the
# suite's stand-in for the GPU library (tests/gpu/host_gpu.c), which
# computes on the CPU:
#   ND_GPU_LIBRARY=$PWD/tests/build/default/lib/libhost_gpu.so \
#   LD_LIBRARY_PATH=$PWD/tests/build/default/gpu/driver make gpu-check
# Every part then runs its C and its scripts; its times say nothing,
# and the GAN's epoch (j) runs out of time on a CPU.
set -u
cd "$(dirname "$0")/.." || exit 1
variant=${1:-default}
logs=${GPU_CHECK_LOGS:-tests/build/$variant/gpu-check}
limit=${PART_TIMEOUT:-180}
gpu=tests/build/$variant/gpu
step=steps/step52
bin=$step
[ "$variant" = default ] || bin=$step/build/$variant
mkdir -p "$logs" || exit 1
logs=$(cd "$logs" && pwd)

# The data for (c), made in the background while (a) and (b) run.
cache=${DEZERO_CACHE_DIR:-$HOME/.dezero}
scratch=
if [ -f "$cache/train-images-idx3-ubyte.gz" ] ||
   [ -f "$cache/train-images-idx3-ubyte" ]; then
    data=MNIST
else
    scratch=$(mktemp -d)
    cache=$scratch
    data="synthetic digits"
    "$gpu/mnist_tiny" "$scratch" 60000 10000 > "$logs/mnist_tiny.log" 2>&1 &
    data_maker=$!
fi
workdir=$(mktemp -d)
trap 'rm -rf "$workdir" ${scratch:+"$scratch"}' EXIT

rows=()         # "part|result|seconds|figures"
failed=0

# Runs one part: its name, its log's name, then the command. Sets
# status (the command's exit status) and seconds.
part() {
    local name=$1 log=$logs/$2.log start end
    shift 2
    echo "== $name"
    start=$(date +%s.%N)
    timeout "$limit" "$@" > "$log" 2>&1
    status=$?
    end=$(date +%s.%N)
    seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
    [ "$status" -eq 124 ] && echo "(stopped after $limit s)" >> "$log"
}

# Adds the row of the part just run, pass when ok is 0; a part that
# failed shows the end of its log, unless it was shown whole.
row() {    # name ok figures log [shown]
    local result=pass
    if [ "$2" -ne 0 ]; then
        result=FAIL
        failed=$((failed + 1))
        [ -n "${5:-}" ] || tail -n 15 "$logs/$4.log" | sed 's/^/   | /'
    fi
    rows+=("$1|$result|$seconds|$3")
}

# cmocka's counts: "12 passed, 0 failed, 1 skipped".
counts() {
    local p f s
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -1)
    s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$1" | tail -1)
    echo "${p:-0} passed, ${f:-0} failed, ${s:-0} skipped"
}

part "(a) common: test_gpu --gpu-only" test_gpu "$gpu/test_gpu" --gpu-only
row "(a) test_gpu --gpu-only" "$status" "$(counts "$logs/test_gpu.log")" \
    test_gpu

part "(b) step 52: test_device --gpu-only" test_device \
    "$gpu/test_device" --gpu-only
row "(b) test_device --gpu-only" "$status" \
    "$(counts "$logs/test_device.log")" test_device

part "(b) step 60: test_device --gpu-only" test_device_60 \
    "$gpu/test_device_60" --gpu-only
row "(b) step 60 test_device" "$status" \
    "$(counts "$logs/test_device_60.log")" test_device_60

if [ -n "$scratch" ] && ! wait "$data_maker"; then
    cat "$logs/mnist_tiny.log"
    echo "gpu-check: the synthetic digits could not be written" >&2
    exit 1
fi
program=$PWD/$bin/step52
part "(c) step 52, one epoch on $data" step52 \
    bash -c 'cd "$1" && DEZERO_CACHE_DIR="$2" DEZERO_EPOCHS=1 "$3"' _ \
    "$workdir" "$cache" "$program"
# "epoch: 1, loss: 1.9089, time: 6.54[sec]", less its first field.
epoch=$(grep -m1 '^epoch' "$logs/step52.log" | sed 's/^epoch[^,]*, *//')
row "(c) step52, 1 epoch" "$status" "${epoch:-no epoch line}" step52

part "(d) step 52's tour" tour "$bin/tour"
cat "$logs/tour.log"    # shown whole: its figures are the visit's point
# x2's line of the device fftn: "x2  1.234 ms  100.0x the host's speed;
# allclose to the host's: yes", and its copy to the device in GB/s.
tour=$(awk '/x the host.s speed/ && $1 == "x2" {
                f = "fftn " $4 " the host, allclose " $NF }
            /GB\/s/ && $1 == "x2" { g = ", " $4 " GB/s in" }
            END { print f g }' "$logs/tour.log")
row "(d) tour" "$status" "${tour:-no device figures}" tour shown

part "(e) make bench-gpu" bench_gpu bench/build/bench_gpu
cat "$logs/bench_gpu.log"
# A result that differs from the host's fails the benchmark too.
if [ "$status" -eq 0 ] && grep -q -e ': NO' -e 'NOT EQUAL' \
        "$logs/bench_gpu.log"; then
    status=1
fi
# bench_gpu's table: the row's name in 40 columns, the speedup in
# columns 64-71, the notes from column 74 ("1234 GFLOP/s; ...").
bench=$(awk 'function field(from, width) {
                 s = substr($0, from, width); gsub(/^ +| +$/, "", s); return s }
             field(1, 40) == "fftn 4000x4000, steady state" {
                 f = "fftn 4000x4000 " field(64, 8) }
             field(1, 40) == "matmul f32 (100,784)@(784,1000)" {
                 split(field(74, 40), n, " "); m = ", matmul " n[1] " GFLOP/s" }
             END { print f m }' "$logs/bench_gpu.log")
# Step 52's epoch, from (c), against the floor of its products alone.
floor=$(awk -F'  +' '$1 == "step 52 epoch, its GEMMs alone" { print $3 }' \
        "$logs/bench_gpu.log")
seconds52=$(sed -n 's/.*time: \([0-9.]*\)\[sec\].*/\1/p' \
            "$logs/step52.log" | head -1)
if [ -n "$floor" ] && [ -n "$seconds52" ]; then
    bench+=$(awk -v e="$seconds52" -v f="$floor" \
             'BEGIN { printf ", epoch %.0fx its GEMM floor", e * 1000 / f }')
fi
row "(e) make bench-gpu" "$status" "${bench:-no figures}" bench_gpu shown

part "(f) test_gpu, PTX compiled by the driver" test_gpu_ptx \
    env CUDA_FORCE_PTX_JIT=1 "$gpu/test_gpu" --gpu-only
row "(f) test_gpu, PTX JIT" "$status" "$(counts "$logs/test_gpu_ptx.log")" \
    test_gpu_ptx

for n in 57 58 60; do
    letter=$(case $n in 57) echo g ;; 58) echo h ;; *) echo i ;; esac)
    part "($letter) step $n on the device" step${n}_device \
        "$gpu/steps_on_device" "$n"
    cat "$logs/step${n}_device.log"
    # Its first line, less "step N: ".
    figures=$(head -1 "$logs/step${n}_device.log" | sed 's/^step [0-9]*: //')
    row "($letter) step $n on device" "$status" "${figures:-no figures}" \
        "step${n}_device" shown
done

# (j) The GAN; the host run is the same program with the GPU library
# hidden from it. Its loss lines: "epoch: 0.50, loss_g: 0.7348, ...".
gan=$PWD/examples/gan
[ "$variant" = default ] || gan=$PWD/examples/build/$variant/gan
gan_run=(bash -c 'mkdir -p "$1" && cd "$1" &&
                  env DEZERO_CACHE_DIR="$2" DEZERO_EPOCHS=1 "${@:3}" "$0"'
         "$gan")    # then: folder, data, more environment...
mkdir -p "$workdir/digits" &&
    "$gpu/mnist_tiny" "$workdir/digits" 1280 100 > "$logs/gan_digits.log" 2>&1
part "(j) gan, ten seeded batches on the device" gan_device \
    "${gan_run[@]}" "$workdir/gan_device" "$workdir/digits" DEZERO_SEED=0 \
    DEZERO_INTERVAL=5
ok=$status
part "(j) gan, the same on the host" gan_host \
    "${gan_run[@]}" "$workdir/gan_host" "$workdir/digits" DEZERO_SEED=0 \
    DEZERO_INTERVAL=5 ND_GPU_LIBRARY=/nonexistent
[ "$status" -eq 0 ] || ok=$status
device_losses=$(grep '^epoch' "$logs/gan_device.log")
host_losses=$(grep '^epoch' "$logs/gan_host.log")
if [ "$ok" -ne 0 ] || [ -z "$device_losses" ]; then
    ok=1
    figures="a run failed"
elif [ "$device_losses" = "$host_losses" ]; then
    figures="the host's losses, $(echo "$device_losses" | tail -1)"
else
    ok=1
    figures="losses differ from the host's"
    diff <(echo "$device_losses") <(echo "$host_losses") | head -8
fi
row "(j) gan, seeded vs host" "$ok" "$figures" gan_device
part "(j) gan, one epoch on $data" gan_epoch \
    "${gan_run[@]}" "$workdir/gan_epoch" "$cache"
[ -s "$workdir/gan_epoch/gan_1.png" ] || status=1
figures=$(grep '^epoch' "$logs/gan_epoch.log" | tail -1)
row "(j) gan, 1 epoch" "$status" "${figures:-no loss line}" gan_epoch

name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null |
       head -1)
echo
echo "gpu-check on ${name:-the GPU}; (c) trained on $data; logs in $logs"
printf '%-26s %-6s %7s  %s\n' part result seconds "key figures"
for r in "${rows[@]}"; do
    IFS='|' read -r name result secs figures <<< "$r"
    printf '%-26s %-6s %7s  %s\n' "$name" "$result" "$secs" "$figures"
done
if [ "$failed" -gt 0 ]; then
    echo "gpu-check: $failed of ${#rows[@]} parts failed"
    exit 1
fi
echo "gpu-check: all ${#rows[@]} parts passed"
