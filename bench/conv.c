/* conv.c - the convolution section of `make bench`: one forward and
 * backward pass of a 2-D convolution as DeZero computes it (step 57's
 * conv2d_simple: im2col, then Linear), on a batch of 100 MNIST-sized
 * images (1x28x28) through 30 5x5 filters, stride 1, no padding, float32:
 *   forward   col = im2col(x); y = col @ W.reshape(30, -1).T; y += b
 *   backward  gW = col.T @ gy; gcol = gy @ W.reshape(30, -1);
 *             gx = col2im(gcol)
 * against its floor: the same three GEMMs as bare cblas_sgemm calls into
 * buffers made once; and the framework's own convolution, step 57's
 * F_conv2d through Variables, forward and backward (linked with step
 * 57's objects). Prints "key<TAB>seconds a pass" rows (floor, ours,
 * ours' im2col and col2im, framework), best of ROUNDS, the three timed
 * in turn. `conv ours N`, `conv floor N` and `conv framework N` run N
 * passes of one of them alone, to time the whole process from
 * outside. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dezero.h"
#include "nd.h"

enum {
    N = 100, C = 1, H = 28, W = 28, OC = 30, K = 5,
    OH = H - K + 1, OW = W - K + 1,     /* 24 x 24 */
    ROWS = N * OH * OW,                 /* 57600 windows */
    WINDOW = C * K * K,                 /* 25 entries each */
    ROUNDS = 20,
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The operands, made once: np.random.rand(shape).astype(np.float32). */
typedef struct Operands {
    NdArray *x;                         // (100, 1, 28, 28)
    NdArray *w;                         // (30, 25): W.reshape(30, -1)
    NdArray *b;                         // (30,)
    NdArray *gy;                        // (57600, 30)
} Operands;

static NdArray *rand_f32(int ndim, const int64_t *shape)
{
    NdArray *x64 = nd_random_rand(ndim, shape);
    NdArray *x = nd_astype(x64, ND_FLOAT32);
    nd_release(x64);
    return x;
}

/* What one pass of ours spent in im2col and in col2im. */
typedef struct Split {
    double im2col, col2im;
} Split;

/* One forward and backward pass with the array library, each result a
 * new array as DeZero's are. */
static void ours(const Operands *o, Split *split)
{
    double t0 = now();
    NdArray *col = nd_im2col(o->x, K, K, 1, 1, 0, 0, true);   // (57600, 25)
    double t1 = now();
    NdArray *y = nd_matmul_t(col, false, o->w, true);         // (57600, 30)
    nd_iadd(y, o->b);                       /* DeZero's Linear: y += b */
    NdArray *gw = nd_matmul_t(col, true, o->gy, false);       // (25, 30)
    NdArray *gcol = nd_matmul(o->gy, o->w);                   // (57600, 25)
    double t2 = now();
    NdArray *gx = nd_col2im(gcol, ND_SHAPE(N, C, H, W), K, K, 1, 1, 0, 0,
                            true);                      // (100, 1, 28, 28)
    double t3 = now();
    split->im2col = t1 - t0;
    split->col2im = t3 - t2;
    nd_release(col);
    nd_release(y);
    nd_release(gw);
    nd_release(gcol);
    nd_release(gx);
}

/* The floor: the three products of ours, bare, into buffers made once. */
typedef struct Floor {
    float *col;                         // (57600, 25)
    float *y;                           // (57600, 30)
    float *gw;                          // (25, 30)
    float *gcol;                        // (57600, 25)
} Floor;

static void floor_pass(const Operands *o, Floor *f)
{
    const float *w = o->w->data, *gy = o->gy->data;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, ROWS, OC, WINDOW,
                1.0f, f->col, WINDOW, w, WINDOW, 0.0f, f->y, OC);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, WINDOW, OC, ROWS,
                1.0f, f->col, WINDOW, gy, OC, 0.0f, f->gw, OC);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ROWS, WINDOW, OC,
                1.0f, gy, OC, w, WINDOW, 0.0f, f->gcol, WINDOW);
}

/* The framework's operands, Variables of main's pool. */
typedef struct Framework {
    Variable *x;                        // (100, 1, 28, 28)
    Variable *W;                        // (30, 1, 5, 5)
    Variable *b;                        // (30,)
} Framework;

