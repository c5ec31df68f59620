/* gpu.cuh - what the CUDA files of the GPU library share: error
 * reporting, launch sizes, the C++ type of each dtype and a visitor that
 * turns a runtime dtype into a template argument. */
#ifndef ND_GPU_CUH
#define ND_GPU_CUH

#include <cstdint>
#include <type_traits>

#include <cuda/std/complex>
#include <cuda_runtime.h>

#include "nd_convert.h"
#include "nd_gpu.h"

/* Only nd_gpu_backend leaves the library; everything else is hidden. */
#define ND_GPU_EXPORT extern "C" __attribute__((visibility("default")))

namespace ndg {

using c64 = cuda::std::complex<float>;      /* C's float complex */
using c128 = cuda::std::complex<double>;    /* C's double complex */

/* Records "what: detail" as the library's last error; returns -1. */
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *last_error();

/* -1 with the CUDA error's text unless err is cudaSuccess. */
int check(cudaError_t err, const char *what);
/* The same for the launch just made (a bad configuration shows here). */
int check_launch(const char *kernel);

/* The entries of the table, one file each (see nd_gpu.h). */
void *pool_alloc(size_t bytes);
void pool_free(void *ptr);
void pool_stats(NdGpuPoolStats *stats);
int pool_trim();
/* At exit (backend.cu): the pool's cached blocks, the cuBLAS handle and
 * its workspace, the cached cuFFT plans and the pinned staging buffers
 * of transfer.cu go back to the driver, so
 * that a program that used the GPU leaves nothing allocated. */
void pool_close();
void release_blas();
void release_plans();
void release_staging();
int upload(void *dst, const void *src, size_t bytes);
int download(void *dst, const void *src, size_t bytes);
int pinned_copy_time(size_t bytes, bool to_device, int repeat,
                     double *seconds);
const char *transfer_path();
int copy(void *dst, const void *src, size_t bytes);
int synchronize();
int fill(NdArray *out, double value);
int cast(NdArray *out, const NdArray *in);
int copy_strided(void *dst, const int64_t *dst_strides, const void *src,
                 const int64_t *src_strides, int ndim, const int64_t *shape,
                 size_t elsize);
int binary(NdGpuBinary op, NdArray *out, const NdArray *a, const NdArray *b);
int scaled_sub(NdArray *dst, double a, const NdArray *v);
int scaled_sub_each(int n, NdArray *const dsts[], double a,
                    const NdArray *const vs[]);
int sigmoid_grad(NdArray *out, const NdArray *y, const NdArray *gy);
int normalize(NdArray *out, const NdArray *a, double mean, double std);
int arange(NdArray *out, double start, double step);
int unary(NdGpuUnary op, NdArray *out, const NdArray *a);
int where(NdArray *out, const NdArray *cond, const NdArray *a,
          const NdArray *b);
int clip(NdArray *out, const NdArray *a, double lo, double hi);
int allclose(const NdArray *a, const NdArray *b, double rtol, double atol,
             bool *result);
int reduce(NdGpuReduce op, NdArray *out, const NdArray *a, unsigned axes);
int argmax(NdArray *out, const NdArray *a, int axis);
int softmax(NdArray *out, const NdArray *a, bool take_log);
int softmax_cross_entropy(NdArray *loss, const NdArray *x, const NdArray *t);
int softmax_cross_entropy_grad(NdArray *gx, const NdArray *x,
                               const NdArray *t, const NdArray *gy);
int gemm(NdArray *c, const NdArray *a, bool trans_a, const NdArray *b,
         bool trans_b);
int gather(NdArray *out, const NdArray *a, const NdGpuIndexPlan *plan,
           int tag);
int check_range(const NdArray *a, int64_t lo, int64_t hi, int tag);
int take_pending(NdGpuPending *pending);
void release_pending();
int scatter_add(NdArray *a, const NdArray *values,
                const NdGpuIndexPlan *plan, NdGpuIndexError *err);
int fft(NdGpuFft kind, NdArray *out, const NdArray *in);
int im2col(NdArray *col, const NdArray *img, const NdConvGeometry *g);
int col2im(NdArray *img, const NdArray *col, const NdConvGeometry *g);

/* Threads per block, and enough blocks for n elements; kernels walk
 * their elements with a grid-stride loop, so the grid may be smaller. */
constexpr int kThreads = 256;
inline unsigned blocks_for(int64_t n)
{
    int64_t blocks = (n + kThreads - 1) / kThreads;
    const int64_t most = 65536;
    return (unsigned)(blocks < 1 ? 1 : blocks > most ? most : blocks);
}

/* A kernel parameter that is a pointer to void: a template argument
 * that came out void (see elements.cuh). */
template <class P> constexpr bool is_void_pointer =
    std::is_pointer<P>::value &&
    std::is_void<typename std::remove_pointer<P>::type>::value;

/* Every kernel is launched through this: kernel<<<blocks, threads>>>
 * (args...), then check_launch(name). No kernel takes a void *, so one
 * that does was instantiated from a type that is void in nvcc's host
 * pass, which no device image holds: the build stops here rather than
 * the launch failing on a GPU. */
template <class... Params, class... Args>
int launch_kernel(const char *name, dim3 blocks, dim3 threads,
                  void (*kernel)(Params...), Args... args)
{
    static_assert(!(is_void_pointer<Params> || ...),
                  "a kernel instantiated with a void type: its template "
                  "argument came from a __device__-only function");
    kernel<<<blocks, threads>>>(args...);
    return check_launch(name);
}

/* The grid-stride loop over [0, n). */
#define ND_GPU_FOR(i, n)                                                  \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;      \
         i < (n); i += (int64_t)gridDim.x * blockDim.x)

