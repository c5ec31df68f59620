/* Step 50: a DataLoader for the mini-batches.
 *
 * The spiral's training set and, new, its test set, each behind a
 * DataLoader: the training loader gives batches of 30 in a new random
 * order every epoch, the test loader in the dataset's own. Each epoch
 * trains on every batch, then measures the loss and the accuracy on
 * the test set without recording a graph: 300 epochs, three lines each,
 * as Python prints them. DEZERO_EPOCHS=N trains N epochs instead of
 * 300. */
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"

/* How many epochs to train: Python's 300, or $DEZERO_EPOCHS where it
 * is set. The test suite sets 1 for the run under valgrind, which
 * checks every line of the loop as well in one epoch as in 300. */
static int max_epochs(void)
{
    const char *text = getenv("DEZERO_EPOCHS");
    if (!text || !*text)
        return 300;
    char *end;
    long n = strtol(text, &end, 10);
    if (*end || n < 1 || n > 100000)
        nd_error("max_epochs", "DEZERO_EPOCHS=%s: want a number of "
                 "epochs from 1 to 100000", text);
    return (int)n;
}

int main(void)
{
    Pool *pool = pool_new();
    int max_epoch = max_epochs();
    int64_t batch_size = 30;
    int hidden_size = 10;
    double lr = 1.0;

    Dataset *train_set = spiral(true);
    Dataset *test_set = spiral(false);
    DataLoader *train_loader = dataloader(train_set, batch_size, true);
    DataLoader *test_loader = dataloader(test_set, batch_size, false);

    Model *model = mlp(ND_SHAPE(hidden_size, 3), NULL);
    Optimizer *optimizer = optimizer_setup(sgd(lr), model);

    for (int epoch = 0; epoch < max_epoch; epoch++) {
        double sum_loss = 0, sum_acc = 0;
        NdArray *x, *t;                     // (30, 2) float32, (30,)

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
            pool_drain(iteration);
            nd_release(t);
            nd_release(x);
        }

        printf("epoch: %d\n", epoch + 1);
        printf("train loss: %.4f, accuracy: %.4f\n",
               sum_loss / (double)dataset_len(train_set),
               sum_acc / (double)dataset_len(train_set));

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

        printf("test loss: %.4f, accuracy: %.4f\n",
               sum_loss / (double)dataset_len(test_set),
               sum_acc / (double)dataset_len(test_set));
    }
    pool_drain(pool);
    return 0;
}
