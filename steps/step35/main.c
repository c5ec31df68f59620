/* Step 35: the computational graph of higher-order derivatives.
 *
 * The framework gains Tanh, whose backward is made of its output,
 * 1 - y^2. The program differentiates tanh at x = 1 with create_graph,
 * then differentiates the gradient again, and draws the graph that
 * computes the second derivative into tanh.png (its DOT text into
 * tanh.dot). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"

int main(void)
{
    Pool *pool = pool_new();
    Variable *x = variable(nd_scalar(1.0));
    Variable *y = F_tanh(x);
    x->name = "x";
    y->name = "y";
    backward(y, .create_graph = true);

    int iters = 1;
    for (int i = 0; i < iters; i++) {
        Variable *gx = x->grad;
        cleargrad(x);
        backward(gx, .create_graph = true);
    }

    Variable *gx = x->grad;             /* the (iters + 1)-th derivative */
    char name[16];                      /* outlives gx: main's own */
    snprintf(name, sizeof name, "gx%d", iters + 1);
    gx->name = name;
    bool drawn = plot_dot_graph(gx, false, "tanh.png");
    char *graph = get_dot_graph(gx, false); /* the text dot was given */
    bool saved = write_text_file("tanh.dot", graph);
    free(graph);
    pool_drain(pool);
    return drawn && saved ? EXIT_SUCCESS : EXIT_FAILURE;
}
