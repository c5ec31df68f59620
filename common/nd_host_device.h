/* nd_host_device.h - ND_HOST_DEVICE marks a function that both
 * compilers build: the C compiler for the host, nvcc for the host and
 * the device. The arithmetic that the CPU half and the CUDA kernels
 * must do alike lives in such functions (nd_broadcast.h, nd_convert.h,
 * nd_integer.h), so the CPU tests exercise the code the GPU runs. */
#ifndef ND_HOST_DEVICE_H
#define ND_HOST_DEVICE_H

#ifdef __CUDACC__
#define ND_HOST_DEVICE __host__ __device__
#else
#define ND_HOST_DEVICE
#endif

#endif /* ND_HOST_DEVICE_H */