/* Shapes and strides travel to kernels by value in this. */
struct Walk {
    int ndim;
    int64_t shape[ND_MAX_DIMS];
    int64_t strides[ND_MAX_DIMS];
};

/* The strides of a read as if it had out's shape. */
inline Walk broadcast_walk(const NdArray *out, const NdArray *a)
{
    Walk w = {};
    w.ndim = out->ndim;
    for (int d = 0; d < out->ndim; d++)
        w.shape[d] = out->shape[d];
    nd_broadcast_strides(out->ndim, out->shape, a->ndim, a->shape,
                         w.strides);
    return w;
}

__device__ inline int64_t walk_offset(int64_t i, const Walk &w)
{
    return nd_broadcast_offset(i, w.ndim, w.shape, w.strides);
}

/* ------------------------------------------------------------ dtypes */

/* nd_dtype_size and nd_dtype_name again: the library links nothing of
 * libnd.a, whose symbols a program does not export to it. */
inline size_t dtype_size(NdDtype dtype)
{
    static const size_t sizes[ND_NUM_DTYPES] = {1, 1, 8, 4, 8, 8, 16};
    return (unsigned)dtype < ND_NUM_DTYPES ? sizes[dtype] : 0;
}

inline const char *dtype_name(NdDtype dtype)
{
    static const char *const names[ND_NUM_DTYPES] = {
        "bool", "uint8", "int64", "float32", "float64", "complex64",
        "complex128"};
    return (unsigned)dtype < ND_NUM_DTYPES ? names[dtype] : "unknown";
}

template <class T> struct Tag { using type = T; };

/* Calls f(Tag<T>{}) with T the C++ type of dtype. */
template <class F> int visit_dtype(NdDtype dtype, F &&f)
{
    switch (dtype) {
    case ND_BOOL: return f(Tag<bool>{});
    case ND_UINT8: return f(Tag<uint8_t>{});
    case ND_INT64: return f(Tag<int64_t>{});
    case ND_FLOAT32: return f(Tag<float>{});
    case ND_FLOAT64: return f(Tag<double>{});
    case ND_COMPLEX64: return f(Tag<c64>{});
    case ND_COMPLEX128: return f(Tag<c128>{});
    }
    return fail("unknown dtype %d", (int)dtype);
}

template <class T> constexpr bool is_complex = false;
template <> constexpr bool is_complex<c64> = true;
template <> constexpr bool is_complex<c128> = true;
template <class T> constexpr bool is_float =
    std::is_same<T, float>::value || std::is_same<T, double>::value;
template <class T> constexpr bool is_integer =
    std::is_same<T, uint8_t>::value || std::is_same<T, int64_t>::value;
template <class T> constexpr bool is_bool = std::is_same<T, bool>::value;

/* The real type of a complex type (and of a real one, itself). */
template <class T> struct RealOf { using type = T; };
template <> struct RealOf<c64> { using type = float; };
template <> struct RealOf<c128> { using type = double; };

/* A value converted as the CPU half's nd_store/nd_cast_buffer do: to
 * bool by "!= 0", floats to integers as nd_convert.h does (NumPy's
 * results, not a saturated cast), complex to real by dropping the
 * imaginary part. */
template <class To, class From>
__host__ __device__ inline To convert(From x)
{
    if constexpr (is_complex<From>) {
        if constexpr (is_complex<To>)
            return To((typename RealOf<To>::type)x.real(),
                      (typename RealOf<To>::type)x.imag());
        else if constexpr (is_bool<To>)
            return x.real() != 0 || x.imag() != 0;
        else
            return convert<To>(x.real());
    } else if constexpr (is_complex<To>) {
        return To((typename RealOf<To>::type)x, 0);
    } else if constexpr (is_bool<To>) {
        return x != 0;
    } else if constexpr (std::is_same<To, uint8_t>::value && is_float<From>) {
        return nd_float_to_uint8((double)x);
    } else if constexpr (std::is_same<To, int64_t>::value && is_float<From>) {
        return nd_float_to_int64((double)x);
    } else {
        return (To)x;
    }
}

} // namespace ndg

#endif /* ND_GPU_CUH */
