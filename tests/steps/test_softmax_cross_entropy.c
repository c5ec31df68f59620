// FIRST_STEP: 47
/* test_softmax_cross_entropy.c - step 47's Softmax and softmax_simple,
 * Clip, Log, logsumexp, softmax_cross_entropy_simple and
 * SoftmaxCrossEntropy: NumPy's values (computed with NumPy 1.24 in
 * Python's order of operations, written here), gradients against
 * central differences, the dtypes NumPy 1.24's rules give (float32
 * scores and int64 labels: a float32 loss and a float64 gradient, as
 * in Python's step 48), the gradient's own gradients (double backprop,
 * which SoftmaxCrossEntropyGrad answers from step 52), big logits
 * that overflow e^x, and bad labels. NumPy's vector exp and log differ
 * by an ulp or two from one processor to another (the Python reference
 * and the C library follow the reference machine's): where they are
 * used, values are compared within 1e-15 (float64) or 1e-6 (float32,
 * a few ulps). */
#include "grad_check.h"

/* The scores used throughout, (2, 3) float64, and their labels. */
static NdArray *scores(void)
{
    return nd_from_buffer(ND_FLOAT64, ND_SHAPE(2, 3),
                          (double[]){0.5, -1.0, 2.0, 0.0, 0.25, -0.75});
}

static NdArray *labels(void)
{
    return nd_from_buffer(ND_INT64, ND_SHAPE(2), (int64_t[]){2, 0});
}

/* softmax(scores) along axis 1, NumPy's. */
#define SOFTMAX_ROWS 0.1752903921400367, 0.03911257327068746,              \
    0.7855970345892759, 0.36279310456968256, 0.465835567266526,            \
    0.17137132816379141

static void test_softmax_values(void **state)
{
    (void)state;
    NdArray *x = scores();
    EXPECT_ARRAY_CLOSE(F_softmax(x, 1)->data, ND_FLOAT64, 1e-15,
                       ND_SHAPE(2, 3), SOFTMAX_ROWS);
    EXPECT_ARRAY_CLOSE(F_softmax_simple(x, 1)->data, ND_FLOAT64, 1e-15,
                       ND_SHAPE(2, 3), SOFTMAX_ROWS);
    EXPECT_ARRAY_CLOSE(F_softmax_simple(x, 0)->data, ND_FLOAT64, 1e-15,
                       ND_SHAPE(2, 3), 0.6224593312018546,
                       0.22270013882530887, 0.9399133498259924,
                       0.3775406687981454, 0.7772998611746911,
                       0.06008665017400762);
    assert_string_equal(F_softmax(x, 1)->creator->cls->name, "Softmax");
    nd_release(x);
}

/* e^1000 overflows: the simple softmax gives inf / inf, NaN; Softmax
 * subtracts the maximum first and stays exact. */
static void test_softmax_big_logits(void **state)
{
    (void)state;
    NdArray *x = nd_from_buffer(ND_FLOAT64, ND_SHAPE(1, 3),
                                (double[]){1000, 0, -1000});
    EXPECT_ARRAY(F_softmax(x, 1)->data, ND_FLOAT64, ND_SHAPE(1, 3), 1, 0, 0);
    assert_true(isnan(nd_get_flat(F_softmax_simple(x, 1)->data, 0)));
    nd_release(x);
}

static void test_logsumexp(void **state)
{
    (void)state;
    NdArray *big = nd_from_buffer(ND_FLOAT64, ND_SHAPE(2, 3), (double[]){
        1000, 1000, 1000, -1000, 0, 1000});
    NdArray *lse = logsumexp(big, 1);
    EXPECT_ARRAY(lse, ND_FLOAT64, ND_SHAPE(2, 1), 1001.0986122886682, 1000);
    NdArray *x = scores(), *x32 = nd_astype(x, ND_FLOAT32);
    NdArray *lse32 = logsumexp(x32, 1);
    EXPECT_ARRAY_CLOSE(lse32, ND_FLOAT32, 1e-6, ND_SHAPE(2, 1),
                       2.2413113117218018, 1.0139224529266357);
    nd_release(lse32);
    nd_release(x32);
    nd_release(x);
    nd_release(lse);
    nd_release(big);
}

