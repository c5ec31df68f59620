/* test_elementwise.c - binary operations over broadcast operands, unary
 * math, where, clip, in-place updates, copyto, comparisons of whole
 * arrays and element access. Expected values come from NumPy 1.24. */
#include <complex.h>
#include <math.h>

#include "nd_test.h"

typedef NdArray *(*BinaryFn)(const NdArray *, const NdArray *);
typedef NdArray *(*UnaryFn)(const NdArray *);

static const struct {
    const char *name;
    BinaryFn fn;
    bool compares;              /* returns bool */
} binary_ops[] = {
    {"add", nd_add, false}, {"sub", nd_sub, false}, {"mul", nd_mul, false},
    {"div", nd_div, false}, {"pow", nd_pow, false},
    {"maximum", nd_maximum, false}, {"minimum", nd_minimum, false},
    {"equal", nd_equal, true}, {"not_equal", nd_not_equal, true},
    {"less", nd_less, true}, {"less_equal", nd_less_equal, true},
    {"greater", nd_greater, true}, {"greater_equal", nd_greater_equal, true},
};
enum { NUM_BINARY = sizeof binary_ops / sizeof binary_ops[0] };

/* ------------------------------------------------------------ broadcast */

typedef struct Operand {
    int ndim;
    int64_t shape[3];
    double values[24];
} Operand;

/* a OP b for float64 operands of the given shapes, for every op in
 * binary_ops order: np.add(a, b), np.subtract(a, b), ... */
typedef struct BroadcastCase {
    const char *name;
    Operand a, b;
    int ndim;
    int64_t shape[3];
    double want[NUM_BINARY][24];
} BroadcastCase;

static const BroadcastCase broadcast_cases[] = {
    {"same shape (2,3) (2,3)",
     {2, {2, 3}, {0.5, 1, 2, 3, 4, 2}},
     {2, {2, 3}, {2, -1, 1, 3, 0, 2}},
     2, {2, 3}, {
         {2.5, 0, 3, 6, 4, 4}, /* add */
         {-1.5, 2, 1, 0, 4, 0}, /* sub */
         {1, -1, 2, 9, 0, 4}, /* mul */
         {0.25, -1, 2, 1, INFINITY, 1}, /* div */
         {0.25, 1, 2, 27, 1, 4}, /* pow */
         {2, 1, 2, 3, 4, 2}, /* maximum */
         {0.5, -1, 1, 3, 0, 2}, /* minimum */
         {0, 0, 0, 1, 0, 1}, /* equal */
         {1, 1, 1, 0, 1, 0}, /* not_equal */
         {1, 0, 0, 0, 0, 0}, /* less */
         {1, 0, 0, 1, 0, 1}, /* less_equal */
         {0, 1, 1, 0, 1, 0}, /* greater */
         {0, 1, 1, 1, 1, 1}, /* greater_equal */
     }},
    {"scalar on the right (2,3) ()",
     {2, {2, 3}, {0.5, 1, 2, 3, 4, 2}},
     {0, {0}, {2}},
     2, {2, 3}, {
         {2.5, 3, 4, 5, 6, 4}, /* add */
         {-1.5, -1, 0, 1, 2, 0}, /* sub */
         {1, 2, 4, 6, 8, 4}, /* mul */
         {0.25, 0.5, 1, 1.5, 2, 1}, /* div */
         {0.25, 1, 4, 9, 16, 4}, /* pow */
         {2, 2, 2, 3, 4, 2}, /* maximum */
         {0.5, 1, 2, 2, 2, 2}, /* minimum */
         {0, 0, 1, 0, 0, 1}, /* equal */
         {1, 1, 0, 1, 1, 0}, /* not_equal */
         {1, 1, 0, 0, 0, 0}, /* less */
         {1, 1, 1, 0, 0, 1}, /* less_equal */
         {0, 0, 0, 1, 1, 0}, /* greater */
         {0, 0, 1, 1, 1, 1}, /* greater_equal */
     }},
    {"scalar on the left () (2,3)",
     {0, {0}, {3}},
     {2, {2, 3}, {2, -1, 1, 3, 0, 2}},
     2, {2, 3}, {
         {5, 2, 4, 6, 3, 5}, /* add */
         {1, 4, 2, 0, 3, 1}, /* sub */
         {6, -3, 3, 9, 0, 6}, /* mul */
         {1.5, -3, 3, 1, INFINITY, 1.5}, /* div */
         {9, 0.3333333333333333, 3, 27, 1, 9}, /* pow */
         {3, 3, 3, 3, 3, 3}, /* maximum */
         {2, -1, 1, 3, 0, 2}, /* minimum */
         {0, 0, 0, 1, 0, 0}, /* equal */
         {1, 1, 1, 0, 1, 1}, /* not_equal */
         {0, 0, 0, 0, 0, 0}, /* less */
         {0, 0, 0, 1, 0, 0}, /* less_equal */
         {1, 1, 1, 0, 1, 1}, /* greater */
         {1, 1, 1, 1, 1, 1}, /* greater_equal */
     }},
    {"(3,1) (1,4)",
     {2, {3, 1}, {0.5, 1, 2}},
     {2, {1, 4}, {2, -1, 1, 3}},
     2, {3, 4}, {
         {2.5, -0.5, 1.5, 3.5, 3, 0, 2, 4, 4, 1, 3, 5}, /* add */
         {-1.5, 1.5, -0.5, -2.5, -1, 2, 0, -2, 0, 3, 1, -1}, /* sub */
         {1, -0.5, 0.5, 1.5, 2, -1, 1, 3, 4, -2, 2, 6}, /* mul */
         {0.25, -0.5, 0.5, 0.16666666666666666, 0.5, -1, 1,
          0.3333333333333333, 1, -2, 2, 0.6666666666666666}, /* div */
         {0.25, 2, 0.5, 0.125, 1, 1, 1, 1, 4, 0.5, 2, 8}, /* pow */
         {2, 0.5, 1, 3, 2, 1, 1, 3, 2, 2, 2, 3}, /* maximum */
         {0.5, -1, 0.5, 0.5, 1, -1, 1, 1, 2, -1, 1, 2}, /* minimum */
         {0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0}, /* equal */
         {1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1}, /* not_equal */
         {1, 0, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1}, /* less */
         {1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 1}, /* less_equal */
         {0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0}, /* greater */
         {0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 0}, /* greater_equal */
     }},
    {"(2,3) (3,)",
     {2, {2, 3}, {0.5, 1, 2, 3, 4, 2}},
     {1, {3}, {2, -1, 1}},
     2, {2, 3}, {
         {2.5, 0, 3, 5, 3, 3}, /* add */
         {-1.5, 2, 1, 1, 5, 1}, /* sub */
         {1, -1, 2, 6, -4, 2}, /* mul */
         {0.25, -1, 2, 1.5, -4, 2}, /* div */
         {0.25, 1, 2, 9, 0.25, 2}, /* pow */
         {2, 1, 2, 3, 4, 2}, /* maximum */
         {0.5, -1, 1, 2, -1, 1}, /* minimum */
         {0, 0, 0, 0, 0, 0}, /* equal */
         {1, 1, 1, 1, 1, 1}, /* not_equal */
         {1, 0, 0, 0, 0, 0}, /* less */
         {1, 0, 0, 0, 0, 0}, /* less_equal */
         {0, 1, 1, 1, 1, 1}, /* greater */
         {0, 1, 1, 1, 1, 1}, /* greater_equal */
     }},
    {"(2,1,3) (4,1)",
     {3, {2, 1, 3}, {0.5, 1, 2, 3, 4, 2}},
     {2, {4, 1}, {2, -1, 1, 3}},
     3, {2, 4, 3}, {
         {2.5, 3, 4, -0.5, 0, 1, 1.5, 2, 3, 3.5, 4, 5, 5, 6, 4, 2, 3, 1, 4, 5,
          3, 6, 7, 5}, /* add */
         {-1.5, -1, 0, 1.5, 2, 3, -0.5, 0, 1, -2.5, -2, -1, 1, 2, 0, 4, 5, 3,
          2, 3, 1, 0, 1, -1}, /* sub */
         {1, 2, 4, -0.5, -1, -2, 0.5, 1, 2, 1.5, 3, 6, 6, 8, 4, -3, -4, -2, 3,
          4, 2, 9, 12, 6}, /* mul */
         {0.25, 0.5, 1, -0.5, -1, -2, 0.5, 1, 2, 0.16666666666666666,
          0.3333333333333333, 0.6666666666666666, 1.5, 2, 1, -3, -4, -2, 3, 4,
          2, 1, 1.3333333333333333, 0.6666666666666666}, /* div */
         {0.25, 1, 4, 2, 1, 0.5, 0.5, 1, 2, 0.125, 1, 8, 9, 16, 4,
          0.3333333333333333, 0.25, 0.5, 3, 4, 2, 27, 64, 8}, /* pow */
         {2, 2, 2, 0.5, 1, 2, 1, 1, 2, 3, 3, 3, 3, 4, 2, 3, 4, 2, 3, 4, 2, 3,
          4, 3}, /* maximum */
         {0.5, 1, 2, -1, -1, -1, 0.5, 1, 1, 0.5, 1, 2, 2, 2, 2, -1, -1, -1, 1,
          1, 1, 3, 3, 2}, /* minimum */
         {0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0,
          0}, /* equal */
         {1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 1,
          1}, /* not_equal */
         {1, 1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
          1}, /* less */
         {1, 1, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0,
          1}, /* less_equal */
         {0, 0, 0, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 1,
          0}, /* greater */
         {0, 0, 1, 1, 1, 1, 0, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
          0}, /* greater_equal */
     }},
    {"size 1 (1,) (3,)",
     {1, {1}, {0.5}},
     {1, {3}, {2, -1, 1}},
     1, {3}, {
         {2.5, -0.5, 1.5}, /* add */
         {-1.5, 1.5, -0.5}, /* sub */
         {1, -0.5, 0.5}, /* mul */
         {0.25, -0.5, 0.5}, /* div */
         {0.25, 2, 0.5}, /* pow */
         {2, 0.5, 1}, /* maximum */
         {0.5, -1, 0.5}, /* minimum */
         {0, 0, 0}, /* equal */
         {1, 1, 1}, /* not_equal */
         {1, 0, 1}, /* less */
         {1, 0, 1}, /* less_equal */
         {0, 1, 0}, /* greater */
         {0, 1, 0}, /* greater_equal */
     }},
    {"zero-size (0,3) (3,)",
     {2, {0, 3}, {0}},
     {1, {3}, {2, -1, 1}},
     2, {0, 3}, {
         {0}, /* add */
         {0}, /* sub */
         {0}, /* mul */
         {0}, /* div */
         {0}, /* pow */
         {0}, /* maximum */
         {0}, /* minimum */
         {0}, /* equal */
         {0}, /* not_equal */
         {0}, /* less */
         {0}, /* less_equal */
         {0}, /* greater */
         {0}, /* greater_equal */
     }},
    {"zero-size (2,0) (2,1)",
     {2, {2, 0}, {0}},
     {2, {2, 1}, {2, -1}},
     2, {2, 0}, {
         {0}, /* add */
         {0}, /* sub */
         {0}, /* mul */
         {0}, /* div */
         {0}, /* pow */
         {0}, /* maximum */
         {0}, /* minimum */
         {0}, /* equal */
         {0}, /* not_equal */
         {0}, /* less */
         {0}, /* less_equal */
         {0}, /* greater */
         {0}, /* greater_equal */
     }},
};

