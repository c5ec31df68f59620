/* Step 61: data-parallel training with Open MPI, beyond the book.
 *
 * Step 52's program, run by mpirun as N processes (ranks): every rank
 * holds the whole model, takes its share of each batch of 100 (50 rows
 * each with -np 2), and after backward the ranks add up their
 * gradients, each scaled by its share of the batch, with
 * MPI_Allreduce; so each holds the gradient of the whole batch, and
 * the same update keeps their parameters the same. The ranks draw the
 * same weights and the same order of the data from one seed (rank
 * 0's). Rank 0 prints step 52's lines; the others print nothing. Run
 * without mpirun, it is step 52:
 *
 *     DEZERO_SEED=0 steps/step61/step61
 *     DEZERO_SEED=0 mpirun -np 2 steps/step61/step61
 *
 * DEZERO_SAVE_WEIGHTS=prefix writes each rank's parameters, when the
 * training ends, to prefix-rankR.npz, so that they can be compared.
 *
 * As in step 52, the MLP of sizes (1000, 10) learns MNIST's 60,000
 * training images with SGD on batches of 100, for 5 epochs, on the GPU
 * where one can be used (the gradients then go through host memory),
 * and each epoch prints its mean loss and how long it took.
 * DEZERO_SEED=N seeds the generator as np.random.seed(N) would, so that
 * a run can be repeated (unset: unseeded, as the book is);
 * DEZERO_EPOCHS=N trains N epochs instead of 5. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "dezero.h"
#include "distributed.h"
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

/* Seconds on a clock that only goes forward (Python: time.time()). */
static double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* Rows [start, stop) of a batch (a new reference); the whole batch
 * itself when the share is all of it, as with one process. */
static NdArray *rows(NdArray *batch, int64_t start, int64_t stop)
{
    if (start == 0 && stop == batch->shape[0])
        return nd_retain(batch);
    return nd_getitem(batch, 1, (NdIndex[]){ND_IDX_SLICE(start, stop, 1)});
}

/* Writes this rank's parameters where DEZERO_SAVE_WEIGHTS says. */
static void save_weights(Model *model)
{
    const char *prefix = getenv("DEZERO_SAVE_WEIGHTS");
    if (!prefix || !*prefix)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s-rank%d.npz", prefix, dist_rank());
    layer_save_weights(model, path);
}

int main(void)
{
    dist_init();
    dist_seed_from_env("DEZERO_SEED");
    Pool *pool = pool_new();
    int max_epoch = max_epochs();
    int64_t batch_size = 100;
    int64_t start, stop;
    dist_share(batch_size, &start, &stop);  // no more ranks than rows

    Dataset *train_set = mnist(true);
    DataLoader *train_loader = dataloader(train_set, batch_size, true);
    Model *model = mlp(ND_SHAPE(1000, 10), NULL);
    Optimizer *optimizer = optimizer_setup(sgd(0.01), model);

    // GPU mode
    if (gpu_enable()) {
        dataloader_to_gpu(train_loader);
        layer_to_gpu(model);
    } else if (dist_rank() == 0) {
        fprintf(stderr, "training on the CPU: %s\n", gpu_status());
    }

    for (int epoch = 0; epoch < max_epoch; epoch++) {
        double start_time = seconds_now();
        double sum_loss = 0;
        int64_t seen = 0;
        NdArray *x, *t;             // (100, 784) float32, (100,) uint8
        char label[32];
        snprintf(label, sizeof label, "epoch %d", epoch + 1);
        NdProgress *progress = nd_progress_start(label,
                                                 train_loader->max_iter,
                                                 "batches");

        while (dataloader_next(train_loader, &x, &t)) {
            Pool *iteration = pool_new();
            dist_share(t->size, &start, &stop);
            NdArray *x_share = rows(x, start, stop);    // (50, 784)
            NdArray *t_share = rows(t, start, stop);    // (50,)
            Variable *y = layer_call(model, x_share);
            Variable *loss = F_softmax_cross_entropy(y, t_share);
            layer_cleargrads(model);
            backward(loss);
            // the gradient of this share's mean loss, times its part of
            // the batch, summed over the ranks: the batch's gradient
            dist_allreduce_grads(model,
                                 (double)(stop - start) / (double)t->size);
            optimizer_update(optimizer);
            sum_loss += nd_item(loss->data) * (double)(stop - start);
            seen += stop - start;
            nd_progress_update(progress, train_loader->iteration,
                               "loss %.4f", sum_loss / (double)seen);
            pool_drain(iteration);
            nd_release(t_share);
            nd_release(x_share);
            nd_release(t);
            nd_release(x);
        }
        nd_progress_end(progress);

        sum_loss = dist_sum(sum_loss);  // every rank's share of the loss
        double elapsed_time = seconds_now() - start_time;
        if (dist_rank() == 0) {
            printf("epoch: %d, loss: %.4f, time: %.4f[sec]\n", epoch + 1,
                   sum_loss / (double)dataset_len(train_set),
                   elapsed_time);
            fflush(stdout);
        }
    }
    if (dist_size() > 1 && dist_rank() == 0)
        fprintf(stderr, "%d ranks; rank 0 spent %.4f[sec] in "
                "MPI_Allreduce\n", dist_size(), dist_allreduce_seconds());
    save_weights(model);
    pool_drain(pool);
    dist_finalize();
    return EXIT_SUCCESS;
}
