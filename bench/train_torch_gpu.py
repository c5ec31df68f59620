"""train_torch_gpu.py - one epoch of step 52 in PyTorch on the GPU: the
MLP 784-1000-10 with sigmoid, softmax cross entropy and SGD (lr 0.01)
on batches of 100, each batch taken from the host's shuffled images,
converted there and copied to the device, as step 52's loader does, and
its loss read back every step, as step 52 prints it; no test pass, as
step 52 has none. Random data of MNIST's shapes. Prints "name<TAB>
seconds per epoch", the best of two after one of warm-up; exits 2,
saying why on stderr, where PyTorch has no CUDA device."""
import sys
import time

import torch

if not torch.cuda.is_available():
    print(f"PyTorch {torch.__version__} sees no CUDA device", file=sys.stderr)
    sys.exit(2)
torch.manual_seed(0)
cuda = torch.device("cuda")
N, IN, HIDDEN, OUT, BATCH, LR = 60000, 784, 1000, 10, 100, 0.01
images = torch.randint(0, 256, (N, IN), dtype=torch.uint8)
labels = torch.randint(0, OUT, (N,))
model = torch.nn.Sequential(torch.nn.Linear(IN, HIDDEN), torch.nn.Sigmoid(),
                            torch.nn.Linear(HIDDEN, OUT)).to(cuda)
optimizer = torch.optim.SGD(model.parameters(), lr=LR)
cross_entropy = torch.nn.functional.cross_entropy


def epoch():
    order = torch.randperm(N)
    total = 0.0
    for i in range(N // BATCH):
        index = order[i * BATCH:(i + 1) * BATCH]
        x = (images[index].float() / 255).to(cuda)
        t = labels[index].to(cuda)
        loss = cross_entropy(model(x), t)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += float(loss) * BATCH
    torch.cuda.synchronize()
    return total / N


epoch()
best = float("inf")
for _ in range(2):
    t0 = time.perf_counter()
    epoch()
    best = min(best, time.perf_counter() - t0)
print(f"pytorch {torch.__version__} on {torch.cuda.get_device_name(0)}"
      f"\t{best:.6f}")
