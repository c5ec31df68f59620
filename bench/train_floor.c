/* train_floor.c - the floor under one epoch of step 51's training: the
 * GEMM calls that the MLP 784-1000-10 makes on 60,000 images in batches
 * of 100, made bare through cblas on buffers allocated once, float32 as
 * the model's weights are. Nothing else: no activation, no loss, no
 * update. Prints two rows, "name<TAB>seconds per epoch": with the
 * gradient of the input batch, which DeZero computes and nobody reads,
 * and without it. bench/train.sh compares the framework with them. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { BATCH = 100, IN = 784, HIDDEN = 1000, OUT = 10, ITERS = 600 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* C (m, n) = op(A) @ op(B), row-major, op a transpose where asked. */
static void gemm(int trans_a, int trans_b, int m, int n, int k,
                 const float *a, const float *b, float *c)
{
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                trans_b ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a,
                trans_a ? m : k, b, trans_b ? k : n, 0.0f, c, n);
}

static float *buffer(size_t count)
{
    float *p = malloc(count * sizeof *p);
    if (!p) {
        fprintf(stderr, "train_floor: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < count; i++)
        p[i] = (float)rand() / (float)RAND_MAX - 0.5f;
    return p;
}

/* Seconds for one epoch's GEMMs, best of two epochs. */
static double epoch(int with_input_grad)
{
    float *x = buffer(BATCH * IN), *w1 = buffer(IN * HIDDEN);
    float *h = buffer(BATCH * HIDDEN), *w2 = buffer(HIDDEN * OUT);
    float *y = buffer(BATCH * OUT), *gh = buffer(BATCH * HIDDEN);
    float *gw1 = buffer(IN * HIDDEN), *gw2 = buffer(HIDDEN * OUT);
    float *gx = buffer(BATCH * IN);
    double best = 1e30;
    for (int round = 0; round < 2; round++) {
        double t0 = now();
        for (int i = 0; i < ITERS; i++) {
            gemm(0, 0, BATCH, HIDDEN, IN, x, w1, h);     // (100, 1000)
            gemm(0, 0, BATCH, OUT, HIDDEN, h, w2, y);    // (100, 10)
            gemm(1, 0, HIDDEN, OUT, BATCH, h, y, gw2);   // (1000, 10)
            gemm(0, 1, BATCH, HIDDEN, OUT, y, w2, gh);   // (100, 1000)
            gemm(1, 0, IN, HIDDEN, BATCH, x, gh, gw1);   // (784, 1000)
            if (with_input_grad)
                gemm(0, 1, BATCH, IN, HIDDEN, gh, w1, gx);   // (100, 784)
        }
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    free(x), free(w1), free(h), free(w2), free(y), free(gh);
    free(gw1), free(gw2), free(gx);
    return best;
}

int main(void)
{
    printf("gemm floor, with the input gradient\t%.6f\n", epoch(1));
    printf("gemm floor, without it\t%.6f\n", epoch(0));
    return 0;
}
