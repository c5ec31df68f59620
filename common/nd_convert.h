/* nd_convert.h - float to integer conversion as NumPy gives it on
 * x86-64, shared by the C library and the CUDA kernels (both compilers
 * include it). C leaves the conversion of a NaN, an infinity or a value
 * outside int64's range undefined; the x86 instruction NumPy reaches
 * turns every one of them into INT64_MIN, and a CUDA cast saturates
 * instead. Both halves convert through these, so they agree with NumPy
 * and with each other. */
#ifndef ND_CONVERT_H
#define ND_CONVERT_H

#include <stdint.h>

#include "nd_host_device.h"

/* x truncated towards zero; INT64_MIN where int64 cannot hold it. */
ND_HOST_DEVICE static inline int64_t nd_float_to_int64(double x)
{
    /* -2^63 <= x < 2^63, which a NaN never is */
    if (x >= -9223372036854775808.0 && x < 9223372036854775808.0)
        return (int64_t)x;
    return INT64_MIN;
}

/* As NumPy's astype(uint8): through int64, keeping the low byte (300.0
 * is 44, -1.0 is 255, a NaN is 0). */
ND_HOST_DEVICE static inline uint8_t nd_float_to_uint8(double x)
{
    return (uint8_t)(uint64_t)nd_float_to_int64(x);
}

#endif /* ND_CONVERT_H */
