// FIRST_STEP: 60
/* test_lstm.c - step 60's LSTM layer (layers.c: L_lstm). Its outputs
 * and its cell over three steps are Python's; its gradients agree with
 * central differences through the state kept between calls; a reset
 * starts the sequence afresh; and its weights are drawn in Python's
 * order. */
#include "grad_check.h"

/* The values of a float64 array a, within rtol of want: NumPy's tanh
 * in Debian's build comes from libm, whose last bit may differ from
 * the SIMD routine of common/ (tests/golden/README.md). */
static void assert_values(const NdArray *a, const double *want,
                          double rtol, const char *what)
{
    assert_int_equal(a->size, 6);
    for (int i = 0; i < 6; i++) {
        double got = nd_get_flat(a, i);
        if (fabs(got - want[i]) > rtol * fabs(want[i]))
            fail_msg("%s[%d] is %.17g, want %.17g", what, i, got,
                     want[i]);
    }
}

/* Sets p's data to a, which it takes over. */
static void set_param(Parameter *p, NdArray *a)
{
    nd_release(p->variable.data);
    p->variable.data = a;
}

/* An LSTM of 3 features over inputs of 2, its weights float64 ramps,
 * gate k (f, i, o, u) with its own (Python: lstm.x2f.W.data = ..., as
 * in the reference below). */
static Layer *ramped_lstm(void)
{
    Layer *lstm = L_lstm(3, .in_size = 2);
    LSTMLayer *l = (LSTMLayer *)lstm;
    Layer *x2[4] = {l->x2f, l->x2i, l->x2o, l->x2u};
    Layer *h2[4] = {l->h2f, l->h2i, l->h2o, l->h2u};
    for (int k = 0; k < 4; k++) {
        LinearLayer *x2g = (LinearLayer *)x2[k];
        LinearLayer *h2g = (LinearLayer *)h2[k];
        assert_null(h2g->b);
        set_param(x2g->W, ramp(ND_SHAPE(2, 3), -0.4 + 0.1 * k, 0.15));
        set_param(x2g->b, ramp(ND_SHAPE(3), 0.2 - 0.1 * k, -0.05));
        set_param(h2g->W, ramp(ND_SHAPE(3, 3), 0.3 - 0.05 * k, -0.06));
    }
    return lstm;
}

/* lstm = L.LSTM(3), weights as in ramped_lstm, h = lstm(x) for x in
 * three (2, 2) ramps, and lstm.c after the third, by Python's DeZero
 * and Debian's NumPy 1.24.2. */
static const double python_h[3][6] = {
    {-0.019254009891176344, -0.0063735908348195635, 0.0080692387681693834,
     -0.055891254294857091, -0.073721203135699923, -0.083793594412197026},
    {-0.015833301448069867, -0.020781602168606566, -0.02469140526801368,
     0.023517885826100385, 0.073052207159961913, 0.13159072172889388},
    {-0.011511369516983196, 0.031256928895784152, 0.086732978901585669,
     -0.057247324547204097, -0.055816555003154758, -0.050103240264966847},
};
static const double python_c[6] = {
    -0.023919283494338119, 0.059495247022180328, 0.15329557462297844,
    -0.12371753932998847, -0.13029665821881825, -0.12682613871642612,
};

/* The three inputs of the reference: ramps from 0.5, -0.2 and 1.0. */
static NdArray *reference_input(int step)
{
    static const double start[3] = {0.5, -0.2, 1.0};
    static const double by[3] = {-0.3, 0.4, -0.5};
    return ramp(ND_SHAPE(2, 2), start[step], by[step]);
}

/* Three steps are Python's, h and c; after a reset the first step
 * gives the first h again. */
static void test_lstm_forward_is_pythons(void **state)
{
    (void)state;
    Layer *lstm = ramped_lstm();
    LSTMLayer *l = (LSTMLayer *)lstm;
    for (int step = 0; step < 3; step++) {
        NdArray *x = reference_input(step);
        Variable *h = layer_call(lstm, x);          // (2, 3)
        assert_int_equal(variable_ndim(h), 2);
        assert_values(h->data, python_h[step], 1e-13, "h");
        assert_ptr_equal(l->h, h);
        nd_release(x);
    }
    assert_values(l->c->data, python_c, 1e-13, "c");
    layer_reset_state(lstm);
    assert_null(l->h);
    assert_null(l->c);
    NdArray *x = reference_input(0);
    Variable *h = layer_call(lstm, x);
    assert_values(h->data, python_h[0], 1e-13, "h after reset");
    nd_release(x);
}

/* The LSTM of ramped_lstm on two steps: the second h, which depends on
 * the first input through h2* and the cell. */
static Variable *two_steps(Variable *xs[])
{
    Layer *lstm = ramped_lstm();
    layer_call(lstm, xs[0]);
    return layer_call(lstm, xs[1]);
}

/* Both inputs' gradients agree with central differences. */
static void test_lstm_gradient(void **state)
{
    (void)state;
    NdArray *x0 = ramp(ND_SHAPE(2, 2), 0.5, -0.3);
    NdArray *x1 = ramp(ND_SHAPE(2, 2), -0.2, 0.4);
    check_gradients("lstm", two_steps, 2, (NdArray *[]){x0, x1}, 1e-6);
    nd_release(x1);
    nd_release(x0);
}

/* Python's order of the draws: h2f's, h2i's, h2o's, h2u's at once,
 * then x2f's, x2i's, x2o's, x2u's at the first call. */
static void test_lstm_draws_in_pythons_order(void **state)
{
    (void)state;
    nd_random_seed(7);
    NdArray *first = nd_random_randn(ND_SHAPE(4, 4));
    nd_random_seed(7);
    Layer *lstm = L_lstm(4);
    LSTMLayer *l = (LSTMLayer *)lstm;
    const NdArray *W = ((LinearLayer *)l->h2f)->W->variable.data;
    assert_non_null(W);
    assert_null(((LinearLayer *)l->x2f)->W->variable.data);
    NdArray *cast = nd_astype(first, ND_FLOAT32);
    NdArray *scale = nd_scalar(sqrt(1.0 / 4));
    NdArray *want = nd_mul(cast, scale);
    assert_true(nd_array_equal(W, want));
    NdArray *x = nd_ones(ND_FLOAT64, ND_SHAPE(2, 1));
    Variable *h = layer_call(lstm, x);
    assert_int_equal(variable_shape(h)[0], 2);
    assert_int_equal(variable_shape(h)[1], 4);
    assert_non_null(((LinearLayer *)l->x2u)->W->variable.data);
    nd_release(x);
    nd_release(want);
    nd_release(scale);
    nd_release(cast);
    nd_release(first);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_lstm_forward_is_pythons),
        STEP_TEST(test_lstm_gradient),
        STEP_TEST(test_lstm_draws_in_pythons_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
