/* test_fft.c - nd_fftn, nd_ifftn, nd_rfftn and nd_irfftn against a naive
 * DFT written here and against values printed by NumPy 1.24 (Debian),
 * plus round trips, the plan cache and every misuse the module sees. */
#include <complex.h>
#include <math.h>

#include "nd_test.h"

/* Spectra are compared within this fraction of their largest value. */
#define TOLERANCE 1e-12

/* ------------------------------------------------------------ helpers */

/* Small varied values: integers from -8 to 8 for every dtype (bool:
 * every third element), plus imaginary parts for complex dtypes. */
static NdArray *test_input(NdDtype dtype, int ndim, const int64_t *shape)
{
    NdArray *c = nd_empty(ND_COMPLEX128, ndim, shape);
    for (int64_t i = 0; i < c->size; i++) {
        double re = (double)((i * 37 + 11) % 17 - 8);
        double im = 0.5 * (double)((i * 23 + 5) % 13 - 6);
        if (dtype == ND_BOOL)
            re = i % 3 == 0;
        else if (dtype == ND_UINT8)
            re += 8;
        else if (nd_dtype_is_float(dtype))
            re += 0.25;
        ND_DATA(c, double complex)[i] =
            nd_dtype_is_complex(dtype) ? re + im * I : re;
    }
    NdArray *a = nd_astype(c, dtype);
    nd_release(c);
    return a;
}

/* The elements of a as complex numbers, in a malloc'd buffer. */
static double complex *values_of(const NdArray *a)
{
    NdArray *c = nd_astype(a, ND_COMPLEX128);
    double complex *v = malloc((size_t)c->size * sizeof *v);
    assert_non_null(v);
    memcpy(v, c->data, (size_t)c->size * sizeof *v);
    nd_release(c);
    return v;
}

/* out[k] = sum_j x[j] exp(sign 2 pi i sum_d k_d j_d / n_d), over every
 * axis, or over the first `axes` axes only (the rest are batches). */
static void naive_dft_axes(const double complex *x, int ndim,
                           const int64_t *shape, int axes, int sign,
                           double complex *out)
{
    int64_t size = 1;
    for (int d = 0; d < ndim; d++)
        size *= shape[d];
    for (int64_t k = 0; k < size; k++) {
        int64_t kidx[ND_MAX_DIMS], rest = k;
        for (int d = ndim - 1; d >= 0; d--) {
            kidx[d] = rest % shape[d];
            rest /= shape[d];
        }
        double complex sum = 0;
        for (int64_t j = 0; j < size; j++) {
            int64_t jidx[ND_MAX_DIMS];
            rest = j;
            for (int d = ndim - 1; d >= 0; d--) {
                jidx[d] = rest % shape[d];
                rest /= shape[d];
            }
            bool same_batch = true;
            double turns = 0;
            for (int d = 0; d < ndim; d++) {
                if (d < axes)
                    turns += (double)(kidx[d] * jidx[d] % shape[d]) /
                             (double)shape[d];
                else
                    same_batch &= kidx[d] == jidx[d];
            }
            if (same_batch)
                sum += x[j] * cexp(sign * 2 * M_PI * I * turns);
        }
        out[k] = sum;
    }
}

static void naive_dft(const double complex *x, int ndim,
                      const int64_t *shape, int sign, double complex *out)
{
    naive_dft_axes(x, ndim, shape, ndim, sign, out);
}

/* np.fft.irfftn(h, s=(..., n)) by definition: an unscaled inverse DFT
 * over the leading axes, then along the last axis a real signal from its
 * half spectrum (imaginary parts of X[0] and, n even, X[n/2] ignored),
 * all divided by N. */
