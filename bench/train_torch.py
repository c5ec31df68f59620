"""train_torch.py - one epoch of step 51's training in PyTorch on the
CPU, at its best here: one thread per core, so that its pool does not
fight itself. The same model, loss, optimizer and batches as
train_numpy.py, on random data of MNIST's shapes; PyTorch skips the input
gradient, which nothing asks of it. Prints "name<TAB>seconds per epoch",
best of two."""
import os
import time

import torch

torch.set_num_threads(os.cpu_count())
torch.manual_seed(0)
N, IN, HIDDEN, OUT, BATCH, LR = 60000, 784, 1000, 10, 100, 0.01
images = torch.rand(N, IN)
labels = torch.randint(0, OUT, (N,))
model = torch.nn.Sequential(torch.nn.Linear(IN, HIDDEN), torch.nn.Sigmoid(),
                            torch.nn.Linear(HIDDEN, OUT))
optimizer = torch.optim.SGD(model.parameters(), lr=LR)


def epoch():
    order = torch.randperm(N)
    for i in range(N // BATCH):
        index = order[i * BATCH:(i + 1) * BATCH]
        loss = torch.nn.functional.cross_entropy(model(images[index]),
                                                 labels[index])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


best = float("inf")
for _ in range(2):
    t0 = time.perf_counter()
    epoch()
    best = min(best, time.perf_counter() - t0)
print(f"pytorch, {os.cpu_count()} threads\t{best:.6f}")
