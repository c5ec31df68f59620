/* fft.c - np.fft.fftn, ifftn, rfftn and irfftn through FFTW3. A plan is
 * made once per (kind, shape), kept in a small cache, and run on each
 * call's own arrays with FFTW's new-array execute functions. */
#define _GNU_SOURCE             /* sched_getaffinity */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nd_internal.h"      /* includes <complex.h> before fftw3.h, */
#include <fftw3.h>            /* so fftw_complex is double complex */

/* Planning policy, measured on a 2-core machine (2-D sizes 1000..4096):
 *  - FFTW_ESTIMATE plans in milliseconds. FFTW_MEASURE finds plans up to
 *    ~1.3x faster for the real-input transforms used here (much more for
 *    complex power-of-two sizes), but costs 0.4 s to 16 s of planning per
 *    shape at those sizes: more than many transforms. Like Julia and
 *    Octave, we take ESTIMATE; its plans never touch the arrays.
 *  - Transforms of at least THREADED_MIN_SIZE points are split over one
 *    thread per CPU (1.5-1.8x faster at 2000x2000 and 4000x4000); below
 *    that the hand-off costs more than it saves. The threads live only
 *    while a transform runs (see run_jobs), so none is left idle. */
#define PLANNER_FLAGS FFTW_ESTIMATE
enum { THREADED_MIN_SIZE = 1 << 16, MAX_THREADS = 64 };

/* ------------------------------------------------------------ memory */

/* NumPy advises arrays of 4 MiB and more onto transparent huge pages: on
 * virtual machines first-touch page faults can cost more than the FFT. */
enum { HUGE_PAGE_MIN_BYTES = 1 << 22 };

static void advise_huge_pages(NdArray *a)
{
#ifdef MADV_HUGEPAGE
    size_t bytes = (size_t)a->size * nd_dtype_size(a->dtype);
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    if (bytes < HUGE_PAGE_MIN_BYTES)
        return;
    uintptr_t start = ((uintptr_t)a->data + page - 1) & ~(page - 1);
    uintptr_t end = ((uintptr_t)a->data + bytes) & ~(page - 1);
    if (end > start)                /* advice only: a refusal is harmless */
        madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
    (void)a;
#endif
}

/* nd_empty, advised onto huge pages before anything touches it. */
static NdArray *new_array(NdDtype dtype, int ndim, const int64_t *shape)
{
    NdArray *a = nd_empty(dtype, ndim, shape);
    advise_huge_pages(a);
    return a;
}

static bool is_simd_aligned(const void *data)
{
    return fftw_alignment_of((double *)data) == 0;
}

/* a as dtype in memory FFTW may use with our plans (they assume SIMD
 * alignment): a itself when it already is, else a converted copy. With
 * always_copy, a copy in any case (for transforms that destroy input). */
static NdArray *fftw_input(const NdArray *a, NdDtype dtype,
                           bool always_copy)
{
    if (a->dtype == dtype && is_simd_aligned(a->data) && !always_copy)
        return nd_retain((NdArray *)a);
    NdArray *in = new_array(dtype, a->ndim, a->shape);
    nd_cast_buffer(in->data, dtype, a->data, a->dtype, a->size);
    return in;
}

/* ------------------------------------------------------------ threads */

typedef struct Job {
    void *(*work)(char *);
    char *data;
} Job;

static void *run_job(void *job)
{
    return ((Job *)job)->work(((Job *)job)->data);
}

/* FFTW's threaded plans hand their parallel loops to this function: job
 * 0 runs on the calling thread, each other job on a thread started for
 * it and joined before returning. (FFTW's own pool would leave workers
 * parked until exit.) A thread that cannot start runs its job here. */
static void run_jobs(void *(*work)(char *), char *jobdata, size_t elsize,
                     int njobs, void *unused)
{
    (void)unused;
    pthread_t threads[MAX_THREADS];
    Job jobs[MAX_THREADS];
    int started = 0;
    for (int i = 1; i < njobs; i++) {
        Job job = {work, jobdata + elsize * (size_t)i};
        if (started < MAX_THREADS) {
            jobs[started] = job;
            if (pthread_create(&threads[started], NULL, run_job,
                               &jobs[started]) == 0) {
                started++;
                continue;
            }
        }
        run_job(&job);
    }
    work(jobdata);
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
}

