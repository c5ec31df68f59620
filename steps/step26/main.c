/* Step 26: visualizing the computational graph (2).
 *
 * The framework learns to draw its graphs: get_dot_graph writes the
 * graph behind a variable in DOT, and plot_dot_graph has Graphviz draw
 * it. The program draws Goldstein-Price's graph into goldstein.png and
 * keeps its DOT text in goldstein.dot. */
#include <stdbool.h>
#include <stdlib.h>

#include "dezero.h"

/* The sphere: z = x^2 + y^2. */
Variable *sphere(Variable *x, Variable *y)
{
    return F_add(F_pow(x, 2), F_pow(y, 2));
}

/* Matyas: z = 0.26 (x^2 + y^2) - 0.48 x y. */
Variable *matyas(Variable *x, Variable *y)
{
    return F_sub(F_mul(0.26, F_add(F_pow(x, 2), F_pow(y, 2))),
                 F_mul(F_mul(0.48, x), y));
}

/* Goldstein-Price:
 *   z = [1 + (x + y + 1)^2 (19 - 14x + 3x^2 - 14y + 6xy + 3y^2)]
 *     * [30 + (2x - 3y)^2 (18 - 32x + 12x^2 + 48y - 36xy + 27y^2)]
 * Each polynomial is built term by term, as the formula reads. */
Variable *goldstein(Variable *x, Variable *y)
{
    Variable *p = F_sub(19, F_mul(14, x));          /* 19 - 14x */
    p = F_add(p, F_mul(3, F_pow(x, 2)));            /*   + 3x^2 */
    p = F_sub(p, F_mul(14, y));                     /*   - 14y */
    p = F_add(p, F_mul(F_mul(6, x), y));            /*   + 6xy */
    p = F_add(p, F_mul(3, F_pow(y, 2)));            /*   + 3y^2 */
    Variable *a = F_pow(F_add(F_add(x, y), 1), 2);  /* (x + y + 1)^2 */
    Variable *left = F_add(1, F_mul(a, p));

    Variable *q = F_sub(18, F_mul(32, x));          /* 18 - 32x */
    q = F_add(q, F_mul(12, F_pow(x, 2)));           /*   + 12x^2 */
    q = F_add(q, F_mul(48, y));                     /*   + 48y */
    q = F_sub(q, F_mul(F_mul(36, x), y));           /*   - 36xy */
    q = F_add(q, F_mul(27, F_pow(y, 2)));           /*   + 27y^2 */
    Variable *b = F_pow(F_sub(F_mul(2, x), F_mul(3, y)), 2); /* (2x-3y)^2 */
    Variable *right = F_add(30, F_mul(b, q));

    return F_mul(left, right);
}

int main(void)
{
    Pool *pool = pool_new();
    Variable *x = variable(nd_scalar(1.0));
    Variable *y = variable(nd_scalar(1.0));
    Variable *z = goldstein(x, y);
    backward(z);

    x->name = "x";
    y->name = "y";
    z->name = "z";
    bool drawn = plot_dot_graph(z, false, "goldstein.png");
    char *graph = get_dot_graph(z, false);  /* the text dot was given */
    bool saved = write_text_file("goldstein.dot", graph);
    free(graph);
    pool_drain(pool);
    return drawn && saved ? EXIT_SUCCESS : EXIT_FAILURE;
}
