/* linalg.c - matrix products: nd_matmul, nd_matmul_t (also over stacks
 * of matrices) and nd_dot. A float or complex product calls the BLAS
 * routine NumPy 1.24 calls for the same shapes (gemm, gemv, dot or
 * syrk), so results agree with NumPy's to the bit; integers and bools
 * are summed in int64. On the GPU every product is one gemm (cuBLAS, or
 * an int64 kernel), one per matrix of a stack. */
#include <cblas.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include "nd_internal.h"

/* One operand as BLAS sees it: op(x) has rows x cols elements and is
 * stored row-major with ld elements per stored row; trans says op(x) is
 * the transpose of what is stored. */
typedef struct Operand {
    const void *data;
    bool trans;
    int64_t rows, cols;
    int64_t ld;
} Operand;

/* Steps, in elements, between neighbours of op(x) down a column and
 * along a row. */
static int64_t row_step(const Operand *x) { return x->trans ? 1 : x->ld; }
static int64_t col_step(const Operand *x) { return x->trans ? x->ld : 1; }

static enum CBLAS_TRANSPOSE blas_trans(const Operand *x)
{
    return x->trans ? CblasTrans : CblasNoTrans;
}

/* op(x) of a 2-D array x, or of a 1-D array read as a row or column. */
static Operand operand(const NdArray *x, bool trans, bool as_row)
{
    Operand op = {.data = x->data, .trans = trans};
    int64_t stored_rows = x->shape[0], stored_cols = 1;
    if (x->ndim == 2)
        stored_cols = x->shape[1];
    else if (as_row) {
        stored_rows = 1;
        stored_cols = x->shape[0];
    }
    op.ld = stored_cols;
    op.rows = trans ? stored_cols : stored_rows;
    op.cols = trans ? stored_rows : stored_cols;
    return op;
}

/* ------------------------------------------------------------ integers */

static int64_t load_int(const void *data, NdDtype dtype, int64_t i)
{
    switch (dtype) {
    case ND_BOOL: return ((const bool *)data)[i];
    case ND_UINT8: return ((const uint8_t *)data)[i];
    default: return ((const int64_t *)data)[i];
    }
}

/* Integers and bools have no BLAS: sums of products in int64 (wrapping
 * as NumPy's do), stored in out's dtype. A bool product is "any". */
static void integer_product(const NdArray *a_arr, const Operand *a,
                            const NdArray *b_arr, const Operand *b,
                            NdArray *out)
{
    int64_t m = a->rows, k = a->cols, n = b->cols;
    for (int64_t i = 0; i < m; i++) {
        for (int64_t j = 0; j < n; j++) {
            uint64_t sum = 0;       /* unsigned: overflow wraps */
            for (int64_t p = 0; p < k; p++) {
                int64_t x = load_int(a_arr->data, a_arr->dtype,
                                     i * row_step(a) + p * col_step(a));
                int64_t y = load_int(b_arr->data, b_arr->dtype,
                                     p * row_step(b) + j * col_step(b));
                sum += (uint64_t)x * (uint64_t)y;
            }
            int64_t o = i * n + j;
            if (out->dtype == ND_BOOL)
                ND_DATA(out, bool)[o] = sum != 0;
            else if (out->dtype == ND_UINT8)
                ND_DATA(out, uint8_t)[o] = (uint8_t)sum;
            else
                ND_DATA(out, int64_t)[o] = (int64_t)sum;
        }
    }
}

/* ------------------------------------------------------------ BLAS */

static const float complex ONE_C = 1, ZERO_C = 0;
static const double complex ONE_Z = 1, ZERO_Z = 0;

/* 1x1 result: a row times a column, through ?dot. NumPy adds the BLAS
 * result (each part of a complex one) to a double 0.0, which turns -0.0
 * into +0.0; so do we. */
