"""conv_numpy.py - the convolution section's NumPy peer: one forward and
backward pass of step 57's conv2d_simple as NumPy-DeZero computes it,
with DeZero's own im2col_array and col2im_array (the CPU branch of
dezero/functions_conv.py, and pair and get_conv_outsize of
dezero/utils.py, copied below): 100 images 1x28x28 through 30 5x5
filters, stride 1, no padding, float32, as bench/conv.c. Prints
"key<TAB>seconds a pass" rows (numpy, and its im2col and col2im), best
of ROUNDS; `conv_numpy.py N` runs
N passes alone, to time the whole process from outside."""
import sys
import time

import numpy as np

N, C, H, W, OC, K, ROUNDS = 100, 1, 28, 28, 30, 5, 20


def pair(x):
    if isinstance(x, int):
        return (x, x)
    elif isinstance(x, tuple):
        assert len(x) == 2
        return x
    else:
        raise ValueError


def get_conv_outsize(input_size, kernel_size, stride, pad):
    return (input_size + pad * 2 - kernel_size) // stride + 1


def im2col_array(img, kernel_size, stride, pad, to_matrix=True):

    N, C, H, W = img.shape
    KH, KW = pair(kernel_size)
    SH, SW = pair(stride)
    PH, PW = pair(pad)
    OH = get_conv_outsize(H, KH, SH, PH)
    OW = get_conv_outsize(W, KW, SW, PW)

    img = np.pad(img,
                 ((0, 0), (0, 0), (PH, PH + SH - 1), (PW, PW + SW - 1)),
                 mode='constant', constant_values=(0,))
    col = np.ndarray((N, C, KH, KW, OH, OW), dtype=img.dtype)

    for j in range(KH):
        j_lim = j + SH * OH
        for i in range(KW):
            i_lim = i + SW * OW
            col[:, :, j, i, :, :] = img[:, :, j:j_lim:SH, i:i_lim:SW]

    if to_matrix:
        col = col.transpose((0, 4, 5, 1, 2, 3)).reshape((N * OH * OW, -1))

    return col


def col2im_array(col, img_shape, kernel_size, stride, pad, to_matrix=True):
    N, C, H, W = img_shape
    KH, KW = pair(kernel_size)
    SH, SW = pair(stride)
    PH, PW = pair(pad)
    OH = get_conv_outsize(H, KH, SH, PH)
    OW = get_conv_outsize(W, KW, SW, PW)

    if to_matrix:
        col = col.reshape(N, OH, OW, C, KH, KW).transpose(0, 3, 4, 5, 1, 2)

    img = np.zeros((N, C, H + 2 * PH + SH - 1, W + 2 * PW + SW - 1),
                   dtype=col.dtype)
    for j in range(KH):
        j_lim = j + SH * OH
        for i in range(KW):
            i_lim = i + SW * OW
            img[:, :, j:j_lim:SH, i:i_lim:SW] += col[:, :, j, i, :, :]
    return img[:, :, PH:H + PH, PW:W + PW]


rng = np.random.RandomState(0)
x = rng.rand(N, C, H, W).astype(np.float32)            # (100, 1, 28, 28)
w = rng.rand(OC, C * K * K).astype(np.float32)         # W.reshape(30, -1)
b = rng.rand(OC).astype(np.float32)                    # (30,)
oh, ow = H - K + 1, W - K + 1
gy = rng.rand(N * oh * ow, OC).astype(np.float32)      # (57600, 30)
split = {}


def forward_backward():
    """conv2d_simple: im2col, then Linear with Weight = W.reshape(OC,
    -1).T (DeZero's Linear: y = x.dot(W); y += b; gx = gy.dot(W.T);
    gW = x.T.dot(gy)), then col2im of gx."""
    t0 = time.perf_counter()
    col = im2col_array(x, (K, K), (1, 1), (0, 0), to_matrix=True)
    t1 = time.perf_counter()
    weight = w.T                                       # (25, 30)
    y = col.dot(weight)                                # (57600, 30)
    y += b
    gw = col.T.dot(gy)                                 # (25, 30)
    gcol = gy.dot(weight.T)                            # (57600, 25)
    t2 = time.perf_counter()
    gx = col2im_array(gcol, x.shape, (K, K), (1, 1), (0, 0), to_matrix=True)
    t3 = time.perf_counter()
    split["im2col"], split["col2im"] = t1 - t0, t3 - t2
    return y, gw, gx


if len(sys.argv) == 2:
    for _ in range(int(sys.argv[1])):
        forward_backward()
    sys.exit(0)
forward_backward()
best = {"all": float("inf"), "im2col": float("inf"), "col2im": float("inf")}
for _ in range(ROUNDS):
    t0 = time.perf_counter()
    forward_backward()
    best["all"] = min(best["all"], time.perf_counter() - t0)
    best["im2col"] = min(best["im2col"], split["im2col"])
    best["col2im"] = min(best["col2im"], split["col2im"])
print(f"numpy\t{best['all']:.6e}")
print(f"numpy im2col\t{best['im2col']:.6e}")
print(f"numpy col2im\t{best['col2im']:.6e}")
