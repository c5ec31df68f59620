/* test_errors.c - every misuse of creation, elementwise and in-place
 * operations stops with a message naming the operation and operands;
 * the default handler prints it and exits with status 1; arrays on a
 * device the build cannot reach are refused with a hint. */
#include <sys/wait.h>
#include <unistd.h>

#include "nd_test.h"

/* ------------------------------------------------------------ shapes */

static void test_shapes_that_do_not_broadcast(void **state)
{
    (void)state;
    NdArray *a = nd_ones(ND_FLOAT64, ND_SHAPE(2, 3));
    NdArray *b = nd_ones(ND_FLOAT64, ND_SHAPE(4));
    NdArray *c = nd_ones(ND_FLOAT64, ND_SHAPE(3, 1, 4));
    EXPECT_ND_ERROR(nd_add(a, b), "nd_add: operands could not be broadcast "
                    "together with shapes (2,3) (4,)");
    EXPECT_ND_ERROR(nd_less(b, a), "nd_less: operands could not be "
                    "broadcast together with shapes (4,) (2,3)");
    EXPECT_ND_ERROR(nd_maximum(a, c), "nd_maximum: operands could not be "
                    "broadcast together with shapes (2,3) (3,1,4)");
    EXPECT_ND_ERROR(nd_where(b, a, a), "nd_where: operands could not be "
                    "broadcast together with shapes (4,) (2,3)");
    EXPECT_ND_ERROR(nd_allclose(a, b, 1e-5, 1e-8), "nd_allclose: operands "
                    "could not be broadcast together with shapes (2,3) (4,)");
    nd_release(a);
    nd_release(b);
    nd_release(c);
}

static void test_copyto_and_in_place_shapes(void **state)
{
    (void)state;
    NdArray *v3 = nd_zeros(ND_FLOAT64, ND_SHAPE(3));
    NdArray *v4 = nd_ones(ND_FLOAT64, ND_SHAPE(4));
    NdArray *m23 = nd_ones(ND_FLOAT64, ND_SHAPE(2, 3));
    EXPECT_ND_ERROR(nd_copyto(v3, v4), "nd_copyto: could not broadcast "
                    "input array from shape (4,) into shape (3,)");
    EXPECT_ND_ERROR(nd_copyto(v3, m23), "nd_copyto: could not broadcast "
                    "input array from shape (2,3) into shape (3,)");
    /* dst += v may not grow dst: np.ones(3) += np.ones((2, 3)) */
    EXPECT_ND_ERROR(nd_iadd(v3, m23), "nd_iadd: non-broadcastable output "
                    "operand with shape (3,) doesn't match the broadcast "
                    "shape (2,3)");
    EXPECT_ND_ERROR(nd_isub(v3, v4), "nd_isub: operands could not be "
                    "broadcast together with shapes (3,) (4,)");
    nd_release(v3);
    nd_release(v4);
    nd_release(m23);
}

/* NumPy's same_kind rule: the result may not be cast down a kind. */
static void test_in_place_casting(void **state)
{
    (void)state;
    NdArray *i = nd_zeros(ND_INT64, ND_SHAPE(2));
    NdArray *half = nd_scalar(0.5);
    NdArray *f = nd_zeros(ND_FLOAT32, ND_SHAPE(2));
    NdArray *z = nd_zeros(ND_COMPLEX128, ND_SHAPE(2));
    NdArray *b = nd_zeros(ND_BOOL, ND_SHAPE(2));
    NdArray *one = nd_scalar_of(ND_INT64, 1);
    EXPECT_ND_ERROR(nd_iadd(i, half), "nd_iadd: cannot cast the result from "
                    "float64 to int64 with casting rule 'same_kind'");
    EXPECT_ND_ERROR(nd_imul(f, z), "nd_imul: cannot cast the result from "
                    "complex128 to float32 with casting rule 'same_kind'");
    EXPECT_ND_ERROR(nd_iadd(b, one), "nd_iadd: cannot cast the result from "
                    "int64 to bool");
    nd_release(i);
    nd_release(half);
    nd_release(f);
    nd_release(z);
    nd_release(b);
    nd_release(one);
}

/* ------------------------------------------------------------ dtypes */

