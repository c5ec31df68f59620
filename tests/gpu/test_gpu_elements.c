/* test_gpu_elements.c - the GPU kernels' element functions, run on the
 * host (host_elements.cu), against the CPU half: every unary and binary
 * operation for every dtype the kernels take, and every cast. It needs
 * nvcc to build, not a GPU to run, so `make test` runs it wherever the
 * GPU half builds: a kernel computing the wrong function (sin as cos,
 * a comparison the wrong way round) fails here, on any machine.
 *
 * Integers, bools and casts must agree exactly. Floats are compared in
 * ulps of their dtype (ulp.h): the two sides call different libms (the
 * C++ library's and CUDA's overloads here, glibc's C functions and
 * libmvec's vector ones in the CPU half), each within a few roundings
 * of the true value, so they may differ by a few ulps, never by more.
 * MAX_ULPS is the bound; each case prints the largest distance it saw. */
#include <complex.h>

#include "nd_test.h"
#include "ulp.h"
#include "gpu/host_elements.h"

/* 4 ulps: the CPU half's float loops call libmvec's vector functions,
 * which glibc documents as within 4 ulps, and the kernels' functions
 * are glibc's scalar ones here (within 1; the complex ones libcu++'s,
 * built from those). Measured on these inputs:
 * 4 for complex128 pow, 3 for float64 sin and complex128 tanh, 2 or
 * less for the rest (each case prints its largest). */
enum { MAX_ULPS = 4 };
/* A softmax's element e^(x - m) / s carries the distances of two such
 * functions: its exp's and that of the sum of them (added in the same
 * order on both sides). */
enum { SOFTMAX_ULPS = 2 * MAX_ULPS };

static const NdDtype all_dtypes[] = {
    ND_BOOL, ND_UINT8, ND_INT64, ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64,
    ND_COMPLEX128,
};
enum { N_DTYPES = sizeof all_dtypes / sizeof all_dtypes[0], N = 64 };

static bool is_float(NdDtype d)
{
    return d == ND_FLOAT32 || d == ND_FLOAT64 || d == ND_COMPLEX64 ||
           d == ND_COMPLEX128;
}

static bool is_complex(NdDtype d)
{
    return d == ND_COMPLEX64 || d == ND_COMPLEX128;
}


/* (N,) values of dtype: N(0, 1) times 2 for floats, each part of a
 * complex uniform in [-1, 1) (away from tanh's poles at +-i pi/2),
 * -9..9 and both ends of int64, 0..255, 0/1; exponents (for pow) are
 * 0..5 for integers, so that none is negative, which NumPy refuses. */
static NdArray *values(NdDtype dtype, bool exponents)
{
    int64_t shape[1] = {N};
    NdArray *r;
    switch (dtype) {
    case ND_BOOL: r = nd_random_randint(0, 2, 1, shape); break;
    case ND_UINT8:
        r = nd_random_randint(0, exponents ? 6 : 256, 1, shape);
        break;
    case ND_INT64:
        r = nd_random_randint(exponents ? 0 : -9, exponents ? 6 : 10, 1,
                              shape);
        if (!exponents) {
            ND_DATA(r, int64_t)[0] = INT64_MIN;
            ND_DATA(r, int64_t)[1] = INT64_MAX;
        }
        break;
    case ND_COMPLEX64:
    case ND_COMPLEX128: {
        NdArray *re = nd_random_uniform(-1, 1, 1, shape);
        NdArray *im = nd_random_uniform(-1, 1, 1, shape);
        r = nd_empty(ND_COMPLEX128, 1, shape);
        for (int64_t i = 0; i < N; i++)
            ND_DATA(r, double complex)[i] =
                ND_DATA(re, double)[i] + ND_DATA(im, double)[i] * I;
        nd_release(re);
        nd_release(im);
        break;
    }
    default: {
        NdArray *n = nd_random_randn(1, shape), *two = nd_scalar(2.0);
        r = nd_mul(n, two);
        nd_release(two);
        nd_release(n);
    }
    }
    NdArray *a = nd_astype(r, dtype);
    nd_release(r);
    return a;
}

