/* Step 53: saving and loading a model.
 *
 * Step 51's MNIST training, as Python's step53.py has it: an MLP of
 * sizes (1000, 10) learns the 60,000 training images with SGD on
 * batches of 100, for 3 epochs, and each epoch prints its mean loss.
 * At the end the model's weights go to my_mlp.npz in the current
 * folder; when that file is there at the start, the model begins from
 * it, so that a second run goes on where the first one stopped. On a
 * terminal a progress line shows each epoch's batches.
 * DEZERO_SEED=N seeds the generator as np.random.seed(N) would, so that
 * a run can be repeated (unset: unseeded, as the book is);
 * DEZERO_EPOCHS=N trains N epochs instead of 3. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dezero.h"
#include "progress.h"

/* How many epochs to train: Python's 3, or $DEZERO_EPOCHS where it is
 * set. The test suite sets 1 for the run under valgrind. */
static int max_epochs(void)
{
    const char *text = getenv("DEZERO_EPOCHS");
    if (!text || !*text)
        return 3;
    char *end;
    long n = strtol(text, &end, 10);
    if (*end || n < 1 || n > 1000)
        nd_error("max_epochs", "DEZERO_EPOCHS=%s: want a number of "
                 "epochs from 1 to 1000", text);
    return (int)n;
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

    if (access("my_mlp.npz", F_OK) == 0)
        layer_load_weights(model, "my_mlp.npz");

    for (int epoch = 0; epoch < max_epoch; epoch++) {
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
            Variable *y = layer_call(model, x);
            Variable *loss = F_softmax_cross_entropy(y, t);
            layer_cleargrads(model);
            backward(loss);
            optimizer_update(optimizer);
            sum_loss += nd_item(loss->data) * (double)t->size;
            seen += t->size;
            nd_progress_update(progress, train_loader->iteration,
                               "loss %.4f", sum_loss / (double)seen);
            pool_drain(iteration);
            nd_release(t);
            nd_release(x);
        }
        nd_progress_end(progress);

        printf("epoch: %d, loss: %.4f\n", epoch + 1,
               sum_loss / (double)dataset_len(train_set));
        fflush(stdout);
    }

    layer_save_weights(model, "my_mlp.npz");
    pool_drain(pool);
    return EXIT_SUCCESS;
}