static NdArray *operand(const Operand *o)
{
    NdArray *a = nd_empty(ND_FLOAT64, o->ndim, o->shape);
    for (int64_t i = 0; i < a->size; i++)
        ND_DATA(a, double)[i] = o->values[i];
    return a;
}

/* Fails naming the case and the op unless y has dtype, the case's
 * shape and exactly the values want. */
static void expect_case_at(const char *file, int line, const NdArray *y,
                           NdDtype dtype, const BroadcastCase *c, int op)
{
    const double *want = c->want[op];
    bool ok = y->dtype == dtype && y->ndim == c->ndim;
    for (int d = 0; ok && d < c->ndim; d++)
        ok = y->shape[d] == c->shape[d];
    for (int64_t i = 0; ok && i < y->size; i++)
        ok = nd_get_flat(y, i) == want[i];
    if (!ok) {
        char *shape = nd_shape_str(y);
        print_error("%s %s: got %s %s", binary_ops[op].name, c->name,
                    nd_dtype_name(y->dtype), shape);
        for (int64_t i = 0; i < y->size; i++)
            print_error(" %g(want %g)", nd_get_flat(y, i), want[i]);
        print_error("\n");
        free(shape);
        _fail(file, line);
    }
}
#define expect_case(...) expect_case_at(__FILE__, __LINE__, __VA_ARGS__)

static void test_binary_ops_broadcast(void **state)
{
    (void)state;
    int n = (int)(sizeof broadcast_cases / sizeof broadcast_cases[0]);
    for (int k = 0; k < n; k++) {
        const BroadcastCase *c = &broadcast_cases[k];
        NdArray *a = operand(&c->a), *b = operand(&c->b);
        for (int op = 0; op < NUM_BINARY; op++) {
            NdArray *y = binary_ops[op].fn(a, b);
            expect_case(y, binary_ops[op].compares ? ND_BOOL : ND_FLOAT64, c,
                        op);
            nd_release(y);
        }
        nd_release(a);
        nd_release(b);
    }
}

/* The same loops over 4-byte elements: (1,3) - (2,1) in float32. */
static void test_float32_broadcast_and_bits(void **state)
{
    (void)state;
    NdArray *a = nd_from_buffer(ND_FLOAT32, ND_SHAPE(1, 3),
                                (float[]){0.1f, 0.7f, 3.0f});
    NdArray *b = nd_from_buffer(ND_FLOAT32, ND_SHAPE(2, 1),
                                (float[]){0.2f, 0.1f});
    NdArray *d = nd_sub(a, b);
    EXPECT_ARRAY(d, ND_FLOAT32, ND_SHAPE(2, 3), -0x1.99999ap-4, 0x1p-1,
                 0x1.666666p+1, 0, 0x1.333332p-1, 0x1.733334p+1);
    NdArray *c = nd_from_buffer(ND_FLOAT32, ND_SHAPE(1, 3),
                                (float[]){0.2f, 0.1f, 7.0f});
    NdArray *s = nd_add(a, c), *m = nd_mul(a, c), *q = nd_div(a, c);
    EXPECT_ARRAY(s, ND_FLOAT32, ND_SHAPE(1, 3), 0x1.333334p-2,
                 0x1.99999ap-1, 0x1.4p+3);
    EXPECT_ARRAY(m, ND_FLOAT32, ND_SHAPE(1, 3), 0x1.47ae16p-6,
                 0x1.1eb852p-4, 0x1.5p+4);
    EXPECT_ARRAY(q, ND_FLOAT32, ND_SHAPE(1, 3), 0x1p-1, 0x1.cp+2,
                 0x1.b6db6ep-2);
    nd_release(a);
    nd_release(b);
    nd_release(c);
    nd_release(d);
    nd_release(s);
    nd_release(m);
    nd_release(q);
}

/* One row repeated over many (a bias added to every row): computed in
 * blocks of rows, each element as on its own, in either operand order;
 * (1000, 3) float64 rows span several blocks. */
static void test_repeated_row_every_element(void **state)
{
    (void)state;
    enum { ROWS = 1000, COLS = 3 };
    double x[ROWS * COLS];
    for (int i = 0; i < ROWS * COLS; i++)
        x[i] = i * 0.37 - 5;
    NdArray *a = nd_from_buffer(ND_FLOAT64, ND_SHAPE(ROWS, COLS), x);
    NdArray *row = nd_from_buffer(ND_FLOAT64, ND_SHAPE(COLS),
                                  (double[]){0.1, -2.5, 7});
    NdArray *y = nd_sub(a, row), *z = nd_sub(row, a);
    for (int i = 0; i < ROWS * COLS; i++) {
        double r = ND_DATA(row, double)[i % COLS];
        assert_true(ND_DATA(y, double)[i] == x[i] - r);
        assert_true(ND_DATA(z, double)[i] == r - x[i]);
    }
    NdArray *n = nd_from_buffer(ND_INT64, ND_SHAPE(2, 1, 2),
                                (int64_t[]){1, 2, 3, 4});
    NdArray *m = nd_from_buffer(ND_INT64, ND_SHAPE(2),
                                (int64_t[]){10, 20});
    NdArray *p = nd_mul(m, n);
    EXPECT_ARRAY(p, ND_INT64, ND_SHAPE(2, 1, 2), 10, 40, 30, 80);
    nd_release(a);
    nd_release(row);
    nd_release(y);
    nd_release(z);
    nd_release(n);
    nd_release(m);
    nd_release(p);
}