/* Asserts that got, computed from a, matches want element by element:
 * exactly, or for floats within MAX_ULPS; returns the largest distance
 * in ulps. Each part of a complex counts in ulps of the larger of the
 * result's modulus and the argument's: where a function's result is
 * small but its argument is not (log near |z| = 1, sin near a multiple
 * of pi), both libraries have lost those digits to the same
 * cancellation, and only the argument's scale is meaningful. For the
 * same reason a real result counts in ulps of terms where it is smaller
 * than that, the size of the terms it was added from (0.5 for the
 * sigmoid's tanh(x/2)/2 + 1/2; 0: none). Borrows all three arrays. */
static double expect_agree(const char *what, const NdArray *a,
                           const NdArray *want, const NdArray *got,
                           double terms)
{
    assert_int_equal(got->dtype, want->dtype);
    assert_int_equal(got->size, want->size);
    double largest = 0;
    for (int64_t i = 0; i < want->size; i++) {
        double complex w = element_of(want, i), g = element_of(got, i);
        double scale = is_complex(want->dtype)
                           ? fmax(cabs(w), cabs(element_of(a, i))) : terms;
        double d = fmax(ulps_apart(creal(w), creal(g), want->dtype, scale),
                        ulps_apart(cimag(w), cimag(g), want->dtype, scale));
        bool ok = is_float(want->dtype) ? d <= MAX_ULPS : d == 0;
        if (!ok)
            fail_msg("%s, %s, element %lld: the kernel's function gives "
                     "%.17g%+.17gj, the CPU half %.17g%+.17gj (%.3g ulps)",
                     what, nd_dtype_name(want->dtype), (long long)i,
                     creal(g), cimag(g), creal(w), cimag(w), d);
        largest = fmax(largest, d);
    }
    return largest;
}

/* ------------------------------------------------------------ unary */

typedef NdArray *(*UnaryFn)(const NdArray *);

static const struct {
    NdGpuUnary op;
    const char *name;
    UnaryFn cpu;
} unary_ops[] = {
    {ND_GPU_NEG, "neg", nd_neg}, {ND_GPU_EXP, "exp", nd_exp},
    {ND_GPU_LOG, "log", nd_log}, {ND_GPU_SIN, "sin", nd_sin},
    {ND_GPU_COS, "cos", nd_cos}, {ND_GPU_TANH, "tanh", nd_tanh},
    {ND_GPU_SQRT, "sqrt", nd_sqrt}, {ND_GPU_ABS, "abs", nd_abs},
    {ND_GPU_SIGMOID, "sigmoid", nd_sigmoid},
};
enum { N_UNARY = sizeof unary_ops / sizeof unary_ops[0] };

/* Which dtypes the kernels take: elements.cuh's unary_supported. */
static bool unary_takes(NdGpuUnary op, NdDtype d)
{
    if (op == ND_GPU_ABS)
        return true;
    if (op == ND_GPU_NEG)
        return d != ND_BOOL;
    if (op == ND_GPU_SIGMOID)
        return is_float(d) && !is_complex(d);
    return is_float(d);
}

static void test_unary(void **state)
{
    (void)state;
    nd_random_seed(25);
    for (int k = 0; k < N_UNARY; k++) {
        double largest = 0;
        NdDtype where = ND_BOOL;
        for (int t = 0; t < N_DTYPES; t++) {
            NdDtype dtype = all_dtypes[t];
            NdArray *a = values(dtype, false);
            if (!unary_takes(unary_ops[k].op, dtype)) {
                NdArray *out = nd_empty(dtype, a->ndim, a->shape);
                assert_int_equal(host_unary(unary_ops[k].op, out, a), -1);
                assert_non_null(strstr(host_elements_error(),
                                        "not supported"));
                nd_release(out);
                nd_release(a);
                continue;
            }
            NdArray *want = unary_ops[k].cpu(a);
            NdArray *got = nd_empty(want->dtype, want->ndim, want->shape);
            if (host_unary(unary_ops[k].op, got, a) != 0)
                fail_msg("%s of %s: %s", unary_ops[k].name,
                         nd_dtype_name(dtype), host_elements_error());
            double terms = unary_ops[k].op == ND_GPU_SIGMOID ? 0.5 : 0;
            double d = expect_agree(unary_ops[k].name, a, want, got, terms);
            if (d > largest) {
                largest = d;
                where = dtype;
            }
            nd_release(got);
            nd_release(want);
            nd_release(a);
        }
        print_message("%-7s largest distance: %g ulps (%s)\n",
                      unary_ops[k].name, largest, nd_dtype_name(where));
    }
}

