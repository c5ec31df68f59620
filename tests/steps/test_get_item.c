// FIRST_STEP: 47
/* test_get_item.c - step 47's GetItem and GetItemGrad: x[1], x[:, 2],
 * x[1:3], x[[0, 0, 1]] and the pair form x[arange(N), t] give NumPy's
 * values; their gradients scatter gy back, adding up where an element
 * was picked twice (np.add.at); central differences agree; GetItemGrad's
 * own backward is GetItem; the index arrays live as long as the
 * function that keeps them; a bad index stops with a message. */
#include "grad_check.h"

/* An int64 array (n,) of the values listed. */
#define INDICES(...)                                                      \
    nd_from_buffer(ND_INT64,                                              \
                   ND_SHAPE((int64_t)(sizeof((int64_t[]){__VA_ARGS__}) /  \
                                      sizeof(int64_t))),                  \
                   (int64_t[]){__VA_ARGS__})

/* x = [[0 1 2] [3 4 5]], float64 */
static Variable *x23(void)
{
    return variable(ramp(ND_SHAPE(2, 3), 0, 1));
}

static void test_int_and_slice(void **state)
{
    (void)state;
    Variable *x = x23();
    Variable *row = variable_getitem(x, ND_IDX_INT(1));     /* x[1] */
    EXPECT_ARRAY(row->data, ND_FLOAT64, ND_SHAPE(3), 3, 4, 5);
    assert_string_equal(row->creator->cls->name, "GetItem");
    Variable *column = variable_getitem(x, ND_IDX_ALL, ND_IDX_INT(2));
    EXPECT_ARRAY(column->data, ND_FLOAT64, ND_SHAPE(2), 2, 5);
    Variable *part = variable_getitem(x, ND_IDX_ALL,
                                      ND_IDX_SLICE(1, 3, ND_NONE));
    EXPECT_ARRAY(part->data, ND_FLOAT64, ND_SHAPE(2, 2), 1, 2, 4, 5);
    Variable *last = variable_getitem(x, ND_IDX_INT(-1), ND_IDX_INT(-1));
    EXPECT_ARRAY(last->data, ND_FLOAT64, ND_SCALAR_SHAPE, 5);
}

/* x[1]'s gradient is gy in row 1 and zeros in row 0; x[:, 2]'s in
 * column 2. */
static void test_int_and_slice_backward(void **state)
{
    (void)state;
    Variable *x = x23();
    Variable *row = variable_getitem(x, ND_IDX_INT(1));
    row->grad = retain(variable(ramp(ND_SHAPE(3), 1, 1)));
    backward(row);
    EXPECT_ARRAY(x->grad->data, ND_FLOAT64, ND_SHAPE(2, 3),
                 0, 0, 0, 1, 2, 3);
    cleargrad(x);
    Variable *column = variable_getitem(x, ND_IDX_ALL, ND_IDX_INT(2));
    column->grad = retain(variable(ramp(ND_SHAPE(2), 10, 10)));
    backward(column);
    EXPECT_ARRAY(x->grad->data, ND_FLOAT64, ND_SHAPE(2, 3),
                 0, 0, 10, 0, 0, 20);
}

/* x[[0, 0, 1]]: row 0 twice, so its gradient is the sum of the first
 * two rows of gy. */
static void test_repeated_rows(void **state)
{
    (void)state;
    Variable *x = x23();
    NdArray *rows = INDICES(0, 0, 1);
    Variable *y = variable_getitem(x, ND_IDX_ARRAY(rows));
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SHAPE(3, 3),
                 0, 1, 2, 0, 1, 2, 3, 4, 5);
    y->grad = retain(variable(ramp(ND_SHAPE(3, 3), 1, 1)));
    backward(y, .create_graph = true);
    EXPECT_ARRAY(x->grad->data, ND_FLOAT64, ND_SHAPE(2, 3),
                 1 + 4, 2 + 5, 3 + 6, 7, 8, 9);
    assert_string_equal(x->grad->creator->cls->name, "GetItemGrad");
    nd_release(rows);
}

/* x[arange(N), t] picks x[i, t[i]]; a pair picked twice gets both
 * gradients, a pair never picked none. */
static void test_pair_form(void **state)
{
    (void)state;
    Variable *x = variable(ramp(ND_SHAPE(3, 3), 0, 1));
    NdArray *r = INDICES(0, 1, 2), *t = INDICES(2, 0, 1);
    Variable *y = variable_getitem(x, ND_IDX_ARRAY(r), ND_IDX_ARRAY(t));
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SHAPE(3), 2, 3, 7);
    NdArray *r2 = INDICES(0, 0, 2, 0), *t2 = INDICES(1, 1, 0, 2);
    Variable *z = variable_getitem(x, ND_IDX_ARRAY(r2), ND_IDX_ARRAY(t2));
    z->grad = retain(variable(ramp(ND_SHAPE(4), 1, 1)));
    backward(z);
    EXPECT_ARRAY(x->grad->data, ND_FLOAT64, ND_SHAPE(3, 3),
                 0, 1 + 2, 4, 0, 0, 0, 3, 0, 0);
    nd_release(t2);
    nd_release(r2);
    nd_release(t);
    nd_release(r);
}