/* ------------------------------------------------------------ dtypes */

static void test_comparisons_give_bool(void **state)
{
    (void)state;
    NdArray *a = nd_from_buffer(ND_INT64, ND_SHAPE(3),
                                (int64_t[]){1, 5, 3});
    NdArray *three = nd_scalar(3.0);
    NdArray *lt = nd_less(a, three), *eq = nd_equal(three, a);
    EXPECT_ARRAY(lt, ND_BOOL, ND_SHAPE(3), 1, 0, 0);
    EXPECT_ARRAY(eq, ND_BOOL, ND_SHAPE(3), 0, 0, 1);
    /* NaN compares unequal to everything, itself included */
    NdArray *n = nd_from_buffer(ND_FLOAT64, ND_SHAPE(2),
                                (double[]){NAN, 1});
    NdArray *ne = nd_not_equal(n, n), *ge = nd_greater_equal(n, n);
    EXPECT_ARRAY(ne, ND_BOOL, ND_SHAPE(2), 1, 0);
    EXPECT_ARRAY(ge, ND_BOOL, ND_SHAPE(2), 0, 1);
    nd_release(a);
    nd_release(three);
    nd_release(lt);
    nd_release(eq);
    nd_release(n);
    nd_release(ne);
    nd_release(ge);
}

static void test_int_ops(void **state)
{
    (void)state;
    NdArray *a = nd_from_buffer(ND_INT64, ND_SHAPE(3),
                                (int64_t[]){7, -3, 5});
    NdArray *two = nd_from_buffer(ND_INT64, ND_SHAPE(1), (int64_t[]){2});
    NdArray *s = nd_add(a, two), *d = nd_sub(a, two), *m = nd_mul(a, two);
    NdArray *hi = nd_maximum(a, two), *lo = nd_minimum(a, two);
    EXPECT_ARRAY(s, ND_INT64, ND_SHAPE(3), 9, -1, 7);
    EXPECT_ARRAY(d, ND_INT64, ND_SHAPE(3), 5, -5, 3);
    EXPECT_ARRAY(m, ND_INT64, ND_SHAPE(3), 14, -6, 10);
    EXPECT_ARRAY(hi, ND_INT64, ND_SHAPE(3), 7, 2, 5);
    EXPECT_ARRAY(lo, ND_INT64, ND_SHAPE(3), 2, -3, 2);
    nd_release(a);
    nd_release(two);
    nd_release(s);
    nd_release(d);
    nd_release(m);
    nd_release(hi);
    nd_release(lo);
}

static void test_int_true_division_is_float64(void **state)
{
    (void)state;
    NdArray *a = nd_from_buffer(ND_INT64, ND_SHAPE(5),
                                (int64_t[]){1, 2, 3, 0, -1});
    NdArray *b = nd_from_buffer(ND_INT64, ND_SHAPE(5),
                                (int64_t[]){2, 2, 2, 0, 0});
    NdArray *q = nd_div(a, b);          /* 0/0 is nan, -1/0 is -inf */
    assert_int_equal(q->dtype, ND_FLOAT64);
    EXPECT_DOUBLE(nd_get_flat(q, 0), 0.5);
    EXPECT_DOUBLE(nd_get_flat(q, 1), 1.0);
    EXPECT_DOUBLE(nd_get_flat(q, 2), 1.5);
    EXPECT_DOUBLE(nd_get_flat(q, 3), NAN);
    EXPECT_DOUBLE(nd_get_flat(q, 4), -INFINITY);
    NdArray *u = nd_ones(ND_UINT8, ND_SHAPE(2));
    NdArray *uq = nd_div(u, u);
    EXPECT_ARRAY(uq, ND_FLOAT64, ND_SHAPE(2), 1, 1);
    NdArray *t = nd_ones(ND_BOOL, ND_SHAPE(1));
    NdArray *tq = nd_div(t, t);
    EXPECT_ARRAY(tq, ND_FLOAT64, ND_SHAPE(1), 1);
    nd_release(a);
    nd_release(b);
    nd_release(q);
    nd_release(u);
    nd_release(uq);
    nd_release(t);
    nd_release(tq);
}

static void test_integer_pow(void **state)
{
    (void)state;
    NdArray *a = nd_from_buffer(ND_INT64, ND_SHAPE(4),
                                (int64_t[]){2, 3, -2, 5});
    NdArray *e = nd_from_buffer(ND_INT64, ND_SHAPE(4),
                                (int64_t[]){3, 2, 3, 0});
    NdArray *p = nd_pow(a, e);
    EXPECT_ARRAY(p, ND_INT64, ND_SHAPE(4), 8, 9, -8, 1);
    NdArray *two = nd_scalar_of(ND_INT64, 2);
    NdArray *sq = nd_pow(a, two);       /* x ** np.array(2) stays int64 */
    EXPECT_ARRAY(sq, ND_INT64, ND_SHAPE(4), 4, 9, 4, 25);
    NdArray *u = nd_from_buffer(ND_UINT8, ND_SHAPE(1), (uint8_t[]){2});
    NdArray *eight = nd_from_buffer(ND_UINT8, ND_SHAPE(1), (uint8_t[]){8});
    NdArray *w = nd_pow(u, eight);      /* 256 wraps to 0 in uint8 */
    EXPECT_ARRAY(w, ND_UINT8, ND_SHAPE(1), 0);
    nd_release(a);
    nd_release(e);
    nd_release(p);
    nd_release(two);
    nd_release(sq);
    nd_release(u);
    nd_release(eight);
    nd_release(w);
}

static void test_negative_integer_power_is_an_error(void **state)
{
    (void)state;
    NdArray *a = nd_from_buffer(ND_INT64, ND_SHAPE(2), (int64_t[]){2, 3});
    NdArray *e = nd_from_buffer(ND_INT64, ND_SHAPE(2), (int64_t[]){1, -1});
    EXPECT_ND_ERROR(nd_pow(a, e), "nd_pow: integers to negative integer "
                    "powers are not allowed");
    NdArray *f = nd_astype(a, ND_FLOAT64);   /* fine with a float base */
    NdArray *p = nd_pow(f, e);
    EXPECT_ARRAY(p, ND_FLOAT64, ND_SHAPE(2), 2, 0.3333333333333333);
    nd_release(a);
    nd_release(e);
    nd_release(f);
    nd_release(p);
}

/* int64 and uint8 arithmetic wraps around as NumPy's does. */
static void test_integer_overflow_wraps(void **state)
{
    (void)state;
    NdArray *a = nd_from_buffer(ND_INT64, ND_SHAPE(3),
                                (int64_t[]){INT64_MAX, INT64_MIN, 3});
    NdArray *one = nd_scalar_of(ND_INT64, 1);
    NdArray *forty = nd_scalar_of(ND_INT64, 40);
    NdArray *s = nd_add(a, one), *d = nd_sub(a, one), *p = nd_pow(a, forty);
    NdArray *n = nd_neg(a), *m = nd_abs(a);
    assert_true(ND_DATA(s, int64_t)[0] == INT64_MIN);
    assert_true(ND_DATA(d, int64_t)[1] == INT64_MAX);
    assert_true(ND_DATA(p, int64_t)[2] == -6289078614652622815);  /* 3**40 */
    assert_true(ND_DATA(n, int64_t)[1] == INT64_MIN);
    assert_true(ND_DATA(m, int64_t)[1] == INT64_MIN);
    NdArray *u = nd_from_buffer(ND_UINT8, ND_SHAPE(3),
                                (uint8_t[]){250, 3, 16});
    NdArray *v = nd_from_buffer(ND_UINT8, ND_SHAPE(3),
                                (uint8_t[]){10, 5, 17});
    NdArray *us = nd_add(u, v), *ud = nd_sub(u, v), *um = nd_mul(u, v);
    EXPECT_ARRAY(us, ND_UINT8, ND_SHAPE(3), 4, 8, 33);
    EXPECT_ARRAY(ud, ND_UINT8, ND_SHAPE(3), 240, 254, 255);
    EXPECT_ARRAY(um, ND_UINT8, ND_SHAPE(3), 196, 15, 16);
    nd_release(a);
    nd_release(one);
    nd_release(forty);
    nd_release(s);
    nd_release(d);
    nd_release(p);
    nd_release(n);
    nd_release(m);
    nd_release(u);
    nd_release(v);
    nd_release(us);
    nd_release(ud);
    nd_release(um);
}

