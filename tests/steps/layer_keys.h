/* layer_keys.h - for tests of models whose weights a file holds under
 * keys: walk_keys visits every parameter of a layer under its key,
 * prefix/name, as layer_save_weights names it (res2/a/conv1/W), and
 * counts them; expect_key_shape checks the shape under one key, and
 * expect_shape an array's; expect_same_params compares a model with
 * one loaded from its file. For step 60's models. Include it after
 * pool_fixture.h. */
#ifndef LAYER_KEYS_H
#define LAYER_KEYS_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pool_fixture.h"

/* What walk_keys found: the number of parameters, with data or not, and
 * the number of values in those that have data; and the data of the
 * parameter whose key is want, if any. */
typedef struct KeyWalk {
    int nkeys;
    int64_t nvalues;
    const char *want;
    const NdArray *found;
} KeyWalk;

/* Writes the key prefix + name + end into key, failing the test if it
 * is cut short. */
static inline void make_key(char (*key)[128], const char *prefix,
                            const char *name, const char *end)
{
    if (snprintf(*key, sizeof *key, "%s%s%s", prefix, name, end) >=
        (int)sizeof *key)
        fail_msg("a key longer than %d characters: %s%s", 127, prefix,
                 name);
}

/* Visits every parameter of layer under its key, prefix/name, as a
 * saved file names it. */
static inline void walk_keys(const Layer *layer, const char *prefix,
                             KeyWalk *w)
{
    char key[128];
    for (int i = 0; i < layer->nparams; i++) {
        const Parameter *p = layer->params[i];
        make_key(&key, prefix, p->variable.name, "");
        w->nkeys++;
        if (p->variable.data)
            w->nvalues += p->variable.data->size;
        if (w->want && strcmp(key, w->want) == 0)
            w->found = p->variable.data;
    }
    for (int i = 0; i < layer->nlayers; i++) {
        assert_non_null(layer->layer_names[i]);
        make_key(&key, prefix, layer->layer_names[i], "/");
        walk_keys(layer->layers[i], key, w);
    }
}

/* Expects a's shape to be the n sizes of ap, ints. */
static inline void expect_shape_of_list(const NdArray *a, int n,
                                        va_list ap)
{
    assert_int_equal(a->ndim, n);
    for (int i = 0; i < n; i++)
        assert_int_equal(a->shape[i], va_arg(ap, int));
}

/* Expects a's shape to be the n sizes listed. */
static inline void expect_shape(const NdArray *a, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    expect_shape_of_list(a, n, ap);
    va_end(ap);
}

/* The shape of the parameter of m under key: n axes, then the sizes. */
static inline void expect_key_shape(const Layer *m, const char *key,
                                    int n, ...)
{
    KeyWalk w = {.want = key};
    walk_keys(m, "", &w);
    if (!w.found)
        fail_msg("no parameter with data under %s", key);
    va_list ap;
    va_start(ap, n);
    expect_shape_of_list(w.found, n, ap);
    va_end(ap);
}

/* a and b have the same parameters, in the same order, each the same
 * bit for bit: a model and one loaded from its saved weights. */
static inline void expect_same_params(Layer *a, Layer *b)
{
    ParamIter ia = layer_params(a), ib = layer_params(b);
    for (Parameter *pa; (pa = param_next(&ia));) {
        Parameter *pb = param_next(&ib);
        assert_non_null(pb);
        assert_true(nd_array_equal(pa->variable.data, pb->variable.data));
    }
    assert_null(param_next(&ib));
}

#endif /* LAYER_KEYS_H */
