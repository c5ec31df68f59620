/* Step 45: layers that hold layers.
 *
 * Step 44's network as one model of the program's own, TwoLayerNet: a
 * layer whose forward calls two Linear layers it registered. The loop
 * clears and updates the model's parameters, which its walk finds in
 * both layers. 10,000 iterations, the loss printed every 1,000, as in
 * Python; then the data and the network's curve go to data.csv and
 * fit.csv, drawn into fit.svg, and the model's graph, with each
 * variable's shape and dtype, into model.svg. DEZERO_ITERS=N runs N
 * iterations instead of 10,000. */
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

/* A model of the program's own (Python: class TwoLayerNet(Model)): a
 * struct that starts with a Layer, a class table with its forward, and
 * a constructor that registers its two layers. */
typedef struct TwoLayerNet {
    Layer layer;                /* first: a TwoLayerNet * is a Layer * */
    Layer *l1, *l2;             /* borrowed: layer holds the references */
} TwoLayerNet;

static Variable *two_layer_net_forward(Layer *self, Variable *x)
{
    TwoLayerNet *net = (TwoLayerNet *)self;
    Variable *y = F_sigmoid(layer_call(net->l1, x));
    return layer_call(net->l2, y);
}

static const LayerClass two_layer_net_class = {
    .name = "TwoLayerNet",
    .forward = two_layer_net_forward,
};

static Model *two_layer_net(int64_t hidden_size, int64_t out_size)
{
    TwoLayerNet *net = (TwoLayerNet *)layer_new(&two_layer_net_class,
                                                sizeof *net);
    net->l1 = layer_add_layer(&net->layer, L_linear(hidden_size));
    net->l2 = layer_add_layer(&net->layer, L_linear(out_size));
    return &net->layer;
}

static Model *model;            /* of main's pool */

static Variable *predict(Variable *x)
{
    return layer_call(model, x);                // (N, 1)
}

/* p.data -= lr * p.grad.data, on the arrays: computed in float64 (the
 * gradient's dtype) and stored back into p's float32 array, as NumPy's
 * -= does. */
static void update(Parameter *p, double lr)
{
    NdArray *rate = nd_scalar(lr);
    NdArray *step = nd_mul(rate, p->variable.grad->data);
    nd_isub(p->variable.data, step);
    nd_release(step);
    nd_release(rate);
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
    model = two_layer_net(hidden_size, 1);

    for (int i = 0; i < max_iter; i++) {
        Pool *iteration = pool_new();
        Variable *y_pred = layer_call(model, x);
        Variable *loss = F_mean_squared_error(y, y_pred);

        layer_cleargrads(model);
        backward(loss);

        ParamIter it = layer_params(model);
        for (Parameter *p; (p = param_next(&it));)
            update(p, lr);
        if (i % 1000 == 0)
            variable_print(loss);
        pool_drain(iteration);
    }

    bool drawn = plot(x, y);
    bool plotted = model_plot(model, x, "model.svg");
    pool_drain(pool);
    return drawn && plotted ? EXIT_SUCCESS : EXIT_FAILURE;
}
