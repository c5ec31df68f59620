/* transforms.c - preprocessing of a data set's items, as the book's
 * transforms.py: Compose, Normalize, Flatten and AsType (ToFloat), each
 * a Transform, a function and the numbers it needs, by value. */
#include "dezero.h"

/* Applies t to x (Python: t(x)); the identity when t has no function.
 * Borrows x; returns a new reference. */
NdArray *transform_apply(const Transform *t, const NdArray *x)
{
    if (!t->call)
        return nd_retain((NdArray *)x);     /* lambda x: x */
    return t->call(t, x);
}

/* Each transform of the list, in order. */
static NdArray *compose_call(const Transform *self, const NdArray *x)
{
    NdArray *y = nd_retain((NdArray *)x);
    for (int i = 0; i < self->n; i++) {
        NdArray *next = transform_apply(&self->list[i], y);
        nd_release(y);
        y = next;
    }
    return y;
}

Transform T_compose(int n, const Transform *transforms)
{
    if (n < 0 || (n > 0 && !transforms))
        nd_error("T_compose", "%d transforms at %p", n,
                 (const void *)transforms);
    return (Transform){.call = compose_call, .n = n, .list = transforms};
}

/* (x - mean) / std, in x's dtype where NumPy keeps it: the two numbers
 * are 0-d, so a float32 x stays float32. */
static NdArray *normalize_call(const Transform *self, const NdArray *x)
{
    NdArray *mean = nd_scalar(self->mean), *std = nd_scalar(self->std);
    NdArray *centred = nd_sub(x, mean);
    NdArray *y = nd_div(centred, std);
    nd_release(centred);
    nd_release(std);
    nd_release(mean);
    return y;
}

Transform T_normalize(double mean, double std)
{
    return (Transform){.call = normalize_call, .mean = mean, .std = std};
}

static NdArray *flatten_call(const Transform *self, const NdArray *x)
{
    (void)self;
    return nd_flatten(x);
}

Transform T_flatten(void)
{
    return (Transform){.call = flatten_call};
}

static NdArray *as_type_call(const Transform *self, const NdArray *x)
{
    return nd_astype(x, self->dtype);
}

Transform T_as_type(NdDtype dtype)
{
    return (Transform){.call = as_type_call, .dtype = dtype};
}

Transform T_to_float(void)
{
    return T_as_type(ND_FLOAT32);
}
