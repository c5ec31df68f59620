/* nd.h - the NumPy of this project: n-dimensional arrays with NumPy's
 * dtypes and promotion rules, broadcasting, reductions, BLAS matmul, FFTW
 * FFTs, NumPy's legacy random generator and NumPy's printing.
 *
 * Ownership, once for the whole header: arrays are reference counted.
 * Every function that returns an NdArray * returns a NEW reference that
 * the caller owns and gives back with nd_release(). Arguments are
 * BORROWED: no function keeps or releases an array it is given unless its
 * comment says so. Functions that return char * return malloc'd text the
 * caller frees.
 *
 * Errors: a misuse (shapes that do not broadcast, a bad axis, a dtype an
 * operation refuses, an index out of range, an array on another device)
 * goes to nd_error(), which by default prints one line naming the
 * operation and its operands and exits with status 1.
 */
#ifndef ND_H
#define ND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ types */

typedef enum NdDtype {          /* ordered as NumPy's promotion ladder */
    ND_BOOL,
    ND_UINT8,
    ND_INT64,
    ND_FLOAT32,
    ND_FLOAT64,
    ND_COMPLEX64,
    ND_COMPLEX128,
} NdDtype;
enum { ND_NUM_DTYPES = ND_COMPLEX128 + 1 };

typedef enum NdDevice { ND_CPU, ND_CUDA } NdDevice;

enum { ND_MAX_DIMS = 8 };

typedef struct NdArray {
    NdDtype dtype;
    NdDevice device;
    int ndim;                       /* 0 for a scalar (0-d) array */
    int64_t shape[ND_MAX_DIMS];
    int64_t size;                   /* product of shape; 1 when ndim == 0 */
    void *data;                     /* size elements, C order, contiguous */
    struct NdArray *base;           /* owner of data for a view, or NULL */
    int refcount;
} NdArray;

/* Shapes and axes are passed as (count, pointer) pairs. These macros
 * write both from a list: nd_zeros(ND_FLOAT64, ND_SHAPE(2, 3)). */
#define ND_SHAPE(...) \
    (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), \
    (const int64_t[]){__VA_ARGS__}
#define ND_SCALAR_SHAPE 0, NULL    /* the shape () of a 0-d array */
#define ND_AXES(...) \
    (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), \
    (const int[]){__VA_ARGS__}
#define ND_ALL_AXES -1, NULL       /* axis=None: every axis */
#define ND_NO_AXIS INT32_MIN       /* argmax over the flattened array */

/* Typed access to the elements of a CPU array: ND_DATA(a, float)[i]. */
#define ND_DATA(a, type) ((type *)(a)->data)

/* ------------------------------------------------------------ errors */

/* Reports a misuse or a failed library call: "op: message". Does not
 * return (the default handler exits with status 1; a test's handler
 * longjmps out). */
