/* bench_gpu.c - `make bench-gpu`: what the GPU half costs and gains.
 * Transfers of int64 arrays of 1 MB to 1 GB both ways through
 * nd_to_device, in GB/s and against the link's ceiling measured in the
 * same run (cudaMemcpy from and to pinned memory, the table's
 * pinned_copy_time); fftn of 2000x2000 and 4000x4000 arrays of 0..255
 * with FFTW on the host and cuFFT on the device (first call, with
 * planning, and steady state apart), with the speedup and whether the
 * results agree; max on each; matmul at DeZero's MNIST sizes in
 * float32 against cuBLAS called alone on the same buffers; and the
 * floor under a step-52 epoch, its products alone, which
 * bench/train_gpu.sh and gpu-check set step 52's epoch against. Prints
 * one table; fails without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "nd.h"
#include "nd_gpu.h"

static const NdGpuBackend *gpu;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Waits for the device, so that a time covers the work, not its launch. */
static void sync_device(void)
{
    if (gpu->synchronize() != 0) {
        fprintf(stderr, "bench-gpu: %s\n", gpu->last_error());
        exit(1);
    }
}

/* Seconds of one run of stmt, then the best of `repeat` more. */
#define TIME_FIRST_AND_BEST(first, best, repeat, stmt)                    \
    do {                                                                  \
        double t0_ = now();                                               \
        stmt;                                                             \
        sync_device();                                                    \
        first = now() - t0_;                                              \
        best = 1e30;                                                      \
        for (int r_ = 0; r_ < (repeat); r_++) {                           \
            t0_ = now();                                                  \
            stmt;                                                         \
            sync_device();                                                \
            double t_ = now() - t0_;                                      \
            if (t_ < best)                                                \
                best = t_;                                                \
        }                                                                 \
    } while (0)

/* The best of `repeat` runs after a first one that is not counted. */
#define BEST_OF(best, repeat, stmt)                                       \
    do {                                                                  \
        double first_;                                                    \
        TIME_FIRST_AND_BEST(first_, best, repeat, stmt);                  \
        (void)first_;                                                     \
    } while (0)

static void header(void)
{
    printf("%-40s %10s %10s %8s  %s\n", "row", "host_ms", "device_ms",
           "speedup", "notes");
}

/* host or device may be 0: not measured. */
static void row(const char *name, double host, double device,
                const char *notes)
{
    char h[16] = "-", d[16] = "-", s[16] = "-";
    if (host > 0)
        snprintf(h, sizeof h, "%.3f", host * 1e3);
    if (device > 0)
        snprintf(d, sizeof d, "%.3f", device * 1e3);
    if (host > 0 && device > 0)
        snprintf(s, sizeof s, "%.1fx", host / device);
    printf("%-40s %10s %10s %8s  %s\n", name, h, d, s, notes);
}

/* ------------------------------------------------------------ rows */

/* Sizes of 1 MB to 1 GB, each way: nd_to_device, which makes the
 * destination as cp.asarray and .get() do (a new host array is fresh
 * memory, whose pages the kernel maps as they are first written), and
 * the download alone into the host array the last one made; each as a
 * fraction of cudaMemcpy's speed from and to pinned memory, the most
 * the link gives, measured here for the same size. */
