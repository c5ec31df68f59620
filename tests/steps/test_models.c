// FIRST_STEP: 45
/* test_models.c - step 45: layers inside layers (layers.c) and models
 * (models.c). The parameter walk of nested layers, in order and to any
 * depth; cleargrads through them; a model of the test's own through its
 * class's forward; MLP with the default and another activation;
 * model_plot's graph with shapes and dtypes; and layers freed with their
 * pool, a ring of layers that hold each other included. */
#include <unistd.h>

#include "grad_check.h"
#include "scratch.h"

/* A layer of no parameters of its own whose forward is its first
 * layer's. */
static Variable *first_forward(Layer *self, Variable *x)
{
    return layer_call(self->layers[0], x);
}

static const LayerClass box_class = {.name = "Box",
                                     .forward = first_forward};

static Layer *box(void)
{
    return layer_new(&box_class, sizeof(Layer));
}

/* The names of the parameters the walk finds, as "W b W b ...". */
static void walk_names(Layer *layer, char *text, size_t size)
{
    text[0] = '\0';
    ParamIter it = layer_params(layer);
    for (Parameter *p; (p = param_next(&it));) {
        strncat(text, p->variable.name, size - strlen(text) - 2);
        strcat(text, " ");
    }
}

/* A layer's own parameters come first, then each layer's, depth first,
 * in the order registered; layers without parameters add none. */
static void test_walk_order(void **state)
{
    (void)state;
    Layer *outer = box();
    layer_add_param(outer, parameter(nd_scalar(1), "a"));
    Layer *inner = layer_add_layer(outer, box());
    layer_add_layer(inner, box());                      /* empty */
    layer_add_layer(inner, L_linear(2, .in_size = 1));
    Layer *deep = layer_add_layer(inner, box());
    layer_add_layer(deep, L_linear(3, .in_size = 1, .nobias = true));
    layer_add_param(outer, parameter(nd_scalar(2), "z"));
    layer_add_layer(outer, L_linear(1, .in_size = 3));
    char names[128];
    walk_names(outer, names, sizeof names);
    assert_string_equal(names, "a z W b W W b ");
    walk_names(box(), names, sizeof names);
    assert_string_equal(names, "");
}

/* Layers nested deeper than the walk's stack: an error, not a crash. */
static void test_walk_too_deep(void **state)
{
    (void)state;
    Layer *top = box(), *l = top;
    for (int i = 0; i < LAYER_MAX_DEPTH; i++)
        l = layer_add_layer(l, box());
    layer_add_param(l, parameter(nd_scalar(1), "p"));
    ParamIter it = layer_params(top);
    EXPECT_ND_ERROR(param_next(&it), "nested more than");
    EXPECT_ND_ERROR(layer_add_layer(l, l), "cannot contain itself");
}

/* A model of the test's own: its class's forward, and its layers'
 * parameters, all cleared by one call. */
typedef struct Net {
    Layer layer;
    Layer *l1, *l2;
} Net;

static Variable *net_forward(Layer *self, Variable *x)
{
    Net *net = (Net *)self;
    return layer_call(net->l2, F_tanh(layer_call(net->l1, x)));
}

static const LayerClass net_class = {.name = "Net", .forward = net_forward};

static void test_user_model(void **state)
{
    (void)state;
    Net *net = (Net *)layer_new(&net_class, sizeof(Net));
    net->l1 = layer_add_layer(&net->layer, L_linear(4, .dtype = ND_FLOAT64));
    net->l2 = layer_add_layer(&net->layer, L_linear(1, .dtype = ND_FLOAT64));
    Model *model = &net->layer;
    Variable *x = variable(ramp(ND_SHAPE(5, 2), -1, 0.4));
    Variable *y = layer_call(model, x);
    Variable *want = layer_call(net->l2, F_tanh(layer_call(net->l1, x)));
    assert_true(nd_array_equal(y->data, want->data));
    backward(F_sum(y, ND_ALL_AXES, false));
    int n = 0;
    ParamIter it = layer_params(model);
    for (Parameter *p; (p = param_next(&it)); n++)
        assert_non_null(p->variable.grad);
    assert_int_equal(n, 4);
    layer_cleargrads(model);
    it = layer_params(model);
    for (Parameter *p; (p = param_next(&it));)
        assert_null(p->variable.grad);
}

/* MLP((10, 1)) is Linear, sigmoid, Linear; with tanh, tanh; one size,
 * a single Linear. Its Linears draw their weights at the first call,
 * in order, as Python's do. */
static void test_mlp(void **state)
{
    (void)state;
    Variable *x = variable(ramp(ND_SHAPE(3, 2), 0, 0.5));
    nd_random_seed(0);
    Model *m = mlp(ND_SHAPE(10, 1), NULL);
    assert_int_equal(m->nlayers, 2);
    Variable *y = layer_call(m, x);
    nd_random_seed(0);
    Layer *l1 = L_linear(10), *l2 = L_linear(1);
    Variable *want = layer_call(l2, F_sigmoid(layer_call(l1, x)));
    assert_true(nd_array_equal(y->data, want->data));

    Model *t = mlp(ND_SHAPE(4, 4, 2), F_tanh);
    Variable *yt = layer_call(t, x);
    assert_int_equal(yt->data->shape[1], 2);
    assert_string_equal(yt->creator->inputs[0]->creator->cls->name,
                        "Tanh");
    Model *one = mlp(ND_SHAPE(3), NULL);
    assert_string_equal(layer_call(one, x)->creator->cls->name, "Linear");
}

/* The graph of the forward pass, with shapes and dtypes, drawn by dot;
 * its DOT text in the cache folder names W and b with their shapes. */
static void test_model_plot(void **state)
{
    (void)state;
    if (!program_installed("dot"))
        skip();
    assert_int_equal(make_scratch(NULL), 0);
    setenv("DEZERO_CACHE_DIR", scratch, 1);
    const char *svg = in_scratch("model.svg");
    const char *dot = in_scratch("tmp_graph.dot");
    Model *m = mlp(ND_SHAPE(10, 1), NULL);
    Variable *x = variable(ramp(ND_SHAPE(100, 1), 0, 0.01));
    assert_true(model_plot(m, x, svg));
    char *text = read_file(dot, NULL);
    assert_non_null(strstr(text, "W: (1, 10) float32"));
    assert_non_null(strstr(text, "b: (1,) float32"));
    assert_non_null(strstr(text, "(100, 1) float64"));
    assert_non_null(strstr(text, "label=\"Sigmoid\""));
    free(text);
    FILE *f = fopen(svg, "r");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(remove_scratch(NULL), 0);
    unsetenv("DEZERO_CACHE_DIR");
}

/* A pool's models go with it, and so does a ring of layers that hold
 * each other, which only the collector can free. */
static void test_models_freed(void **state)
{
    (void)state;
    int layers = layers_alive, variables = variables_alive;
    Pool *pool = pool_new();
    Model *m = mlp(ND_SHAPE(5, 1), NULL);
    backward(F_sum(layer_call(m, variable(ramp(ND_SHAPE(4, 2), 0, 1))),
                   ND_ALL_AXES, false), .create_graph = true);
    Layer *a = box(), *b = box();
    layer_add_layer(a, b);
    layer_add_layer(b, a);                  /* a ring */
    pool_drain(pool);
    assert_int_equal(layers_alive, layers);
    assert_int_equal(variables_alive, variables);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_walk_order),
        STEP_TEST(test_walk_too_deep),
        STEP_TEST(test_user_model),
        STEP_TEST(test_mlp),
        STEP_TEST(test_model_plot),
        STEP_TEST(test_models_freed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
