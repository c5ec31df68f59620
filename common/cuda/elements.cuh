/* elements.cuh - what one element of a binary or unary operation is,
 * for every dtype: the functions the kernels of elementwise.cu apply,
 * and the output type of each, spelled out; and what softmax.cu does
 * to one row. They are __host__ __device__, so a host program can call
 * them too: the suite's test_gpu_elements checks each one against the
 * CPU half on a machine without a GPU.
 *
 * Why the output types are spelled out: nvcc compiles a .cu file twice,
 * once for the device and once for the host, and in the host pass a
 * __device__-only function with a deduced (auto) return type has the
 * type void. An output type taken with decltype from such a function
 * made the host launch unary_kernel<OP, T, void>, which no device image
 * holds: every unary kernel failed at launch on a real GPU
 * (cudaErrorInvalidDeviceFunction) while every build passed. Now the
 * types are written here, and elementwise.cu's launch() refuses, at
 * compile time, a kernel with a void parameter. */
#ifndef ND_GPU_ELEMENTS_CUH
#define ND_GPU_ELEMENTS_CUH

#include <cmath>

#include "gpu.cuh"
#include "nd_integer.h"

namespace ndg {

/* ------------------------------------------------------------ binary */

/* Which dtypes each operation takes: the CPU half's kernel table. */
template <int OP, class T> constexpr bool binary_supported()
{
    switch (OP) {
    case ND_GPU_ADD: case ND_GPU_MUL: case ND_GPU_EQ: case ND_GPU_NE:
        return true;
    case ND_GPU_SUB: case ND_GPU_POW:
        return !is_bool<T>;
    case ND_GPU_DIV:
        return is_float<T> || is_complex<T>;
    default:                        /* maximum, minimum, <, <=, >, >= */
        return !is_complex<T>;
    }
}

template <int OP> constexpr bool is_comparison = OP >= ND_GPU_EQ;

template <class T> constexpr bool is_int64 = std::is_same<T, int64_t>::value;

/* The output type: bool for a comparison, else the operands' type. */
template <int OP, class T>
using BinaryOut = typename std::conditional<is_comparison<OP>, bool, T>::type;

/* int64 sums, differences and products wrap, computed unsigned. */
#define ND_GPU_WRAP(x, OP, y) ((int64_t)((uint64_t)(x) OP (uint64_t)(y)))

template <int OP, class T>
__host__ __device__ inline BinaryOut<OP, T> binary_element(T x, T y)
{
    if constexpr (OP == ND_GPU_ADD) {
        if constexpr (is_bool<T>) return x || y;
        else if constexpr (is_int64<T>) return ND_GPU_WRAP(x, +, y);
        else return T(x + y);
    } else if constexpr (OP == ND_GPU_SUB) {
        if constexpr (is_int64<T>) return ND_GPU_WRAP(x, -, y);
        else return T(x - y);
    } else if constexpr (OP == ND_GPU_MUL) {
        if constexpr (is_bool<T>) return x && y;
        else if constexpr (is_int64<T>) return ND_GPU_WRAP(x, *, y);
        else return T(x * y);
    } else if constexpr (OP == ND_GPU_DIV) {
        return x / y;
    } else if constexpr (OP == ND_GPU_POW) {
        if constexpr (is_integer<T>) return T(nd_ipow(x, y));
        else if constexpr (is_complex<T>) return cuda::std::pow(x, y);
        else return T(pow(x, y));
    } else if constexpr (OP == ND_GPU_MAXIMUM) {
        if constexpr (is_bool<T>) return x || y;
        else return (x > y || x != x) ? x : y;     /* NaN propagates */
    } else if constexpr (OP == ND_GPU_MINIMUM) {
        if constexpr (is_bool<T>) return x && y;
        else return (x < y || x != x) ? x : y;
    } else if constexpr (OP == ND_GPU_EQ) {
        return x == y;
    } else if constexpr (OP == ND_GPU_NE) {
        return x != y;
    } else if constexpr (OP == ND_GPU_LT) {
        return x < y;
    } else if constexpr (OP == ND_GPU_LE) {
        return x <= y;
    } else if constexpr (OP == ND_GPU_GT) {
        return x > y;
    } else {
        return x >= y;
    }
}

/* One element of SGD's update, d -= a * v, for a float type T: the
 * product rounded to T before the subtraction, as NumPy rounds the
 * result of each of its two ufuncs (the kernels are compiled with
 * --fmad=false, so no fused multiply-add skips that rounding). */
template <class T>
__host__ __device__ inline T scaled_sub_element(T d, T a, T v)
{
    T step = a * v;
    return d - step;
}

// region: many_pairs_as_one
/* Up to ND_GPU_EACH_PAIRS pairs (dst, v) of arrays of T that one launch
 * updates as though they were one array, their elements one after
 * another: pair k holds elements end[k - 1] .. end[k] - 1 (from 0 for
 * the first). Passed to the kernel by value. */
template <class T> struct ScaledSubPairs {
    T *dst[ND_GPU_EACH_PAIRS];
    const T *v[ND_GPU_EACH_PAIRS];
    int64_t end[ND_GPU_EACH_PAIRS];
    int n;
    T a;
};

/* The n pairs (dsts[k], vs[k]) of arrays of T as a launch takes them. */
template <class T>
inline ScaledSubPairs<T> scaled_sub_pairs(int n, NdArray *const dsts[],
                                          double a,
                                          const NdArray *const vs[])
{
    ScaledSubPairs<T> pairs = {};
    pairs.n = n;
    pairs.a = T(a);
    int64_t total = 0;
    for (int k = 0; k < n; k++) {
        pairs.dst[k] = (T *)dsts[k]->data;
        pairs.v[k] = (const T *)vs[k]->data;
        total += dsts[k]->size;
        pairs.end[k] = total;
    }
    return pairs;
}

/* Element i of the pairs' elements taken together: dst -= a * v there,
 * the pair found by a walk along end (a handful of parameters). */
template <class T>
__host__ __device__ inline void scaled_sub_at(const ScaledSubPairs<T> &p,
                                              int64_t i)
{
    int k = 0;
    while (i >= p.end[k])
        k++;
    int64_t j = k > 0 ? i - p.end[k - 1] : i;
    p.dst[k][j] = scaled_sub_element<T>(p.dst[k][j], p.a, p.v[k][j]);
}
// endregion

/* One element of nd_normalize, (x - mean) / std, the numbers in x's
 * type T, each operation rounded to T as NumPy's ufuncs round it. */
template <class T>
__host__ __device__ inline T normalize_element(T x, T mean, T std)
{
    T centred = x - mean;
    return centred / std;
}

/* One element of nd_sigmoid_grad, (gy * y) * (1 - y), each product and
 * difference rounded to T as NumPy's ufuncs round them. */
template <class T>
__host__ __device__ inline T sigmoid_grad_element(T y, T gy)
{
    T gy_y = gy * y, rest = T(1) - y;
    return gy_y * rest;
}

/* Element i of np.arange(start, ..., step) in T, NumPy's way: the first
 * two elements are start and start + step stored in T, the others
 * first + i * (second - first), computed in float32 for float32 and
 * in double, then stored, for the rest (as ndarray.c's fill_arange). */
template <class T>
__host__ __device__ inline T arange_element(double start, double step,
                                            int64_t i)
{
    T first = convert<T>(start), second = convert<T>(start + step);
    if (i == 0)
        return first;
    if (i == 1)
        return second;
    if constexpr (std::is_same<T, float>::value) {
        float delta = second - first;
        return first + (float)i * delta;
    } else {
        double f = convert<double>(first);
        double delta = convert<double>(second) - f;
        return convert<T>(f + (double)i * delta);
    }
}

/* ------------------------------------------------------------ unary */

template <int OP, class T> constexpr bool unary_supported()
{
    switch (OP) {
    case ND_GPU_ABS: return true;
    case ND_GPU_NEG: return !is_bool<T>;
    case ND_GPU_SIGMOID: return is_float<T>;
    default: return is_float<T> || is_complex<T>;  /* exp, log, ... */
    }
}

/* The output type: the real type for the modulus of a complex, else
 * the operand's type. */
template <int OP, class T>
using UnaryOut = typename std::conditional<OP == ND_GPU_ABS,
                                           typename RealOf<T>::type,
                                           T>::type;

/* The libm function of each operation, for float, double and complex
 * (the overloads of CUDA's math library and of cuda::std::complex; on
 * the host, the C++ library's). */
template <int OP, class T>
__host__ __device__ inline UnaryOut<OP, T> unary_element(T x)
{
    if constexpr (OP == ND_GPU_NEG) {
        if constexpr (is_int64<T>)
            return (int64_t)(0 - (uint64_t)x);  /* -INT64_MIN wraps */
        else return T(-x);
    } else if constexpr (OP == ND_GPU_ABS) {
        if constexpr (is_complex<T>) return cuda::std::abs(x);
        else if constexpr (is_float<T>) return T(fabs(x));
        else if constexpr (is_int64<T>)
            return x < 0 ? (int64_t)(0 - (uint64_t)x) : x;
        else return x;                      /* uint8, bool */
    } else if constexpr (OP == ND_GPU_SIGMOID) {
        /* nd_sigmoid's chain, each step rounded to T as NumPy rounds
         * each of its ufuncs: tanh(x * 0.5) * 0.5 + 0.5 */
        T half = T(0.5), t = T(tanh(x * half));
        T scaled = t * half;
        return scaled + half;
    } else if constexpr (is_complex<T>) {
        if constexpr (OP == ND_GPU_EXP) return cuda::std::exp(x);
        else if constexpr (OP == ND_GPU_LOG) return cuda::std::log(x);
        else if constexpr (OP == ND_GPU_SIN) return cuda::std::sin(x);
        else if constexpr (OP == ND_GPU_COS) return cuda::std::cos(x);
        else if constexpr (OP == ND_GPU_TANH) return cuda::std::tanh(x);
        else return cuda::std::sqrt(x);
    } else {
        if constexpr (OP == ND_GPU_EXP) return T(exp(x));
        else if constexpr (OP == ND_GPU_LOG) return T(log(x));
        else if constexpr (OP == ND_GPU_SIN) return T(sin(x));
        else if constexpr (OP == ND_GPU_COS) return T(cos(x));
        else if constexpr (OP == ND_GPU_TANH) return T(tanh(x));
        else return T(sqrt(x));
    }
}

/* ------------------------------------------------------------ rows */

/* The sum of term(first) .. term(first + n - 1) in NumPy's pairwise
 * order, as reduce.c adds a row: under 8 terms in turn; up to 128 in
 * eight interleaved partial sums; more, as two halves, the first a
 * multiple of 8 long. The halving is a chain of functions made at
 * compile time, SPLITS deep, so the device runs no recursion (7 bring
 * any row of up to ND_GPU_SOFTMAX_ROW elements down to 128); they are
 * not inlined, else each level would hold two copies of the next. */
template <int SPLITS, class T, class Term>
__host__ __device__ __noinline__ T pairwise_sum(const Term &term,
                                                int64_t first, int64_t n)
{
    if (n < 8) {
        T sum = T(0);
        for (int64_t i = 0; i < n; i++)
            sum += term(first + i);
        return sum;
    }
    if constexpr (SPLITS > 0) {
        if (n > 128) {
            int64_t half = n / 2;
            half -= half % 8;
            return pairwise_sum<SPLITS - 1, T>(term, first, half) +
                   pairwise_sum<SPLITS - 1, T>(term, first + half, n - half);
        }
    }
    T r[8];
    for (int j = 0; j < 8; j++)
        r[j] = term(first + j);
    int64_t i;
    for (i = 8; i < n - n % 8; i += 8)
        for (int j = 0; j < 8; j++)
            r[j] += term(first + i + j);
    T sum = ((r[0] + r[1]) + (r[2] + r[3])) +
            ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; i++)
        sum += term(first + i);
    return sum;
}

