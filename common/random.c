/* random.c - NumPy's legacy np.random, bit for bit: one global MT19937
 * generator and the draws np.random.rand, randn, randint, uniform,
 * permutation and shuffle make from it (NumPy's legacy randomkit). The
 * generator lives on the host: a GPU run draws here and moves the
 * arrays, so it starts from the same numbers as a CPU run. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nd_internal.h"

/* ------------------------------------------------------------ MT19937 */

enum { MT_N = 624, MT_M = 397 };

/* The state of np.random's global RandomState: the Mersenne Twister
 * words, the next word to temper, and the second normal of the last
 * polar draw, kept for the next randn. */
static struct {
    uint32_t key[MT_N];
    int pos;
    bool seeded;
    bool has_gauss;
    double gauss;
} rng;

/* init_genrand: np.random.seed(n) for an integer n. */
static void mt_seed(uint32_t seed)
{
    rng.key[0] = seed;
    for (int i = 1; i < MT_N; i++) {
        uint32_t prev = rng.key[i - 1];
        rng.key[i] = 1812433253u * (prev ^ (prev >> 30)) + (uint32_t)i;
    }
    rng.pos = MT_N;                 /* twist before the first draw */
    rng.has_gauss = false;
    rng.seeded = true;
}

/* np.random.seed(None), as NumPy does it: the words come from the OS
 * (/dev/urandom, else the clock), and key[0] is 0x80000000 so that
 * the state is never all zeros. */
static void mt_seed_from_entropy(void)
{
    mt_seed((uint32_t)time(NULL) ^ (uint32_t)clock());      /* fallback */
    FILE *f = fopen("/dev/urandom", "rb");
    if (f) {
        uint32_t words[MT_N];
        if (fread(words, sizeof words, 1, f) == 1)
            memcpy(rng.key, words, sizeof words);
        fclose(f);
    }
    rng.key[0] = 0x80000000u;
}

/* Regenerates all MT_N words at once (the "twist"). */
static void mt_twist(void)
{
    for (int i = 0; i < MT_N; i++) {
        uint32_t y = (rng.key[i] & 0x80000000u) |
                     (rng.key[(i + 1) % MT_N] & 0x7fffffffu);
        uint32_t v = rng.key[(i + MT_M) % MT_N] ^ (y >> 1);
        rng.key[i] = (y & 1) ? v ^ 0x9908b0dfu : v;
    }
    rng.pos = 0;
}

