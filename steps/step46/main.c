/* Step 46: updating parameters with an optimizer.
 *
 * Step 45's training with the library's parts only: an MLP of sizes
 * (10, 1) and an SGD optimizer that updates every parameter of the
 * model with a gradient. 10,000 iterations, the loss printed every
 * 1,000, as in Python; then the data and the network's curve go to
 * data.csv and fit.csv, and gnuplot draws them into fit.svg.
 * DEZERO_ITERS=N runs N iterations instead of 10,000. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"

/* The toy data's y = sin(2 pi x) + noise, each operation on arrays in
 * NumPy's order; a new array. */
static NdArray *toy_targets(const NdArray *x, const NdArray *noise)
{
    NdArray *two_pi = nd_scalar(2 * 3.141592653589793);     /* 2 * np.pi */
    NdArray *angle = nd_mul(two_pi, x);
    NdArray *wave = nd_sin(angle);
    NdArray *y = nd_add(wave, noise);
    nd_release(wave);
    nd_release(angle);
    nd_release(two_pi);
    return y;
}

static Model *model;            /* of main's pool */

static Variable *predict(Variable *x)
{
    return layer_call(model, x);                // (N, 1)
}

/* Writes the points and the network's curve over t = 0, 0.01, ...,
 * 0.99, and has gnuplot draw them. */
static bool plot(const Variable *x, const Variable *y)
{
    NdArray *range = nd_arange(0, 1, .01, ND_FLOAT64);      // (100,)
    NdArray *t = nd_reshape(range, ND_SHAPE(-1, 1));        // (100, 1)
    Variable *y_pred = predict(variable(t));
    const char *names[] = {"x", "y"};
    const NdArray *points[] = {x->data, y->data};
    const NdArray *curve[] = {t, y_pred->data};
    bool drawn = write_csv("data.csv", 2, names, points) &&
                 write_csv("fit.csv", 2, names, curve) &&
                 plot_fit("data.csv", "fit.csv", "fit.svg", "x", "y");
    nd_release(range);
    return drawn;
}

/* How many iterations to run: Python's 10,000, or $DEZERO_ITERS where
 * it is set. The test suite sets 100 for the run under valgrind, which
 * checks every line of the loop as well in 100 rounds as in 10,000. */
static int max_iters(void)
{
    const char *text = getenv("DEZERO_ITERS");
    if (!text || !*text)
        return 10000;
    char *end;
    long n = strtol(text, &end, 10);
    if (*end || n < 1 || n > 1000000)
        nd_error("max_iters", "DEZERO_ITERS=%s: want a number of "
                 "iterations from 1 to 1000000", text);
    return (int)n;
}

int main(void)
{
    Pool *pool = pool_new();
    nd_random_seed(0);
    NdArray *x_data = nd_random_rand(ND_SHAPE(100, 1));     // (100, 1)
    NdArray *noise = nd_random_rand(ND_SHAPE(100, 1));
    Variable *y = variable(toy_targets(x_data, noise));     // (100, 1)
    Variable *x = variable(x_data);
    nd_release(noise);

    double lr = 0.2;
    int max_iter = max_iters();
    int hidden_size = 10;
    model = mlp(ND_SHAPE(hidden_size, 1), NULL);
    Optimizer *optimizer = optimizer_setup(sgd(lr), model);

    for (int i = 0; i < max_iter; i++) {
        Pool *iteration = pool_new();
        Variable *y_pred = layer_call(model, x);
        Variable *loss = F_mean_squared_error(y, y_pred);

        layer_cleargrads(model);
        backward(loss);

        optimizer_update(optimizer);
        if (i % 1000 == 0)
            variable_print(loss);
        pool_drain(iteration);
    }

    bool drawn = plot(x, y);
    pool_drain(pool);
    return drawn ? EXIT_SUCCESS : EXIT_FAILURE;
}