static void naive_irfftn(const double complex *h, int ndim,
                         const int64_t *hshape, int64_t n, double *out)
{
    int64_t hsize = 1;
    for (int d = 0; d < ndim; d++)
        hsize *= hshape[d];
    int64_t m = hshape[ndim - 1], rows = hsize / m;
    double complex *t = malloc((size_t)hsize * sizeof *t);
    assert_non_null(t);
    naive_dft_axes(h, ndim, hshape, ndim - 1, +1, t);
    double total = (double)(rows * n);
    for (int64_t r = 0; r < rows; r++) {
        const double complex *X = t + r * m;
        for (int64_t j = 0; j < n; j++) {
            double sum = creal(X[0]);
            for (int64_t k = 1; k < m; k++) {
                double complex term =
                    X[k] * cexp(2 * M_PI * I * (double)(k * j % n) / n);
                sum += (2 * k == n ? 1 : 2) * creal(term);
            }
            out[r * n + j] = sum / total;
        }
    }
    free(t);
}

static double max_magnitude(const double complex *v, int64_t n)
{
    double m = 0;
    for (int64_t i = 0; i < n; i++)
        m = fmax(m, cabs(v[i]));
    return m;
}

static void expect_shape_at(const char *file, int line, const NdArray *a,
                            NdDtype dtype, int ndim, const int64_t *shape)
{
    if (a->dtype != dtype)
        nd_test_fail_at(file, line, "dtype %s, want %s",
                        nd_dtype_name(a->dtype), nd_dtype_name(dtype));
    _assert_int_equal((LargestIntegralType)a->ndim,
                      (LargestIntegralType)ndim, file, line);
    for (int d = 0; d < ndim; d++)
        if (a->shape[d] != shape[d])
            nd_test_fail_at(file, line, "dimension %d is %lld, want %lld", d,
                            (long long)a->shape[d], (long long)shape[d]);
}

/* a is complex128 of shape and each element is within TOLERANCE times
 * the largest wanted magnitude of want (both parts). */
static void expect_spectrum_at(const char *file, int line, const NdArray *a,
                               int ndim, const int64_t *shape,
                               const double complex *want)
{
    expect_shape_at(file, line, a, ND_COMPLEX128, ndim, shape);
    double bound = TOLERANCE * fmax(max_magnitude(want, a->size), 1e-300);
    const double complex *got = a->data;
    for (int64_t i = 0; i < a->size; i++)
        if (!(cabs(got[i] - want[i]) <= bound))
            nd_test_fail_at(file, line, "element %lld: got %.17g%+.17gj, "
                            "want %.17g%+.17gj", (long long)i, creal(got[i]),
                            cimag(got[i]), creal(want[i]), cimag(want[i]));
}
#define expect_spectrum(...) \
    expect_spectrum_at(__FILE__, __LINE__, __VA_ARGS__)

static void expect_real_at(const char *file, int line, const NdArray *a,
                           int ndim, const int64_t *shape, const double *want)
{
    expect_shape_at(file, line, a, ND_FLOAT64, ndim, shape);
    double m = 1e-300;
    for (int64_t i = 0; i < a->size; i++)
        m = fmax(m, fabs(want[i]));
    for (int64_t i = 0; i < a->size; i++) {
        double got = ND_DATA(a, double)[i];
        if (!(fabs(got - want[i]) <= TOLERANCE * m))
            nd_test_fail_at(file, line, "element %lld: got %.17g, want "
                            "%.17g", (long long)i, got, want[i]);
    }
}
#define expect_real(...) expect_real_at(__FILE__, __LINE__, __VA_ARGS__)

/* The shapes the naive comparisons run over: 1-D even, odd and single,
 * 2-D, 3-D with odd extents, 4-D with size-1 axes, and two whose rows of
 * complex values lie 4 KiB apart (fft.c lays those out differently). */
typedef struct TestShape {
    int ndim;
    int64_t shape[4];
} TestShape;

static const TestShape shapes[] = {
    {1, {8}}, {1, {7}}, {1, {1}}, {2, {4, 6}}, {2, {5, 2}},
    {3, {3, 5, 7}}, {3, {2, 4, 3}}, {4, {2, 1, 3, 2}},
    {2, {3, 256}}, {3, {2, 16, 16}},
};
enum { NUM_SHAPES = sizeof shapes / sizeof shapes[0] };

