/* ulp.h - how far apart two results are, in units in the last place
 * (ulps) of a float precision: the measure the GPU tests compare the
 * device with the host by. A difference of 1 ulp is one rounding; two
 * correct libraries differ by a few, while a wrong formula is millions
 * of ulps away.
 *
 *     ulps_apart(want, got, ND_FLOAT32, scale)
 *
 * counts |want - got| in ulps of float32 at max(|want|, scale): the
 * element's own ulp, or, for an element that is the small result of a
 * sum that cancels, the ulp of the scale its terms had (the caller
 * passes the largest element of the result, or 0). Equal values, and
 * two NaNs, are 0 apart; a NaN or an infinity against anything else is
 * infinitely far. And element_of, any element as a complex number.
 * Include after nd.h. */
#ifndef ULP_H
#define ULP_H

#include <complex.h>
#include <float.h>
#include <math.h>

/* The spacing of the floats of precision (float32 or float64; complex
 * dtypes stand for their parts) at |x|: 2^(e - 24) or 2^(e - 53) for
 * |x| in [2^(e-1), 2^e), and that of the smallest normal below it. */
static inline double ulp_of(double x, NdDtype precision)
{
    bool single = precision == ND_FLOAT32 || precision == ND_COMPLEX64;
    double smallest = single ? FLT_MIN : DBL_MIN;
    int exponent;
    frexp(fmax(fabs(x), smallest), &exponent);
    return ldexp(1.0, exponent - (single ? 24 : 53));
}

static inline double ulps_apart(double want, double got, NdDtype precision,
                                double scale)
{
    if (want == got || (isnan(want) && isnan(got)))
        return 0;
    if (!isfinite(want) || !isfinite(got))
        return INFINITY;
    return fabs(want - got) / ulp_of(fmax(fabs(want), scale), precision);
}

/* Element i of a host array, whatever its dtype, as a complex number,
 * for comparing any two results. */
static inline double complex element_of(const NdArray *a, int64_t i)
{
    switch (a->dtype) {
    case ND_BOOL: return ND_DATA(a, bool)[i];
    case ND_UINT8: return ND_DATA(a, uint8_t)[i];
    case ND_INT64: return (double)ND_DATA(a, int64_t)[i];
    case ND_FLOAT32: return ND_DATA(a, float)[i];
    case ND_FLOAT64: return ND_DATA(a, double)[i];
    case ND_COMPLEX64: return ND_DATA(a, float complex)[i];
    case ND_COMPLEX128: return ND_DATA(a, double complex)[i];
    }
    return 0;
}

#endif /* ULP_H */
