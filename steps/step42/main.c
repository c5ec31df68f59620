/* Step 42: linear regression.
 *
 * Fits y = x W + b to 100 points scattered around y = 5 + 2x, by
 * gradient descent on the mean squared error: 100 iterations, each
 * printing W and b after its update and the loss before it. The data
 * comes from NumPy's generator seeded with 0, so the numbers are
 * Python's. Then the points and the fitted line go to data.csv and
 * fit.csv, and gnuplot draws them into fit.svg. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"

/* The toy data's y = 5 + 2 x + noise, each operation on arrays in
 * NumPy's order; a new array. */
static NdArray *toy_targets(const NdArray *x, const NdArray *noise)
{
    NdArray *five = nd_scalar_of(ND_INT64, 5);
    NdArray *two = nd_scalar_of(ND_INT64, 2);
    NdArray *two_x = nd_mul(two, x);
    NdArray *line = nd_add(five, two_x);
    NdArray *y = nd_add(line, noise);
    nd_release(line);
    nd_release(two_x);
    nd_release(two);
    nd_release(five);
    return y;
}

static Variable *W, *b;         /* the parameters, of main's pool */

static Variable *predict(Variable *x)
{
    return F_add(F_matmul(x, W), b);            // (N, 1)
}

/* The script's own loss: the mean of the squared differences, made of
 * the functions so far (the book adds a fused one in step 43). */
static Variable *mean_squared_error(Variable *x0, Variable *x1)
{
    Variable *diff = F_sub(x0, x1);
    return F_div(F_sum(F_pow(diff, 2), ND_ALL_AXES, false),
                 variable_len(diff));
}

/* p.data -= lr * p.grad.data: the step of gradient descent, on the
 * arrays, so that it is not part of any graph. */
static void update(Variable *p, double lr)
{
    NdArray *rate = nd_scalar(lr);
    NdArray *step = nd_mul(rate, p->grad->data);
    nd_isub(p->data, step);
    nd_release(step);
    nd_release(rate);
}

/* Writes the points and the fitted line, and has gnuplot draw them. */
static bool plot(const Variable *x, const Variable *y,
                 const Variable *y_pred)
{
    const char *names[] = {"x", "y"};
    const NdArray *points[] = {x->data, y->data};
    const NdArray *line[] = {x->data, y_pred->data};
    return write_csv("data.csv", 2, names, points) &&
           write_csv("fit.csv", 2, names, line) &&
           plot_fit("data.csv", "fit.csv", "fit.svg", "x", "y");
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

    W = variable(nd_zeros(ND_FLOAT64, ND_SHAPE(1, 1)));
    b = variable(nd_zeros(ND_FLOAT64, ND_SHAPE(1)));
    double lr = 0.1;
    int iters = 100;

    for (int i = 0; i < iters; i++) {
        Pool *iteration = pool_new();
        Variable *y_pred = predict(x);
        Variable *loss = mean_squared_error(y, y_pred);

        cleargrad(W);
        cleargrad(b);
        backward(loss);

        update(W, lr);
        update(b, lr);
        char *w_text = variable_repr(W), *b_text = variable_repr(b);
        char *loss_text = variable_repr(loss);
        printf("%s %s %s\n", w_text, b_text, loss_text);   /* print(W, b,
                                                             * loss) */
        free(loss_text);
        free(b_text);
        free(w_text);
        pool_drain(iteration);
    }

    bool drawn = plot(x, y, predict(x));
    pool_drain(pool);
    return drawn ? EXIT_SUCCESS : EXIT_FAILURE;
}