static void test_refused_dtypes(void **state)
{
    (void)state;
    NdArray *z = nd_zeros(ND_COMPLEX128, ND_SHAPE(2));
    NdArray *b = nd_zeros(ND_BOOL, ND_SHAPE(2));
    EXPECT_ND_ERROR(nd_maximum(z, z), "nd_maximum: not supported for the "
                    "dtypes complex128 and complex128");
    EXPECT_ND_ERROR(nd_less(z, z), "nd_less: not supported for the dtypes "
                    "complex128 and complex128");
    EXPECT_ND_ERROR(nd_sub(b, b), "nd_sub: not supported for the dtypes "
                    "bool and bool");
    EXPECT_ND_ERROR(nd_isub(b, b), "nd_sub: not supported for the dtypes "
                    "bool and bool");
    EXPECT_ND_ERROR(nd_neg(b), "nd_neg: not supported for the dtype bool");
    EXPECT_ND_ERROR(nd_clip(z, 0, 1), "nd_clip: not supported for the dtype "
                    "complex128");
    nd_release(z);
    nd_release(b);
}

static void test_negative_integer_power(void **state)
{
    (void)state;
    NdArray *a = nd_arange(1, 4, 1, ND_INT64);
    NdArray *e = nd_scalar_of(ND_INT64, -2);
    EXPECT_ND_ERROR(nd_pow(a, e), "nd_pow: integers to negative integer "
                    "powers are not allowed");
    nd_release(a);
    nd_release(e);
}

/* ------------------------------------------------------------ creation */

static void test_negative_shape(void **state)
{
    (void)state;
    EXPECT_ND_ERROR(nd_zeros(ND_FLOAT64, ND_SHAPE(2, -1)),
                    "nd_zeros: negative dimensions are not allowed "
                    "(axis 1 is -1)");
    EXPECT_ND_ERROR(nd_empty(ND_FLOAT32, ND_SHAPE(-3)),
                    "nd_empty: negative dimensions are not allowed");
    EXPECT_ND_ERROR(nd_ones(ND_INT64, ND_SHAPE(-1, 2)),
                    "nd_ones: negative dimensions are not allowed "
                    "(axis 0 is -1)");
    EXPECT_ND_ERROR(nd_from_buffer(ND_UINT8, ND_SHAPE(-2), NULL),
                    "nd_from_buffer: negative dimensions are not allowed");
}

static void test_too_many_dims(void **state)
{
    (void)state;
    EXPECT_ND_ERROR(nd_zeros(ND_FLOAT64, ND_SHAPE(1, 1, 1, 1, 1, 1, 1, 1, 1)),
                    "nd_zeros: 9 dimensions requested; at most 8 are "
                    "supported");
    EXPECT_ND_ERROR(nd_full(ND_FLOAT64, -1, NULL, 0),
                    "nd_full: -1 dimensions requested");
}

/* ------------------------------------------------------------ elements */

static void test_item_needs_size_1(void **state)
{
    (void)state;
    NdArray *a = nd_zeros(ND_FLOAT64, ND_SHAPE(2, 3));
    NdArray *e = nd_zeros(ND_FLOAT64, ND_SHAPE(0));
    EXPECT_ND_ERROR(nd_item(a), "nd_item: can only convert an array of "
                    "size 1 to a number (this one has 6 elements)");
    EXPECT_ND_ERROR(nd_item(e), "nd_item: can only convert an array of "
                    "size 1 to a number (this one has 0 elements)");
    nd_release(a);
    nd_release(e);
}

static void test_flat_index_out_of_range(void **state)
{
    (void)state;
    NdArray *a = nd_zeros(ND_FLOAT64, ND_SHAPE(2, 3));
    EXPECT_ND_ERROR(nd_get_flat(a, 6), "nd_get_flat: index 6 is out of "
                    "bounds for size 6");
    EXPECT_ND_ERROR(nd_get_flat(a, -1), "nd_get_flat: index -1 is out of "
                    "bounds for size 6");
    EXPECT_ND_ERROR(nd_set_flat(a, 100, 1.0), "nd_set_flat: index 100 is "
                    "out of bounds for size 6");
    nd_release(a);
}

