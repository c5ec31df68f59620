/* Step 27: differentiating a Taylor series.
 *
 * The program defines a function of its own, Sin, with the FunctionClass
 * table the framework's functions use, as Python subclasses Function.
 * Then it computes sin again as its Taylor series, from the arithmetic
 * of steps 20 to 22, compares the two and their derivatives, and draws
 * the series' graph into my_sin.png (its DOT text into my_sin.dot). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"

/* ---- Sin: y = sin(x), dy/dx = cos(x) */

static void sin_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_sin(xs[0]);
}

static void sin_backward(Function *self, NdArray *gys[], NdArray *gxs[])
{
    const NdArray *x = self->inputs[0]->data;
    NdArray *cos_x = nd_cos(x);
    gxs[0] = nd_mul(gys[0], cos_x);             /* gy * cos(x) */
    nd_release(cos_x);
}

/* The class: Python's class Sin(Function). */
static const FunctionClass sin_class = {
    .name = "Sin",
    .noutputs = 1,
    .forward = sin_forward,
    .backward = sin_backward,
};

/* y = sin(x) (Python: sin(x), that is Sin()(x)). */
static Variable *F_sin(Variable *x)
{
    return function_call(function_new(&sin_class), x);
}

/* ---- sin as a Taylor series */

/* n! as a double (Python: math.factorial(n), an exact integer); exact
 * up to 22!, which is more than my_sin ever needs. */
static double factorial(int n)
{
    double product = 1.0;
    for (int k = 2; k <= n; k++)
        product *= k;
    return product;
}

/* sin(x) = x - x^3/3! + x^5/5! - ..., summed until a term is smaller
 * than threshold in size. The sum starts from the integer 0, as
 * Python's y = 0. */
static Variable *my_sin(Variable *x, double threshold)
{
    Variable *y = NULL;         /* Python's y = 0: an int until 0 + t */
    for (int i = 0; i < 100000; i++) {
        double c = (i % 2 ? -1.0 : 1.0) / factorial(2 * i + 1);
        Variable *t = F_mul(c, F_pow(x, 2 * i + 1));
        y = y ? F_add(y, t) : F_add(0, t);
        if (fabs(nd_item(t->data)) < threshold)
            break;
    }
    return y;
}

int main(void)
{
    Pool *pool = pool_new();
    Variable *x = variable(nd_scalar(M_PI / 4));
    Variable *y = F_sin(x);
    backward(y);
    puts("--- original sin ---");
    nd_print(y->data);
    nd_print(x->grad);

    x = variable(nd_scalar(M_PI / 4));
    y = my_sin(x, 1e-4);
    backward(y);
    puts("--- approximate sin ---");
    nd_print(y->data);
    nd_print(x->grad);

    x->name = "x";
    y->name = "y";
    bool drawn = plot_dot_graph(y, false, "my_sin.png");
    char *graph = get_dot_graph(y, false);  /* the text dot was given */
    bool saved = write_text_file("my_sin.dot", graph);
    free(graph);
    pool_drain(pool);
    return drawn && saved ? EXIT_SUCCESS : EXIT_FAILURE;
}
