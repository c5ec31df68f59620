// FIRST_STEP: 49
/* test_datasets.c - step 49's Dataset and transforms: Spiral holds
 * get_spiral's arrays, an item is a row and its label, each through its
 * transform; a batch stacks items; a dataset of one's own class with a
 * prepare and without labels; the transforms of transforms.py against
 * NumPy's values and dtypes, Compose's order; and the errors: an index
 * out of range, a dataset without data, a bad batch index. */
#include "pool_fixture.h"

static void test_spiral_items(void **state)
{
    (void)state;
    Dataset *d = spiral(true);
    assert_int_equal(dataset_len(d), 300);
    assert_string_equal(d->cls->name, "Spiral");
    assert_true(d->train);
    NdArray *x, *t;
    dataset_item(d, 0, &x, &t);
    EXPECT_ARRAY(x, ND_FLOAT32, ND_SHAPE(2), -0x1.1e56bep-3, -0x1.d8f204p-8);
    EXPECT_ARRAY(t, ND_INT64, ND_SCALAR_SHAPE, 1);
    nd_release(t);
    nd_release(x);
    dataset_item(d, -300, &x, &t);                  /* the same item */
    EXPECT_ARRAY(x, ND_FLOAT32, ND_SHAPE(2), -0x1.1e56bep-3, -0x1.d8f204p-8);
    nd_release(t);
    nd_release(x);
    EXPECT_ND_ERROR(dataset_item(d, 300, &x, &t),
                    "dataset_item: index 300 is out of range for the "
                    "Spiral dataset of 300 items");
    Dataset *test = spiral(false);
    assert_false(test->train);
    EXPECT_DOUBLE(nd_get_flat(test->data, 0), 0x1.0f4990p-3);
}

/* Each item goes through the transform, each label through the target
 * transform. */
static void test_item_transforms(void **state)
{
    (void)state;
    Dataset *d = spiral(true, .transform = T_normalize(0.5, 2),
                        .target_transform = T_as_type(ND_FLOAT64));
    NdArray *x, *t;
    dataset_item(d, 0, &x, &t);
    EXPECT_ARRAY(x, ND_FLOAT32, ND_SHAPE(2),
                 (float)(((float)-0x1.1e56bep-3 - 0.5f) / 2.0f),
                 (float)(((float)-0x1.d8f204p-8 - 0.5f) / 2.0f));
    EXPECT_ARRAY(t, ND_FLOAT64, ND_SCALAR_SHAPE, 1);
    nd_release(t);
    nd_release(x);
}

/* A batch is the items at the indices, stacked: the rows and labels
 * that indexing the arrays picks. */
static void test_batch(void **state)
{
    (void)state;
    Dataset *d = spiral(true);
    NdArray *index = nd_from_buffer(ND_INT64, ND_SHAPE(3),
                                    (int64_t[]){2, 0, 2});
    NdArray *x, *t;
    dataset_batch(d, index, &x, &t);
    NdArray *want_x = nd_getitem(d->data, 1, (NdIndex[]){
        ND_IDX_ARRAY(index)});
    NdArray *want_t = nd_getitem(d->label, 1, (NdIndex[]){
        ND_IDX_ARRAY(index)});
    assert_int_equal(x->dtype, ND_FLOAT32);
    assert_true(nd_array_equal(x, want_x));
    assert_int_equal(t->dtype, ND_INT64);
    assert_true(nd_array_equal(t, want_t));
    EXPECT_ARRAY(t, ND_INT64, ND_SHAPE(3), 2, 1, 2);
    NdArray *grid = nd_zeros(ND_INT64, ND_SHAPE(1, 2));
    EXPECT_ND_ERROR(dataset_batch(d, grid, &x, &t),
                    "want a non-empty 1-D integer array of indices");
    nd_release(grid);
    nd_release(want_t);
    nd_release(want_x);
    nd_release(t);
    nd_release(x);
    nd_release(index);
}

/* A dataset of one's own: a prepare that sets data and no labels. */
static void squares_prepare(Dataset *self)
{
    self->data = nd_arange(0, 5, 1, ND_INT64);
    NdArray *squares = nd_mul(self->data, self->data);
    nd_release(self->data);
    self->data = squares;
}

static const DatasetClass squares_class = {.name = "Squares",
                                           .prepare = squares_prepare};

static const DatasetClass empty_class = {.name = "Empty"};

static void test_own_dataset(void **state)
{
    (void)state;
    Dataset *d = dataset_new(&squares_class, sizeof(Dataset), true,
                             (DatasetOptions){.transform = T_to_float()});
    assert_int_equal(dataset_len(d), 5);
    NdArray *x, *t;
    dataset_item(d, 3, &x, &t);
    EXPECT_ARRAY(x, ND_FLOAT32, ND_SCALAR_SHAPE, 9);
    assert_null(t);
    nd_release(x);
    NdArray *index = nd_arange(1, 4, 1, ND_INT64);
    dataset_batch(d, index, &x, &t);
    EXPECT_ARRAY(x, ND_FLOAT32, ND_SHAPE(3), 1, 4, 9);
    assert_null(t);
    nd_release(x);
    nd_release(index);
    Dataset *empty = dataset_new(&empty_class, sizeof(Dataset), true,
                                 (DatasetOptions){0});
    EXPECT_ND_ERROR(dataset_len(empty), "the Empty dataset has no data");
}

/* MNIST's preprocessing (step 51): flatten, to float32, divide by 255,
 * in that order; NumPy keeps float32 through Normalize. */
static void test_transforms(void **state)
{
    (void)state;
    NdArray *image = nd_from_buffer(ND_UINT8, ND_SHAPE(1, 2, 2),
                                    (uint8_t[]){0, 51, 102, 255});
    const Transform steps[] = {T_flatten(), T_to_float(),
                               T_normalize(0., 255.)};
    Transform mnist = T_compose(3, steps);
    NdArray *y = transform_apply(&mnist, image);
    EXPECT_ARRAY(y, ND_FLOAT32, ND_SHAPE(4), 0, 0.2f, 0.4f, 1);
    nd_release(y);
    NdArray *flat = transform_apply(&steps[0], image);
    EXPECT_ARRAY(flat, ND_UINT8, ND_SHAPE(4), 0, 51, 102, 255);
    nd_release(flat);
    Transform as64 = T_as_type(ND_FLOAT64);
    NdArray *d = transform_apply(&as64, image);
    EXPECT_ARRAY(d, ND_FLOAT64, ND_SHAPE(1, 2, 2), 0, 51, 102, 255);
    nd_release(d);
    Transform none = {0}, empty = T_compose(0, NULL);
    NdArray *same = transform_apply(&none, image);
    assert_ptr_equal(same, image);                  /* lambda x: x */
    nd_release(same);
    NdArray *kept = transform_apply(&empty, image);
    assert_true(nd_array_equal(kept, image));
    nd_release(kept);
    nd_release(image);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_spiral_items),
        STEP_TEST(test_item_transforms),
        STEP_TEST(test_batch),
        STEP_TEST(test_own_dataset),
        STEP_TEST(test_transforms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