static void blas_dot(NdDtype dtype, const Operand *a, const Operand *b,
                     void *out)
{
    int k = (int)a->cols, ia = (int)col_step(a), ib = (int)row_step(b);
    switch (dtype) {
    case ND_FLOAT32:
        *(float *)out = (float)(0.0 + cblas_sdot(k, a->data, ia, b->data,
                                                 ib));
        break;
    case ND_FLOAT64:
        *(double *)out = 0.0 + cblas_ddot(k, a->data, ia, b->data, ib);
        break;
    case ND_COMPLEX64: {
        float complex dot;
        cblas_cdotu_sub(k, a->data, ia, b->data, ib, &dot);
        *(float complex *)out = CMPLXF((float)(0.0 + crealf(dot)),
                                       (float)(0.0 + cimagf(dot)));
        break;
    }
    default: {
        double complex dot;
        cblas_zdotu_sub(k, a->data, ia, b->data, ib, &dot);
        *(double complex *)out = CMPLX(0.0 + creal(dot),
                                       0.0 + cimag(dot));
        break;
    }
    }
}

/* y = A^T x through ?gemv, A a k x n matrix (stored row-major when
 * row_major, else column-major) with leading dimension lda. */
static void blas_gemv(NdDtype dtype, bool row_major, int64_t k, int64_t n,
                      const void *A, int64_t lda, const void *x,
                      int64_t incx, void *y)
{
    enum CBLAS_ORDER order = row_major ? CblasRowMajor : CblasColMajor;
    int K = (int)k, N = (int)n, LDA = (int)lda, INCX = (int)incx;
    switch (dtype) {
    case ND_FLOAT32:
        cblas_sgemv(order, CblasTrans, K, N, 1.0f, A, LDA, x, INCX, 0.0f,
                    y, 1);
        break;
    case ND_FLOAT64:
        cblas_dgemv(order, CblasTrans, K, N, 1.0, A, LDA, x, INCX, 0.0,
                    y, 1);
        break;
    case ND_COMPLEX64:
        cblas_cgemv(order, CblasTrans, K, N, &ONE_C, A, LDA, x, INCX,
                    &ZERO_C, y, 1);
        break;
    default:
        cblas_zgemv(order, CblasTrans, K, N, &ONE_Z, A, LDA, x, INCX,
                    &ZERO_Z, y, 1);
        break;
    }
}

/* A 1 x n row times a k x n matrix op(b): (1, n). */
static void vector_matrix(NdDtype dtype, const Operand *a,
                          const Operand *b, void *out)
{
    /* op(b) read with A^T: stored b as is when not transposed, else as
     * its column-major transpose. */
    blas_gemv(dtype, !b->trans, b->rows, b->cols, b->data, b->ld,
              a->data, col_step(a), out);
}

/* An m x k matrix op(a) times a column: (m, 1). */
static void matrix_vector(NdDtype dtype, const Operand *a,
                          const Operand *b, void *out)
{
    blas_gemv(dtype, a->trans, a->cols, a->rows, a->data, a->ld, b->data,
              row_step(b), out);
}

static void blas_gemm(NdDtype dtype, const Operand *a, const Operand *b,
                      void *out)
{
    int m = (int)a->rows, k = (int)a->cols, n = (int)b->cols;
    int lda = (int)a->ld, ldb = (int)b->ld;
    enum CBLAS_TRANSPOSE ta = blas_trans(a), tb = blas_trans(b);
    switch (dtype) {
    case ND_FLOAT32:
        cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, a->data, lda,
                    b->data, ldb, 0.0f, out, n);
        break;
    case ND_FLOAT64:
        cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, a->data, lda,
                    b->data, ldb, 0.0, out, n);
        break;
    case ND_COMPLEX64:
        cblas_cgemm(CblasRowMajor, ta, tb, m, n, k, &ONE_C, a->data, lda,
                    b->data, ldb, &ZERO_C, out, n);
        break;
    default:
        cblas_zgemm(CblasRowMajor, ta, tb, m, n, k, &ONE_Z, a->data, lda,
                    b->data, ldb, &ZERO_Z, out, n);
        break;
    }
}

/* x @ x.T or x.T @ x: the same stored matrix on both sides, transposed
 * on one. NumPy computes the upper triangle with ?syrk and mirrors it. */
static bool is_gram_product(const Operand *a, const Operand *b)
{
    return a->data == b->data && a->trans != b->trans && a->ld == b->ld &&
           a->rows == b->cols;
}

