/* tour.c - chapter 52's tour of device arrays: CuPy's basics with the
 * array library alone (no DeZero). Two arrays of random bytes are made on
 * the host; fftn transforms them there with FFTW. Where a GPU is present
 * they are then copied to the device, transformed there with cuFFT
 * through the same nd_fftn and compared with the host's results; a
 * host-only routine refuses a device array; and a reduction on the device
 * leaves its result there. Without a GPU the tour stops after the host
 * half, saying why, and exits 0. It exits 1 when the device half
 * shows something other than what it says: a result that differs from
 * the host's, a device array that is not refused, a reduction that
 * leaves the device. Last, at the default sizes, it sets its times
 * beside the figures of the CuPy walk-through it follows.
 *
 * DEZERO_TOUR_SIZE=N makes the arrays (N, N) and (2N, 2N) instead of
 * (2000, 2000) and (4000, 4000): the test suite's run under ASan takes
 * N = 200. */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nd.h"

enum { RUNS = 5 };      /* each time is the best of this many runs */

/* The side of the smaller array: 2000, or $DEZERO_TOUR_SIZE. */
static int64_t tour_size(void)
{
    const char *text = getenv("DEZERO_TOUR_SIZE");
    if (!text || !*text)
        return 2000;
    char *end;
    long n = strtol(text, &end, 10);
    if (*end || n < 1 || n > 8000)
        nd_error("tour_size", "DEZERO_TOUR_SIZE=%s: want a side from 1 "
                 "to 8000", text);
    return n;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The seed's figures: the times the CuPy walk-through this tour follows
 * printed for the same arrays, (2000, 2000) and (4000, 4000) random
 * bytes as int64, on a machine of its own. */
enum { SEED_SIZE = 2000 };          /* the side of its x1 */
typedef struct SeedFigure {
    const char *what;               /* its statement */
    double seconds;                 /* what it took there */
} SeedFigure;
static const SeedFigure seed_copy[2] = {        /* x1, x2 */
    {"cp.asarray(x1)", 7.54e-3}, {"cp.asarray(x2)", 17.7e-3},
};
static const SeedFigure seed_host_fftn = {"scipy fftn(x2)", 430e-3};
static const SeedFigure seed_device_fftn = {"cupyx fftn(x2)", 344e-6};

/* "cpu" or "cuda": where the elements of a are. */
static const char *device_name(const NdArray *a)
{
    return a->device == ND_CUDA ? "cuda" : "cpu";
}

static NdArray *to_device(const NdArray *a)
{
    return nd_to_device(a, ND_CUDA);
}

/* Seconds of the fastest of RUNS calls of f(a). The device works in the
 * background: a call that gives it work returns before the work is
 * done. So each run ends by reading one element of the result back,
 * which waits for it, as CuPy's users synchronise before they stop a
 * clock. The first run also makes FFTW's and cuFFT's plans. */
static double best_time(NdArray *(*f)(const NdArray *), const NdArray *a)
{
    double best = INFINITY;
    for (int run = 0; run < RUNS; run++) {
        double start = now();
        NdArray *out = f(a);
        nd_get_flat(out, 0);
        best = fmin(best, now() - start);
        nd_release(out);
    }
    return best;
}

/* Prints text from column indent + 1, wrapped before column 80. */
static void print_wrapped(int indent, const char *text)
{
    int column = 0;
    while (*text) {
        int word = (int)strcspn(text, " ");
        if (column > 0 && column + 1 + word > 79) {
            putchar('\n');
            column = 0;
        }
        if (column == 0)
            column = printf("%*s%.*s", indent, "", word, text);
        else
            column += printf(" %.*s", word, text);
        text += word + strspn(text + word, " ");
    }
    putchar('\n');
}

/* ------------------------------------------------------------ refusal */

/* Where nd_error's message goes while try_shuffle runs. */
static char refusal[1024];
static jmp_buf refused;

/* try_shuffle's error handler: keeps the message and jumps back. */
static void catch_error(const char *message)
{
    snprintf(refusal, sizeof refusal, "%s", message);
    longjmp(refused, 1);
}

/* nd_random_shuffle(a) with errors caught instead of ending the
 * program: true when it ran, false with the message in refusal. */
static bool try_shuffle(NdArray *a)
{
    NdErrorHandler old = nd_set_error_handler(catch_error);
    if (setjmp(refused) != 0) {
        nd_set_error_handler(old);
        return false;
    }
    nd_random_shuffle(a);
    nd_set_error_handler(old);
    return true;
}

/* ------------------------------------------------------------ the tour */

/* x[i] and fx[i], i = 0, 1: the arrays on the host, and their fftn. */
enum { ARRAYS = 2 };
static const char *const names[ARRAYS] = {"x1", "x2"};

/* Copies each array to the device: the time it takes, into copy_time,
 * and the speed. */
static void tour_transfers(NdArray *const x[ARRAYS],
                           double copy_time[ARRAYS])
{
    printf("\nTo the device, by nd_to_device(x, ND_CUDA) (the best of %d "
           "runs):\n", RUNS);
    for (int i = 0; i < ARRAYS; i++) {
        double t = best_time(to_device, x[i]);
        printf("  %s %10.3f ms %8.1f GB/s\n", names[i], t * 1e3,
               (double)nd_nbytes(x[i]) / t * 1e-9);
        copy_time[i] = t;
    }
}

/* fftn of the device arrays d, timed (into device_time), against the
 * host's times and results; false when a result differs from the
 * host's. */
static bool tour_device_fftn(NdArray *const d[ARRAYS],
                             NdArray *const fx[ARRAYS],
                             const double host_time[ARRAYS],
                             double device_time[ARRAYS])
{
    printf("\nfftn on the device, by cuFFT through the same nd_fftn (the "
           "best of %d runs):\n", RUNS);
    bool all_close = true;
    for (int i = 0; i < ARRAYS; i++) {
        double t = best_time(nd_fftn, d[i]);
        NdArray *fd = nd_fftn(d[i]);    // complex128, on the device
        NdArray *back = nd_to_device(fd, ND_CPU);      // its host copy
        bool close = nd_allclose(fx[i], back, 1e-5, 1e-8);
        printf("  %s %10.3f ms %7.1fx the host's speed; allclose to the "
               "host's: %s\n", names[i], t * 1e3, host_time[i] / t,
               close ? "yes" : "NO");
        device_time[i] = t;
        all_close = all_close && close;
        nd_release(fd);
        nd_release(back);
    }
    return all_close;
}

/* A host-only routine handed a device array, then the way out; false
 * when the device array is not refused or its host copy is. */
static bool tour_refusal(NdArray *d)
{
    printf("\nA routine that runs only on the host refuses a device "
           "array:\n  nd_random_shuffle(d1):\n");
    bool refused_d = !try_shuffle(d);
    print_wrapped(4, refused_d ? refusal : "it ran: a device array reached "
                  "the host unnoticed");
    NdArray *h = nd_to_device(d, ND_CPU);
    printf("  h1 = nd_to_device(d1, ND_CPU); nd_random_shuffle(h1):\n");
    bool ran_h = try_shuffle(h);
    print_wrapped(4, ran_h ? "shuffled, on the host" : refusal);
    nd_release(h);
    return refused_d && ran_h;
}

/* nd_max of a device array: its result is a device array too. False
 * when it is not. */
static bool tour_reduction(NdArray *d)
{
    NdArray *m = nd_max(d, ND_ALL_AXES, false);
    NdArray *h = nd_to_device(m, ND_CPU);
    char *shape = nd_shape_str(m);
    printf("\nA reduction of a device array stays on the device:\n"
           "  m = nd_max(d2, ND_ALL_AXES, false): shape %s, %s, on %s\n"
           "  nd_to_device(m, ND_CPU): %.0f, on %s\n", shape,
           nd_dtype_name(m->dtype), device_name(m), nd_item(h),
           device_name(h));
    bool on_device = m->device == ND_CUDA && h->device == ND_CPU;
    free(shape);
    nd_release(m);
    nd_release(h);
    return on_device;
}

/* One line of the comparison with the seed: its figure, ours, and ours
 * over its. */
static void seed_row(const SeedFigure *seed, double ours)
{
    printf("  %-15s %9.3f ms   ours %9.3f ms %8.2fx\n", seed->what,
           seed->seconds * 1e3, ours * 1e3, ours / seed->seconds);
}

/* Our times beside the seed's, where the arrays are the seed's: the host
 * fftn of x2 always, the copies and the device fftn of x2 when the
 * device half ran (device_time NULL when it did not). */
static void tour_against_seed(int64_t n, const double host_time[ARRAYS],
                              const double copy_time[ARRAYS],
                              const double device_time[ARRAYS])
{
    if (n != SEED_SIZE) {
        char text[128];
        snprintf(text, sizeof text, "The seed's figures are for sides %d "
                 "and %d; at side %" PRId64 " they are not compared.",
                 SEED_SIZE, 2 * SEED_SIZE, n);
        putchar('\n');
        print_wrapped(0, text);
        return;
    }
    printf("\nBeside the seed's figures (the CuPy walk-through this tour "
           "follows, timed on\na machine of its own; ours over its):\n");
    seed_row(&seed_host_fftn, host_time[1]);
    if (!device_time) {
        printf("  (the copies and cuFFT's fftn need the device half)\n");
        return;
    }
    for (int i = 0; i < ARRAYS; i++)
        seed_row(&seed_copy[i], copy_time[i]);
    seed_row(&seed_device_fftn, device_time[1]);
}

int main(void)
{
    int64_t n = tour_size();
    nd_random_seed(0);
    NdArray *x[ARRAYS] = {              // (n, n) and (2n, 2n) int64
        nd_random_randint(0, 256, ND_SHAPE(n, n)),
        nd_random_randint(0, 256, ND_SHAPE(2 * n, 2 * n)),
    };
    printf("Two arrays of random bytes, made on the host by "
           "nd_random_randint(0, 256,\nshape) after nd_random_seed(0):\n");
    for (int i = 0; i < ARRAYS; i++) {
        char *shape = nd_shape_str(x[i]);
        printf("  %s  shape %-12s  %s  nbytes %10zu\n", names[i], shape,
               nd_dtype_name(x[i]->dtype), nd_nbytes(x[i]));
        free(shape);
    }

    printf("\nfftn on the host, by FFTW (the best of %d runs):\n", RUNS);
    NdArray *fx[ARRAYS];                // complex128, shaped as x
    double host_time[ARRAYS];
    for (int i = 0; i < ARRAYS; i++) {
        host_time[i] = best_time(nd_fftn, x[i]);
        fx[i] = nd_fftn(x[i]);
        printf("  %s %10.3f ms\n", names[i], host_time[i] * 1e3);
    }

    bool ok = true;         // false when the device half shows a fault
    if (nd_gpu_available()) {
        NdArray *d[ARRAYS];             // x's copies on the device
        for (int i = 0; i < ARRAYS; i++)
            d[i] = nd_to_device(x[i], ND_CUDA);
        double copy_time[ARRAYS], device_time[ARRAYS];
        tour_transfers(x, copy_time);
        ok = tour_device_fftn(d, fx, host_time, device_time);
        ok = tour_refusal(d[0]) && ok;
        ok = tour_reduction(d[1]) && ok;
        tour_against_seed(n, host_time, copy_time, device_time);
        for (int i = 0; i < ARRAYS; i++)
            nd_release(d[i]);
    } else {
        printf("\nNo GPU here: %s.\n", nd_gpu_status());
        print_wrapped(0, "The device half of the tour is skipped: copying "
                      "x1 and x2 to the device, fftn there by cuFFT, a "
                      "host-only routine refusing a device array, and a "
                      "reduction that stays on the device.");
        tour_against_seed(n, host_time, NULL, NULL);
    }
    for (int i = 0; i < ARRAYS; i++) {
        nd_release(x[i]);
        nd_release(fx[i]);
    }
    return ok ? 0 : 1;
}
