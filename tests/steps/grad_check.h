/* grad_check.h - the gradient check of the steps from 38 on: backward's
 * gradient of every input of a function of several inputs against
 * central differences taken one element at a time, on a weighted sum
 * of the outputs so that every output counts differently. Include it
 * after pool_fixture.h. */
#ifndef GRAD_CHECK_H
#define GRAD_CHECK_H

#include "pool_fixture.h"

/* A function of n Variables, as the check calls it. */
typedef Variable *(*GradCheckFunction)(Variable *xs[]);

/* A float64 array of the shape holding start, start + step, .... */
static inline NdArray *ramp(int ndim, const int64_t *shape, double start,
                            double step)
{
    NdArray *a = nd_empty(ND_FLOAT64, ndim, shape);
    for (int64_t i = 0; i < a->size; i++)
        nd_set_flat(a, i, start + step * (double)i);
    return a;
}

/* Weights 1, 2, 3, ... of y's shape. */
static inline NdArray *weights_like(const NdArray *y)
{
    return ramp(y->ndim, y->shape, 1, 1);
}

/* L = sum(w * f(arrays)), computed without a graph. */
static inline double grad_check_loss(GradCheckFunction f, int n,
                                     NdArray *const arrays[])
{
    double value = 0;
    NO_GRAD {
        Variable *xs[n];
        for (int i = 0; i < n; i++)
            xs[i] = variable(nd_copy(arrays[i]));
        Variable *y = f(xs);
        NdArray *w = weights_like(y->data);
        NdArray *product = nd_mul(y->data, w);
        NdArray *sum = nd_sum(product, ND_ALL_AXES, false);
        value = nd_item(sum);
        nd_release(sum);
        nd_release(product);
        nd_release(w);
    }
    return value;
}

/* dL/d(arrays[which]) by central differences with step eps. */
static inline NdArray *grad_check_numerical(GradCheckFunction f, int n,
                                            NdArray *const arrays[],
                                            int which, double eps)
{
    NdArray *moved[n];
    for (int i = 0; i < n; i++)
        moved[i] = nd_copy(arrays[i]);
    NdArray *x = moved[which];
    NdArray *num = nd_zeros(ND_FLOAT64, x->ndim, x->shape);
    for (int64_t j = 0; j < x->size; j++) {
        double at = nd_get_flat(x, j);
        nd_set_flat(x, j, at + eps);
        double up = grad_check_loss(f, n, moved);
        nd_set_flat(x, j, at - eps);
        double down = grad_check_loss(f, n, moved);
        nd_set_flat(x, j, at);
        nd_set_flat(num, j, (up - down) / (2 * eps));
    }
    for (int i = 0; i < n; i++)
        nd_release(moved[i]);
    return num;
}

/* Runs y = f(xs) on variables holding copies of the n arrays, backward
 * from the weights, and checks that each input has a gradient of its
 * own shape that agrees with central differences (within rtol, and
 * 1e-8 absolute). what names the case in a failure. */
static inline void check_gradients(const char *what, GradCheckFunction f,
                                   int n, NdArray *const arrays[],
                                   double rtol)
{
    Variable *xs[n];
    for (int i = 0; i < n; i++)
        xs[i] = variable(nd_copy(arrays[i]));
    Variable *y = f(xs);
    y->grad = retain(variable(weights_like(y->data)));
    backward(y);
    for (int i = 0; i < n; i++) {
        const NdArray *g = grad_array(xs[i]);
        if (!g)
            fail_msg("%s: input %d has no gradient", what, i);
        if (g->ndim != arrays[i]->ndim)
            fail_msg("%s: input %d has %d axes, its gradient %d", what, i,
                     arrays[i]->ndim, g->ndim);
        for (int d = 0; d < g->ndim; d++)
            if (g->shape[d] != arrays[i]->shape[d])
                fail_msg("%s: axis %d of input %d is %lld, of its "
                         "gradient %lld", what, d, i,
                         (long long)arrays[i]->shape[d],
                         (long long)g->shape[d]);
        NdArray *num = grad_check_numerical(f, n, arrays, i, 1e-5);
        bool close = nd_allclose(g, num, rtol, 1e-8);
        nd_release(num);
        if (!close)
            fail_msg("%s: backward's gradient of input %d differs from "
                     "the numerical one", what, i);
    }
}

/* check_gradients for a function of one input, f(x). (C has no
 * closures: f waits in a variable for the adapter that calls it.) */
static Variable *(*grad_check_one)(Variable *x);

static inline Variable *grad_check_call_one(Variable *xs[])
{
    return grad_check_one(xs[0]);
}

static inline void check_gradient(const char *what,
                                  Variable *(*f)(Variable *x),
                                  NdArray *x, double rtol)
{
    grad_check_one = f;
    check_gradients(what, grad_check_call_one, 1, (NdArray *[]){x}, rtol);
}

#endif /* GRAD_CHECK_H */