static void test_bool_ops(void **state)
{
    (void)state;
    NdArray *a = nd_from_buffer(ND_BOOL, ND_SHAPE(4),
                                (bool[]){true, true, false, false});
    NdArray *b = nd_from_buffer(ND_BOOL, ND_SHAPE(4),
                                (bool[]){true, false, true, false});
    NdArray *s = nd_add(a, b), *m = nd_mul(a, b);       /* or, and */
    NdArray *hi = nd_maximum(a, b), *lo = nd_minimum(a, b);
    NdArray *gt = nd_greater(a, b);
    EXPECT_ARRAY(s, ND_BOOL, ND_SHAPE(4), 1, 1, 1, 0);
    EXPECT_ARRAY(m, ND_BOOL, ND_SHAPE(4), 1, 0, 0, 0);
    EXPECT_ARRAY(hi, ND_BOOL, ND_SHAPE(4), 1, 1, 1, 0);
    EXPECT_ARRAY(lo, ND_BOOL, ND_SHAPE(4), 1, 0, 0, 0);
    EXPECT_ARRAY(gt, ND_BOOL, ND_SHAPE(4), 0, 1, 0, 0);
    nd_release(a);
    nd_release(b);
    nd_release(s);
    nd_release(m);
    nd_release(hi);
    nd_release(lo);
    nd_release(gt);
}

/* Both parts of element i of a complex128 array, compared within rtol. */
static void expect_complex_at(const char *file, int line, const NdArray *a,
                              int64_t i, double re, double im, double rtol)
{
    double complex z = ND_DATA(a, double complex)[i];
    double scale = cabs(CMPLX(re, im));
    if (!(cabs(z - CMPLX(re, im)) <= rtol * scale))
        nd_test_fail_at(file, line, "element %lld: got %.17g%+.17gj, want "
                        "%.17g%+.17gj", (long long)i, creal(z), cimag(z),
                        re, im);
}
#define expect_complex(...) \
    expect_complex_at(__FILE__, __LINE__, __VA_ARGS__)

static void test_complex_ops(void **state)
{
    (void)state;
    double complex x[2] = {CMPLX(1, 2), CMPLX(3, -1)};
    double complex y[2] = {CMPLX(2, -1), CMPLX(0.5, 0.5)};
    NdArray *a = nd_from_buffer(ND_COMPLEX128, ND_SHAPE(2), x);
    NdArray *b = nd_from_buffer(ND_COMPLEX128, ND_SHAPE(2), y);
    NdArray *s = nd_add(a, b), *m = nd_mul(a, b), *q = nd_div(a, b);
    NdArray *eq = nd_equal(a, a), *two = nd_scalar(2);
    NdArray *p = nd_pow(a, two);
    assert_int_equal(s->dtype, ND_COMPLEX128);
    expect_complex(s, 0, 3, 1, 0);
    expect_complex(s, 1, 3.5, -0.5, 0);
    expect_complex(m, 0, 4, 3, 0);
    expect_complex(m, 1, 2, 1, 0);
    expect_complex(q, 0, 0, 1, 1e-15);
    expect_complex(q, 1, 2, -4, 1e-15);
    expect_complex(p, 0, -3, 4, 1e-15);
    expect_complex(p, 1, 8, -6, 1e-15);
    EXPECT_ARRAY(eq, ND_BOOL, ND_SHAPE(2), 1, 1);
    NdArray *c64 = nd_astype(a, ND_COMPLEX64);
    NdArray *m64 = nd_mul(c64, c64);
    assert_int_equal(m64->dtype, ND_COMPLEX64);
    nd_release(a);
    nd_release(b);
    nd_release(s);
    nd_release(m);
    nd_release(q);
    nd_release(eq);
    nd_release(two);
    nd_release(p);
    nd_release(c64);
    nd_release(m64);
}

static void test_maximum_minimum_propagate_nan(void **state)
{
    (void)state;
    NdArray *a = nd_from_buffer(ND_FLOAT64, ND_SHAPE(3),
                                (double[]){NAN, 1, 2});
    NdArray *b = nd_from_buffer(ND_FLOAT64, ND_SHAPE(3),
                                (double[]){0, NAN, 1});
    NdArray *hi = nd_maximum(a, b), *lo = nd_minimum(a, b);
    EXPECT_DOUBLE(nd_get_flat(hi, 0), NAN);
    EXPECT_DOUBLE(nd_get_flat(hi, 1), NAN);
    EXPECT_DOUBLE(nd_get_flat(lo, 0), NAN);
    EXPECT_DOUBLE(nd_get_flat(lo, 1), NAN);
    EXPECT_DOUBLE(nd_get_flat(hi, 2), 2);
    EXPECT_DOUBLE(nd_get_flat(lo, 2), 1);
    nd_release(a);
    nd_release(b);
    nd_release(hi);
    nd_release(lo);
}

/* ------------------------------------------------------------ unary */

static const UnaryFn unary_fns[] = {
    nd_exp, nd_log, nd_sin, nd_cos, nd_tanh, nd_sqrt,
};
enum { NUM_UNARY = sizeof unary_fns / sizeof unary_fns[0] };

/* NumPy may use SIMD versions that differ from libm in the last bit. */
static void test_unary_float64(void **state)
{
    (void)state;
    NdArray *x = nd_from_buffer(ND_FLOAT64, ND_SHAPE(3),
                                (double[]){0.5, -1.25, 2.0});
    NdArray *xp = nd_from_buffer(ND_FLOAT64, ND_SHAPE(3),
                                 (double[]){0.5, 1.25, 4.0});
    static const double want[NUM_UNARY][3] = {
        {1.6487212707001282, 0.2865047968601901, 7.38905609893065},
        {-0.6931471805599453, 0.22314355131420974, 1.3862943611198906},
        {0.47942553860420295, -0.9489846193555863, 0.9092974268256816},
        {0.8775825618903725, 0.31532236239526873, -0.4161468365471424},
        {0.46211715726000974, -0.8482836399575129, 0.9640275800758169},
        {0.7071067811865476, 1.118033988749895, 2.0},
    };
    for (int k = 0; k < NUM_UNARY; k++) {
        bool positive_only = unary_fns[k] == nd_log ||
                             unary_fns[k] == nd_sqrt;
        NdArray *y = unary_fns[k](positive_only ? xp : x);
        nd_test_expect(__FILE__, __LINE__, "y", y, ND_FLOAT64, ND_SHAPE(3),
                       want[k], 1e-15);
        nd_release(y);
    }
    nd_release(x);
    nd_release(xp);
}

static void test_unary_float32_stays_float32(void **state)
{
    (void)state;
    NdArray *x = nd_from_buffer(ND_FLOAT32, ND_SHAPE(3),
                                (float[]){0.5f, -1.25f, 2.0f});
    NdArray *xp = nd_from_buffer(ND_FLOAT32, ND_SHAPE(3),
                                 (float[]){0.5f, 1.25f, 4.0f});
    static const double want[NUM_UNARY][3] = {
        {1.6487212181091309, 0.2865047752857208, 7.3890557289123535},
        {-0.6931471824645996, 0.2231435477733612, 1.3862943649291992},
        {0.4794255495071411, -0.9489846229553223, 0.9092974066734314},
        {0.8775825500488281, 0.3153223693370819, -0.41614681482315063},
        {0.46211719512939453, -0.8482836484909058, 0.9640275835990906},
        {0.7071067690849304, 1.1180340051651, 2.0},
    };
    for (int k = 0; k < NUM_UNARY; k++) {
        bool positive_only = unary_fns[k] == nd_log ||
                             unary_fns[k] == nd_sqrt;
        NdArray *y = unary_fns[k](positive_only ? xp : x);
        nd_test_expect(__FILE__, __LINE__, "y", y, ND_FLOAT32, ND_SHAPE(3),
                       want[k], 3e-7);
        nd_release(y);
    }
    nd_release(x);
    nd_release(xp);
}

