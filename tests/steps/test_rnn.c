// FIRST_STEP: 59
/* test_rnn.c - step 59: cutting the graph (core.c:
 * variable_unchain, variable_unchain_backward), the RNN layer
 * (layers.c: L_rnn, layer_reset_state) and the SinCurve dataset
 * (datasets.c). A cut keeps the data and frees the functions behind it;
 * the RNN's outputs over three steps are Python's, its gradients agree
 * with central differences through the recurrence, and a reset starts
 * the sequence afresh; a seeded SinCurve holds NumPy's values; and a
 * training loop that cuts every few steps, as step 59's, keeps the
 * same number of objects alive from one cut to the next. */
#include "grad_check.h"

/* The values of a float64 array a, within rtol of want: NumPy's tanh
 * and sin in Debian's build come from libm, whose last bit may differ
 * from the SIMD routines of common/ (tests/golden/README.md). */
static void assert_values(const NdArray *a, int n, const double *want,
                          double rtol, const char *what)
{
    assert_int_equal(a->size, n);
    for (int i = 0; i < n; i++) {
        double got = nd_get_flat(a, i);
        if (fabs(got - want[i]) > rtol * fabs(want[i]))
            fail_msg("%s[%d] is %.17g, want %.17g", what, i, got,
                     want[i]);
    }
}

/* y = 2x, z = y + 1; cutting y keeps its data, and its creator, held
 * by y alone, is freed: a backward from z stops at y. */
static void test_unchain_cuts_one_variable(void **state)
{
    (void)state;
    Variable *x = variable(nd_full(ND_FLOAT64, ND_SHAPE(2), 3.0));
    int before = functions_alive;
    Pool *graph = pool_new();
    Variable *y = retain(F_mul(x, 2.0));
    Variable *z = retain(F_add(y, 1.0));
    pool_drain(graph);          /* the graph is held by z and y alone */
    assert_int_equal(functions_alive, before + 2);
    variable_unchain(y);
    assert_int_equal(functions_alive, before + 1);  /* z's Add */
    assert_null(y->creator);
    assert_true(nd_get_flat(y->data, 0) == 6.0);
    Pool *pass = pool_new();    /* the functions backward calls */
    backward(z);
    pool_drain(pass);
    assert_non_null(grad_array(y));
    assert_null(grad_array(x));
    release(z);
    release(y);
    assert_int_equal(functions_alive, before);
}

/* A chain x -> sin -> *2 -> +1: unchain_backward from its end cuts
 * every variable behind it and frees their functions, once nothing
 * else holds them; the end keeps its own creator, as in Python. */
static void test_unchain_backward_frees_the_graph(void **state)
{
    (void)state;
    Variable *x = variable(nd_full(ND_FLOAT64, ND_SHAPE(3), 0.5));
    int before = functions_alive;
    Variable *c;
    Pool *graph = pool_new();
    Variable *a = F_sin(x);
    Variable *b = F_mul(a, 2.0);
    c = retain(F_add(b, 1.0));
    retain(a);
    pool_drain(graph);          /* the graph is held by c alone */
    assert_int_equal(functions_alive, before + 3);
    variable_unchain_backward(c);
    assert_int_equal(functions_alive, before + 1);  /* c's Add */
    assert_non_null(c->creator);
    assert_null(a->creator);
    assert_true(fabs(nd_get_flat(a->data, 0) - sin(0.5)) < 1e-15);
    assert_true(nd_get_flat(c->data, 0) ==
                2 * nd_get_flat(a->data, 0) + 1);
    variable_unchain_backward(a);   /* nothing behind a: no change */
    release(a);
    release(c);
    assert_int_equal(functions_alive, before);
}

/* Sets p's data to a, which it takes over. */
static void set_param(Parameter *p, NdArray *a)
{
    nd_release(p->variable.data);
    p->variable.data = a;
}

/* An RNN of 3 features over inputs of 2, its weights float64 ramps
 * (Python: rnn.x2h.W.data = ..., as in the reference below). */
static Layer *ramped_rnn(void)
{
    Layer *rnn = L_rnn(3, .in_size = 2);
    RNNLayer *r = (RNNLayer *)rnn;
    LinearLayer *x2h = (LinearLayer *)r->x2h;
    LinearLayer *h2h = (LinearLayer *)r->h2h;
    assert_null(h2h->b);
    set_param(x2h->W, ramp(ND_SHAPE(2, 3), -0.5, 0.2));
    set_param(x2h->b, ramp(ND_SHAPE(3), 0.1, -0.1));
    set_param(h2h->W, ramp(ND_SHAPE(3, 3), 0.3, -0.07));
    return rnn;
}

