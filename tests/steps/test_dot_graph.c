// FIRST_STEP: 26
/* test_dot_graph.c - drawing the computational graph (step 26): the DOT
 * text get_dot_graph writes, line for line as the Python original's
 * get_dot_graph writes it (node ids, which are addresses, renumbered
 * n1, n2, ... in order of appearance), the graph of Goldstein-Price
 * against the DOT text Python's step26.py writes, kept in
 * tests/golden/files/step26_graph.dot,
 * and plot_dot_graph with and without Graphviz's dot program. */
#include <inttypes.h>
#include <unistd.h>

#include "dot_text.h"
#include "pool_fixture.h"
#include "capture_stderr.h"
#include "scratch.h"

/* z = (x + y) * x, with x a named 0-d variable and y a named (3,) one. */
static Variable *small_graph(void)
{
    Variable *x = variable(nd_scalar(2.0));
    int64_t shape[] = {3};
    double values[] = {1.0, 2.0, 3.0};
    Variable *y = variable(nd_from_buffer(ND_FLOAT64, 1, shape, values));
    x->name = "x";
    y->name = "y";
    Variable *z = F_mul(F_add(x, y), x);
    z->name = "z";
    return z;
}

static void expect_graph_at(const char *file, int line, const Variable *z,
                            bool verbose, const char *want)
{
    char *text = get_dot_graph(z, verbose);
    dot_expect_same(file, line, text, want);
    free(text);
}
#define expect_graph(...) expect_graph_at(__FILE__, __LINE__, __VA_ARGS__)

/* What Python's get_dot_graph(z, verbose=False) writes for the same
 * graph (DeZero's simple core, NumPy 1.24), renumbered. */
static void test_small_graph(void **state)
{
    (void)state;
    expect_graph(small_graph(), false,
        "digraph g {\n"
        "n1 [label=\"z\", color=orange, style=filled]\n"
        "n2 [label=\"Mul\", color=lightblue, style=filled, shape=box]\n"
        "n3 -> n2\n"
        "n4 -> n2\n"
        "n2 -> n1\n"
        "n3 [label=\"\", color=orange, style=filled]\n"
        "n4 [label=\"x\", color=orange, style=filled]\n"
        "n5 [label=\"Add\", color=lightblue, style=filled, shape=box]\n"
        "n4 -> n5\n"
        "n6 -> n5\n"
        "n5 -> n3\n"
        "n4 [label=\"x\", color=orange, style=filled]\n"
        "n6 [label=\"y\", color=orange, style=filled]\n"
        "}");
}

/* verbose=True adds the shape and dtype, after ": " when there is a
 * name. */
static void test_small_graph_verbose(void **state)
{
    (void)state;
    expect_graph(small_graph(), true,
        "digraph g {\n"
        "n1 [label=\"z: (3,) float64\", color=orange, style=filled]\n"
        "n2 [label=\"Mul\", color=lightblue, style=filled, shape=box]\n"
        "n3 -> n2\n"
        "n4 -> n2\n"
        "n2 -> n1\n"
        "n3 [label=\"(3,) float64\", color=orange, style=filled]\n"
        "n4 [label=\"x: () float64\", color=orange, style=filled]\n"
        "n5 [label=\"Add\", color=lightblue, style=filled, shape=box]\n"
        "n4 -> n5\n"
        "n6 -> n5\n"
        "n5 -> n3\n"
        "n4 [label=\"x: () float64\", color=orange, style=filled]\n"
        "n6 [label=\"y: (3,) float64\", color=orange, style=filled]\n"
        "}");
}

/* Node ids are the objects' addresses, in decimal like Python's id(). */
static void test_ids_are_addresses(void **state)
{
    (void)state;
    Variable *z = small_graph();
    char *text = get_dot_graph(z, false);
    char want[128];
    snprintf(want, sizeof want, "digraph g {\n%" PRIuPTR " [label=\"z\"",
             (uintptr_t)z);
    assert_true(strncmp(text, want, strlen(want)) == 0);
    snprintf(want, sizeof want, "\n%" PRIuPTR " [label=\"Mul\"",
             (uintptr_t)z->creator);
    assert_non_null(strstr(text, want));
    free(text);
}

/* A variable no function made is a graph of one node. */
static void test_lone_variable(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(1.0));
    x->name = "x";
    expect_graph(x, false, "digraph g {\n"
                 "n1 [label=\"x\", color=orange, style=filled]\n}");
}