static void test_unary_int_gives_float64(void **state)
{
    (void)state;
    NdArray *i = nd_from_buffer(ND_INT64, ND_SHAPE(3), (int64_t[]){0, 1, 4});
    static const double want[NUM_UNARY][3] = {
        {1.0, 2.718281828459045, 54.598150033144236},
        {-INFINITY, 0.0, 1.3862943611198906},
        {0.0, 0.8414709848078965, -0.7568024953079284},
        {1.0, 0.5403023058681397, -0.6536436208636119},
        {0.0, 0.7615941559557649, 0.999329299739067},
        {0.0, 1.0, 2.0},
    };
    for (int k = 0; k < NUM_UNARY; k++) {
        NdArray *y = unary_fns[k](i);
        nd_test_expect(__FILE__, __LINE__, "y", y, ND_FLOAT64, ND_SHAPE(3),
                       want[k], 1e-15);
        nd_release(y);
    }
    nd_release(i);
}

static void test_unary_complex(void **state)
{
    (void)state;
    double complex z[2] = {CMPLX(1, 1), CMPLX(-0.5, 2)};
    NdArray *a = nd_from_buffer(ND_COMPLEX128, ND_SHAPE(2), z);
    static const double want[NUM_UNARY][4] = {   /* re0, im0, re1, im1 */
        {1.4686939399158851, 2.2873552871788423, -0.2524058153082637,
         0.5515167681675808},
        {0.34657359027997264, 0.7853981633974483, 0.7234594914681627,
         1.8157749899217608},
        {1.2984575814159773, 0.6349639147847361, -1.8036926955321817,
         3.1828694483371494},
        {0.8337300251311491, -0.9888977057628651, 3.3016373329140944,
         1.7388095044743164},
        {1.0839233273386946, 0.2717525853195118, -1.3212865837711916,
         -0.8508781211449378},
        {1.09868411346781, 0.45508986056222733, 0.8836155308755134,
         1.1317139242778693},
    };
    for (int k = 0; k < NUM_UNARY; k++) {
        NdArray *y = unary_fns[k](a);
        assert_int_equal(y->dtype, ND_COMPLEX128);
        expect_complex(y, 0, want[k][0], want[k][1], 1e-15);
        expect_complex(y, 1, want[k][2], want[k][3], 1e-15);
        nd_release(y);
    }
    NdArray *c64 = nd_astype(a, ND_COMPLEX64);
    NdArray *e64 = nd_exp(c64);
    assert_int_equal(e64->dtype, ND_COMPLEX64);
    float complex e0 = ND_DATA(e64, float complex)[0];
    assert_float_equal(crealf(e0), 1.4686938524246216, 1e-6);
    assert_float_equal(cimagf(e0), 2.2873551845550537, 1e-6);
    nd_release(a);
    nd_release(c64);
    nd_release(e64);
}

static void test_neg_and_abs_keep_integers(void **state)
{
    (void)state;
    NdArray *i = nd_from_buffer(ND_INT64, ND_SHAPE(2), (int64_t[]){1, -2});
    NdArray *ni = nd_neg(i), *ai = nd_abs(i);
    EXPECT_ARRAY(ni, ND_INT64, ND_SHAPE(2), -1, 2);
    EXPECT_ARRAY(ai, ND_INT64, ND_SHAPE(2), 1, 2);
    NdArray *u = nd_from_buffer(ND_UINT8, ND_SHAPE(2), (uint8_t[]){1, 0});
    NdArray *nu = nd_neg(u);            /* wraps: -1 is 255 */
    EXPECT_ARRAY(nu, ND_UINT8, ND_SHAPE(2), 255, 0);
    NdArray *f = nd_from_buffer(ND_FLOAT32, ND_SHAPE(2),
                                (float[]){-1.5f, 2.0f});
    NdArray *nf = nd_neg(f), *af = nd_abs(f);
    EXPECT_ARRAY(nf, ND_FLOAT32, ND_SHAPE(2), 1.5, -2);
    EXPECT_ARRAY(af, ND_FLOAT32, ND_SHAPE(2), 1.5, 2);
    NdArray *z = nd_from_buffer(ND_FLOAT64, ND_SHAPE(2), (double[]){0.5, -0.0});
    NdArray *nz = nd_neg(z);
    EXPECT_ARRAY(nz, ND_FLOAT64, ND_SHAPE(2), -0.5, 0.0);
    assert_false(signbit(nd_get_flat(nz, 1)));
    NdArray *b = nd_from_buffer(ND_BOOL, ND_SHAPE(2), (bool[]){true, false});
    NdArray *ab = nd_abs(b);
    EXPECT_ARRAY(ab, ND_BOOL, ND_SHAPE(2), 1, 0);
    nd_release(i);
    nd_release(ni);
    nd_release(ai);
    nd_release(u);
    nd_release(nu);
    nd_release(f);
    nd_release(nf);
    nd_release(af);
    nd_release(z);
    nd_release(nz);
    nd_release(b);
    nd_release(ab);
}

static void test_abs_of_complex_is_its_modulus(void **state)
{
    (void)state;
    double complex z[2] = {CMPLX(3, 4), CMPLX(0, -1)};
    NdArray *a = nd_from_buffer(ND_COMPLEX128, ND_SHAPE(2), z);
    NdArray *m = nd_abs(a);
    EXPECT_ARRAY(m, ND_FLOAT64, ND_SHAPE(2), 5, 1);
    NdArray *a64 = nd_astype(a, ND_COMPLEX64);
    NdArray *m64 = nd_abs(a64);
    EXPECT_ARRAY(m64, ND_FLOAT32, ND_SHAPE(2), 5, 1);
    nd_release(a);
    nd_release(m);
    nd_release(a64);
    nd_release(m64);
}

static void test_unary_zero_size_and_0d(void **state)
{
    (void)state;
    NdArray *e = nd_zeros(ND_FLOAT32, ND_SHAPE(0, 4));
    NdArray *y = nd_exp(e);
    EXPECT_ARRAY(y, ND_FLOAT32, ND_SHAPE(0, 4), 0);
    NdArray *s = nd_scalar(0.0);
    NdArray *c = nd_cos(s);
    EXPECT_ARRAY(c, ND_FLOAT64, ND_SCALAR_SHAPE, 1);
    nd_release(e);
    nd_release(y);
    nd_release(s);
    nd_release(c);
}

/* Arrays past a million elements are shared out among threads, cut
 * where the vector loop's tail would not fall: every element must still
 * come out as libm computes it alone (within libmvec's 4 ulp). */
static void test_unary_large_arrays_every_element(void **state)
{
    (void)state;
    const int64_t n = (1 << 20) + 37;
    NdArray *x = nd_linspace(-20.0, 20.0, n);           // (n,)
    NdArray *x32 = nd_astype(x, ND_FLOAT32);            // (n,)
    NdArray *e = nd_exp(x);
    NdArray *t = nd_tanh(x);
    NdArray *s32 = nd_sin(x32);
    assert_int_equal(e->size, n);
    assert_int_equal(s32->dtype, ND_FLOAT32);
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; i++) {
        double v = ND_DATA(x, double)[i];
        float v32 = ND_DATA(x32, float)[i];
        if (fabs(ND_DATA(e, double)[i] - exp(v)) > 1e-15 * exp(v) ||
            fabs(ND_DATA(t, double)[i] - tanh(v)) > 1e-15 ||
            fabsf(ND_DATA(s32, float)[i] - sinf(v32)) > 1e-6f)
            wrong++;
    }
    assert_int_equal(wrong, 0);
    nd_release(x);
    nd_release(x32);
    nd_release(e);
    nd_release(t);
    nd_release(s32);
}

/* An element's log, sin, cos or tanh does not depend on where it sits:
 * alone in a 0-d array, or anywhere in a long one (the vector code
 * handles every element, the tail too), in both float dtypes. (exp
 * keeps a scalar tail, to agree with NumPy more often: elementwise.c.) */
static void test_unary_element_alone_equals_in_array(void **state)
{
    (void)state;
    UnaryFn fns[] = {nd_log, nd_sin, nd_cos, nd_tanh};
    NdArray *x = nd_linspace(0.01, 9.7, 101);          // (101,)
    NdArray *x32 = nd_astype(x, ND_FLOAT32);           // (101,)
    NdArray *inputs[] = {x, x32};
    for (int f = 0; f < 4; f++) {
        for (int t = 0; t < 2; t++) {
            NdArray *all = fns[f](inputs[t]);
            for (int64_t i = 0; i < 101; i++) {
                NdArray *one = nd_getitem(inputs[t], 1,
                                         (NdIndex[]){ND_IDX_INT(i)});
                NdArray *alone = fns[f](one);          // ()
                if (nd_get_flat(alone, 0) != nd_get_flat(all, i))
                    fail_msg("function %d, %s, element %lld: %a alone, "
                             "%a in the array", f,
                             nd_dtype_name(one->dtype), (long long)i,
                             nd_get_flat(alone, 0), nd_get_flat(all, i));
                nd_release(one);
                nd_release(alone);
            }
            nd_release(all);
        }
    }
    nd_release(x);
    nd_release(x32);
}

