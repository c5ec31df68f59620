/* spiral - the spiral, learned by a network with batch normalization
 * (Python: examples/spiral.py).
 *
 * The book's spiral training loop (step 49) with a model of its own,
 * TwoLayerNet: Linear(10), BatchNorm, sigmoid, Linear(3), trained by
 * SGD (lr 1.0) on shuffled batches of 30 of the 300 points, for 100
 * epochs; every 10th epoch prints the loss of its last batch, as
 * Python does. Then the model, in test mode (BatchNorm on its running
 * statistics), classifies every point of a grid over the plane, and
 * gnuplot draws the three classes' regions under the data into
 * spiral.svg (the points into spiral.csv; Python: plt.contourf and
 * plt.scatter, on screen). DEZERO_EPOCHS (100), DEZERO_BATCH_SIZE (30),
 * DEZERO_HIDDEN_SIZE (10), DEZERO_LR (1.0) and DEZERO_GRID_STEP
 * (0.001) change Python's constants; DEZERO_SEED=N seeds the generator
 * as np.random.seed(N) (unset: unseeded, as Python's script). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"
#include "options.h"

/* The model of the script (Python: class TwoLayerNet(Model)). */
typedef struct TwoLayerNet {
    Layer layer;                /* first: a TwoLayerNet * is a Layer * */
    Layer *l1, *l2, *bn1;       /* borrowed: layer holds the references */
} TwoLayerNet;

static Variable *two_layer_net_forward(Layer *self, Variable *x)
{
    TwoLayerNet *net = (TwoLayerNet *)self;
    Variable *y = F_sigmoid(layer_call(net->bn1, layer_call(net->l1, x)));
    return layer_call(net->l2, y);                  // (N, out_size)
}

static const LayerClass two_layer_net_class = {
    .name = "TwoLayerNet",
    .forward = two_layer_net_forward,
};

static Model *two_layer_net(int64_t hidden_size, int64_t out_size)
{
    TwoLayerNet *net = (TwoLayerNet *)layer_new(&two_layer_net_class,
                                                sizeof *net);
    net->l1 = layer_add_layer(&net->layer, L_linear(hidden_size),
                              .name = "l1");
    net->l2 = layer_add_layer(&net->layer, L_linear(out_size),
                              .name = "l2");
    net->bn1 = layer_add_layer(&net->layer, L_batch_norm(), .name = "bn1");
    return &net->layer;
}

/* The points of the grid that one pass of the model takes at most: the
 * grid goes through the model a band of rows at a time, so that its
 * memory stays a few megabytes however fine the grid is. */
enum { GRID_BAND_POINTS = 1 << 16 };

/* The class the model predicts, in test mode, at each point (xs[c],
 * ys[r]) of the grid: (len(ys), len(xs)) int64 (Python:
 * np.argmax(score.data, axis=1).reshape(xx.shape)). */
static NdArray *predict_grid(Model *model, const NdArray *xs,
                             const NdArray *ys)
{
    int64_t cols = xs->size, rows = ys->size;
    NdArray *classes = nd_empty(ND_INT64, ND_SHAPE(rows, cols));
    int64_t band = GRID_BAND_POINTS / cols > 0 ? GRID_BAND_POINTS / cols
                                               : 1;
    for (int64_t r0 = 0; r0 < rows; r0 += band) {
        int64_t n = rows - r0 < band ? rows - r0 : band;
        NdArray *X = nd_empty(ND_FLOAT64, ND_SHAPE(n * cols, 2));
        for (int64_t r = 0; r < n; r++)
            for (int64_t c = 0; c < cols; c++) {
                double *point = ND_DATA(X, double) + 2 * (r * cols + c);
                point[0] = ND_DATA(xs, double)[c];
                point[1] = ND_DATA(ys, double)[r0 + r];
            }
        Pool *pool = pool_new();
        TEST_MODE NO_GRAD {
            Variable *score = layer_call(model, X);     // (n cols, 3)
            NdArray *predicted = nd_argmax(score->data, 1);
            for (int64_t k = 0; k < predicted->size; k++)
                ND_DATA(classes, int64_t)[r0 * cols + k] =
                    ND_DATA(predicted, int64_t)[k];
            nd_release(predicted);
        }
        pool_drain(pool);
        nd_release(X);
    }
    return classes;
}

