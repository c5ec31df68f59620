/* mnist - MNIST with Adam, weight decay and accuracy (Python:
 * examples/mnist.py).
 *
 * The book's MNIST loop (step 51) as the script has it: an MLP of
 * sizes (1000, 1000, 10) with ReLU learns the 60,000 training images
 * with Adam and a weight decay of 1e-4, on shuffled batches of 100,
 * for 5 epochs; after each, the mean loss and accuracy on the training
 * set, then on the 10,000 test images without a graph. Where an NVIDIA
 * GPU can be used, the loaders and the model move there, as in Python;
 * where none can, the program says why on stderr and trains on the
 * CPU. The data come from the DeZero cache (step 51: downloaded on
 * the first run). DEZERO_EPOCHS (5), DEZERO_BATCH_SIZE (100) and
 * DEZERO_HIDDEN_SIZE (1000) change Python's constants; DEZERO_SEED=N
 * seeds the generator as np.random.seed(N) (unset: unseeded). */
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"
#include "options.h"

/* One pass over loader: the mean loss and accuracy of model on its
 * dataset, into *loss and *accuracy. With optimizer (training), each
 * batch also updates the model; without, no graph is recorded. */
static void run_epoch(Model *model, DataLoader *loader,
                      Optimizer *optimizer, double *mean_loss,
                      double *mean_acc)
{
    double sum_loss = 0, sum_acc = 0;
    NdArray *x, *t;                 // (100, 784) float32, (100,) uint8
    USING_CONFIG(enable_backprop, optimizer != NULL) {
        while (dataloader_next(loader, &x, &t)) {
            Pool *iteration = pool_new();
            Variable *y = layer_call(model, x);     // (100, 10)
            Variable *loss = F_softmax_cross_entropy(y, t);
            Variable *acc = F_accuracy(y, t);
            if (optimizer) {
                layer_cleargrads(model);
                backward(loss);
                optimizer_update(optimizer);
            }
            sum_loss += nd_item(loss->data) * (double)t->size;
            sum_acc += nd_item(acc->data) * (double)t->size;
            pool_drain(iteration);
            nd_release(t);
            nd_release(x);
        }
    }
    *mean_loss = sum_loss / (double)dataset_len(loader->dataset);
    *mean_acc = sum_acc / (double)dataset_len(loader->dataset);
}

int main(void)
{
    nd_random_seed_from_env("DEZERO_SEED");
    Pool *pool = pool_new();
    int max_epoch = (int)option_count("DEZERO_EPOCHS", 5, 1, 1000);
    int64_t batch_size = option_count("DEZERO_BATCH_SIZE", 100, 1, 60000);
    int64_t hidden_size = option_count("DEZERO_HIDDEN_SIZE", 1000, 1,
                                       100000);

    Dataset *train_set = mnist(true);
    Dataset *test_set = mnist(false);
    DataLoader *train_loader = dataloader(train_set, batch_size, true);
    DataLoader *test_loader = dataloader(test_set, batch_size, false);

    Model *model = mlp(ND_SHAPE(hidden_size, hidden_size, 10), F_relu);
    Optimizer *optimizer = optimizer_setup(adam(0.001, 0.9, 0.999, 1e-8),
                                           model);
    optimizer_add_hook(optimizer, weight_decay(1e-4));  // Weight decay

    if (gpu_enable()) {
        dataloader_to_gpu(train_loader);
        dataloader_to_gpu(test_loader);
        layer_to_gpu(model);
    } else {
        fprintf(stderr, "training on the CPU: %s\n", gpu_status());
    }

    for (int epoch = 0; epoch < max_epoch; epoch++) {
        double loss, acc;
        run_epoch(model, train_loader, optimizer, &loss, &acc);
        printf("epoch: %d\n", epoch + 1);
        printf("train loss: %.4f, accuracy: %.4f\n", loss, acc);
        run_epoch(model, test_loader, NULL, &loss, &acc);
        printf("test loss: %.4f, accuracy: %.4f\n", loss, acc);
        fflush(stdout);
    }
    pool_drain(pool);
    return EXIT_SUCCESS;
}
