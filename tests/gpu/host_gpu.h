/* host_gpu.h - what the GPU stand-in (host_gpu.c, built as
 * libhost_gpu.so) counts, and how a test reads it.
 *
 * The stand-in is a GPU library whose "device" memory is host memory
 * and whose operations are the CPU half's: loaded in place of
 * libnd_cuda.so (ND_GPU_LIBRARY, with a stub libcuda.so.1 on the
 * library path), it runs the C side of every GPU path on a machine
 * without a GPU, and counts what a real device would be asked to do. */
#ifndef HOST_GPU_H
#define HOST_GPU_H

#include <stdint.h>

typedef struct HostGpuCounts {
    /* Work queued on the device: each kernel, device-to-device copy,
     * cuBLAS or cuFFT call the real library would make (one each). */
    int64_t launches;
    /* Calls after which the host has waited for the device to finish
     * its queued work: an upload or download (both wait, as a
     * cudaMemcpy from pageable memory does), a synchronize, and the
     * entries that return a result read back (allclose, and the index
     * records of gather and scatter_add). */
    int64_t waits;
} HostGpuCounts;

/* The symbol the stand-in exports beside nd_gpu_backend. */
#define HOST_GPU_COUNTS_SYMBOL "host_gpu_counts"
typedef void (*HostGpuCountsFn)(HostGpuCounts *counts);

#endif /* HOST_GPU_H */