/* e^(x[j] - m), a term of the softmax's sum. */
template <class T> struct ShiftedExp {
    const T *x;
    T m;
    __host__ __device__ T operator()(int64_t j) const
    {
        return T(exp(x[j] - m));
    }
};

// region: a_row_of_softmax
/* What every softmax of a row x of n elements (n >= 1) starts from: the
 * terms e^(x - m) for the row's max m (a NaN wins, as in np.max), and
 * their sum s, added as the CPU half adds it. */
template <class T> struct ShiftedRow {
    ShiftedExp<T> term;
    T s;
};

template <class T>
__host__ __device__ inline ShiftedRow<T> shifted_row(const T *x, int64_t n)
{
    T m = x[0];
    for (int64_t j = 1; j < n; j++)
        if (x[j] > m || x[j] != x[j])
            m = x[j];
    ShiftedExp<T> term = {x, m};
    return {term, pairwise_sum<7, T>(term, 0, n)};
}

/* One row x of n elements (1 <= n <= ND_GPU_SOFTMAX_ROW) of nd_softmax
 * into y, or of nd_log_softmax when take_log: the chain of fused.c,
 * folded by one thread: y = e^(x - m) / s, or x - (m + log s), as
 * logsumexp adds them. */
template <class T>
__host__ __device__ inline void softmax_row(T *y, const T *x, int64_t n,
                                            bool take_log)
{
    ShiftedRow<T> row = shifted_row(x, n);
    if (take_log) {
        T log_z = row.term.m + T(log(row.s));
        for (int64_t j = 0; j < n; j++)
            y[j] = x[j] - log_z;
    } else {
        for (int64_t j = 0; j < n; j++)
            y[j] = row.term(j) / row.s;
    }
}
// endregion

