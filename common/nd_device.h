/* nd_device.h - the device layer: one table per device of what an array
 * needs from the memory it lives in (allocation, copies to and from the
 * host, fill, cast, one element, allclose), and for an accelerator its
 * kernels. The CPU is a device like the others (cpu.c); the GPU's table
 * is gpu.c's, over libnd_cuda.so. ndarray.c makes every array header
 * and asks these tables for the rest; they call nothing above them. */
#ifndef ND_DEVICE_H
#define ND_DEVICE_H

#include "nd.h"
#include "nd_gpu.h"

/* Every int-returning entry returns 0 on success and -1 on failure;
 * check(op, status) then stops with op's name and the device's reason.
 * Arrays given to an entry are on its device, their shapes and dtypes
 * checked by the caller. */
typedef struct NdDeviceOps {
    /* Memory for bytes bytes (size elements of a dtype), or NULL, and
     * then check(op, -1) says why. */
    void *(*alloc)(size_t bytes);
    /* Gives back alloc's memory; bytes as alloc was asked for. */
    void (*free)(void *data, size_t bytes);
    /* Copies of bytes from the host into this device's memory, and
     * from this device's memory to the host. */
    int (*upload)(void *dst, const void *src, size_t bytes);
    int (*download)(void *dst, const void *src, size_t bytes);
    /* out = value, cast as nd_store casts. */
    int (*fill)(NdArray *out, double value);
    /* out = in broadcast to out's shape, converted to out's dtype. */
    int (*cast)(NdArray *out, const NdArray *in);
    /* Element i of the flattened array, as nd_load and nd_store. */
    int (*get)(const NdArray *a, int64_t i, double *value);
    int (*set)(NdArray *a, int64_t i, double value);
    /* np.allclose of a and b broadcast, any dtypes; *result is set. */
    int (*allclose)(const NdArray *a, const NdArray *b, double rtol,
                    double atol, bool *result);
    /* Stops with op's name and the reason unless status is 0. */
    void (*check)(const char *op, int status);
    /* Checks the host does not wait for (NULL for the CPU, whose
     * checks stop at once): defer gives the tag of a check about to be
     * queued, whose failure is to be told as op's, with format (given
     * the entry, its position and the limit - 1, as long longs; NULL:
     * an index out of bounds, as NumPy says it); settle waits for the
     * queued work and stops with the first failure a check found. Every
     * read from the device settles first. op and format must outlive
     * the check: string literals. */
    int (*defer)(const char *op, const char *format);
    void (*settle)(void);
    /* The operations' kernels (elementwise, reductions, products, ...),
     * in libnd_cuda.so's table; NULL for the CPU, whose code for them
     * is in each operation's file. */
    const NdGpuBackend *kernels;
} NdDeviceOps;

/* The CPU's table (cpu.c). */
extern const NdDeviceOps nd_cpu_device;
/* The GPU's table (gpu.c), or NULL while GPU support is off; loads the
 * GPU library on the first call. */
const NdDeviceOps *nd_cuda_device(void);

/* ops->check(op, status), called only for a failure: the calls that
 * succeed, nearly all of them, cost no call. */
static inline void nd_device_status(const NdDeviceOps *ops, const char *op,
                                    int status)
{
    if (status != 0)
        ops->check(op, status);
}

/* The table of device, or NULL when that device cannot be used. */
static inline const NdDeviceOps *nd_device_ops(NdDevice device)
{
    switch (device) {
    case ND_CPU:
        return &nd_cpu_device;
    case ND_CUDA:
        return nd_cuda_device();
    }
    return NULL;
}

/* The kernels of device (see NdDeviceOps), NULL for the CPU. device is
 * one that nd_same_device has answered, so its table is there. */
static inline const NdGpuBackend *nd_kernels(NdDevice device)
{
    return nd_device_ops(device)->kernels;
}

/* Settles ops's device (see NdDeviceOps) before a read from it. */
static inline void nd_device_settle(const NdDeviceOps *ops)
{
    if (ops->settle)
        ops->settle();
}

/* Stops with op's name and device's reason unless status, what one of
 * its kernels returned, is 0. */
static inline void nd_device_check(const char *op, NdDevice device,
                                   int status)
{
    if (status != 0)
        nd_device_ops(device)->check(op, status);
}

#endif /* ND_DEVICE_H */