/* The next 32 random bits: one state word, tempered. */
static uint32_t next_uint32(void)
{
    if (!rng.seeded)
        mt_seed_from_entropy();
    if (rng.pos >= MT_N)
        mt_twist();
    uint32_t y = rng.key[rng.pos++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

/* 64 bits from two draws, the first one on top. */
static uint64_t next_uint64(void)
{
    uint64_t high = next_uint32();
    return high << 32 | next_uint32();
}

/* ------------------------------------------------------------ draws */

/* A double in [0, 1) with 53 random bits: 27 from one draw, 26 from
 * the next (random_sample). */
static double next_double(void)
{
    uint32_t a = next_uint32() >> 5, b = next_uint32() >> 6;
    return (a * 67108864.0 + b) / 9007199254740992.0;
}

/* A standard normal by the polar (Marsaglia) method. Each accepted
 * point gives two normals: one is returned, the other cached for the
 * next call (seeding drops the cache; rand leaves it alone). */
static double next_gauss(void)
{
    if (rng.has_gauss) {
        rng.has_gauss = false;
        return rng.gauss;
    }
    double x1, x2, r2;
    do {
        x1 = 2.0 * next_double() - 1.0;
        x2 = 2.0 * next_double() - 1.0;
        r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    double f = sqrt(-2.0 * log(r2) / r2);
    rng.gauss = f * x1;
    rng.has_gauss = true;
    return f * x2;
}

/* An integer in [0, max] by masked rejection: draw bits under the
 * smallest all-ones mask >= max and retry until the value fits. Ranges
 * that fit in 32 bits use one 32-bit draw per try, others 64 bits
 * (random_interval, also what legacy randint does for int64). */
static uint64_t next_bounded(uint64_t max)
{
    if (max == 0)
        return 0;
    uint64_t mask = max;
    for (int shift = 1; shift <= 32; shift *= 2)
        mask |= mask >> shift;
    uint64_t value;
    do
        value = max <= 0xffffffffu ? next_uint32() & mask
                                   : next_uint64() & mask;
    while (value > max);
    return value;
}

/* ------------------------------------------------------------ public */

void nd_random_seed(uint32_t seed)
{
    mt_seed(seed);
}

bool nd_random_seed_from_env(const char *name)
{
    const char *text = getenv(name);
    if (!text || !*text)
        return false;
    /* np.random.seed(n) takes an integer n with 0 <= n < 2**32 */
    uint64_t seed = 0;
    const char *c = text;
    for (; *c >= '0' && *c <= '9' && seed <= UINT32_MAX; c++)
        seed = 10 * seed + (uint64_t)(*c - '0');
    if (*c != '\0' || seed > UINT32_MAX)
        nd_error("nd_random_seed_from_env", "%s=%.40s is not a seed: "
                 "np.random.seed takes an integer from 0 to 4294967295 "
                 "(2**32 - 1); set %s to one, or unset it for a run "
                 "seeded by the system", name, text, name);
    mt_seed((uint32_t)seed);
    return true;
}

/* A new array of the given shape, checked under op's name. */
static NdArray *new_array(const char *op, NdDtype dtype, int ndim,
                          const int64_t *shape)
{
    nd_check_shape(op, ndim, shape);
    return nd_empty(dtype, ndim, shape);
}

NdArray *nd_random_rand(int ndim, const int64_t *shape)
{
    NdArray *out = new_array("nd_random_rand", ND_FLOAT64, ndim, shape);
    for (int64_t i = 0; i < out->size; i++)
        ND_DATA(out, double)[i] = next_double();
    return out;
}

NdArray *nd_random_randn(int ndim, const int64_t *shape)
{
    NdArray *out = new_array("nd_random_randn", ND_FLOAT64, ndim, shape);
    for (int64_t i = 0; i < out->size; i++)
        ND_DATA(out, double)[i] = next_gauss();
    return out;
}

NdArray *nd_random_randint(int64_t low, int64_t high, int ndim,
                           const int64_t *shape)
{
    const char *op = "nd_random_randint";
    if (high <= low)
        nd_error(op, "low >= high (low=%" PRId64 ", high=%" PRId64 ")",
                 low, high);
    NdArray *out = new_array(op, ND_INT64, ndim, shape);
    /* Unsigned arithmetic: high - low may not fit in int64. */
    uint64_t max = (uint64_t)high - (uint64_t)low - 1;
    for (int64_t i = 0; i < out->size; i++)
        ND_DATA(out, int64_t)[i] =
            (int64_t)((uint64_t)low + next_bounded(max));
    return out;
}

NdArray *nd_random_uniform(double low, double high, int ndim,
                           const int64_t *shape)
{
    const char *op = "nd_random_uniform";
    double range = high - low;
    if (!isfinite(range))
        nd_error(op, "range exceeds valid bounds (low=%g, high=%g)",
                 low, high);
    NdArray *out = new_array(op, ND_FLOAT64, ndim, shape);
    for (int64_t i = 0; i < out->size; i++)
        ND_DATA(out, double)[i] = low + range * next_double();
    return out;
}

NdArray *nd_random_permutation(int64_t n)
{
    if (n < 0)
        nd_error("nd_random_permutation", "n must be non-negative, got %"
                 PRId64, n);
    NdArray *out = nd_arange(0, (double)n, 1, ND_INT64);
    nd_random_shuffle(out);
    return out;
}

/* Fisher-Yates from the end: row i swaps with a row j in [0, i]. */
void nd_random_shuffle(NdArray *a)
{
    const char *op = "nd_random_shuffle";
    nd_require_cpu(op, a);
    if (a->ndim == 0)
        nd_error(op, "cannot shuffle a 0-d array (it has no axis 0)");
    int64_t rows = a->shape[0];
    if (a->size == 0)
        return;
    size_t row_bytes = (size_t)(a->size / rows) * nd_dtype_size(a->dtype);
    char *data = a->data;
    char *tmp = malloc(row_bytes);
    if (!tmp)
        nd_error(op, "out of memory allocating %zu bytes", row_bytes);
    for (int64_t i = rows - 1; i > 0; i--) {
        int64_t j = (int64_t)next_bounded((uint64_t)i);
        if (j == i)
            continue;
        memcpy(tmp, data + j * row_bytes, row_bytes);
        memcpy(data + j * row_bytes, data + i * row_bytes, row_bytes);
        memcpy(data + i * row_bytes, tmp, row_bytes);
    }
    free(tmp);
}
