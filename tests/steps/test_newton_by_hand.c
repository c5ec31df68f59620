// FIRST_STEP: 29
/* test_newton_by_hand.c - Newton's method with the second derivative
 * written by hand (step 29), on y = x^4 - 2x^2: backward's first
 * derivative, and the path of x -= f'(x) / f''(x) from three starts,
 * which must be the Python original's to the last bit (DeZero's simple
 * core, NumPy 1.24). From 0.3 the method goes to x = 0, the maximum:
 * it finds where the slope is zero, not where y is lowest. */
#include "pool_fixture.h"

/* As step 29's program writes them. */
static Variable *f(Variable *x)
{
    return F_sub(F_pow(x, 4), F_mul(2, F_pow(x, 2)));
}

static NdArray *gx2(const NdArray *x)
{
    NdArray *twelve = nd_scalar_of(ND_INT64, 12);
    NdArray *four = nd_scalar_of(ND_INT64, 4);
    NdArray *x_squared = nd_mul(x, x);
    NdArray *twelve_x_squared = nd_mul(twelve, x_squared);
    NdArray *result = nd_sub(twelve_x_squared, four);
    nd_release(twelve);
    nd_release(four);
    nd_release(x_squared);
    nd_release(twelve_x_squared);
    return result;
}

/* Six Newton steps from start: the first gradient and every position
 * must be Python's. */
static void expect_path(double start, double grad_want,
                        const double want[6])
{
    Variable *x = variable(nd_scalar(start));
    NdArray *data = x->data;
    for (int i = 0; i < 6; i++) {
        Pool *pool = pool_new();
        Variable *y = f(x);
        cleargrad(x);
        backward(y);
        double grad = nd_item(grad_array(x));
        NdArray *curvature = gx2(x->data);
        NdArray *step = nd_div(grad_array(x), curvature);
        nd_isub(x->data, step);
        nd_release(curvature);
        nd_release(step);
        pool_drain(pool);               /* before any assert can fail */
        if (i == 0 && grad != grad_want)
            fail_msg("from %g: gradient %.17g, want %.17g", start, grad,
                     grad_want);
        if (nd_item(x->data) != want[i])
            fail_msg("from %g, step %d: %.17g, want %.17g", start, i + 1,
                     nd_item(x->data), want[i]);
    }
    assert_ptr_equal(x->data, data);            /* updated in place */
}

static void test_newton_as_python(void **state)
{
    (void)state;
    expect_path(2.0, 24.0, (double[]){
        1.4545454545454546, 1.1510467893775467, 1.0253259289766978,
        1.0009084519430513, 1.0000012353089454, 1.000000000002289});
    expect_path(-2.5, -52.5, (double[]){
        -1.76056338028169, -1.315140929239442, -1.0860719598207613,
        -1.009257042458498, -1.000125822119638, -1.000000023739839});
    expect_path(0.3, -1.092, (double[]){
        -0.07397260273972606, 0.0008230593781538148,
        -1.115127128874585e-09, 0.0, 0.0, 0.0});
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_newton_as_python),
    };
    return cmocka_run_group_tests_name("newton_by_hand", tests, NULL, NULL);
}