static void blas_syrk(NdDtype dtype, const Operand *a, void *out)
{
    int n = (int)a->rows, k = (int)a->cols, lda = (int)a->ld;
    enum CBLAS_TRANSPOSE ta = blas_trans(a);
    size_t size = nd_dtype_size(dtype);
    switch (dtype) {
    case ND_FLOAT32:
        cblas_ssyrk(CblasRowMajor, CblasUpper, ta, n, k, 1.0f, a->data,
                    lda, 0.0f, out, n);
        break;
    case ND_FLOAT64:
        cblas_dsyrk(CblasRowMajor, CblasUpper, ta, n, k, 1.0, a->data,
                    lda, 0.0, out, n);
        break;
    case ND_COMPLEX64:
        cblas_csyrk(CblasRowMajor, CblasUpper, ta, n, k, &ONE_C, a->data,
                    lda, &ZERO_C, out, n);
        break;
    default:
        cblas_zsyrk(CblasRowMajor, CblasUpper, ta, n, k, &ONE_Z, a->data,
                    lda, &ZERO_Z, out, n);
        break;
    }
    char *c = out;
    for (int i = 0; i < n; i++)         /* lower triangle from upper */
        for (int j = i + 1; j < n; j++)
            memcpy(c + ((size_t)j * n + i) * size,
                   c + ((size_t)i * n + j) * size, size);
}

/* k == 1: each element is one product. NumPy's loop adds it to 0, which
 * turns -0.0 into +0.0; so do we. The loop GCC vectorises runs along
 * the longer side: down each column (x times y[j]) when the rows are
 * shorter, as for (100, 1) @ (1, 10), else along each row (x[i] times
 * y). */
#define OUTER_PRODUCT(T, ZERO)                                            \
    do {                                                                  \
        const T *x = a->data, *y = b->data;                               \
        int64_t xs = row_step(a), ys = col_step(b);                       \
        if (n < m && xs == 1) {                                           \
            for (int64_t j = 0; j < n; j++) {                             \
                T yj = y[j * ys], *o = (T *)out + j;                      \
                for (int64_t i = 0; i < m; i++)                           \
                    o[i * n] = ZERO + x[i] * yj;                          \
            }                                                             \
        } else {                                                          \
            for (int64_t i = 0; i < m; i++) {                             \
                T xi = x[i * xs], *o = (T *)out + i * n;                  \
                if (ys == 1)                                              \
                    for (int64_t j = 0; j < n; j++)                       \
                        o[j] = ZERO + xi * y[j];                          \
                else                                                      \
                    for (int64_t j = 0; j < n; j++)                       \
                        o[j] = ZERO + xi * y[j * ys];                     \
            }                                                             \
        }                                                                 \
    } while (0)

/* Complex products written out as NumPy's loop writes them. */
#define OUTER_PRODUCT_COMPLEX(T, R)                                       \
    do {                                                                  \
        const R *x = a->data, *y = b->data;                               \
        R *o = out;                                                       \
        for (int64_t i = 0; i < m; i++)                                   \
            for (int64_t j = 0; j < n; j++) {                             \
                const R *p = x + 2 * i * row_step(a);                     \
                const R *q = y + 2 * j * col_step(b);                     \
                R *r = o + 2 * (i * n + j);                               \
                r[0] = (R)0 + (p[0] * q[0] - p[1] * q[1]);                \
                r[1] = (R)0 + (p[0] * q[1] + p[1] * q[0]);                \
            }                                                             \
    } while (0)

/* Compiled once per instruction set, the loader picking the widest the
 * CPU has: a product is the same in every width. */
__attribute__((target_clones("avx512f", "avx2", "default")))
static void outer_product(NdDtype dtype, const Operand *a,
                          const Operand *b, void *out)
{
    int64_t m = a->rows, n = b->cols;
    switch (dtype) {
    case ND_FLOAT32: OUTER_PRODUCT(float, 0.0f); break;
    case ND_FLOAT64: OUTER_PRODUCT(double, 0.0); break;
    case ND_COMPLEX64: OUTER_PRODUCT_COMPLEX(float complex, float); break;
    default: OUTER_PRODUCT_COMPLEX(double complex, double); break;
    }
}

/* Products of fewer multiply-adds than this run on one thread. OpenBLAS
 * wakes its pool for a gemv of 9,216 elements and a gemm of 262,144
 * multiply-adds, where the other core's start, and its spinning after,
 * cost more than the product: an RNN's (1, 100) @ (100, 100) each step
 * (step 59) ran three times slower in CPU, and ten times in wall time on
 * a loaded two-core machine, than on one thread. Each element is still
 * summed by one thread, in the same order: the result does not change. */
