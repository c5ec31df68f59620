// FIRST_STEP: 35
/* test_tanh.c - Tanh (step 35, functions.c), whose backward is made of
 * its output: values and gradients against NumPy's tanh (Debian's NumPy
 * 1.24), the gradient against a central difference, the second
 * derivative, recorded with create_graph, against NumPy and against the
 * central difference of the first, the graph of the second derivative
 * line for line as the Python original draws it
 * (the DOT text Python's step35.py writes, written into this test;
 * tests/golden/files/step35_graph.dot keeps the file), and the output's
 * lifetime: the recorded gradient keeps y alive, a Tanh whose output
 * was freed refuses to run backward, and draining the pool frees the
 * cycles of step 35's program and of the 6th derivative. */
#include "dot_text.h"
#include "pool_fixture.h"

/* The points, NumPy's np.tanh of them, 1 - y**2 and -2y(1 - y**2). */
static const double at[4] = {-2.5, 0.3, 1.0, 4.0};
static const double tanh_at[4] = {
    -0.9866142981514303, 0.2913126124515909, 0.7615941559557649,
    0.999329299739067,
};
static const double d1_at[4] = {
    0.026592226683160525, 0.9151369618266292, 0.41997434161402614,
    0.0013409506830258655,
};
static const double d2_at[4] = {
    0.052472542130580314, -0.5331818782014544, -0.6397000084492246,
    -0.0026801026141057235,
};

static Variable *points(void)
{
    return variable(nd_from_buffer(ND_FLOAT64, 1, (int64_t[]){4}, at));
}

/* a == values, within rtol (a macro: a failure names the test's line). */
#define expect_values(a, values, rtol)                                    \
    EXPECT_ARRAY_CLOSE(a, ND_FLOAT64, rtol, ND_SHAPE(4), (values)[0],     \
                       (values)[1], (values)[2], (values)[3])

/* Within a unit or two in the last place: NumPy computes tanh with SIMD
 * routines, which may round differently from libm's. */
#define RTOL 1e-15

static void test_forward(void **state)
{
    (void)state;
    Variable *y = F_tanh(points());
    expect_values(y->data, tanh_at, RTOL);
    assert_string_equal(y->creator->cls->name, "Tanh");
}

/* dy/dx = 1 - y^2, from y, and the central difference agrees. */
static void test_gradient(void **state)
{
    (void)state;
    Variable *x = points();
    backward(F_tanh(x));
    /* 1 - y*y rounds differently from NumPy's 1 - tanh(x)**2 only
     * through y; the relative error grows where y^2 is close to 1. */
    expect_values(grad_array(x), d1_at, 1e-12);
    NdArray *num = numerical_diff(F_tanh, x, 1e-4);
    EXPECT_ALLCLOSE(grad_array(x), num, 1e-5, 1e-8);
    nd_release(num);
}

/* tanh'(x), computed without a graph: x lets go of it. */
static Variable *first_derivative(Variable *x)
{
    backward(F_tanh(x));
    Variable *gx = x->grad;
    cleargrad(x);
    return gx;
}

/* The second derivative, -2y(1 - y^2), through the recorded backward;
 * and the central difference of the first. */
static void test_second_derivative(void **state)
{
    (void)state;
    Variable *x = points();
    backward(F_tanh(x), .create_graph = true);
    Variable *gx = x->grad;
    assert_string_equal(gx->creator->cls->name, "Mul");
    cleargrad(x);
    backward(gx);
    expect_values(grad_array(x), d2_at, 1e-12);
    NdArray *num = numerical_diff(first_derivative, x, 1e-4);
    EXPECT_ALLCLOSE(grad_array(x), num, 1e-5, 1e-8);
    nd_release(num);
    cleargrad(x);
}

/* The Python original's graph of gx2, its ids renumbered. */
static const char python_graph[] =
    "digraph g {\n"
    "n1 [label=\"gx2\", color=orange, style=filled]\n"
    "n2 [label=\"Mul\", color=lightblue, style=filled, shape=box]\n"
    "n3 -> n2\n"
    "n4 -> n2\n"
    "n2 -> n1\n"
    "n3 [label=\"\", color=orange, style=filled]\n"
    "n4 [label=\"\", color=orange, style=filled]\n"
    "n5 [label=\"Sub\", color=lightblue, style=filled, shape=box]\n"
    "n6 -> n5\n"
    "n7 -> n5\n"
    "n5 -> n4\n"
    "n6 [label=\"\", color=orange, style=filled]\n"
    "n7 [label=\"\", color=orange, style=filled]\n"
    "n8 [label=\"Mul\", color=lightblue, style=filled, shape=box]\n"
    "n9 -> n8\n"
    "n9 -> n8\n"
    "n8 -> n7\n"
    "n9 [label=\"y\", color=orange, style=filled]\n"
    "n9 [label=\"y\", color=orange, style=filled]\n"
    "n10 [label=\"Tanh\", color=lightblue, style=filled, shape=box]\n"
    "n11 -> n10\n"
    "n10 -> n9\n"
    "n11 [label=\"x\", color=orange, style=filled]\n"
    "n12 [label=\"Add\", color=lightblue, style=filled, shape=box]\n"
    "n13 -> n12\n"
    "n14 -> n12\n"
    "n12 -> n3\n"
    "n13 [label=\"\", color=orange, style=filled]\n"
    "n14 [label=\"\", color=orange, style=filled]\n"
    "n15 [label=\"Mul\", color=lightblue, style=filled, shape=box]\n"
    "n16 -> n15\n"
    "n9 -> n15\n"
    "n15 -> n14\n"
    "n16 [label=\"\", color=orange, style=filled]\n"
    "n9 [label=\"y\", color=orange, style=filled]\n"
    "n17 [label=\"Neg\", color=lightblue, style=filled, shape=box]\n"
    "n18 -> n17\n"
    "n17 -> n16\n"
    "n18 [label=\"\", color=orange, style=filled]\n"
    "n19 [label=\"Mul\", color=lightblue, style=filled, shape=box]\n"
    "n20 -> n19\n"
    "n21 -> n19\n"
    "n19 -> n18\n"
    "n20 [label=\"\", color=orange, style=filled]\n"
    "n21 [label=\"\", color=orange, style=filled]\n"
    "n22 [label=\"Mul\", color=lightblue, style=filled, shape=box]\n"
    "n16 -> n22\n"
    "n9 -> n22\n"
    "n22 -> n13\n"
    "n16 [label=\"\", color=orange, style=filled]\n"
    "n9 [label=\"y\", color=orange, style=filled]\n"
    "}";

