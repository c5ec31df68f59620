#!/usr/bin/env bash
# run.sh - runs bench/build/bench and, where Debian's python3 has NumPy
# (and SciPy for the FFT), the same rows in Python, in the same run; then
# prints one table with the ratio ours/NumPy per row (below 1: faster).
set -u
cd "$(dirname "$0")"
PY=/usr/bin/python3
ours=$(./build/bench) || exit 1
theirs=""
if $PY -c 'import numpy' 2>/dev/null; then
    theirs=$($PY bench_numpy.py)
else
    echo "(NumPy not found for $PY: apt-get install python3-numpy" \
         "python3-scipy to compare)"
fi
# bench.c's first line names the OpenBLAS build and kernel it ran with.
head -1 <<< "$ours"
ours=$(tail -n +2 <<< "$ours")
printf '%-32s %11s %11s %8s %11s %8s\n' row ours_ms numpy_ms ratio cblas_ms vs_cblas
while IFS=$'\t' read -r name t raw; do
    np_t=$(printf '%s\n' "$theirs" | awk -F'\t' -v n="$name" '$1 == n {print $2}')
    awk -v name="$name" -v t="$t" -v np="${np_t:-}" -v raw="$raw" 'BEGIN {
        ratio = np != "" ? sprintf("%.2f", t / np) : "-"
        npms = np != "" ? sprintf("%.3f", np * 1e3) : "-"
        rawms = raw != "-" ? sprintf("%.3f", raw * 1e3) : "-"
        vs = raw != "-" ? sprintf("%.2f", raw / t) : "-"
        printf "%-32s %11.3f %11s %8s %11s %8s\n", name, t * 1e3, npms,
               ratio, rawms, vs }'
done <<< "$ours"
echo "ratio = ours / NumPy (SciPy for fftn): below 1.00 is faster."
echo "vs_cblas = bare cblas time / ours: 1.00 means no overhead."
