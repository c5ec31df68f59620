/* dataloaders.c - mini-batches out of a dataset, as the book's
 * dataloaders.py: DataLoader, an iterator over the batches of one
 * epoch, in a new random order every epoch, or in the dataset's own,
 * handed out on the host or on the GPU, where the dataset is copied
 * once and each batch is made without a copy from the host; and
 * SeqDataLoader, which reads a sequence as several shorter ones side
 * by side. */
#include <stdlib.h>

#include "dezero.h"

/* Drops the loader's reference to its dataset (the collector's
 * clear). */
static void dataloader_clear(Object *object)
{
    DataLoader *loader = (DataLoader *)object;
    Dataset *dataset = loader->dataset;
    loader->dataset = NULL;
    release(dataset);
}

/* Drops the copies of the dataset and of the order on the GPU. */
static void release_device_copies(DataLoader *loader)
{
    nd_release(loader->device_index);
    nd_release(loader->label);
    nd_release(loader->data);
    loader->device_index = loader->label = loader->data = NULL;
}

/* Frees the loader at count 0: its dataset reference, its order, its
 * copies on the GPU. */
static void dataloader_destroy(Object *object)
{
    DataLoader *loader = (DataLoader *)object;
    dataloader_clear(object);
    nd_release(loader->index);
    release_device_copies(loader);
    object_free(object);
}

/* Shows the collector the loader's reference: its dataset. */
static void dataloader_traverse(Object *object,
                                void (*visit)(Object *, void *), void *arg)
{
    DataLoader *loader = (DataLoader *)object;
    if (loader->dataset)
        visit(&loader->dataset->object, arg);
}

static const ObjectType dataloader_type = {
    .destroy = dataloader_destroy,
    .traverse = dataloader_traverse,
    .clear = dataloader_clear,
};

/* A SeqDataLoader's order: its batches one after another, batch i
 * holding item i of each of its batch_size sequences, which start
 * data_size / batch_size items apart (Python: batch_index in
 * SeqDataLoader.__next__, for every iteration of the epoch at once).
 * A new (max_iter * batch_size,) int64 array. */
static NdArray *sequence_order(const DataLoader *loader)
{
    int64_t n = loader->batch_size, jump = loader->data_size / n;
    NdArray *order = nd_empty(ND_INT64, ND_SHAPE(loader->max_iter * n));
    int64_t *items = order->data;
    for (int64_t i = 0; i < loader->max_iter; i++)
        for (int64_t k = 0; k < n; k++)
            items[i * n + k] = (k * jump + i) % loader->data_size;
    return order;
}

/* Starts an epoch: back to the first batch, in a new order drawn with
 * np.random.permutation when the loader shuffles, a SeqDataLoader's
 * sequences side by side, else the dataset's own order, 0, 1, 2, ...
 * (Python: reset()). */
void dataloader_reset(DataLoader *loader)
{
    loader->iteration = 0;
    nd_release(loader->index);
    nd_release(loader->device_index);
    loader->device_index = NULL;
    if (loader->shuffle)
        loader->index = nd_random_permutation(loader->data_size);
    else if (loader->sequential)
        loader->index = sequence_order(loader);
    else
        loader->index = nd_arange(0, (double)loader->data_size, 1,
                                  ND_INT64);
}

/* A new loader of dataset's items in batches of batch_size, owned by
 * the innermost pool; it keeps a reference to dataset. The first
 * epoch's order is drawn now, as Python's constructor calls reset()
 * (Python: DataLoader(dataset, batch_size, shuffle)). */
DataLoader *dataloader(Dataset *dataset, int64_t batch_size, bool shuffle)
{
    if (batch_size < 1)
        nd_error("dataloader", "a batch size of %lld; want 1 or more",
                 (long long)batch_size);
    DataLoader *loader = object_new(sizeof *loader, &dataloader_type,
                                    "dataloader");
    loader->dataset = retain(dataset);
    loader->batch_size = batch_size;
    loader->shuffle = shuffle;
    loader->data_size = dataset_len(dataset);
    /* ceil(data_size / batch_size), without the sum that overflows for
     * a batch_size near INT64_MAX: one batch of everything then, as in
     * Python */
    loader->max_iter = loader->data_size / batch_size +
                       (loader->data_size % batch_size != 0);
    dataloader_reset(loader);
    return loader;
}

