/* steps_on_device.c - gpu-check's parts (g) to (i): the work of steps
 * 57, 58 and 60, which Python DeZero runs on CuPy the same way as on
 * NumPy, run here on the GPU and on the host with step 60's framework.
 * Each prints its figures, the device's time against the host's, and
 * how far apart the two results are in ulps (tests/ulp.h).
 *
 *   steps_on_device 57   conv2d_simple and pooling, step 57's shapes
 *   steps_on_device 58   VGG16, random weights, a 224 x 224 picture
 *   steps_on_device 60   one epoch of step 60's LSTM on the sine curve
 *
 * Exits 1 without a GPU, or when the device's result is further from
 * the host's than the part's bound, which says why it is that size. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dezero.h"
#include "ulp.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The largest distance between want (host) and got (any device), in
 * ulps of precision at the scale of want's largest element. */
static double distance(const NdArray *want, const NdArray *got,
                       NdDtype precision)
{
    NdArray *host = as_numpy(got);
    double largest = 0, d = 0;
    for (int64_t i = 0; i < want->size; i++)
        largest = fmax(largest, fabs(nd_get_flat(want, i)));
    for (int64_t i = 0; i < want->size; i++)
        d = fmax(d, ulps_apart(nd_get_flat(want, i),
                               nd_get_flat(host, i), precision, largest));
    nd_release(host);
    return d;
}

/* Prints the verdict of a part; returns whether it passed. */
static bool verdict(const char *what, double ulps, double bound)
{
    bool ok = ulps <= bound;
    printf("%s: %.3g ulps apart (at most %g): %s\n", what, ulps, bound,
           ok ? "ok" : "TOO FAR");
    return ok;
}

/* ---- step 57: x (1, 5, 15, 15) float64, 8 filters of 3 x 3 */

static Variable *conv_and_pool(NdDevice device, Variable **x)
{
    nd_random_seed(57);
    NdArray *hx = nd_random_randn(ND_SHAPE(1, 5, 15, 15));
    NdArray *hW = nd_random_randn(ND_SHAPE(8, 5, 3, 3));
    *x = variable(nd_to_device(hx, device));
    NdArray *W = nd_to_device(hW, device);
    Variable *y = F_conv2d_simple(*x, W, NULL, .pad = pair(1));
    Variable *z = F_pooling(y, pair(2), .stride = pair(2));
    backward(z);
    nd_release(W);
    nd_release(hW);
    nd_release(hx);
    return z;
}

/* 16 ulps: each output sums 45 products, in cuBLAS's order on the
 * device and OpenBLAS's on the host. */
static bool step57(void)
{
    Variable *hx, *dx;
    double t0 = now();
    Variable *want = conv_and_pool(ND_CPU, &hx);
    double t1 = now();
    Variable *got = conv_and_pool(ND_CUDA, &dx);
    NdArray *back = as_numpy(dx->grad);         /* waits for the device */
    double t2 = now();
    nd_release(back);
    char *shape = nd_shape_str(got->data);
    char *gshape = nd_shape_str(dx->grad->data);
    printf("step 57: pooled %s, x.grad %s; host %.1f ms, device %.1f ms "
           "(first call)\n", shape, gshape, 1e3 * (t1 - t0),
           1e3 * (t2 - t1));
    free(shape);
    free(gshape);
    bool ok = verdict("step 57, output", distance(want->data, got->data,
                                                  ND_FLOAT64), 16);
    return verdict("step 57, x.grad", distance(hx->grad->data,
                                               dx->grad->data, ND_FLOAT64),
                   16) && ok;
}

/* ---- step 58: VGG16 on one 224 x 224 picture, random weights */

/* 1024 ulps of the largest score (6e-5 of it): sixteen layers, each
 * summing up to 4,608 products per output in another order on each
 * device, and the differences of one layer feed the next. */
