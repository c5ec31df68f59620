/* fft.cu - np.fft.fftn, ifftn, rfftn and irfftn through cuFFT, in
 * double precision as NumPy computes them. cuFFT transforms at most
 * three axes per plan, so longer shapes go three axes at a time from
 * the end, the first step from the input straight into the output.
 * Plans are cached by layout, as CuPy's plan cache does: a training
 * loop makes each plan once. */
#include <cufft.h>

#include <vector>

#include "gpu.cuh"

namespace ndg {

static int check_fft(cufftResult result, const char *what)
{
    if (result == CUFFT_SUCCESS)
        return 0;
    return fail("%s: cuFFT error %d", what, (int)result);
}

/* ------------------------------------------------------------ plans */

/* cufftMakePlanMany64's arguments: element (batch b, position x) of a
 * plan is at b * dist + (x in C order over embed) * stride. */
struct Layout {
    cufftType type;
    int rank;
    long long n[3], in_embed[3], out_embed[3];
    long long in_stride, in_dist, out_stride, out_dist, batch;

    bool operator==(const Layout &o) const
    {
        bool same = type == o.type && rank == o.rank &&
                    in_stride == o.in_stride && in_dist == o.in_dist &&
                    out_stride == o.out_stride && out_dist == o.out_dist &&
                    batch == o.batch;
        for (int r = 0; same && r < rank; r++)
            same = n[r] == o.n[r] && in_embed[r] == o.in_embed[r] &&
                   out_embed[r] == o.out_embed[r];
        return same;
    }
};

constexpr size_t kCachedPlans = 16;

/* Most recently used last; the least recently used goes when full. */
static std::vector<std::pair<Layout, cufftHandle>> &cache()
{
    static auto *plans = new std::vector<std::pair<Layout, cufftHandle>>();
    return *plans;
}

/* A new plan for l in *plan; on failure nothing is left allocated. */
static cufftResult make_plan(const Layout &l, cufftHandle *plan)
{
    cufftResult result = cufftCreate(plan);
    if (result != CUFFT_SUCCESS)
        return result;
    size_t work = 0;
    result = cufftMakePlanMany64(*plan, l.rank, (long long *)l.n,
                                 (long long *)l.in_embed, l.in_stride,
                                 l.in_dist, (long long *)l.out_embed,
                                 l.out_stride, l.out_dist, l.type, l.batch,
                                 &work);
    if (result != CUFFT_SUCCESS)
        cufftDestroy(*plan);
    return result;
}

static int plan_for(const Layout &l, cufftHandle *plan)
{
    auto &plans = cache();
    for (size_t i = 0; i < plans.size(); i++) {
        if (plans[i].first == l) {
            auto hit = plans[i];
            plans.erase(plans.begin() + (long)i);
            plans.push_back(hit);
            *plan = hit.second;
            return 0;
        }
    }
    if (plans.size() == kCachedPlans) {
        cufftDestroy(plans.front().second);
        plans.erase(plans.begin());
    }
    /* The plan's work area comes from the driver, not from the pool: when
     * it does not fit, give the pool's cached blocks back and try again. */
    cufftResult result = make_plan(l, plan);
    if (result == CUFFT_ALLOC_FAILED && pool_trim() == 0)
        result = make_plan(l, plan);
    if (result != CUFFT_SUCCESS)
        return check_fft(result, "cufftMakePlanMany64");
    plans.push_back({l, *plan});
    return 0;
}

void release_plans()
{
    for (auto &entry : cache())
        cufftDestroy(entry.second);
    cache().clear();
}

/* ------------------------------------------------------------ steps */

static int64_t product(const int64_t *dims, int from, int to)
{
    int64_t p = 1;
    for (int d = from; d < to; d++)
        p *= dims[d];
    return p;
}

/* A layout over axes [lo, hi) of contiguous arrays whose shapes are
 * in_dims and out_dims (equal but for a halved last axis of a real
 * transform). Its batch covers the axes after hi when there are any
 * (the plan is then run once per position before lo), else those
 * before lo. */
static Layout layout_of(cufftType type, const int64_t *in_dims,
                        const int64_t *out_dims, int ndim, int lo, int hi,
                        int64_t *runs)
{
    Layout l = {};
    l.type = type;
    l.rank = hi - lo;
    for (int r = 0; r < l.rank; r++) {
        bool real_in = type == CUFFT_D2Z;
        l.in_embed[r] = in_dims[lo + r];
        l.out_embed[r] = out_dims[lo + r];
        l.n[r] = real_in ? in_dims[lo + r] : out_dims[lo + r];
    }
    int64_t inner = product(out_dims, hi, ndim);
    if (inner == 1) {
        l.in_stride = l.out_stride = 1;
        l.in_dist = product(in_dims, lo, hi);
        l.out_dist = product(out_dims, lo, hi);
        l.batch = product(out_dims, 0, lo);
        *runs = 1;
    } else {
        l.in_stride = l.out_stride = inner;
        l.in_dist = l.out_dist = 1;
        l.batch = inner;
        *runs = product(out_dims, 0, lo);
    }
    return l;
}

/* Runs one plan over axes [lo, hi) from in to out (elements of the
 * given sizes), once per position before lo when it batches the inner
 * axes. */
static int transform(cufftType type, int direction, void *out,
                     size_t out_size, const void *in, size_t in_size,
                     const int64_t *out_dims, const int64_t *in_dims,
                     int ndim, int lo, int hi)
{
    int64_t runs;
    Layout l = layout_of(type, in_dims, out_dims, ndim, lo, hi, &runs);
    cufftHandle plan;
    int status = plan_for(l, &plan);
    int64_t in_step = runs > 1 ? product(in_dims, lo, ndim) : 0;
    int64_t out_step = runs > 1 ? product(out_dims, lo, ndim) : 0;
    for (int64_t r = 0; status == 0 && r < runs; r++) {
        char *o = (char *)out + (size_t)(r * out_step) * out_size;
        const char *i = (const char *)in + (size_t)(r * in_step) * in_size;
        switch (type) {
        case CUFFT_Z2Z:
            status = check_fft(cufftExecZ2Z(plan, (cufftDoubleComplex *)i,
                                            (cufftDoubleComplex *)o,
                                            direction), "cufftExecZ2Z");
            break;
        case CUFFT_D2Z:
            status = check_fft(cufftExecD2Z(plan, (cufftDoubleReal *)i,
                                            (cufftDoubleComplex *)o),
                               "cufftExecD2Z");
            break;
        default:
            status = check_fft(cufftExecZ2D(plan, (cufftDoubleComplex *)i,
                                            (cufftDoubleReal *)o),
                               "cufftExecZ2D");
            break;
        }
    }
    return status;
}

/* Complex transforms in place over axes [0, hi), three at a time. */
static int c2c_leading(c128 *data, const int64_t *dims, int ndim, int hi,
                       int direction)
{
    int status = 0;
    while (status == 0 && hi > 0) {
        int lo = hi > 3 ? hi - 3 : 0;
        status = transform(CUFFT_Z2Z, direction, data, sizeof(c128), data,
                           sizeof(c128), dims, dims, ndim, lo, hi);
        hi = lo;
    }
    return status;
}

__global__ void scale_kernel(double *x, double factor, int64_t n)
{
    ND_GPU_FOR(i, n)
        x[i] *= factor;
}

/* NumPy's "backward" normalisation: the inverse divides by the size. */
static int normalise(void *data, int64_t doubles, int64_t size)
{
    if (doubles == 0)
        return 0;
    return launch_kernel("scale", blocks_for(doubles), kThreads,
                         scale_kernel, (double *)data, 1.0 / (double)size,
                         doubles);
}

/* ------------------------------------------------------------ entry */

/* The first plan (the last three axes, or fewer) reads in and writes
 * out; the axes before, if any, are transformed in place in out. Not a
 * copy of in into out and the plan in place: that was a pass over the
 * array more than CuPy makes (0.66 ms against its 0.59 for 4000x4000
 * on an H200). cuFFT leaves the input of an out-of-place complex
 * transform as it was (only complex-to-real ones may overwrite it), and
 * in may be the caller's own array; a plan serves both placements. */
static int complex_fft(NdArray *out, const NdArray *in, int direction)
{
    int ndim = out->ndim, lo = ndim > 3 ? ndim - 3 : 0;
    if (ndim == 0)              /* no axis: the value itself */
        return copy(out->data, in->data, sizeof(c128));
    int status = transform(CUFFT_Z2Z, direction, out->data, sizeof(c128),
                           in->data, sizeof(c128), out->shape, in->shape,
                           ndim, lo, ndim);
    if (status == 0)
        status = c2c_leading((c128 *)out->data, out->shape, ndim, lo,
                             direction);
    if (status == 0 && direction == CUFFT_INVERSE)
        status = normalise(out->data, 2 * out->size, out->size);
    return status;
}

/* rfftn: the real transform over the last three axes (or fewer), then
 * complex ones over the rest. */
static int real_fft(NdArray *out, const NdArray *in)
{
    int ndim = in->ndim, lo = ndim > 3 ? ndim - 3 : 0;
    int status = transform(CUFFT_D2Z, CUFFT_FORWARD, out->data, sizeof(c128),
                           in->data, sizeof(double), out->shape, in->shape,
                           ndim, lo, ndim);
    if (status == 0)
        status = c2c_leading((c128 *)out->data, out->shape, ndim, lo,
                             CUFFT_FORWARD);
    return status;
}

/* The imaginary parts of each row's zero-frequency bin and, for an
 * even length n, of its Nyquist bin (the last of the half) set to zero.
 * A real signal's spectrum has them zero; NumPy and FFTW ignore them,
 * cuFFT's C2R transform does not promise to (CuPy zeroes them too). */
__global__ void zero_imag_of_real_bins(c128 *x, int64_t rows, int64_t half,
                                       bool nyquist)
{
    ND_GPU_FOR(r, rows) {
        c128 *row = x + r * half;
        row[0] = c128(row[0].real(), 0.0);
        if (nyquist)
            row[half - 1] = c128(row[half - 1].real(), 0.0);
    }
}

/* irfftn as NumPy computes it: inverse complex transforms over every
 * axis but the last, then the inverse real one along the last, whose
 * input is cut or zero-padded to n/2 + 1 entries. */
static int real_ifft(NdArray *out, const NdArray *in)
{
    int ndim = in->ndim, last = ndim - 1;
    int64_t dims[ND_MAX_DIMS];          /* in's shape, last axis n/2+1 */
    for (int d = 0; d < ndim; d++)
        dims[d] = in->shape[d];
    int64_t half = out->shape[last] / 2 + 1, m = in->shape[last];
    dims[last] = half;
    int64_t size = product(dims, 0, ndim);
    c128 *work = (c128 *)pool_alloc((size_t)size * sizeof(c128));
    if (!work)
        return -1;
    /* work[..., :min(m, half)] = in[..., :min(m, half)], zeros after. */
    int64_t shape[ND_MAX_DIMS], ws[ND_MAX_DIMS], is[ND_MAX_DIMS];
    for (int d = 0; d < ndim; d++)
        shape[d] = d == last ? (m < half ? m : half) : dims[d];
    ws[last] = is[last] = 1;
    for (int d = last - 1; d >= 0; d--) {
        ws[d] = ws[d + 1] * dims[d + 1];
        is[d] = is[d + 1] * in->shape[d + 1];
    }
    NdArray padded = {};
    padded.dtype = ND_COMPLEX128;
    padded.ndim = ndim;
    padded.size = size;
    padded.data = work;
    for (int d = 0; d < ndim; d++)
        padded.shape[d] = dims[d];
    int status = m < half ? fill(&padded, 0.0) : 0;
    if (status == 0)
        status = copy_strided(work, ws, in->data, is, ndim, shape,
                              sizeof(c128));
    if (status == 0)
        status = c2c_leading(work, dims, ndim, last, CUFFT_INVERSE);
    if (status == 0 && size > 0) {
        status = launch_kernel("zero_imag_of_real_bins",
                               blocks_for(size / half), kThreads,
                               zero_imag_of_real_bins, work, size / half,
                               half, out->shape[last] % 2 == 0);
    }
    if (status == 0)
        status = transform(CUFFT_Z2D, CUFFT_INVERSE, out->data,
                           sizeof(double), work, sizeof(c128), out->shape,
                           dims, ndim, last, ndim);
    if (status == 0)
        status = normalise(out->data, out->size, out->size);
    pool_free(work);
    return status;
}

int fft(NdGpuFft kind, NdArray *out, const NdArray *in)
{
    if (out->size == 0)
        return 0;
    if (in->ndim == 0 && (kind == ND_GPU_RFFT || kind == ND_GPU_IRFFT))
        return fail("real transforms need at least one axis");
    switch (kind) {
    case ND_GPU_FFT: return complex_fft(out, in, CUFFT_FORWARD);
    case ND_GPU_IFFT: return complex_fft(out, in, CUFFT_INVERSE);
    case ND_GPU_RFFT: return real_fft(out, in);
    case ND_GPU_IRFFT: return real_ifft(out, in);
    }
    return fail("unknown transform %d", (int)kind);
}

} // namespace ndg