static const NdDtype all_dtypes[] = {
    ND_BOOL, ND_UINT8, ND_INT64, ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64,
    ND_COMPLEX128,
};

/* fftn (sign -1) or ifftn (sign +1, divided by N) against naive_dft. */
static void check_full_transform(NdDtype dtype, const TestShape *s,
                                 int sign)
{
    NdArray *a = test_input(dtype, s->ndim, s->shape);
    double complex *x = values_of(a);
    double complex *want = malloc((size_t)a->size * sizeof *want);
    assert_non_null(want);
    naive_dft(x, s->ndim, s->shape, sign, want);
    if (sign > 0)
        for (int64_t i = 0; i < a->size; i++)
            want[i] /= (double)a->size;
    NdArray *f = sign < 0 ? nd_fftn(a) : nd_ifftn(a);
    expect_spectrum(f, s->ndim, s->shape, want);
    nd_release(f);
    free(want);
    free(x);
    nd_release(a);
}

/* ------------------------------------------------------------ tests */

static void test_fftn_matches_naive_dft(void **state)
{
    (void)state;
    for (size_t t = 0; t < sizeof all_dtypes / sizeof all_dtypes[0]; t++)
        for (int s = 0; s < NUM_SHAPES; s++)
            check_full_transform(all_dtypes[t], &shapes[s], -1);
}

static void test_ifftn_matches_naive_dft(void **state)
{
    (void)state;
    for (size_t t = 0; t < sizeof all_dtypes / sizeof all_dtypes[0]; t++)
        for (int s = 0; s < NUM_SHAPES; s++)
            check_full_transform(all_dtypes[t], &shapes[s], +1);
}

static void test_rfftn_matches_naive_dft(void **state)
{
    (void)state;
    const NdDtype dtypes[] = {ND_BOOL, ND_INT64, ND_FLOAT32, ND_FLOAT64};
    for (size_t t = 0; t < sizeof dtypes / sizeof dtypes[0]; t++) {
        for (int s = 0; s < NUM_SHAPES; s++) {
            const TestShape *sh = &shapes[s];
            NdArray *a = test_input(dtypes[t], sh->ndim, sh->shape);
            double complex *x = values_of(a);
            double complex *full = malloc((size_t)a->size * sizeof *full);
            assert_non_null(full);
            naive_dft(x, sh->ndim, sh->shape, -1, full);
            /* keep the first n/2 + 1 entries of every last-axis row */
            int64_t n = sh->shape[sh->ndim - 1], h = n / 2 + 1;
            int64_t half_shape[4];
            memcpy(half_shape, sh->shape, sizeof half_shape);
            half_shape[sh->ndim - 1] = h;
            double complex *want = malloc((size_t)(a->size / n * h) *
                                          sizeof *want);
            assert_non_null(want);
            for (int64_t r = 0; r < a->size / n; r++)
                for (int64_t k = 0; k < h; k++)
                    want[r * h + k] = full[r * n + k];
            NdArray *f = nd_rfftn(a);
            expect_spectrum(f, sh->ndim, half_shape, want);
            nd_release(f);
            free(want);
            free(full);
            free(x);
            nd_release(a);
        }
    }
}

/* Any complex input, Hermitian or not, is read as np.fft.irfftn reads
 * it; both an even and an odd n fit each half length. */
static void test_irfftn_matches_naive(void **state)
{
    (void)state;
    for (int s = 0; s < NUM_SHAPES; s++) {
        const TestShape *sh = &shapes[s];
        int64_t m = sh->shape[sh->ndim - 1];
        for (int64_t n = 2 * (m - 1); n <= 2 * m - 1; n++) {
            if (n < 1)
                continue;
            NdArray *h = test_input(ND_COMPLEX128, sh->ndim, sh->shape);
            double complex *hv = values_of(h);
            int64_t out_shape[4];
            memcpy(out_shape, sh->shape, sizeof out_shape);
            out_shape[sh->ndim - 1] = n;
            double *want = malloc((size_t)(h->size / m * n) * sizeof *want);
            assert_non_null(want);
            naive_irfftn(hv, sh->ndim, sh->shape, n, want);
            NdArray *x = nd_irfftn(h, n);
            expect_real(x, sh->ndim, out_shape, want);
            nd_release(x);
            free(want);
            free(hv);
            nd_release(h);
        }
    }
}