static void bench_transfers(void)
{
    static const int sizes_mb[] = {1, 4, 16, 64, 256, 1024};
    printf("%-40s %10s %10s %8s  %s\n", "transfers", "", "", "",
           gpu->transfer_path());
    for (size_t i = 0; i < sizeof sizes_mb / sizeof sizes_mb[0]; i++) {
        int mb = sizes_mb[i], repeat = mb >= 256 ? 3 : 5;
        size_t bytes = (size_t)mb << 20;
        NdArray *a = nd_random_randint(0, 256, ND_SHAPE((int64_t)bytes / 8));
        NdArray *d = NULL, *back = NULL;
        double first, up, down, reused, pinned_up, pinned_down;
        TIME_FIRST_AND_BEST(first, up, repeat,
                            nd_release(d); d = nd_to_device(a, ND_CUDA));
        BEST_OF(down, repeat,
                nd_release(back); back = nd_to_device(d, ND_CPU));
        bool equal = nd_array_equal(a, back);
        int failed = 0;
        BEST_OF(reused, repeat,
                failed |= gpu->download(back->data, d->data, bytes));
        failed |= gpu->pinned_copy_time(bytes, true, repeat, &pinned_up);
        failed |= gpu->pinned_copy_time(bytes, false, repeat, &pinned_down);
        if (failed) {
            fprintf(stderr, "bench-gpu: %s\n", gpu->last_error());
            exit(1);
        }
        double gb = (double)bytes * 1e-9;
        char name[64], notes[160];
        snprintf(name, sizeof name, "to device, int64 %d MB", mb);
        snprintf(notes, sizeof notes,
                 "%.1f GB/s, %.2fx pinned's %.1f (first call %.3f ms)",
                 gb / up, pinned_up / up, gb / pinned_up, first * 1e3);
        row(name, 0, up, notes);
        snprintf(name, sizeof name, "to host, int64 %d MB", mb);
        snprintf(notes, sizeof notes,
                 "%.1f GB/s, %.2fx pinned's %.1f; into a used array "
                 "%.1f GB/s%s", gb / down, pinned_down / down,
                 gb / pinned_down, gb / reused, equal ? "" : ", NOT EQUAL");
        row(name, 0, down, notes);
        nd_release(a);
        nd_release(d);
        nd_release(back);
    }
}

static void bench_fftn(const NdArray *a, const char *size)
{
    NdArray *d = nd_to_device(a, ND_CUDA);
    NdArray *hf = NULL, *df = NULL;
    double h_first, h_best, d_first, d_best;
    TIME_FIRST_AND_BEST(h_first, h_best, 3,
                        nd_release(hf); hf = nd_fftn(a));
    TIME_FIRST_AND_BEST(d_first, d_best, 3,
                        nd_release(df); df = nd_fftn(d));
    NdArray *back = nd_to_device(df, ND_CPU);
    /* Values near 255 * size at the origin; each element's rounding
     * error is far below atol. */
    bool close = nd_allclose(hf, back, 1e-7, 1e-3);
    char name[64], notes[64];
    snprintf(name, sizeof name, "fftn %s, first call", size);
    row(name, h_first, d_first, "FFTW and cuFFT plans made here");
    snprintf(name, sizeof name, "fftn %s, steady state", size);
    snprintf(notes, sizeof notes, "allclose(rtol=1e-7, atol=1e-3): %s",
             close ? "yes" : "NO");
    row(name, h_best, d_best, notes);
    nd_release(d);
    nd_release(hf);
    nd_release(df);
    nd_release(back);
}

static void bench_max(const NdArray *a, const char *size)
{
    NdArray *d = nd_to_device(a, ND_CUDA);
    NdArray *hm = NULL, *dm = NULL;
    double h_best, d_best;
    BEST_OF(h_best, 5, nd_release(hm); hm = nd_max(a, ND_ALL_AXES, false));
    BEST_OF(d_best, 5, nd_release(dm); dm = nd_max(d, ND_ALL_AXES, false));
    char name[64], notes[64];
    snprintf(name, sizeof name, "max, int64 %s", size);
    snprintf(notes, sizeof notes, "%.0f on both: %s", nd_item(hm),
             nd_item(hm) == nd_item(dm) ? "yes" : "NO");
    row(name, h_best, d_best, notes);
    nd_release(d);
    nd_release(hm);
    nd_release(dm);
}

/* One product of DeZero's MNIST MLP (batch 100, 1000 hidden units):
 * op(a) @ op(b) through nd_matmul_t, and the bare cuBLAS call. */
static void bench_matmul(const char *name, int64_t a0, int64_t a1,
                         bool ta, int64_t b0, int64_t b1, bool tb)
{
    NdArray *ha64 = nd_random_rand(ND_SHAPE(a0, a1));
    NdArray *hb64 = nd_random_rand(ND_SHAPE(b0, b1));
    NdArray *ha = nd_astype(ha64, ND_FLOAT32), *hb = nd_astype(hb64,
                                                               ND_FLOAT32);
    NdArray *a = nd_to_device(ha, ND_CUDA), *b = nd_to_device(hb, ND_CUDA);
    NdArray *hc = NULL, *c = NULL;
    double h_best, d_best, bare;
    BEST_OF(h_best, 10, nd_release(hc); hc = nd_matmul_t(ha, ta, hb, tb));
    BEST_OF(d_best, 20, nd_release(c); c = nd_matmul_t(a, ta, b, tb));
    BEST_OF(bare, 20, gpu->gemm(c, a, ta, b, tb));
    double m = (double)c->shape[0], n = (double)c->shape[1];
    double k = (double)(ta ? a0 : a1), flops = 2 * m * n * k;
    char notes[96];
    snprintf(notes, sizeof notes, "%.0f GFLOP/s; cuBLAS alone %.0f (%.0f%%)",
             flops / d_best * 1e-9, flops / bare * 1e-9,
             100 * bare / d_best);
    row(name, h_best, d_best, notes);
    NdArray *arrays[] = {ha64, hb64, ha, hb, a, b, hc, c};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        nd_release(arrays[i]);
}