/* Clip clamps; its gradient passes inside [x_min, x_max], the ends
 * included, and is 0 outside. */
static void test_clip(void **state)
{
    (void)state;
    Variable *x = variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(5),
        (double[]){-2, -1, 0.5, 1, 3}));
    Variable *y = F_clip(x, -1.0, 1.0);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SHAPE(5), -1, -1, 0.5, 1, 1);
    y->grad = retain(variable(ramp(ND_SHAPE(5), 1, 1)));
    backward(y);
    EXPECT_ARRAY(x->grad->data, ND_FLOAT64, ND_SHAPE(5), 0, 2, 3, 4, 0);
    Variable *x32 = variable(nd_full(ND_FLOAT32, ND_SHAPE(2), 1e-20));
    EXPECT_ARRAY(F_clip(x32, 1e-15, 1.0)->data, ND_FLOAT32, ND_SHAPE(2),
                 (float)1e-15, (float)1e-15);
}

static void test_log(void **state)
{
    (void)state;
    Variable *x = variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(3),
        (double[]){1, 2, 0.5}));
    Variable *y = F_log(x);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SHAPE(3), 0, log(2), log(0.5));
    backward(y);
    EXPECT_ARRAY(x->grad->data, ND_FLOAT64, ND_SHAPE(3), 1, 0.5, 2);
}

/* The functions the gradient check calls; the labels stay fixed. */
static NdArray *check_labels;

static Variable *softmax_rows(Variable *xs[])
{
    return F_softmax(xs[0], 1);
}

static Variable *softmax_columns(Variable *xs[])
{
    return F_softmax(xs[0], 0);
}

static Variable *softmax_simple_rows(Variable *xs[])
{
    return F_softmax_simple(xs[0], 1);
}

static Variable *clip_inside(Variable *xs[])
{
    return F_clip(xs[0], -0.9, 1.2);
}

static Variable *log_of(Variable *xs[])
{
    return F_log(xs[0]);
}

static Variable *cross_entropy_simple(Variable *xs[])
{
    return F_softmax_cross_entropy_simple(xs[0], check_labels);
}

static Variable *cross_entropy(Variable *xs[])
{
    return F_softmax_cross_entropy(xs[0], check_labels);
}

static void test_numerical_gradients(void **state)
{
    (void)state;
    check_labels = nd_from_buffer(ND_INT64, ND_SHAPE(4),
                                  (int64_t[]){2, 0, 2, 1});
    NdArray *x[] = {ramp(ND_SHAPE(4, 3), -1.3, 0.23)};
    check_gradients("softmax, axis 1", softmax_rows, 1, x, 1e-6);
    check_gradients("softmax, axis 0", softmax_columns, 1, x, 1e-6);
    check_gradients("softmax_simple", softmax_simple_rows, 1, x, 1e-6);
    check_gradients("clip", clip_inside, 1, x, 1e-6);
    check_gradients("softmax_cross_entropy_simple", cross_entropy_simple,
                    1, x, 1e-6);
    check_gradients("softmax_cross_entropy", cross_entropy, 1, x, 1e-6);
    NdArray *positive[] = {ramp(ND_SHAPE(2, 3), 0.2, 0.35)};
    check_gradients("log", log_of, 1, positive, 1e-6);
    nd_release(positive[0]);
    nd_release(x[0]);
    nd_release(check_labels);
}

/* h = sum(v gx) for the gradient gx of f = w softmax_cross_entropy(x,
 * check_labels), computed by a first backward: gx = w (p - onehot) / N.
 * The central differences of h check its second derivatives. */
static double weighted_gradient(const NdArray *x_data, double w_value,
                                const NdArray *v)
{
    Variable *x = variable(nd_copy(x_data));
    Variable *w = variable(nd_scalar(w_value));
    backward(F_mul(F_softmax_cross_entropy(x, check_labels), w));
    NdArray *product = nd_mul(grad_array(x), v);
    NdArray *sum = nd_sum(product, ND_ALL_AXES, false);
    double h = nd_item(sum);
    nd_release(sum);
    nd_release(product);
    return h;
}

