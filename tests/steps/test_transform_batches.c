// FIRST_STEP: 51
/* test_transform_batches.c - step 51's batch form of the transforms: a
 * batch of items through it is, array for array, the stack of the items
 * each through the transform, as Python makes a batch; a dataset whose
 * transforms all have it picks its rows at once, and one with a
 * transform of its own without it goes item by item, with the same
 * arrays and the same errors either way. */
#include "pool_fixture.h"

/* Five images (5, 1, 2, 3) uint8 of varied bytes, labelled 0 to 4. */
static void bytes_prepare(Dataset *self)
{
    NdArray *i = nd_arange(0, 30, 1, ND_INT64);
    NdArray *step = nd_scalar_of(ND_INT64, 37);
    NdArray *spread = nd_mul(i, step);              /* wraps as uint8 */
    NdArray *bytes = nd_astype(spread, ND_UINT8);
    self->data = nd_reshape(bytes, ND_SHAPE(5, 1, 2, 3));
    self->label = nd_arange(0, 5, 1, ND_UINT8);
    nd_release(bytes);
    nd_release(spread);
    nd_release(step);
    nd_release(i);
}

static const DatasetClass bytes_class = {.name = "Bytes",
                                         .prepare = bytes_prepare};

/* The items of d at index, each through dataset_item, stacked: what
 * Python's DataLoader makes of them. */
static void stacked_items(const Dataset *d, const NdArray *index,
                          NdArray **x, NdArray **t)
{
    int64_t n = index->size;
    NdArray *xs[8], *ts[8];
    assert_true(n <= 8);
    for (int64_t i = 0; i < n; i++)
        dataset_item(d, (int64_t)nd_get_flat(index, i), &xs[i], &ts[i]);
    *x = nd_stack((int)n, xs, 0);
    *t = nd_stack((int)n, ts, 0);
    for (int64_t i = 0; i < n; i++) {
        nd_release(xs[i]);
        nd_release(ts[i]);
    }
}

/* x, as one of a transform of one's own: a copy, with no batch form. */
static NdArray *copy_call(const Transform *self, const NdArray *x)
{
    (void)self;
    return nd_copy(x);
}

/* MNIST's chain, Normalize(2, 5) and AsType alone, the identity, and a
 * chain around a transform without a batch form: each batch equals its
 * stacked items, dtypes and shapes included, for indices in any order,
 * repeated and counted from the end. */
static void test_batch_is_the_stack_of_items(void **state)
{
    (void)state;
    const Transform mnist_chain[] = {T_flatten(), T_to_float(),
                                     T_normalize(0, 255)};
    const Transform with_own[] = {T_to_float(), {.call = copy_call}};
    const Transform transforms[] = {
        T_compose(3, mnist_chain), T_normalize(2, 5),
        T_as_type(ND_FLOAT64), {0}, T_compose(2, with_own),
    };
    const bool takes_batches[] = {true, true, true, true, false};
    NdArray *index = nd_from_buffer(ND_INT64, ND_SHAPE(4),
                                    (int64_t[]){3, 0, -1, 3});
    for (int k = 0; k < 5; k++) {
        Dataset *d = dataset_new(&bytes_class, sizeof(Dataset), true,
                                 (DatasetOptions){.transform = transforms[k]});
        assert_int_equal(transform_takes_batches(&d->transform),
                         takes_batches[k]);
        NdArray *x, *t, *want_x, *want_t;
        dataset_batch(d, index, &x, &t);
        stacked_items(d, index, &want_x, &want_t);
        assert_int_equal(x->dtype, want_x->dtype);
        assert_int_equal(t->dtype, ND_UINT8);
        assert_true(nd_array_equal(x, want_x));
        assert_true(nd_array_equal(t, want_t));
        nd_release(want_t);
        nd_release(want_x);
        nd_release(t);
        nd_release(x);
    }
    nd_release(index);
}

/* Flatten's batch form flattens each item, not the batch. */
static void test_flatten_batch(void **state)
{
    (void)state;
    Transform flatten = T_flatten();
    NdArray *xs = nd_zeros(ND_UINT8, ND_SHAPE(4, 1, 2, 3));
    NdArray *ys = transform_apply_batch(&flatten, xs);
    assert_int_equal(ys->ndim, 2);
    assert_int_equal(ys->shape[0], 4);
    assert_int_equal(ys->shape[1], 6);
    nd_release(ys);
    nd_release(xs);
}

/* A batch with an index out of range stops as an item does; a
 * transform without a batch form refuses to be given one. */
static void test_batch_errors(void **state)
{
    (void)state;
    Dataset *d = dataset_new(&bytes_class, sizeof(Dataset), true,
                             (DatasetOptions){.transform = T_to_float()});
    NdArray *index = nd_from_buffer(ND_INT64, ND_SHAPE(2),
                                    (int64_t[]){1, 5});
    NdArray *x, *t;
    EXPECT_ND_ERROR(dataset_batch(d, index, &x, &t),
                    "dataset_item: index 5 is out of range for the Bytes "
                    "dataset of 5 items");
    Transform own = {.call = copy_call};
    EXPECT_ND_ERROR(transform_apply_batch(&own, d->data),
                    "transform_apply_batch: the transform has no batch "
                    "form");
    nd_release(index);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_batch_is_the_stack_of_items),
        STEP_TEST(test_flatten_batch),
        STEP_TEST(test_batch_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
