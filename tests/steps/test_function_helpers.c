// FIRST_STEP: 09
// LAST_STEP: 10
/* test_function_helpers.c - the conveniences of step 09: F_square and
 * F_exp, backward seeding the gradient with ones, and variable()
 * refusing a NULL array. */
#include "step_under_test.h"

/* Step 09's program: no Function in sight, no seed to set. */
static void test_plain_functions_and_seed(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(0.5));
    Variable *y = F_square(F_exp(F_square(x)));
    backward(y);
    EXPECT_ARRAY(y->grad, ND_FLOAT64, ND_SCALAR_SHAPE, 1.0);
    EXPECT_ARRAY(x->grad, ND_FLOAT64, ND_SCALAR_SHAPE, 3.297442541400256);
}

/* Each call makes a Function of its own, of the right class. */
static void test_each_call_has_its_function(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(1.0));
    Variable *y = F_square(x), *z = F_square(x), *w = F_exp(x);
    assert_ptr_not_equal(y->creator, z->creator);
    assert_string_equal(y->creator->cls->name, "Square");
    assert_string_equal(w->creator->cls->name, "Exp");
    assert_ptr_equal(y->creator->input, x);
    assert_ptr_equal(w->creator->output, w);
}

/* The seed is ones of y's shape and dtype, like np.ones_like. */
static void test_seed_is_ones_like_y(void **state)
{
    (void)state;
    double values[] = {1.0, 2.0, 3.0};
    Variable *x = variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(3), values));
    Variable *y = F_square(x);
    backward(y);
    EXPECT_ARRAY(y->grad, ND_FLOAT64, ND_SHAPE(3), 1.0, 1.0, 1.0);
    EXPECT_ARRAY(x->grad, ND_FLOAT64, ND_SHAPE(3), 2.0, 4.0, 6.0);

    int64_t ints[] = {1, 2};
    Variable *i = variable(nd_from_buffer(ND_INT64, ND_SHAPE(2), ints));
    Variable *j = F_square(i);
    backward(j);
    EXPECT_ARRAY(j->grad, ND_INT64, ND_SHAPE(2), 1, 1);
    EXPECT_ARRAY(i->grad, ND_INT64, ND_SHAPE(2), 2, 4);
}

/* A gradient already in place is the one backward starts from. */
static void test_given_seed_is_kept(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(3.0));
    Variable *y = F_square(x);
    y->grad = nd_scalar(0.5);
    backward(y);
    EXPECT_ARRAY(x->grad, ND_FLOAT64, ND_SCALAR_SHAPE, 3.0);
}

/* The compiler refuses variable(1.0); NULL is refused at run time. */
static void test_null_is_refused(void **state)
{
    (void)state;
    EXPECT_ND_ERROR(variable(NULL), "variable: NULL is not supported");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_functions_and_seed),
        cmocka_unit_test(test_each_call_has_its_function),
        cmocka_unit_test(test_seed_is_ones_like_y),
        cmocka_unit_test(test_given_seed_is_kept),
        cmocka_unit_test(test_null_is_refused),
    };
    return cmocka_run_group_tests_name("function_helpers", tests, NULL,
                                       NULL);
}
