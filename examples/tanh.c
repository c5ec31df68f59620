/* tanh - the graph of tanh's higher derivatives (Python:
 * examples/tanh.py).
 *
 * Step 35's program carried further: tanh at x = 1 is differentiated
 * with create_graph, then its gradient differentiated again, iters
 * times (Python's 3), so that x.grad is the (iters + 1)-th derivative,
 * named gx4; Graphviz draws the graph that computes it into tanh.png
 * (its DOT text into tanh.dot) and the program prints its value.
 * DEZERO_ITERS=N differentiates N times instead of 3 (0 to 8: the
 * graph roughly triples with each). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"
#include "options.h"

int main(void)
{
    Pool *pool = pool_new();
    Variable *x = variable(nd_scalar(1.0));
    Variable *y = F_tanh(x);
    x->name = "x";
    y->name = "y";
    backward(y, .create_graph = true);

    int iters = (int)option_count("DEZERO_ITERS", 3, 0, 8);

    for (int i = 0; i < iters; i++) {
        Variable *gx = x->grad;
        cleargrad(x);
        backward(gx, .create_graph = true);
    }

    Variable *gx = x->grad;             /* the (iters + 1)-th derivative */
    char name[16];                      /* outlives gx: main's own */
    snprintf(name, sizeof name, "gx%d", iters + 1);
    gx->name = name;
    printf("%s: %.17g\n", name, nd_item(gx->data));
    bool drawn = plot_dot_graph(gx, false, "tanh.png");
    char *graph = get_dot_graph(gx, false); /* the text dot was given */
    bool saved = write_text_file("tanh.dot", graph);
    free(graph);
    pool_drain(pool);
    return drawn && saved ? EXIT_SUCCESS : EXIT_FAILURE;
}