/* The ends of the grid along column j of x: its smallest and largest
 * value, 0.1 further out. */
static void grid_range(const NdArray *x, int64_t j, double *lo, double *hi)
{
    NdArray *values = nd_getitem(x, 2, (NdIndex[]){ND_IDX_ALL,
                                                   ND_IDX_INT(j)});
    NdArray *min = nd_min(values, ND_ALL_AXES, false);
    NdArray *max = nd_max(values, ND_ALL_AXES, false);
    *lo = nd_item(min) - .1;
    *hi = nd_item(max) + .1;
    nd_release(max);
    nd_release(min);
    nd_release(values);
}

/* Writes the points x (300, 2) and their classes t (300,) to
 * spiral.csv, and has gnuplot draw them over the classes the model
 * predicts on a grid of step h around them into spiral.svg. */
static bool plot_regions(Model *model, const NdArray *x, const NdArray *t,
                         double h)
{
    NdArray *x0 = nd_getitem(x, 2, (NdIndex[]){ND_IDX_ALL, ND_IDX_INT(0)});
    NdArray *x1 = nd_getitem(x, 2, (NdIndex[]){ND_IDX_ALL, ND_IDX_INT(1)});
    bool drawn = write_csv("spiral.csv", 3,
                           (const char *[]){"x0", "x1", "t"},
                           (const NdArray *[]){x0, x1, t});
    nd_release(x1);
    nd_release(x0);
    double x_min, x_max, y_min, y_max;
    grid_range(x, 0, &x_min, &x_max);
    grid_range(x, 1, &y_min, &y_max);
    NdArray *xs = nd_arange(x_min, x_max, h, ND_FLOAT64);
    NdArray *ys = nd_arange(y_min, y_max, h, ND_FLOAT64);
    NdArray *Z = predict_grid(model, xs, ys);   // (len(ys), len(xs))
    drawn = drawn && plot_decision_regions(Z, x_min, y_min, h,
                                           "spiral.csv", "spiral.svg");
    nd_release(Z);
    nd_release(ys);
    nd_release(xs);
    return drawn;
}

int main(void)
{
    nd_random_seed_from_env("DEZERO_SEED");
    Pool *pool = pool_new();
    int max_epoch = (int)option_count("DEZERO_EPOCHS", 100, 1, 100000);
    int64_t batch_size = option_count("DEZERO_BATCH_SIZE", 30, 1, 300);
    int64_t hidden_size = option_count("DEZERO_HIDDEN_SIZE", 10, 1, 10000);
    double lr = option_number("DEZERO_LR", 1.0, 0, 100);
    double h = option_number("DEZERO_GRID_STEP", 0.001, 1e-4, 0.5);

    Dataset *train_set = spiral(true);
    Dataset *test_set = spiral(false);
    DataLoader *train_loader = dataloader(train_set, batch_size, true);
    DataLoader *test_loader = dataloader(test_set, batch_size, false);
    (void)test_loader;          /* made and unused, as in Python */

    Model *model = two_layer_net(hidden_size, 3);
    Optimizer *optimizer = optimizer_setup(sgd(lr), model);

    for (int epoch = 0; epoch < max_epoch; epoch++) {
        NdArray *x, *t;                             // (30, 2), (30,)
        char *text = NULL;          /* the last batch's loss, printed */
        while (dataloader_next(train_loader, &x, &t)) {
            Pool *iteration = pool_new();
            Variable *y = layer_call(model, x);     // (30, 3)
            Variable *loss = F_softmax_cross_entropy(y, t);
            layer_cleargrads(model);
            backward(loss);
            optimizer_update(optimizer);
            free(text);
            text = nd_str(loss->data);
            pool_drain(iteration);
            nd_release(t);
            nd_release(x);
        }
        if (epoch % 10 == 0)
            printf("loss: %s\n", text);
        free(text);
        fflush(stdout);
    }

    // Plot
    bool drawn = plot_regions(model, train_set->data, train_set->label, h);
    pool_drain(pool);
    return drawn ? EXIT_SUCCESS : EXIT_FAILURE;
}