/* Values printed by np.fft (NumPy 1.24.2). */
static void test_numpy_values(void **state)
{
    (void)state;
    const double r3 = 1.7320508075688772, s3 = 0.8660254037844386;

    /* np.fft.fftn(np.arange(4.).reshape(2, 2)) */
    NdArray *a = nd_arange(0, 4, 1, ND_FLOAT64);
    NdArray *a22 = nd_reshape(a, ND_SHAPE(2, 2));
    NdArray *f = nd_fftn(a22);
    expect_spectrum(f, ND_SHAPE(2, 2),
                    (const double complex[]){6, -2, -4, 0});
    nd_release(f);

    /* np.fft.fftn(np.array([[1, 2, 3], [4, 5, 6]])): int64 input */
    NdArray *i23 = nd_from_buffer(ND_INT64, ND_SHAPE(2, 3),
                                  (const int64_t[]){1, 2, 3, 4, 5, 6});
    f = nd_fftn(i23);
    expect_spectrum(f, ND_SHAPE(2, 3), (const double complex[]){
        21, -3 + r3 * I, -3 - r3 * I, -9, 0, 0});
    nd_release(f);

    /* np.fft.rfftn of the same values as float64 */
    NdArray *d23 = nd_astype(i23, ND_FLOAT64);
    f = nd_rfftn(d23);
    expect_spectrum(f, ND_SHAPE(2, 2),
                    (const double complex[]){21, -3 + r3 * I, -9, 0});
    nd_release(f);

    /* np.fft.rfftn(np.array([1, 2, 3, 4])) */
    NdArray *i4 = nd_arange(1, 5, 1, ND_INT64);
    f = nd_rfftn(i4);
    expect_spectrum(f, ND_SHAPE(3),
                    (const double complex[]){10, -2 + 2 * I, -2});
    nd_release(f);

    /* np.fft.fftn(np.array([True, False, True])) */
    NdArray *b = nd_from_buffer(ND_BOOL, ND_SHAPE(3),
                                (const bool[]){true, false, true});
    f = nd_fftn(b);
    expect_spectrum(f, ND_SHAPE(3), (const double complex[]){
        2, 0.5 + s3 * I, 0.5 - s3 * I});
    nd_release(f);

    /* np.fft.ifftn(np.array([[1+2j, 3-1j], [0.5j, -2]])) */
    NdArray *c = nd_from_buffer(ND_COMPLEX128, ND_SHAPE(2, 2),
                                (const double complex[]){
                                    1 + 2 * I, 3 - 1 * I, 0.5 * I, -2});
    f = nd_ifftn(c);
    expect_spectrum(f, ND_SHAPE(2, 2), (const double complex[]){
        0.5 + 0.375 * I, 0.875 * I, 1.5 + 0.125 * I, -1 + 0.625 * I});
    nd_release(f);

    /* np.fft.irfftn(np.array([1, 2, 3]), s=(4,)): int input */
    NdArray *i3 = nd_arange(1, 4, 1, ND_INT64);
    NdArray *x = nd_irfftn(i3, 4);
    expect_real(x, ND_SHAPE(4), (const double[]){2.0, -0.5, 0.0, -0.5});
    nd_release(x);

    /* z = [[1+1j, 2-1j, 0.5+3j], [-1+0.25j, 4, 2j]] (not Hermitian):
     * np.fft.irfftn(z, s=(2, 4)) and np.fft.irfftn(z, s=(2, 5)) */
    NdArray *z = nd_from_buffer(ND_COMPLEX128, ND_SHAPE(2, 3),
                                (const double complex[]){
                                    1 + 1 * I, 2 - 1 * I, 0.5 + 3 * I,
                                    -1 + 0.25 * I, 4, 2 * I});
    x = nd_irfftn(z, 4);
    expect_real(x, ND_SHAPE(2, 4), (const double[]){
        1.5625, 0.1875, -1.4375, -0.3125,
        -0.1875, 0.4375, 0.8125, -0.0625});
    nd_release(x);
    x = nd_irfftn(z, 5);
    expect_real(x, ND_SHAPE(2, 5), (const double[]){
        1.3, -0.10765525522100027, 0.12869487294120585,
        -2.0085322605660907, 0.6874926428458847,
        -0.1, 0.06814575561306235, 0.8622768509049991,
        0.24674014346994844, -0.07716274998800982});
    nd_release(x);

    nd_release(z);
    nd_release(i3);
    nd_release(c);
    nd_release(b);
    nd_release(i4);
    nd_release(d23);
    nd_release(i23);
    nd_release(a22);
    nd_release(a);
}

