/* test_gpu.c - the GPU half against the CPU half, which is the oracle:
 * every test body computes an operation on host arrays and on the same
 * inputs moved to a device, and compares: equal results (in ulps, see
 * expect_close) or the same refusal. The bodies run on CUDA only: on the CPU
 * they would compare the CPU with itself, which cannot fail (the CPU's
 * own values are checked against NumPy's in the other tests of common/).
 * Without a GPU the CUDA cases are skipped, so cmocka reports them
 * rather than hiding them. `test_gpu --gpu-only` (make test-gpu) runs
 * them alone and fails without a GPU. */
#include <complex.h>
#include <math.h>
#include <unistd.h>

#include "nd_gpu.h"
#include "nd_test.h"
#include "scratch.h"
#include "ulp.h"

/* ------------------------------------------------------------ helpers */

/* The device a case runs on (its state); skips CUDA cases without a GPU. */
static NdDevice device_of(void **state)
{
    NdDevice device = *(const NdDevice *)*state;
    if (device == ND_CUDA && !nd_gpu_available())
        skip();
    return device;
}

/* a on device: a new reference (a itself when it is already there). */
static NdArray *on(NdDevice device, const NdArray *a)
{
    return nd_to_device(a, device);
}

static void release_all(int n, NdArray **arrays)
{
    for (int i = 0; i < n; i++)
        nd_release(arrays[i]);
}
#define RELEASE(...) \
    release_all((int)(sizeof((NdArray *[]){__VA_ARGS__}) / \
                      sizeof(NdArray *)), (NdArray *[]){__VA_ARGS__})

/* How far a device result may be from the host's: each element in ulps
 * (ulp.h) of its dtype (a complex's parts in ulps of their float type),
 * at the larger of the element's size and a floor given per call (the
 * size of a sum of N(0, 1) samples, where results that cancel are small
 * and a relative error means nothing). Integers and bools exactly.
 *
 * ELEMENT_ULPS, for one operation on each element: CUDA's exp, log,
 * sin, cos, tanh and pow are within 2 ulps of the exact result (powf
 * within 4), the host's (glibc's libmvec) within 4, so the two are
 * within 8; +, -, * and / are exact on both (no fused multiply-adds:
 * the kernels are built with --fmad=false).
 * SUM_ULPS, for sums (reductions, products, sum_to, scatter-adds, FFTs):
 * the device adds in another order than the host, in a tree over blocks
 * against a pairwise sum; each order's error is about log2(n) roundings
 * at the floor's scale, at most 17 for the 70,000 elements here.
 * Each case prints the largest distance it measured on the device. */
enum { ELEMENT_ULPS = 8, SUM_ULPS = 64 };

/* The largest distance measured by the case running, printed after it. */
static double largest_distance;

/* Element i's distance in ulps of want's precision, at max(|w|, floor). */
static double distance(NdDtype dtype, double complex w, double complex g,
                       double floor)
{
    double scale = fmax(cabs(w), floor);
    return fmax(ulps_apart(creal(w), creal(g), dtype, scale),
                ulps_apart(cimag(w), cimag(g), dtype, scale));
}

/* Asserts that got, computed on device, lies on it and matches want
 * (computed on the host): dtype, shape, and each element within
 * max_ulps at max(|w|, floor); integers and bools exactly. Releases
 * both. */
static void expect_close(NdDevice device, NdArray *want, NdArray *got,
                         double max_ulps, double floor)
{
    assert_non_null(want);
    assert_non_null(got);
    assert_int_equal(got->device, device);
    assert_int_equal(want->device, ND_CPU);
    NdArray *host = nd_to_device(got, ND_CPU);
    assert_string_equal(nd_dtype_name(host->dtype),
                        nd_dtype_name(want->dtype));
    assert_int_equal(host->ndim, want->ndim);
    for (int d = 0; d < want->ndim; d++)
        assert_int_equal(host->shape[d], want->shape[d]);
    bool floats = nd_dtype_is_float(want->dtype) ||
                  nd_dtype_is_complex(want->dtype);
    for (int64_t i = 0; i < want->size; i++) {
        double complex w = element_of(want, i), g = element_of(host, i);
        double d = distance(want->dtype, w, g, floor);
        largest_distance = fmax(largest_distance, d);
        if (floats ? !(d <= max_ulps) : d != 0)
            fail_msg("element %lld: got %.17g%+.17gj, want %.17g%+.17gj "
                     "(%s, %.3g ulps apart, at most %g)", (long long)i,
                     creal(g), cimag(g), creal(w), cimag(w),
                     nd_dtype_name(want->dtype), d, max_ulps);
    }
    RELEASE(want, got, host);
}

/* The same for a result that should be the host's to the last bit,
 * but for one rounding of each element (copies, casts, in-place
 * arithmetic). */
static void expect_same(NdDevice device, NdArray *want, NdArray *got)
{
    expect_close(device, want, got, ELEMENT_ULPS, 1);
}

/* ------------------------------------------------------------ inputs */

static const NdDtype all_dtypes[] = {
    ND_BOOL, ND_UINT8, ND_INT64, ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64,
    ND_COMPLEX128,
};
enum { N_DTYPES = sizeof all_dtypes / sizeof all_dtypes[0] };

/* Random host values of dtype: N(0, 1) for floats (both parts of a
 * complex), -9..9 for int64, 0..255 for uint8, 0/1 for bool. */
static NdArray *sample(NdDtype dtype, int ndim, const int64_t *shape)
{
    NdArray *x;
    switch (dtype) {
    case ND_BOOL: x = nd_random_randint(0, 2, ndim, shape); break;
    case ND_UINT8: x = nd_random_randint(0, 256, ndim, shape); break;
    case ND_INT64: x = nd_random_randint(-9, 10, ndim, shape); break;
    case ND_COMPLEX64:
    case ND_COMPLEX128: {
        NdArray *re = nd_random_randn(ndim, shape);
        NdArray *im = nd_random_randn(ndim, shape);
        x = nd_empty(ND_COMPLEX128, ndim, shape);
        for (int64_t i = 0; i < x->size; i++)
            ND_DATA(x, double complex)[i] =
                ND_DATA(re, double)[i] + ND_DATA(im, double)[i] * I;
        RELEASE(re, im);
        break;
    }
    default: x = nd_random_randn(ndim, shape); break;
    }
    NdArray *y = nd_astype(x, dtype);
    nd_release(x);
    return y;
}

/* Values in [0.5, 2) as dtype: safe for log, sqrt and fractional pow. */
static NdArray *positive(NdDtype dtype, int ndim, const int64_t *shape)
{
    NdArray *x = nd_random_uniform(0.5, 2.0, ndim, shape);
    NdArray *y = nd_astype(x, dtype);
    nd_release(x);
    return y;
}

/* Complex values whose parts are uniform in [-1, 1): away from the
 * poles of tanh (at i pi/2), where a result's last bits mean nothing. */
static NdArray *near_origin(NdDtype dtype, int ndim, const int64_t *shape)
{
    NdArray *re = nd_random_uniform(-1, 1, ndim, shape);
    NdArray *im = nd_random_uniform(-1, 1, ndim, shape);
    NdArray *z = nd_empty(ND_COMPLEX128, ndim, shape);
    for (int64_t i = 0; i < z->size; i++)
        ND_DATA(z, double complex)[i] =
            ND_DATA(re, double)[i] + ND_DATA(im, double)[i] * I;
    NdArray *y = nd_astype(z, dtype);
    RELEASE(re, im, z);
    return y;
}

/* A shape as (ndim, extents), for tables of cases. */
typedef struct Shape {
    int ndim;
    int64_t dims[4];
} Shape;
#define SHAPE_OF(s) (s).ndim, (s).dims

/* ------------------------------------------------------------ calls */

/* The operation under test, as a call on its array operands; the rest
 * of its arguments wait in `the`. */
typedef NdArray *(*Call)(NdArray *const *x);
typedef NdArray *(*BinaryFn)(const NdArray *, const NdArray *);
typedef NdArray *(*UnaryFn)(const NdArray *);
typedef NdArray *(*ReduceFn)(const NdArray *, int, const int *, bool);

static struct {
    BinaryFn binary;
    UnaryFn unary;
    ReduceFn reduce;
    int naxes;                      /* reductions */
    const int *axes;
    bool keepdims;
    int axis;                       /* argmax, concatenate, stack */
    double lo, hi;                  /* clip */
    bool trans_a, trans_b;          /* matmul_t */
    int ndim;                       /* sum_to */
    const int64_t *shape;
    int64_t n;                      /* irfftn */
    int nindex;                     /* getitem, add_at: an ND_INDEX_ARRAY */
    NdIndex index[4];               /* entry takes the next operand */
    int64_t window[6];              /* im2col, col2im: kh, kw, sh, sw, */
    bool to_matrix;                 /* ph, pw; col2im's image: shape */
} the;

static NdArray *call_binary(NdArray *const *x)
{
    return the.binary(x[0], x[1]);
}

static NdArray *call_unary(NdArray *const *x)
{
    return the.unary(x[0]);
}

static NdArray *call_reduce(NdArray *const *x)
{
    return the.reduce(x[0], the.naxes, the.axes, the.keepdims);
}

static NdArray *call_argmax(NdArray *const *x)
{
    return nd_argmax(x[0], the.axis);
}

static NdArray *call_where(NdArray *const *x)
{
    return nd_where(x[0], x[1], x[2]);
}

static NdArray *call_clip(NdArray *const *x)
{
    return nd_clip(x[0], the.lo, the.hi);
}

static NdArray *call_matmul_t(NdArray *const *x)
{
    return nd_matmul_t(x[0], the.trans_a, x[1], the.trans_b);
}

static NdArray *call_sum_to(NdArray *const *x)
{
    return nd_sum_to(x[0], the.ndim, the.shape);
}

static NdArray *call_fft_input(NdArray *const *x)
{
    return nd_rfftn(x[0]);
}

static NdArray *call_irfftn(NdArray *const *x)
{
    return nd_irfftn(x[0], the.n);
}

