/* lstm_floor.c - the floor under step 60's training: the matrix
 * products that its LSTM of 100 hidden features and its Linear layer
 * make in 100 epochs, made bare through cblas_dgemm on buffers allocated
 * once, float64 as the model computes (its float32 weights meet float64
 * data). Nothing else: no gate, no loss, no update, no cast.
 *
 * An epoch is 34 batches of 30 values. The first batch after the
 * reset has no hidden state, so 33 make the four h2* products. The
 * backward at the 30th batch goes through batches 1 to 30, and the
 * last 4 are never backpropagated (step 60's main.c says why). Prints
 * two rows "name<TAB>seconds", each the best of three runs of 100 epochs
 * after a warm-up: on one thread, as the array library runs products
 * this small, and on as many as OpenBLAS picks, as NumPy runs them.
 * bench/lstm.sh compares step 60 with them. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum {
    BATCH = 30, HIDDEN = 100, IN = 1, OUT = 1,
    BATCHES = 34, BACKPROPAGATED = 30, EPOCHS = 100,
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* C (m, n) = op(A) @ op(B), row-major, op a transpose where asked. */
static void gemm(int trans_a, int trans_b, int m, int n, int k,
                 const double *a, const double *b, double *c)
{
    cblas_dgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                trans_b ? CblasTrans : CblasNoTrans, m, n, k, 1.0, a,
                trans_a ? m : k, b, trans_b ? k : n, 0.0, c, n);
}

static double *buffer(size_t count)
{
    double *p = malloc(count * sizeof *p);
    if (!p) {
        fprintf(stderr, "lstm_floor: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < count; i++)
        p[i] = (double)rand() / (double)RAND_MAX - 0.5;
    return p;
}

/* The model's arrays, allocated once: the input, the state, the weights
 * of one x2* and one h2* layer and of fc (each gate's are the same
 * shapes), and the gradients. */
static double *x, *h, *wx, *wh, *wfc, *g, *gh, *gx, *gwx, *gwh, *gwfc, *y;

/* One batch's forward products; with_state: the h2* ones too. */
static void forward(int with_state)
{
    for (int gate = 0; gate < 4; gate++) {
        gemm(0, 0, BATCH, HIDDEN, IN, x, wx, g);        // (30, 100)
        if (with_state)
            gemm(0, 0, BATCH, HIDDEN, HIDDEN, h, wh, g);    // (30, 100)
    }
    gemm(0, 0, BATCH, OUT, HIDDEN, h, wfc, y);          // (30, 1)
}

/* One batch's backward products, those of forward(with_state). */
static void backward(int with_state)
{
    gemm(0, 1, BATCH, HIDDEN, OUT, y, wfc, gh);         // (30, 100)
    gemm(1, 0, HIDDEN, OUT, BATCH, h, y, gwfc);         // (100, 1)
    for (int gate = 0; gate < 4; gate++) {
        gemm(0, 1, BATCH, IN, HIDDEN, g, wx, gx);       // (30, 1)
        gemm(1, 0, IN, HIDDEN, BATCH, x, g, gwx);       // (1, 100)
        if (!with_state)
            continue;
        gemm(0, 1, BATCH, HIDDEN, HIDDEN, g, wh, gh);   // (30, 100)
        gemm(1, 0, HIDDEN, HIDDEN, BATCH, h, g, gwh);   // (100, 100)
    }
}

static void epoch(void)
{
    for (int b = 0; b < BATCHES; b++)
        forward(b > 0);
    for (int b = 0; b < BACKPROPAGATED; b++)
        backward(b > 0);
}

/* Seconds of the best of three runs of EPOCHS epochs. */
static double best_run(void)
{
    double best = 1e30;
    for (int round = 0; round < 3; round++) {
        double t0 = now();
        for (int e = 0; e < EPOCHS; e++)
            epoch();
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

int main(void)
{
    x = buffer(BATCH * IN), h = buffer(BATCH * HIDDEN);
    wx = buffer(IN * HIDDEN), wh = buffer(HIDDEN * HIDDEN);
    wfc = buffer(HIDDEN * OUT), g = buffer(BATCH * HIDDEN);
    gh = buffer(BATCH * HIDDEN), gx = buffer(BATCH * IN);
    gwx = buffer(IN * HIDDEN), gwh = buffer(HIDDEN * HIDDEN);
    gwfc = buffer(HIDDEN * OUT), y = buffer(BATCH * OUT);
    for (int e = 0; e < 10; e++)                    /* warm-up */
        epoch();
    int threads = openblas_get_num_threads();
    openblas_set_num_threads(1);
    printf("gemm floor, one thread\t%.6f\n", best_run());
    openblas_set_num_threads(threads);
    printf("gemm floor, %d threads\t%.6f\n", threads, best_run());
    free(x), free(h), free(wx), free(wh), free(wfc), free(g);
    free(gh), free(gx), free(gwx), free(gwh), free(gwfc), free(y);
    return 0;
}
