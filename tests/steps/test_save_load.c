// FIRST_STEP: 53
/* test_save_load.c - step 53: a model's weights saved to an .npz file
 * and loaded back (layers.c: layer_save_weights, layer_load_weights).
 * A round trip into a fresh model gives the same parameters, bit for
 * bit, and the same predictions; the keys are Python's (l0/W, l0/b, ...,
 * the names of the layers that hold a parameter joined by '/'); a file
 * with a key missing, an array of another shape or dtype, or a
 * truncated file stops with a message naming the file and the key, and
 * changes nothing; a model that cannot be saved (a weight not made
 * yet, a layer without a name, a key used twice) says why. On a GPU,
 * saving leaves the model there and loading puts the arrays there. Where
 * /usr/bin/python3 has NumPy, np.load reads what we save, and we load
 * what np.savez_compressed writes under DeZero's keys. */
#include "npz.h"
#include "pool_fixture.h"
#include "scratch.h"
#include "numpy_check.h"

/* An MLP((5, 3)) whose weights are made, by a first call on x (4, 2),
 * from the generator seeded with seed. */
static Model *made_mlp(uint32_t seed, Variable *x)
{
    nd_random_seed(seed);
    Model *m = mlp(ND_SHAPE(5, 3), NULL);
    layer_call(m, x);
    return m;
}

/* The input of every test: (4, 2) float32. */
static Variable *input(void)
{
    NdArray *r = nd_arange(-4, 4, 1, ND_FLOAT32);
    NdArray *x = nd_reshape(r, ND_SHAPE(4, 2));
    nd_release(r);
    return variable(x);
}

/* Asserts that the parameters of a and b, walked in order, have the
 * same dtype, shape and bytes. */
static void expect_same_params(Layer *a, Layer *b)
{
    ParamIter ia = layer_params(a), ib = layer_params(b);
    Parameter *pa, *pb;
    int n = 0;
    while ((pa = param_next(&ia)) && (pb = param_next(&ib))) {
        const NdArray *x = pa->variable.data, *y = pb->variable.data;
        assert_non_null(x);
        assert_non_null(y);
        assert_int_equal(x->dtype, y->dtype);
        assert_int_equal(x->ndim, y->ndim);
        for (int i = 0; i < x->ndim; i++)
            assert_int_equal(x->shape[i], y->shape[i]);
        assert_memory_equal(x->data, y->data, nd_nbytes(x));
        n++;
    }
    assert_null(pa);
    assert_null(param_next(&ib));
    assert_int_equal(n, 4);
}

/* Saved, then loaded into a fresh model (its weights not made yet) and
 * into one made from other numbers: the same parameters, bit for bit,
 * and the same predictions. */
static void test_round_trip(void **state)
{
    (void)state;
    Variable *x = input();
    Model *saved = made_mlp(0, x);
    const char *path = in_scratch("round_trip.npz");
    layer_save_weights(saved, path);

    Model *fresh = mlp(ND_SHAPE(5, 3), NULL);
    layer_load_weights(fresh, path);
    expect_same_params(saved, fresh);
    Model *other = made_mlp(1, x);
    layer_load_weights(other, path);
    expect_same_params(saved, other);

    Variable *want = layer_call(saved, x);
    Variable *got = layer_call(fresh, x);
    assert_int_equal(want->data->dtype, got->data->dtype);
    assert_true(nd_array_equal(got->data, want->data));
    got = layer_call(other, x);
    assert_true(nd_array_equal(got->data, want->data));
}

/* The keys are Python's: the parameter's name after the names of the
 * layers that hold it, l0/W for an MLP's first weight; the arrays are
 * the parameters' shapes and dtypes. */