/* ------------------------------------------------------------ where, clip */

static void test_where(void **state)
{
    (void)state;
    NdArray *c = nd_from_buffer(ND_BOOL, ND_SHAPE(2, 3),
                                (bool[]){1, 0, 1, 0, 0, 1});
    NdArray *a23 = nd_from_buffer(ND_FLOAT64, ND_SHAPE(2, 3),
                                  (double[]){0, 1, 2, 3, 4, 5});
    NdArray *minus = nd_scalar(-1);
    NdArray *w = nd_where(c, a23, minus);
    EXPECT_ARRAY(w, ND_FLOAT64, ND_SHAPE(2, 3), 0, -1, 2, -1, -1, 5);

    /* cond (3,), a (2,1), b () broadcast to (2, 3) */
    NdArray *c3 = nd_from_buffer(ND_BOOL, ND_SHAPE(3), (bool[]){1, 0, 1});
    NdArray *col = nd_from_buffer(ND_FLOAT64, ND_SHAPE(2, 1),
                                  (double[]){1, 2});
    NdArray *zero = nd_scalar(0);
    NdArray *wb = nd_where(c3, col, zero);
    EXPECT_ARRAY(wb, ND_FLOAT64, ND_SHAPE(2, 3), 1, 0, 1, 2, 0, 2);
    nd_release(c);
    nd_release(a23);
    nd_release(minus);
    nd_release(w);
    nd_release(c3);
    nd_release(col);
    nd_release(zero);
    nd_release(wb);
}

static void test_where_casts_cond_and_promotes(void **state)
{
    (void)state;
    /* np.where(np.array([0., 2., -1.]), [1, 2, 3], [7, 8, 9]) */
    NdArray *c = nd_from_buffer(ND_FLOAT64, ND_SHAPE(3),
                                (double[]){0, 2, -1});
    NdArray *a = nd_from_buffer(ND_INT64, ND_SHAPE(3), (int64_t[]){1, 2, 3});
    NdArray *b = nd_from_buffer(ND_INT64, ND_SHAPE(3), (int64_t[]){7, 8, 9});
    NdArray *w = nd_where(c, a, b);
    EXPECT_ARRAY(w, ND_INT64, ND_SHAPE(3), 7, 2, 3);
    /* a complex condition: 1j is true */
    double complex z[2] = {CMPLX(0, 1), 0};
    NdArray *cz = nd_from_buffer(ND_COMPLEX128, ND_SHAPE(2), z);
    NdArray *one = nd_scalar(1), *two = nd_scalar(2);
    NdArray *wz = nd_where(cz, one, two);
    EXPECT_ARRAY(wz, ND_FLOAT64, ND_SHAPE(2), 1, 2);
    /* float32 with a 0-d float64 stays float32 */
    NdArray *m = nd_from_buffer(ND_BOOL, ND_SHAPE(2), (bool[]){1, 0});
    NdArray *f = nd_from_buffer(ND_FLOAT32, ND_SHAPE(2),
                                (float[]){1.5f, 2.5f});
    NdArray *tenth = nd_scalar(0.1);
    NdArray *wf = nd_where(m, f, tenth);
    EXPECT_ARRAY(wf, ND_FLOAT32, ND_SHAPE(2), 1.5, 0x1.99999ap-4);
    /* int with float64 arrays is float64 */
    NdArray *g = nd_from_buffer(ND_FLOAT64, ND_SHAPE(2),
                                (double[]){0.5, 0.25});
    NdArray *two_ints = nd_from_buffer(ND_INT64, ND_SHAPE(2),
                                       (int64_t[]){1, 2});
    NdArray *wg = nd_where(m, two_ints, g);
    EXPECT_ARRAY(wg, ND_FLOAT64, ND_SHAPE(2), 1, 0.25);
    NdArray *none = nd_zeros(ND_BOOL, ND_SHAPE(0));
    NdArray *w0 = nd_where(none, one, two);
    EXPECT_ARRAY(w0, ND_FLOAT64, ND_SHAPE(0), 0);
    nd_release(c);
    nd_release(a);
    nd_release(b);
    nd_release(w);
    nd_release(cz);
    nd_release(one);
    nd_release(two);
    nd_release(wz);
    nd_release(m);
    nd_release(f);
    nd_release(tenth);
    nd_release(wf);
    nd_release(g);
    nd_release(two_ints);
    nd_release(wg);
    nd_release(none);
    nd_release(w0);
}

static void test_clip(void **state)
{
    (void)state;
    NdArray *x = nd_from_buffer(ND_FLOAT64, ND_SHAPE(4),
                                (double[]){-1, 0.5, NAN, 3});
    NdArray *y = nd_clip(x, 0, 1);      /* [0, 0.5, nan, 1] */
    assert_int_equal(y->dtype, ND_FLOAT64);
    EXPECT_DOUBLE(nd_get_flat(y, 0), 0);
    EXPECT_DOUBLE(nd_get_flat(y, 1), 0.5);
    EXPECT_DOUBLE(nd_get_flat(y, 3), 1);
    EXPECT_DOUBLE(nd_get_flat(y, 2), NAN);
    NdArray *f = nd_from_buffer(ND_FLOAT32, ND_SHAPE(3),
                                (float[]){0.05f, 0.5f, 1.5f});
    NdArray *fc = nd_clip(f, 0.1, 1.0);     /* bounds become float32 */
    EXPECT_ARRAY(fc, ND_FLOAT32, ND_SHAPE(3), 0x1.99999ap-4, 0.5, 1);
    NdArray *i = nd_arange(0, 5, 1, ND_INT64);
    NdArray *ic = nd_clip(i, 1, 3);
    EXPECT_ARRAY(ic, ND_INT64, ND_SHAPE(5), 1, 1, 2, 3, 3);
    NdArray *u = nd_from_buffer(ND_UINT8, ND_SHAPE(2), (uint8_t[]){10, 200});
    NdArray *uc = nd_clip(u, 20, 100);
    EXPECT_ARRAY(uc, ND_UINT8, ND_SHAPE(2), 20, 100);
    /* lo > hi: np.clip gives hi everywhere (minimum is applied last) */
    NdArray *r = nd_arange(0, 3, 1, ND_FLOAT64);
    NdArray *rc = nd_clip(r, 2, 1);
    EXPECT_ARRAY(rc, ND_FLOAT64, ND_SHAPE(3), 1, 1, 1);
    nd_release(x);
    nd_release(y);
    nd_release(f);
    nd_release(fc);
    nd_release(i);
    nd_release(ic);
    nd_release(u);
    nd_release(uc);
    nd_release(r);
    nd_release(rc);
}

/* ------------------------------------------------------------ in place */

/* W -= lr * g with float32 W and a float64 g: NumPy computes in float64
 * and rounds once into W; with a float32 g, in float32. nd_isub_scaled
 * gives the same W. */
