// FIRST_STEP: 50
/* test_dataloader.c - step 50's DataLoader and accuracy. The loader
 * gives batches of batch_size and a smaller last one, then false at the
 * end of the epoch; in the dataset's order without shuffling, which
 * never draws a random number; with shuffling, in the order of
 * np.random.permutation, drawn at construction and again at the end of
 * each epoch, exactly where Python's iterator draws it (the values are
 * NumPy 1.24's after np.random.seed(0)). accuracy against NumPy, not
 * recorded in a graph. */
#include "pool_fixture.h"

/* A dataset of n items, 10 i for item i, labelled i % 2. */
static void count_prepare(Dataset *self)
{
    int64_t n = 7;
    self->data = nd_arange(0, 10.0 * (double)n, 10, ND_INT64);
    NdArray *i = nd_arange(0, (double)n, 1, ND_INT64);
    NdArray *two = nd_scalar_of(ND_INT64, 2);
    NdArray *half = nd_div(i, two);                     /* float64 */
    NdArray *floor = nd_astype(half, ND_INT64);
    NdArray *twice = nd_mul(floor, two);
    self->label = nd_sub(i, twice);                     /* i % 2 */
    nd_release(twice);
    nd_release(floor);
    nd_release(half);
    nd_release(two);
    nd_release(i);
}

static const DatasetClass count_class = {.name = "Count",
                                         .prepare = count_prepare};

static Dataset *count_dataset(void)
{
    return dataset_new(&count_class, sizeof(Dataset), true,
                       (DatasetOptions){0});
}

/* The next batch's items, as data / 10, checked against want (n of
 * them), and their labels against want % 2. */
static void expect_batch(DataLoader *loader, int n, const int64_t *want)
{
    NdArray *x, *t;
    assert_true(dataloader_next(loader, &x, &t));
    assert_int_equal(x->ndim, 1);
    assert_int_equal(x->size, n);
    assert_int_equal(t->dtype, ND_INT64);
    assert_int_equal(t->size, n);
    for (int i = 0; i < n; i++) {
        assert_int_equal(ND_DATA(x, int64_t)[i], 10 * want[i]);
        assert_int_equal(ND_DATA(t, int64_t)[i], want[i] % 2);
    }
    nd_release(t);
    nd_release(x);
}

#define EXPECT_BATCH(loader, ...)                                         \
    expect_batch((loader),                                                \
                 (int)(sizeof((int64_t[]){__VA_ARGS__}) /                 \
                       sizeof(int64_t)),                                  \
                 (int64_t[]){__VA_ARGS__})

static void expect_end(DataLoader *loader)
{
    NdArray *x = NULL, *t = NULL;
    assert_false(dataloader_next(loader, &x, &t));
    assert_null(x);
    assert_null(t);
}

/* 7 items in batches of 3: 3, 3 and the 1 left, then the end; the next
 * epoch starts over. Without shuffling no random number is drawn. */
static void test_in_order(void **state)
{
    (void)state;
    nd_random_seed(0);
    DataLoader *loader = dataloader(count_dataset(), 3, false);
    assert_int_equal(loader->max_iter, 3);
    for (int epoch = 0; epoch < 2; epoch++) {
        EXPECT_BATCH(loader, 0, 1, 2);
        EXPECT_BATCH(loader, 3, 4, 5);
        EXPECT_BATCH(loader, 6);
        expect_end(loader);
    }
    NdArray *r = nd_random_rand(ND_SCALAR_SHAPE);
    EXPECT_DOUBLE(nd_item(r), 0.5488135039273248);  /* seed(0)'s first */
    nd_release(r);
}

/* A batch size beyond the dataset's length, up to INT64_MAX: one batch
 * of everything, as Python's DataLoader(dataset, 2**63 - 1) gives
 * (max_iter = math.ceil(7 / (2**63 - 1)) = 1). */
static void test_huge_batch(void **state)
{
    (void)state;
    DataLoader *loader = dataloader(count_dataset(), INT64_MAX, false);
    assert_int_equal(loader->max_iter, 1);
    EXPECT_BATCH(loader, 0, 1, 2, 3, 4, 5, 6);
    expect_end(loader);
}

/* With shuffling: the construction draws permutation(7), the end of
 * the epoch the next one, and nothing else is drawn. */