/* The floor under an epoch of step 52 on the device: the six products
 * of each batch of 100 through the MLP 784-1000-10 (two forward, the
 * two weight gradients, and the two input gradients DeZero computes),
 * for the 600 batches of MNIST's training set, each one cuBLAS call
 * through the GPU library on buffers made once: no activation, no
 * loss, no update, no transfer, no wait for the host. */
static void bench_epoch_floor(void)
{
    enum { BATCHES = 600 };
    NdArray *arrays[10];
    static const int64_t shapes[10][2] = {
        {100, 784}, {784, 1000}, {100, 1000}, {1000, 10}, {100, 10},
        {100, 10}, {100, 1000}, {1000, 10}, {784, 1000}, {100, 784},
    };
    for (int i = 0; i < 10; i++)
        arrays[i] = nd_full_on(ND_CUDA, ND_FLOAT32, 2, shapes[i], 0.01);
    NdArray *x = arrays[0], *W1 = arrays[1], *h = arrays[2];  // (100, 784)
    NdArray *W2 = arrays[3], *y = arrays[4], *gy = arrays[5]; // (100, 10)
    NdArray *gh = arrays[6], *gW2 = arrays[7], *gW1 = arrays[8];
    NdArray *gx = arrays[9];                                  // (100, 784)
    double best;
    int failed = 0;
    BEST_OF(best, 3, for (int b = 0; b < BATCHES; b++) {
        failed |= gpu->gemm(h, x, false, W1, false);    /* x @ W1 */
        failed |= gpu->gemm(y, h, false, W2, false);    /* h @ W2 */
        failed |= gpu->gemm(gh, gy, false, W2, true);   /* gy @ W2.T */
        failed |= gpu->gemm(gW2, h, true, gy, false);   /* h.T @ gy */
        failed |= gpu->gemm(gx, gh, false, W1, true);   /* gh @ W1.T */
        failed |= gpu->gemm(gW1, x, true, gh, false);   /* x.T @ gh */
    });
    if (failed) {
        fprintf(stderr, "bench-gpu: gemm: %s\n", gpu->last_error());
        exit(1);
    }
    row("step 52 epoch, its GEMMs alone", 0, best,
        "600 batches x 6 products: the floor");
    for (int i = 0; i < 10; i++)
        nd_release(arrays[i]);
}

int main(void)
{
    if (!nd_gpu_available()) {
        fprintf(stderr, "bench-gpu: no GPU to measure: %s\n",
                nd_gpu_status());
        return 1;
    }
    gpu = nd_gpu();
    nd_random_seed(0);
    NdArray *small = nd_random_randint(0, 256, ND_SHAPE(2000, 2000));
    NdArray *large = nd_random_randint(0, 256, ND_SHAPE(4000, 4000));
    header();
    bench_transfers();
    bench_fftn(small, "2000x2000");
    bench_fftn(large, "4000x4000");
    bench_max(large, "4000x4000");
    bench_matmul("matmul f32 (100,784)@(784,1000)", 100, 784, false,
                 784, 1000, false);
    bench_matmul("matmul f32 (100,1000)@(1000,10)", 100, 1000, false,
                 1000, 10, false);
    bench_matmul("matmul f32 (100,1000)@(784,1000).T", 100, 1000, false,
                 784, 1000, true);
    bench_matmul("matmul f32 (100,784).T@(100,1000)", 100, 784, true,
                 100, 1000, false);
    bench_epoch_floor();
    nd_release(small);
    nd_release(large);
    return 0;
}