static void test_isub_float32_like_numpy_sgd(void **state)
{
    (void)state;
    const float w0[4] = {0.1f, -0.3f, 2.5f, 0.7f};
    const double g0[4] = {1.923, 1.481, 1.868, 0.906};
    NdArray *w = nd_from_buffer(ND_FLOAT32, ND_SHAPE(4), w0);
    NdArray *g = nd_from_buffer(ND_FLOAT64, ND_SHAPE(4), g0);
    NdArray *lr = nd_scalar(0.1);
    NdArray *step = nd_mul(lr, g);                  /* float64 (4,) */
    void *data = w->data;
    nd_isub(w, step);
    assert_ptr_equal(w->data, data);                /* in place */
    EXPECT_ARRAY(w, ND_FLOAT32, ND_SHAPE(4), -0x1.7a0f9p-4, -0x1.cadabap-2,
                 0x1.2816fp+1, 0x1.380346p-1);
    /* the same with a float32 gradient stays in float32 all along */
    NdArray *w32 = nd_from_buffer(ND_FLOAT32, ND_SHAPE(4), w0);
    NdArray *g32 = nd_astype(g, ND_FLOAT32);
    NdArray *step32 = nd_mul(lr, g32);              /* float32 (4,) */
    assert_int_equal(step32->dtype, ND_FLOAT32);
    nd_isub(w32, step32);
    EXPECT_ARRAY(w32, ND_FLOAT32, ND_SHAPE(4), -0x1.7a0f92p-4,
                 -0x1.cadabcp-2, 0x1.2816fp+1, 0x1.380346p-1);
    /* nd_isub_scaled: each in one call, the float32 one in one pass */
    NdArray *w_scaled = nd_from_buffer(ND_FLOAT32, ND_SHAPE(4), w0);
    nd_isub_scaled(w_scaled, 0.1, g);
    assert_true(nd_array_equal(w_scaled, w));
    NdArray *w32_scaled = nd_from_buffer(ND_FLOAT32, ND_SHAPE(4), w0);
    data = w32_scaled->data;
    nd_isub_scaled(w32_scaled, 0.1, g32);
    assert_ptr_equal(w32_scaled->data, data);
    assert_true(nd_array_equal(w32_scaled, w32));
    nd_release(w_scaled);
    nd_release(w32_scaled);
    nd_release(w);
    nd_release(g);
    nd_release(lr);
    nd_release(step);
    nd_release(w32);
    nd_release(g32);
    nd_release(step32);
}

/* Gaussians of a dtype, shaped as given: a new array. */
static NdArray *gaussians(NdDtype dtype, int ndim, const int64_t *shape)
{
    NdArray *x = nd_random_randn(ndim, shape);
    NdArray *y = nd_astype(x, dtype);
    nd_release(x);
    return y;
}

/* nd_isub_scaled(dst, a, v) leaves dst as nd_isub(dst, a * v) does, to
 * the bit: over 1001 values (the vector loop and its tail) of each
 * float dtype, with v dst itself, and with a row broadcast over dst. */
static void test_isub_scaled_equals_two_steps(void **state)
{
    (void)state;
    const NdDtype dtypes[] = {ND_FLOAT32, ND_FLOAT64};
    for (int k = 0; k < 2; k++) {
        NdArray *w = gaussians(dtypes[k], ND_SHAPE(7, 143));   // (7, 143)
        NdArray *g = gaussians(dtypes[k], ND_SHAPE(7, 143));   // (7, 143)
        NdArray *row = gaussians(dtypes[k], ND_SHAPE(143));    // (143,)
        NdArray *want = nd_copy(w);
        NdArray *lr = nd_scalar(0.0123);
        NdArray *steps[3] = {nd_mul(lr, g), NULL, nd_mul(lr, row)};
        nd_isub(want, steps[0]);
        nd_isub_scaled(w, 0.0123, g);
        assert_true(nd_array_equal(w, want));
        steps[1] = nd_mul(lr, want);
        nd_isub(want, steps[1]);
        nd_isub_scaled(w, 0.0123, w);
        assert_true(nd_array_equal(w, want));
        nd_isub(want, steps[2]);
        nd_isub_scaled(w, 0.0123, row);
        assert_true(nd_array_equal(w, want));
        for (int i = 0; i < 3; i++)
            nd_release(steps[i]);
        nd_release(lr);
        nd_release(want);
        nd_release(row);
        nd_release(g);
        nd_release(w);
    }
}

/* What nd_isub refuses, nd_isub_scaled refuses, by its own name. */
static void test_isub_scaled_refuses_a_narrower_kind(void **state)
{
    (void)state;
    NdArray *i = nd_zeros(ND_INT64, ND_SHAPE(3));
    NdArray *g = nd_ones(ND_FLOAT32, ND_SHAPE(3));
    NdArray *long_row = nd_ones(ND_FLOAT32, ND_SHAPE(4));
    EXPECT_ND_ERROR(nd_isub_scaled(i, 0.5, g), "nd_isub_scaled: cannot "
                    "cast the result from float64 to int64");
    EXPECT_ND_ERROR(nd_isub_scaled(g, 0.5, long_row), "nd_isub_scaled");
    nd_release(i);
    nd_release(g);
    nd_release(long_row);
}

static void test_iadd_imul_broadcast_and_cast_back(void **state)
{
    (void)state;
    NdArray *x23 = nd_from_buffer(ND_FLOAT32, ND_SHAPE(2, 3),
                                  (float[]){0, 1, 2, 3, 4, 5});
    NdArray *row = nd_from_buffer(ND_FLOAT64, ND_SHAPE(3),
                                  (double[]){0.5, 1, 1.5});
    nd_iadd(x23, row);
    EXPECT_ARRAY(x23, ND_FLOAT32, ND_SHAPE(2, 3), 0.5, 2, 3.5, 3.5, 5, 6.5);
    NdArray *three = nd_scalar(3);
    nd_imul(x23, three);
    EXPECT_ARRAY(x23, ND_FLOAT32, ND_SHAPE(2, 3), 1.5, 6, 10.5, 10.5, 15,
                 19.5);
    NdArray *i = nd_from_buffer(ND_INT64, ND_SHAPE(3), (int64_t[]){1, 2, 3});
    NdArray *two = nd_scalar_of(ND_INT64, 2);
    nd_imul(i, two);
    EXPECT_ARRAY(i, ND_INT64, ND_SHAPE(3), 2, 4, 6);
    NdArray *u = nd_from_buffer(ND_UINT8, ND_SHAPE(1), (uint8_t[]){250});
    NdArray *ten = nd_scalar_of(ND_INT64, 10);
    nd_iadd(u, ten);                    /* 260 wraps to 4 */
    EXPECT_ARRAY(u, ND_UINT8, ND_SHAPE(1), 4);
    nd_release(x23);
    nd_release(row);
    nd_release(three);
    nd_release(i);
    nd_release(two);
    nd_release(u);
    nd_release(ten);
}

/* dst op= v where v is dst itself, or a view of all of it: each element
 * is read before it is written, as NumPy's in-place ufuncs do. */
static void test_in_place_with_itself(void **state)
{
    (void)state;
    NdArray *x = nd_from_buffer(ND_FLOAT64, ND_SHAPE(6),
                                (double[]){1, 2, 3, 4, 5, 6});
    void *data = x->data;
    nd_iadd(x, x);
    assert_ptr_equal(x->data, data);
    EXPECT_ARRAY(x, ND_FLOAT64, ND_SHAPE(6), 2, 4, 6, 8, 10, 12);
    NdArray *row = nd_reshape(x, ND_SHAPE(1, 6));   /* a view of x */
    nd_imul(row, x);
    EXPECT_ARRAY(x, ND_FLOAT64, ND_SHAPE(6), 4, 16, 36, 64, 100, 144);
    nd_isub(row, x);
    EXPECT_ARRAY(x, ND_FLOAT64, ND_SHAPE(6), 0, 0, 0, 0, 0, 0);
    nd_release(row);
    nd_release(x);
}

static void test_copyto_broadcasts_and_casts(void **state)
{
    (void)state;
    NdArray *d = nd_zeros(ND_FLOAT32, ND_SHAPE(2, 3));
    NdArray *s = nd_from_buffer(ND_FLOAT64, ND_SHAPE(3),
                                (double[]){0.1, 0.2, 0.3});
    nd_copyto(d, s);
    EXPECT_ARRAY(d, ND_FLOAT32, ND_SHAPE(2, 3), 0x1.99999ap-4,
                 0x1.99999ap-3, 0x1.333334p-2, 0x1.99999ap-4,
                 0x1.99999ap-3, 0x1.333334p-2);
    NdArray *di = nd_zeros(ND_INT64, ND_SHAPE(2, 2));
    NdArray *col = nd_from_buffer(ND_FLOAT64, ND_SHAPE(2, 1),
                                  (double[]){1.9, -2.7});
    nd_copyto(di, col);                 /* casting='unsafe' truncates */
    EXPECT_ARRAY(di, ND_INT64, ND_SHAPE(2, 2), 1, 1, -2, -2);
    NdArray *v = nd_zeros(ND_FLOAT64, ND_SHAPE(3));
    NdArray *five = nd_scalar(5);
    nd_copyto(v, five);
    EXPECT_ARRAY(v, ND_FLOAT64, ND_SHAPE(3), 5, 5, 5);
    nd_release(d);
    nd_release(s);
    nd_release(di);
    nd_release(col);
    nd_release(v);
    nd_release(five);
}