/* ------------------------------------------------------------ binary */

typedef NdArray *(*BinaryFn)(const NdArray *, const NdArray *);

static const struct {
    NdGpuBinary op;
    const char *name;
    BinaryFn cpu;
} binary_ops[] = {
    {ND_GPU_ADD, "add", nd_add}, {ND_GPU_SUB, "sub", nd_sub},
    {ND_GPU_MUL, "mul", nd_mul}, {ND_GPU_DIV, "div", nd_div},
    {ND_GPU_POW, "pow", nd_pow}, {ND_GPU_MAXIMUM, "maximum", nd_maximum},
    {ND_GPU_MINIMUM, "minimum", nd_minimum},
    {ND_GPU_EQ, "equal", nd_equal}, {ND_GPU_NE, "not_equal", nd_not_equal},
    {ND_GPU_LT, "less", nd_less}, {ND_GPU_LE, "less_equal", nd_less_equal},
    {ND_GPU_GT, "greater", nd_greater},
    {ND_GPU_GE, "greater_equal", nd_greater_equal},
};
enum { N_BINARY = sizeof binary_ops / sizeof binary_ops[0] };

/* elements.cuh's binary_supported. */
static bool binary_takes(NdGpuBinary op, NdDtype d)
{
    switch (op) {
    case ND_GPU_ADD: case ND_GPU_MUL: case ND_GPU_EQ: case ND_GPU_NE:
        return true;
    case ND_GPU_SUB: case ND_GPU_POW:
        return d != ND_BOOL;
    case ND_GPU_DIV:
        return is_float(d);
    default:
        return !is_complex(d);
    }
}

static void test_binary(void **state)
{
    (void)state;
    nd_random_seed(25);
    for (int k = 0; k < N_BINARY; k++) {
        double largest = 0;
        NdDtype where = ND_BOOL;
        for (int t = 0; t < N_DTYPES; t++) {
            NdDtype dtype = all_dtypes[t];
            NdArray *a = values(dtype, false);
            NdArray *b = values(dtype, binary_ops[k].op == ND_GPU_POW);
            bool pow = binary_ops[k].op == ND_GPU_POW;
            /* Some equal pairs, for ==, <= and the like. */
            for (int64_t i = 0; i < N && !pow; i += 4)
                memcpy((char *)b->data + i * nd_dtype_size(dtype),
                       (char *)a->data + i * nd_dtype_size(dtype),
                       nd_dtype_size(dtype));
            if (!binary_takes(binary_ops[k].op, dtype)) {
                NdArray *out = nd_empty(dtype, a->ndim, a->shape);
                assert_int_equal(host_binary(binary_ops[k].op, out, a, b),
                                 -1);
                assert_non_null(strstr(host_elements_error(),
                                       "not supported"));
                nd_release(out);
            } else {
                NdArray *want = binary_ops[k].cpu(a, b);
                NdArray *got = nd_empty(want->dtype, want->ndim,
                                        want->shape);
                if (host_binary(binary_ops[k].op, got, a, b) != 0)
                    fail_msg("%s of %s: %s", binary_ops[k].name,
                             nd_dtype_name(dtype), host_elements_error());
                double d = expect_agree(binary_ops[k].name, a, want, got,
                                        0);
                if (d > largest) {
                    largest = d;
                    where = dtype;
                }
                nd_release(got);
                nd_release(want);
            }
            nd_release(b);
            nd_release(a);
        }
        print_message("%-13s largest distance: %g ulps (%s)\n",
                      binary_ops[k].name, largest, nd_dtype_name(where));
    }
}

/* ------------------------------------------------------------ casts */

/* Every dtype to every dtype, exactly as nd_astype: a float's integer
 * part, NaN and out-of-range values (nd_convert.h), a complex's real
 * part, "!= 0" to bool. */