static NdArray *call_im2col(NdArray *const *x)
{
    const int64_t *w = the.window;
    return nd_im2col(x[0], w[0], w[1], w[2], w[3], w[4], w[5],
                     the.to_matrix);
}

static NdArray *call_col2im(NdArray *const *x)
{
    const int64_t *w = the.window;
    return nd_col2im(x[0], the.ndim, the.shape, w[0], w[1], w[2], w[3],
                     w[4], w[5], the.to_matrix);
}

/* the.index with its array entries taken from x, in order. */
static const NdIndex *index_from(NdArray *const *x, NdIndex *index)
{
    for (int i = 0, k = 0; i < the.nindex; i++) {
        index[i] = the.index[i];
        if (index[i].kind == ND_INDEX_ARRAY)
            index[i].array = x[k++];
    }
    return index;
}

/* x[0][index], the index arrays from x[1] on. */
static NdArray *call_getitem(NdArray *const *x)
{
    NdIndex index[4];
    return nd_getitem(x[0], the.nindex, index_from(x + 1, index));
}

/* A result still being made, which attempt() releases if the call is
 * refused. */
static NdArray *pending;

/* A copy of x[0] after np.add.at(copy, index, x[1]), the index arrays
 * from x[2] on. */
static NdArray *call_add_at(NdArray *const *x)
{
    NdIndex index[4];
    NdArray *dst = pending = nd_copy(x[0]);
    nd_add_at(dst, the.nindex, index_from(x + 2, index), x[1]);
    pending = NULL;
    return dst;
}

/* ------------------------------------------------------------ refusals */

static jmp_buf refusal;
static char refusal_text[1024];

static void catch_refusal(const char *message)
{
    snprintf(refusal_text, sizeof refusal_text, "%s", message);
    longjmp(refusal, 1);
}

/* call(x), or NULL with the message in refusal_text when it stops with
 * an error, then or when its device is synchronised: a check the GPU
 * makes without the host waiting (nd_getitem's indices) is told at the
 * next read (nd_synchronize). */
static NdArray *attempt(Call call, NdArray *const *x)
{
    NdErrorHandler old = nd_set_error_handler(catch_refusal);
    NdArray *volatile result = NULL;
    refusal_text[0] = '\0';
    if (setjmp(refusal) == 0) {
        result = call(x);
        nd_synchronize(x[0]->device);
    } else if (result) {
        nd_release(result);
        result = NULL;
    }
    nd_set_error_handler(old);
    nd_release(pending);
    pending = NULL;
    return result;
}

/* Whether the device's refusal says what the host's does: the same
 * words, which the GPU may follow with where its check was made. */
static bool says_the_same(const char *device_text, const char *host_text)
{
    return strncmp(device_text, host_text, strlen(host_text)) == 0;
}

/* Makes the call on the host operands and on copies of them on device:
 * both give the same result (within max_ulps), or the same refusal. */
static void expect_both(NdDevice device, Call call, int n_operands,
                        NdArray *const *host, double max_ulps)
{
    NdArray *moved[4];
    for (int i = 0; i < n_operands; i++)
        moved[i] = on(device, host[i]);
    NdArray *want = attempt(call, host);
    char want_text[1024];
    snprintf(want_text, sizeof want_text, "%s", refusal_text);
    NdArray *got = attempt(call, moved);
    release_all(n_operands, moved);
    if (!want) {
        if (got) {
            nd_release(got);
            fail_msg("the host refused (%s), the device did not", want_text);
        }
        if (!says_the_same(refusal_text, want_text))
            fail_msg("the device refused with \"%s\", the host with "
                     "\"%s\"", refusal_text, want_text);
        return;
    }
    if (!got) {
        nd_release(want);
        fail_msg("the device refused: %s", refusal_text);
    }
    /* The floor: sqrt(n), the size of a sum of n of the N(0, 1)
     * samples, n the largest operand's size. */
    int64_t n = 1;
    for (int i = 0; i < n_operands; i++)
        n = host[i]->size > n ? host[i]->size : n;
    expect_close(device, want, got, max_ulps, sqrt((double)n));
}
#define EXPECT_BOTH(device, call, max_ulps, ...) \
    expect_both((device), (call), \
                (int)(sizeof((NdArray *[]){__VA_ARGS__}) / \
                      sizeof(NdArray *)), (NdArray *[]){__VA_ARGS__}, \
                (max_ulps))

/* ------------------------------------------------------------ the GPU */

static void test_status_says_why(void **state)
{
    (void)state;
    const char *status = nd_gpu_status();
    assert_non_null(status);
    assert_true(strlen(status) > 0);
    assert_null(strchr(status, '\n'));             /* one line */
    assert_int_equal(nd_gpu_available(), strcmp(status, "available") == 0);
    if (!nd_gpu_available())
        print_message("GPU support is off: %s\n", status);
}

/* True when a library whose name holds name is mapped into this
 * process (/proc/self/maps). */
static bool library_mapped(const char *name)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    assert_non_null(maps);
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, maps))
        found = strstr(line, name) != NULL;
    fclose(maps);
    return found;
}

/* Without a driver the GPU library is not opened at all: it would map
 * cuBLAS and cuFFT (some 145 MB) into a program that cannot use them. */
static void test_no_driver_loads_no_cuda_libraries(void **state)
{
    (void)state;
    if (strncmp(nd_gpu_status(), "no CUDA driver", 14) != 0)
        skip();
    assert_false(library_mapped("libnd_cuda"));
    assert_false(library_mapped("libcublas"));
    assert_false(library_mapped("libcufft"));
}

/* A copy of this program in a checkout that holds a GPU library (here
 * an empty file, which cannot load) opens that one, not the one the
 * build recorded: the status names the copy's library. A stand-in
 * driver (an empty shared object) gets it past the driver check on a
 * machine without one. */
static void test_library_found_near_a_moved_program(void **state)
{
    (void)state;
    const char *root = scratch;
    char command[1024], status[512];
    assert_int_equal(make_scratch(NULL), 0);
    snprintf(command, sizeof command,
             "mkdir -p %s/common/build/cuda %s/steps/step52 %s/driver && "
             ": > %s/common/build/cuda/libnd_cuda.so && "
             "cc -shared -x c /dev/null -o %s/driver/libcuda.so.1 && "
             "cp /proc/%d/exe %s/steps/step52/step52", root, root, root,
             root, root, (int)getpid(), root);
    assert_int_equal(system(command), 0);
    snprintf(command, sizeof command,
             "env -u ND_GPU_LIBRARY LD_LIBRARY_PATH=%s/driver "
             "%s/steps/step52/step52 --gpu-status", root, root);
    FILE *out = popen(command, "r");
    assert_non_null(out);
    assert_non_null(fgets(status, sizeof status, out));
    assert_int_equal(pclose(out), 0);
    assert_int_equal(remove_scratch(NULL), 0);
    char want[128];
    snprintf(want, sizeof want, "%s/common/build/cuda/libnd_cuda.so", root);
    if (!strstr(status, want))
        fail_msg("status \"%s\" does not name %s", status, want);
}

/* What a program sees when the GPU is off: a refusal that says why. */
static void test_off_refuses_to_move(void **state)
{
    (void)state;
    if (nd_gpu_available())
        skip();
    NdArray *a = nd_ones(ND_FLOAT64, ND_SHAPE(3));
    EXPECT_ND_ERROR(nd_to_device(a, ND_CUDA), "GPU support is off");
    EXPECT_ND_ERROR(nd_to_device(a, ND_CUDA), nd_gpu_status());
    EXPECT_ND_ERROR(nd_full_on(ND_CUDA, ND_FLOAT32, ND_SHAPE(2), 0),
                    "nd_full_on: GPU support is off");
    nd_release(a);
}

/* nd_conv_cover for every position of an axis of size elements padded
 * by p, windows k wide and s apart, against the definition: the windows
 * o < n whose offset x + p - o*s lies in [0, k), in order of offset. */
static void check_cover(int64_t size, int64_t k, int64_t s, int64_t p)
{
    int64_t n = (size + 2 * p - k) / s + 1, k0 = 0, o0 = 0;
    for (int64_t x = 0; x < size; x++) {
        int64_t count = nd_conv_cover(x, k, s, p, n, &k0, &o0), j = 0;
        for (int64_t o = n - 1; o >= 0; o--) {
            int64_t offset = x + p - o * s;
            if (offset < 0 || offset >= k)
                continue;
            if (j >= count || offset != k0 + j * s || o != o0 - j)
                fail_msg("x %lld of %lld, k %lld, s %lld, p %lld: window "
                         "%lld (offset %lld) is not number %lld of %lld, "
                         "from offset %lld of window %lld", (long long)x,
                         (long long)size, (long long)k, (long long)s,
                         (long long)p, (long long)o, (long long)offset,
                         (long long)j, (long long)count, (long long)k0,
                         (long long)o0);
            j++;
        }
        assert_int_equal(j, count);
    }
}

/* The windows that cover a position of an image axis, which the col2im
 * kernel finds with nd_conv_cover, for small axes, windows, strides and
 * paddings. */
static void test_conv_cover(void **state)
{
    (void)state;
    int64_t k0 = 0, o0 = 0;
    /* 5 wide, stride 1: column 2 of 28 is offset 0 of window 2, ...,
     * offset 2 of window 0. */
    assert_int_equal(nd_conv_cover(2, 5, 1, 0, 24, &k0, &o0), 3);
    assert_int_equal(k0, 0);
    assert_int_equal(o0, 2);
    for (int64_t size = 1; size <= 9; size++)
        for (int64_t k = 1; k <= 5; k++)
            for (int64_t s = 1; s <= 4; s++)
                for (int64_t p = 0; p <= 3; p++)
                    if (k <= size + 2 * p)
                        check_cover(size, k, s, p);
}

/* The index arithmetic the gather and scatter kernels share, run on the
 * host: plans for x[1:4:2, idx, 0] and x[rows, :, cols] of a (5, 4, 3)
 * array x, whose strides are (12, 3, 1). */
