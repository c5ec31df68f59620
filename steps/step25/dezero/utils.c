/* utils.c - helpers beside the core: numerical differentiation, which
 * checks the gradients backpropagation computes. */
#include "dezero.h"

/* The derivative of f at x, estimated by a central difference:
 * (f(x + eps) - f(x - eps)) / (2 eps), elementwise. Borrows x; returns
 * a new array. The Variables it makes belong to the innermost pool. */
NdArray *numerical_diff(Variable *(*f)(Variable *), const Variable *x,
                        double eps)
{
    NdArray *h = nd_scalar(eps);
    Variable *x0 = variable(nd_sub(x->data, h));
    Variable *x1 = variable(nd_add(x->data, h));
    Variable *y0 = f(x0);
    Variable *y1 = f(x1);

    NdArray *rise = nd_sub(y1->data, y0->data);
    NdArray *run = nd_scalar(2 * eps);
    NdArray *slope = nd_div(rise, run);
    nd_release(h);
    nd_release(rise);
    nd_release(run);
    return slope;
}