static void test_casts(void **state)
{
    (void)state;
    nd_random_seed(25);
    for (int f = 0; f < N_DTYPES; f++) {
        NdArray *a = values(all_dtypes[f], false);
        if (all_dtypes[f] == ND_FLOAT64) {
            ND_DATA(a, double)[0] = NAN;
            ND_DATA(a, double)[1] = 1e300;
            ND_DATA(a, double)[2] = -300.5;
        }
        for (int t = 0; t < N_DTYPES; t++) {
            NdArray *want = nd_astype(a, all_dtypes[t]);
            NdArray *got = nd_empty(all_dtypes[t], a->ndim, a->shape);
            if (host_cast(got, a) != 0)
                fail_msg("cast: %s", host_elements_error());
            char what[64];
            snprintf(what, sizeof what, "cast from %s",
                     nd_dtype_name(all_dtypes[f]));
            for (int64_t i = 0; i < a->size; i++) {
                double complex w = element_of(want, i), g = element_of(got, i);
                bool same = (creal(w) == creal(g) ||
                             (isnan(creal(w)) && isnan(creal(g)))) &&
                            (cimag(w) == cimag(g) ||
                             (isnan(cimag(w)) && isnan(cimag(g))));
                if (!same)
                    fail_msg("%s to %s, element %lld: the kernel's convert "
                             "gives %.17g%+.17gj, nd_astype %.17g%+.17gj",
                             what, nd_dtype_name(all_dtypes[t]),
                             (long long)i, creal(g), cimag(g), creal(w),
                             cimag(w));
            }
            nd_release(got);
            nd_release(want);
        }
        nd_release(a);
    }
}

/* ------------------------------------------------------------ SGD */

/* SGD's update in one kernel, dst -= a * v, against the CPU half's
 * nd_isub_scaled: exactly, for both float dtypes, the product rounded
 * before the subtraction as NumPy's two ufuncs round. With a = 1/3 and
 * these values the rounded product differs from the exact one in most
 * elements, so a fused multiply-add, or a computed in double for
 * float32, fails here. v as dst itself too. */
/* Asserts that float arrays want and got hold the same numbers, bit for
 * bit. Borrows both. */
static void expect_exact(const char *what, const NdArray *want,
                         const NdArray *got)
{
    assert_int_equal(got->dtype, want->dtype);
    assert_int_equal(got->size, want->size);
    for (int64_t i = 0; i < want->size; i++) {
        double w = creal(element_of(want, i)), g = creal(element_of(got, i));
        if (w != g)
            fail_msg("%s, %s, element %lld: the kernel's function gives "
                     "%.17g, the CPU half %.17g", what,
                     nd_dtype_name(want->dtype), (long long)i, g, w);
    }
}

static void test_scaled_sub(void **state)
{
    (void)state;
    nd_random_seed(26);
    NdDtype floats[] = {ND_FLOAT32, ND_FLOAT64};
    for (int f = 0; f < 2; f++) {
        NdArray *v = values(floats[f], false);
        NdArray *want = values(floats[f], false);
        NdArray *got = nd_copy(want);
        nd_isub_scaled(want, 1.0 / 3, v);
        assert_int_equal(host_scaled_sub(got, 1.0 / 3, v), 0);
        expect_exact("scaled_sub", want, got);
        nd_isub_scaled(want, 0.01, want);
        assert_int_equal(host_scaled_sub(got, 0.01, got), 0);
        expect_exact("scaled_sub, v = dst", want, got);
        nd_release(got);
        nd_release(want);
        nd_release(v);
    }
    NdArray *ints = values(ND_INT64, false);
    assert_int_equal(host_scaled_sub(ints, 0.5, ints), -1);
    assert_non_null(strstr(host_elements_error(), "not supported"));
    nd_release(ints);
}

/* The kernel for many pairs walks their elements taken together: each
 * pair of sizes 1 to 300 (the weights and biases of a small MLP, a
 * pair that is its own v) must come out as nd_isub_scaled leaves it,
 * exactly, none touched twice or left out. */