static void test_index_offsets(void **state)
{
    (void)state;
    const int64_t idx[] = {3, -2};          /* -2: the one before 3 */
    NdGpuIndexPlan p = {
        .ndim = 2, .shape = {2, 2}, .size = 4,
        .base = 1 * 12, .strides = {2 * 12, 0}, .narrays = 1,
        .arrays = {{.data = idx, .strides = {0, 1}, .axis_size = 4,
                    .axis_stride = 3, .axis = 1}},
    };
    /* x[1:4:2, [3, -2], 0]: rows 1 and 3, columns 3 and 2. */
    int bad = 0;
    int64_t bad_index = 0;
    const int64_t want[] = {12 + 9, 12 + 6, 36 + 9, 36 + 6};
    for (int64_t i = 0; i < 4; i++)
        assert_int_equal(nd_index_offset(&p, i, &bad, &bad_index), want[i]);
    assert_int_equal(bad, 0);

    /* Two arrays broadcast to (2, 3) in front of the sliced axis 1. */
    const int64_t rows[] = {0, 4};                  /* (2, 1) */
    const int64_t cols[] = {0, 1, 2};               /* (3,) */
    NdGpuIndexPlan q = {
        .ndim = 3, .shape = {2, 3, 4}, .size = 24,
        .strides = {0, 0, 3}, .narrays = 2,
        .arrays = {{.data = rows, .strides = {1, 0, 0}, .axis_size = 5,
                    .axis_stride = 12, .axis = 0},
                   {.data = cols, .strides = {0, 1, 0}, .axis_size = 3,
                    .axis_stride = 1, .axis = 2}},
    };
    for (int64_t i = 0; i < q.size; i++) {
        int64_t r = i / 12, c = i / 4 % 3, j = i % 4;
        assert_int_equal(nd_index_offset(&q, i, &bad, &bad_index),
                         rows[r] * 12 + j * 3 + cols[c]);
    }
    const int64_t too_far[] = {0, 5};
    q.arrays[0].data = too_far;
    assert_int_equal(nd_index_offset(&q, 12, &bad, &bad_index), -1);
    assert_int_equal(bad, 1);
    assert_int_equal(bad_index, 5);
}

/* ------------------------------------------------------------ transfer */

static void test_transfer_round_trip(void **state)
{
    NdDevice device = device_of(state);
    static const Shape shapes[] = {{0, {0}}, {1, {0}}, {2, {3, 4}},
                                   {3, {2, 1, 3}}, {2, {300, 500}}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        for (int k = 0; k < N_DTYPES; k++) {
            NdArray *a = sample(all_dtypes[k], SHAPE_OF(shapes[s]));
            NdArray *d = on(device, a);
            assert_int_equal(d->device, device);
            assert_int_equal(nd_nbytes(d), a->size *
                             (int64_t)nd_dtype_size(a->dtype));
            NdArray *again = on(device, d);         /* already there */
            assert_ptr_equal(again, d);
            nd_release(again);
            expect_close(device, nd_copy(a), nd_retain(d), 0, 0);
            RELEASE(a, d);
        }
    }
}

/* Arrays of 8 MB and more move through pinned staging buffers of 4 MB
 * (common/cuda/transfer.cu), shared among threads: sizes on each side
 * of that threshold, an exact number of chunks, a last chunk of a few
 * bytes, and more chunks than threads, uneven among them. A kernel
 * between the two copies must see the whole upload, and the download
 * the kernel's whole result. */
static void test_large_transfers(void **state)
{
    NdDevice device = device_of(state);
    static const int64_t sizes[] = {
        (8 << 20) - 1, 8 << 20, (8 << 20) + 1, (4 << 20) * 17 + 12345,
    };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        NdArray *bytes = nd_empty(ND_UINT8, 1, &sizes[s]);
        uint8_t *b = ND_DATA(bytes, uint8_t);
        for (int64_t i = 0; i < bytes->size; i++)
            b[i] = (uint8_t)((uint64_t)i * 2654435761u >> 11);
        NdArray *d = on(device, bytes);
        expect_close(device, nd_copy(bytes), d, 0, 0);
        int64_t n = sizes[s] / 8 + 3;           /* int64: 8 bytes each */
        NdArray *ints = nd_empty(ND_INT64, 1, &n);
        int64_t *v = ND_DATA(ints, int64_t);
        for (int64_t i = 0; i < n; i++)
            v[i] = i * 40503 - (i >> 7);
        NdArray *di = on(device, ints);
        expect_close(device, nd_neg(ints), nd_neg(di), 0, 0);
        RELEASE(bytes, ints, di);
    }
}

/* nd_get_flat, nd_item: one value back, synchronised; nd_set_flat. */
static void test_elements(void **state)
{
    NdDevice device = device_of(state);
    for (int k = 0; k < N_DTYPES; k++) {
        NdArray *a = sample(all_dtypes[k], ND_SHAPE(2, 3));
        NdArray *d = on(device, a);
        for (int64_t i = 0; i < a->size; i++)
            EXPECT_DOUBLE(nd_get_flat(d, i), nd_get_flat(a, i));
        nd_set_flat(a, 4, 7.0);
        nd_set_flat(d, 4, 7.0);
        expect_same(device, nd_copy(a), nd_retain(d));
        EXPECT_ND_ERROR(nd_get_flat(d, 6), "out of bounds");
        NdArray *s = nd_sum(d, ND_ALL_AXES, false), *t = nd_sum(a, ND_ALL_AXES,
                                                                false);
        EXPECT_NEAR(nd_item(s), nd_item(t), 1e-5 * (1 + fabs(nd_item(t))));
        RELEASE(a, d, s, t);
    }
}

/* A one-element array goes to the device as its value (a fill, which
 * the host does not wait for) where a double holds it exactly, and is
 * copied otherwise: either way it comes back bit for bit, int64 beyond
 * 2^53, NaN, -0.0 and complex numbers included. */
static void test_numbers_moved(void **state)
{
    NdDevice device = device_of(state);
    static const double reals[] = {-0.0, 0.1, NAN, -INFINITY, 255, 1e300};
    static const int64_t ints[] = {
        INT64_MIN, INT64_MAX, (1LL << 53) + 1, -(1LL << 53), 7,
    };
    for (int k = 0; k < N_DTYPES; k++) {
        NdDtype dtype = all_dtypes[k];
        for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
            NdArray *a = nd_full(dtype, ND_SHAPE(1, 1), reals[i]);
            NdArray *d = on(device, a), *back = nd_to_device(d, ND_CPU);
            assert_int_equal(d->ndim, 2);
            assert_memory_equal(back->data, a->data, nd_nbytes(a));
            RELEASE(a, d, back);
        }
        if (dtype == ND_COMPLEX128) {
            NdArray *z = nd_empty(dtype, ND_SCALAR_SHAPE);
            ((double *)z->data)[0] = 1.5;
            ((double *)z->data)[1] = -2.25;
            NdArray *d = on(device, z), *back = nd_to_device(d, ND_CPU);
            assert_memory_equal(back->data, z->data, nd_nbytes(z));
            RELEASE(z, d, back);
        }
    }
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        NdArray *a = nd_empty(ND_INT64, ND_SCALAR_SHAPE);
        ((int64_t *)a->data)[0] = ints[i];
        NdArray *d = on(device, a), *back = nd_to_device(d, ND_CPU);
        assert_int_equal(((int64_t *)back->data)[0], ints[i]);
        RELEASE(a, d, back);
    }
}

/* nd_arange_on: made on the device by a kernel, NumPy's roundings. */
static void test_arange(void **state)
{
    NdDevice device = device_of(state);
    NdDtype dtypes[] = {ND_UINT8, ND_INT64, ND_FLOAT32, ND_FLOAT64};
    for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
        expect_same(device, nd_arange(1, 7.4, 0.1, dtypes[k]),
                    nd_arange_on(device, 1, 7.4, 0.1, dtypes[k]));
        expect_same(device, nd_arange(0, 70000, 1, dtypes[k]),
                    nd_arange_on(device, 0, 70000, 1, dtypes[k]));
        expect_same(device, nd_arange(3, 3, 1, dtypes[k]),
                    nd_arange_on(device, 3, 3, 1, dtypes[k]));
    }
    EXPECT_ND_ERROR(nd_arange_on(device, 0, 1, 0, ND_INT64),
                    "step must not be zero");
}

static void test_filled_like(void **state)
{
    NdDevice device = device_of(state);
    for (int k = 0; k < N_DTYPES; k++) {
        NdArray *a = sample(all_dtypes[k], ND_SHAPE(3, 2));
        NdArray *d = on(device, a);
        expect_same(device, nd_zeros_like(a), nd_zeros_like(d));
        expect_same(device, nd_ones_like(a), nd_ones_like(d));
        expect_same(device, nd_full_like(a, -2.5), nd_full_like(d, -2.5));
        expect_same(device, nd_copy(a), nd_copy(d));
        NdDtype dtype = all_dtypes[k];
        expect_same(device, nd_full(dtype, ND_SHAPE(3, 2), -2.5),
                    nd_full_on(device, dtype, ND_SHAPE(3, 2), -2.5));
        expect_same(device, nd_full(dtype, ND_SCALAR_SHAPE, 0.5),
                    nd_full_on(device, dtype, ND_SCALAR_SHAPE, 0.5));
        RELEASE(a, d);
    }
}

/* Every pair of dtypes, including the truncations and wrap-arounds. */
static void test_astype(void **state)
{
    NdDevice device = device_of(state);
    for (int from = 0; from < N_DTYPES; from++) {
        NdArray *a = sample(all_dtypes[from], ND_SHAPE(4, 5));
        NdArray *big = nd_scalar(300.75);          /* uint8 wraps it */
        NdArray *b = nd_astype(big, all_dtypes[from]);
        NdArray *da = on(device, a), *db = on(device, b);
        for (int to = 0; to < N_DTYPES; to++) {
            expect_same(device, nd_astype(a, all_dtypes[to]),
                        nd_astype(da, all_dtypes[to]));
            expect_same(device, nd_astype(b, all_dtypes[to]),
                        nd_astype(db, all_dtypes[to]));
        }
        RELEASE(a, big, b, da, db);
    }
}