/* ifftn(fftn(x)) == x and irfftn(rfftn(x), n) == x, n even and odd. */
static void test_round_trips(void **state)
{
    (void)state;
    for (int s = 0; s < NUM_SHAPES; s++) {
        const TestShape *sh = &shapes[s];
        const NdDtype dtypes[] = {ND_FLOAT64, ND_COMPLEX128};
        for (int t = 0; t < 2; t++) {
            NdArray *x = test_input(dtypes[t], sh->ndim, sh->shape);
            double complex *want = values_of(x);
            NdArray *f = nd_fftn(x);
            NdArray *back = nd_ifftn(f);
            expect_spectrum(back, sh->ndim, sh->shape, want);
            nd_release(back);
            nd_release(f);
            free(want);
            nd_release(x);
        }
        NdArray *x = test_input(ND_FLOAT64, sh->ndim, sh->shape);
        NdArray *h = nd_rfftn(x);
        NdArray *back = nd_irfftn(h, sh->shape[sh->ndim - 1]);
        expect_real(back, sh->ndim, sh->shape, x->data);
        nd_release(back);
        nd_release(h);
        nd_release(x);
    }
}

/* Sizes that fft.c works through in several blocks of rows and of
 * columns, the last one partial, and (from 2^21 points) on several
 * threads: the real path (r2c and symmetry) and the complex path (c2c)
 * must agree, and invert. */
static void check_large(int ndim, const int64_t *shape)
{
    NdArray *x = test_input(ND_FLOAT64, ndim, shape);
    NdArray *xc = nd_astype(x, ND_COMPLEX128);
    NdArray *from_real = nd_fftn(x);
    NdArray *from_complex = nd_fftn(xc);
    expect_spectrum(from_real, ndim, shape, from_complex->data);
    NdArray *inv_real = nd_ifftn(x);
    NdArray *inv_complex = nd_ifftn(xc);
    expect_spectrum(inv_real, ndim, shape, inv_complex->data);
    NdArray *back = nd_ifftn(from_complex);
    expect_spectrum(back, ndim, shape, xc->data);
    NdArray *h = nd_rfftn(x);
    NdArray *x2 = nd_irfftn(h, shape[ndim - 1]);
    expect_real(x2, ndim, shape, x->data);
    nd_release(x2);
    nd_release(h);
    nd_release(back);
    nd_release(inv_complex);
    nd_release(inv_real);
    nd_release(from_complex);
    nd_release(from_real);
    nd_release(xc);
    nd_release(x);
}