static void test_scaled_sub_each(void **state)
{
    (void)state;
    nd_random_seed(30);
    static const int64_t sizes[] = {300, 7, 1, 64, 5};
    enum { PAIRS = 5 };
    NdDtype floats[] = {ND_FLOAT32, ND_FLOAT64};
    for (int f = 0; f < 2; f++) {
        NdArray *want[PAIRS], *got[PAIRS], *v[PAIRS];
        for (int k = 0; k < PAIRS; k++) {
            NdArray *x = nd_random_randn(ND_SHAPE(sizes[k]));
            want[k] = nd_astype(x, floats[f]);
            got[k] = nd_copy(want[k]);
            NdArray *y = nd_random_randn(ND_SHAPE(sizes[k]));
            v[k] = k == 3 ? got[k] : nd_astype(y, floats[f]);
            nd_isub_scaled(want[k], 0.01, k == 3 ? want[k] : v[k]);
            nd_release(y);
            nd_release(x);
        }
        assert_int_equal(host_scaled_sub_each(PAIRS, got, 0.01,
                                              (const NdArray **)v), 0);
        for (int k = 0; k < PAIRS; k++) {
            expect_exact("scaled_sub_each", want[k], got[k]);
            if (k != 3)
                nd_release(v[k]);
            nd_release(got[k]);
            nd_release(want[k]);
        }
    }
    NdArray *ints = values(ND_INT64, false);
    assert_int_equal(host_scaled_sub_each(1, &ints, 0.5,
                                          (const NdArray **)&ints), -1);
    assert_non_null(strstr(host_elements_error(), "not supported"));
    nd_release(ints);
}

/* The sigmoid's gradient, (gy * y) * (1 - y): products and a
 * difference, rounded alike on both sides, so exactly the CPU's. */
static void test_sigmoid_grad(void **state)
{
    (void)state;
    nd_random_seed(27);
    NdDtype floats[] = {ND_FLOAT32, ND_FLOAT64};
    for (int f = 0; f < 2; f++) {
        NdArray *x = values(floats[f], false);
        NdArray *y = nd_sigmoid(x), *gy = values(floats[f], false);
        NdArray *want = nd_sigmoid_grad(y, gy);
        NdArray *got = nd_empty(want->dtype, want->ndim, want->shape);
        assert_int_equal(host_sigmoid_grad(got, y, gy), 0);
        expect_exact("sigmoid_grad", want, got);
        nd_release(got);
        nd_release(want);
        nd_release(gy);
        nd_release(y);
        nd_release(x);
    }
    NdArray *ints = values(ND_INT64, false);
    assert_int_equal(host_sigmoid_grad(ints, ints, ints), -1);
    assert_non_null(strstr(host_elements_error(), "not supported"));
    nd_release(ints);
}

/* Normalize's (x - mean) / std: a difference and a quotient, rounded
 * alike on both sides, so exactly the CPU's; MNIST's numbers (0, 255)
 * and others. */
static void test_normalize(void **state)
{
    (void)state;
    nd_random_seed(31);
    static const double numbers[][2] = {{0, 255}, {0.1307, 0.3081},
                                        {-3, 7}};
    NdDtype floats[] = {ND_FLOAT32, ND_FLOAT64};
    for (int f = 0; f < 2; f++) {
        NdArray *x = values(floats[f], false);
        for (int k = 0; k < 3; k++) {
            NdArray *want = nd_normalize(x, numbers[k][0], numbers[k][1]);
            NdArray *got = nd_empty(want->dtype, want->ndim, want->shape);
            assert_int_equal(host_normalize(got, x, numbers[k][0],
                                            numbers[k][1]), 0);
            expect_exact("normalize", want, got);
            nd_release(got);
            nd_release(want);
        }
        nd_release(x);
    }
    NdArray *ints = values(ND_INT64, false);
    assert_int_equal(host_normalize(ints, ints, 0, 1), -1);
    assert_non_null(strstr(host_elements_error(), "not supported"));
    nd_release(ints);
}

/* ------------------------------------------------------------ arange */

/* The arange kernel's elements against nd_arange, exactly: NumPy's
 * rounding (arange(1, 7.4, 0.1)[3] is 1.3000000000000003 in float64,
 * and float32 computes in float32), negative steps, and the integer
 * dtypes, which compute in double and store. */
static void test_arange(void **state)
{
    (void)state;
    static const struct {
        double start, stop, step;
    } ranges[] = {{1, 7.4, 0.1}, {0, 100, 1}, {5, -3.5, -0.3},
                  {-3, 200, 7}, {0.5, 1, 0.25}};
    NdDtype dtypes[] = {ND_UINT8, ND_INT64, ND_FLOAT32, ND_FLOAT64,
                        ND_COMPLEX128};
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
        for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
            NdArray *want = nd_arange(ranges[r].start, ranges[r].stop,
                                      ranges[r].step, dtypes[k]);
            NdArray *got = nd_empty(dtypes[k], 1, want->shape);
            assert_int_equal(host_arange(got, ranges[r].start,
                                         ranges[r].step), 0);
            assert_memory_equal(got->data, want->data, nd_nbytes(want));
            nd_release(got);
            nd_release(want);
        }
    }
}