/* Floats that no integer holds: a CUDA cast saturates them, NumPy (and
 * the host) gives INT64_MIN and, for uint8, its low byte; the device
 * must give NumPy's answer too. */
static void test_astype_out_of_range(void **state)
{
    NdDevice device = device_of(state);
    NdDtype floats[] = {ND_FLOAT64, ND_FLOAT32};
    for (int f = 0; f < 2; f++) {
        NdArray *x = nd_from_buffer(ND_FLOAT64, ND_SHAPE(9), (double[]){
            NAN, INFINITY, -INFINITY, 1e19, -1e19, 3.7, -3.7, 300.0, -1.0});
        NdArray *a = nd_astype(x, floats[f]), *da = on(device, a);
        expect_same(device, nd_astype(a, ND_INT64), nd_astype(da, ND_INT64));
        expect_same(device, nd_astype(a, ND_UINT8), nd_astype(da, ND_UINT8));
        RELEASE(x, a, da);
    }
}

/* copyto broadcasts and casts; the in-place updates write into dst with
 * the binary kernels, and nd_isub_scaled either through them or, for
 * operands of one shape and float dtype (SGD's), in one kernel, float32
 * and float64. */
static void test_in_place(void **state)
{
    NdDevice device = device_of(state);
    NdArray *dst = sample(ND_FLOAT32, ND_SHAPE(3, 4));
    NdArray *src = sample(ND_INT64, ND_SHAPE(4));
    NdArray *v = sample(ND_FLOAT64, ND_SHAPE(3, 1));
    NdArray *ddst = on(device, dst), *dsrc = on(device, src);
    NdArray *dv = on(device, v);
    nd_copyto(dst, src);
    nd_copyto(ddst, dsrc);
    expect_same(device, nd_copy(dst), nd_copy(ddst));
    nd_iadd(dst, v);
    nd_iadd(ddst, dv);
    nd_isub(dst, src);
    nd_isub(ddst, dsrc);
    nd_imul(dst, v);
    nd_imul(ddst, dv);
    nd_isub_scaled(dst, 0.01, v);
    nd_isub_scaled(ddst, 0.01, dv);
    expect_same(device, nd_copy(dst), nd_copy(ddst));
    for (int f = 0; f < 2; f++) {
        NdDtype dtype = f ? ND_FLOAT64 : ND_FLOAT32;
        NdArray *w = sample(dtype, ND_SHAPE(70000));
        NdArray *g = sample(dtype, ND_SHAPE(70000));
        NdArray *dw = on(device, w), *dg = on(device, g);
        nd_isub_scaled(w, 0.0123, g);
        nd_isub_scaled(dw, 0.0123, dg);
        nd_isub_scaled(w, 0.5, w);          /* v is dst itself */
        nd_isub_scaled(dw, 0.5, dw);
        expect_same(device, nd_copy(w), nd_copy(dw));
        RELEASE(w, g, dw, dg);
    }
    EXPECT_ND_ERROR(nd_copyto(dsrc, ddst), "could not broadcast");
    RELEASE(dst, src, v, ddst, dsrc, dv);
}

/* nd_isub_scaled_each on the device as nd_isub_scaled pair by pair on
 * the host: float32 and float64 pairs (a launch each), a pair that is
 * its own v, an empty one, one of several blocks, a broadcast v and an
 * int64 v (pair by pair on the device too); 70 pairs, more than one
 * launch takes; and two pairs that share a dst, which must be updated
 * in turn. A pair of the wrong shape is refused before any is updated. */
static void test_scaled_sub_each(void **state)
{
    NdDevice device = device_of(state);
    enum { PAIRS = 7, MANY = 70 };
    static const Shape shapes[PAIRS][2] = {
        {{2, {3, 4}}, {2, {3, 4}}},    {{1, {10}}, {1, {10}}},
        {{1, {0}}, {1, {0}}},          {{1, {70000}}, {1, {70000}}},
        {{2, {3, 4}}, {2, {3, 1}}},    {{1, {5}}, {1, {5}}},
        {{1, {6}}, {1, {6}}},
    };
    static const NdDtype dtypes[PAIRS][2] = {
        {ND_FLOAT32, ND_FLOAT32}, {ND_FLOAT64, ND_FLOAT64},
        {ND_FLOAT32, ND_FLOAT32}, {ND_FLOAT32, ND_FLOAT32},
        {ND_FLOAT64, ND_FLOAT64}, {ND_FLOAT64, ND_INT64},
        {ND_FLOAT32, ND_FLOAT32},
    };
    NdArray *dst[PAIRS], *v[PAIRS], *ddst[PAIRS], *dv[PAIRS];
    for (int k = 0; k < PAIRS; k++) {
        dst[k] = sample(dtypes[k][0], SHAPE_OF(shapes[k][0]));
        v[k] = k == 1 ? nd_copy(dst[k])
                      : sample(dtypes[k][1], SHAPE_OF(shapes[k][1]));
        ddst[k] = on(device, dst[k]);
        dv[k] = k == 1 ? nd_copy(ddst[k]) : on(device, v[k]);
    }
    nd_release(v[1]);
    nd_release(dv[1]);
    v[1] = dst[1];                          /* its own v */
    dv[1] = ddst[1];
    for (int k = 0; k < PAIRS; k++)
        nd_isub_scaled(dst[k], 0.0123, v[k]);
    nd_isub_scaled_each(PAIRS, ddst, 0.0123, (const NdArray **)dv);
    for (int k = 0; k < PAIRS; k++)
        expect_same(device, nd_copy(dst[k]), nd_copy(ddst[k]));
    /* pairs 0 and 6 sharing a dst: in turn, as two calls */
    NdArray *shared[2] = {ddst[0], ddst[0]};
    const NdArray *twice[2] = {dv[0], dv[0]};
    nd_isub_scaled(dst[0], 0.5, v[0]);
    nd_isub_scaled(dst[0], 0.5, v[0]);
    nd_isub_scaled_each(2, shared, 0.5, twice);
    expect_same(device, nd_copy(dst[0]), nd_copy(ddst[0]));
    /* a v of the wrong shape for its dst: nothing is updated */
    NdArray *before = nd_to_device(ddst[3], ND_CPU);
    const NdArray *bad[2] = {dv[3], dv[0]};
    NdArray *pair_dsts[2] = {ddst[3], ddst[1]};
    EXPECT_ND_ERROR(nd_isub_scaled_each(2, pair_dsts, 0.5, bad),
                    "nd_isub_scaled_each: operands could not be broadcast "
                    "together");
    expect_same(device, before, nd_copy(ddst[3]));
    for (int k = 0; k < PAIRS; k++) {
        if (k != 1)
            RELEASE(v[k], dv[k]);
        RELEASE(dst[k], ddst[k]);
    }
    /* more pairs than one launch takes */
    NdArray *w[MANY], *g[MANY], *dw[MANY], *dg[MANY];
    for (int k = 0; k < MANY; k++) {
        w[k] = sample(ND_FLOAT32, ND_SHAPE(k + 1));
        g[k] = sample(ND_FLOAT32, ND_SHAPE(k + 1));
        dw[k] = on(device, w[k]);
        dg[k] = on(device, g[k]);
        nd_isub_scaled(w[k], 0.25, g[k]);
    }
    nd_isub_scaled_each(MANY, dw, 0.25, (const NdArray **)dg);
    for (int k = 0; k < MANY; k++) {
        expect_same(device, nd_copy(w[k]), nd_copy(dw[k]));
        RELEASE(w[k], g[k], dw[k], dg[k]);
    }
}

/* ------------------------------------------------------------ elementwise */

/* Operand shapes: equal, a 0-d operand on either side, broadcasting
 * both ways, a longer array (several blocks) and an empty one. */
static const Shape binary_shapes[][2] = {
    {{2, {2, 3}}, {2, {2, 3}}},
    {{2, {2, 3}}, {0, {0}}},
    {{0, {0}}, {2, {2, 3}}},
    {{0, {0}}, {0, {0}}},
    {{2, {3, 1}}, {2, {1, 4}}},
    {{3, {2, 3, 4}}, {1, {4}}},
    {{3, {2, 1, 4}}, {2, {3, 1}}},
    {{1, {70000}}, {1, {70000}}},
    {{2, {0, 3}}, {1, {3}}},
};

typedef NdArray *(*SampleFn)(NdDtype, int, const int64_t *);

/* op over every dtype and shape pair, then over every pair of dtypes;
 * b's values from make_b. Where the host refuses, so must the device. */
static void check_binary(NdDevice device, BinaryFn op, SampleFn make_b)
{
    the.binary = op;
    for (size_t s = 0; s < sizeof binary_shapes / sizeof binary_shapes[0];
         s++) {
        for (int k = 0; k < N_DTYPES; k++) {
            NdDtype dtype = all_dtypes[k];
            NdArray *a = sample(dtype, SHAPE_OF(binary_shapes[s][0]));
            NdArray *b = make_b(dtype, SHAPE_OF(binary_shapes[s][1]));
            EXPECT_BOTH(device, call_binary, ELEMENT_ULPS, a, b);
            RELEASE(a, b);
        }
    }
    for (int i = 0; i < N_DTYPES; i++) {
        for (int j = 0; j < N_DTYPES; j++) {
            NdArray *a = sample(all_dtypes[i], ND_SHAPE(2, 3));
            NdArray *b = make_b(all_dtypes[j], ND_SHAPE(3));
            EXPECT_BOTH(device, call_binary, ELEMENT_ULPS, a, b);
            RELEASE(a, b);
        }
    }
}

/* Exponents that integers accept: 0..3; positive bases for floats. */
static NdArray *small_powers(NdDtype dtype, int ndim, const int64_t *shape)
{
    if (nd_dtype_is_float(dtype) || nd_dtype_is_complex(dtype))
        return positive(dtype, ndim, shape);
    NdArray *x = nd_random_randint(0, 4, ndim, shape);
    NdArray *y = nd_astype(x, dtype);
    nd_release(x);
    return y;
}

