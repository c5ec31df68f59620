// FIRST_STEP: 48
/* test_spiral.c - step 48's get_spiral: the shapes and dtypes Python's
 * datasets.get_spiral gives (x (300, 2) float32, t (300,) int64), 100
 * points per class, the first and last rows of the training and the
 * test set as NumPy 1.24 computes them (the full training set is
 * checked by the golden test's spiral.csv), and the generator left
 * where Python leaves it: reseeded, 300 gaussians and a permutation
 * drawn. */
#include "pool_fixture.h"

static void test_training_set(void **state)
{
    (void)state;
    NdArray *x, *t;
    get_spiral(true, &x, &t);
    assert_int_equal(x->dtype, ND_FLOAT32);
    assert_int_equal(x->ndim, 2);
    assert_int_equal(x->shape[0], 300);
    assert_int_equal(x->shape[1], 2);
    NdArray *head = nd_getitem(x, 1, (NdIndex[]){
        ND_IDX_SLICE(0, 3, ND_NONE)});
    EXPECT_ARRAY(head, ND_FLOAT32, ND_SHAPE(3, 2),
                 -0x1.1e56bep-3, -0x1.d8f204p-8, 0x1.7b62c2p-2,
                 0x1.2a0852p-1, 0x1.1972f6p-3, -0x1.5fd6cep-3);
    assert_int_equal(t->dtype, ND_INT64);
    assert_int_equal(t->ndim, 1);
    assert_int_equal(t->shape[0], 300);
    int counts[3] = {0};
    for (int64_t i = 0; i < t->size; i++) {
        int64_t label = ND_DATA(t, int64_t)[i];
        assert_true(label >= 0 && label <= 2);
        counts[label]++;
    }
    assert_int_equal(counts[0], 100);
    assert_int_equal(counts[1], 100);
    assert_int_equal(counts[2], 100);
    assert_int_equal(ND_DATA(t, int64_t)[0], 1);
    assert_int_equal(ND_DATA(t, int64_t)[2], 2);
    /* The program's first epoch draws this permutation next. */
    NdArray *next = nd_random_permutation(300);
    NdArray *first = nd_getitem(next, 1, (NdIndex[]){
        ND_IDX_SLICE(0, 8, ND_NONE)});
    EXPECT_ARRAY(first, ND_INT64, ND_SHAPE(8),
                 187, 212, 61, 57, 49, 258, 169, 225);
    nd_release(first);
    nd_release(next);
    nd_release(head);
    nd_release(t);
    nd_release(x);
}

static void test_test_set(void **state)
{
    (void)state;
    NdArray *x, *t;
    get_spiral(false, &x, &t);
    NdArray *rows = nd_from_buffer(ND_INT64, ND_SHAPE(3),
                                   (int64_t[]){0, 1, 299});
    NdArray *ends = nd_getitem(x, 1, (NdIndex[]){ND_IDX_ARRAY(rows)});
    EXPECT_ARRAY(ends, ND_FLOAT32, ND_SHAPE(3, 2),
                 0x1.0f4990p-3, 0x1.16f53cp-3, -0x1.41d068p-2,
                 0x1.fac90cp-3, -0.16662900149822235, 0.03368643671274185);
    EXPECT_DOUBLE(nd_get_flat(t, 0), 0);
    EXPECT_DOUBLE(nd_get_flat(t, 1), 1);
    EXPECT_DOUBLE(nd_get_flat(t, 299), 1);
    NdArray *g = nd_random_randn(ND_SCALAR_SHAPE);
    EXPECT_DOUBLE(nd_item(g), 0.5882268528568941);
    nd_release(g);
    nd_release(ends);
    nd_release(rows);
    nd_release(t);
    nd_release(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_training_set),
        STEP_TEST(test_test_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
