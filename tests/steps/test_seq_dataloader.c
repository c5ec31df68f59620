// FIRST_STEP: 60
/* test_seq_dataloader.c - step 60's SeqDataLoader (dataloaders.c:
 * seq_dataloader): batch n holds, in row k, item (k * (data_size /
 * batch_size) + n) % data_size, as Python's does; an epoch has as many
 * batches as a DataLoader's, and the next epoch starts again at item
 * 0; a batch larger than the dataset repeats item n. */
#include "pool_fixture.h"

/* Ten items 0., 1., ..., 9., (10, 1), labelled 100 more. */
static void ten_prepare(Dataset *self)
{
    NdArray *a = nd_arange(0, 10, 1, ND_FLOAT64);
    NdArray *hundred = nd_scalar(100);
    NdArray *b = nd_add(a, hundred);
    self->data = nd_reshape(a, ND_SHAPE(10, 1));
    self->label = nd_reshape(b, ND_SHAPE(10, 1));
    nd_release(b);
    nd_release(hundred);
    nd_release(a);
}

static const DatasetClass ten_class = {.name = "Ten",
                                       .prepare = ten_prepare};

/* SeqDataLoader(D(), batch_size=3) over the ten items, by Python's
 * DeZero: jump 3, four batches. */
static const double python_batches[4][3] = {
    {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {3, 6, 9},
};

static void test_batches_are_pythons(void **state)
{
    (void)state;
    Dataset *d = dataset_new(&ten_class, sizeof(Dataset), true,
                             (DatasetOptions){0});
    DataLoader *loader = seq_dataloader(d, 3);
    assert_int_equal(loader->max_iter, 4);
    for (int epoch = 0; epoch < 2; epoch++) {
        NdArray *x, *t;
        for (int n = 0; n < 4; n++) {
            assert_true(dataloader_next(loader, &x, &t));
            assert_int_equal(x->ndim, 2);
            assert_int_equal(x->shape[0], 3);
            assert_int_equal(x->shape[1], 1);
            assert_int_equal(t->shape[0], 3);
            for (int k = 0; k < 3; k++) {
                assert_true(nd_get_flat(x, k) == python_batches[n][k]);
                assert_true(nd_get_flat(t, k) ==
                            python_batches[n][k] + 100);
            }
            nd_release(t);
            nd_release(x);
        }
        assert_false(dataloader_next(loader, &x, &t));
    }
}

/* Other sizes: batches of 4 over the ten items start their rows 2
 * apart (jump 10 // 4), three batches an epoch; a batch larger than
 * the dataset has a jump of 0, as in Python: one batch, every row item
 * 0. */
static void test_other_batch_sizes(void **state)
{
    (void)state;
    Dataset *d = dataset_new(&ten_class, sizeof(Dataset), true,
                             (DatasetOptions){0});
    DataLoader *loader = seq_dataloader(d, 4);      /* jump 2 */
    assert_int_equal(loader->max_iter, 3);
    NdArray *x, *t;
    for (int n = 0; n < 3; n++) {
        assert_true(dataloader_next(loader, &x, &t));
        for (int k = 0; k < 4; k++)
            assert_true(nd_get_flat(x, k) == (double)(k * 2 + n));
        nd_release(t);
        nd_release(x);
    }
    assert_false(dataloader_next(loader, &x, &t));
    loader = seq_dataloader(d, 12);                 /* jump 0 */
    assert_true(dataloader_next(loader, &x, &t));
    assert_int_equal(x->shape[0], 12);
    for (int k = 0; k < 12; k++)
        assert_true(nd_get_flat(x, k) == 0);
    nd_release(t);
    nd_release(x);
    assert_false(dataloader_next(loader, &x, &t));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_batches_are_pythons),
        STEP_TEST(test_other_batch_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