/* ------------------------------------------------------------ handler */

/* Runs nd_error in a child with the default handler and stderr on a
 * pipe; returns the child's exit status and what it wrote. */
static int error_in_child(char *text, size_t size)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(stdout);                 /* or the child prints it again */
    fflush(stderr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        nd_set_error_handler(NULL);
        nd_error("nd_demo", "bad operand %d", 42);
    }
    close(fds[1]);
    size_t len = 0;
    ssize_t n;
    while (len + 1 < size && (n = read(fds[0], text + len,
                                       size - 1 - len)) > 0)
        len += (size_t)n;
    text[len] = '\0';
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void test_default_handler_prints_and_exits_1(void **state)
{
    (void)state;
    char text[256];
    assert_int_equal(error_in_child(text, sizeof text), 1);
    assert_string_equal(text, "error: nd_demo: bad operand 42\n");
}

static void test_set_error_handler_returns_the_old_one(void **state)
{
    (void)state;
    NdErrorHandler def = nd_set_error_handler(nd_test_error_handler);
    assert_non_null(def);
    assert_ptr_equal(nd_set_error_handler(NULL), nd_test_error_handler);
    assert_ptr_equal(nd_set_error_handler(NULL), def);  /* the default */
}

/* A long message is cut to the handler's buffer, not overflowed. */
static void test_long_message_is_truncated(void **state)
{
    (void)state;
    char long_text[3000];
    memset(long_text, 'x', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    EXPECT_ND_ERROR(nd_error("nd_demo", "%s", long_text), "nd_demo: xxx");
    assert_true(strlen(nd_test_message) < 1024);
    EXPECT_ND_ERROR(nd_error(long_text, "%d", 1), "xxx");     /* long op */
    assert_true(strlen(nd_test_message) < 1024);
}

/* ------------------------------------------------------------ devices */

/* A CPU array relabelled as a CUDA one, as the GPU half would make it.
 * Give it back with release_fake so its host buffer is freed. These
 * tests are for a build without the GPU half (or without a device);
 * with one, a fake device array would reach a real kernel. */
static NdArray *fake_cuda(void)
{
    if (nd_gpu_available())
        skip();
    NdArray *a = nd_ones(ND_FLOAT32, ND_SHAPE(2, 2));
    a->device = ND_CUDA;
    return a;
}

static void release_fake(NdArray *a)
{
    a->device = ND_CPU;
    nd_release(a);
}

/* Off, the status is one line that says why, beginning with one of the
 * reasons gpu.c gives. */
static void test_gpu_is_off(void **state)
{
    (void)state;
    if (nd_gpu_available())
        skip();
    static const char *const reasons[] = {
        "GPU library not built", "GPU library not found",
        "GPU library could not be loaded", "GPU library out of date",
        "no CUDA driver", "CUDA driver too old", "no CUDA device",
        "CUDA initialisation failed",
    };
    const char *status = nd_gpu_status();
    bool known = false;
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        known |= strncmp(status, reasons[i], strlen(reasons[i])) == 0;
    if (!known)
        fail_msg("unexpected GPU status \"%s\"", status);
    assert_null(strchr(status, '\n'));
}

static void test_mixed_devices_name_each_operand(void **state)
{
    (void)state;
    NdArray *g = fake_cuda();
    NdArray *c = nd_ones(ND_FLOAT32, ND_SHAPE(2, 2));
    EXPECT_ND_ERROR(nd_add(g, c), "nd_add: operands are on different "
                    "devices: operand 1 on cuda, operand 2 on cpu; move one "
                    "with nd_to_device()");
    EXPECT_ND_ERROR(nd_mul(c, g), "nd_mul: operands are on different "
                    "devices: operand 1 on cpu, operand 2 on cuda");
    EXPECT_ND_ERROR(nd_where(c, c, g), "nd_where: operands are on different "
                    "devices: operand 1 on cpu, operand 3 on cuda");
    EXPECT_ND_ERROR(nd_copyto(c, g), "nd_copyto: operands are on different "
                    "devices");
    EXPECT_ND_ERROR(nd_iadd(c, g), "nd_iadd: operands are on different "
                    "devices");
    release_fake(g);
    nd_release(c);
}

static void test_device_ops_say_gpu_support_is_off(void **state)
{
    (void)state;
    NdArray *g = fake_cuda();
    char why[256];
    snprintf(why, sizeof why, "the operands are on device cuda, but GPU "
             "support is off (%s)", nd_gpu_status());
    EXPECT_ND_ERROR(nd_exp(g), why);
    EXPECT_ND_ERROR(nd_exp(g), "nd_exp: ");
    EXPECT_ND_ERROR(nd_add(g, g), why);
    EXPECT_ND_ERROR(nd_clip(g, 0, 1), why);
    EXPECT_ND_ERROR(nd_isub(g, g), why);
    EXPECT_ND_ERROR(nd_astype(g, ND_FLOAT64), why);
    EXPECT_ND_ERROR(nd_get_flat(g, 0), why);
    /* the device is checked before the index */
    EXPECT_ND_ERROR(nd_get_flat(g, 99), why);
    EXPECT_ND_ERROR(nd_set_flat(g, 0, 1), why);
    EXPECT_ND_ERROR(nd_item(g), why);
    EXPECT_ND_ERROR(nd_copy(g), why);
    EXPECT_ND_ERROR(nd_zeros_like(g), why);
    EXPECT_ND_ERROR(nd_array_equal(g, g), why);
    EXPECT_ND_ERROR(nd_allclose(g, g, 1e-5, 1e-8), why);
    release_fake(g);
}

/* The random generator lives on the host, so shuffling is host-only. */
static void test_host_only_functions_name_the_conversion(void **state)
{
    (void)state;
    NdArray *g = fake_cuda();
    NdArray *c = nd_ones(ND_FLOAT32, ND_SHAPE(2, 2));
    EXPECT_ND_ERROR(nd_random_shuffle(g), "nd_random_shuffle: the array is "
                    "on device cuda but nd_random_shuffle runs on the host; "
                    "convert it first with nd_to_device(a, ND_CPU)");
    EXPECT_ND_ERROR(nd_array_equal(c, g), "nd_array_equal: operands are on "
                    "different devices: operand 1 on cpu, operand 2 on cuda");
    EXPECT_ND_ERROR(nd_allclose(g, c, 1e-5, 1e-8), "nd_allclose: operands "
                    "are on different devices");
    release_fake(g);
    nd_release(c);
}

static void test_to_device(void **state)
{
    (void)state;
    if (nd_gpu_available())
        skip();
    NdArray *c = nd_ones(ND_FLOAT64, ND_SHAPE(3));
    char want[256];
    snprintf(want, sizeof want, "nd_to_device: cannot move a cpu array to "
             "cuda: GPU support is off (%s)", nd_gpu_status());
    EXPECT_ND_ERROR(nd_to_device(c, ND_CUDA), want);
    NdArray *same = nd_to_device(c, ND_CPU);   /* already there: c itself */
    assert_ptr_equal(same, c);
    assert_int_equal(c->refcount, 2);
    nd_release(same);
    nd_release(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes_that_do_not_broadcast),
        cmocka_unit_test(test_copyto_and_in_place_shapes),
        cmocka_unit_test(test_in_place_casting),
        cmocka_unit_test(test_refused_dtypes),
        cmocka_unit_test(test_negative_integer_power),
        cmocka_unit_test(test_negative_shape),
        cmocka_unit_test(test_too_many_dims),
        cmocka_unit_test(test_item_needs_size_1),
        cmocka_unit_test(test_flat_index_out_of_range),
        cmocka_unit_test(test_default_handler_prints_and_exits_1),
        cmocka_unit_test(test_set_error_handler_returns_the_old_one),
        cmocka_unit_test(test_long_message_is_truncated),
        cmocka_unit_test(test_gpu_is_off),
        cmocka_unit_test(test_mixed_devices_name_each_operand),
        cmocka_unit_test(test_device_ops_say_gpu_support_is_off),
        cmocka_unit_test(test_host_only_functions_name_the_conversion),
        cmocka_unit_test(test_to_device),
    };
    return cmocka_run_group_tests_name("common/errors", tests, NULL, NULL);
}