/* ------------------------------------------------------------ plans */

typedef enum PlanKind {
    PLAN_FORWARD,           /* complex to complex, e^-i */
    PLAN_BACKWARD,          /* complex to complex, e^+i, unscaled */
    PLAN_REAL_TO_HALF,      /* r2c: real (..., n) to (..., n/2 + 1) */
    PLAN_HALF_TO_REAL,      /* c2r: the inverse, unscaled */
} PlanKind;

typedef struct CachedPlan {
    PlanKind kind;
    int ndim;
    int64_t shape[ND_MAX_DIMS];     /* of the real side for r2c and c2r */
    fftw_plan plan;
} CachedPlan;

/* A few shapes at a time is what programs use; when full, the oldest
 * plan makes room. FFTW's planner is not thread-safe, nor is this. */
enum { PLAN_CACHE_SIZE = 16 };
static CachedPlan plan_cache[PLAN_CACHE_SIZE];
static int plans_cached;
static int oldest_plan;
static bool fftw_threads_ready;

/* Registered with atexit: leaves nothing for a leak checker to report. */
static void free_cached_plans(void)
{
    for (int i = 0; i < plans_cached; i++)
        fftw_destroy_plan(plan_cache[i].plan);
    plans_cached = 0;
    if (fftw_threads_ready)
        fftw_cleanup_threads();     /* also does fftw_cleanup() */
    else
        fftw_cleanup();
}

static void set_up_fftw(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    atexit(free_cached_plans);
    /* Without threads FFTW still works, only slower: no error. */
    fftw_threads_ready = fftw_init_threads() != 0;
    if (fftw_threads_ready)
        fftw_threads_set_callback(run_jobs, NULL);
}

static int threads_for(int64_t size)
{
    if (!fftw_threads_ready || size < THREADED_MIN_SIZE)
        return 1;
    cpu_set_t usable;       /* the CPUs this process may run on */
    int cpus = sched_getaffinity(0, sizeof usable, &usable) == 0
                   ? CPU_COUNT(&usable) : 1;
    return cpus < 1 ? 1 : cpus > MAX_THREADS ? MAX_THREADS : cpus;
}

static fftw_plan make_plan(PlanKind kind, int ndim, const int *n,
                           int64_t size, void *in, void *out)
{
    if (fftw_threads_ready)
        fftw_plan_with_nthreads(threads_for(size));
    switch (kind) {
    case PLAN_FORWARD:
    case PLAN_BACKWARD:
        return fftw_plan_dft(ndim, n, in, out,
                             kind == PLAN_FORWARD ? FFTW_FORWARD
                                                  : FFTW_BACKWARD,
                             PLANNER_FLAGS | FFTW_PRESERVE_INPUT);
    case PLAN_REAL_TO_HALF:
        return fftw_plan_dft_r2c(ndim, n, in, out,
                                 PLANNER_FLAGS | FFTW_PRESERVE_INPUT);
    case PLAN_HALF_TO_REAL:     /* c2r of rank > 1 cannot keep its input */
        return fftw_plan_dft_c2r(ndim, n, in, out,
                                 PLANNER_FLAGS | FFTW_DESTROY_INPUT);
    }
    return NULL;
}

static CachedPlan *find_plan(PlanKind kind, int ndim, const int64_t *shape)
{
    for (int i = 0; i < plans_cached; i++) {
        CachedPlan *c = &plan_cache[i];
        bool same = c->kind == kind && c->ndim == ndim;
        for (int d = 0; same && d < ndim; d++)
            same = c->shape[d] == shape[d];
        if (same)
            return c;
    }
    return NULL;
}

/* The plan for kind over shape (the real side for r2c and c2r), made on
 * first use with in and out, which must be SIMD-aligned as later arrays
 * are. */