/* The gradient of softmax cross-entropy is differentiable in turn
 * (double backprop, as Python's chain of Functions is): backward with
 * create_graph records gx; backward from h = sum(v gx) then gives dh/dx
 * (through the softmax in gx) and dh/dw (through gx's factor w, the
 * gy that came back to the loss), each against central differences. */
static void test_gradient_of_the_gradient(void **state)
{
    (void)state;
    check_labels = nd_from_buffer(ND_INT64, ND_SHAPE(4),
                                  (int64_t[]){2, 0, 2, 1});
    NdArray *x_data = ramp(ND_SHAPE(4, 3), -1.3, 0.23);
    NdArray *v = ramp(ND_SHAPE(4, 3), 1, 1);
    const double w_value = 1.7, eps = 1e-5;
    Variable *x = variable(nd_copy(x_data));
    Variable *w = variable(nd_scalar(w_value));
    backward(F_mul(F_softmax_cross_entropy(x, check_labels), w),
             .create_graph = true);
    Variable *gx = x->grad;
    cleargrad(x);
    cleargrad(w);
    backward(F_sum(F_mul(gx, v), ND_ALL_AXES, false));
    double dw = (weighted_gradient(x_data, w_value + eps, v) -
                 weighted_gradient(x_data, w_value - eps, v)) / (2 * eps);
    assert_true(fabs(nd_item(grad_array(w)) - dw) < 1e-8);
    NdArray *moved = nd_copy(x_data);
    for (int64_t j = 0; j < moved->size; j++) {
        double at = nd_get_flat(moved, j);
        nd_set_flat(moved, j, at + eps);
        double up = weighted_gradient(moved, w_value, v);
        nd_set_flat(moved, j, at - eps);
        double down = weighted_gradient(moved, w_value, v);
        nd_set_flat(moved, j, at);
        double want = (up - down) / (2 * eps);
        double got = nd_get_flat(grad_array(x), j);
        if (fabs(got - want) > 1e-6 * fabs(want) + 1e-8)
            fail_msg("d2/dx %lld: backward %.12g, differences %.12g",
                     (long long)j, got, want);
    }
    nd_release(moved);
    nd_release(v);
    nd_release(x_data);
    nd_release(check_labels);
}

/* Both losses of the scores for their labels, as NumPy computes them;
 * the fused one's gradient is (softmax - onehot) / N, and the labels,
 * an input too, get none. */
static void test_cross_entropy_values(void **state)
{
    (void)state;
    NdArray *x_data = scores();
    Variable *t = variable(labels());
    EXPECT_ARRAY_CLOSE(F_softmax_cross_entropy_simple(x_data, t)->data,
                       ND_FLOAT64, 1e-15, ND_SCALAR_SHAPE,
                       0.627616931863222);
    Variable *x = variable(x_data);
    Variable *loss = F_softmax_cross_entropy(x, t);
    EXPECT_ARRAY_CLOSE(loss->data, ND_FLOAT64, 1e-15, ND_SCALAR_SHAPE,
                       0.6276169318632221);
    assert_string_equal(loss->creator->cls->name, "SoftmaxCrossEntropy");
    backward(loss);
    EXPECT_ARRAY_CLOSE(x->grad->data, ND_FLOAT64, 1e-15, ND_SHAPE(2, 3),
                       0x1.66fea62c5b14bp-4, 0x1.406902e1eb928p-6,
                       -0x1.b718e6e4d5f94p-4, -0x1.463ffb71515c0p-2,
                       0x1.dd03ffbae4b28p-3, 0x1.5ef7ee4f7c0b0p-4);
    assert_null(t->grad);
}

/* float32 scores and int64 labels (the spiral of step 48): the loss is
 * float32, and the gradient float64, since the one-hot of int64 labels
 * is int64 and float32 - int64 is float64 in NumPy. */
