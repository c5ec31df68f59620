#!/usr/bin/env bash
# run.sh - runs bench/build/bench and, where Debian's python3 has NumPy
# (and SciPy for the FFT), the same rows in Python; then prints one table
# with the ratio ours/NumPy per row (below 1: faster).
# The two programs run in turn ROUNDS times (default 3) and each row keeps
# its best time, so that a busy moment of the machine hits both sides.
set -u
cd "$(dirname "$0")"
PY=/usr/bin/python3
ROUNDS=${ROUNDS:-3}
have_numpy=0
if $PY -c 'import numpy' 2>/dev/null; then
    have_numpy=1
else
    echo "(NumPy not found for $PY: apt-get install python3-numpy" \
         "python3-scipy to compare)"
fi
ours_runs="" theirs_runs=""
for ((round = 0; round < ROUNDS; round++)); do
    out=$(./build/bench) || exit 1
    # bench.c's first line names the OpenBLAS build and kernel it ran with.
    header=$(head -1 <<< "$out")
    ours_runs+=$(tail -n +2 <<< "$out")$'\n'
    if [ "$have_numpy" = 1 ]; then
        theirs_runs+=$($PY bench_numpy.py)$'\n' || exit 1
    fi
done
echo "$header"
# The best time of each row over the rounds, rows in bench.c's order;
# the bare-cblas column too.
best() {
    awk -F'\t' '$1 != "" {
        if (!($1 in t)) { order[n++] = $1; t[$1] = $2; raw[$1] = $3 }
        if ($2 + 0 < t[$1] + 0) t[$1] = $2
        if ($3 != "-" && $3 + 0 < raw[$1] + 0) raw[$1] = $3 }
        END { for (i = 0; i < n; i++)
                  printf "%s\t%s\t%s\n", order[i], t[order[i]],
                         raw[order[i]] == "" ? "-" : raw[order[i]] }'
}
ours=$(best <<< "$ours_runs")
theirs=$(best <<< "$theirs_runs")
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
echo "ratio = ours / NumPy (SciPy for fftn): below 1.00 is faster;" \
     "best of $ROUNDS alternating rounds."
echo "vs_cblas = bare cblas time / ours: 1.00 means no overhead."
