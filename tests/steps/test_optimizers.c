// FIRST_STEP: 46
/* test_optimizers.c - step 46: Optimizer and every optimizer and hook of
 * DeZero's optimizers.py. Each runs three updates on a float64 (2, 3)
 * parameter, a float32 (2,) one and a parameter without a gradient,
 * and must leave the values that Python's DeZero computes with NumPy
 * 1.24 (written below in hex; the script that made them ran
 * dezero/optimizers.py on the same parameters and gradients). Also:
 * parameters without a gradient are skipped, a float32 parameter stays
 * float32, FreezeParam, setup's chaining, the per-parameter state, and
 * optimizers freed with their pool. */
#include "grad_check.h"

static Variable *no_forward(Layer *self, Variable *x)
{
    (void)self;
    return x;
}

static const LayerClass holder_class = {.name = "Holder",
                                        .forward = no_forward};

/* A layer holding p (2, 3) float64, q (2,) float32 and r (1,), which
 * never gets a gradient. */
static Layer *holder(void)
{
    Layer *l = layer_new(&holder_class, sizeof(Layer));
    layer_add_param(l, parameter(nd_from_buffer(ND_FLOAT64, ND_SHAPE(2, 3),
        (double[]){0.5, -1.0, 2.0, 0.25, -0.75, 1.5}), "p"));
    layer_add_param(l, parameter(nd_from_buffer(ND_FLOAT32, ND_SHAPE(2),
        (float[]){1.0f, -2.0f}), "q"));
    layer_add_param(l, parameter(nd_from_buffer(ND_FLOAT64, ND_SHAPE(1),
        (double[]){3.0}), "r"));
    return l;
}

static Parameter *param(Layer *l, int i)
{
    return l->params[i];
}

/* The gradients of update t (1, 2, 3), as the Python script sets them:
 * p's base times (1 + 0.5 t), q's (0.3, -0.1) times t, float64. */
static void set_grads(Layer *l, int t)
{
    NdArray *gp = nd_from_buffer(ND_FLOAT64, ND_SHAPE(2, 3),
                                 (double[]){0.1, -0.2, 0.3, -0.4, 0.5,
                                            -0.6});
    NdArray *s = nd_scalar(1 + 0.5 * t);
    NdArray *gq = nd_from_buffer(ND_FLOAT64, ND_SHAPE(2),
                                 (double[]){0.3, -0.1});
    NdArray *st = nd_scalar_of(ND_INT64, t);
    for (int i = 0; i < 2; i++)
        cleargrad(&param(l, i)->variable);
    param(l, 0)->variable.grad = retain(variable(nd_mul(gp, s)));
    param(l, 1)->variable.grad = retain(variable(nd_mul(gq, st)));
    nd_release(st);
    nd_release(gq);
    nd_release(s);
    nd_release(gp);
}

typedef struct Expected {
    const char *name;
    double p[6];
    double q[2];
} Expected;

/* Python's p and q after three updates, per optimizer or hook. */
static const Expected expected[] = {
    {"sgd",
     {0x1.c28f5c28f5c28p-2, -0x1.c28f5c28f5c28p-1, 0x1.d1eb851eb851fp+0,
      0x1.f5c28f5c28f5cp-2, -0x1.0ccccccccccccp+0, 0x1.dc28f5c28f5c2p+0},
     {0x1.a3d70c0000000p-1, -0x1.f0a3d80000000p+0}},
    {"momentum_sgd",
     {0x1.95dcc63f1411fp-2, -0x1.95dcc63f1411fp-1, 0x1.b06594af4f0d8p+0,
      0x1.54467381d7dc0p-1, -0x1.44ac083126e98p+0, 0x1.0f9a6b50b0f28p+1},
     {0x1.6ded280000000p-1, -0x1.e7a7860000000p+0}},
    {"adagrad",
     {0x1.fe8b67fd83c37p-3, -0x1.7fa2d9cc69676p-1, 0x1.bfd16cddb61ccp+0,
      0x1.005d264d125d7p-1, -0x1.002e9329158f3p+0, 0x1.c02e932ac87a3p+0},
     {0x1.75f4380000000p-1, -0x1.bafa1c0000000p+0}},
    {"adadelta",
     {0x1.f041d0a7612ddp-2, -0x1.f8204f6035994p-1, 0x1.fc1019847d77cp+0,
      0x1.0fbfadc5529a6p-2, -0x1.87dfdb7a350d0p-1, 0x1.83efeefc651a7p+0},
     {0x1.f74bb60000000p-1, -0x1.fba69c0000000p+0}},
    {"adam",
     {0x1.9acd6f924e7f4p-3, -0x1.66b354be25575p-1, 0x1.b359a92e0034dp+0,
      0x1.194caed512152p-1, -0x1.0ca657c60e985p+0, 0x1.cca65803124cap+0},
     {0x1.6a55460000000p-1, -0x1.b52aaa0000000p+0}},
    {"weight_decay",
     {0x1.c113a3ee28b47p-2, -0x1.c113a3ee28b47p-1, 0x1.d06c8647fa8d0p+0,
      0x1.f4c9bc47d592ep-2, -0x1.0c291cc12342dp+0, 0x1.daeeb01aff23ap+0},
     {0x1.a25df00000000p-1, -0x1.ef1da40000000p+0}},
    {"clip_grad",
     {0x1.f0ad72f16485cp-2, -0x1.f0ad72f16485cp-1, 0x1.f48216350b645p+0,
      0x1.3d4a343a6de91p-2, -0x1.a64e60a484b1bp-1, 0x1.96fbd395e9376p+0},
     {0x1.ea23fc0000000p-1, -0x1.fc5b540000000p+0}},

};