/* The items of the next batch, a new (n,) int64 array: the next
 * batch_size entries of the epoch's order. On the GPU where the loader
 * has copied the dataset there, the order is copied too, once an
 * epoch, and the batch's entries are taken there. */
static NdArray *next_batch_index(DataLoader *loader)
{
    int64_t i = loader->iteration, batch_size = loader->batch_size;
    NdIndex batch[] = {
        ND_IDX_SLICE(i * batch_size, (i + 1) * batch_size, ND_NONE)};
    if (!loader->data)
        return nd_getitem(loader->index, 1, batch);
    if (!loader->device_index)          /* once an epoch */
        loader->device_index = nd_to_device(loader->index, loader->device);
    return nd_getitem(loader->device_index, 1, batch);
}

/* The batch at batch_index, picked from the loader's copy of the
 * dataset on the GPU and transformed there: the numbers dataset_batch
 * makes on the host, with nothing copied from the host. */
static void batch_on_device(const DataLoader *loader,
                            const NdArray *batch_index, NdArray **x,
                            NdArray **t)
{
    const Dataset *d = loader->dataset;
    *x = dataset_rows(loader->data, batch_index, &d->transform);
    *t = loader->label ? dataset_rows(loader->label, batch_index,
                                      &d->target_transform)
                       : NULL;
}

/* The epoch's next batch: the items at the next batch_size entries of
 * the order, stacked on the host and moved to the loader's device
 * (Python: xp.array of the items), or picked from the loader's copy of
 * the dataset on the GPU, into *x and *t as new references,
 * and true; or,
 * when the epoch is over, a reset for the next one and false, with *x
 * and *t untouched (Python: next(loader), which raises StopIteration
 * after calling reset(): the next epoch's order is drawn then). The
 * last batch of an epoch holds what is left, and may be smaller. */
bool dataloader_next(DataLoader *loader, NdArray **x, NdArray **t)
{
    if (loader->iteration >= loader->max_iter) {
        dataloader_reset(loader);
        return false;
    }
    NdArray *batch_index = next_batch_index(loader);
    if (loader->data) {
        NdArray *there = nd_to_device(batch_index, loader->device);
        batch_on_device(loader, there, x, t);
        nd_release(there);
        nd_release(batch_index);
        loader->iteration++;
        return true;
    }
    NdArray *host_x, *host_t;
    dataset_batch(loader->dataset, batch_index, &host_x, &host_t);
    *x = nd_to_device(host_x, loader->device);
    *t = host_t ? nd_to_device(host_t, loader->device) : NULL;
    nd_release(host_t);
    nd_release(host_x);
    nd_release(batch_index);
    loader->iteration++;
    return true;
}

/* A loader of batch_size sequences side by side (Python:
 * SeqDataLoader(dataset, batch_size)): a DataLoader that does not
 * shuffle, whose order sequence_order makes. */
DataLoader *seq_dataloader(Dataset *dataset, int64_t batch_size)
{
    DataLoader *loader = dataloader(dataset, batch_size, false);
    loader->sequential = true;
    dataloader_reset(loader);           /* its own order */
    return loader;
}

/* Python: DataLoader.to_cpu and to_gpu, self.gpu = False or True;
 * to_gpu also copies the dataset there once, when its transforms can
 * make whole batches (the copy waits for the device; no batch does). */
void dataloader_to_cpu(DataLoader *loader)
{
    loader->device = ND_CPU;
    release_device_copies(loader);
}

void dataloader_to_gpu(DataLoader *loader)
{
    require_gpu("dataloader_to_gpu");
    loader->device = ND_CUDA;
    const Dataset *d = loader->dataset;
    if (loader->data || !transform_takes_batches(&d->transform) ||
        !transform_takes_batches(&d->target_transform))
        return;
    loader->data = nd_to_device(d->data, ND_CUDA);
    loader->label = d->label ? nd_to_device(d->label, ND_CUDA) : NULL;
}