static void test_keys_are_pythons(void **state)
{
    (void)state;
    Model *m = made_mlp(0, input());
    const char *path = in_scratch("keys.npz");
    layer_save_weights(m, path);
    NdNpz *npz = nd_npz_open(path);
    int count;
    const char *const *keys = nd_npz_keys(npz, &count);
    const char *want_keys[] = {"l0/W", "l0/b", "l1/W", "l1/b"};
    const int64_t want_shapes[4][2] = {{2, 5}, {5, 0}, {5, 3}, {3, 0}};
    assert_int_equal(count, 4);
    for (int i = 0; i < 4; i++) {
        assert_string_equal(keys[i], want_keys[i]);
        NdArray *a = nd_npz_get(npz, want_keys[i]);
        assert_int_equal(a->dtype, ND_FLOAT32);
        assert_int_equal(a->ndim, want_shapes[i][1] ? 2 : 1);
        for (int k = 0; k < a->ndim; k++)
            assert_int_equal(a->shape[k], want_shapes[i][k]);
        nd_release(a);
    }
    nd_npz_close(npz);
}

/* A layer of the test's own that holds parameters and layers by name:
 * keys such as inner/mlp/l0/W, one part per layer. */
static const LayerClass holder_class = {.name = "Holder"};

static void test_nested_keys(void **state)
{
    (void)state;
    Layer *outer = layer_new(&holder_class, sizeof(Layer));
    layer_add_param(outer, parameter(nd_scalar(1), "a"));
    Layer *inner = layer_add_layer(outer, layer_new(&holder_class,
                                                    sizeof(Layer)),
                                   .name = "inner");
    layer_add_layer(inner, made_mlp(0, input()), .name = "mlp");
    layer_add_layer(outer, L_linear(2, .in_size = 3), .name = "head");
    const char *path = in_scratch("nested");           /* no .npz */
    layer_save_weights(outer, path);
    NdNpz *npz = nd_npz_open(in_scratch("nested.npz"));
    int count;
    const char *const *keys = nd_npz_keys(npz, &count);
    const char *want[] = {"a", "inner/mlp/l0/W", "inner/mlp/l0/b",
                          "inner/mlp/l1/W", "inner/mlp/l1/b", "head/W",
                          "head/b"};
    assert_int_equal(count, 7);
    for (int i = 0; i < 7; i++)
        assert_string_equal(keys[i], want[i]);
    nd_npz_close(npz);
    /* a lone MLP's keys are l0/W, ...: not in this file */
    EXPECT_ND_ERROR(layer_load_weights(mlp(ND_SHAPE(5, 3), NULL),
                                       in_scratch("nested.npz")),
                    "no array named 'l0/W'");
}

/* Each parameter's value before a load that fails, for comparing: a
 * copy, or NULL for a weight not made yet. */
static void snapshot(Layer *m, NdArray *copies[4])
{
    ParamIter it = layer_params(m);
    int i = 0;
    for (Parameter *p; (p = param_next(&it)) && i < 4;)
        copies[i++] = p->variable.data ? nd_copy(p->variable.data) : NULL;
}

/* Asserts that m still has the values snapshot took, and frees them. */
static void expect_unchanged(Layer *m, NdArray *copies[4])
{
    ParamIter it = layer_params(m);
    int i = 0;
    for (Parameter *p; (p = param_next(&it)) && i < 4; i++) {
        if (!copies[i]) {
            assert_null(p->variable.data);
            continue;
        }
        assert_true(nd_array_equal(p->variable.data, copies[i]));
        assert_int_equal(p->variable.data->dtype, copies[i]->dtype);
        nd_release(copies[i]);
    }
}

/* Writes MLP((5, 3))'s four arrays for x (4, 2) to path, each zeros
 * of its shape and float32, but for the one under key, which is
 * replaced by odd (NULL: left out); extra adds a key no parameter has. */
static void write_weights(const char *path, const char *key, NdArray *odd,
                          bool extra)
{
    const char *keys[5] = {"l0/W", "l0/b", "l1/W", "l1/b", "extra"};
    NdArray *arrays[5] = {
        nd_zeros(ND_FLOAT32, ND_SHAPE(2, 5)), nd_zeros(ND_FLOAT32,
                                                       ND_SHAPE(5)),
        nd_zeros(ND_FLOAT32, ND_SHAPE(5, 3)), nd_zeros(ND_FLOAT32,
                                                       ND_SHAPE(3)),
        nd_ones(ND_INT64, ND_SHAPE(7)),
    };
    const char *kept_keys[5];
    NdArray *kept[5];
    int n = 0;
    for (int i = 0; i < 4 + extra; i++) {
        if (key && strcmp(keys[i], key) == 0) {
            if (!odd)
                continue;
            kept_keys[n] = keys[i];
            kept[n++] = odd;
            continue;
        }
        kept_keys[n] = keys[i];
        kept[n++] = arrays[i];
    }
    nd_savez_compressed(path, n, kept_keys, kept);
    for (int i = 0; i < 5; i++)
        nd_release(arrays[i]);
}