static const Expected *expected_for(const char *name)
{
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        if (strcmp(expected[i].name, name) == 0)
            return &expected[i];
    fail_msg("no expected values for %s", name);
    return NULL;
}

/* Three updates by o, with the hook if there is one, against Python's
 * numbers; r, without a gradient, unchanged; q still float32. */
static void check_optimizer(const char *name, Optimizer *o, Hook *hook)
{
    Layer *l = holder();
    assert_ptr_equal(optimizer_setup(o, l), o);
    if (hook)
        optimizer_add_hook(o, *hook);
    for (int t = 1; t <= 3; t++) {
        set_grads(l, t);
        optimizer_update(o);
    }
    const Expected *want = expected_for(name);
    EXPECT_ARRAY_CLOSE(param(l, 0)->variable.data, ND_FLOAT64, 1e-15,
                       ND_SHAPE(2, 3), want->p[0], want->p[1], want->p[2],
                       want->p[3], want->p[4], want->p[5]);
    EXPECT_ARRAY(param(l, 1)->variable.data, ND_FLOAT32, ND_SHAPE(2),
                 want->q[0], want->q[1]);
    EXPECT_ARRAY(param(l, 2)->variable.data, ND_FLOAT64, ND_SHAPE(1), 3);
}

static void test_sgd(void **state)
{
    (void)state;
    check_optimizer("sgd", sgd(0.1), NULL);
}

static void test_momentum_sgd(void **state)
{
    (void)state;
    Optimizer *o = momentum_sgd(0.1, 0.9);
    check_optimizer("momentum_sgd", o, NULL);
    /* one velocity per parameter that had a gradient, float32 for q */
    assert_int_equal(o->nstates, 2);
    assert_int_equal(o->states[1].slots[0]->dtype, ND_FLOAT32);
    assert_null(o->states[0].slots[1]);
}

static void test_adagrad(void **state)
{
    (void)state;
    check_optimizer("adagrad", adagrad(0.1, 1e-8), NULL);
}

static void test_adadelta(void **state)
{
    (void)state;
    check_optimizer("adadelta", adadelta(0.95, 1e-6), NULL);
}

static void test_adam(void **state)
{
    (void)state;
    Optimizer *o = adam(0.1, 0.9, 0.999, 1e-8);
    check_optimizer("adam", o, NULL);
    assert_int_equal(o->nstates, 2);
}

static void test_weight_decay(void **state)
{
    (void)state;
    Hook h = weight_decay(0.01);
    check_optimizer("weight_decay", sgd(0.1), &h);
}

static void test_clip_grad(void **state)
{
    (void)state;
    Hook h = clip_grad(0.5);
    check_optimizer("clip_grad", sgd(0.1), &h);
}

/* A frozen layer's or parameter's gradients are removed before the
 * update, which skips them; the rest is updated as by SGD alone.
 * (Python's update would then fail on the removed gradient.) */
static void test_freeze_param(void **state)
{
    (void)state;
    Layer *outer = layer_new(&holder_class, sizeof(Layer));
    Layer *frozen = layer_add_layer(outer, holder());
    Layer *free_one = layer_add_layer(outer, holder());
    Optimizer *o = optimizer_setup(sgd(0.1), outer);
    optimizer_add_hook(o, freeze_param(frozen));
    optimizer_add_hook(o, freeze_param(param(free_one, 1)));
    for (int t = 1; t <= 3; t++) {
        set_grads(frozen, t);
        set_grads(free_one, t);
        optimizer_update(o);
    }
    EXPECT_ARRAY(param(frozen, 0)->variable.data, ND_FLOAT64,
                 ND_SHAPE(2, 3), 0.5, -1.0, 2.0, 0.25, -0.75, 1.5);
    EXPECT_ARRAY(param(free_one, 1)->variable.data, ND_FLOAT32,
                 ND_SHAPE(2), 1, -2);
    const Expected *want = expected_for("sgd");
    EXPECT_ARRAY_CLOSE(param(free_one, 0)->variable.data, ND_FLOAT64, 1e-15,
                       ND_SHAPE(2, 3), want->p[0], want->p[1], want->p[2],
                       want->p[3], want->p[4], want->p[5]);
}

/* Without a target: an error that says what to call. */
static void test_update_needs_setup(void **state)
{
    (void)state;
    EXPECT_ND_ERROR(optimizer_update(sgd(0.1)), "optimizer_setup");
}

/* An optimizer holds its target and its parameters; all of it goes
 * with the pool, the optimizer's state arrays included. */
static void test_optimizers_freed(void **state)
{
    (void)state;
    int layers = layers_alive, variables = variables_alive;
    Pool *pool = pool_new();
    Model *m = mlp(ND_SHAPE(3, 1), NULL);
    Optimizer *o = optimizer_setup(adam(0.01, 0.9, 0.999, 1e-8), m);
    optimizer_add_hook(o, freeze_param(m->layers[0]));
    for (int i = 0; i < 3; i++) {
        Variable *x = variable(ramp(ND_SHAPE(4, 2), 0, 0.5));
        backward(F_sum(layer_call(m, x), ND_ALL_AXES, false));
        optimizer_update(o);
        layer_cleargrads(m);
    }
    pool_drain(pool);
    assert_int_equal(layers_alive, layers);
    assert_int_equal(variables_alive, variables);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_sgd),
        STEP_TEST(test_momentum_sgd),
        STEP_TEST(test_adagrad),
        STEP_TEST(test_adadelta),
        STEP_TEST(test_adam),
        STEP_TEST(test_weight_decay),
        STEP_TEST(test_clip_grad),
        STEP_TEST(test_freeze_param),
        STEP_TEST(test_update_needs_setup),
        STEP_TEST(test_optimizers_freed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