/* Goldstein-Price, term by term as step 24's program writes it. */
static Variable *goldstein(Variable *x, Variable *y)
{
    Variable *p = F_sub(19, F_mul(14, x));
    p = F_add(p, F_mul(3, F_pow(x, 2)));
    p = F_sub(p, F_mul(14, y));
    p = F_add(p, F_mul(F_mul(6, x), y));
    p = F_add(p, F_mul(3, F_pow(y, 2)));
    Variable *a = F_pow(F_add(F_add(x, y), 1), 2);
    Variable *left = F_add(1, F_mul(a, p));
    Variable *q = F_sub(18, F_mul(32, x));
    q = F_add(q, F_mul(12, F_pow(x, 2)));
    q = F_add(q, F_mul(48, y));
    q = F_sub(q, F_mul(F_mul(36, x), y));
    q = F_add(q, F_mul(27, F_pow(y, 2)));
    Variable *b = F_pow(F_sub(F_mul(2, x), F_mul(3, y)), 2);
    Variable *right = F_add(30, F_mul(b, q));
    return F_mul(left, right);
}

/* Step 26's graph of Goldstein-Price is the Python original's, line
 * for line (tests/golden/files/step26_graph.dot, the DOT text Python's
 * step26.py writes to tmp_graph.dot), its ids renumbered:
 * F_mul(14, x) is Mul(x, 14), as Python's 14 * x is x.__rmul__(14). */
static void test_goldstein_graph(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(1.0)), *y = variable(nd_scalar(1.0));
    Variable *z = goldstein(x, y);
    backward(z);
    x->name = "x";
    y->name = "y";
    z->name = "z";
    char *text = get_dot_graph(z, false);
    char *want = suite_file("tests/golden/files/step26_graph.dot");
    EXPECT_SAME_GRAPH(text, want);
    free(want);
    free(text);
}

/* Drawing a graph makes no Variable or Function and keeps none. */
static void test_no_objects_made(void **state)
{
    (void)state;
    Variable *z = small_graph();
    int variables = variables_alive, functions = functions_alive;
    free(get_dot_graph(z, true));
    assert_int_equal(variables_alive, variables);
    assert_int_equal(functions_alive, functions);
}

/* ---- plot_dot_graph, in a scratch folder that is also the cache */

static void scratch_open(void)
{
    assert_int_equal(make_scratch(NULL), 0);
    setenv("DEZERO_CACHE_DIR", scratch, 1);
}

static void scratch_close(void)
{
    assert_int_equal(remove_scratch(NULL), 0);
    unsetenv("DEZERO_CACHE_DIR");
}

/* With dot: a PNG in the file named, and the DOT text in the cache. */
static void test_plot_draws_a_png(void **state)
{
    (void)state;
    if (!program_installed("dot"))
        skip();
    scratch_open();
    const char *png = in_scratch("graph.png");
    const char *dot = in_scratch("tmp_graph.dot");
    assert_true(plot_dot_graph(small_graph(), false, png));
    assert_true(file_starts_with(png, "\x89PNG"));
    assert_true(file_starts_with(dot, "digraph g {\n"));
    scratch_close();
}

/* Without dot on the PATH: false and a message that says what to
 * install; the DOT text is written all the same. */
static void test_plot_without_dot(void **state)
{
    (void)state;
    scratch_open();
    char *path = path_to_scratch();     /* a folder without dot */
    const char *png = in_scratch("graph.png");
    const char *dot = in_scratch("tmp_graph.dot");
    capture_stderr(scratch);
    bool drawn = plot_dot_graph(small_graph(), false, png);
    const char *message = captured();
    restore_path(path);
    assert_false(drawn);
    assert_non_null(strstr(message, "not installed"));
    assert_non_null(strstr(message, "graphviz"));
    assert_true(file_starts_with(dot, "digraph g {\n"));
    assert_int_equal(access(png, F_OK), -1);
    scratch_close();
}

/* A format dot does not know, and a file name without one: false. */
static void test_plot_bad_format(void **state)
{
    (void)state;
    scratch_open();
    const char *file = in_scratch("graph");
    capture_stderr(scratch);
    bool drawn = plot_dot_graph(small_graph(), false, file);
    const char *message = captured();
    assert_false(drawn);
    assert_non_null(strstr(message, "no extension"));
    if (program_installed("dot")) {
        file = in_scratch("graph.nosuchformat");
        capture_stderr(scratch);
        drawn = plot_dot_graph(small_graph(), false, file);
        message = captured();
        assert_false(drawn);
        assert_non_null(strstr(message, "dot could not draw"));
    }
    scratch_close();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_small_graph),
        STEP_TEST(test_small_graph_verbose),
        STEP_TEST(test_ids_are_addresses),
        STEP_TEST(test_lone_variable),
        STEP_TEST(test_goldstein_graph),
        STEP_TEST(test_no_objects_made),
        STEP_TEST(test_plot_draws_a_png),
        STEP_TEST(test_plot_without_dot),
        STEP_TEST(test_plot_bad_format),
    };
    return cmocka_run_group_tests_name("dot_graph", tests, NULL, NULL);
}
