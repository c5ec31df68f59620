/* Step 48: multi-class classification.
 *
 * The spiral: 300 points in three interleaved arms, a class per arm.
 * An MLP of sizes (10, 3) learns to tell them apart, trained by SGD on
 * mini-batches of 30, drawn in a new random order every epoch, with the
 * softmax cross-entropy as its loss: 300 epochs, the mean loss of each
 * printed. gnuplot draws the data into spiral.svg before the training;
 * after it, the model classifies every point of a grid over the plane,
 * over 4 million of them, and gnuplot draws the regions of the three
 * classes under the data into boundary.svg. DEZERO_EPOCHS=N trains N
 * epochs instead of 300. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"

/* The rows of a picked by the int64 indices (Python: a[index]); a new
 * array. */
static NdArray *take_rows(const NdArray *a, const NdArray *index)
{
    return nd_getitem(a, 1, (NdIndex[]){ND_IDX_ARRAY(index)});
}

/* Column j of the 2-D a (Python: a[:, j]); a new array. */
static NdArray *column(const NdArray *a, int64_t j)
{
    return nd_getitem(a, 2, (NdIndex[]){ND_IDX_ALL, ND_IDX_INT(j)});
}

/* The points of the grid that one pass of the model takes at most: the
 * grid goes through the model a band of rows at a time, so that its
 * memory stays a few megabytes however fine the grid is. */
enum { GRID_BAND_POINTS = 1 << 16 };

/* The class the model predicts at each point (xs[c], ys[r]) of the
 * grid: (len(ys), len(xs)) int64 (Python: np.argmax(model(X).data,
 * axis=1).reshape(xx.shape), where X = np.c_[xx.ravel(), yy.ravel()]).
 * No graph is recorded. */
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
        NO_GRAD {
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
    NdArray *values = column(x, j);
    NdArray *min = nd_min(values, ND_ALL_AXES, false);
    NdArray *max = nd_max(values, ND_ALL_AXES, false);
    *lo = nd_item(min) - .1;
    *hi = nd_item(max) + .1;
    nd_release(max);
    nd_release(min);
    nd_release(values);
}

/* The grid's step: Python's 0.001, or $DEZERO_GRID_STEP where it is
 * set. The test suite sets 0.01 for the run under valgrind, which is
 * some 30 times slower than the program, so that it checks the same
 * code on a grid of 43,000 points instead of 4.3 million. */
static double grid_step(void)
{
    const char *text = getenv("DEZERO_GRID_STEP");
    if (!text || !*text)
        return 0.001;
    char *end;
    double h = strtod(text, &end);
    if (*end || !(h >= 1e-4 && h <= 0.5))
        nd_error("grid_step", "DEZERO_GRID_STEP=%s: want a step between "
                 "0.0001 and 0.5", text);
    return h;
}

/* Writes the data to spiral.csv, x0 and x1 and the label t of each
 * point, and has gnuplot draw it into spiral.svg. */
static bool plot_data(const NdArray *x, const NdArray *t)
{
    const char *names[] = {"x0", "x1", "t"};
    NdArray *x0 = column(x, 0), *x1 = column(x, 1);
    const NdArray *columns[] = {x0, x1, t};
    bool drawn = write_csv("spiral.csv", 3, names, columns) &&
                 plot_classes("spiral.csv", "spiral.svg");
    nd_release(x1);
    nd_release(x0);
    return drawn;
}

/* Has gnuplot draw the data of spiral.csv over the classes the model
 * predicts on a grid around x into boundary.svg. */
static bool plot_boundary(Model *model, const NdArray *x)
{
    double h = grid_step(), x_min, x_max, y_min, y_max;
    grid_range(x, 0, &x_min, &x_max);
    grid_range(x, 1, &y_min, &y_max);
    NdArray *xs = nd_arange(x_min, x_max, h, ND_FLOAT64);
    NdArray *ys = nd_arange(y_min, y_max, h, ND_FLOAT64);
    NdArray *classes = predict_grid(model, xs, ys);
    bool drawn = plot_decision_regions(classes, x_min, y_min, h,
                                       "spiral.csv", "boundary.svg");
    nd_release(classes);
    nd_release(ys);
    nd_release(xs);
    return drawn;
}

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

    NdArray *x, *t;
    get_spiral(true, &x, &t);               // (300, 2) float32, (300,)
    bool drawn = plot_data(x, t);
    Model *model = mlp(ND_SHAPE(hidden_size, 3), NULL);
    Optimizer *optimizer = optimizer_setup(sgd(lr), model);

    int64_t data_size = x->shape[0];
    int64_t max_iter = (data_size + batch_size - 1) / batch_size;

    for (int epoch = 0; epoch < max_epoch; epoch++) {
        NdArray *index = nd_random_permutation(data_size);
        double sum_loss = 0;

        for (int64_t i = 0; i < max_iter; i++) {
            Pool *iteration = pool_new();
            NdArray *batch_index = nd_getitem(index, 1, (NdIndex[]){
                ND_IDX_SLICE(i * batch_size, (i + 1) * batch_size,
                             ND_NONE)});
            NdArray *batch_x = take_rows(x, batch_index);   // (30, 2)
            NdArray *batch_t = take_rows(t, batch_index);   // (30,)

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

    drawn = plot_boundary(model, x) && drawn;
    nd_release(t);
    nd_release(x);
    pool_drain(pool);
    return drawn ? EXIT_SUCCESS : EXIT_FAILURE;
}
