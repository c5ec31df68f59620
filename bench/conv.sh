#!/usr/bin/env bash
# conv.sh - the convolution section of `make bench`: one forward and
# backward pass of step 57's conv2d_simple (im2col, the three GEMMs of
# Linear, col2im) on 100 MNIST-sized images through 30 5x5 filters,
# float32, for each peer this machine has, measured in this run:
#   the GEMM floor (the same three products as bare sgemm calls),
#   ours (build/conv: nd_im2col, nd_matmul_t, nd_col2im),
#   NumPy running DeZero's im2col_array and col2im_array (Debian's
#   python3-numpy: conv_numpy.py),
# with our ratio to each; and the framework's own row, step 57's
# F_conv2d (a GEMM an image over im2col, with its backward) through Variables,
# timed in turn with the floor in the same process (build/conv), with
# its ratio to the floor. Issue 16 asks for at most 1.5 times the floor.
set -u
cd "$(dirname "$0")"
PY=/usr/bin/python3
rows=$(./build/conv) || exit 1
if $PY -c 'import numpy' 2>/dev/null; then
    rows+=$'\n'$($PY conv_numpy.py) || exit 1
else
    echo "(no NumPy for $PY: apt-get install python3-numpy to compare)"
fi
ms() {    # KEY: milliseconds a pass, or nothing when the row is absent
    awk -F'\t' -v k="$1" '$1 == k { printf "%.3f", $2 * 1e3 }' <<< "$rows"
}
echo
echo "convolution, step 57's conv2d_simple forward + backward, float32:"
echo "100 images 1x28x28, 30 filters 5x5, stride 1, no padding"
printf '%-46s %10s\n' peer ms/pass
line() {  # KEY LABEL
    local t
    t=$(ms "$1")
    [ -n "$t" ] && printf '%-46s %10s\n' "$2" "$t"
}
line floor "GEMM floor: the three sgemm, bare"
line ours "ours: nd_im2col + GEMMs + nd_col2im"
line "ours im2col" "  of which nd_im2col"
line "ours col2im" "  of which nd_col2im"
line numpy "NumPy: im2col_array + GEMMs + col2im_array"
line "numpy im2col" "  of which im2col_array"
line "numpy col2im" "  of which col2im_array"
line framework "ours, step 57's F_conv2d forward + backward"
ratio() { # LABEL MS MS
    printf '%-46s %10s\n' "$1" \
        "$(awk -v a="$2" -v b="$3" 'BEGIN { printf "%.2f", a / b }')"
}
ours=$(ms ours)
for peer in floor numpy; do
    theirs=$(ms $peer)
    [ -n "$theirs" ] || continue
    ratio "ours / $peer" "$ours" "$theirs"
done
ratio "F_conv2d / floor" "$(ms framework)" "$(ms floor)"
echo "(best of 20 passes each; issue 16's target: F_conv2d / floor <= 1.50)"
