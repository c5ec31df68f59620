"""train_torch.py - one epoch of step 51 in PyTorch on the CPU, at its
best here: one thread per core, so that its pool does not fight itself.
The same model, loss, optimizer, batches of bytes converted when taken,
and test pass as train_numpy.py, on random data of MNIST's shapes;
PyTorch skips the input gradient, which nothing asks of it. Prints
"name<TAB>seconds per epoch", the best of two after one of warm-up."""
import os
import time

import torch

torch.set_num_threads(os.cpu_count())
torch.manual_seed(0)
N, N_TEST, IN, HIDDEN, OUT, BATCH, LR = 60000, 10000, 784, 1000, 10, 100, 0.01
images = torch.randint(0, 256, (N, IN), dtype=torch.uint8)
labels = torch.randint(0, OUT, (N,))
test_images = torch.randint(0, 256, (N_TEST, IN), dtype=torch.uint8)
test_labels = torch.randint(0, OUT, (N_TEST,))
model = torch.nn.Sequential(torch.nn.Linear(IN, HIDDEN), torch.nn.Sigmoid(),
                            torch.nn.Linear(HIDDEN, OUT))
optimizer = torch.optim.SGD(model.parameters(), lr=LR)
cross_entropy = torch.nn.functional.cross_entropy


def epoch():
    order = torch.randperm(N)
    for i in range(N // BATCH):
        index = order[i * BATCH:(i + 1) * BATCH]
        x = images[index].float() / 255
        loss = cross_entropy(model(x), labels[index])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    loss = acc = 0.0
    with torch.no_grad():
        for i in range(N_TEST // BATCH):
            part = slice(i * BATCH, (i + 1) * BATCH)
            y = model(test_images[part].float() / 255)
            loss += float(cross_entropy(y, test_labels[part])) * BATCH
            acc += float((y.argmax(dim=1) == test_labels[part]).sum())
    return loss / N_TEST, acc / N_TEST


epoch()
best = float("inf")
for _ in range(2):
    t0 = time.perf_counter()
    epoch()
    best = min(best, time.perf_counter() - t0)
print(f"pytorch, {os.cpu_count()} threads\t{best:.6f}")