/* One pass of step 57's F_conv2d as a training step runs it: forward,
 * then backward from y seeded with ones (as backward seeds any output),
 * in a pool drained at the end so that each pass frees its graph and
 * its gradients. Its products are the floor's three, made image by
 * image (a GEMM an image, y and gy in (N, OC, OH*OW) as they are):
 * y[n] = W col[n], the transpose of the floor's rows of col W^T; gW as
 * the sum over the images of gy[n] col[n]^T, the floor's col^T gy
 * transposed; gcol[n] = W^T gy[n], the floor's gy W transposed. Beyond
 * them it does, all counted against it: im2col of x twice (forward,
 * and again in Conv2DGradW), the bias add, the ones of the seed,
 * col2im, the sums of gy for gb and of the images' gW, and the graph's
 * Variables and Functions. */
static void framework_pass(const Framework *m)
{
    Pool *pass = pool_new();
    Variable *y = F_conv2d(m->x, m->W, m->b);       // (100, 30, 24, 24)
    backward(y);
    cleargrad(m->x);
    cleargrad(m->W);
    cleargrad(m->b);
    pool_drain(pass);
}

static float *floats(size_t n)
{
    float *p = calloc(n, sizeof *p);
    if (!p) {
        fprintf(stderr, "conv: out of memory\n");
        exit(1);
    }
    return p;
}

static void usage(void)
{
    fprintf(stderr, "usage: conv [ours|floor|framework PASSES]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc != 1 && argc != 3)
        usage();
    nd_random_seed(0);
    Pool *pool = pool_new();
    Operands o = {
        .x = rand_f32(ND_SHAPE(N, C, H, W)),
        .w = rand_f32(ND_SHAPE(OC, WINDOW)),
        .b = rand_f32(ND_SHAPE(OC)),
        .gy = rand_f32(ND_SHAPE(ROWS, OC)),
    };
    NdArray *col = nd_im2col(o.x, K, K, 1, 1, 0, 0, true);    // (57600, 25)
    Floor f = {floats((size_t)ROWS * WINDOW), floats((size_t)ROWS * OC),
               floats((size_t)WINDOW * OC), floats((size_t)ROWS * WINDOW)};
    memcpy(f.col, col->data, (size_t)ROWS * WINDOW * sizeof(float));
    nd_release(col);
    Framework m = {
        .x = variable(nd_retain(o.x)),
        .W = variable(nd_reshape(o.w, ND_SHAPE(OC, C, K, K))),
        .b = variable(nd_retain(o.b)),
    };
    Split split;
    if (argc == 3) {
        long passes = strtol(argv[2], NULL, 10);
        bool mine = strcmp(argv[1], "ours") == 0;
        bool framework = strcmp(argv[1], "framework") == 0;
        if (passes < 1 ||
            (!mine && !framework && strcmp(argv[1], "floor") != 0))
            usage();
        for (long i = 0; i < passes; i++) {
            if (mine)
                ours(&o, &split);
            else if (framework)
                framework_pass(&m);
            else
                floor_pass(&o, &f);
        }
    } else {
        /* One warm-up each, then ROUNDS of the three in turn. */
        ours(&o, &split);
        floor_pass(&o, &f);
        framework_pass(&m);
        double best_ours = 1e30, best_floor = 1e30, best_framework = 1e30;
        double best_im2col = 1e30, best_col2im = 1e30;
        for (int r = 0; r < ROUNDS; r++) {
            double t0 = now();
            ours(&o, &split);
            double t1 = now();
            floor_pass(&o, &f);
            double t2 = now();
            framework_pass(&m);
            double t3 = now();
            if (t3 - t2 < best_framework)
                best_framework = t3 - t2;
            best_ours = t1 - t0 < best_ours ? t1 - t0 : best_ours;
            best_floor = t2 - t1 < best_floor ? t2 - t1 : best_floor;
            if (split.im2col < best_im2col)
                best_im2col = split.im2col;
            if (split.col2im < best_col2im)
                best_col2im = split.col2im;
        }
        printf("floor\t%.6e\n", best_floor);
        printf("ours\t%.6e\n", best_ours);
        printf("ours im2col\t%.6e\n", best_im2col);
        printf("ours col2im\t%.6e\n", best_col2im);
        printf("framework\t%.6e\n", best_framework);
    }
    pool_drain(pool);
    nd_release(o.x);
    nd_release(o.w);
    nd_release(o.b);
    nd_release(o.gy);
    free(f.col);
    free(f.y);
    free(f.gw);
    free(f.gcol);
    return 0;
}
