// FIRST_STEP: 52
/* test_gpu_batch.c - step 52 and on: what one training batch of step
 * 52's program asks of a GPU, counted by the suite's stand-in for the
 * GPU library (tests/gpu/host_gpu.c, which tests/run.sh loads for this
 * program): the work queued on the device, and the calls after which
 * the host waits for it. A wait stops the host until the device has
 * run dry, so each one costs a batch far more than its copy; chapter 52
 * ("Where the GPU's time goes") counts them by hand, and this pins the
 * counts: a change that adds a wait or a launch to the batch fails
 * here, and one that removes some lowers the numbers below.
 *
 * The batch is step 52's: 100 images of a tiny MNIST, the MLP (1000,
 * 10) with sigmoid, softmax cross-entropy, SGD (the program's add_loss,
 * four launches and no wait, is left to it). The stand-in computes
 * with the CPU half, so its losses must equal the host's to the bit:
 * that checks the device paths' logic (labels, index arrays, numbers
 * moved to the device) as well. From step 60, the batches of a
 * SeqDataLoader on the device wait no more than a DataLoader's.
 * Without the stand-in (no GPU, or a real one) the cases are skipped. */
#include <dlfcn.h>

#include "pool_fixture.h"
#include "mnist_tiny.h"
#include "scratch.h"
#include "gpu/host_gpu.h"

/* What a batch asks of the device after the first (which also makes
 * W1 and W2 where the input is): see chapter 52. */
enum { BATCH_WAITS = 0, BATCH_LAUNCHES = 25 };

static HostGpuCountsFn stand_in_counts;

/* The stand-in's counter, or a skip when the GPU is not the stand-in. */
static HostGpuCounts counts_now(void)
{
    HostGpuCounts c;
    stand_in_counts(&c);
    return c;
}

static int open_data(void **state)
{
    const char *library = getenv("ND_GPU_LIBRARY");
    void *handle = library && gpu_enable()
                       ? dlopen(library, RTLD_NOW | RTLD_NOLOAD) : NULL;
    *(void **)&stand_in_counts =
        handle ? dlsym(handle, HOST_GPU_COUNTS_SYMBOL) : NULL;
    if (make_scratch(state) != 0)
        return -1;
    char problem[256];
    if (!mnist_tiny_write(scratch, 300, 10, problem, sizeof problem)) {
        fprintf(stderr, "tiny MNIST: %s\n", problem);
        return -1;
    }
    setenv("DEZERO_CACHE_DIR", scratch, 1);
    return 0;
}

static int close_data(void **state)
{
    unsetenv("DEZERO_CACHE_DIR");
    return remove_scratch(state);
}

/* Trains batches batches of step 52's loop on device, seeded; returns
 * each batch's loss (float32 bits) in losses, and the counts of the
 * last batch in *last. */
static void train(NdDevice device, int batches, float *losses,
                  HostGpuCounts *last)
{
    nd_random_seed(0);
    Pool *pool = pool_new();
    DataLoader *loader = dataloader(mnist(true), 100, true);
    Model *model = mlp(ND_SHAPE(1000, 10), NULL);
    Optimizer *optimizer = optimizer_setup(sgd(0.01), model);
    if (device == ND_CUDA) {
        dataloader_to_gpu(loader);
        layer_to_gpu(model);
    }
    for (int b = 0; b < batches; b++) {
        HostGpuCounts before = device == ND_CUDA ? counts_now()
                                                 : (HostGpuCounts){0};
        Pool *iteration = pool_new();
        NdArray *x, *t;
        assert_true(dataloader_next(loader, &x, &t));
        Variable *y = layer_call(model, x);
        Variable *loss = F_softmax_cross_entropy(y, t);
        layer_cleargrads(model);
        backward(loss);
        optimizer_update(optimizer);
        if (device == ND_CUDA) {
            HostGpuCounts after = counts_now();
            last->launches = after.launches - before.launches;
            last->waits = after.waits - before.waits;
        }
        NdArray *host = nd_to_device(loss->data, ND_CPU);
        assert_int_equal(host->dtype, ND_FLOAT32);
        losses[b] = ND_DATA(host, float)[0];
        nd_release(host);
        nd_release(t);
        nd_release(x);
        pool_drain(iteration);
    }
    pool_drain(pool);
}

/* The batch's counts, and its losses against the host's. */
static void test_batch_on_the_stand_in(void **state)
{
    (void)state;
    if (!stand_in_counts)
        skip();
    enum { BATCHES = 3 };
    float want[BATCHES], got[BATCHES];
    HostGpuCounts unused, last;
    train(ND_CPU, BATCHES, want, &unused);
    train(ND_CUDA, BATCHES, got, &last);
    for (int b = 0; b < BATCHES; b++)
        if (memcmp(&want[b], &got[b], sizeof want[b]) != 0)
            fail_msg("batch %d: loss %.9g on the device, %.9g on the host",
                     b, (double)got[b], (double)want[b]);
    print_message("a batch: %lld launches, %lld waits\n",
                  (long long)last.launches, (long long)last.waits);
    assert_int_equal(last.waits, BATCH_WAITS);
    assert_int_equal(last.launches, BATCH_LAUNCHES);
}

#if STEP >= 60
/* Ten items 0., 1., ..., 9., (10, 1), with no labels. */
static void ten_prepare(Dataset *self)
{
    NdArray *a = nd_arange(0, 10, 1, ND_FLOAT64);
    self->data = nd_reshape(a, ND_SHAPE(10, 1));
    nd_release(a);
}

static const DatasetClass ten_class = {.name = "Ten",
                                       .prepare = ten_prepare};

/* Step 60's SeqDataLoader on the GPU makes its batches there as a
 * DataLoader does: its order goes there once an epoch, and after the
 * first no batch waits. Batch n holds items n, n + 3 and n + 6, as in
 * Python (batch_size 3, so the sequences start 10 // 3 apart). */
static void test_seq_loader_on_the_stand_in(void **state)
{
    (void)state;
    if (!stand_in_counts)
        skip();
    Pool *pool = pool_new();
    Dataset *d = dataset_new(&ten_class, sizeof(Dataset), true,
                             (DatasetOptions){0});
    DataLoader *loader = seq_dataloader(d, 3);
    dataloader_to_gpu(loader);
    for (int n = 0; n < 4; n++) {
        HostGpuCounts before = counts_now();
        NdArray *x, *t;
        assert_true(dataloader_next(loader, &x, &t));
        HostGpuCounts after = counts_now();
        if (n > 0)
            assert_int_equal(after.waits - before.waits, 0);
        assert_int_equal(x->device, ND_CUDA);
        assert_null(t);
        for (int k = 0; k < 3; k++)
            assert_true(nd_get_flat(x, k) == n + 3 * k);
        nd_release(x);
    }
    pool_drain(pool);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_batch_on_the_stand_in),
#if STEP >= 60
        STEP_TEST(test_seq_loader_on_the_stand_in),
#endif
    };
    return cmocka_run_group_tests(tests, open_data, close_data);
}
