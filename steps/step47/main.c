/* Step 47: softmax and the cross-entropy error.
 *
 * An MLP of sizes (10, 3) gives three scores per sample; softmax turns
 * them into probabilities, first for one sample by hand, then for four
 * by F_softmax_simple; the cross-entropy error of the four for their
 * labels is the loss of a classifier, and its backward runs through
 * GetItem, which picks each sample's probability of its label. */
#include <stdint.h>

#include "dezero.h"

/* The softmax of a single row of scores: e^x / sum(e^x). */
static Variable *softmax1d(Variable *x)
{
    Variable *y = F_exp(x);
    Variable *sum_y = F_sum(y, ND_ALL_AXES, false);
    return F_div(y, sum_y);
}

int main(void)
{
    Pool *pool = pool_new();
    nd_random_seed(0);
    Model *model = mlp(ND_SHAPE(10, 3), NULL);

    Variable *x = variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(1, 2),
                                          (double[]){0.2, -0.4}));
    Variable *y = layer_call(model, x);                     // (1, 3)
    Variable *p = softmax1d(y);
    variable_print(y);
    variable_print(p);

    NdArray *xs = nd_from_buffer(ND_FLOAT64, ND_SHAPE(4, 2), (double[]){
        0.2, -0.4, 0.3, 0.5, 1.3, -3.2, 2.1, 0.3});        // (4, 2)
    NdArray *t = nd_from_buffer(ND_INT64, ND_SHAPE(4),
                                (int64_t[]){2, 0, 1, 0});   // (4,)
    y = layer_call(model, xs);                              // (4, 3)
    p = F_softmax_simple(y, 1);
    variable_print(y);
    variable_print(p);

    Variable *loss = F_softmax_cross_entropy_simple(y, t);
    backward(loss);
    variable_print(loss);
    nd_release(t);
    nd_release(xs);
    pool_drain(pool);
    return 0;
}