static fftw_plan cached_plan(const char *op, PlanKind kind, int ndim,
                             const int64_t *shape, void *in, void *out)
{
    CachedPlan *c = find_plan(kind, ndim, shape);
    if (c)
        return c->plan;
    set_up_fftw();
    int n[ND_MAX_DIMS];
    int64_t size = 1;
    for (int d = 0; d < ndim; d++) {
        n[d] = (int)shape[d];
        size *= shape[d];
    }
    fftw_plan plan = make_plan(kind, ndim, n, size, in, out);
    if (!plan) {
        char text[ND_SHAPE_TEXT];
        nd_error(op, "FFTW could not plan a transform of shape %s: out of "
                 "memory?", nd_format_shape(text, ndim, shape, false));
    }
    if (plans_cached < PLAN_CACHE_SIZE) {
        c = &plan_cache[plans_cached++];
    } else {
        c = &plan_cache[oldest_plan];
        oldest_plan = (oldest_plan + 1) % PLAN_CACHE_SIZE;
        fftw_destroy_plan(c->plan);
    }
    *c = (CachedPlan){.kind = kind, .ndim = ndim, .plan = plan};
    for (int d = 0; d < ndim; d++)
        c->shape[d] = shape[d];
    return plan;
}

/* ------------------------------------------------------------ checks */

/* Every axis is transformed, so each needs at least one point, and FFTW
 * counts points in an int. */
static void check_axes(const char *op, int ndim, const int64_t *shape)
{
    char text[ND_SHAPE_TEXT];
    if (ndim == 0)
        nd_error(op, "a 0-d array has no axis to transform");
    for (int d = 0; d < ndim; d++) {
        if (shape[d] < 1)
            nd_error(op, "invalid number of FFT data points (%lld) along "
                     "axis %d of shape %s", (long long)shape[d], d,
                     nd_format_shape(text, ndim, shape, false));
        if (shape[d] > INT_MAX)
            nd_error(op, "axis %d of shape %s has more than %d points, "
                     "the most FFTW takes", d,
                     nd_format_shape(text, ndim, shape, false), INT_MAX);
    }
}

/* ------------------------------------------------------------ kernels */

static void scale_in_place(double *data, int64_t count, double factor)
{
    for (int64_t i = 0; i < count; i++)
        data[i] *= factor;
}

/* The row (flat index over every axis but the last) holding X[-k] when
 * index is the row of X[k]: each index negated modulo its extent. */
static int64_t mirrored_row(int ndim, const int64_t *shape,
                            const int64_t *index)
{
    int64_t row = 0;
    for (int d = 0; d < ndim - 1; d++)
        row = row * shape[d] + (shape[d] - index[d]) % shape[d];
    return row;
}

static void next_row_index(int ndim, const int64_t *shape, int64_t *index)
{
    for (int d = ndim - 2; d >= 0; d--) {
        if (++index[d] < shape[d])
            return;
        index[d] = 0;
    }
}

/* Fills the spectrum of a real array, full (..., n), from its first
 * half, half (..., n/2 + 1): X[k] = conj(X[-k]), indices modulo the
 * shape. With inverse, writes conj(X[k]) / N: the ifftn of that array. */
static void expand_half_spectrum(const NdArray *half, NdArray *full,
                                 bool inverse)
{
    int ndim = full->ndim;
    int64_t n = full->shape[ndim - 1], h = half->shape[ndim - 1];
    int64_t rows = full->size / n;
    double scale = inverse ? 1.0 / (double)full->size : 1.0;
    const double complex *src = ND_DATA(half, double complex);
    double complex *dst = ND_DATA(full, double complex);
    int64_t index[ND_MAX_DIMS] = {0};
    for (int64_t r = 0; r < rows; r++) {
        const double complex *row = src + r * h;
        const double complex *mirror =
            src + mirrored_row(ndim, full->shape, index) * h;
        double complex *out = dst + r * n;
        if (inverse) {
            for (int64_t k = 0; k < h; k++)
                out[k] = conj(row[k]) * scale;
            for (int64_t k = h; k < n; k++)
                out[k] = mirror[n - k] * scale;
        } else {
            for (int64_t k = 0; k < h; k++)
                out[k] = row[k];
            for (int64_t k = h; k < n; k++)
                out[k] = conj(mirror[n - k]);
        }
        next_row_index(ndim, full->shape, index);
    }
}

