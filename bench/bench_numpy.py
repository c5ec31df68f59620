"""bench_numpy.py - the rows of bench.c, timed in NumPy (and SciPy for the
FFT), printed as "name<TAB>seconds" for bench/run.sh to compare."""
import time

import numpy as np

try:
    import scipy.fft as sfft
except ImportError:
    sfft = None


def best_of(repeat, fn):
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def row(name, seconds):
    print(f"{name}\t{seconds:.6e}")


np.random.seed(0)
for dtype, tag in ((np.float32, "f32"), (np.float64, "f64")):
    a = np.random.rand(100, 784).astype(dtype)
    b = np.random.rand(784, 1000).astype(dtype)
    row(f"matmul 100x784 @ 784x1000 {tag}", best_of(50, lambda: a @ b))
for dtype, tag in ((np.float32, "f32"), (np.float64, "f64")):
    a = np.random.rand(2000, 2000).astype(dtype)
    b = np.random.rand(2000, 2000).astype(dtype)
    row(f"matmul 2000x2000 {tag}", best_of(10, lambda: a @ b))

x = np.random.rand(1000, 1000)
bias = np.random.rand(1000)
x32 = x.astype(np.float32)
row("add (1000,1000)+(1000,) f64", best_of(50, lambda: x + bias))
row("exp 1M f64", best_of(50, lambda: np.exp(x)))
row("exp 1M f32", best_of(50, lambda: np.exp(x32)))
row("sum axis 0 (1000,1000) f64", best_of(50, lambda: x.sum(axis=0)))
row("sum axis 1 (1000,1000) f64", best_of(50, lambda: x.sum(axis=1)))

for n, repeat in ((2000, 3), (4000, 2)):
    img = np.random.randint(0, 256, size=(n, n))
    fft = sfft.fftn if sfft else np.fft.fftn
    row(f"fftn {n}x{n} int64", best_of(repeat, lambda: fft(img)))