static void test_large_transforms(void **state)
{
    (void)state;
    check_large(ND_SHAPE(512, 512));
    check_large(ND_SHAPE(520, 515));
    check_large(ND_SHAPE(1 << 18));
    check_large(ND_SHAPE(40, 80, 90));
    check_large(ND_SHAPE(1500, 1402));
    check_large(ND_SHAPE(130, 128, 127));
    /* Square: the rows' pass of the complex path asks for the very
     * transforms of the columns' pass, out of place where the other is
     * in place; a plan cache that took one for the other gave spectra
     * wrong by orders of magnitude at 300^2, 700^2 and 1000^2 (found by
     * the GPU stand-in's run of the tour, whose device fftn is c2c). */
    check_large(ND_SHAPE(300, 300));
    check_large(ND_SHAPE(1000, 1000));
}

/* More shapes than the cache holds, then the first again, and the same
 * shape with new data: cached plans run on each call's arrays. */
static void test_plan_cache(void **state)
{
    (void)state;
    for (int k = 1; k <= 20; k++) {
        TestShape s = {2, {k, 3}};
        check_full_transform(ND_FLOAT64, &s, -1);
        check_full_transform(ND_COMPLEX128, &s, +1);
    }
    TestShape first = {2, {1, 3}};
    check_full_transform(ND_FLOAT64, &first, -1);
    check_full_transform(ND_INT64, &first, -1);
    check_full_transform(ND_COMPLEX128, &first, +1);
    check_full_transform(ND_COMPLEX64, &first, +1);
}

/* The transforms leave their input as it was (c2r would not: irfftn
 * must work on a copy). */
static void test_inputs_unchanged(void **state)
{
    (void)state;
    NdArray *x = test_input(ND_FLOAT64, ND_SHAPE(4, 6));
    NdArray *c = test_input(ND_COMPLEX128, ND_SHAPE(4, 4));
    NdArray *x0 = nd_copy(x), *c0 = nd_copy(c);
    NdArray *r[] = {nd_fftn(x), nd_ifftn(x), nd_rfftn(x), nd_fftn(c),
                    nd_ifftn(c), nd_irfftn(c, 6)};
    assert_true(nd_array_equal(x, x0));
    assert_true(nd_array_equal(c, c0));
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        nd_release(r[i]);
    nd_release(c0);
    nd_release(x0);
    nd_release(c);
    nd_release(x);
}

/* Data that is not SIMD-aligned (as a view at an offset could be) is
 * copied before FFTW sees it. */
static void test_unaligned_input(void **state)
{
    (void)state;
    NdArray *x = test_input(ND_COMPLEX128, ND_SHAPE(16, 32));
    double complex *buffer = malloc(513 * sizeof *buffer);
    assert_non_null(buffer);
    char *odd_start = (char *)buffer + sizeof(double);  /* 8-aligned */
    memcpy(odd_start, x->data, 512 * sizeof *buffer);
    NdArray odd = *x;               /* borrowed: never released */
    odd.data = odd_start;
    odd.base = NULL;
    NdArray *want = nd_fftn(x), *got = nd_fftn(&odd);
    expect_spectrum(got, ND_SHAPE(16, 32), want->data);
    nd_release(got);
    nd_release(want);
    NdArray odd_real = odd;
    odd_real.dtype = ND_FLOAT64;    /* the same bytes read as (16, 64) */
    odd_real.shape[1] = 64;
    odd_real.size = 1024;
    NdArray *real = nd_astype(&odd_real, ND_FLOAT64);
    want = nd_rfftn(real);
    got = nd_rfftn(&odd_real);
    expect_spectrum(got, ND_SHAPE(16, 33), want->data);
    nd_release(got);
    nd_release(want);
    nd_release(real);
    free(buffer);
    nd_release(x);
}

/* NumPy returns a 0-d input unchanged from fftn/ifftn (no axis to
 * transform); here the value comes back as complex128, the dtype every
 * fftn result has. rfftn and irfftn fail in NumPy (IndexError). */