/* rfftn of a real array whose axes are checked: complex128 (..., n/2+1). */
static NdArray *half_spectrum(const char *op, const NdArray *a)
{
    int64_t shape[ND_MAX_DIMS];
    for (int d = 0; d < a->ndim; d++)
        shape[d] = a->shape[d];
    shape[a->ndim - 1] = a->shape[a->ndim - 1] / 2 + 1;
    NdArray *in = fftw_input(a, ND_FLOAT64, false);
    NdArray *out = new_array(ND_COMPLEX128, a->ndim, shape);
    fftw_plan plan = cached_plan(op, PLAN_REAL_TO_HALF, a->ndim, a->shape,
                                 in->data, out->data);
    fftw_execute_dft_r2c(plan, in->data, out->data);
    nd_release(in);
    return out;
}

/* fftn (or, with inverse, ifftn) of a real array: half the spectrum by
 * r2c, the other half by symmetry. About twice as fast as c2c. */
static NdArray *real_transform(const char *op, const NdArray *a,
                               bool inverse)
{
    NdArray *half = half_spectrum(op, a);
    NdArray *out = new_array(ND_COMPLEX128, a->ndim, a->shape);
    expand_half_spectrum(half, out, inverse);
    nd_release(half);
    return out;
}

static NdArray *complex_transform(const char *op, const NdArray *a,
                                  bool inverse)
{
    NdArray *in = fftw_input(a, ND_COMPLEX128, false);
    NdArray *out = new_array(ND_COMPLEX128, a->ndim, a->shape);
    fftw_plan plan = cached_plan(op, inverse ? PLAN_BACKWARD : PLAN_FORWARD,
                                 a->ndim, a->shape, in->data, out->data);
    fftw_execute_dft(plan, in->data, out->data);
    if (inverse)
        scale_in_place(out->data, 2 * out->size, 1.0 / (double)out->size);
    nd_release(in);
    return out;
}

static NdArray *any_transform(const char *op, const NdArray *a,
                              bool inverse)
{
    nd_require_cpu(op, a);
    if (a->ndim == 0)       /* no axis to transform: the value itself */
        return nd_astype(a, ND_COMPLEX128);
    check_axes(op, a->ndim, a->shape);
    if (nd_dtype_is_complex(a->dtype))
        return complex_transform(op, a, inverse);
    return real_transform(op, a, inverse);
}

/* ------------------------------------------------------------ public */

NdArray *nd_fftn(const NdArray *a)
{
    return any_transform("nd_fftn", a, false);
}

NdArray *nd_ifftn(const NdArray *a)
{
    return any_transform("nd_ifftn", a, true);
}

NdArray *nd_rfftn(const NdArray *a)
{
    nd_require_cpu("nd_rfftn", a);
    check_axes("nd_rfftn", a->ndim, a->shape);
    if (nd_dtype_is_complex(a->dtype))
        nd_error("nd_rfftn", "expects a real array, got %s; use nd_fftn "
                 "for complex input", nd_dtype_name(a->dtype));
    return half_spectrum("nd_rfftn", a);
}

NdArray *nd_irfftn(const NdArray *a, int64_t n)
{
    nd_require_cpu("nd_irfftn", a);
    check_axes("nd_irfftn", a->ndim, a->shape);
    int last = a->ndim - 1;
    char text[ND_SHAPE_TEXT];
    if (n < 1)
        nd_error("nd_irfftn", "invalid number of FFT data points (%lld) "
                 "specified", (long long)n);
    if (n / 2 + 1 != a->shape[last])
        nd_error("nd_irfftn", "n=%lld needs a last axis of n/2 + 1 = %lld "
                 "values, but the array has shape %s", (long long)n,
                 (long long)(n / 2 + 1),
                 nd_format_shape(text, a->ndim, a->shape, false));
    int64_t shape[ND_MAX_DIMS];     /* (..., n) */
    for (int d = 0; d < a->ndim; d++)
        shape[d] = a->shape[d];
    shape[last] = n;
    check_axes("nd_irfftn", a->ndim, shape);
    NdArray *in = fftw_input(a, ND_COMPLEX128, true);
    NdArray *out = new_array(ND_FLOAT64, a->ndim, shape);
    fftw_plan plan = cached_plan("nd_irfftn", PLAN_HALF_TO_REAL, a->ndim,
                                 shape, in->data, out->data);
    fftw_execute_dft_c2r(plan, in->data, out->data);
    scale_in_place(out->data, out->size, 1.0 / (double)out->size);
    nd_release(in);
    return out;
}
