// FIRST_STEP: 44
/* test_layers.c - step 44: Parameter and Layer (layers.c). A Parameter
 * goes wherever a Variable does; the Linear layer makes W at its first
 * call from the input's width, float32 and drawn as NumPy draws it, or
 * at once when in_size is given; nobias; the parameters in the order
 * registered; cleargrads; the layer's gradients against central
 * differences; the float32 update; and layers freed by their pool,
 * cycles through create_graph's gradients included. */
#include <math.h>

#include "grad_check.h"

/* A Parameter is a Variable to every F_ function. */
static void test_parameter_is_a_variable(void **state)
{
    (void)state;
    Parameter *p = parameter(nd_scalar(2.0), "p");
    assert_ptr_equal(&p->variable, (Variable *)p);
    assert_string_equal(p->variable.name, "p");
    Variable *y = F_mul(p, p);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 4);
    backward(y);
    EXPECT_ARRAY(grad_array(&p->variable), ND_FLOAT64, ND_SCALAR_SHAPE, 4);
    Parameter *lazy = parameter(NULL, "W");
    assert_null(lazy->variable.data);
}

/* NumPy: np.random.seed(0); randn(3, 2).astype(np.float32) *
 * np.sqrt(1 / 3), multiplied in float32. */
static NdArray *expected_W(void)
{
    nd_random_seed(0);
    NdArray *r = nd_random_randn(ND_SHAPE(3, 2));
    NdArray *r32 = nd_astype(r, ND_FLOAT32);
    NdArray *w = nd_empty(ND_FLOAT32, ND_SHAPE(3, 2));
    float scale = (float)sqrt(1.0 / 3);
    for (int64_t i = 0; i < 6; i++)
        ND_DATA(w, float)[i] = ND_DATA(r32, float)[i] * scale;
    nd_release(r32);
    nd_release(r);
    return w;
}

/* W is made at the first call, from x's width, and not before; later
 * calls draw nothing more from the generator. */
static void test_lazy_weight(void **state)
{
    (void)state;
    NdArray *want = expected_W();
    NdArray *want_next = nd_random_rand(ND_SHAPE(1));   /* after W's */
    nd_random_seed(0);
    Layer *l = L_linear(2);
    LinearLayer *linear = (LinearLayer *)l;
    assert_null(linear->W->variable.data);
    assert_int_equal(linear->in_size, 0);
    EXPECT_ARRAY(linear->b->variable.data, ND_FLOAT32, ND_SHAPE(2), 0, 0);
    Variable *x = variable(ramp(ND_SHAPE(4, 3), 0, 0.5));
    Variable *y = layer_call(l, x);
    assert_int_equal(linear->in_size, 3);
    const NdArray *W = linear->W->variable.data;
    assert_non_null(W);
    assert_int_equal(W->dtype, ND_FLOAT32);
    assert_true(nd_array_equal(W, want));
    assert_int_equal(y->data->dtype, ND_FLOAT64);       /* x is float64 */
    assert_int_equal(y->data->shape[0], 4);
    assert_int_equal(y->data->shape[1], 2);
    assert_string_equal(y->creator->cls->name, "Linear");
    layer_call(l, x);
    NdArray *next = nd_random_rand(ND_SHAPE(1));
    assert_true(nd_array_equal(next, want_next));
    nd_release(next);
    nd_release(want_next);
    nd_release(want);
}

/* in_size given: W exists at once; an array input works too. */
static void test_in_size_given(void **state)
{
    (void)state;
    NdArray *want = expected_W();
    nd_random_seed(0);
    Layer *l = L_linear(2, .in_size = 3);
    assert_true(nd_array_equal(((LinearLayer *)l)->W->variable.data, want));
    NdArray *x = ramp(ND_SHAPE(1, 3), 1, 1);
    Variable *y = layer_call(l, x);
    assert_int_equal(y->data->shape[1], 2);
    nd_release(x);
    nd_release(want);
}

/* The parameters in the order registered: W, then b; without a bias,
 * W alone; float64 when asked. */
static void test_params_and_options(void **state)
{
    (void)state;
    Layer *l = L_linear(3, .in_size = 2);
    ParamIter it = layer_params(l);
    Parameter *p = param_next(&it);
    assert_string_equal(p->variable.name, "W");
    p = param_next(&it);
    assert_string_equal(p->variable.name, "b");
    assert_null(param_next(&it));
    assert_null(param_next(&it));

    Layer *nb = L_linear(3, .nobias = true, .dtype = ND_FLOAT64,
                         .in_size = 2);
    it = layer_params(nb);
    p = param_next(&it);
    assert_int_equal(p->variable.data->dtype, ND_FLOAT64);
    assert_null(param_next(&it));
    assert_null(((LinearLayer *)nb)->b);
    Variable *y = layer_call(nb, variable(ramp(ND_SHAPE(1, 2), 1, 1)));
    assert_int_equal(y->creator->ninputs, 2);
}

