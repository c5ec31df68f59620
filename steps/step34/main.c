/* Step 34: higher-order derivatives of sin.
 *
 * The framework gains functions.c, with Sin and Cos, whose backwards
 * are made of functions too. The program differentiates sin over
 * [-7, 7] three times over, each time through the graph the backward
 * before recorded, and plots sin and its three derivatives: the data
 * goes to sin.csv, and gnuplot draws it into sin.svg. */
#include <stdbool.h>
#include <stdlib.h>

#include "dezero.h"

enum { DERIVATIVES = 3 };

int main(void)
{
    Pool *pool = pool_new();
    Variable *x = variable(nd_linspace(-7, 7, 200));    // (200,)
    Variable *y = F_sin(x);
    backward(y, .create_graph = true);

    /* y, y', y'', y''': arrays of variables the pool keeps */
    const NdArray *logs[1 + DERIVATIVES] = {y->data};
    for (int i = 0; i < DERIVATIVES; i++) {
        logs[i + 1] = x->grad->data;        // (200,)
        Variable *gx = x->grad;
        cleargrad(x);
        backward(gx, .create_graph = true);
    }

    const char *names[] = {"x", "y=sin(x)", "y'", "y''", "y'''"};
    const NdArray *columns[] = {x->data, logs[0], logs[1], logs[2],
                                logs[3]};
    bool drawn = write_csv("sin.csv", 5, names, columns) &&
                 plot_csv("sin.csv", "sin.svg", "bottom right");
    pool_drain(pool);
    return drawn ? EXIT_SUCCESS : EXIT_FAILURE;
}
