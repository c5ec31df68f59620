/* linalg.cu - matrix products: cuBLAS for floats and complex numbers,
 * a tiled kernel for int64. cuBLAS is column-major and our arrays are
 * row-major; a row-major C = A B is the column-major C^T = B^T A^T, so
 * the operands are passed in swapped order and nothing is copied. */
#include <cublas_v2.h>

#include "gpu.cuh"

namespace ndg {

static int check_blas(cublasStatus_t status, const char *what)
{
    if (status == CUBLAS_STATUS_SUCCESS)
        return 0;
    return fail("%s: %s", what, cublasGetStatusString(status));
}

/* Runs call(), a cuBLAS call; when cuBLAS could not allocate its
 * workspace (it asks the driver, not our pool), gives the pool's cached
 * blocks back to the driver and runs it once more. */
template <class Call> static cublasStatus_t retried(Call call)
{
    cublasStatus_t status = call();
    if (status == CUBLAS_STATUS_ALLOC_FAILED && pool_trim() == 0)
        status = call();
    return status;
}

/* One handle for the process, made on first use (it costs a few ms),
 * destroyed with its workspace at exit (release_blas). */
static cublasHandle_t blas_handle = nullptr;

static cublasHandle_t handle(int *status)
{
    if (!blas_handle)
        *status = check_blas(
            retried([&] { return cublasCreate(&blas_handle); }),
            "cublasCreate");
    return blas_handle;
}

void release_blas()
{
    if (blas_handle)
        cublasDestroy(blas_handle);
    blas_handle = nullptr;
}

/* ------------------------------------------------------------ int64 */

constexpr int kTile = 16;

/* Row tiles per launch along grid.y, which holds at most 65,535 blocks:
 * taller products loop over their tiles (more than a million rows). */
constexpr int64_t kMaxRowTiles = 65535;

/* c (m, n) = op(a) op(b) with op(a) (m, k) and op(b) (k, n); element
 * (i, l) of op(a) is a[i * lda + l], or a[l * lda + i] when transposed.
 * Sums wrap as int64 arithmetic does in NumPy. */
__global__ void gemm_i64(int64_t *c, const int64_t *a, bool ta, int64_t lda,
                         const int64_t *b, bool tb, int64_t ldb, int64_t m,
                         int64_t n, int64_t k)
{
    __shared__ int64_t as[kTile][kTile], bs[kTile][kTile];
    int64_t col = (int64_t)blockIdx.x * kTile + threadIdx.x;
    int64_t row_tiles = (m + kTile - 1) / kTile;
    for (int64_t tile = blockIdx.y; tile < row_tiles; tile += gridDim.y) {
        int64_t row = tile * kTile + threadIdx.y;
        uint64_t sum = 0;
        for (int64_t t = 0; t < k; t += kTile) {
            int64_t la = t + threadIdx.x, lb = t + threadIdx.y;
            as[threadIdx.y][threadIdx.x] =
                row < m && la < k
                    ? (ta ? a[la * lda + row] : a[row * lda + la])
                    : 0;
            bs[threadIdx.y][threadIdx.x] =
                lb < k && col < n
                    ? (tb ? b[col * ldb + lb] : b[lb * ldb + col])
                    : 0;
            __syncthreads();
            for (int l = 0; l < kTile; l++)
                sum += (uint64_t)as[threadIdx.y][l] *
                       (uint64_t)bs[l][threadIdx.x];
            __syncthreads();
        }
        if (row < m && col < n)
            c[row * n + col] = (int64_t)sum;
    }
}

/* ------------------------------------------------------------ entry */

static bool by_cublas(NdDtype dtype)
{
    return dtype == ND_FLOAT32 || dtype == ND_FLOAT64 ||
           dtype == ND_COMPLEX64 || dtype == ND_COMPLEX128;
}

int gemm(NdArray *c, const NdArray *a, bool trans_a, const NdArray *b,
         bool trans_b)
{
    int64_t m = c->shape[0], n = c->shape[1];
    int64_t k = trans_a ? a->shape[0] : a->shape[1];
    int64_t lda = a->shape[1], ldb = b->shape[1];
    if (m == 0 || n == 0)
        return 0;
    if (k == 0)
        return fill(c, 0.0);
    if (c->dtype == ND_INT64) {
        dim3 threads(kTile, kTile);
        int64_t row_tiles = (m + kTile - 1) / kTile;
        dim3 blocks((unsigned)((n + kTile - 1) / kTile),
                    (unsigned)(row_tiles < kMaxRowTiles ? row_tiles
                                                        : kMaxRowTiles));
        return launch_kernel("gemm_i64", blocks, threads, gemm_i64,
                             (int64_t *)c->data, (const int64_t *)a->data,
                             trans_a, lda, (const int64_t *)b->data,
                             trans_b, ldb, m, n, k);
    }
    if (!by_cublas(c->dtype))
        return fail("gemm: not supported for the dtype %s",
                    dtype_name(c->dtype));
    int status = 0;
    cublasHandle_t h = handle(&status);
    if (status != 0)
        return status;
    /* Column-major C^T (n, m) = op(B)^T (n, k) op(A)^T (k, m). */
    cublasOperation_t op_b = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t op_a = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    int cn = (int)n, cm = (int)m, ck = (int)k, ca = (int)lda, cb = (int)ldb;
    const void *B = b->data, *A = a->data;
    void *C = c->data;
    auto call = [&]() -> cublasStatus_t {
        switch (c->dtype) {
        case ND_FLOAT32: {
            const float one = 1, zero = 0;
            return cublasSgemm(h, op_b, op_a, cn, cm, ck, &one,
                               (const float *)B, cb, (const float *)A, ca,
                               &zero, (float *)C, cn);
        }
        case ND_FLOAT64: {
            const double one = 1, zero = 0;
            return cublasDgemm(h, op_b, op_a, cn, cm, ck, &one,
                               (const double *)B, cb, (const double *)A, ca,
                               &zero, (double *)C, cn);
        }
        case ND_COMPLEX64: {
            const cuComplex one = {1, 0}, zero = {0, 0};
            return cublasCgemm(h, op_b, op_a, cn, cm, ck, &one,
                               (const cuComplex *)B, cb,
                               (const cuComplex *)A, ca, &zero,
                               (cuComplex *)C, cn);
        }
        default: {
            const cuDoubleComplex one = {1, 0}, zero = {0, 0};
            return cublasZgemm(h, op_b, op_a, cn, cm, ck, &one,
                               (const cuDoubleComplex *)B, cb,
                               (const cuDoubleComplex *)A, ca, &zero,
                               (cuDoubleComplex *)C, cn);
        }
        }
    };
    return check_blas(retried(call), "cublas gemm");
}

} // namespace ndg
