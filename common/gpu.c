/* gpu.c - opens the GPU half (libnd_cuda.so) with dlopen on first use,
 * the C twin of `try: import cupy`, and keeps a one-line reason when it
 * cannot; then makes the GPU's device table (nd_device.h) from the GPU
 * library's, and gives checked calls into it. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nd_gpu.h"
#include "nd_internal.h"

/* common/Makefile sets this to where it builds the library. */
#ifndef ND_GPU_LIBRARY_PATH
#define ND_GPU_LIBRARY_PATH "libnd_cuda.so"
#endif

static const NdGpuBackend *backend;     /* NULL while the GPU is off */
static bool tried;
static char reason[320] = "GPU library not built";

/* ------------------------------------------------------------ the table */

/* The GPU as a device (nd_device.h): the library's memory, copies and
 * kernels, and the few host-side entries below. */
static NdDeviceOps device;

static void cuda_free(void *data, size_t bytes)
{
    (void)bytes;
    backend->free(data);
}

/* Room for one element of any dtype. */
typedef union Element {
    double complex z;
    unsigned char bytes[16];
} Element;

/* One element copied, synchronising the host. */
static int cuda_get(const NdArray *a, int64_t i, double *value)
{
    size_t size = nd_dtype_size(a->dtype);
    Element e;
    int status = backend->download(
        e.bytes, (const char *)a->data + (size_t)i * size, size);
    *value = status == 0 ? nd_load(e.bytes, a->dtype, 0) : 0;
    return status;
}

static int cuda_set(NdArray *a, int64_t i, double value)
{
    size_t size = nd_dtype_size(a->dtype);
    Element e;
    nd_store(e.bytes, a->dtype, 0, value);
    return backend->upload((char *)a->data + (size_t)i * size, e.bytes,
                           size);
}

/* ------------------------------------------------------------ checks */

/* The kinds of check queued on the GPU (nd_device.h): an op and a
 * format, string literals, each kind's tag its place here. A training
 * epoch queues thousands of checks of a few kinds, and the one that
 * failed may be told long after: a tag names the kind, not the call. */
enum { KINDS = 64 };
static struct {
    const char *op, *format;
} kinds[KINDS];
static int nkinds;
static bool unsettled;          /* a check was queued since the last */

static int cuda_defer(const char *op, const char *format)
{
    unsettled = true;
    for (int tag = 0; tag < nkinds; tag++)
        if (kinds[tag].op == op && kinds[tag].format == format)
            return tag;
    if (nkinds == KINDS) {      /* the last place serves what is left */
        op = "a check on the GPU";
        format = NULL;
    }
    int tag = nkinds < KINDS ? nkinds++ : KINDS - 1;
    kinds[tag].op = op;
    kinds[tag].format = format;
    return tag;
}

/* Waits for the queued work when a check is among it, and stops with
 * what the first failing check found. The message says where it was
 * found: it comes at this read, after the call that queued the check
 * has returned. */
static void cuda_settle(void)
{
    if (!unsettled)
        return;
    unsettled = false;
    NdGpuPending p;
    nd_gpu_check("nd_synchronize", backend->take_pending(&p));
    if (!p.found)
        return;
    const char *op = kinds[p.tag].op, *format = kinds[p.tag].format;
    char what[256];
    if (format)
        snprintf(what, sizeof what, format, (long long)p.value,
                 (long long)p.position, (long long)p.limit - 1);
    else
        snprintf(what, sizeof what, ND_OUT_OF_BOUNDS, (long long)p.value,
                 p.axis, (long long)p.limit);
    nd_error(op, "%s (a check on the GPU, told at the next read from "
             "it)", what);
}

/* ------------------------------------------------------------ loading */

/* Where the build puts the library, relative to the checkout. */
#define LIBRARY_IN_CHECKOUT "common/build/cuda/libnd_cuda.so"

/* The library of the checkout the program sits in: LIBRARY_IN_CHECKOUT
 * under the nearest folder above the program that has one (a step is
 * two folders down, a test a few more). So a checkout that was moved
 * or copied keeps its GPU. False when there is none. */
static bool library_near_program(char *path, size_t size)
{
    char dir[4096];
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (n <= 0)
        return false;
    dir[n] = '\0';
    for (int up = 0; up < 6; up++) {
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
            return false;
        *slash = '\0';
        if (snprintf(path, size, "%s/%s", dir, LIBRARY_IN_CHECKOUT) <
                (int)size && access(path, R_OK) == 0)
            return true;
    }
    return false;
}