static void test_zero_d(void **state)
{
    (void)state;
    NdArray *s = nd_scalar(3.0);
    NdArray *f = nd_fftn(s), *g = nd_ifftn(s);
    expect_spectrum(f, ND_SCALAR_SHAPE, (const double complex[]){3});
    expect_spectrum(g, ND_SCALAR_SHAPE, (const double complex[]){3});
    EXPECT_ND_ERROR(nd_rfftn(s), "nd_rfftn: a 0-d array has no axis");
    EXPECT_ND_ERROR(nd_irfftn(s, 1), "nd_irfftn: a 0-d array has no axis");
    nd_release(g);
    nd_release(f);
    nd_release(s);
}

/* Without the GPU half a device array is refused; with it, the
 * transforms run on cuFFT (tested with the GPU half). */
static void test_device_array_without_gpu(void **state)
{
    (void)state;
    if (nd_gpu_available())
        skip();
    double data[6] = {0};           /* a stand-in for a device array */
    NdArray on_gpu = {.dtype = ND_FLOAT64, .device = ND_CUDA, .ndim = 2,
                      .shape = {2, 3}, .size = 6, .data = data,
                      .refcount = 1};
    const char *off = "the operands are on device cuda, but GPU support "
                      "is off";
    EXPECT_ND_ERROR(nd_fftn(&on_gpu), off);
    EXPECT_ND_ERROR(nd_ifftn(&on_gpu), off);
    EXPECT_ND_ERROR(nd_rfftn(&on_gpu), off);
    EXPECT_ND_ERROR(nd_irfftn(&on_gpu, 4), off);
    EXPECT_ND_ERROR(nd_fftn(&on_gpu), "nd_fftn: ");
    EXPECT_ND_ERROR(nd_irfftn(&on_gpu, 4), "nd_irfftn: ");
}

static void test_misuse(void **state)
{
    (void)state;
    NdArray *x = test_input(ND_FLOAT64, ND_SHAPE(2, 3));
    NdArray *empty = nd_zeros(ND_FLOAT64, ND_SHAPE(2, 0));
    const char *zero_points = "invalid number of FFT data points (0) "
                              "along axis 1 of shape (2,0)";
    EXPECT_ND_ERROR(nd_fftn(empty), zero_points);
    EXPECT_ND_ERROR(nd_ifftn(empty), zero_points);
    EXPECT_ND_ERROR(nd_rfftn(empty), zero_points);
    EXPECT_ND_ERROR(nd_irfftn(empty, 1), zero_points);

    NdArray *c = test_input(ND_COMPLEX64, ND_SHAPE(4));
    EXPECT_ND_ERROR(nd_rfftn(c), "nd_rfftn: expects a real array, got "
                    "complex64; use nd_fftn");

    /* a last axis of 3 values is the half spectrum of n = 4 or 5 */
    EXPECT_ND_ERROR(nd_irfftn(x, 6), "nd_irfftn: n=6 needs a last axis of "
                    "n/2 + 1 = 4 values, but the array has shape (2,3)");
    EXPECT_ND_ERROR(nd_irfftn(x, 3), "n=3 needs a last axis of n/2 + 1 "
                    "= 2 values");
    EXPECT_ND_ERROR(nd_irfftn(x, 0), "nd_irfftn: invalid number of FFT "
                    "data points (0) specified");
    EXPECT_ND_ERROR(nd_irfftn(x, -4), "invalid number of FFT data points "
                    "(-4)");
    nd_release(c);
    nd_release(empty);
    nd_release(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fftn_matches_naive_dft),
        cmocka_unit_test(test_ifftn_matches_naive_dft),
        cmocka_unit_test(test_rfftn_matches_naive_dft),
        cmocka_unit_test(test_irfftn_matches_naive),
        cmocka_unit_test(test_numpy_values),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_large_transforms),
        cmocka_unit_test(test_plan_cache),
        cmocka_unit_test(test_inputs_unchanged),
        cmocka_unit_test(test_unaligned_input),
        cmocka_unit_test(test_zero_d),
        cmocka_unit_test(test_device_array_without_gpu),
        cmocka_unit_test(test_misuse),
    };
    return cmocka_run_group_tests_name("common/fft", tests, NULL, NULL);
}