enum { ONE_THREAD_BELOW = 1 << 19 };

/* op(a) @ op(b) into out, (m, n) in C order, for float or complex
 * operands of out's dtype: the routine NumPy's matmul picks, on one
 * thread when the product is small. */
static void float_product(const Operand *a, const Operand *b,
                          NdArray *out)
{
    int64_t m = a->rows, k = a->cols, n = b->cols;
    if (m == 0 || n == 0)
        return;
    if (k == 0) {
        memset(out->data, 0, (size_t)out->size * nd_dtype_size(out->dtype));
        return;
    }
    int threads = openblas_get_num_threads();
    bool one_thread = threads > 1 && (double)m * (double)n * (double)k <
                                         (double)ONE_THREAD_BELOW;
    if (one_thread)
        openblas_set_num_threads(1);
    NdDtype dtype = out->dtype;
    if (m == 1 && n == 1)
        blas_dot(dtype, a, b, out->data);
    else if (k == 1)
        outer_product(dtype, a, b, out->data);
    else if (m == 1)
        vector_matrix(dtype, a, b, out->data);
    else if (n == 1)
        matrix_vector(dtype, a, b, out->data);
    else if (is_gram_product(a, b))
        blas_syrk(dtype, a, out->data);
    else
        blas_gemm(dtype, a, b, out->data);
    if (one_thread)
        openblas_set_num_threads(threads);
}

/* BLAS takes int dimensions. */
static void check_blas_limits(const char *name, const Operand *a,
                              const Operand *b)
{
    int64_t m = a->rows, k = a->cols, n = b->cols;
    if (m > INT_MAX || n > INT_MAX || k > INT_MAX || a->ld > INT_MAX ||
        b->ld > INT_MAX)
        nd_error(name, "a (%" PRId64 ",%" PRId64 ") @ (%" PRId64 ",%"
                 PRId64 ") product has a dimension over BLAS's limit %d",
                 m, k, k, n, INT_MAX);
}

/* ------------------------------------------------------------ GPU */

/* x's header read as the 2-D matrix the operand is stored as: a 1-D x
 * as a row (1, n) or a column (n, 1). */
static NdArray as_matrix(const NdArray *x, bool as_row)
{
    NdArray m = *x;
    if (x->ndim == 1) {
        m.ndim = 2;
        m.shape[0] = as_row ? 1 : x->shape[0];
        m.shape[1] = as_row ? x->shape[0] : 1;
    }
    return m;
}

/* out, a product computed in a working dtype, as a result of dtype:
 * itself, or its cast, out then released. Takes out's reference. */
static NdArray *as_result(NdArray *out, NdDtype dtype)
{
    if (out->dtype == dtype)
        return out;
    NdArray *cast = nd_astype(out, dtype);
    nd_release(out);
    return cast;
}

/* op(a) @ op(b) on the GPU, into a new array of dtype and shape: one
 * gemm, on int64 copies of integer and bool operands whose result is
 * then cast back (a bool product is "any", as on the host). */
static NdArray *gpu_product(const char *name, const NdArray *a,
                            bool trans_a, const NdArray *b, bool trans_b,
                            NdDtype dtype, int ndim, const int64_t *shape)
{
    bool exact = !nd_dtype_is_float(dtype) && !nd_dtype_is_complex(dtype);
    NdDtype work = exact ? ND_INT64 : dtype;
    NdArray *ca = nd_as_dtype(a, work), *cb = nd_as_dtype(b, work);
    NdArray *out = nd_empty_on(a->device, work, ndim, shape);
    NdArray ma = as_matrix(ca, true), mb = as_matrix(cb, false);
    NdArray mc = *out;                  /* (rows of op(a), cols of op(b)) */
    mc.ndim = 2;
    mc.shape[0] = trans_a ? ma.shape[1] : ma.shape[0];
    mc.shape[1] = trans_b ? mb.shape[0] : mb.shape[1];
    nd_device_check(name, a->device,
                    nd_kernels(a->device)->gemm(&mc, &ma, trans_a, &mb,
                                                trans_b));
    nd_release(ca);
    nd_release(cb);
    return as_result(out, dtype);
}

/* ------------------------------------------------------------ products */