/* The library to open: $ND_GPU_LIBRARY, else the one in the program's
 * checkout, else the one the build made (by its absolute path). NULL
 * (with the reason set) when none of them is there. */
static const char *library_path(void)
{
    static char near[4096];
    const char *path = getenv("ND_GPU_LIBRARY");
    if (path && *path) {
        if (access(path, R_OK) == 0)
            return path;
        snprintf(reason, sizeof reason, "GPU library not found at %s "
                 "(ND_GPU_LIBRARY)", path);
        return NULL;
    }
    if (library_near_program(near, sizeof near))
        return near;
    if (access(ND_GPU_LIBRARY_PATH, R_OK) == 0)
        return ND_GPU_LIBRARY_PATH;
    snprintf(reason, sizeof reason, "GPU library not built (no %s; "
             "building it needs nvcc)", ND_GPU_LIBRARY_PATH);
    return NULL;
}

/* The reason for an answer of the library's init(). */
static void explain(NdGpuInit init, const char *detail)
{
    const char *why = "CUDA initialisation failed";
    switch (init) {
    case ND_GPU_READY: why = "available"; break;
    case ND_GPU_NO_DRIVER: why = "no CUDA driver"; break;
    case ND_GPU_OLD_DRIVER: why = "CUDA driver too old"; break;
    case ND_GPU_NO_DEVICE: why = "no CUDA device"; break;
    case ND_GPU_INIT_FAILED: break;
    }
    if (detail[0])
        snprintf(reason, sizeof reason, "%s (%s)", why, detail);
    else
        snprintf(reason, sizeof reason, "%s", why);
}

/* Whether the CUDA driver is installed. Without it the library can do
 * nothing, and opening it would still map cuBLAS and cuFFT, some 145 MB
 * of a CPU-only program's memory, for good (see load). */
static bool driver_installed(void)
{
    void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (driver)
        dlclose(driver);
    return driver != NULL;
}

/* Opens the library and asks it for a device. The library stays loaded
 * even when it finds none: the CUDA runtime in it registers exit
 * handlers, which must still be there when the program ends. */
static void load(void)
{
    tried = true;
    const char *path = library_path();
    if (!path)
        return;
    if (!driver_installed()) {
        explain(ND_GPU_NO_DRIVER, "libcuda.so.1 not found");
        return;
    }
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(reason, sizeof reason, "GPU library could not be "
                 "loaded: %s", dlerror());
        return;
    }
    NdGpuBackendFn entry;
    *(void **)&entry = dlsym(library, ND_GPU_BACKEND_SYMBOL);
    const NdGpuBackend *table = entry ? entry() : NULL;
    if (!table) {
        snprintf(reason, sizeof reason, "%.200s has no %s", path,
                 ND_GPU_BACKEND_SYMBOL);
        return;
    }
    if (table->abi_version != ND_GPU_ABI_VERSION) {
        snprintf(reason, sizeof reason, "GPU library out of date "
                 "(interface %d, this program needs %d): rebuild it with "
                 "make -C common", table->abi_version, ND_GPU_ABI_VERSION);
        return;
    }
    char detail[256];
    NdGpuInit init = table->init(detail, sizeof detail);
    explain(init, detail);
    if (init != ND_GPU_READY)
        return;
    backend = table;
    device = (NdDeviceOps){
        .alloc = table->alloc,
        .free = cuda_free,
        .upload = table->upload,
        .download = table->download,
        .fill = table->fill,
        .cast = table->cast,
        .get = cuda_get,
        .set = cuda_set,
        .allclose = table->allclose,
        .check = nd_gpu_check,
        .defer = cuda_defer,
        .settle = cuda_settle,
        .kernels = table,
    };
}

const NdGpuBackend *nd_gpu(void)
{
    if (!tried)
        load();
    return backend;
}

const char *nd_gpu_reason(void)
{
    nd_gpu();
    return reason;
}

const NdGpuBackend *nd_gpu_require(const char *op)
{
    const NdGpuBackend *gpu = nd_gpu();
    if (!gpu)
        nd_error(op, "GPU support is off (%s)", reason);
    return gpu;
}

void nd_gpu_check(const char *op, int status)
{
    if (status != 0)
        nd_error(op, "on the GPU: %s", backend->last_error());
}

const NdDeviceOps *nd_cuda_device(void)
{
    return nd_gpu() ? &device : NULL;
}
