/* transforms.c - preprocessing of a data set's items, as the book's
 * transforms.py: Compose, Normalize, Flatten and AsType (ToFloat), each
 * a Transform, a function and the numbers it needs, by value. Each also
 * has a batch form, which a DataLoader calls once on a batch of items
 * stacked rather than 100 times on one item each: the same numbers. */
#include "dezero.h"

/* Applies t to x (Python: t(x)); the identity when t has no function.
 * Borrows x; returns a new reference. */
NdArray *transform_apply(const Transform *t, const NdArray *x)
{
    if (!t->call)
        return nd_retain((NdArray *)x);     /* lambda x: x */
    return t->call(t, x);
}

bool transform_takes_batches(const Transform *t)
{
    if (t->call == NULL)
        return true;
    if (t->call_batch == NULL)
        return false;
    for (int i = 0; i < t->n; i++)      /* what a Compose holds */
        if (!transform_takes_batches(&t->list[i]))
            return false;
    return true;
}

NdArray *transform_apply_batch(const Transform *t, const NdArray *xs)
{
    if (!t->call)
        return nd_retain((NdArray *)xs);
    if (!transform_takes_batches(t))
        nd_error("transform_apply_batch", "the transform has no batch "
                 "form; apply it to each item with transform_apply");
    return t->call_batch(t, xs);
}

/* Each transform of the list, in order, through apply: one item
 * through transform_apply, or a batch through transform_apply_batch. */
static NdArray *compose(const Transform *self, const NdArray *x,
                        NdArray *(*apply)(const Transform *,
                                          const NdArray *))
{
    NdArray *y = nd_retain((NdArray *)x);
    for (int i = 0; i < self->n; i++) {
        NdArray *next = apply(&self->list[i], y);
        nd_release(y);
        y = next;
    }
    return y;
}

static NdArray *compose_call(const Transform *self, const NdArray *x)
{
    return compose(self, x, transform_apply);
}

static NdArray *compose_call_batch(const Transform *self,
                                   const NdArray *xs)
{
    return compose(self, xs, transform_apply_batch);
}

Transform T_compose(int n, const Transform *transforms)
{
    if (n < 0 || (n > 0 && !transforms))
        nd_error("T_compose", "%d transforms at %p", n,
                 (const void *)transforms);
    return (Transform){.call = compose_call,
                       .call_batch = compose_call_batch, .n = n,
                       .list = transforms};
}

/* (x - mean) / std, in x's dtype where NumPy keeps it: the two numbers
 * are 0-d, so a float32 x stays float32. nd_normalize makes them in x's
 * float dtype, which changes no number and spares a cast at each use,
 * and on x's device, so that a batch on the GPU is normalised there, in
 * one kernel. Element by element, so that it is its own batch form, as
 * AsType is. */
static NdArray *normalize_call(const Transform *self, const NdArray *x)
{
    return nd_normalize(x, self->mean, self->std);
}

Transform T_normalize(double mean, double std)
{
    return (Transform){.call = normalize_call, .call_batch = normalize_call,
                       .mean = mean, .std = std};
}

static NdArray *flatten_call(const Transform *self, const NdArray *x)
{
    (void)self;
    return nd_flatten(x);
}

/* Each item of xs (n, ...) flattened: (n, the item's size). */
static NdArray *flatten_call_batch(const Transform *self,
                                   const NdArray *xs)
{
    (void)self;
    return nd_reshape(xs, ND_SHAPE(xs->shape[0], -1));
}

Transform T_flatten(void)
{
    return (Transform){.call = flatten_call,
                       .call_batch = flatten_call_batch};
}

static NdArray *as_type_call(const Transform *self, const NdArray *x)
{
    return nd_astype(x, self->dtype);
}

Transform T_as_type(NdDtype dtype)
{
    return (Transform){.call = as_type_call, .call_batch = as_type_call,
                       .dtype = dtype};
}

Transform T_to_float(void)
{
    return T_as_type(ND_FLOAT32);
}