#define BINARY_TEST(NAME)                                                 \
    static void test_##NAME(void **state)                                 \
    {                                                                     \
        check_binary(device_of(state), nd_##NAME, sample);                \
    }

BINARY_TEST(add)
BINARY_TEST(sub)
BINARY_TEST(mul)
BINARY_TEST(div)
BINARY_TEST(maximum)
BINARY_TEST(minimum)
BINARY_TEST(equal)
BINARY_TEST(not_equal)
BINARY_TEST(less)
BINARY_TEST(less_equal)
BINARY_TEST(greater)
BINARY_TEST(greater_equal)

/* Random powers (negative integer exponents are refused on both
 * devices), then exponents that integers accept. */
static void test_pow(void **state)
{
    NdDevice device = device_of(state);
    check_binary(device, nd_pow, sample);
    check_binary(device, nd_pow, small_powers);
}

/* NaN, infinities and signed zeros through the binary operations. */
static void test_nan_and_infinity(void **state)
{
    NdDevice device = device_of(state);
    const double values[] = {NAN, 1.0, -INFINITY, INFINITY, 0.0, -0.0};
    NdArray *a = nd_from_buffer(ND_FLOAT64, ND_SHAPE(6, 1), values);
    NdArray *b = nd_from_buffer(ND_FLOAT64, ND_SHAPE(6), values);
    static const BinaryFn ops[] = {nd_add, nd_sub, nd_mul, nd_div, nd_pow,
                                   nd_maximum, nd_minimum, nd_equal,
                                   nd_less, nd_greater_equal};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        the.binary = ops[i];
        EXPECT_BOTH(device, call_binary, ELEMENT_ULPS, a, b);
    }
    RELEASE(a, b);
}

static void check_unary(NdDevice device, UnaryFn op, bool positive_only)
{
    static const Shape shapes[] = {{0, {0}}, {2, {3, 4}}, {1, {70000}},
                                   {2, {0, 2}}};
    the.unary = op;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        for (int k = 0; k < N_DTYPES; k++) {
            NdDtype dtype = all_dtypes[k];
            NdArray *a = nd_dtype_is_complex(dtype)
                             ? near_origin(dtype, SHAPE_OF(shapes[s]))
                         : positive_only && dtype != ND_BOOL
                             ? positive(dtype, SHAPE_OF(shapes[s]))
                             : sample(dtype, SHAPE_OF(shapes[s]));
            EXPECT_BOTH(device, call_unary, ELEMENT_ULPS, a);
            nd_release(a);
        }
    }
}

#define UNARY_TEST(NAME, POSITIVE)                                        \
    static void test_##NAME(void **state)                                 \
    {                                                                     \
        check_unary(device_of(state), nd_##NAME, POSITIVE);               \
    }

UNARY_TEST(neg, false)
UNARY_TEST(exp, false)
UNARY_TEST(log, true)
UNARY_TEST(sin, false)
UNARY_TEST(cos, false)
UNARY_TEST(tanh, false)
UNARY_TEST(sqrt, true)
UNARY_TEST(abs, false)

/* nd_sigmoid, nd_sigmoid_grad, nd_softmax and nd_log_softmax: one
 * kernel each where the GPU takes the operands (float, of one shape;
 * along the last axis, rows of up to ND_GPU_SOFTMAX_ROW), the chain of
 * operations otherwise (along axis 0, rows of 5000, integers): the
 * host's results either way, within
 * SUM_ULPS where a sum is taken, at the size of the log-softmax's terms
 * x and logsumexp(x) (under 16 here). A row of nothing is refused as
 * np.max refuses it. */
static void test_fused(void **state)
{
    NdDevice device = device_of(state);
    static const Shape shapes[] = {
        {2, {100, 10}}, {3, {2, 3, 4}}, {1, {7}}, {2, {3, 5000}},
    };
    static const NdDtype dtypes[] = {ND_FLOAT32, ND_FLOAT64, ND_INT64};
    for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            NdArray *a = sample(dtypes[k], SHAPE_OF(shapes[s]));
            NdArray *d = on(device, a);
            expect_close(device, nd_sigmoid(a), nd_sigmoid(d),
                         ELEMENT_ULPS, 0.5);
            expect_close(device, nd_sigmoid_grad(a, a),
                         nd_sigmoid_grad(d, d), ELEMENT_ULPS, 1);
            expect_close(device, nd_normalize(a, 0.1307, 0.3081),
                         nd_normalize(d, 0.1307, 0.3081), ELEMENT_ULPS, 1);
            for (int axis = -1; axis <= 0; axis++) {
                expect_close(device, nd_softmax(a, axis),
                             nd_softmax(d, axis), SUM_ULPS, 0);
                expect_close(device, nd_log_softmax(a, axis),
                             nd_log_softmax(d, axis), SUM_ULPS, 16);
            }
            RELEASE(a, d);
        }
    }
    NdArray *empty = nd_empty_on(device, ND_FLOAT32, ND_SHAPE(3, 0));
    EXPECT_ND_ERROR(nd_softmax(empty, 1), "zero-size array");
    EXPECT_ND_ERROR(nd_log_softmax(empty, -1), "zero-size array");
    EXPECT_ND_ERROR(nd_softmax(empty, 2), "nd_softmax: axis 2 is out of "
                    "bounds for array of dimension 2");
    EXPECT_ND_ERROR(nd_log_softmax(empty, -3), "nd_log_softmax: axis -3");
    nd_release(empty);
}

/* nd_softmax_cross_entropy and its gradient: one kernel each for 100
 * rows of 10 classes, the chain for rows of 5000 classes, and for the
 * loss of 5000 rows, with uint8 and int64 labels: the host's results
 * within SUM_ULPS (a softmax is in them) of the scores' dtype, at the
 * size of the terms: log-softmaxes under 16, for the gradient 1/N.
 * Float32 scores with int64 labels give a float64 gradient, compared
 * as float32, the dtype its error is in. */
static void test_cross_entropy(void **state)
{
    NdDevice device = device_of(state);
    static const int64_t shapes[][2] = {{100, 10}, {100, 5000}, {5000, 10}};
    static const NdDtype floats[] = {ND_FLOAT32, ND_FLOAT64};
    static const NdDtype label_dtypes[] = {ND_UINT8, ND_INT64};
    for (int c = 0; c < 3; c++) {
        int64_t N = shapes[c][0], C = shapes[c][1];
        for (int k = 0; k < 2; k++) {
            for (int l = 0; l < 2; l++) {
                NdArray *x = sample(floats[k], ND_SHAPE(N, C));
                int64_t high = C < 256 ? C : 256;
                NdArray *picks = nd_random_randint(0, high, ND_SHAPE(N));
                NdArray *t = nd_astype(picks, label_dtypes[l]);
                NdArray *gy = nd_scalar_of(floats[l], 1.0);
                NdArray *dx = on(device, x), *dt = on(device, t);
                NdArray *dgy = on(device, gy);
                expect_close(device, nd_softmax_cross_entropy(x, t),
                             nd_softmax_cross_entropy(dx, dt), SUM_ULPS,
                             16);
                NdArray *want = nd_softmax_cross_entropy_grad(x, t, gy);
                NdArray *got = nd_softmax_cross_entropy_grad(dx, dt, dgy);
                if (want->dtype != x->dtype) {
                    NdArray *want32 = nd_astype(want, x->dtype);
                    NdArray *got32 = nd_astype(got, x->dtype);
                    RELEASE(want, got);
                    want = want32;
                    got = got32;
                }
                expect_close(device, want, got, SUM_ULPS, 1.0 / N);
                RELEASE(x, picks, t, gy, dx, dt, dgy);
            }
        }
    }
    NdArray *flat = nd_full_on(device, ND_FLOAT32, ND_SHAPE(3), 0);
    NdArray *t = nd_full_on(device, ND_INT64, ND_SHAPE(3), 0);
    NdArray *floats3 = nd_full_on(device, ND_FLOAT32, ND_SHAPE(3), 0);
    NdArray *x = nd_full_on(device, ND_FLOAT32, ND_SHAPE(3, 2), 0);
    NdArray *gy = nd_full_on(device, ND_FLOAT32, ND_SCALAR_SHAPE, 1);
    EXPECT_ND_ERROR(nd_softmax_cross_entropy(flat, t),
                    "nd_softmax_cross_entropy: the scores must be 2-D "
                    "(samples, classes), got 1 axes");
    EXPECT_ND_ERROR(nd_softmax_cross_entropy_grad(flat, t, gy),
                    "nd_softmax_cross_entropy_grad: the scores must be "
                    "2-D (samples, classes), got 1 axes");
    EXPECT_ND_ERROR(nd_softmax_cross_entropy_grad(x, floats3, gy),
                    "want 3 integer labels, one per row of the scores; "
                    "got 3 of dtype float32");
    RELEASE(flat, t, floats3, x, gy);
}

static void test_where(void **state)
{
    NdDevice device = device_of(state);
    for (int k = 0; k < N_DTYPES; k++) {
        NdArray *cond = sample(ND_BOOL, ND_SHAPE(2, 1, 4));
        NdArray *icond = sample(ND_INT64, ND_SHAPE(4));   /* cast to bool */
        NdArray *a = sample(all_dtypes[k], ND_SHAPE(3, 1));
        NdArray *b = sample(all_dtypes[k], ND_SHAPE(3, 4));
        NdArray *b0 = nd_scalar_of(ND_FLOAT32, 0.5);       /* 0-d */
        EXPECT_BOTH(device, call_where, 0, cond, a, b);
        EXPECT_BOTH(device, call_where, 0, icond, a, b0);
        EXPECT_BOTH(device, call_where, 0, icond, b, cond);  /* bools */
        RELEASE(cond, icond, a, b, b0);
    }
}