/* op(a) @ op(b) of operands already checked: the result has the dtype
 * NumPy gives it (promotion, not value-based) and out_ndim dimensions,
 * the rows of op(a) and the columns of op(b), less those of 1-D ones. */
static NdArray *product(const char *name, const NdArray *a, bool trans_a,
                        const NdArray *b, bool trans_b)
{
    NdDtype dtype = nd_promote(a->dtype, b->dtype);
    Operand oa = operand(a, trans_a, true);
    Operand ob = operand(b, trans_b, false);
    int64_t shape[2];
    int ndim = 0;
    if (a->ndim == 2)
        shape[ndim++] = oa.rows;
    if (b->ndim == 2)
        shape[ndim++] = ob.cols;
    if (nd_kernels(a->device)) {        /* cuBLAS takes ints too */
        check_blas_limits(name, &oa, &ob);
        return gpu_product(name, a, trans_a, b, trans_b, dtype, ndim,
                           shape);
    }
    if (!nd_dtype_is_float(dtype) && !nd_dtype_is_complex(dtype)) {
        NdArray *out = nd_empty(dtype, ndim, shape);
        integer_product(a, &oa, b, &ob, out);
        return out;
    }
    check_blas_limits(name, &oa, &ob);
    NdArray *out = nd_empty(dtype, ndim, shape);
    NdArray *ca = nd_as_dtype(a, dtype), *cb = nd_as_dtype(b, dtype);
    oa.data = ca->data;
    ob.data = cb->data;
    float_product(&oa, &ob, out);
    nd_release(ca);
    nd_release(cb);
    return out;
}

/* Matrix s of a stack x (S, rows, cols), or x itself when it is one
 * matrix, which np.matmul uses for every matrix of the other operand's
 * stack: a header onto x's elements, owning nothing. */
static NdArray stack_matrix(const NdArray *x, int64_t s)
{
    NdArray m = *x;
    if (x->ndim == 3) {
        m.ndim = 2;
        m.shape[0] = x->shape[1];
        m.shape[1] = x->shape[2];
        m.shape[2] = 0;
        m.size = x->shape[1] * x->shape[2];
        m.data = (char *)x->data +
                 (size_t)(s * m.size) * nd_dtype_size(x->dtype);
    }
    return m;
}

/* op(a) @ op(b) for each matrix of a stack (np.matmul of 3-D operands,
 * op transposing the last two axes): a new array (S, rows of op(a),
 * columns of op(b)), each matrix computed as product computes a 2-D
 * one, so on one thread when it is small. Integers are summed in int64
 * and cast back, as on the GPU. */
static NdArray *stacked_product(const char *name, const NdArray *a,
                                bool trans_a, const NdArray *b,
                                bool trans_b)
{
    NdDtype dtype = nd_promote(a->dtype, b->dtype);
    bool exact = !nd_dtype_is_float(dtype) && !nd_dtype_is_complex(dtype);
    NdDtype work = exact ? ND_INT64 : dtype;
    int64_t stack = a->ndim == 3 ? a->shape[0] : b->shape[0];
    NdArray a0 = stack_matrix(a, 0), b0 = stack_matrix(b, 0);
    Operand oa = operand(&a0, trans_a, true);
    Operand ob = operand(&b0, trans_b, false);
    check_blas_limits(name, &oa, &ob);
    NdArray *ca = nd_as_dtype(a, work), *cb = nd_as_dtype(b, work);
    NdArray *out = nd_empty_on(a->device, work,
                               ND_SHAPE(stack, oa.rows, ob.cols));
    for (int64_t s = 0; s < stack; s++) {
        NdArray ma = stack_matrix(ca, s), mb = stack_matrix(cb, s);
        NdArray mc = stack_matrix(out, s);
        const NdGpuBackend *kernels = nd_kernels(a->device);
        if (kernels) {
            nd_device_check(name, a->device,
                            kernels->gemm(&mc, &ma, trans_a, &mb, trans_b));
            continue;
        }
        oa = operand(&ma, trans_a, true);
        ob = operand(&mb, trans_b, false);
        if (exact)
            integer_product(&ma, &oa, &mb, &ob, &mc);
        else
            float_product(&oa, &ob, &mc);
    }
    nd_release(ca);
    nd_release(cb);
    return as_result(out, dtype);
}

