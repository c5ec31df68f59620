/* test_array_cache.c - the cache of freed data blocks and headers in
 * ndarray.c: a released array's block is reused for the next array of
 * its size, never for a bigger one nor for a much smaller one; a reused
 * block holds what the new array's constructor says (zeros, ones), not
 * the old values; views keep their base's block alive; hundreds of
 * blocks of one size freed at once all wait for reuse, within the
 * cache's 32 MiB, and more sizes than it has bins still work. Under
 * AddressSanitizer nothing is cached, and the reuse test is skipped. */
#include "nd_test.h"

#ifdef __SANITIZE_ADDRESS__
static const bool caching = false;
#else
static const bool caching = true;
#endif

/* The block of a released (100, 10) array goes to the next (100, 10)
 * array, and to a (10, 100) one, whose bytes are the same. */
static void test_same_size_reuses(void **state)
{
    (void)state;
    if (!caching)
        skip();
    NdArray *a = nd_empty(ND_FLOAT64, ND_SHAPE(100, 10));
    void *block = a->data;
    nd_release(a);
    NdArray *b = nd_empty(ND_FLOAT64, ND_SHAPE(10, 100));
    assert_ptr_equal(b->data, block);
    nd_release(b);
    NdArray *c = nd_empty(ND_FLOAT32, ND_SHAPE(2, 1000));   /* same bytes */
    assert_ptr_equal(c->data, block);
    nd_release(c);
}

/* A small block is never handed out for more bytes, and a big one is
 * not spent on a small array. */
static void test_sizes_do_not_mix(void **state)
{
    (void)state;
    NdArray *small = nd_empty(ND_FLOAT64, ND_SHAPE(8));         /* 64 B */
    void *small_block = small->data;
    nd_release(small);
    NdArray *bigger = nd_zeros(ND_FLOAT64, ND_SHAPE(64));      /* 512 B */
    assert_ptr_not_equal(bigger->data, small_block);
    for (int64_t i = 0; i < 64; i++)        /* all of it is writable */
        ND_DATA(bigger, double)[i] = (double)i;
    void *big_block = bigger->data;
    nd_release(bigger);
    NdArray *tiny = nd_empty(ND_FLOAT64, ND_SHAPE(2));
    assert_ptr_not_equal(tiny->data, big_block);
    nd_release(tiny);
}

/* A reused block carries no old values into zeros, ones or full. */
static void test_reused_blocks_are_filled(void **state)
{
    (void)state;
    for (int round = 0; round < 3; round++) {
        NdArray *dirty = nd_full(ND_FLOAT64, ND_SHAPE(50, 20), 7.5);
        nd_release(dirty);
        NdArray *z = nd_zeros(ND_FLOAT64, ND_SHAPE(50, 20));
        for (int64_t i = 0; i < z->size; i++)
            assert_true(ND_DATA(z, double)[i] == 0.0);
        nd_release(z);
        NdArray *o = nd_ones(ND_FLOAT64, ND_SHAPE(1000));
        for (int64_t i = 0; i < o->size; i++)
            assert_true(ND_DATA(o, double)[i] == 1.0);
        nd_release(o);
    }
}

/* A view's base keeps the block: releasing the base first leaves the
 * view's data intact, whatever is made meanwhile. */
static void test_views_keep_their_block(void **state)
{
    (void)state;
    NdArray *a = nd_arange(0, 12, 1, ND_FLOAT64);
    NdArray *v = nd_reshape(a, ND_SHAPE(3, 4));
    nd_release(a);
    NdArray *other = nd_full(ND_FLOAT64, ND_SHAPE(12), -1);
    for (int64_t i = 0; i < 12; i++)
        assert_true(ND_DATA(v, double)[i] == (double)i);
    nd_release(other);
    nd_release(v);
}

/* Many arrays of a few sizes alive at once, released, made again: the
 * loop of a training iteration. The values stay each array's own. */