/* Step 35's program: the graph of the second derivative of tanh at 1
 * is Python's, line for line: the same nodes, the same edges, in the
 * same order, with y drawn wherever the derivative uses it. Then
 * draining the pool frees every object the program made: the cycles
 * through the gradients too, with no call to break them. */
static void test_graph_of_second_derivative(void **state)
{
    (void)state;
    int variables = variables_alive, functions = functions_alive;
    Pool *pool = pool_new();
    Variable *x = variable(nd_scalar(1.0));
    Variable *y = F_tanh(x);
    x->name = "x";
    y->name = "y";
    backward(y, .create_graph = true);
    Variable *gx = x->grad;
    cleargrad(x);
    backward(gx, .create_graph = true);
    gx = x->grad;
    gx->name = "gx2";
    EXPECT_ARRAY_CLOSE(gx->data, ND_FLOAT64, 1e-12, ND_SCALAR_SHAPE,
                       d2_at[2]);
    char *text = get_dot_graph(gx, false);
    EXPECT_SAME_GRAPH(text, python_graph);
    free(text);
    pool_drain(pool);
    assert_int_equal(variables_alive, variables);
    assert_int_equal(functions_alive, functions);
}

/* The recorded gradient holds y: with every other reference to the
 * forward graph gone, it can still be differentiated. */
static void test_gradient_keeps_output_alive(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(1.0));
    Pool *pool = pool_new();
    Variable *y = F_tanh(x);
    backward(y, .create_graph = true);
    Variable *gx = retain(x->grad);
    cleargrad(x);
    Function *tanh = y->creator;
    pool_drain(pool);           /* y lives on, held by gx's graph */
    assert_ptr_equal(tanh->outputs[0], y);
    backward(gx);
    EXPECT_ARRAY_CLOSE(grad_array(x), ND_FLOAT64, 1e-12, ND_SCALAR_SHAPE,
                       d2_at[2]);
    cleargrad(x);
    release(gx);
}

/* A Tanh whose output was freed cannot run its backward: the weak link
 * is NULL, and the function says so instead of crashing. */
static void test_backward_after_output_freed(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(1.0));
    Pool *pool = pool_new();
    Function *tanh = retain(F_tanh(x)->creator);
    pool_drain(pool);           /* frees y: only the pool held it */
    assert_null(tanh->outputs[0]);
    Variable *gys[1] = {variable(nd_scalar(1.0))}, *gxs[1];
    EXPECT_ND_ERROR(function_backward(tanh, gys, gxs),
                    "the output of Tanh was freed");
    release(tanh);
}

/* The book's last exercise of step 35: the 6th derivative of tanh at 1,
 * each pass recorded and differentiated by the next, as the Python
 * program does it. The values are the derivatives' polynomials in
 * t = tanh(1), evaluated by NumPy. The drain of the pool frees every
 * object of the six graphs and of their cycles. */
static void test_sixth_derivative(void **state)
{
    (void)state;
    const double want[6] = {
        0.41997434161402614, -0.6397000084492246, 0.6216266807712962,
        0.6650910447505028, -5.556893558473721, 13.62407544131209,
    };
    int variables = variables_alive, functions = functions_alive;
    Pool *pool = pool_new();
    Variable *x = variable(nd_scalar(1.0));
    backward(F_tanh(x), .create_graph = true);
    for (int n = 0; n < 6; n++) {
        Variable *gx = x->grad;
        EXPECT_ARRAY_CLOSE(gx->data, ND_FLOAT64, 1e-12, ND_SCALAR_SHAPE,
                           want[n]);
        if (n == 5)
            break;
        cleargrad(x);
        backward(gx, .create_graph = true);
    }
    assert_true(variables_alive - variables > 100);
    pool_drain(pool);
    assert_int_equal(variables_alive, variables);
    assert_int_equal(functions_alive, functions);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_forward),
        STEP_TEST(test_gradient),
        STEP_TEST(test_second_derivative),
        STEP_TEST(test_graph_of_second_derivative),
        STEP_TEST(test_gradient_keeps_output_alive),
        STEP_TEST(test_backward_after_output_freed),
        STEP_TEST(test_sixth_derivative),
    };
    return cmocka_run_group_tests_name("tanh", tests, NULL, NULL);
}
