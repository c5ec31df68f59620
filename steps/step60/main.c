/* Step 60: an LSTM and a loader of sequences.
 *
 * Python's step60.py: step 59's task, a noisy sine to continue, learned
 * by an LSTM of 100 hidden features and a Linear layer, with Adam, for
 * 100 epochs. A SeqDataLoader reads the 999 values as 30 sequences side
 * by side, each starting 33 values after the one before, one value of
 * each per batch: 34 batches of (30, 1) an epoch. The loss of each
 * batch adds to the epoch's; at the 30th batch the loss so far is
 * backpropagated and the graph behind it cut (unchain_backward), as
 * in step 59; the last 4 batches only add to the loss, as in Python,
 * whose second condition, count == seqlen, counts batches against
 * values and never holds. Each epoch prints its mean loss. Then the
 * model, started afresh, predicts a cosine from its own past, and
 * predict.csv and predict.svg show the prediction against the true
 * curve (Python: plt.plot, on screen).
 * DEZERO_SEED=N seeds the generator as np.random.seed(N) would, so that
 * a run can be repeated (unset: unseeded, as the book is);
 * DEZERO_EPOCHS=N trains N epochs instead of 100. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"

/* How many epochs to train: Python's 100, or $DEZERO_EPOCHS where it is
 * set. The test suite sets 1 for the run under valgrind. */
static int max_epochs(void)
{
    const char *text = getenv("DEZERO_EPOCHS");
    if (!text || !*text)
        return 100;
    char *end;
    long n = strtol(text, &end, 10);
    if (*end || n < 1 || n > 1000)
        nd_error("max_epochs", "DEZERO_EPOCHS=%s: want a number of "
                 "epochs from 1 to 1000", text);
    return (int)n;
}

/* The model of the program (Python: class BetterRNN(Model)): an LSTM
 * and a Linear layer after it. layer_reset_state(model) is Python's
 * model.reset_state(), which passes the reset on to the LSTM. */
typedef struct BetterRNN {
    Layer layer;                /* first: a BetterRNN * is a Layer * */
    Layer *rnn, *fc;            /* borrowed: layer holds the references */
} BetterRNN;

static Variable *better_rnn_forward(Layer *self, Variable *x)
{
    BetterRNN *net = (BetterRNN *)self;
    Variable *y = layer_call(net->rnn, x);          // (N, hidden_size)
    return layer_call(net->fc, y);                  // (N, out_size)
}

static const LayerClass better_rnn_class = {
    .name = "BetterRNN",
    .forward = better_rnn_forward,
};

static Model *better_rnn(int64_t hidden_size, int64_t out_size)
{
    BetterRNN *net = (BetterRNN *)layer_new(&better_rnn_class,
                                            sizeof *net);
    net->rnn = layer_add_layer(&net->layer, L_lstm(hidden_size));
    net->fc = layer_add_layer(&net->layer, L_linear(out_size));
    return &net->layer;
}

/* Keeps sum, the loss so far, for the next iteration: retains it and
 * lets go of the one it replaces. The loss is the one object a
 * training step keeps past its pool, with the graph behind it up to the
 * last cut; the RNN keeps its hidden state the same way. */
static void keep_loss(Variable **loss, Variable *sum)
{
    retain(sum);
    release(*loss);
    *loss = sum;
}

/* One epoch over the loader's batches: each batch of values predicts
 * the next ones; every bptt_length batches, and at the seqlen-th, the
 * loss so far is backpropagated, the graph behind it cut, and the
 * model updated. Returns the epoch's mean loss. */
static double train_epoch(Model *model, Optimizer *optimizer,
                          DataLoader *dataloader, int64_t seqlen,
                          int bptt_length)
{
    layer_reset_state(model);
    Variable *loss = NULL;      /* a reference: the sum so far */
    int64_t count = 0;
    NdArray *x, *t;                                 // (30, 1), (30, 1)

    while (dataloader_next(dataloader, &x, &t)) {
        Pool *step = pool_new();
        Variable *y = layer_call(model, x);         // (30, 1)
        Variable *error = F_mean_squared_error(y, t);
        keep_loss(&loss, loss ? F_add(loss, error) : F_add(error, 0L));
        count++;

        if (count % bptt_length == 0 || count == seqlen) {
            layer_cleargrads(model);
            backward(loss);
            variable_unchain_backward(loss);
            optimizer_update(optimizer);
        }
        nd_release(t);
        nd_release(x);
        pool_drain(step);
    }
    double avg_loss = nd_item(loss->data) / (double)count;
    release(loss);
    return avg_loss;
}

/* The model, started afresh, predicts np.cos over np.linspace(0, 4 pi,
 * 1000) a value at a time, without a graph; predict.csv holds the
 * index, the cosine and the prediction, and gnuplot draws them into
 * predict.svg. Returns whether the picture was drawn. */
static bool plot_prediction(Model *model)
{
    enum { N = 1000 };
    NdArray *angles = nd_linspace(0, 4 * 3.141592653589793, N);
    NdArray *xs = nd_cos(angles);                   // (1000,)
    NdArray *pred = nd_zeros(ND_FLOAT64, ND_SHAPE(N));  // (1000,)
    double *pred_list = pred->data;
    const double *x_values = xs->data;
    layer_reset_state(model);
    NO_GRAD {
        for (int64_t i = 0; i < N; i++) {
            Pool *step = pool_new();
            NdArray *x = nd_full(ND_FLOAT64, ND_SHAPE(1, 1), x_values[i]);
            Variable *y = layer_call(model, x);     // (1, 1)
            pred_list[i] = nd_item(y->data);
            nd_release(x);
            pool_drain(step);
        }
    }
    NdArray *index = nd_arange(0, N, 1, ND_INT64);
    bool drawn = write_csv("predict.csv", 3,
                           (const char *[]){"x", "y=cos(x)", "predict"},
                           (const NdArray *[]){index, xs, pred}) &&
                 plot_csv("predict.csv", "predict.svg", "bottom left");
    nd_release(index);
    nd_release(pred);
    nd_release(xs);
    nd_release(angles);
    return drawn;
}

int main(void)
{
    nd_random_seed_from_env("DEZERO_SEED");
    Pool *pool = pool_new();

    int max_epoch = max_epochs();
    int64_t batch_size = 30;
    int64_t hidden_size = 100;
    int bptt_length = 30;

    Dataset *train_set = sin_curve(true);
    DataLoader *dataloader = seq_dataloader(train_set, batch_size);
    int64_t seqlen = dataset_len(train_set);

    Model *model = better_rnn(hidden_size, 1);
    Optimizer *optimizer = optimizer_setup(adam(0.001, 0.9, 0.999, 1e-8),
                                           model);

    for (int epoch = 0; epoch < max_epoch; epoch++) {
        double avg_loss = train_epoch(model, optimizer, dataloader, seqlen,
                                      bptt_length);
        printf("| epoch %d | loss %f\n", epoch + 1, avg_loss);
        fflush(stdout);
    }

    // Plot
    bool drawn = plot_prediction(model);
    pool_drain(pool);
    return drawn ? EXIT_SUCCESS : EXIT_FAILURE;
}