_Noreturn void nd_error(const char *op, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Called with the full message; must not return (exit or longjmp). */
typedef void (*NdErrorHandler)(const char *message);
/* Installs a handler (NULL restores the default) and returns the old. */
NdErrorHandler nd_set_error_handler(NdErrorHandler handler);

/* ------------------------------------------------------------ dtypes */

const char *nd_dtype_name(NdDtype dtype);     /* "float64", ... */
size_t nd_dtype_size(NdDtype dtype);          /* bytes per element */
bool nd_dtype_is_float(NdDtype dtype);        /* float32 or float64 */
bool nd_dtype_is_complex(NdDtype dtype);
bool nd_dtype_is_integer(NdDtype dtype);      /* uint8 or int64 */
/* NumPy 1.x promotion of two array dtypes (float32+int64 -> float64). */
NdDtype nd_promote(NdDtype a, NdDtype b);
/* The dtype NumPy 1.x gives a binary operation on a and b, with
 * value-based casting: a 0-d operand does not widen an n-d operand of
 * the same kind (float32 array * 0-d float64 -> float32). */
NdDtype nd_result_dtype(const NdArray *a, const NdArray *b);

/* ------------------------------------------------------------ creation */

NdArray *nd_empty(NdDtype dtype, int ndim, const int64_t *shape);
NdArray *nd_zeros(NdDtype dtype, int ndim, const int64_t *shape);
NdArray *nd_ones(NdDtype dtype, int ndim, const int64_t *shape);
NdArray *nd_full(NdDtype dtype, int ndim, const int64_t *shape,
                 double value);
NdArray *nd_zeros_like(const NdArray *a);
NdArray *nd_ones_like(const NdArray *a);
NdArray *nd_full_like(const NdArray *a, double value);
/* nd_empty and nd_full on either device (CuPy's cp.empty and cp.full
 * where device is ND_CUDA): how code that works on both makes an array
 * where another one lives, nd_full_on(x->device, ...). ND_CUDA stops
 * with the reason when GPU support is off. */
NdArray *nd_empty_on(NdDevice device, NdDtype dtype, int ndim,
                     const int64_t *shape);
NdArray *nd_full_on(NdDevice device, NdDtype dtype, int ndim,
                    const int64_t *shape, double value);
/* A 0-d float64 array, like np.array(1.0). */
NdArray *nd_scalar(double value);
/* A 0-d array of any dtype, like np.array(10) for ND_INT64. */
NdArray *nd_scalar_of(NdDtype dtype, double value);
/* Copies size elements of the given dtype from data (C order). */
NdArray *nd_from_buffer(NdDtype dtype, int ndim, const int64_t *shape,
                        const void *data);
/* np.arange(start, stop, step) with the given dtype. */
NdArray *nd_arange(double start, double stop, double step, NdDtype dtype);
/* The same, made on device (xp.arange): on the GPU by a kernel, with no
 * copy from the host. */
NdArray *nd_arange_on(NdDevice device, double start, double stop,
                      double step, NdDtype dtype);
/* np.linspace(start, stop, num): float64, both ends included. */
NdArray *nd_linspace(double start, double stop, int64_t num);
/* np.eye(n, dtype=dtype). */
NdArray *nd_eye(int64_t n, NdDtype dtype);
NdArray *nd_copy(const NdArray *a);
/* a.astype(dtype): always a new array, values converted as C casts do
 * (float to int truncates; complex to real drops the imaginary part),
 * and as NumPy does where C does not say: a NaN, an infinity or a float
 * out of int64's range becomes INT64_MIN (nd_convert.h). */
NdArray *nd_astype(const NdArray *a, NdDtype dtype);

/* ------------------------------------------------------------ lifetime */

/* Adds a reference and returns a (convenient in expressions). */
NdArray *nd_retain(NdArray *a);
/* Drops a reference; frees the array at zero. Accepts NULL. */
void nd_release(NdArray *a);

/* ------------------------------------------------------------ elements */

/* Element i of the flattened array, converted to double (the real part of
 * a complex). On the GPU this copies one value back and synchronises. */
double nd_get_flat(const NdArray *a, int64_t i);
/* Stores value (cast to a's dtype) at flat index i. */
void nd_set_flat(NdArray *a, int64_t i, double value);
/* a.item(): the only element of a size-1 array. */
double nd_item(const NdArray *a);
/* True when both have the same shape and equal elements. */
bool nd_array_equal(const NdArray *a, const NdArray *b);
/* np.allclose(a, b, rtol, atol): |a-b| <= atol + rtol*|b|, broadcast. */
bool nd_allclose(const NdArray *a, const NdArray *b, double rtol,
                 double atol);
/* a.nbytes: the bytes its elements take, on whichever device. */
size_t nd_nbytes(const NdArray *a);
/* "(2, 3)", "(3,)" or "()" as Python prints a shape tuple. */
char *nd_shape_str(const NdArray *a);

/* ------------------------------------------------------------ in place */

/* np.copyto(dst, src): src broadcast to dst's shape, cast to its dtype. */
void nd_copyto(NdArray *dst, const NdArray *src);
/* dst += v, dst -= v, dst *= v: computed with NumPy's promotion, then
 * cast back into dst's storage (the optimizers' "W -= lr * g"). */
void nd_iadd(NdArray *dst, const NdArray *v);
void nd_isub(NdArray *dst, const NdArray *v);
void nd_imul(NdArray *dst, const NdArray *v);
/* dst -= a * v for a number a, as NumPy computes "dst -= a * v": the
 * product in the dtype a 0-d a and v give, then subtracted in place.
 * One pass (one kernel on the GPU), without the product's array, where
 * dst and v are arrays of one float dtype and shape (an SGD step);
 * otherwise (other dtypes, a broadcast v) the two operations. */
void nd_isub_scaled(NdArray *dst, double a, const NdArray *v);
/* nd_isub_scaled(dsts[i], a, vs[i]) for each of n pairs (an SGD step of
 * every parameter): on the GPU, the pairs that take the one-pass kernel
 * are updated by one launch for each float dtype, unless the memory of
 * two pairs overlaps; the others, one by one. */
void nd_isub_scaled_each(int n, NdArray *const dsts[], double a,
                         const NdArray *const vs[]);

/* ------------------------------------------------------------ elementwise */

/* Binary operations broadcast their operands (NumPy's rules) and return
 * nd_result_dtype(a, b); nd_div of integers gives float64, as NumPy's
 * true division does. Comparisons return ND_BOOL arrays. */
NdArray *nd_add(const NdArray *a, const NdArray *b);
NdArray *nd_sub(const NdArray *a, const NdArray *b);
NdArray *nd_mul(const NdArray *a, const NdArray *b);
NdArray *nd_div(const NdArray *a, const NdArray *b);
NdArray *nd_pow(const NdArray *a, const NdArray *b);
NdArray *nd_maximum(const NdArray *a, const NdArray *b);
NdArray *nd_minimum(const NdArray *a, const NdArray *b);
NdArray *nd_equal(const NdArray *a, const NdArray *b);
NdArray *nd_not_equal(const NdArray *a, const NdArray *b);
NdArray *nd_less(const NdArray *a, const NdArray *b);
NdArray *nd_less_equal(const NdArray *a, const NdArray *b);
NdArray *nd_greater(const NdArray *a, const NdArray *b);
NdArray *nd_greater_equal(const NdArray *a, const NdArray *b);

/* Unary operations keep a float dtype and turn integers into float64
 * (np.exp(int) is float64); nd_neg and nd_abs keep integers. */
NdArray *nd_neg(const NdArray *a);
NdArray *nd_exp(const NdArray *a);
NdArray *nd_log(const NdArray *a);
NdArray *nd_sin(const NdArray *a);
NdArray *nd_cos(const NdArray *a);
NdArray *nd_tanh(const NdArray *a);
NdArray *nd_sqrt(const NdArray *a);
NdArray *nd_abs(const NdArray *a);   /* of a complex: its float modulus */

/* Chains of the above that DeZero's functions compute, one kernel each
 * on the GPU (fused.c); on the CPU, the chain, with its numbers.
 * nd_sigmoid: tanh(a * 0.5) * 0.5 + 0.5, the 0.5s in a's float dtype.
 * nd_sigmoid_grad: (gy * y) * (1 - y), the sigmoid's gradient from its
 * output y, the 1 an int64 (DeZero's Python int).
 * nd_softmax: e^(a - max) / sum(e^(a - max)) along axis.
 * nd_log_softmax: a - logsumexp(a) along axis, logsumexp as m + log(sum(
 * e^(a - m))) with m the max: no e^a overflows.
 * nd_softmax_cross_entropy: -sum(log_softmax(x)[i, t[i]]) / N for scores
 * x (N, C) and integer labels t (N values), N a float32 (DeZero's
 * np.float32(N)), so float32 scores give a float32 loss. t must hold
 * classes of 0 .. C - 1: on the CPU another is refused as an index, on
 * the GPU it may make the loss NaN; check t first (nd_check_range).
 * nd_softmax_cross_entropy_grad: (softmax(x) - onehot(t)) * (gy * 1/N),
 * the gradient of softmax cross-entropy for scores x (N, C), integer
 * labels t (N values) and the loss's gradient gy; onehot(t) is t[i] ==
 * j in t's dtype, so a label outside 0 .. C - 1 (not checked) gives a
 * row with no 1 in it.
 * nd_normalize: (a - mean) / std, DeZero's Normalize, the two numbers
 * 0-d arrays of a's float dtype (float64 for an a of another dtype). */
NdArray *nd_sigmoid(const NdArray *a);
NdArray *nd_sigmoid_grad(const NdArray *y, const NdArray *gy);
NdArray *nd_softmax(const NdArray *a, int axis);
NdArray *nd_log_softmax(const NdArray *a, int axis);
NdArray *nd_softmax_cross_entropy(const NdArray *x, const NdArray *t);
NdArray *nd_softmax_cross_entropy_grad(const NdArray *x, const NdArray *t,
                                       const NdArray *gy);
NdArray *nd_normalize(const NdArray *a, double mean, double std);

/* np.where(cond, a, b): cond is cast to bool; all three broadcast. */
NdArray *nd_where(const NdArray *cond, const NdArray *a, const NdArray *b);
/* np.clip(a, lo, hi), keeping a's dtype. */
NdArray *nd_clip(const NdArray *a, double lo, double hi);

/* ------------------------------------------------------------ reductions */

/* Reduce over naxes axes (negative counts from the end; ND_ALL_AXES for
 * all), keeping them as size 1 when keepdims. nd_sum adds floats
 * pairwise as NumPy does; integers and bools sum to int64. nd_mean of
 * integers is float64. */
NdArray *nd_sum(const NdArray *a, int naxes, const int *axes, bool keepdims);
NdArray *nd_mean(const NdArray *a, int naxes, const int *axes,
                 bool keepdims);
NdArray *nd_max(const NdArray *a, int naxes, const int *axes, bool keepdims);
NdArray *nd_min(const NdArray *a, int naxes, const int *axes, bool keepdims);
/* Index of the first maximum along axis (ND_NO_AXIS: of the flattened
 * array, a 0-d result), as int64. */
NdArray *nd_argmax(const NdArray *a, int axis);

/* ------------------------------------------------------------ shape */

/* Reshape (one entry may be -1). Returns a view sharing a's data. */
NdArray *nd_reshape(const NdArray *a, int ndim, const int64_t *shape);
/* Permute axes (naxes 0 and NULL: reverse them), as a new array. */
NdArray *nd_transpose(const NdArray *a, int naxes, const int *axes);
NdArray *nd_broadcast_to(const NdArray *a, int ndim, const int64_t *shape);
/* Sum a down to shape (leading axes and size-1 axes): the adjoint of
 * nd_broadcast_to, as DeZero's utils.sum_to. */
NdArray *nd_sum_to(const NdArray *a, int ndim, const int64_t *shape);
NdArray *nd_expand_dims(const NdArray *a, int axis);            /* view */
/* Remove size-1 axes (ND_ALL_AXES: all of them). A view. */
NdArray *nd_squeeze(const NdArray *a, int naxes, const int *axes);
NdArray *nd_flatten(const NdArray *a);                          /* copy */
NdArray *nd_concatenate(int n, NdArray *const *arrays, int axis);
NdArray *nd_stack(int n, NdArray *const *arrays, int axis);

/* ------------------------------------------------------------ linalg */

/* Matrix product of 2-D arrays (1-D operands as in np.matmul) through
 * cblas_sgemm/dgemm; integers are multiplied in int64. */
NdArray *nd_matmul(const NdArray *a, const NdArray *b);
/* op(a) @ op(b) where op transposes when the flag is set; the transposed
 * operand is passed to BLAS as a flag, not copied. 2-D operands, or a
 * stack (S, rows, cols) on either side or both (the same S), as
 * np.matmul: op then transposes each matrix, a 2-D operand is used for
 * every matrix of the other's stack, and the result is (S, rows,
 * cols), one product per matrix. */
NdArray *nd_matmul_t(const NdArray *a, bool trans_a, const NdArray *b,
                     bool trans_b);
/* np.dot for 1-D and 2-D operands. */
NdArray *nd_dot(const NdArray *a, const NdArray *b);

/* ------------------------------------------------------------ convolution */

/* DeZero's im2col_array: the kh x kw windows of img (N, C, H, W), moved
 * by sh, sw over it padded with ph, pw zeros on each side, gathered into
 * one array (N, C, KH, KW, OH, OW), or with to_matrix (N*OH*OW,
 * C*KH*KW): a row per window, its elements in (C, KH, KW) order. OH is
 * (H + 2*PH - KH) / SH + 1, OW likewise. float32 and float64 only;
 * the result has img's dtype and device. */
NdArray *nd_im2col(const NdArray *img, int64_t kh, int64_t kw, int64_t sh,
                   int64_t sw, int64_t ph, int64_t pw, bool to_matrix);
/* DeZero's col2im_array, the adjoint of nd_im2col: an array of shape
 * img_shape (N, C, H, W), each element the sum of the entries of col
 * that nd_im2col copies from it (where windows overlap they add, and
 * the padding's entries are dropped), added in order of (KH, KW) as
 * NumPy's DeZero adds them. col has nd_im2col's shape for img_shape and
 * these arguments. */
NdArray *nd_col2im(const NdArray *col, int ndim, const int64_t *img_shape,
                   int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                   int64_t ph, int64_t pw, bool to_matrix);

/* ------------------------------------------------------------ indexing */

/* Stops unless every entry of the integer array a lies in [lo, hi): the
 * message is op's, format given the first entry out of range, its flat
 * position and hi - 1 as long longs ("label %lld of sample %lld is not
 * a class of 0 .. %lld"). On the GPU the check is queued and told at
 * the next read (nd_synchronize); format must be a string literal. */
void nd_check_range(const char *op, const NdArray *a, int64_t lo,
                    int64_t hi, const char *format);

/* One entry of an index expression x[i, 1:3, idx]. Build them with the
 * macros below: x[arange(N), t] is
 *     nd_getitem(x, 2, (NdIndex[]){ND_IDX_ARRAY(r), ND_IDX_ARRAY(t)}). */
typedef enum NdIndexKind { ND_INDEX_INT, ND_INDEX_SLICE, ND_INDEX_ARRAY }
    NdIndexKind;
typedef struct NdIndex {
    NdIndexKind kind;
    int64_t i;                      /* ND_INDEX_INT */
    int64_t start, stop, step;      /* ND_INDEX_SLICE; ND_NONE = omitted */
    const NdArray *array;           /* ND_INDEX_ARRAY: integer indices */
} NdIndex;
#define ND_NONE INT64_MIN
#define ND_IDX_INT(n) ((NdIndex){.kind = ND_INDEX_INT, .i = (n)})
#define ND_IDX_SLICE(a, b, s) \
    ((NdIndex){.kind = ND_INDEX_SLICE, .start = (a), .stop = (b), .step = (s)})
#define ND_IDX_ALL ND_IDX_SLICE(ND_NONE, ND_NONE, ND_NONE)          /* : */
#define ND_IDX_ARRAY(arr) ((NdIndex){.kind = ND_INDEX_ARRAY, .array = (arr)})

/* a[index...] with NumPy's rules for ints, slices and integer arrays
 * (index arrays broadcast together). Always a new array (a copy). */
NdArray *nd_getitem(const NdArray *a, int n, const NdIndex *index);
/* np.add.at(dst, index, values): values (broadcast to the shape of
 * dst[index]) are added in place; repeated indices add up. */
void nd_add_at(NdArray *dst, int n, const NdIndex *index,
               const NdArray *values);

/* ------------------------------------------------------------ random */

/* NumPy's legacy np.random, bit for bit: one global MT19937 state. */
void nd_random_seed(uint32_t seed);
/* np.random.seed(N) when the environment variable name (DEZERO_SEED)
 * holds N, so that a run can be repeated; returns whether it seeded.
 * Unset or empty, it does nothing, and the generator seeds itself from
 * the system at its first draw. A value that is not an integer from 0
 * to 2**32 - 1 is an error. name is borrowed. */
bool nd_random_seed_from_env(const char *name);
NdArray *nd_random_rand(int ndim, const int64_t *shape);   /* [0, 1) */
NdArray *nd_random_randn(int ndim, const int64_t *shape);  /* N(0, 1) */
/* Integers in [low, high) as int64. */
NdArray *nd_random_randint(int64_t low, int64_t high, int ndim,
                           const int64_t *shape);
NdArray *nd_random_uniform(double low, double high, int ndim,
                           const int64_t *shape);
NdArray *nd_random_permutation(int64_t n);                 /* int64 */
/* Shuffles a in place along its first axis. */
void nd_random_shuffle(NdArray *a);

/* ------------------------------------------------------------ fft */

/* np.fft.fftn / ifftn over every axis; the result is complex128, as
 * NumPy's. Plans are made once per shape and reused. */
NdArray *nd_fftn(const NdArray *a);
NdArray *nd_ifftn(const NdArray *a);
/* np.fft.rfftn of a real array: the last axis halves to n/2 + 1. */
NdArray *nd_rfftn(const NdArray *a);
/* np.fft.irfftn back to a real array whose last axis has length n. */
NdArray *nd_irfftn(const NdArray *a, int64_t n);

/* ------------------------------------------------------------ printing */

/* str(a) as NumPy prints it: "1.0", "[1. 2. 3.]", "[[1 2]\n [3 4]]". */
char *nd_str(const NdArray *a);
/* repr(a): "array([1., 2.])", "array(1.)", with ", dtype=float32" where
 * NumPy adds it. */
char *nd_repr(const NdArray *a);
/* str(a) with every line after the first indented by indent spaces, the
 * text DeZero wraps in "variable(...)". */
char *nd_str_indented(const NdArray *a, int indent);
/* Prints str(a) and a newline to stdout. */
void nd_print(const NdArray *a);

/* ------------------------------------------------------------ devices */

/* True when the GPU half is loaded and a device is present. */
bool nd_gpu_available(void);
/* Why the GPU half is off ("GPU library not built", "no CUDA device"),
 * or "available". Borrowed, static text. */
const char *nd_gpu_status(void);
/* The array on the device (cp.asarray) or on the host (cp.asnumpy). */
NdArray *nd_to_device(const NdArray *a, NdDevice device);
/* Waits for the work queued on device. On the GPU some checks do not
 * make the host wait (the indices of nd_getitem, nd_check_range): one
 * that failed stops the program here, or at the next read from the
 * device (nd_to_device to the host, nd_item, nd_get_flat, nd_allclose),
 * whichever comes first. */
void nd_synchronize(NdDevice device);

#endif /* ND_H */