/* The contracted axes must match: NumPy's "not aligned" message, with
 * ".T" after a shape the product transposes. */
static void check_aligned(const char *name, const NdArray *a, bool trans_a,
                          const NdArray *b, bool trans_b)
{
    int axis_a = trans_a ? a->ndim - 2 : a->ndim - 1;
    int axis_b = trans_b || b->ndim == 1 ? b->ndim - 1 : b->ndim - 2;
    if (a->shape[axis_a] == b->shape[axis_b])
        return;
    char sa[ND_SHAPE_TEXT], sb[ND_SHAPE_TEXT];
    nd_error(name, "shapes %s%s and %s%s not aligned: %" PRId64
             " (dim %d) != %" PRId64 " (dim %d)", nd_shape_text(sa, a),
             trans_a ? ".T" : "", nd_shape_text(sb, b), trans_b ? ".T" : "",
             a->shape[axis_a], axis_a, b->shape[axis_b], axis_b);
}

/* nd_matmul and nd_dot take 1-D and 2-D operands. */
static void check_vector_or_matrix(const char *name, const NdArray *a,
                                   const NdArray *b)
{
    if (a->ndim >= 1 && a->ndim <= 2 && b->ndim >= 1 && b->ndim <= 2)
        return;
    char sa[ND_SHAPE_TEXT], sb[ND_SHAPE_TEXT];
    nd_error(name, "operands of shapes %s and %s: only 1-D and 2-D "
             "operands are supported%s", nd_shape_text(sa, a),
             nd_shape_text(sb, b),
             a->ndim == 0 || b->ndim == 0
                 ? " (scale by a 0-d array with nd_mul)" : "");
}

NdArray *nd_matmul(const NdArray *a, const NdArray *b)
{
    nd_same_device("nd_matmul", 2, (const NdArray *const[]){a, b});
    check_vector_or_matrix("nd_matmul", a, b);
    check_aligned("nd_matmul", a, false, b, false);
    return product("nd_matmul", a, false, b, false);
}

NdArray *nd_matmul_t(const NdArray *a, bool trans_a, const NdArray *b,
                     bool trans_b)
{
    nd_same_device("nd_matmul_t", 2, (const NdArray *const[]){a, b});
    bool stacks = a->ndim == 3 && b->ndim == 3;
    if (a->ndim < 2 || a->ndim > 3 || b->ndim < 2 || b->ndim > 3 ||
        (stacks && a->shape[0] != b->shape[0])) {
        char sa[ND_SHAPE_TEXT], sb[ND_SHAPE_TEXT];
        nd_error("nd_matmul_t", "operands must be 2-D, or 3-D stacks of "
                 "one length, got shapes %s and %s", nd_shape_text(sa, a),
                 nd_shape_text(sb, b));
    }
    check_aligned("nd_matmul_t", a, trans_a, b, trans_b);
    if (a->ndim == 3 || b->ndim == 3)
        return stacked_product("nd_matmul_t", a, trans_a, b, trans_b);
    return product("nd_matmul_t", a, trans_a, b, trans_b);
}

/* np.dot of a 0-d operand is a product by a scalar, in the promoted
 * dtype (np.dot does not use value-based casting). */
static NdArray *scale(const NdArray *a, const NdArray *b)
{
    NdDtype dtype = nd_promote(a->dtype, b->dtype);
    NdArray *ca = nd_as_dtype(a, dtype), *cb = nd_as_dtype(b, dtype);
    NdArray *out = nd_mul(ca, cb);
    nd_release(ca);
    nd_release(cb);
    return out;
}

NdArray *nd_dot(const NdArray *a, const NdArray *b)
{
    nd_same_device("nd_dot", 2, (const NdArray *const[]){a, b});
    if (a->ndim == 0 || b->ndim == 0)
        return scale(a, b);
    check_vector_or_matrix("nd_dot", a, b);
    check_aligned("nd_dot", a, false, b, false);
    /* For 1-D and 2-D operands np.dot makes the same BLAS calls as
     * np.matmul, so gives the same bits, except for complex operands
     * contracted over length 1 (np.dot uses axpy or gemm there) and the
     * sign of a -0.0 product of (1,1) or (1,) operands. */
    return product("nd_dot", a, false, b, false);
}