/* A file of write_weights(path, key, odd, false) is refused by an
 * MLP((5, 3)), made or fresh (its first weight not made yet), with a
 * message that names the file and holds message, and the model stays
 * as it was. Takes over odd (NULL: the key left out). */
static void expect_refused(bool fresh, const char *key, NdArray *odd,
                           const char *message)
{
    /* volatile: EXPECT_ND_ERROR returns by longjmp */
    Model *volatile m = fresh ? mlp(ND_SHAPE(5, 3), NULL)
                              : made_mlp(0, input());
    NdArray *before[4];
    snapshot(m, before);
    const char *path = in_scratch("refused.npz");
    write_weights(path, key, odd, false);
    EXPECT_ND_ERROR(layer_load_weights(m, path), path);
    EXPECT_MESSAGE_HAS(message);
    expect_unchanged(m, before);
    nd_release(odd);
}

/* A key the model needs and the file lacks: an error naming the file
 * and the key, and the model as it was. A key the model has no
 * parameter for is ignored. */
static void test_a_missing_key(void **state)
{
    (void)state;
    expect_refused(false, "l1/b", NULL, "no array named 'l1/b'");
    expect_refused(true, "l0/W", NULL, "no array named 'l0/W'");
    Model *m = made_mlp(0, input());
    const char *path = in_scratch("extra.npz");
    write_weights(path, NULL, NULL, true);              /* and "extra" */
    layer_load_weights(m, path);
    ParamIter it = layer_params(m);
    for (Parameter *p; (p = param_next(&it));)
        assert_true(nd_get_flat(p->variable.data, 0) == 0);
}

/* An array of another shape: an error naming the file, the key and both
 * shapes; the model as it was. A weight not made yet takes any number
 * of rows (its input decides them) but must have its columns. */
static void test_a_wrong_shape(void **state)
{
    (void)state;
    expect_refused(false, "l0/W", nd_zeros(ND_FLOAT32, ND_SHAPE(3, 5)),
                   "'l0/W' has the shape (3, 5), but the model's l0/W has "
                   "(2, 5)");
    /* into a fresh model: 3 rows are fine, 4 columns are not */
    NdArray *rows3 = nd_zeros(ND_FLOAT32, ND_SHAPE(3, 5));
    const char *path = in_scratch("shape.npz");
    write_weights(path, "l0/W", rows3, false);
    Model *wide = mlp(ND_SHAPE(5, 3), NULL);
    layer_load_weights(wide, path);
    assert_int_equal(wide->layers[0]->params[0]->variable.data->shape[0], 3);
    nd_release(rows3);
    expect_refused(true, "l0/W", nd_zeros(ND_FLOAT32, ND_SHAPE(2, 4)),
                   "'l0/W' has the shape (2, 4), but the model's l0/W has "
                   "(?, 5)");
    expect_refused(true, "l1/b", nd_zeros(ND_FLOAT32, ND_SHAPE(5, 1)),
                   "'l1/b' has the shape (5, 1), but the model's l1/b has "
                   "(3,)");
}

/* An array of another dtype: an error naming both; the model as it
 * was, a fresh one's lazy weight included. */
static void test_a_wrong_dtype(void **state)
{
    (void)state;
    expect_refused(false, "l0/b", nd_zeros(ND_FLOAT64, ND_SHAPE(5)),
                   "'l0/b' is float64, but the model's l0/b is float32");
    expect_refused(true, "l0/W", nd_zeros(ND_FLOAT64, ND_SHAPE(2, 5)),
                   "'l0/W' is float64, but the model's l0/W is float32");
}

/* A file cut short, as a copy that stopped half-way leaves it, and one
 * that is no file at all: the archive's own errors, naming the file. */