/* cleargrads forgets every parameter's gradient. */
static void test_cleargrads(void **state)
{
    (void)state;
    Layer *l = L_linear(2, .in_size = 3);
    Variable *x = variable(ramp(ND_SHAPE(4, 3), 0, 0.5));
    backward(F_sum(layer_call(l, x), ND_ALL_AXES, false));
    ParamIter it = layer_params(l);
    for (Parameter *p; (p = param_next(&it));)
        assert_non_null(p->variable.grad);
    layer_cleargrads(l);
    it = layer_params(l);
    for (Parameter *p; (p = param_next(&it));)
        assert_null(p->variable.grad);
}

/* The layer's parameters get F_linear's gradients: for L = sum(x W +
 * b), dL/dW = x^T ones, each row the column sum of x, and dL/db = N
 * (float64 parameters, so that the sums are exact to the last bits). */
static void test_layer_gradients(void **state)
{
    (void)state;
    Layer *l = L_linear(2, .dtype = ND_FLOAT64, .in_size = 3);
    Variable *x = variable(ramp(ND_SHAPE(4, 3), -1, 0.3));
    backward(F_sum(layer_call(l, x), ND_ALL_AXES, false));
    LinearLayer *linear = (LinearLayer *)l;
    NdArray *sums = nd_sum(x->data, ND_AXES(0), false);
    for (int64_t i = 0; i < 3; i++)
        for (int64_t j = 0; j < 2; j++)
            assert_true(fabs(nd_get_flat(grad_array(&linear->W->variable),
                                         i * 2 + j) -
                             nd_get_flat(sums, i)) < 1e-12);
    EXPECT_ARRAY(grad_array(&linear->b->variable), ND_FLOAT64,
                 ND_SHAPE(2), 4, 4);
    nd_release(sums);
}

/* W -= lr * g with a float64 g: computed in float64, stored back into
 * W's float32 array. */
static void test_float32_update(void **state)
{
    (void)state;
    Layer *l = L_linear(1, .in_size = 2);
    Parameter *W = ((LinearLayer *)l)->W;
    NdArray *old = nd_copy(W->variable.data);
    Variable *x = variable(ramp(ND_SHAPE(3, 2), 0.1, 0.7));
    backward(F_sum(layer_call(l, x), ND_ALL_AXES, false));
    NdArray *g = W->variable.grad->data;
    assert_int_equal(g->dtype, ND_FLOAT64);
    NdArray *rate = nd_scalar(0.2);
    NdArray *step = nd_mul(rate, g);
    nd_isub(W->variable.data, step);
    assert_int_equal(W->variable.data->dtype, ND_FLOAT32);
    for (int64_t i = 0; i < 2; i++) {
        float want = (float)((double)ND_DATA(old, float)[i] -
                             0.2 * nd_get_flat(g, i));
        assert_true(ND_DATA(W->variable.data, float)[i] == want);
    }
    nd_release(step);
    nd_release(rate);
    nd_release(old);
}

/* A pool's layers go with it, and so do the cycles create_graph makes
 * through their parameters' gradients. */
static void test_layers_freed(void **state)
{
    (void)state;
    int layers = layers_alive, variables = variables_alive;
    Pool *pool = pool_new();
    Layer *l = L_linear(2, .dtype = ND_FLOAT64);
    Variable *x = variable(ramp(ND_SHAPE(4, 3), -1, 0.3));
    Variable *y = F_sigmoid(layer_call(l, x));
    backward(F_sum(F_mul(y, y), ND_ALL_AXES, false),
             .create_graph = true);
    assert_int_equal(layers_alive, layers + 1);
    pool_drain(pool);
    assert_int_equal(layers_alive, layers);
    assert_int_equal(variables_alive, variables);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_parameter_is_a_variable),
        STEP_TEST(test_lazy_weight),
        STEP_TEST(test_in_size_given),
        STEP_TEST(test_params_and_options),
        STEP_TEST(test_cleargrads),
        STEP_TEST(test_layer_gradients),
        STEP_TEST(test_float32_update),
        STEP_TEST(test_layers_freed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