// region: a_row_of_the_loss
/* log_softmax(x)[label] for a row x of n elements, as softmax_row's log
 * computes it; NaN for a label outside 0 .. n - 1, so that nothing is
 * read out of the row (the caller's check of the labels says why). */
template <class T>
__host__ __device__ inline T picked_log_softmax(const T *x, int64_t n,
                                                int64_t label)
{
    if (label < 0 || label >= n)
        return T(NAN);
    ShiftedRow<T> row = shifted_row(x, n);
    return x[label] - (row.term.m + T(log(row.s)));
}

/* p[i], a term of the loss's sum. */
template <class T> struct Element {
    const T *p;
    __host__ __device__ T operator()(int64_t i) const { return p[i]; }
};

/* -sum(picked) / N for the rows' picked log-softmaxes, N of them: the
 * sum in nd_sum's pairwise order, N a float32 (DeZero's np.float32(N)),
 * which a float64 sum takes to float64. */
template <class T>
__host__ __device__ inline T cross_entropy_of(const T *picked, int64_t N)
{
    Element<T> term = {picked};
    T sum = pairwise_sum<7, T>(term, 0, N);
    return T(-sum) / T(float(N));
}
// endregion

/* The type of softmax cross-entropy's gradient for scores T and labels
 * L: NumPy's p - onehot gives float64 for float32 p and int64 labels. */
template <class T, class L>
using CrossEntropyGrad =
    typename std::conditional<std::is_same<L, int64_t>::value, double,
                              T>::type;
constexpr NdDtype float_dtype(bool is_double)
{
    return is_double ? ND_FLOAT64 : ND_FLOAT32;
}

// region: a_row_of_the_gradient
/* One row of nd_softmax_cross_entropy_grad: gx = (p - onehot) * g for
 * the row's scores x (n of them, as softmax_row takes) and its label,
 * g being gy / N already in gx's type Out. p is softmax_row's, each p
 * and 1 or 0 taken to Out, as NumPy's p - onehot casts both. */
template <class T, class Out>
__host__ __device__ inline void cross_entropy_grad_row(Out *gx, const T *x,
                                                       int64_t n,
                                                       int64_t label, Out g)
{
    ShiftedRow<T> row = shifted_row(x, n);
    for (int64_t j = 0; j < n; j++)
        gx[j] = (Out(row.term(j) / row.s) - Out(j == label)) * g;
}
// endregion

} // namespace ndg

#endif /* ND_GPU_ELEMENTS_CUH */