static void test_a_truncated_file(void **state)
{
    (void)state;
    Model *m = made_mlp(0, input());
    const char *whole = in_scratch("whole.npz");
    layer_save_weights(m, whole);
    FILE *f = fopen(whole, "rb");
    assert_non_null(f);
    unsigned char bytes[8192];
    size_t n = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    assert_true(n > 100 && n < sizeof bytes);
    const char *cut = in_scratch("cut.npz");
    f = fopen(cut, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n / 2, f), n / 2);
    fclose(f);
    EXPECT_ND_ERROR(layer_load_weights(m, cut), cut);
    EXPECT_MESSAGE_HAS("its end (the central directory) is missing");
    EXPECT_ND_ERROR(layer_load_weights(m, in_scratch("none.npz")),
                    "none.npz");
}

/* What cannot be saved says why, and writes nothing: a weight not made
 * yet (Python would save None), a layer registered without a name, two
 * parameters under one key. */
static void test_what_cannot_be_saved(void **state)
{
    (void)state;
    const char *path = in_scratch("unsaved.npz");
    EXPECT_ND_ERROR(layer_save_weights(mlp(ND_SHAPE(5, 3), NULL), path),
                    "l0/W has no data yet");
    Layer *outer = layer_new(&holder_class, sizeof(Layer));
    layer_add_layer(outer, L_linear(2, .in_size = 3));
    EXPECT_ND_ERROR(layer_save_weights(outer, path), "layer 0 of the model "
                    "(a Linear) has no name");
    Layer *twice = layer_new(&holder_class, sizeof(Layer));
    layer_add_param(twice, parameter(nd_scalar(1), "W"));
    layer_add_param(twice, parameter(nd_scalar(2), "W"));
    EXPECT_ND_ERROR(layer_save_weights(twice, path), "two parameters have "
                    "the key 'W'");
    Layer *unnamed = layer_new(&holder_class, sizeof(Layer));
    layer_add_param(unnamed, parameter(nd_scalar(1), NULL));
    EXPECT_ND_ERROR(layer_save_weights(unnamed, path), "parameter 0 of the "
                    "model (a Holder) has no name");
    assert_int_equal(access(path, F_OK), -1);
}

/* On the GPU: the model saves from host copies and stays on the GPU;
 * a load puts each array where its parameter's data is, and the model
 * predicts there what the host model predicts. Skipped, saying why,
 * where the GPU cannot be used. */
static void test_on_the_gpu(void **state)
{
    (void)state;
    if (!gpu_enable()) {
        print_message("skipped: no GPU: %s\n", gpu_status());
        skip();
    }
    Variable *x = input();
    Model *host = made_mlp(0, x);
    Model *gpu = made_mlp(0, x);
    layer_to_gpu(gpu);
    const char *path = in_scratch("from_gpu.npz");
    layer_save_weights(gpu, path);
    ParamIter it = layer_params(gpu);
    for (Parameter *p; (p = param_next(&it));)
        assert_int_equal(p->variable.data->device, ND_CUDA);
    Model *other = made_mlp(1, x);
    layer_to_gpu(other);
    layer_load_weights(other, path);
    it = layer_params(other);
    for (Parameter *p; (p = param_next(&it));)
        assert_int_equal(p->variable.data->device, ND_CUDA);
    layer_load_weights(host, path);                 /* and on the host */
    Variable *want = layer_call(host, x);
    Variable *x_gpu = variable(nd_to_device(x->data, ND_CUDA));
    Variable *got = layer_call(other, x_gpu);
    NdArray *back = nd_to_device(got->data, ND_CPU);
    assert_true(nd_allclose(back, want->data, 1e-6, 1e-6));
    nd_release(back);
}

/* ------------------------------------------------------------ NumPy */

/* np.load reads what we save: the keys, and each array's dtype, shape
 * and values, which the script gets as Python literals. */
