/* train_floor.c - the floor under one epoch of step 51's training: the
 * GEMM calls that the MLP 784-1000-10 makes on 60,000 images in batches
 * of 100, made bare through cblas on buffers allocated once, float32 as
 * the model's weights are. Nothing else: no activation, no loss, no
 * update. Prints three rows, "name<TAB>seconds per epoch", each the best
 * of two epochs after one of warm-up: an epoch as step 51 runs it (the
 * training with the gradient of the input batch, which DeZero computes
 * and nobody reads, then the forward pass over the 10,000 test images),
 * the training alone, and the training without the input gradient.
 * bench/train.sh compares the framework and its peers with them. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum {
    BATCH = 100, IN = 784, HIDDEN = 1000, OUT = 10,
    TRAIN_BATCHES = 600, TEST_BATCHES = 100,
};

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

/* The model's arrays, allocated once. */
static float *x, *w1, *h, *w2, *y, *gh, *gw1, *gw2, *gx;

/* One epoch's GEMMs: the training, with the input gradient or not, and
 * the test pass's forward where asked. */
static void epoch(int with_input_grad, int with_test)
{
    for (int i = 0; i < TRAIN_BATCHES; i++) {
        gemm(0, 0, BATCH, HIDDEN, IN, x, w1, h);        // (100, 1000)
        gemm(0, 0, BATCH, OUT, HIDDEN, h, w2, y);       // (100, 10)
        gemm(1, 0, HIDDEN, OUT, BATCH, h, y, gw2);      // (1000, 10)
        gemm(0, 1, BATCH, HIDDEN, OUT, y, w2, gh);      // (100, 1000)
        gemm(1, 0, IN, HIDDEN, BATCH, x, gh, gw1);      // (784, 1000)
        if (with_input_grad)
            gemm(0, 1, BATCH, IN, HIDDEN, gh, w1, gx);  // (100, 784)
    }
    for (int i = 0; with_test && i < TEST_BATCHES; i++) {
        gemm(0, 0, BATCH, HIDDEN, IN, x, w1, h);        // (100, 1000)
        gemm(0, 0, BATCH, OUT, HIDDEN, h, w2, y);       // (100, 10)
    }
}

/* Seconds of the best of two epochs. */
static double best_epoch(int with_input_grad, int with_test)
{
    double best = 1e30;
    for (int round = 0; round < 2; round++) {
        double t0 = now();
        epoch(with_input_grad, with_test);
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

int main(void)
{
    x = buffer(BATCH * IN), w1 = buffer(IN * HIDDEN);
    h = buffer(BATCH * HIDDEN), w2 = buffer(HIDDEN * OUT);
    y = buffer(BATCH * OUT), gh = buffer(BATCH * HIDDEN);
    gw1 = buffer(IN * HIDDEN), gw2 = buffer(HIDDEN * OUT);
    gx = buffer(BATCH * IN);
    epoch(1, 1);                                    /* warm-up */
    printf("gemm floor, training + test pass\t%.6f\n", best_epoch(1, 1));
    printf("gemm floor, training\t%.6f\n", best_epoch(1, 0));
    printf("gemm floor, training w/o input grad\t%.6f\n", best_epoch(0, 0));
    free(x), free(w1), free(h), free(w2), free(y), free(gh);
    free(gw1), free(gw2), free(gx);
    return 0;
}