/* ------------------------------------------------------------ softmax */

/* softmax.cu's rows against the CPU half's chains, for rows of 1 to
 * 1000 elements: values N(0, 2), one row with a score of 1000 (e^1000
 * overflows unless the max is taken out first) and one with a NaN
 * (which must fill its row). Each result counts in ulps of its row's
 * largest term: a log-softmax x - logsumexp(x) is small where x is
 * the max, though neither term is. Both sides add a row in NumPy's
 * pairwise order; the distances stay within SOFTMAX_ULPS. */
static void test_softmax(void **state)
{
    (void)state;
    nd_random_seed(26);
    static const int64_t widths[] = {1, 3, 10, 100, 1000};
    static const NdDtype dtypes[] = {ND_FLOAT32, ND_FLOAT64};
    for (int log = 0; log <= 1; log++) {
        double largest = 0;
        for (int k = 0; k < 2; k++) {
            for (int w = 0; w < 5; w++) {
                int64_t n = widths[w];
                NdArray *r = nd_random_randn(ND_SHAPE(4, n));
                NdArray *two = nd_scalar(2.0), *x = nd_mul(r, two);
                nd_set_flat(x, n, 1000.0);              /* row 1 */
                nd_set_flat(x, 3 * n + n / 2, NAN);     /* row 3 */
                NdArray *a = nd_astype(x, dtypes[k]);
                NdArray *want = log ? nd_log_softmax(a, -1)
                                    : nd_softmax(a, -1);
                NdArray *got = nd_empty(a->dtype, a->ndim, a->shape);
                assert_int_equal(host_softmax(got, a, log), 0);
                for (int64_t i = 0; i < a->size; i++) {
                    double terms = 0;
                    for (int64_t j = i - i % n; j < i - i % n + n; j++)
                        terms = fmax(terms, fabs(nd_get_flat(a, j)));
                    terms = log ? terms : 0;
                    double d = ulps_apart(nd_get_flat(want, i),
                                          nd_get_flat(got, i), a->dtype,
                                          terms);
                    if (d > SOFTMAX_ULPS)
                        fail_msg("%s, %s, row of %lld, element %lld: the "
                                 "kernel gives %.17g, the CPU half %.17g",
                                 log ? "log_softmax" : "softmax",
                                 nd_dtype_name(a->dtype), (long long)n,
                                 (long long)i, nd_get_flat(got, i),
                                 nd_get_flat(want, i));
                    largest = fmax(largest, d);
                }
                nd_release(got);
                nd_release(want);
                nd_release(a);
                nd_release(x);
                nd_release(two);
                nd_release(r);
            }
        }
        print_message("%-11s largest distance: %g ulps\n",
                      log ? "log_softmax" : "softmax", largest);
    }
    NdArray *ints = nd_zeros(ND_INT64, ND_SHAPE(2, 3));
    NdArray *out = nd_empty(ND_INT64, ND_SHAPE(2, 3));
    assert_int_equal(host_softmax(out, ints, false), -1);
    assert_non_null(strstr(host_elements_error(), "not supported"));
    nd_release(out);
    nd_release(ints);
}

/* ------------------------------------------------ softmax cross-entropy */

/* softmax.cu's loss, -sum(log_softmax(x)[i, t[i]]) / N, against the CPU
 * half's chain, for float32 and float64 scores with uint8 and int64
 * labels, 1 to 3000 rows of 1 to 1000 classes, N(0, 2), and once a
 * score of 1000. The loss is the mean of terms as large as the scores
 * and their logsumexp, each within an ulp or so, added in the same
 * order on both sides: it counts in ulps at that size, max |x| + log C.
 * A label out of range makes the kernel's loss NaN, as nothing is read
 * for it. */
