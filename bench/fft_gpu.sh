#!/usr/bin/env bash
# fft_gpu.sh - `make bench-gpu`'s fftn against CuPy's, after bench_gpu's
# table (mk/gpu.mk): the steady-state device times of its rows "fftn
# 2000x2000" and "fftn 4000x4000", read from the table's copy in $1,
# beside cupy.fft.fftn of the same arrays (fft_cupy.py) measured now,
# where python3 (or $PY) has CuPy; skipped, saying why, elsewhere.
#   usage: bench/fft_gpu.sh BENCH_GPU_TABLE
set -u
table=${1:?usage: bench/fft_gpu.sh BENCH_GPU_TABLE}
here=$(dirname "$0")
PY=${PY:-python3}
echo
if ! "$PY" -c 'import cupy' 2> /dev/null; then
    echo "fftn against CuPy: no CuPy for $PY (pip install cupy-cuda13x," \
         "or set PY)"
    exit 0
fi
err=$(mktemp)
trap 'rm -f "$err"' EXIT
if ! theirs=$("$PY" "$here/fft_cupy.py" 2> "$err"); then
    echo "fftn against CuPy: no figure ($(tail -n 1 "$err"))"
    exit 0
fi
printf '%-40s %10s %10s %8s\n' "fftn against CuPy, steady state" ours_ms \
    cupy_ms ours/cupy
while IFS=$'\t' read -r name seconds; do
    # bench_gpu's table: columns apart by two spaces or more.
    ours=$(awk -F'  +' -v n="$name, steady state" '$1 == n { print $3 }' \
           "$table")
    [ -n "$ours" ] || continue
    awk -v n="$name" -v o="$ours" -v c="$seconds" 'BEGIN {
        printf "%-40s %10.3f %10.3f %8.2f\n", n, o, c * 1e3, o / (c * 1e3) }'
done <<< "$theirs"
echo "ours/cupy below 1.00: our cuFFT path is the faster."