static bool step58(void)
{
    nd_random_seed(58);
    NdArray *h = nd_random_randn(ND_SHAPE(1, 3, 224, 224));
    NdArray *x = nd_astype(h, ND_FLOAT32);          // (1, 3, 224, 224)
    Model *model = vgg16();             /* random weights, real shapes */
    Variable *want = NULL, *got = NULL;
    double host_time = 0, device_time = 0;
    TEST_MODE {
        layer_call(model, x);           /* draws the weights, on the host */
        double t0 = now();
        want = layer_call(model, x);                // (1, 1000)
        host_time = now() - t0;
        layer_to_gpu(model);
        NdArray *dx = nd_to_device(x, ND_CUDA);
        nd_release(as_numpy(layer_call(model, dx)->data));  /* warm-up */
        t0 = now();
        got = layer_call(model, dx);
        nd_release(as_numpy(got->data));            /* waits for it */
        device_time = now() - t0;
        nd_release(dx);
    }
    NdArray *top = nd_argmax(want->data, 1), *dtop = nd_argmax(got->data, 1);
    NdArray *dtop_host = as_numpy(dtop);
    printf("step 58: VGG16 forward, host %.0f ms, device %.1f ms (%.0fx); "
           "top class %lld on the host, %lld on the device\n",
           1e3 * host_time, 1e3 * device_time, host_time / device_time,
           (long long)nd_item(top), (long long)nd_item(dtop_host));
    bool same_top = nd_item(top) == nd_item(dtop_host);
    nd_release(dtop_host);
    nd_release(dtop);
    nd_release(top);
    nd_release(x);
    nd_release(h);
    return verdict("step 58, scores", distance(want->data, got->data,
                                               ND_FLOAT32), 1024) &&
           same_top;
}

/* ---- step 60: an epoch of the LSTM on the sine curve */

/* Step 60's train_epoch: 34 batches of (30, 1), the loss backpropagated
 * and cut every 30 and at the end. Returns the epoch's mean loss. */
static double epoch(Model *model, Optimizer *optimizer, DataLoader *loader,
                    int64_t seqlen)
{
    layer_reset_state(model);
    Variable *loss = NULL;
    int64_t count = 0;
    NdArray *x, *t;                                 // (30, 1), (30, 1)
    while (dataloader_next(loader, &x, &t)) {
        Pool *step = pool_new();
        Variable *y = layer_call(model, x);
        Variable *error = F_mean_squared_error(y, t);
        Variable *sum = loss ? F_add(loss, error) : F_add(error, 0L);
        retain(sum);
        release(loss);
        loss = sum;
        if (++count % 30 == 0 || count == seqlen) {
            layer_cleargrads(model);
            backward(loss);
            variable_unchain_backward(loss);
            optimizer_update(optimizer);
        }
        nd_release(t);
        nd_release(x);
        pool_drain(step);
    }
    double mean = nd_item(loss->data) / (double)count;
    release(loss);
    return mean;
}

static double train(NdDevice device, double *seconds)
{
    nd_random_seed(0);
    Pool *pool = pool_new();
    Dataset *set = sin_curve(true);
    DataLoader *loader = seq_dataloader(set, 30);
    Model *model = sequential(L_lstm(100), L_linear(1));
    Optimizer *optimizer = optimizer_setup(adam(0.001, 0.9, 0.999, 1e-8),
                                           model);
    if (device == ND_CUDA) {
        dataloader_to_gpu(loader);
        layer_to_gpu(model);
    }
    double t0 = now();
    double loss = epoch(model, optimizer, loader, dataset_len(set));
    *seconds = now() - t0;
    pool_drain(pool);
    return loss;
}

/* 64 ulps of float32: 34 batches of LSTM steps and 2 Adam updates, each
 * a few roundings apart on the two devices. */
static bool step60(void)
{
    double host_time, device_time;
    double want = train(ND_CPU, &host_time);
    double got = train(ND_CUDA, &device_time);
    printf("step 60: one epoch, loss %f on the host, %f on the device; "
           "host %.2f s, device %.2f s\n", want, got, host_time,
           device_time);
    return verdict("step 60, loss", ulps_apart(want, got, ND_FLOAT32, 0),
                   64);
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "57") && strcmp(argv[1], "58") &&
                      strcmp(argv[1], "60"))) {
        fprintf(stderr, "usage: steps_on_device 57|58|60\n");
        return 2;
    }
    if (!gpu_enable()) {
        fprintf(stderr, "steps_on_device: no GPU: %s\n", gpu_status());
        return 1;
    }
    Pool *pool = pool_new();
    bool ok = !strcmp(argv[1], "57") ? step57()
              : !strcmp(argv[1], "58") ? step58() : step60();
    pool_drain(pool);
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