static void test_cross_entropy_dtypes(void **state)
{
    (void)state;
    NdArray *x64 = scores();
    Variable *x = variable(nd_astype(x64, ND_FLOAT32));
    NdArray *t = labels();
    Variable *loss = F_softmax_cross_entropy(x, t);
    EXPECT_ARRAY_CLOSE(loss->data, ND_FLOAT32, 1e-6, ND_SCALAR_SHAPE,
                       0.6276168823242188);
    backward(loss);
    EXPECT_ARRAY_CLOSE(x->grad->data, ND_FLOAT64, 1e-6, ND_SHAPE(2, 3),
                       0.08764518797397614, 0.019556285813450813,
                       -0.107201486825943, -0.3186034560203552,
                       0.23291780054569244, 0.08568566292524338);
    nd_release(t);
    nd_release(x64);
}

/* Scores of +-1000: e^x overflows, but log p = x - logsumexp(x) does
 * not. The simple version's clip keeps it finite, and wrong: the label
 * whose p underflows counts -log(1e-15) = 34.5, not 2000. */
static void test_cross_entropy_big_logits(void **state)
{
    (void)state;
    NdArray *big = nd_from_buffer(ND_FLOAT64, ND_SHAPE(2, 3), (double[]){
        1000, 1000, 1000, -1000, 0, 1000});
    NdArray *t = labels();
    EXPECT_ARRAY(F_softmax_cross_entropy(big, t)->data, ND_FLOAT64,
                 ND_SCALAR_SHAPE, 1000.5493061443341);
    EXPECT_ARRAY_CLOSE(F_softmax_cross_entropy_simple(big, t)->data,
                       ND_FLOAT64, 1e-14, ND_SCALAR_SHAPE,
                       17.818694341789396);
    nd_release(t);
    nd_release(big);
}

static void test_bad_labels(void **state)
{
    (void)state;
    NdArray *x = scores();
    NdArray *three = nd_from_buffer(ND_INT64, ND_SHAPE(2),
                                    (int64_t[]){0, 3});
    EXPECT_ND_ERROR(F_softmax_cross_entropy(x, three),
                    "softmax_cross_entropy: label 3 of sample 1 is not a "
                    "class of 0 .. 2");
    EXPECT_ND_ERROR(F_softmax_cross_entropy_simple(x, three),
                    "label 3 of sample 1");
    NdArray *negative = nd_from_buffer(ND_INT64, ND_SHAPE(2), (int64_t[]){-1, 0});
    EXPECT_ND_ERROR(F_softmax_cross_entropy(x, negative),
                    "label -1 of sample 0 is not a class of 0 .. 2");
    nd_release(negative);
    NdArray *one = nd_from_buffer(ND_INT64, ND_SHAPE(1), (int64_t[]){0});
    EXPECT_ND_ERROR(F_softmax_cross_entropy(x, one),
                    "want 2 integer labels, one per row of the scores; "
                    "got 1 of dtype int64");
    NdArray *floats = nd_zeros(ND_FLOAT64, ND_SHAPE(2));
    EXPECT_ND_ERROR(F_softmax_cross_entropy(x, floats), "dtype float64");
    NdArray *flat = nd_zeros(ND_FLOAT64, ND_SHAPE(3));
    EXPECT_ND_ERROR(F_softmax_cross_entropy(flat, one),
                    "the scores must be 2-D");
    nd_release(flat);
    nd_release(floats);
    nd_release(one);
    nd_release(three);
    nd_release(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_softmax_values),
        STEP_TEST(test_softmax_big_logits),
        STEP_TEST(test_logsumexp),
        STEP_TEST(test_clip),
        STEP_TEST(test_log),
        STEP_TEST(test_numerical_gradients),
        STEP_TEST(test_gradient_of_the_gradient),
        STEP_TEST(test_cross_entropy_values),
        STEP_TEST(test_cross_entropy_dtypes),
        STEP_TEST(test_cross_entropy_big_logits),
        STEP_TEST(test_bad_labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
