/* backend.cu - the GPU library's face: the table of functions the CPU
 * half finds with dlsym, the last-error text every entry leaves behind,
 * and init(), which looks for a driver and a device. */
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "gpu.cuh"

namespace ndg {

/* ------------------------------------------------------------ errors */

static thread_local char error_text[512];

int fail(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(error_text, sizeof error_text, fmt, args);
    va_end(args);
    return -1;
}

const char *last_error()
{
    return error_text;
}

int check(cudaError_t err, const char *what)
{
    if (err == cudaSuccess)
        return 0;
    return fail("%s: %s (%s)", what, cudaGetErrorString(err),
                cudaGetErrorName(err));
}

/* Whether CUDA_LAUNCH_BLOCKING=1 is set (the GPU tests set it): then
 * every launch waits for its kernel, so that a kernel that faults is
 * reported against itself rather than against the next copy. */
static bool launches_block()
{
    static const bool on = [] {
        const char *value = getenv("CUDA_LAUNCH_BLOCKING");
        return value && strcmp(value, "1") == 0;
    }();
    return on;
}

int check_launch(const char *kernel)
{
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess && launches_block())
        err = cudaDeviceSynchronize();
    return check(err, kernel);
}

/* ------------------------------------------------------------ init */

static void version_text(char *buf, size_t size, int version)
{
    snprintf(buf, size, "%d.%d", version / 1000, version % 1000 / 10);
}

/* Registered by init once the GPU is ready, after the CUDA runtime
 * registered its own teardown, so it runs first: an array freed later,
 * by another exit handler, goes straight back to the driver. Arrays the
 * program never freed stay allocated, as a leak checker should see. */
static void release_at_exit()
{
    release_staging();
    release_pending();
    release_plans();
    release_blas();
    pool_close();
}

static NdGpuInit init(char *detail, size_t size)
{
    detail[0] = '\0';
    int driver = 0, count = 0;
    cudaDriverGetVersion(&driver);
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaErrorInsufficientDriver && driver == 0) {
        snprintf(detail, size, "libcuda.so.1 not found");
        return ND_GPU_NO_DRIVER;
    }
    if (err == cudaErrorStubLibrary) {
        snprintf(detail, size, "libcuda.so.1 is the toolkit's stub");
        return ND_GPU_NO_DRIVER;
    }
    if (err == cudaErrorInsufficientDriver) {
        char have[16], need[16];
        version_text(have, sizeof have, driver);
        version_text(need, sizeof need, CUDART_VERSION);
        snprintf(detail, size, "it supports CUDA %s, this library needs %s",
                 have, need);
        return ND_GPU_OLD_DRIVER;
    }
    if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0))
        return ND_GPU_NO_DEVICE;
    if (err == cudaSuccess)
        err = cudaSetDevice(0);
    if (err == cudaSuccess)
        err = cudaFree(nullptr);        /* creates the context now */
    if (err != cudaSuccess) {
        snprintf(detail, size, "%s", cudaGetErrorString(err));
        return ND_GPU_INIT_FAILED;
    }
    atexit(release_at_exit);
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        snprintf(detail, size, "%s, compute capability %d.%d", prop.name,
                 prop.major, prop.minor);
    return ND_GPU_READY;
}

static const NdGpuBackend table = {
    ND_GPU_ABI_VERSION,
    last_error,
    init,
    pool_alloc,
    pool_free,
    upload,
    download,
    copy,
    synchronize,
    pool_stats,
    pool_trim,
    fill,
    cast,
    copy_strided,
    binary,
    unary,
    where,
    clip,
    allclose,
    reduce,
    argmax,
    gemm,
    gather,
    scatter_add,
    fft,
    im2col,
    col2im,
    pinned_copy_time,
    transfer_path,
    scaled_sub,
    arange,
    check_range,
    take_pending,
    softmax,
    sigmoid_grad,
    softmax_cross_entropy_grad,
    softmax_cross_entropy,
    scaled_sub_each,
    normalize,
};

} // namespace ndg

ND_GPU_EXPORT const NdGpuBackend *nd_gpu_backend(void)
{
    return &ndg::table;
}