/* rnn = L.RNN(3); W's and b's as in ramped_rnn; h = rnn(x) for x in
 * three (2, 2) ramps, by Python's DeZero and Debian's NumPy 1.24.2. */
static const double python_h[3][6] = {
    {-0.12927258360605831, -0.089757784747160091, -0.049958374957879956,
     0.10955847021442951, -0.089757784747160105, -0.28213481266963408},
    {0.17724319922146203, 0.097652052327506969, 0.016791874830513559,
     -0.041330923440546147, 0.19449906167955505, 0.40980121676825532},
    {-0.28218394334250058, -0.11002426627556326, 0.069000602049043236,
     0.0059294230163414409, -0.22932640295196188, -0.44052837241223153},
};

/* The three inputs of the reference: ramps from 0.5, -0.2 and 1.0. */
static NdArray *reference_input(int step)
{
    static const double start[3] = {0.5, -0.2, 1.0};
    static const double by[3] = {-0.3, 0.4, -0.5};
    return ramp(ND_SHAPE(2, 2), start[step], by[step]);
}

/* Three steps are Python's; the layer keeps the last h; after a reset
 * the first step gives the first h again. */
static void test_rnn_forward_is_pythons(void **state)
{
    (void)state;
    Layer *rnn = ramped_rnn();
    for (int step = 0; step < 3; step++) {
        NdArray *x = reference_input(step);
        Variable *h = layer_call(rnn, x);           // (2, 3)
        assert_int_equal(variable_ndim(h), 2);
        assert_values(h->data, 6, python_h[step], 1e-14, "h");
        assert_ptr_equal(((RNNLayer *)rnn)->h, h);
        nd_release(x);
    }
    layer_reset_state(rnn);
    assert_null(((RNNLayer *)rnn)->h);
    NdArray *x = reference_input(0);
    Variable *h = layer_call(rnn, x);
    assert_values(h->data, 6, python_h[0], 1e-14, "h after reset");
    nd_release(x);
}

/* The RNN of ramped_rnn on two steps: the second h, which depends on
 * the first input through h2h. */
static Variable *two_steps(Variable *xs[])
{
    Layer *rnn = ramped_rnn();
    layer_call(rnn, xs[0]);
    return layer_call(rnn, xs[1]);
}

/* Both inputs' gradients agree with central differences: backward runs
 * through tanh, both Linears and the state kept between the calls. */
static void test_rnn_gradient(void **state)
{
    (void)state;
    NdArray *x0 = ramp(ND_SHAPE(2, 2), 0.5, -0.3);
    NdArray *x1 = ramp(ND_SHAPE(2, 2), -0.2, 0.4);
    check_gradients("rnn", two_steps, 2, (NdArray *[]){x0, x1}, 1e-6);
    nd_release(x1);
    nd_release(x0);
}

/* The layer's weights are drawn when Python draws them: x2h's and the
 * fc's at the first call, h2h's at the second (step 59's order). */
static void test_rnn_draws_lazily(void **state)
{
    (void)state;
    Layer *rnn = L_rnn(4);
    RNNLayer *r = (RNNLayer *)rnn;
    Parameter *W_h = ((LinearLayer *)r->h2h)->W;
    NdArray *x = nd_ones(ND_FLOAT64, ND_SHAPE(1, 1));
    layer_call(rnn, x);
    assert_non_null(((LinearLayer *)r->x2h)->W->variable.data);
    assert_null(W_h->variable.data);
    layer_call(rnn, x);
    assert_non_null(W_h->variable.data);
    assert_int_equal(variable_shape(&W_h->variable)[0], 4);
    assert_int_equal(variable_shape(&W_h->variable)[1], 4);
    nd_release(x);
}

/* np.random.seed(0); SinCurve(train=True), then train=False, by
 * Python's DeZero and Debian's NumPy 1.24.2: the first three items
 * and labels and the last ones. */