static void test_shuffled(void **state)
{
    (void)state;
    nd_random_seed(0);
    DataLoader *loader = dataloader(count_dataset(), 3, true);
    EXPECT_BATCH(loader, 6, 2, 1);
    EXPECT_BATCH(loader, 3, 0, 5);
    EXPECT_BATCH(loader, 4);
    expect_end(loader);                 /* draws the second order */
    EXPECT_BATCH(loader, 1, 0, 6);
    EXPECT_BATCH(loader, 3, 4, 2);
    EXPECT_BATCH(loader, 5);
    NdArray *r = nd_random_rand(ND_SCALAR_SHAPE);
    EXPECT_DOUBLE(nd_item(r), 0.9636627605010293);
    nd_release(r);
}

/* The draw happens when the epoch ends, not when its last batch is
 * given: after the last batch the generator is where construction left
 * it. */
static void test_draw_at_the_end(void **state)
{
    (void)state;
    nd_random_seed(0);
    DataLoader *loader = dataloader(count_dataset(), 7, true);
    EXPECT_BATCH(loader, 6, 2, 1, 3, 0, 5, 4);
    NdArray *r = nd_random_rand(ND_SCALAR_SHAPE);
    EXPECT_DOUBLE(nd_item(r), 0.6458941130666561);
    nd_release(r);
}

/* reset starts the epoch over, in a new order. */
static void test_reset(void **state)
{
    (void)state;
    nd_random_seed(0);
    DataLoader *loader = dataloader(count_dataset(), 2, true);
    EXPECT_BATCH(loader, 6, 2);
    dataloader_reset(loader);
    EXPECT_BATCH(loader, 1, 0);
    assert_int_equal(loader->iteration, 1);
}

/* The spiral in batches of 30: (30, 2) float32 and (30,) int64, as
 * step 50's program takes them; the loader outlives the pool of the
 * dataset's creation by its reference. */
static void test_spiral_batches(void **state)
{
    (void)state;
    Pool *pool = pool_new();
    Dataset *set = spiral(false);
    DataLoader *loader = retain(dataloader(set, 30, false));
    pool_drain(pool);
    NdArray *x, *t;
    int batches = 0;
    while (dataloader_next(loader, &x, &t)) {
        assert_int_equal(x->dtype, ND_FLOAT32);
        assert_int_equal(x->ndim, 2);
        assert_int_equal(x->shape[0], 30);
        assert_int_equal(x->shape[1], 2);
        assert_int_equal(t->dtype, ND_INT64);
        assert_int_equal(t->size, 30);
        batches++;
        nd_release(t);
        nd_release(x);
    }
    assert_int_equal(batches, 10);
    release(loader);
}

static void test_bad_batch_size(void **state)
{
    (void)state;
    EXPECT_ND_ERROR(dataloader(count_dataset(), 0, false),
                    "dataloader: a batch size of 0; want 1 or more");
}

/* 3 of 4 rows have their highest score at the label: 0.75, float64;
 * a tie goes to the first maximum, as np.argmax's. */
static void test_accuracy(void **state)
{
    (void)state;
    NdArray *y = nd_from_buffer(ND_FLOAT32, ND_SHAPE(4, 3), (float[]){
        0.1f, 0.5f, 0.2f, 0.9f, 0.0f, 0.3f, 0.2f, 0.2f, 0.1f,
        0.0f, 0.1f, 0.7f});
    NdArray *t = nd_from_buffer(ND_INT64, ND_SHAPE(4),
                                (int64_t[]){1, 0, 1, 2});
    Variable *acc = F_accuracy(y, t);
    EXPECT_ARRAY(acc->data, ND_FLOAT64, ND_SCALAR_SHAPE, 0.75);
    assert_null(acc->creator);
    NdArray *three = nd_zeros(ND_INT64, ND_SHAPE(3));
    EXPECT_ND_ERROR(F_accuracy(y, three), "want scores (N, C) and N "
                    "labels; got 2 axes and 3 labels");
    nd_release(three);
    nd_release(t);
    nd_release(y);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_in_order),
        STEP_TEST(test_huge_batch),
        STEP_TEST(test_shuffled),
        STEP_TEST(test_draw_at_the_end),
        STEP_TEST(test_reset),
        STEP_TEST(test_spiral_batches),
        STEP_TEST(test_bad_batch_size),
        STEP_TEST(test_accuracy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