static void test_cross_entropy(void **state)
{
    (void)state;
    nd_random_seed(29);
    static const int64_t heights[] = {1, 7, 100, 3000};
    static const int64_t widths[] = {1, 10, 1000};
    static const NdDtype floats[] = {ND_FLOAT32, ND_FLOAT64};
    static const NdDtype label_dtypes[] = {ND_UINT8, ND_INT64};
    double largest = 0;
    for (int h = 0; h < 4; h++) {
        for (int w = 0; w < 3; w++) {
            int64_t N = heights[h], C = widths[w];
            NdArray *r = nd_random_randn(ND_SHAPE(N, C));
            NdArray *two = nd_scalar(2.0), *x = nd_mul(r, two);
            if (N == 100)
                nd_set_flat(x, N * C / 2, 1000.0);
            NdArray *size = nd_abs(x);
            NdArray *top = nd_max(size, ND_ALL_AXES, false);
            double terms = nd_item(top) + log((double)C);
            NdArray *picks = nd_random_randint(0, C < 256 ? C : 256,
                                               ND_SHAPE(N));
            for (int k = 0; k < 4; k++) {
                NdArray *a = nd_astype(x, floats[k / 2]);
                NdArray *t = nd_astype(picks, label_dtypes[k % 2]);
                NdArray *want = nd_softmax_cross_entropy(a, t);
                NdArray *got = nd_empty(a->dtype, ND_SCALAR_SHAPE);
                assert_int_equal(host_softmax_cross_entropy(got, a, t), 0);
                double d = ulps_apart(nd_item(want), nd_item(got),
                                      a->dtype, terms);
                if (d > SOFTMAX_ULPS)
                    fail_msg("%s scores, %s labels, (%lld, %lld): the "
                             "kernel gives %.17g, the CPU half %.17g",
                             nd_dtype_name(a->dtype),
                             nd_dtype_name(t->dtype), (long long)N,
                             (long long)C, nd_item(got), nd_item(want));
                largest = fmax(largest, d);
                nd_release(got);
                nd_release(want);
                nd_release(t);
                nd_release(a);
            }
            nd_release(top);
            nd_release(size);
            nd_release(picks);
            nd_release(x);
            nd_release(two);
            nd_release(r);
        }
    }
    print_message("softmax_cross_entropy largest distance: %g ulps\n",
                  largest);
    NdArray *x = nd_zeros(ND_FLOAT32, ND_SHAPE(2, 3));
    NdArray *loss = nd_empty(ND_FLOAT32, ND_SCALAR_SHAPE);
    NdArray *wrong = nd_from_buffer(ND_INT64, ND_SHAPE(2),
                                    (int64_t[]){0, 3});
    assert_int_equal(host_softmax_cross_entropy(loss, x, wrong), 0);
    assert_true(isnan(nd_item(loss)));
    NdArray *ints = nd_zeros(ND_INT64, ND_SHAPE(2, 3));
    NdArray *int_loss = nd_empty(ND_INT64, ND_SCALAR_SHAPE);
    assert_int_equal(host_softmax_cross_entropy(int_loss, ints, wrong), -1);
    assert_non_null(strstr(host_elements_error(), "not supported"));
    nd_release(int_loss);
    nd_release(ints);
    nd_release(wrong);
    nd_release(loss);
    nd_release(x);
}

/* ---- its gradient */

/* softmax.cu's rows of nd_softmax_cross_entropy_grad, (p - onehot) g,
 * against the CPU half's chain: float32 and float64 scores with uint8
 * and int64 labels (float32 with int64 gives float64) and a gy of
 * either dtype, rows of 1 to 1000 classes, one with a score of 1000 and
 * one with a NaN, as test_softmax's. An element counts in ulps of the
 * scores' dtype at the size of g, its largest term: p carries the
 * softmax's distance, and p - 1 the same, not more. */