static void test_numpy_reads_what_we_save(void **state)
{
    (void)state;
    if (!have_numpy())
        skip();
    Model *m = made_mlp(0, input());
    const char *path = in_scratch("for_numpy.npz");
    layer_save_weights(m, path);
    static char script[16384];
    size_t n = (size_t)snprintf(script, sizeof script,
                                "import sys\nimport numpy as np\nwant = {\n");
    const char *keys[] = {"l0/W", "l0/b", "l1/W", "l1/b"};
    ParamIter it = layer_params(m);
    Parameter *p;
    for (int k = 0; (p = param_next(&it)); k++) {
        const NdArray *a = p->variable.data;
        char *shape = nd_shape_str(a);
        n += (size_t)snprintf(script + n, sizeof script - n, "    '%s': "
                              "(%s, [", keys[k], shape);
        free(shape);
        for (int64_t i = 0; i < a->size; i++)
            n += (size_t)snprintf(script + n, sizeof script - n, "%.17g, ",
                                  nd_get_flat(a, i));
        n += (size_t)snprintf(script + n, sizeof script - n, "]),\n");
    }
    snprintf(script + n, sizeof script - n, "%s",
             "}\n"
             "with np.load(sys.argv[1], allow_pickle=False) as npz:\n"
             "    assert sorted(npz.files) == sorted(want), npz.files\n"
             "    for key, (shape, values) in want.items():\n"
             "        a = npz[key]\n"
             "        assert a.dtype == np.float32, (key, a.dtype)\n"
             "        assert a.shape == shape, (key, a.shape)\n"
             "        b = np.array(values, np.float32).reshape(shape)\n"
             "        assert a.tobytes() == b.tobytes(), key\n");
    assert_true(strlen(script) < sizeof script - 1);
    run_python(script, path);
}

/* A file np.savez_compressed wrote under DeZero's keys loads into a
 * fresh MLP, which then predicts from those weights. */
static void test_we_load_what_numpy_saves(void **state)
{
    (void)state;
    if (!have_numpy())
        skip();
    const char *path = in_scratch("from_numpy.npz");
    run_python("import sys\n"
               "import numpy as np\n"
               "def ramp(*shape):\n"
               "    n = int(np.prod(shape))\n"
               "    return (np.arange(n, dtype=np.float32) / "
               "np.float32(7)).reshape(shape)\n"
               "np.savez_compressed(sys.argv[1], **{'l0/W': ramp(2, 5), "
               "'l0/b': ramp(5), 'l1/W': ramp(5, 3), 'l1/b': ramp(3)})\n",
               path);
    Model *m = mlp(ND_SHAPE(5, 3), NULL);
    layer_load_weights(m, path);
    const int64_t shapes[4][2] = {{2, 5}, {5, 0}, {5, 3}, {3, 0}};
    NdArray *seven = nd_scalar_of(ND_FLOAT32, 7);
    ParamIter it = layer_params(m);
    Parameter *p;
    for (int k = 0; (p = param_next(&it)); k++) {
        int64_t size = shapes[k][0] * (shapes[k][1] ? shapes[k][1] : 1);
        NdArray *r = nd_arange(0, (double)size, 1, ND_FLOAT32);
        NdArray *flat = nd_div(r, seven);
        NdArray *want = nd_reshape(flat, shapes[k][1] ? 2 : 1, shapes[k]);
        assert_int_equal(p->variable.data->dtype, ND_FLOAT32);
        assert_true(nd_array_equal(p->variable.data, want));
        nd_release(want);
        nd_release(flat);
        nd_release(r);
    }
    nd_release(seven);
    Variable *y = layer_call(m, input());
    assert_int_equal(variable_ndim(y), 2);
    assert_int_equal(variable_shape(y)[0], 4);
    assert_int_equal(variable_shape(y)[1], 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_round_trip),
        STEP_TEST(test_keys_are_pythons),
        STEP_TEST(test_nested_keys),
        STEP_TEST(test_a_missing_key),
        STEP_TEST(test_a_wrong_shape),
        STEP_TEST(test_a_wrong_dtype),
        STEP_TEST(test_a_truncated_file),
        STEP_TEST(test_what_cannot_be_saved),
        STEP_TEST(test_on_the_gpu),
        STEP_TEST(test_numpy_reads_what_we_save),
        STEP_TEST(test_we_load_what_numpy_saves),
    };
    return cmocka_run_group_tests(tests, make_scratch, remove_scratch);
}