static void test_training_loop_pattern(void **state)
{
    (void)state;
    enum { N = 200 };
    NdArray *arrays[N];
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < N; i++) {
            arrays[i] = nd_full(ND_FLOAT64, ND_SHAPE(1 + i % 7, 100),
                                (double)(round * N + i));
        }
        for (int i = 0; i < N; i++) {
            double want = (double)(round * N + i);
            for (int64_t j = 0; j < arrays[i]->size; j++)
                assert_true(ND_DATA(arrays[i], double)[j] == want);
        }
        for (int i = 0; i < N; i++)
            nd_release(arrays[i]);
    }
}

/* How many of the n arrays' blocks are among the n blocks. */
static int count_reused(NdArray *const *arrays, void *const *blocks, int n)
{
    int reused = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (arrays[i]->data == blocks[j]) {
                reused++;
                break;
            }
    return reused;
}

/* Makes n arrays of shape (rows, cols), keeping their blocks in blocks,
 * and releases them. Then n blocks of the same bytes are taken straight
 * from malloc, so that what the cache let go goes to them, and the n
 * arrays are made again: how many of their blocks are the old ones says
 * how many the cache kept. */
static int kept_of(int n, int64_t rows, int64_t cols, NdArray **arrays,
                   void **blocks, void **taken)
{
    for (int i = 0; i < n; i++) {
        arrays[i] = nd_empty(ND_FLOAT64, ND_SHAPE(rows, cols));
        blocks[i] = arrays[i]->data;
    }
    for (int i = 0; i < n; i++)
        nd_release(arrays[i]);
    size_t bytes = (size_t)(rows * cols) * sizeof(double);
    for (int i = 0; i < n; i++)
        taken[i] = aligned_alloc(64, bytes);
    for (int i = 0; i < n; i++)
        arrays[i] = nd_empty(ND_FLOAT64, ND_SHAPE(rows, cols));
    int kept = count_reused(arrays, blocks, n);
    for (int i = 0; i < n; i++) {
        nd_release(arrays[i]);
        free(taken[i]);
    }
    return kept;
}

/* An LSTM's backward frees hundreds of (30, 100) arrays at once: the
 * cache keeps every one of their blocks for the next forward. */
static void test_many_of_one_size_kept(void **state)
{
    (void)state;
    if (!caching)
        skip();
    enum { N = 600 };                       /* 14 MB */
    static NdArray *arrays[N];
    static void *blocks[N], *taken[N];
    assert_int_equal(kept_of(N, 30, 100, arrays, blocks, taken), N);
}

/* The cache keeps at most 32 MiB: of 48 blocks of 1 MiB freed at once,
 * it keeps some, never all. */
static void test_cache_total_is_bounded(void **state)
{
    (void)state;
    if (!caching)
        skip();
    enum { N = 48 };
    NdArray *arrays[N];
    void *blocks[N], *taken[N];
    /* Other tests' blocks may hold some of the 32 MiB. */
    assert_in_range(kept_of(N, 128, 1024, arrays, blocks, taken), 1, 32);
}

/* More sizes than the cache has bins: every array still gets a block of
 * its own, and a size whose bin is given up comes back later. */
static void test_more_sizes_than_bins(void **state)
{
    (void)state;
    enum { SIZES = 200 };
    for (int round = 0; round < 3; round++) {
        NdArray *arrays[SIZES];
        for (int i = 0; i < SIZES; i++)
            arrays[i] = nd_full(ND_FLOAT64, ND_SHAPE(8 * (i + 1)),
                                (double)i);
        for (int i = 0; i < SIZES; i++) {
            assert_int_equal(arrays[i]->size, 8 * (i + 1));
            for (int64_t j = 0; j < arrays[i]->size; j++)
                assert_true(ND_DATA(arrays[i], double)[j] == (double)i);
        }
        for (int i = 0; i < SIZES; i++)
            nd_release(arrays[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_size_reuses),
        cmocka_unit_test(test_sizes_do_not_mix),
        cmocka_unit_test(test_reused_blocks_are_filled),
        cmocka_unit_test(test_views_keep_their_block),
        cmocka_unit_test(test_training_loop_pattern),
        cmocka_unit_test(test_many_of_one_size_kept),
        cmocka_unit_test(test_cache_total_is_bounded),
        cmocka_unit_test(test_more_sizes_than_bins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
