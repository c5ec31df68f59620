/* bench.c - times the array library on the operations a DeZero training
 * loop leans on. Prints one line per row: name, our seconds, and for the
 * matmul rows the seconds of a bare cblas call on the same buffers.
 * bench/run.sh puts NumPy's times beside these and prints the ratios. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "nd.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Times stmt once into *best, keeping the smallest time seen. */
#define TIME_ONCE(best, stmt)                                             \
    do {                                                                  \
        double t0_ = now();                                               \
        stmt;                                                             \
        double t_ = now() - t0_;                                          \
        if (t_ < (best))                                                  \
            (best) = t_;                                                  \
    } while (0)

/* The best of `repeat` timed calls, after one warm-up call. */
#define BEST_OF(repeat, seconds, stmt)                                    \
    do {                                                                  \
        stmt;                                                             \
        seconds = 1e30;                                                   \
        for (int r_ = 0; r_ < (repeat); r_++)                             \
            TIME_ONCE(seconds, stmt);                                     \
    } while (0)

/* The same for two statements, timed in turn, so that both see the
 * same moments of a busy machine. */
#define BEST_OF_BOTH(repeat, seconds1, stmt1, seconds2, stmt2)            \
    do {                                                                  \
        stmt1;                                                            \
        stmt2;                                                            \
        seconds1 = seconds2 = 1e30;                                       \
        for (int r_ = 0; r_ < (repeat); r_++) {                           \
            TIME_ONCE(seconds1, stmt1);                                   \
            TIME_ONCE(seconds2, stmt2);                                   \
        }                                                                 \
    } while (0)

static void row(const char *name, double ours, double raw_blas)
{
    if (raw_blas > 0)
        printf("%s\t%.6e\t%.6e\n", name, ours, raw_blas);
    else
        printf("%s\t%.6e\t-\n", name, ours);
}

/* rand(shape).astype(dtype), as bench_numpy.py makes its operands: the
 * float64 array is released at once, as Python releases it. (That also
 * gives both processes the same malloc history: until a process frees
 * a large block, glibc hands memory above 128 KiB back to the system
 * on every free, and each new result then page-faults.) */
static NdArray *rand_as(NdDtype dtype, int ndim, const int64_t *shape)
{
    NdArray *x64 = nd_random_rand(ndim, shape);
    NdArray *x = nd_astype(x64, dtype);
    nd_release(x64);
    return x;
}

/* Our matmul (a new result each call, as NumPy's a @ b) and, in turn,
 * a bare cblas gemm into a buffer made once. */
static void bench_matmul(const char *name, NdDtype dtype, int64_t m,
                         int64_t k, int64_t n, int repeat)
{
    NdArray *a = rand_as(dtype, ND_SHAPE(m, k));       // (m, k)
    NdArray *b = rand_as(dtype, ND_SHAPE(k, n));       // (k, n)
    NdArray *c = nd_empty(dtype, ND_SHAPE(m, n));      // (m, n)
    double ours, raw;
    if (dtype == ND_FLOAT32)
        BEST_OF_BOTH(repeat, ours, nd_release(nd_matmul(a, b)), raw,
                     cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans,
                                 m, n, k, 1.0f, a->data, k, b->data, n,
                                 0.0f, c->data, n));
    else
        BEST_OF_BOTH(repeat, ours, nd_release(nd_matmul(a, b)), raw,
                     cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans,
                                 m, n, k, 1.0, a->data, k, b->data, n, 0.0,
                                 c->data, n));
    row(name, ours, raw);
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

/* Declared by OpenBLAS's cblas.h on recent versions; named here so the
 * benchmark says which kernel it measured (OPENBLAS_CORETYPE can pick). */
char *openblas_get_config(void);
char *openblas_get_corename(void);

int main(void)
{
    printf("OpenBLAS %s, kernel %s (OPENBLAS_CORETYPE=%s)\n",
           openblas_get_config(), openblas_get_corename(),
           getenv("OPENBLAS_CORETYPE") ? getenv("OPENBLAS_CORETYPE")
                                       : "unset");
    nd_random_seed(0);
    bench_matmul("matmul 100x784 @ 784x1000 f32", ND_FLOAT32, 100, 784,
                 1000, 50);
    bench_matmul("matmul 100x784 @ 784x1000 f64", ND_FLOAT64, 100, 784,
                 1000, 50);
    /* Ten tries each: both sides make the same cblas call, so the ratio
     * is only as good as the minimum each side reaches. */
    bench_matmul("matmul 2000x2000 f32", ND_FLOAT32, 2000, 2000, 2000, 10);
    bench_matmul("matmul 2000x2000 f64", ND_FLOAT64, 2000, 2000, 2000, 10);
    bench_elementwise(50);
    bench_fft(2000, 3);
    bench_fft(4000, 2);
    return 0;
}
