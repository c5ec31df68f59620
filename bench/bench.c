/* bench.c - times the array library on the operations a DeZero training
 * loop leans on. Prints one line per row: name, our seconds, and for the
 * matmul rows the seconds of a bare cblas call on the same buffers.
 * bench/run.sh puts NumPy's times beside these and prints the ratios. */
#include <cblas.h>
#include <stdio.h>
#include <time.h>

#include "nd.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The best of `repeat` timed calls, after one warm-up call. */
#define BEST_OF(repeat, seconds, stmt)                                    \
    do {                                                                  \
        stmt;                                                             \
        seconds = 1e30;                                                   \
        for (int r_ = 0; r_ < (repeat); r_++) {                           \
            double t0_ = now();                                           \
            stmt;                                                         \
            double t_ = now() - t0_;                                      \
            if (t_ < seconds)                                             \
                seconds = t_;                                             \
        }                                                                 \
    } while (0)

static void row(const char *name, double ours, double raw_blas)
{
    if (raw_blas > 0)
        printf("%s\t%.6e\t%.6e\n", name, ours, raw_blas);
    else
        printf("%s\t%.6e\t-\n", name, ours);
}

static void bench_matmul(const char *name, NdDtype dtype, int64_t m,
                         int64_t k, int64_t n, int repeat)
{
    NdArray *a64 = nd_random_rand(ND_SHAPE(m, k));     // (m, k)
    NdArray *b64 = nd_random_rand(ND_SHAPE(k, n));     // (k, n)
    NdArray *a = nd_astype(a64, dtype), *b = nd_astype(b64, dtype);
    NdArray *c = nd_empty(dtype, ND_SHAPE(m, n));      // (m, n)
    double ours, raw;
    BEST_OF(repeat, ours, nd_release(nd_matmul(a, b)));
    if (dtype == ND_FLOAT32)
        BEST_OF(repeat, raw, cblas_sgemm(CblasRowMajor, CblasNoTrans,
                CblasNoTrans, m, n, k, 1.0f, a->data, k, b->data, n, 0.0f,
                c->data, n));
    else
        BEST_OF(repeat, raw, cblas_dgemm(CblasRowMajor, CblasNoTrans,
                CblasNoTrans, m, n, k, 1.0, a->data, k, b->data, n, 0.0,
                c->data, n));
    row(name, ours, raw);
    nd_release(a64);
    nd_release(b64);
    nd_release(a);
    nd_release(b);
    nd_release(c);
}

static void bench_elementwise(int repeat)
{
    NdArray *x = nd_random_rand(ND_SHAPE(1000, 1000));    // (1000, 1000)
    NdArray *bias = nd_random_rand(ND_SHAPE(1000));       // (1000,)
    NdArray *x32 = nd_astype(x, ND_FLOAT32);
    double t;
    BEST_OF(repeat, t, nd_release(nd_add(x, bias)));
    row("add (1000,1000)+(1000,) f64", t, 0);
    BEST_OF(repeat, t, nd_release(nd_exp(x)));
    row("exp 1M f64", t, 0);
    BEST_OF(repeat, t, nd_release(nd_exp(x32)));
    row("exp 1M f32", t, 0);
    BEST_OF(repeat, t, nd_release(nd_sum(x, ND_AXES(0), false)));
    row("sum axis 0 (1000,1000) f64", t, 0);
    BEST_OF(repeat, t, nd_release(nd_sum(x, ND_AXES(1), false)));
    row("sum axis 1 (1000,1000) f64", t, 0);
    nd_release(x);
    nd_release(bias);
    nd_release(x32);
}

static void bench_fft(int64_t n, int repeat)
{
    NdArray *x = nd_random_randint(0, 256, ND_SHAPE(n, n));  // (n, n) int64
    double t;
    BEST_OF(repeat, t, nd_release(nd_fftn(x)));
    char name[64];
    snprintf(name, sizeof name, "fftn %lldx%lld int64", (long long)n,
             (long long)n);
    row(name, t, 0);
    nd_release(x);
}

int main(void)
{
    nd_random_seed(0);
    bench_matmul("matmul 100x784 @ 784x1000 f32", ND_FLOAT32, 100, 784,
                 1000, 20);
    bench_matmul("matmul 100x784 @ 784x1000 f64", ND_FLOAT64, 100, 784,
                 1000, 20);
    bench_matmul("matmul 2000x2000 f32", ND_FLOAT32, 2000, 2000, 2000, 3);
    bench_matmul("matmul 2000x2000 f64", ND_FLOAT64, 2000, 2000, 2000, 3);
    bench_elementwise(20);
    bench_fft(2000, 3);
    bench_fft(4000, 2);
    return 0;
}
