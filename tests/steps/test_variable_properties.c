// FIRST_STEP: 19
/* test_variable_properties.c - what step 19 adds to a Variable: a name,
 * the properties of its data (shape, ndim, size, dtype, len), and
 * DeZero's repr, variable(...), with continuation lines indented by 9
 * (expected texts: what NumPy 1.24 prints for str of each array, in
 * DeZero's variable(...) around it, written into this test). */
#include "pool_fixture.h"

static void expect_repr_at(const char *file, int line, const Variable *v,
                           const char *want)
{
    char *got = variable_repr(v);
    _assert_string_equal(got, want, file, line);
    free(got);
}
#define expect_repr(...) expect_repr_at(__FILE__, __LINE__, __VA_ARGS__)

/* A Variable starts without a name; the name is borrowed, not copied;
 * a function's output gets none of its input's; the name changes
 * neither the repr nor the computation, and outlives backward. */
static void test_name(void **state)
{
    (void)state;
    static const char name[] = "x";
    Variable *x = variable(nd_scalar(3.0));
    assert_null(x->name);
    x->name = name;
    assert_ptr_equal(x->name, name);
    Variable *y = F_square(x);
    assert_null(y->name);
    expect_repr(x, "variable(3.0)");
    expect_repr(y, "variable(9.0)");
    backward(y);
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 6.0);
    assert_ptr_equal(x->name, name);
    assert_null(y->name);
}

/* Step 19's matrix: np.array([[1, 2, 3], [4, 5, 6]]). */
static void test_properties_of_a_matrix(void **state)
{
    (void)state;
    int64_t values[] = {1, 2, 3, 4, 5, 6};
    Variable *x = variable(nd_from_buffer(ND_INT64, ND_SHAPE(2, 3),
                                          values));
    assert_int_equal(variable_ndim(x), 2);
    assert_int_equal(variable_shape(x)[0], 2);
    assert_int_equal(variable_shape(x)[1], 3);
    assert_int_equal(variable_size(x), 6);
    assert_int_equal(variable_dtype(x), ND_INT64);
    assert_string_equal(nd_dtype_name(variable_dtype(x)), "int64");
    assert_int_equal(variable_len(x), 2);
    expect_repr(x, "variable([[1 2 3]\n          [4 5 6]])");
}

static void test_properties_of_a_scalar(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(0.5));
    assert_int_equal(variable_ndim(x), 0);
    assert_int_equal(variable_size(x), 1);
    assert_int_equal(variable_dtype(x), ND_FLOAT64);
    EXPECT_ND_ERROR(variable_len(x), "variable_len: len() of a 0-d "
                    "variable");
    expect_repr(x, "variable(0.5)");
}

static void test_repr(void **state)
{
    (void)state;
    expect_repr(variable(nd_scalar(1.0)), "variable(1.0)");
    expect_repr(variable(nd_scalar(3.297442541400256)),
                "variable(3.297442541400256)");
    expect_repr(variable(nd_scalar_of(ND_INT64, 2)), "variable(2)");
    double row[] = {1.0, 2.0, 3.0};
    expect_repr(variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(3), row)),
                "variable([1. 2. 3.])");
    double matrix[] = {1, 2, 3, 4, 5, 6};
    expect_repr(variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(2, 3),
                                        matrix)),
                "variable([[1. 2. 3.]\n          [4. 5. 6.]])");
}

/* Three dimensions: the blank line between blocks gets the 9 spaces
 * too, as Python's str.replace('\n', '\n' + ' ' * 9) gives it. */
static void test_repr_of_three_dimensions(void **state)
{
    (void)state;
    NdArray *flat = nd_arange(0, 24, 1, ND_FLOAT64);
    Variable *x = variable(nd_reshape(flat, ND_SHAPE(2, 3, 4)));
    nd_release(flat);
    expect_repr(x,
                "variable([[[ 0.  1.  2.  3.]\n"
                "           [ 4.  5.  6.  7.]\n"
                "           [ 8.  9. 10. 11.]]\n"
                "         \n"
                "          [[12. 13. 14. 15.]\n"
                "           [16. 17. 18. 19.]\n"
                "           [20. 21. 22. 23.]]])");
    assert_int_equal(variable_len(x), 2);
    assert_int_equal(variable_size(x), 24);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_name),
        STEP_TEST(test_properties_of_a_matrix),
        STEP_TEST(test_properties_of_a_scalar),
        STEP_TEST(test_repr),
        STEP_TEST(test_repr_of_three_dimensions),
    };
    return cmocka_run_group_tests_name("variable_properties", tests, NULL,
                                       NULL);
}