/* ------------------------------------------------------------ whole arrays */

static NdArray *vec(int n, const double *values)
{
    return nd_from_buffer(ND_FLOAT64, 1, (const int64_t[]){n}, values);
}

static void test_allclose(void **state)
{
    (void)state;
    NdArray *a = vec(2, (double[]){1, 2});
    NdArray *b = vec(2, (double[]){1 + 1e-6, 2});
    NdArray *far = vec(1, (double[]){1.001});
    NdArray *one = vec(1, (double[]){1});
    EXPECT_ALLCLOSE(a, b, 1e-5, 1e-8);
    assert_false(nd_allclose(one, far, 1e-5, 1e-8));
    NdArray *nan = vec(1, (double[]){NAN});
    NdArray *inf = vec(1, (double[]){INFINITY});
    NdArray *ninf = vec(1, (double[]){-INFINITY});
    assert_false(nd_allclose(nan, nan, 1e-5, 1e-8));
    EXPECT_ALLCLOSE(inf, inf, 1e-5, 1e-8);
    assert_false(nd_allclose(inf, ninf, 1e-5, 1e-8));
    /* broadcast against a 0-d */
    NdArray *ones = nd_ones(ND_FLOAT64, ND_SHAPE(2, 3));
    NdArray *s = nd_scalar(1.0);
    EXPECT_ALLCLOSE(ones, s, 1e-5, 1e-8);
    /* atol alone: 1e-9 is close to 0, 1e-7 is not */
    NdArray *tiny = vec(1, (double[]){1e-9}), *small = vec(1, (double[]){1e-7});
    NdArray *zero = vec(1, (double[]){0});
    EXPECT_ALLCLOSE(tiny, zero, 1e-5, 1e-8);
    assert_false(nd_allclose(small, zero, 1e-5, 1e-8));
    /* not symmetric: the tolerance scales with |b| */
    NdArray *x = nd_scalar(100.0), *y = nd_scalar(100.001);
    EXPECT_ALLCLOSE(x, y, 1e-5, 0);
    assert_false(nd_allclose(y, x, 1e-5, 0));
    nd_release(a);
    nd_release(b);
    nd_release(far);
    nd_release(one);
    nd_release(nan);
    nd_release(inf);
    nd_release(ninf);
    nd_release(ones);
    nd_release(s);
    nd_release(tiny);
    nd_release(small);
    nd_release(zero);
    nd_release(x);
    nd_release(y);
}

static void test_array_equal(void **state)
{
    (void)state;
    NdArray *i = nd_from_buffer(ND_INT64, ND_SHAPE(2), (int64_t[]){1, 2});
    NdArray *f = vec(2, (double[]){1, 2});
    NdArray *longer = vec(3, (double[]){1, 2, 3});
    assert_true(nd_array_equal(i, f));          /* values, not dtypes */
    assert_false(nd_array_equal(f, longer));
    NdArray *nan = vec(1, (double[]){NAN});
    assert_false(nd_array_equal(nan, nan));
    NdArray *col = nd_ones(ND_FLOAT64, ND_SHAPE(2, 1));
    NdArray *row = nd_ones(ND_FLOAT64, ND_SHAPE(1, 2));
    assert_false(nd_array_equal(col, row));     /* no broadcasting */
    NdArray *e1 = nd_zeros(ND_FLOAT64, ND_SHAPE(0, 3));
    NdArray *e2 = nd_zeros(ND_FLOAT32, ND_SHAPE(0, 3));
    assert_true(nd_array_equal(e1, e2));
    nd_release(i);
    nd_release(f);
    nd_release(longer);
    nd_release(nan);
    nd_release(col);
    nd_release(row);
    nd_release(e1);
    nd_release(e2);
}

/* ------------------------------------------------------------ elements */

static void test_item_and_flat_access(void **state)
{
    (void)state;
    NdArray *s = nd_scalar_of(ND_INT64, 10);
    EXPECT_DOUBLE(nd_item(s), 10);
    NdArray *one = nd_full(ND_FLOAT32, ND_SHAPE(1, 1), 0.1);
    EXPECT_DOUBLE(nd_item(one), 0x1.99999ap-4);
    NdArray *a = nd_arange(0, 6, 1, ND_INT64);
    EXPECT_DOUBLE(nd_get_flat(a, 5), 5);
    nd_set_flat(a, 2, 2.7);             /* cast to int64: truncates */
    EXPECT_DOUBLE(nd_get_flat(a, 2), 2);
    assert_int_equal(ND_DATA(a, int64_t)[2], 2);
    NdArray *b = nd_zeros(ND_BOOL, ND_SHAPE(2));
    nd_set_flat(b, 1, -3);
    EXPECT_ARRAY(b, ND_BOOL, ND_SHAPE(2), 0, 1);
    double complex z = CMPLX(1.5, -2);
    NdArray *c = nd_from_buffer(ND_COMPLEX128, ND_SCALAR_SHAPE, &z);
    EXPECT_DOUBLE(nd_item(c), 1.5);     /* the real part */
    nd_release(s);
    nd_release(one);
    nd_release(a);
    nd_release(b);
    nd_release(c);
}

static void expect_shape_str_at(const char *file, int line, const NdArray *a,
                                const char *want)
{
    char *text = nd_shape_str(a);
    _assert_string_equal(text, want, file, line);
    free(text);
}
#define expect_shape_str(...) \
    expect_shape_str_at(__FILE__, __LINE__, __VA_ARGS__)

static void test_shape_str(void **state)
{
    (void)state;
    NdArray *a = nd_zeros(ND_FLOAT64, ND_SHAPE(2, 3));
    NdArray *b = nd_zeros(ND_FLOAT64, ND_SHAPE(3));
    NdArray *c = nd_scalar(1);
    NdArray *d = nd_zeros(ND_UINT8, ND_SHAPE(0, 5, 1));
    expect_shape_str(a, "(2, 3)");
    expect_shape_str(b, "(3,)");
    expect_shape_str(c, "()");
    expect_shape_str(d, "(0, 5, 1)");
    nd_release(a);
    nd_release(b);
    nd_release(c);
    nd_release(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_binary_ops_broadcast),
        cmocka_unit_test(test_float32_broadcast_and_bits),
        cmocka_unit_test(test_repeated_row_every_element),
        cmocka_unit_test(test_comparisons_give_bool),
        cmocka_unit_test(test_int_ops),
        cmocka_unit_test(test_int_true_division_is_float64),
        cmocka_unit_test(test_integer_pow),
        cmocka_unit_test(test_negative_integer_power_is_an_error),
        cmocka_unit_test(test_integer_overflow_wraps),
        cmocka_unit_test(test_bool_ops),
        cmocka_unit_test(test_complex_ops),
        cmocka_unit_test(test_maximum_minimum_propagate_nan),
        cmocka_unit_test(test_unary_float64),
        cmocka_unit_test(test_unary_float32_stays_float32),
        cmocka_unit_test(test_unary_int_gives_float64),
        cmocka_unit_test(test_unary_complex),
        cmocka_unit_test(test_neg_and_abs_keep_integers),
        cmocka_unit_test(test_abs_of_complex_is_its_modulus),
        cmocka_unit_test(test_unary_zero_size_and_0d),
        cmocka_unit_test(test_unary_large_arrays_every_element),
        cmocka_unit_test(test_unary_element_alone_equals_in_array),
        cmocka_unit_test(test_where),
        cmocka_unit_test(test_where_casts_cond_and_promotes),
        cmocka_unit_test(test_clip),
        cmocka_unit_test(test_isub_float32_like_numpy_sgd),
        cmocka_unit_test(test_isub_scaled_equals_two_steps),
        cmocka_unit_test(test_isub_scaled_refuses_a_narrower_kind),
        cmocka_unit_test(test_iadd_imul_broadcast_and_cast_back),
        cmocka_unit_test(test_in_place_with_itself),
        cmocka_unit_test(test_copyto_broadcasts_and_casts),
        cmocka_unit_test(test_allclose),
        cmocka_unit_test(test_array_equal),
        cmocka_unit_test(test_item_and_flat_access),
        cmocka_unit_test(test_shape_str),
    };
    return cmocka_run_group_tests_name("common/elementwise", tests, NULL,
                                       NULL);
}
