#!/usr/bin/env bash
# mpi.sh - the data-parallel section of `make bench`: one epoch of step
# 61 (step 52's MLP on 60,000 images, batches of 100) three ways, on
# this machine, in the same run:
#   one process, one BLAS thread (OPENBLAS_NUM_THREADS=1),
#   two processes under mpirun, one BLAS thread each, each taking half
#   of every batch and summing the gradients with MPI_Allreduce,
#   one process, two BLAS threads,
# and the seconds rank 0 spent in MPI_Allreduce (3.2 MB of float32
# gradients a batch), which count its waits for the other rank too; so
# build/allreduce (allreduce.c) then times the same MPI_Allreduce
# alone, each call after a barrier, and the report sets 600 of those,
# an epoch's, beside it. The epoch is the time the program prints for
# it (loading and starting are outside). Each way runs ROUNDS times
# (default 3), in turn; the report gives medians, and each ratio pairs
# figures of one round.
set -u
cd "$(dirname "$0")" || exit 1
ROUNDS=${ROUNDS:-3}
step61=$PWD/../steps/step61/step61
echo
if [ ! -x "$step61" ] || ! command -v mpirun > /dev/null; then
    echo "(data parallelism: needs steps/step61 and Open MPI's mpirun)"
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
workdir=$(mktemp -d)
trap 'rm -rf "$workdir" ${scratch:+"$scratch"}' EXIT
# CI and containers run as root, which mpirun refuses unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export DEZERO_CACHE_DIR=$cache DEZERO_EPOCHS=1 DEZERO_SEED=0

# Runs one way ($1: threads, $2: processes); prints "epoch allreduce".
run_way() {
    local out
    if [ "$2" = 1 ]; then
        out=$(cd "$workdir" && OPENBLAS_NUM_THREADS=$1 "$step61" 2>&1)
    else
        out=$(cd "$workdir" && OPENBLAS_NUM_THREADS=$1 \
            mpirun -np "$2" -x OPENBLAS_NUM_THREADS "$step61" 2>&1)
    fi || { echo "mpi.sh: step 61 failed: $out" >&2; exit 1; }
    awk '/^epoch: 1,/ { sub(/\[sec\]/, "", $6); e = $6 }
         /in MPI_Allreduce/ { r = $(NF - 2); sub(/\[sec\]/, "", r) }
         END { print e, (r == "" ? 0 : r) }' <<< "$out"
}

results=$workdir/results.txt
for ((round = 0; round < ROUNDS; round++)); do
    for way in "1 1" "1 2" "2 1"; do
        # shellcheck disable=SC2086
        echo "$round $way $(run_way $way)" >> "$results"
    done
done

echo "data parallelism, one epoch of step 61 (60,000 images, batches of" \
     "100), the median of $ROUNDS rounds, on $(nproc) cores"
awk -v rounds="$ROUNDS" '
function median(a, n,    i, j, t) {
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
            t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
        }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ epoch[$1, $2, $3] = $4; reduce[$1, $2, $3] = $5 }
END {
    split("1 1,1 2,2 1", ways, ",")
    name["1 1"] = "1 process, 1 BLAS thread"
    name["1 2"] = "2 processes (mpirun), 1 BLAS thread each"
    name["2 1"] = "1 process, 2 BLAS threads"
    printf "%-44s %10s\n", "way", "s/epoch"
    for (w = 1; w <= 3; w++) {
        split(ways[w], p, " ")
        for (r = 0; r < rounds; r++)
            a[r + 1] = epoch[r, p[1], p[2]]
        printf "%-44s %10.3f\n", name[ways[w]], median(a, rounds)
        if (ways[w] != "1 2")
            continue
        for (r = 0; r < rounds; r++)
            a[r + 1] = reduce[r, 1, 2]
        printf "%-44s %10.3f\n", "  of which rank 0 in MPI_Allreduce",
               median(a, rounds)
    }
    print ""
    for (r = 0; r < rounds; r++)
        a[r + 1] = epoch[r, 1, 2] / epoch[r, 1, 1]
    printf "%-44s %6.2f\n", "2 processes / 1 process, 1 thread", \
           median(a, rounds)
    for (r = 0; r < rounds; r++)
        a[r + 1] = epoch[r, 1, 2] / epoch[r, 2, 1]
    printf "%-44s %6.2f\n", "2 processes / 1 process, 2 threads", \
           median(a, rounds)
    for (r = 0; r < rounds; r++)
        a[r + 1] = reduce[r, 1, 2] / epoch[r, 1, 2]
    printf "%-44s %6.2f\n", "MPI_Allreduce / the epoch, 2 processes", \
           median(a, rounds)
}' "$results"
alone=$(mpirun -np 2 ./build/allreduce) ||
    { echo "mpi.sh: build/allreduce failed: $alone" >&2; exit 1; }
median=$(sed -n 's/.* median \([0-9.]*\) ms.*/\1/p' <<< "$alone")
echo
echo "$alone (each after a barrier: no waiting)"
printf '%-44s %10.3f\n' "  600 such calls (an epoch's), in s" \
    "$(awk -v m="$median" 'BEGIN { print m * 600 / 1000 }')"
echo "step 61 trained on $data"