/* The gradient keeps gy's dtype (np.zeros(in_shape, dtype=gy.dtype)). */
static void test_gradient_dtype(void **state)
{
    (void)state;
    Variable *x = variable(nd_ones(ND_FLOAT32, ND_SHAPE(2, 2)));
    Variable *y = variable_getitem(x, ND_IDX_INT(0));
    EXPECT_ARRAY(y->data, ND_FLOAT32, ND_SHAPE(2), 1, 1);
    backward(y);
    EXPECT_ARRAY(x->grad->data, ND_FLOAT32, ND_SHAPE(2, 2), 1, 1, 0, 0);
}

/* The functions the gradient check calls: each index kind, and
 * GetItemGrad on its own, whose backward is GetItem. */
static NdArray *check_rows, *check_columns;

static Variable *pick_rows(Variable *xs[])
{
    return variable_getitem(xs[0], ND_IDX_ARRAY(check_rows));
}

static Variable *pick_pairs(Variable *xs[])
{
    return variable_getitem(xs[0], ND_IDX_ARRAY(check_rows),
                            ND_IDX_ARRAY(check_columns));
}

static Variable *pick_slice(Variable *xs[])
{
    return variable_getitem(xs[0], ND_IDX_SLICE(ND_NONE, ND_NONE, -1),
                            ND_IDX_INT(1));
}

static Variable *scatter_rows(Variable *xs[])
{
    const NdIndex index[] = {ND_IDX_ARRAY(check_rows)};
    Function *f = get_item_grad_function(1, index, ND_SHAPE(3, 2));
    return function_call(f, xs[0]);
}

static void test_numerical_gradients(void **state)
{
    (void)state;
    check_rows = INDICES(2, 0, 2, 1);
    check_columns = INDICES(1, 0, 1, 1);
    NdArray *x[] = {ramp(ND_SHAPE(3, 2), -1, 0.3)};
    check_gradients("x[[2, 0, 2, 1]]", pick_rows, 1, x, 1e-7);
    check_gradients("x[r, c]", pick_pairs, 1, x, 1e-7);
    check_gradients("x[::-1, 1]", pick_slice, 1, x, 1e-7);
    NdArray *gy[] = {ramp(ND_SHAPE(4, 2), 0.5, 0.25)};
    check_gradients("GetItemGrad", scatter_rows, 1, gy, 1e-7);
    Variable *g = variable(nd_copy(gy[0]));
    Variable *gx = scatter_rows((Variable *[]){g});
    EXPECT_ARRAY(gx->data, ND_FLOAT64, ND_SHAPE(3, 2),
                 1, 1.25, 2, 2.25, 0.5 + 1.5, 0.75 + 1.75);
    nd_release(gy[0]);
    nd_release(x[0]);
    nd_release(check_columns);
    nd_release(check_rows);
}

/* The function keeps its own reference to an index array: the caller's
 * can go before backward, and nothing outlives the pool (LeakSanitizer
 * and valgrind see the rest). */
static void test_index_kept(void **state)
{
    (void)state;
    Pool *pool = pool_new();
    Variable *x = x23();
    NdArray *rows = INDICES(1, 1);
    Variable *y = variable_getitem(x, ND_IDX_ARRAY(rows));
    nd_release(rows);
    backward(y);
    EXPECT_ARRAY(x->grad->data, ND_FLOAT64, ND_SHAPE(2, 3),
                 0, 0, 0, 2, 2, 2);
    pool_drain(pool);
}

static void test_bad_index(void **state)
{
    (void)state;
    Variable *x = x23();
    EXPECT_ND_ERROR(variable_getitem(x, ND_IDX_INT(2)),
                    "index 2 is out of bounds for axis 0");
    NdArray *rows = INDICES(0, 5);
    EXPECT_ND_ERROR(variable_getitem(x, ND_IDX_ARRAY(rows)),
                    "index 5 is out of bounds for axis 0");
    nd_release(rows);
    EXPECT_ND_ERROR(variable_getitem(x, ND_IDX_INT(0), ND_IDX_INT(0),
                                     ND_IDX_INT(0)),
                    "too many indices");
    NdIndex many[ND_MAX_DIMS + 1];
    for (int i = 0; i <= ND_MAX_DIMS; i++)
        many[i] = ND_IDX_INT(0);
    EXPECT_ND_ERROR(F_get_item(x, ND_MAX_DIMS + 1, many),
                    "get_item_function: an index of 9 entries");
    Variable *same = F_get_item(x, 0, NULL);            /* x[()] */
    EXPECT_ARRAY(same->data, ND_FLOAT64, ND_SHAPE(2, 3), 0, 1, 2, 3, 4, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_int_and_slice),
        STEP_TEST(test_int_and_slice_backward),
        STEP_TEST(test_repeated_rows),
        STEP_TEST(test_pair_form),
        STEP_TEST(test_gradient_dtype),
        STEP_TEST(test_numerical_gradients),
        STEP_TEST(test_index_kept),
        STEP_TEST(test_bad_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