static void test_clip(void **state)
{
    NdDevice device = device_of(state);
    static const double bounds[][2] = {{-0.5, 0.75}, {2.5, 100}, {0, 0}};
    for (int k = 0; k < N_DTYPES; k++) {
        NdArray *a = sample(all_dtypes[k], ND_SHAPE(5, 7));
        for (int i = 0; i < 3; i++) {
            the.lo = bounds[i][0];
            the.hi = bounds[i][1];
            EXPECT_BOTH(device, call_clip, 0, a);
        }
        nd_release(a);
    }
}

/* allclose and array_equal answer on the device as on the host. */
static void test_comparing_arrays(void **state)
{
    NdDevice device = device_of(state);
    NdArray *a = sample(ND_FLOAT64, ND_SHAPE(4, 3));
    NdArray *near = nd_scalar(1e-9);
    NdArray *b = nd_add(a, near);
    NdArray *row = nd_getitem(a, 1, (NdIndex[]){ND_IDX_INT(0)});
    NdArray *da = on(device, a), *db = on(device, b), *drow = on(device, row);
    assert_int_equal(nd_allclose(da, db, 1e-5, 1e-8),
                     nd_allclose(a, b, 1e-5, 1e-8));
    assert_int_equal(nd_allclose(da, db, 0, 1e-12),
                     nd_allclose(a, b, 0, 1e-12));
    assert_int_equal(nd_allclose(da, drow, 1e-5, 1e-8),
                     nd_allclose(a, row, 1e-5, 1e-8));
    assert_int_equal(nd_array_equal(da, da), nd_array_equal(a, a));
    assert_int_equal(nd_array_equal(da, db), nd_array_equal(a, b));
    assert_int_equal(nd_array_equal(da, drow), nd_array_equal(a, row));
    RELEASE(a, near, b, row, da, db, drow);
}

/* ------------------------------------------------------------ reductions */

typedef struct Axes {
    int n;                  /* -1: every axis */
    int axes[3];
} Axes;

/* op over sets of axes of a (4, 5, 6) array, an empty one and long ones
 * (whose reductions split over blocks), and of a 0-d one; every dtype. */
static void check_reduction(NdDevice device, ReduceFn op, double max_ulps)
{
    static const Axes axes[] = {{-1, {0}}, {1, {0}}, {1, {1}}, {1, {2}},
                                {1, {-1}}, {2, {0, 2}}, {2, {1, 2}},
                                {3, {0, 1, 2}}, {0, {0}}, {1, {3}},
                                {2, {1, 1}}};
    static const Shape shapes[] = {{3, {4, 5, 6}}, {3, {2, 0, 3}},
                                   {3, {300, 1, 700}}, {3, {1, 70000, 2}},
                                   {0, {0}}};
    the.reduce = op;
    for (int k = 0; k < N_DTYPES; k++) {
        NdDtype dtype = all_dtypes[k];
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            NdArray *a = sample(dtype, SHAPE_OF(shapes[s]));
            for (size_t x = 0; x < sizeof axes / sizeof axes[0]; x++) {
                the.naxes = axes[x].n;
                the.axes = axes[x].n < 0 ? NULL : axes[x].axes;
                for (int keep = 0; keep < 2; keep++) {
                    the.keepdims = keep;
                    EXPECT_BOTH(device, call_reduce, max_ulps, a);
                }
            }
            nd_release(a);
        }
    }
}

static void test_sum(void **state)
{
    check_reduction(device_of(state), nd_sum, SUM_ULPS);
}

static void test_mean(void **state)
{
    check_reduction(device_of(state), nd_mean, SUM_ULPS);
}

static void test_max(void **state)
{
    check_reduction(device_of(state), nd_max, 0);
}

static void test_min(void **state)
{
    check_reduction(device_of(state), nd_min, 0);
}

/* A NaN wins max and min wherever it is, and spoils a sum. */
static void test_reductions_with_nan(void **state)
{
    NdDevice device = device_of(state);
    NdArray *a = sample(ND_FLOAT32, ND_SHAPE(40, 3000));
    nd_set_flat(a, 3 * 3000 + 17, NAN);
    nd_set_flat(a, 39 * 3000 + 2999, NAN);
    static const ReduceFn ops[] = {nd_max, nd_min, nd_sum};
    static const Axes axes[] = {{-1, {0}}, {1, {0}}, {1, {1}}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        the.reduce = ops[i];
        for (size_t x = 0; x < sizeof axes / sizeof axes[0]; x++) {
            the.naxes = axes[x].n;
            the.axes = axes[x].n < 0 ? NULL : axes[x].axes;
            the.keepdims = x == 2;
            EXPECT_BOTH(device, call_reduce, SUM_ULPS, a);
        }
    }
    nd_release(a);
}

/* The first maximum (integer samples have many ties), or the first
 * NaN; long arrays split over blocks. */
/* Column reductions of a tall array (results along the kept innermost
 * axis, neighbours in memory), with more results than one block takes
 * and reduced lengths that do not divide into the chunks evenly. */
static void test_column_reductions(void **state)
{
    NdDevice device = device_of(state);
    static const NdDtype dtypes[] = {ND_FLOAT64, ND_FLOAT32, ND_INT64};
    static const ReduceFn ops[] = {nd_sum, nd_max, nd_mean};
    for (size_t k = 0; k < 3; k++) {
        NdArray *a = sample(dtypes[k], ND_SHAPE(4001, 1030));
        the.naxes = 1;
        the.axes = (const int[]){0};
        the.keepdims = false;
        for (size_t op = 0; op < 3; op++) {
            if (ops[op] == nd_mean && dtypes[k] == ND_INT64)
                continue;
            the.reduce = ops[op];
            EXPECT_BOTH(device, call_reduce, SUM_ULPS, a);
        }
        the.axis = 0;
        EXPECT_BOTH(device, call_argmax, 0, a);
        nd_release(a);
    }
}

static void test_argmax(void **state)
{
    NdDevice device = device_of(state);
    static const Shape shapes[] = {{3, {4, 5, 6}}, {2, {300, 700}},
                                   {1, {200000}}, {2, {3, 0}},
                                   {0, {0}}};
    static const int axes[] = {ND_NO_AXIS, 0, 1, 2, -1};
    for (int k = 0; k < N_DTYPES; k++) {
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            NdArray *a = sample(all_dtypes[k], SHAPE_OF(shapes[s]));
            if (nd_dtype_is_float(a->dtype) && a->size > 100) {
                nd_set_flat(a, 77, NAN);
                nd_set_flat(a, a->size - 1, NAN);
            }
            for (size_t x = 0; x < sizeof axes / sizeof axes[0]; x++) {
                the.axis = axes[x];
                EXPECT_BOTH(device, call_argmax, 0, a);
            }
            nd_release(a);
        }
    }
}

/* ------------------------------------------------------------ shapes */

static void test_reshape_and_views(void **state)
{
    NdDevice device = device_of(state);
    NdArray *a = sample(ND_FLOAT64, ND_SHAPE(2, 3, 4));
    NdArray *da = on(device, a);
    expect_same(device, nd_reshape(a, ND_SHAPE(4, -1)),
                nd_reshape(da, ND_SHAPE(4, -1)));
    expect_same(device, nd_expand_dims(a, 1), nd_expand_dims(da, 1));
    NdArray *e = nd_expand_dims(a, -1), *de = nd_expand_dims(da, -1);
    expect_same(device, nd_squeeze(e, ND_ALL_AXES),
                nd_squeeze(de, ND_ALL_AXES));
    expect_same(device, nd_flatten(a), nd_flatten(da));
    /* A view keeps its base alive: release the base first. */
    NdArray *view = nd_reshape(da, ND_SHAPE(24));
    nd_release(da);
    expect_same(device, nd_reshape(a, ND_SHAPE(24)), view);
    RELEASE(a, e, de);
}

static void test_transpose(void **state)
{
    NdDevice device = device_of(state);
    for (int k = 0; k < N_DTYPES; k++) {
        NdArray *m = sample(all_dtypes[k], ND_SHAPE(33, 65));
        NdArray *a = sample(all_dtypes[k], ND_SHAPE(2, 3, 4, 5));
        NdArray *dm = on(device, m), *da = on(device, a);
        expect_same(device, nd_transpose(m, 0, NULL),
                    nd_transpose(dm, 0, NULL));
        expect_same(device, nd_transpose(a, 0, NULL),
                    nd_transpose(da, 0, NULL));
        expect_same(device, nd_transpose(a, ND_AXES(2, 0, 3, 1)),
                    nd_transpose(da, ND_AXES(2, 0, 3, 1)));
        RELEASE(m, a, dm, da);
    }
}

static void test_broadcast_and_sum_to(void **state)
{
    NdDevice device = device_of(state);
    static const Shape targets[] = {{2, {3, 1}}, {1, {4}}, {3, {1, 3, 4}},
                                    {2, {2, 4}}};
    for (int k = 0; k < N_DTYPES; k++) {
        NdArray *a = sample(all_dtypes[k], ND_SHAPE(3, 1));
        NdArray *da = on(device, a);
        NdArray *b = nd_broadcast_to(a, ND_SHAPE(2, 3, 4));
        NdArray *db = nd_broadcast_to(da, ND_SHAPE(2, 3, 4));
        expect_same(device, nd_copy(b), nd_copy(db));
        for (int t = 0; t < 4; t++) {
            the.ndim = targets[t].ndim;
            the.shape = targets[t].dims;
            EXPECT_BOTH(device, call_sum_to, SUM_ULPS, b);
        }
        RELEASE(a, da, b, db);
    }
}

static void test_concatenate_and_stack(void **state)
{
    NdDevice device = device_of(state);
    for (int k = 0; k < N_DTYPES; k++) {
        NdArray *h[3], *d[3];
        for (int i = 0; i < 3; i++) {
            h[i] = sample(all_dtypes[k], ND_SHAPE(2, 3, 4));
            d[i] = on(device, h[i]);
        }
        for (int axis = -1; axis < 3; axis++) {
            expect_same(device, nd_concatenate(3, h, axis),
                        nd_concatenate(3, d, axis));
            expect_same(device, nd_stack(3, h, axis), nd_stack(3, d, axis));
        }
        RELEASE(h[0], h[1], h[2], d[0], d[1], d[2]);
    }
}

