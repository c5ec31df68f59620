/* datasets.c - the data sets the examples learn from, as the book's
 * datasets.py: Dataset, items and their labels behind an index, each
 * preprocessed by a transform; get_spiral, three spiral arms of 100
 * points each, one class per arm, and Spiral, the same as a Dataset. */
#include <stdlib.h>

#include "dezero.h"

/* ---- Dataset */

/* Frees a dataset's arrays and the dataset, at count 0. */
static void dataset_destroy(Object *object)
{
    Dataset *d = (Dataset *)object;
    nd_release(d->label);
    nd_release(d->data);
    object_free(object);
}

/* A dataset refers to no object, only to arrays: nothing to show the
 * collector, nothing to drop. */
static void dataset_traverse(Object *object,
                             void (*visit)(Object *, void *), void *arg)
{
    (void)object;
    (void)visit;
    (void)arg;
}

static void dataset_clear(Object *object)
{
    (void)object;
}

static const ObjectType dataset_type = {
    .destroy = dataset_destroy,
    .traverse = dataset_traverse,
    .clear = dataset_clear,
};

/* A new dataset of class cls in a zeroed block of size bytes (a struct
 * that starts with a Dataset), owned by the innermost pool; the class's
 * prepare fills its data and labels, as Python's __init__ calls
 * self.prepare(). */
Dataset *dataset_new(const DatasetClass *cls, size_t size, bool train,
                     DatasetOptions options)
{
    Dataset *d = object_new(size, &dataset_type, "dataset_new");
    d->cls = cls;
    d->train = train;
    d->transform = options.transform;
    d->target_transform = options.target_transform;
    if (cls->prepare)
        cls->prepare(d);
    return d;
}

/* How many items d holds: the length of its data's first axis (Python:
 * len(dataset)). */
int64_t dataset_len(const Dataset *d)
{
    if (!d->data || d->data->ndim == 0)
        nd_error("dataset_len", "the %s dataset has no data along a first "
                 "axis: its prepare must set data", d->cls->name);
    return d->data->shape[0];
}

/* Item index of d, transformed, into *x, and its label, transformed,
 * into *t (NULL where d has no labels) (Python: x, t = dataset[index]).
 * index counts from the end when negative, as NumPy's does. */
void dataset_item(const Dataset *d, int64_t index, NdArray **x,
                  NdArray **t)
{
    int64_t n = dataset_len(d);
    if (index < -n || index >= n)
        nd_error("dataset_item", "index %lld is out of range for the %s "
                 "dataset of %lld items", (long long)index, d->cls->name,
                 (long long)n);
    NdArray *data = nd_getitem(d->data, 1, (NdIndex[]){ND_IDX_INT(index)});
    *x = transform_apply(&d->transform, data);
    nd_release(data);
    *t = NULL;
    if (d->label) {
        NdArray *label = nd_getitem(d->label, 1,
                                    (NdIndex[]){ND_IDX_INT(index)});
        *t = transform_apply(&d->target_transform, label);
        nd_release(label);
    }
}

/* The items of d at the int64 indices of index (1-D), each as
 * dataset_item gives it, stacked along a new first axis: *x (n, ...)
 * and *t (n, ...), or NULL without labels (Python: batch = [dataset[i]
 * for i in index], then np.array of the xs and of the ts). */
void dataset_batch(const Dataset *d, const NdArray *index, NdArray **x,
                   NdArray **t)
{
    if (index->ndim != 1 || !nd_dtype_is_integer(index->dtype) ||
        index->size == 0)
        nd_error("dataset_batch", "want a non-empty 1-D integer array of "
                 "indices; got %d axes of %s, %lld indices", index->ndim,
                 nd_dtype_name(index->dtype), (long long)index->size);
    int64_t n = index->size;
    NdArray **xs = allocate((size_t)n, sizeof *xs, "dataset_batch");
    NdArray **ts = allocate((size_t)n, sizeof *ts, "dataset_batch");
    for (int64_t i = 0; i < n; i++)
        dataset_item(d, (int64_t)nd_get_flat(index, i), &xs[i], &ts[i]);
    *x = nd_stack((int)n, xs, 0);
    *t = d->label ? nd_stack((int)n, ts, 0) : NULL;
    for (int64_t i = 0; i < n; i++) {
        nd_release(ts[i]);
        nd_release(xs[i]);
    }
    free(ts);
    free(xs);
}

/* ---- toy data sets */

/* The spiral's points: for class j and i = 0 .. 99, at radius i / 100
 * and angle 4j + 4 i / 100 plus gaussian noise of 0.2, computed in
 * float64 and stored as float32; then the rows shuffled. Reseeds the
 * global generator, 1984 for the training set and 2020 for the test
 * set, and draws from it in Python's order: the 300 gaussians, class
 * by class, then the permutation. Stores new references in *x (300, 2)
 * float32 and *t (300,) int64 (Python: x, t = get_spiral(train)). */
void get_spiral(bool train, NdArray **x, NdArray **t)
{
    enum { NUM_DATA = 100, NUM_CLASS = 3, DATA_SIZE = NUM_CLASS * NUM_DATA };
    nd_random_seed(train ? 1984 : 2020);
    NdArray *noise = nd_random_randn(ND_SHAPE(DATA_SIZE));     // (300,)
    NdArray *radius = nd_empty(ND_FLOAT64, ND_SHAPE(DATA_SIZE));
    NdArray *theta = nd_empty(ND_FLOAT64, ND_SHAPE(DATA_SIZE));
    NdArray *label = nd_empty(ND_INT64, ND_SHAPE(DATA_SIZE));
    for (int j = 0; j < NUM_CLASS; j++)
        for (int i = 0; i < NUM_DATA; i++) {
            int ix = NUM_DATA * j + i;
            double rate = (double)i / NUM_DATA;
            ND_DATA(radius, double)[ix] = 1.0 * rate;
            ND_DATA(theta, double)[ix] = j * 4.0 + 4.0 * rate +
                                         ND_DATA(noise, double)[ix] * 0.2;
            ND_DATA(label, int64_t)[ix] = j;
        }
    NdArray *sin = nd_sin(theta), *cos = nd_cos(theta);
    NdArray *columns[] = {nd_mul(radius, sin), nd_mul(radius, cos)};
    NdArray *points = nd_stack(2, columns, 1);                 // (300, 2)
    NdArray *x32 = nd_astype(points, ND_FLOAT32);

    NdArray *indices = nd_random_permutation(DATA_SIZE);       // shuffle
    *x = nd_getitem(x32, 1, (NdIndex[]){ND_IDX_ARRAY(indices)});
    *t = nd_getitem(label, 1, (NdIndex[]){ND_IDX_ARRAY(indices)});
    nd_release(indices);
    nd_release(x32);
    nd_release(points);
    nd_release(columns[1]);
    nd_release(columns[0]);
    nd_release(cos);
    nd_release(sin);
    nd_release(label);
    nd_release(theta);
    nd_release(radius);
    nd_release(noise);
}

/* Spiral's prepare: the points and labels of get_spiral. */
static void spiral_prepare(Dataset *self)
{
    get_spiral(self->train, &self->data, &self->label);
}

static const DatasetClass spiral_class = {
    .name = "Spiral",
    .prepare = spiral_prepare,
};

/* The spiral as a dataset (Python: dezero.datasets.Spiral(train,
 * transform, target_transform)), owned by the innermost pool. */
Dataset *spiral_dataset(bool train, DatasetOptions options)
{
    return dataset_new(&spiral_class, sizeof(Dataset), train, options);
}
