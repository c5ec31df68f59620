/* Step 49: the Dataset class and preprocessing.
 *
 * Step 48's training, with the data behind a Dataset: the spiral is
 * spiral(true), its length is dataset_len, and a mini-batch is made of
 * the items at the batch's indices, taken one by one (each through the
 * dataset's transform, none here) and stacked. The same 300 losses as
 * step 48. DEZERO_EPOCHS=N trains N epochs instead of 300. */
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
    Model *model = mlp(ND_SHAPE(hidden_size, 3), NULL);
    Optimizer *optimizer = optimizer_setup(sgd(lr), model);

    int64_t data_size = dataset_len(train_set);
    int64_t max_iter = (data_size + batch_size - 1) / batch_size;

    for (int epoch = 0; epoch < max_epoch; epoch++) {
        NdArray *index = nd_random_permutation(data_size);
        double sum_loss = 0;

        for (int64_t i = 0; i < max_iter; i++) {
            Pool *iteration = pool_new();
            NdArray *batch_index = nd_getitem(index, 1, (NdIndex[]){
                ND_IDX_SLICE(i * batch_size, (i + 1) * batch_size,
                             ND_NONE)});
            NdArray *batch_x, *batch_t;     // (30, 2) float32, (30,)
            dataset_batch(train_set, batch_index, &batch_x, &batch_t);

            Variable *y = layer_call(model, batch_x);
            Variable *loss = F_softmax_cross_entropy(y, batch_t);
            layer_cleargrads(model);
            backward(loss);
            optimizer_update(optimizer);

            sum_loss += nd_item(loss->data) * (double)batch_t->size;
            nd_release(batch_t);
            nd_release(batch_x);
            nd_release(batch_index);
            pool_drain(iteration);
        }

        double avg_loss = sum_loss / (double)data_size;
        printf("epoch %d, loss %.2f\n", epoch + 1, avg_loss);
        nd_release(index);
    }
    pool_drain(pool);
    return 0;
}
