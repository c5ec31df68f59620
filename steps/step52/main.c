/* Step 51: training on MNIST.
 *
 * 60,000 handwritten digits to learn from and 10,000 to test on, read
 * from the DeZero cache and downloaded into it the first time. An MLP
 * of sizes (1000, 10) learns them with SGD on batches of 100: 5 epochs,
 * after each the training loss and accuracy and the test loss and
 * accuracy, as Python prints them. gnuplot draws the first 100 digits
 * into digits.svg, and the learning curve, written to curve.csv, into
 * curve.svg. On a terminal a progress line shows each epoch's batches.
 * DEZERO_SEED=N seeds the generator as np.random.seed(N) would, so that
 * a run can be repeated (unset: unseeded, as the book is);
 * DEZERO_EPOCHS=N trains N epochs instead of 5. */
#include <stdio.h>
#include <stdlib.h>

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

/* The numbers of each epoch, a column each: the epoch, the training
 * and the test loss, the training and the test accuracy. */
enum { CURVE_COLUMNS = 5 };

/* Writes the learning curve to curve.csv and has gnuplot draw it into
 * curve.svg. */
static bool plot_curve(NdArray *const curve[CURVE_COLUMNS])
{
    const char *names[CURVE_COLUMNS] = {"epoch", "train loss", "test loss",
                                        "train accuracy", "test accuracy"};
    return write_csv("curve.csv", CURVE_COLUMNS, names,
                     (const NdArray *const *)curve) &&
           plot_learning_curve("curve.csv", "curve.svg");
}

int main(void)
{
    nd_random_seed_from_env("DEZERO_SEED");
    Pool *pool = pool_new();
    int max_epoch = max_epochs();
    int64_t batch_size = 100;
    int hidden_size = 1000;
    double lr = 0.01;

    Dataset *train_set = mnist(true);
    Dataset *test_set = mnist(false);
    DataLoader *train_loader = dataloader(train_set, batch_size, true);
    DataLoader *test_loader = dataloader(test_set, batch_size, false);
    bool drawn = mnist_show(train_set, 10, 10, "digits.svg");

    Model *model = mlp(ND_SHAPE(hidden_size, 10), NULL);
    Optimizer *optimizer = optimizer_setup(sgd(lr), model);
    NdArray *curve[CURVE_COLUMNS];                  // each (max_epoch,)
    for (int j = 0; j < CURVE_COLUMNS; j++)
        curve[j] = nd_empty(ND_FLOAT64, ND_SHAPE(max_epoch));

    for (int epoch = 0; epoch < max_epoch; epoch++) {
        double sum_loss = 0, sum_acc = 0;
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
            Variable *acc = F_accuracy(y, t);
            layer_cleargrads(model);
            backward(loss);
            optimizer_update(optimizer);

            sum_loss += nd_item(loss->data) * (double)t->size;
            sum_acc += nd_item(acc->data) * (double)t->size;
            seen += t->size;
            nd_progress_update(progress, train_loader->iteration,
                               "loss %.4f", sum_loss / (double)seen);
            pool_drain(iteration);
            nd_release(t);
            nd_release(x);
        }
        nd_progress_end(progress);

        double train_loss = sum_loss / (double)dataset_len(train_set);
        double train_acc = sum_acc / (double)dataset_len(train_set);
        printf("epoch: %d\n", epoch + 1);
        printf("train loss: %.4f, accuracy: %.4f\n", train_loss, train_acc);

        sum_loss = 0;
        sum_acc = 0;
        NO_GRAD {
            while (dataloader_next(test_loader, &x, &t)) {
                Pool *iteration = pool_new();
                Variable *y = layer_call(model, x);
                Variable *loss = F_softmax_cross_entropy(y, t);
                Variable *acc = F_accuracy(y, t);
                sum_loss += nd_item(loss->data) * (double)t->size;
                sum_acc += nd_item(acc->data) * (double)t->size;
                pool_drain(iteration);
                nd_release(t);
                nd_release(x);
            }
        }

        double test_loss = sum_loss / (double)dataset_len(test_set);
        double test_acc = sum_acc / (double)dataset_len(test_set);
        printf("test loss: %.4f, accuracy: %.4f\n", test_loss, test_acc);
        fflush(stdout);
        double row[CURVE_COLUMNS] = {epoch + 1, train_loss, test_loss,
                                     train_acc, test_acc};
        for (int j = 0; j < CURVE_COLUMNS; j++)
            ND_DATA(curve[j], double)[epoch] = row[j];
    }

    drawn = plot_curve(curve) && drawn;
    for (int j = 0; j < CURVE_COLUMNS; j++)
        nd_release(curve[j]);
    pool_drain(pool);
    return drawn ? EXIT_SUCCESS : EXIT_FAILURE;
}