/* ------------------------------------------------------------ linalg */

static void test_matmul(void **state)
{
    NdDevice device = device_of(state);
    static const Shape pairs[][2] = {
        {{2, {3, 4}}, {2, {4, 5}}}, {{1, {4}}, {2, {4, 5}}},
        {{2, {3, 4}}, {1, {4}}}, {{1, {4}}, {1, {4}}},
        {{2, {100, 784}}, {2, {784, 30}}}, {{2, {3, 0}}, {2, {0, 2}}},
        {{2, {3, 4}}, {2, {5, 4}}},                 /* refused */
    };
    static const BinaryFn ops[] = {nd_matmul, nd_dot};
    for (int k = 0; k < N_DTYPES; k++) {
        NdDtype dtype = all_dtypes[k];
        for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
            NdArray *a = sample(dtype, SHAPE_OF(pairs[p][0]));
            NdArray *b = sample(dtype, SHAPE_OF(pairs[p][1]));
            for (int i = 0; i < 2; i++) {
                the.binary = ops[i];
                EXPECT_BOTH(device, call_binary, SUM_ULPS, a, b);
            }
            RELEASE(a, b);
        }
    }
}

/* An integer product with more rows than one launch has row tiles for
 * (65,535 tiles of 16 rows): the kernel must loop over the rest. */
static void test_matmul_many_rows(void **state)
{
    NdDevice device = device_of(state);
    NdArray *a = sample(ND_INT64, ND_SHAPE(1100000, 2));
    NdArray *b = sample(ND_INT64, ND_SHAPE(2, 3));
    the.binary = nd_matmul;
    EXPECT_BOTH(device, call_binary, 0.0, a, b);
    RELEASE(a, b);
}

/* op(a) @ op(b) for the four flag pairs: no copies on either device. */
static void test_matmul_t(void **state)
{
    NdDevice device = device_of(state);
    static const NdDtype dtypes[] = {ND_FLOAT32, ND_FLOAT64, ND_INT64,
                                     ND_COMPLEX128};
    for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
        for (int ta = 0; ta < 2; ta++) {
            for (int tb = 0; tb < 2; tb++) {
                NdArray *a = ta ? sample(dtypes[k], ND_SHAPE(37, 19))
                                : sample(dtypes[k], ND_SHAPE(19, 37));
                NdArray *b = tb ? sample(dtypes[k], ND_SHAPE(23, 37))
                                : sample(dtypes[k], ND_SHAPE(37, 23));
                the.trans_a = ta;
                the.trans_b = tb;
                EXPECT_BOTH(device, call_matmul_t, SUM_ULPS, a, b);
                the.trans_a = !ta;              /* shapes do not fit */
                EXPECT_BOTH(device, call_matmul_t, SUM_ULPS, a, b);
                RELEASE(a, b);
            }
        }
    }
}

/* ------------------------------------------------------------ indexing */

#define INT(n) ND_IDX_INT(n)
#define SLICE(a, b, s) ND_IDX_SLICE(a, b, s)
#define ALL ND_IDX_ALL
#define ARR ND_IDX_ARRAY(NULL)          /* the next operand */
#define NONE ND_NONE
#define IDX(ndim_shape, ...) \
    nd_from_buffer(ND_INT64, ndim_shape, (const int64_t[]){__VA_ARGS__})

/* Sets the index of the next getitem or add_at call. */
#define SET_INDEX(...)                                                    \
    do {                                                                  \
        const NdIndex entries_[] = {__VA_ARGS__};                         \
        the.nindex = (int)(sizeof entries_ / sizeof entries_[0]);         \
        memcpy(the.index, entries_, sizeof entries_);                     \
    } while (0)

static void test_getitem(void **state)
{
    NdDevice device = device_of(state);
    NdArray *rows = IDX(ND_SHAPE(4), 0, 4, -1, 2);
    NdArray *cols = IDX(ND_SHAPE(4), 1, 0, 3, 3);
    NdArray *grid = IDX(ND_SHAPE(2, 1), 1, -2);
    NdArray *bad = IDX(ND_SHAPE(2), 1, 5);
    /* several culprits: the kernel may meet any first, the message
     * names the host's first (9, axis 0) */
    NdArray *bad_rows = IDX(ND_SHAPE(4), 0, 9, -7, 1);
    NdArray *bad_cols = IDX(ND_SHAPE(4), 1, 0, 8, -5);
    NdArray *floats = nd_zeros(ND_FLOAT64, ND_SHAPE(2));
    for (int k = 0; k < N_DTYPES; k++) {
        NdArray *x = sample(all_dtypes[k], ND_SHAPE(5, 4, 3));
        SET_INDEX(INT(1));                                  /* x[1] */
        EXPECT_BOTH(device, call_getitem, 0, x);
        SET_INDEX(INT(-1), SLICE(1, 3, 1));                 /* x[-1, 1:3] */
        EXPECT_BOTH(device, call_getitem, 0, x);
        SET_INDEX(SLICE(NONE, NONE, -1), ALL, SLICE(NONE, NONE, 2));
        EXPECT_BOTH(device, call_getitem, 0, x);        /* x[::-1, :, ::2] */
        SET_INDEX(ARR, ARR);        /* x[rows, cols], as x[arange(N), t] */
        EXPECT_BOTH(device, call_getitem, 0, x, rows, cols);
        SET_INDEX(ALL, ARR);                                /* x[:, cols] */
        EXPECT_BOTH(device, call_getitem, 0, x, cols);
        SET_INDEX(ARR, ALL, ARR);   /* apart: their dims go first */
        EXPECT_BOTH(device, call_getitem, 0, x, grid, cols);
        SET_INDEX(ARR, SLICE(1, NONE, 2), INT(2));
        EXPECT_BOTH(device, call_getitem, 0, x, grid);
        SET_INDEX(ARR);                                     /* refused */
        EXPECT_BOTH(device, call_getitem, 0, x, bad);
        EXPECT_BOTH(device, call_getitem, 0, x, floats);
        SET_INDEX(ARR, ARR);
        EXPECT_BOTH(device, call_getitem, 0, x, bad_rows, bad_cols);
        EXPECT_BOTH(device, call_getitem, 0, x, rows, bad_cols);
        SET_INDEX(INT(7));
        EXPECT_BOTH(device, call_getitem, 0, x);
        nd_release(x);
    }
    RELEASE(rows, cols, grid, bad, bad_rows, bad_cols, floats);
}

/* np.add.at: repeated indices add up (atomics on the device, down to
 * single bytes); a bad index is refused before anything is added. */
static void test_add_at(void **state)
{
    NdDevice device = device_of(state);
    NdArray *idx = IDX(ND_SHAPE(6), 0, 1, 1, 4, -1, 1);
    NdArray *bad = IDX(ND_SHAPE(2), 0, 9);
    NdArray *many = nd_random_randint(0, 5, ND_SHAPE(5000));
    for (int k = 0; k < N_DTYPES; k++) {
        NdDtype dtype = all_dtypes[k];
        NdArray *dst = sample(dtype, ND_SHAPE(5, 3));
        NdArray *values = sample(dtype, ND_SHAPE(6, 3));
        NdArray *row = sample(dtype, ND_SHAPE(3));      /* broadcast */
        NdArray *lots = sample(dtype, ND_SHAPE(5000, 3));
        NdArray *wide = sample(ND_FLOAT64, ND_SHAPE(6, 3));
        SET_INDEX(ARR);
        EXPECT_BOTH(device, call_add_at, SUM_ULPS, dst, values, idx);
        EXPECT_BOTH(device, call_add_at, SUM_ULPS, dst, row, idx);
        /* 1000 values to each slot, added atomically in any order. */
        EXPECT_BOTH(device, call_add_at, SUM_ULPS * 100, dst, lots, many);
        EXPECT_BOTH(device, call_add_at, SUM_ULPS, dst, wide, idx);
        EXPECT_BOTH(device, call_add_at, SUM_ULPS, dst, row, bad);
        SET_INDEX(ARR, INT(2));
        EXPECT_BOTH(device, call_add_at, SUM_ULPS, dst, values, idx);
        RELEASE(dst, values, row, lots, wide);
    }
    RELEASE(idx, bad, many);
}

/* ------------------------------------------------------------ fft */

static void test_fft(void **state)
{
    NdDevice device = device_of(state);
    static const Shape shapes[] = {{1, {8}}, {1, {7}}, {2, {4, 6}},
                                   {3, {3, 4, 5}}, {4, {2, 3, 4, 5}},
                                   {4, {3, 1, 2, 6}}, {0, {0}},
                                   {2, {2, 0}}};
    static const NdDtype dtypes[] = {ND_FLOAT64, ND_COMPLEX128, ND_INT64,
                                     ND_FLOAT32, ND_COMPLEX64};
    static const UnaryFn transforms[] = {nd_fftn, nd_ifftn, nd_rfftn};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
            NdArray *a = sample(dtypes[k], SHAPE_OF(shapes[s]));
            for (int t = 0; t < 3; t++) {
                the.unary = transforms[t];
                EXPECT_BOTH(device, call_unary, SUM_ULPS, a);
            }
            NdArray *f = attempt(call_fft_input, (NdArray *[]){a});
            if (f) {
                int64_t m = a->shape[a->ndim - 1];
                for (the.n = m - 1; the.n <= m + 3; the.n += 2)
                    EXPECT_BOTH(device, call_irfftn, SUM_ULPS, f);
                nd_release(f);
            }
            if (dtypes[k] == ND_COMPLEX128 && a->ndim > 0 && a->size > 0) {
                /* A device array of the transform's own dtype is read
                 * by cuFFT as it is, not copied: it must come out as it
                 * went in. (The shapes left out are refused.) */
                NdArray *d = on(device, a);
                for (int t = 0; t < 2; t++)
                    nd_release(transforms[t](d));
                expect_close(device, nd_copy(a), d, 0, 0);
            }
            int64_t m = a->ndim > 0 ? a->shape[a->ndim - 1] : 0;
            if (dtypes[k] == ND_COMPLEX128 && m >= 2) {
                /* A spectrum no real signal has: its zero-frequency and
                 * Nyquist bins are not real. irfftn ignores their
                 * imaginary parts, on either device. */
                for (the.n = 2 * m - 2; the.n <= 2 * m - 1; the.n++)
                    EXPECT_BOTH(device, call_irfftn, SUM_ULPS, a);
            }
            nd_release(a);
        }
    }
}

