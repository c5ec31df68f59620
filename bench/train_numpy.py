"""train_numpy.py - one epoch of step 51's training written by hand in
NumPy: the MLP 784-1000-10 with sigmoid, softmax cross-entropy, SGD lr
0.01, batches of 100 from a permutation of 60,000 images, float32 weights
as DeZero's Linear makes them. The input gradient is computed, as DeZero
computes it, so that the arithmetic is the same. The data is random, of
MNIST's shapes. Prints "name<TAB>seconds per epoch", best of two."""
import time

import numpy as np

N, IN, HIDDEN, OUT, BATCH, LR = 60000, 784, 1000, 10, 100, 0.01

rng = np.random.RandomState(0)
images = rng.rand(N, IN).astype(np.float32)         # (60000, 784)
labels = rng.randint(0, OUT, N)                     # (60000,)
w1 = (rng.randn(IN, HIDDEN) * np.sqrt(1 / IN)).astype(np.float32)
b1 = np.zeros(HIDDEN, dtype=np.float32)
w2 = (rng.randn(HIDDEN, OUT) * np.sqrt(1 / HIDDEN)).astype(np.float32)
b2 = np.zeros(OUT, dtype=np.float32)


def epoch():
    global w1, b1, w2, b2
    order = rng.permutation(N)
    rows = np.arange(BATCH)
    for i in range(N // BATCH):
        index = order[i * BATCH:(i + 1) * BATCH]
        x, t = images[index], labels[index]
        a = np.tanh((x @ w1 + b1) * 0.5) * 0.5 + 0.5       # (100, 1000)
        y = a @ w2 + b2                                  # (100, 10)
        e = np.exp(y - y.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
        gy = p
        gy[rows, t] -= 1
        gy /= BATCH
        gh = (gy @ w2.T) * a * (1 - a)                   # (100, 1000)
        gx = gh @ w1.T                                   # (100, 784)
        w1 -= LR * (x.T @ gh)
        b1 -= LR * gh.sum(axis=0)
        w2 -= LR * (a.T @ gy)
        b2 -= LR * gy.sum(axis=0)
    return gx


best = float("inf")
for _ in range(2):
    t0 = time.perf_counter()
    epoch()
    best = min(best, time.perf_counter() - t0)
print(f"numpy by hand\t{best:.6f}")
