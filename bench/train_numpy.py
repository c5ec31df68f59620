"""train_numpy.py - one epoch of step 51 written by hand in NumPy: the
MLP 784-1000-10 with sigmoid, softmax cross-entropy, SGD lr 0.01,
batches of 100 from a permutation of 60,000 images, float32 weights as
DeZero's Linear makes them; then the test pass over 10,000 images, loss
and accuracy, as step 51 does after each epoch. The images are bytes,
each batch converted to float32 in [0, 1] when it is taken, as step 51's
are. The input gradient is computed, as DeZero computes it, so that the
arithmetic is the same. The data is random, of MNIST's shapes. Prints
"name<TAB>seconds per epoch", the best of two after one of warm-up."""
import time

import numpy as np

N, N_TEST, IN, HIDDEN, OUT, BATCH, LR = 60000, 10000, 784, 1000, 10, 100, 0.01

rng = np.random.RandomState(0)
images = rng.randint(0, 256, (N, IN)).astype(np.uint8)          # (60000, 784)
labels = rng.randint(0, OUT, N)                                 # (60000,)
test_images = rng.randint(0, 256, (N_TEST, IN)).astype(np.uint8)
test_labels = rng.randint(0, OUT, N_TEST)                       # (10000,)
w1 = (rng.randn(IN, HIDDEN) * np.sqrt(1 / IN)).astype(np.float32)
b1 = np.zeros(HIDDEN, dtype=np.float32)
w2 = (rng.randn(HIDDEN, OUT) * np.sqrt(1 / HIDDEN)).astype(np.float32)
b2 = np.zeros(OUT, dtype=np.float32)
rows = np.arange(BATCH)


def forward(x):
    """The hidden activations (100, 1000) and the scores (100, 10)."""
    a = np.tanh((x @ w1 + b1) * 0.5) * 0.5 + 0.5
    return a, a @ w2 + b2


def softmax(y):
    e = np.exp(y - y.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def epoch():
    global w1, b1, w2, b2
    order = rng.permutation(N)
    for i in range(N // BATCH):
        index = order[i * BATCH:(i + 1) * BATCH]
        x, t = images[index].astype(np.float32) / 255.0, labels[index]
        a, y = forward(x)
        gy = softmax(y)
        gy[rows, t] -= 1
        gy /= BATCH
        gh = (gy @ w2.T) * a * (1 - a)                  # (100, 1000)
        gx = gh @ w1.T                                  # (100, 784)
        w1 -= LR * (x.T @ gh)
        b1 -= LR * gh.sum(axis=0)
        w2 -= LR * (a.T @ gy)
        b2 -= LR * gy.sum(axis=0)
    loss = acc = 0.0
    for i in range(N_TEST // BATCH):
        part = slice(i * BATCH, (i + 1) * BATCH)
        x, t = test_images[part].astype(np.float32) / 255.0, test_labels[part]
        y = forward(x)[1]
        loss -= np.log(softmax(y)[rows, t]).sum()
        acc += (y.argmax(axis=1) == t).sum()
    return gx, loss / N_TEST, acc / N_TEST


epoch()
best = float("inf")
for _ in range(2):
    t0 = time.perf_counter()
    epoch()
    best = min(best, time.perf_counter() - t0)
print(f"numpy by hand\t{best:.6f}")