static void test_sin_curve_is_pythons(void **state)
{
    (void)state;
    nd_random_seed(0);
    Dataset *d = sin_curve(true);
    assert_int_equal(dataset_len(d), 999);
    assert_int_equal(d->data->ndim, 2);
    assert_int_equal(d->data->shape[1], 1);
    assert_int_equal(d->label->shape[0], 999);
    double data[4], label[4];
    for (int i = 0; i < 4; i++) {
        int64_t at = i < 3 ? i : 998;
        data[i] = nd_get_flat(d->data, at);
        label[i] = nd_get_flat(d->label, at);
    }
    NdArray *got = nd_from_buffer(ND_FLOAT64, ND_SHAPE(4), data);
    assert_values(got, 4, (const double[]){
        0.0048813503927324781, 0.027808369953309695,
        0.022854955445905441, -0.033424778217773857}, 1e-13, "data");
    nd_release(got);
    got = nd_from_buffer(ND_FLOAT64, ND_SHAPE(4), label);
    assert_values(got, 4, (const double[]){
        0.027808369953309695, 0.022854955445905441,
        0.023355623084156778, 0.017714114411142168}, 1e-13, "label");
    nd_release(got);

    nd_random_seed(0);
    Dataset *test = sin_curve(false);
    assert_true(nd_get_flat(test->data, 0) == 1.0);
    assert_true(fabs(nd_get_flat(test->data, 1) - 0.99998022131868325)
                < 1e-15);
    /* the noise is drawn for the test set too: the next number is the
     * one after 1000 uniforms */
    NdArray *next = nd_random_rand(ND_SHAPE(1));
    assert_true(nd_get_flat(next, 0) == 0.59288027078115757);
    nd_release(next);
}

/* Objects alive: Variables and Functions. */
static int objects_alive(void)
{
    return variables_alive + functions_alive;
}

/* Step 59's loop, small: an RNN of 5 features and a Linear predict a
 * sequence of 40 values; every 10 steps the loss is backpropagated,
 * the graph cut when cut is true, and Adam updates. alive[k] is the
 * number of objects alive after the (k + 1)-th update, its step's pool
 * drained. */
static void train_and_count(bool cut, int alive[4])
{
    nd_random_seed(3);
    static const LayerClass net_class = {.name = "Net"};
    Layer *net = layer_new(&net_class, sizeof(Layer));  /* holds both */
    Layer *model = layer_add_layer(net, L_rnn(5));
    Layer *fc = layer_add_layer(net, L_linear(1));
    Optimizer *optimizer = optimizer_setup(adam(0.001, 0.9, 0.999, 1e-8),
                                           net);
    Variable *loss = NULL;
    for (int count = 1; count <= 40; count++) {
        Pool *step = pool_new();
        NdArray *x = nd_full(ND_FLOAT64, ND_SHAPE(1, 1), sin(count * .3));
        NdArray *t = nd_full(ND_FLOAT64, ND_SHAPE(1, 1), sin(count * .4));
        Variable *y = layer_call(fc, layer_call(model, x));
        Variable *error = F_mean_squared_error(y, t);
        Variable *sum = loss ? F_add(loss, error) : F_add(error, 0L);
        retain(sum);
        release(loss);
        loss = sum;
        if (count % 10 == 0) {
            layer_cleargrads(net);
            backward(loss);
            if (cut)
                variable_unchain_backward(loss);
            optimizer_update(optimizer);
        }
        nd_release(t);
        nd_release(x);
        pool_drain(step);
        if (count % 10 == 0)
            alive[count / 10 - 1] = objects_alive();
    }
    release(loss);
}

/* With the cut, as many objects are alive after each update as after
 * the first: the graph of the steps before the cut is gone. Without
 * it the graph grows by each step's objects: the test sees the leak
 * that unchain_backward prevents. */
static void test_memory_stays_flat(void **state)
{
    (void)state;
    int alive[4];
    train_and_count(true, alive);
    for (int k = 1; k < 4; k++)
        if (alive[k] != alive[0])
            fail_msg("after update %d: %d objects alive, after the "
                     "first %d", k + 1, alive[k], alive[0]);
    int uncut[4];
    train_and_count(false, uncut);
    assert_true(uncut[3] > uncut[0] + 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_unchain_cuts_one_variable),
        STEP_TEST(test_unchain_backward_frees_the_graph),
        STEP_TEST(test_rnn_forward_is_pythons),
        STEP_TEST(test_rnn_gradient),
        STEP_TEST(test_rnn_draws_lazily),
        STEP_TEST(test_sin_curve_is_pythons),
        STEP_TEST(test_memory_stays_flat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
