/* Step 52: training on the GPU.
 *
 * Step 51's MNIST training, as Python's step52.py has it: an MLP of
 * sizes (1000, 10) learns the 60,000 training images with SGD on
 * batches of 100, for 5 epochs, and each epoch prints its mean loss
 * and how long it took. Where an NVIDIA GPU can be used, the loader
 * hands out its batches there and the model's parameters move there,
 * and the same code trains on it; where none can, the program says why
 * on stderr and trains on the CPU. The weights are drawn on the host
 * either way, so a seeded run prints the same losses on both. On a
 * terminal a progress line shows each epoch's batches. The sum of the
 * losses stays on the model's device, read when the progress line is
 * redrawn and at the epoch's end: Python reads each batch's loss
 * (float(loss.data)), and on the GPU each such read makes the host wait
 * for the device's queued work.
 * DEZERO_SEED=N seeds the generator as np.random.seed(N) would, so that
 * a run can be repeated (unset: unseeded, as the book is);
 * DEZERO_EPOCHS=N trains N epochs instead of 5. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "dezero.h"
#include "progress.h"

/* How many epochs to train: Python's 5, or $DEZERO_EPOCHS where it is
 * set. The test suite sets 1 for the run under valgrind. */
static int max_epochs(void)
{
    const char *text = getenv("DEZERO_EPOCHS");
    if (!text || !*text)
        return 5;
    char *end;
    long n = strtol(text, &end, 10);
    if (*end || n < 1 || n > 1000)
        nd_error("max_epochs", "DEZERO_EPOCHS=%s: want a number of "
                 "epochs from 1 to 1000", text);
    return (int)n;
}

/* sum += loss * n, on loss's device, in float64 as Python's
 * float(loss.data) * len(t) computes it: nothing is read back. */
static void add_loss(NdArray *sum, const NdArray *loss, int64_t n)
{
    NdArray *wide = nd_astype(loss, ND_FLOAT64);
    NdArray *count = as_array((double)n, ND_FLOAT64, get_array_module(loss));
    NdArray *weighted = nd_mul(wide, count);
    nd_iadd(sum, weighted);
    nd_release(weighted);
    nd_release(count);
    nd_release(wide);
}

/* Seconds on a clock that only goes forward (Python: time.time()). */
static double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

int main(void)
{
    nd_random_seed_from_env("DEZERO_SEED");
    Pool *pool = pool_new();
    int max_epoch = max_epochs();
    int64_t batch_size = 100;

    Dataset *train_set = mnist(true);
    DataLoader *train_loader = dataloader(train_set, batch_size, true);
    Model *model = mlp(ND_SHAPE(1000, 10), NULL);
    Optimizer *optimizer = optimizer_setup(sgd(0.01), model);

    // GPU mode
    if (gpu_enable()) {
        dataloader_to_gpu(train_loader);
        layer_to_gpu(model);
    } else {
        fprintf(stderr, "training on the CPU: %s\n", gpu_status());
    }

    for (int epoch = 0; epoch < max_epoch; epoch++) {
        double start = seconds_now();
        NdArray *sum_loss = as_array(0, ND_FLOAT64, train_loader->device);
        int64_t seen = 0;
        NdArray *x, *t;             // (100, 784) float32, (100,) uint8
        char label[32];
        snprintf(label, sizeof label, "epoch %d", epoch + 1);
        NdProgress *progress = nd_progress_start(label,
                                                 train_loader->max_iter,
                                                 "batches");

        while (dataloader_next(train_loader, &x, &t)) {
            Pool *iteration = pool_new();
            Variable *y = layer_call(model, x);
            Variable *loss = F_softmax_cross_entropy(y, t);
            layer_cleargrads(model);
            backward(loss);
            optimizer_update(optimizer);
            add_loss(sum_loss, loss->data, t->size);
            seen += t->size;
            if (nd_progress_due(progress, train_loader->iteration))
                nd_progress_update(progress, train_loader->iteration,
                                   "loss %.4f",
                                   nd_item(sum_loss) / (double)seen);
            pool_drain(iteration);
            nd_release(t);
            nd_release(x);
        }
        nd_progress_end(progress);

        double loss_sum = nd_item(sum_loss);    /* waits for the epoch */
        nd_release(sum_loss);
        double elapsed_time = seconds_now() - start;
        printf("epoch: %d, loss: %.4f, time: %.4f[sec]\n", epoch + 1,
               loss_sum / (double)dataset_len(train_set), elapsed_time);
        fflush(stdout);
    }
    pool_drain(pool);
    return EXIT_SUCCESS;
}