/* ------------------------------------------------------------ convolution */

/* im2col copies the same entries as the host, and col2im adds each
 * element's windows in the host's order: equal to the bit, in both
 * layouts, for strides, padding and windows that miss pixels; an int64
 * operand is refused alike. The bench's batch spans many blocks, and
 * the last case more elements than the grid has threads. */
static void test_im2col_and_col2im(void **state)
{
    NdDevice device = device_of(state);
    static const struct {
        int64_t img[4];
        int64_t window[6];          /* kh, kw, sh, sw, ph, pw */
        bool float32_only;
    } cases[] = {
        {{2, 3, 7, 6}, {3, 3, 1, 1, 0, 0}, false},
        {{2, 3, 7, 6}, {3, 3, 2, 2, 1, 1}, false},
        {{1, 2, 5, 6}, {2, 4, 3, 1, 0, 3}, false},
        {{1, 1, 5, 6}, {1, 2, 3, 2, 1, 2}, false},
        {{0, 3, 7, 7}, {5, 5, 1, 1, 0, 0}, false},
        {{100, 1, 28, 28}, {5, 5, 1, 1, 0, 0}, false},
        {{64, 3, 64, 64}, {5, 5, 1, 1, 0, 0}, true},
    };
    static const NdDtype dtypes[] = {ND_FLOAT32, ND_FLOAT64, ND_INT64};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        memcpy(the.window, cases[c].window, sizeof the.window);
        the.ndim = 4;
        the.shape = cases[c].img;
        for (int m = 0; m < 2; m++) {
            the.to_matrix = m;
            NdArray *host = nd_zeros(ND_FLOAT32, 4, cases[c].img);
            NdArray *shape = call_im2col(&host);      /* col's shape */
            for (int k = 0; k < 3; k++) {
                if (cases[c].float32_only && dtypes[k] != ND_FLOAT32)
                    continue;
                NdArray *x = sample(dtypes[k], 4, cases[c].img);
                NdArray *y = sample(dtypes[k], shape->ndim, shape->shape);
                EXPECT_BOTH(device, call_im2col, 0, x);
                EXPECT_BOTH(device, call_col2im, 0, y);
                RELEASE(x, y);
            }
            RELEASE(host, shape);
        }
    }
}

/* ------------------------------------------------------------ random */

/* The generator lives on the host: a GPU run draws there and moves
 * the arrays, so it starts from the same numbers as a CPU run. */
static void test_random(void **state)
{
    NdDevice device = device_of(state);
    nd_random_seed(7);
    NdArray *a = nd_random_randn(ND_SHAPE(6, 2));
    NdArray *p = nd_random_permutation(6);
    nd_random_seed(7);
    NdArray *h = nd_random_randn(ND_SHAPE(6, 2));
    NdArray *q = nd_random_permutation(6);
    expect_close(device, a, on(device, h), 0, 0);
    expect_close(device, p, on(device, q), 0, 0);
    RELEASE(h, q);
}

/* ------------------------------------------------------------ printing */

static void test_print(void **state)
{
    NdDevice device = device_of(state);
    for (int k = 0; k < N_DTYPES; k++) {
        NdArray *a = sample(all_dtypes[k], ND_SHAPE(2, 3));
        NdArray *d = on(device, a);
        char *want = nd_repr(a), *got = nd_repr(d);
        assert_string_equal(got, want);
        free(want);
        free(got);
        want = nd_str(a);
        got = nd_str(d);
        assert_string_equal(got, want);
        free(want);
        free(got);
        RELEASE(a, d);
    }
}

/* ------------------------------------------------------------ devices */

/* Mixing devices names each operand's place and the conversion; so
 * does a host-only routine (shuffling: the generator is on the host). */
static void test_refusals(void **state)
{
    NdDevice device = device_of(state);
    NdArray *h = nd_ones(ND_FLOAT32, ND_SHAPE(2, 2));
    NdArray *d = on(device, h);
    EXPECT_ND_ERROR(nd_random_shuffle(d), "nd_random_shuffle: the array is "
                    "on device cuda but nd_random_shuffle runs on the host; "
                    "convert it first with nd_to_device(a, ND_CPU)");
    EXPECT_ND_ERROR(nd_add(h, d), "nd_add: operands are on different "
                    "devices: operand 1 on cpu, operand 2 on cuda; move one "
                    "with nd_to_device()");
    EXPECT_ND_ERROR(nd_matmul(d, h), "operand 1 on cuda, operand 2 on cpu");
    EXPECT_ND_ERROR(nd_where(h, d, d), "operand 1 on cpu, operand 2 on cuda");
    EXPECT_ND_ERROR(nd_copyto(d, h), "on different devices");
    NdArray *idx = IDX(ND_SHAPE(1), 0);
    EXPECT_ND_ERROR(nd_getitem(d, 1, (NdIndex[]){ND_IDX_ARRAY(idx)}),
                    "on different devices");
    EXPECT_ND_ERROR(nd_concatenate(2, (NdArray *[]){h, d}, 0),
                    "on different devices");
    RELEASE(h, d, idx);
}

/* A training loop's allocations come from the pool after the first
 * round: freed blocks are reused, not given back to CUDA. */
static void test_memory_pool_reuses_blocks(void **state)
{
    NdDevice device = device_of(state);
    const NdGpuBackend *gpu = nd_gpu();
    NdArray *w = sample(ND_FLOAT32, ND_SHAPE(784, 100));
    NdArray *x = sample(ND_FLOAT32, ND_SHAPE(64, 784));
    NdArray *dw = on(device, w), *dx = on(device, x);
    NdGpuPoolStats first, later;
    for (int step = 0; step < 5; step++) {
        NdArray *y = nd_matmul(dx, dw);
        NdArray *z = nd_tanh(y);
        NdArray *loss = nd_sum(z, ND_ALL_AXES, false);
        (void)nd_item(loss);
        RELEASE(y, z, loss);
        gpu->pool_stats(step == 0 ? &first : &later);
    }
    assert_int_equal(later.device_mallocs, first.device_mallocs);
    assert_true(later.reuses > first.reuses);
    assert_true(later.cached_bytes > 0);
    assert_int_equal(gpu->pool_trim(), 0);
    gpu->pool_stats(&later);
    assert_int_equal(later.cached_bytes, 0);
    RELEASE(w, x, dw, dx);
}

/* ------------------------------------------------------------ main */

static const NdDevice on_cuda = ND_CUDA;

#define ALL_BODIES(X) \
    X(transfer_round_trip), X(large_transfers), X(elements), \
    X(numbers_moved), X(arange), X(filled_like), \
    X(astype), X(astype_out_of_range), X(in_place), X(scaled_sub_each), \
    X(add), X(sub), X(mul), \
    X(div), X(pow), X(maximum), X(minimum), X(equal), X(not_equal), X(less), \
    X(less_equal), X(greater), X(greater_equal), X(nan_and_infinity), \
    X(neg), X(exp), X(log), X(sin), X(cos), X(tanh), X(sqrt), X(abs), \
    X(fused), X(cross_entropy), \
    X(where), X(clip), X(comparing_arrays), X(sum), X(mean), X(max), X(min), \
    X(reductions_with_nan), X(column_reductions), X(argmax), \
    X(reshape_and_views), X(transpose), X(broadcast_and_sum_to), \
    X(concatenate_and_stack), X(matmul), X(matmul_many_rows), X(matmul_t), \
    X(getitem), X(add_at), X(fft), X(im2col_and_col2im), X(random), X(print)
/* After each CUDA case: wait for the device, so that a kernel that
 * faulted fails its own case (launches block too, see main). */
static int synchronize_after(void **state)
{
    (void)state;
    const NdGpuBackend *gpu = nd_gpu();
    if (gpu && gpu->synchronize() != 0) {
        print_error("the device failed: %s\n", gpu->last_error());
        return -1;
    }
    if (largest_distance > 0)
        print_message("largest distance from the host: %.3g ulps\n",
                      largest_distance);
    largest_distance = 0;
    return 0;
}
#define CUDA_ONLY(NAME) \
    {"cuda/" #NAME, test_##NAME, NULL, synchronize_after, (void *)&on_cuda}

int main(int argc, char **argv)
{
    /* Every launch waits for its kernel: a fault names its operation. */
    setenv("CUDA_LAUNCH_BLOCKING", "1", 0);
    if (argc > 1 && strcmp(argv[1], "--gpu-status") == 0) {
        printf("%s\n", nd_gpu_status());   /* for the moved-program case */
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--gpu-only") == 0) {
        if (!nd_gpu_available()) {
            fprintf(stderr, "test-gpu: no GPU to test: %s\n",
                    nd_gpu_status());
            return 1;
        }
        const struct CMUnitTest gpu_tests[] = {
            ALL_BODIES(CUDA_ONLY),
            CUDA_ONLY(refusals),
            CUDA_ONLY(memory_pool_reuses_blocks),
        };
        return cmocka_run_group_tests_name("common/gpu (cuda only)",
                                           gpu_tests, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_says_why),
        cmocka_unit_test(test_no_driver_loads_no_cuda_libraries),
        cmocka_unit_test(test_off_refuses_to_move),
        cmocka_unit_test(test_library_found_near_a_moved_program),
        cmocka_unit_test(test_index_offsets),
        cmocka_unit_test(test_conv_cover),
        ALL_BODIES(CUDA_ONLY),
        CUDA_ONLY(refusals),
        CUDA_ONLY(memory_pool_reuses_blocks),
    };
    return cmocka_run_group_tests_name("common/gpu", tests, NULL, NULL);
}