static void test_cross_entropy_grad(void **state)
{
    (void)state;
    nd_random_seed(28);
    static const int64_t widths[] = {1, 3, 10, 100, 1000};
    static const NdDtype floats[] = {ND_FLOAT32, ND_FLOAT64};
    static const NdDtype label_dtypes[] = {ND_UINT8, ND_INT64};
    double largest = 0;
    for (int k = 0; k < 2; k++) {
        for (int w = 0; w < 5; w++) {
            int64_t n = widths[w];
            NdArray *r = nd_random_randn(ND_SHAPE(4, n));
            NdArray *two = nd_scalar(2.0), *x = nd_mul(r, two);
            nd_set_flat(x, n, 1000.0);                  /* row 1 */
            nd_set_flat(x, 3 * n + n / 2, NAN);         /* row 3 */
            NdArray *a = nd_astype(x, floats[k]);
            NdArray *picks = nd_random_randint(0, n < 256 ? n : 256,
                                               ND_SHAPE(4));
            for (int l = 0; l < 2; l++) {
                NdArray *t = nd_astype(picks, label_dtypes[l]);
                NdArray *gy = nd_scalar_of(floats[l], 0.75);
                NdArray *want = nd_softmax_cross_entropy_grad(a, t, gy);
                assert_int_equal(want->dtype,
                                 nd_promote(a->dtype, t->dtype));
                NdArray *got = nd_empty(want->dtype, ND_SHAPE(4, n));
                assert_int_equal(
                    host_softmax_cross_entropy_grad(got, a, t, gy), 0);
                for (int64_t i = 0; i < a->size; i++) {
                    double d = ulps_apart(nd_get_flat(want, i),
                                          nd_get_flat(got, i), a->dtype,
                                          0.75 / 4);
                    if (d > SOFTMAX_ULPS)
                        fail_msg("%s scores, %s labels, row of %lld, "
                                 "element %lld: the kernel gives %.17g, "
                                 "the CPU half %.17g",
                                 nd_dtype_name(a->dtype),
                                 nd_dtype_name(t->dtype), (long long)n,
                                 (long long)i, nd_get_flat(got, i),
                                 nd_get_flat(want, i));
                    largest = fmax(largest, d);
                }
                nd_release(got);
                nd_release(want);
                nd_release(gy);
                nd_release(t);
            }
            nd_release(picks);
            nd_release(a);
            nd_release(x);
            nd_release(two);
            nd_release(r);
        }
    }
    print_message("softmax_cross_entropy_grad largest distance: %g ulps\n",
                  largest);
    NdArray *ints = nd_zeros(ND_INT64, ND_SHAPE(2, 3));
    NdArray *t = nd_zeros(ND_INT64, ND_SHAPE(2)), *gy = nd_scalar(1.0);
    NdArray *out = nd_empty(ND_FLOAT64, ND_SHAPE(2, 3));
    assert_int_equal(host_softmax_cross_entropy_grad(out, ints, t, gy), -1);
    assert_non_null(strstr(host_elements_error(), "not supported"));
    NdArray *x32 = nd_zeros(ND_FLOAT32, ND_SHAPE(2, 3));
    NdArray *out32 = nd_empty(ND_FLOAT32, ND_SHAPE(2, 3));
    assert_int_equal(host_softmax_cross_entropy_grad(out32, x32, t, gy), -1);
    assert_non_null(strstr(host_elements_error(), "wrong dtype"));
    nd_release(out32);
    nd_release(x32);
    nd_release(out);
    nd_release(gy);
    nd_release(t);
    nd_release(ints);
}

/* ulps_apart itself, on numbers whose distance is known. */
static void test_ulps_apart(void **state)
{
    (void)state;
    assert_true(ulps_apart(1.0, nextafter(1.0, 2), ND_FLOAT64, 0) == 1);
    assert_true(ulps_apart(1.0, nextafterf(1.0f, 2), ND_FLOAT32, 0) == 1);
    assert_true(ulps_apart(-0.0960366249, -0.0960366249 + 3 * 0x1p-27,
                           ND_FLOAT32, 0) == 3);
    /* Near zero, measured at the scale of the terms. */
    assert_true(ulps_apart(1e-9, 0.0, ND_FLOAT32, 1.0) < 0.01);
    assert_true(ulps_apart(1e-9, 0.0, ND_FLOAT32, 0) > 1e6);
    assert_true(ulps_apart(NAN, NAN, ND_FLOAT32, 0) == 0);
    assert_true(ulps_apart(INFINITY, INFINITY, ND_FLOAT64, 0) == 0);
    assert_true(isinf(ulps_apart(INFINITY, 1.0, ND_FLOAT64, 0)));
    assert_true(isinf(ulps_apart(NAN, 1.0, ND_FLOAT64, 0)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ulps_apart),
        cmocka_unit_test(test_unary),
        cmocka_unit_test(test_binary),
        cmocka_unit_test(test_casts),
        cmocka_unit_test(test_scaled_sub),
        cmocka_unit_test(test_scaled_sub_each),
        cmocka_unit_test(test_sigmoid_grad),
        cmocka_unit_test(test_normalize),
        cmocka_unit_test(test_arange),
        cmocka_unit_test(test_softmax),
        cmocka_unit_test(test_cross_entropy),
        cmocka_unit_test(test_cross_entropy_grad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
