/* test_npz.c - the .npz reader and writer (common/npz.h). Every dtype
 * and shape (0-d, 1-d, 2-d, empty) goes out and back bit for bit; the
 * .npy members are byte for byte what NumPy's np.save writes; an .npz
 * file NumPy wrote (npz_numpy_fixture.h) reads back, its Fortran-order
 * array in C order and its dtypes that nd.h lacks refused by name. A
 * file that is missing, empty, not a zip archive, truncated or
 * corrupt, a member with a bad .npy header or the wrong amount of
 * data, a missing key, a device array and a failed write each stop
 * with a message that says so, quoting the file's text escaped; bool
 * bytes other than 0 and 1 read as NumPy reads them. Where
 * /usr/bin/python3 has NumPy, NumPy also reads what this library writes
 * and writes what it reads; elsewhere those two tests are skipped,
 * saying why. */
#define _GNU_SOURCE             /* memmem */
#include <sys/stat.h>

#include <zip.h>

#include "nd_test.h"
#include "npz.h"
#include "npz_numpy_fixture.h"
#include "scratch.h"
#include "numpy_check.h"

/* ------------------------------------------------------------ helpers */

static void write_file(const char *path, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* The bytes of member name of the zip archive at path, through libzip
 * (as any zip reader sees them), malloc'd; their count in *n. */
static unsigned char *read_member(const char *path, const char *name,
                                  size_t *n)
{
    int code;
    zip_t *archive = zip_open(path, ZIP_RDONLY, &code);
    assert_non_null(archive);
    zip_stat_t st;
    assert_int_equal(zip_stat(archive, name, 0, &st), 0);
    unsigned char *bytes = malloc(st.size + 1);
    assert_non_null(bytes);
    zip_file_t *file = zip_fopen(archive, name, 0);
    assert_non_null(file);
    assert_int_equal(zip_fread(file, bytes, st.size), (zip_int64_t)st.size);
    assert_int_equal(zip_fclose(file), 0);
    zip_discard(archive);
    *n = st.size;
    return bytes;
}

/* A zip archive at path of the members given, written with libzip:
 * what no .npz writer would write, for the reader's errors. */
typedef struct Member {
    const char *name;
    const void *bytes;
    size_t length;
    bool deflated;                  /* else stored as they are */
} Member;

static void write_archive(const char *path, int n, const Member *members)
{
    int code;
    zip_t *archive = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &code);
    assert_non_null(archive);
    for (int i = 0; i < n; i++) {
        zip_source_t *source = zip_source_buffer(archive, members[i].bytes,
                                                 members[i].length, 0);
        assert_non_null(source);
        zip_int64_t index = zip_file_add(archive, members[i].name, source,
                                         0);
        assert_true(index >= 0);
        zip_int32_t method = members[i].deflated ? ZIP_CM_DEFLATE
                                                 : ZIP_CM_STORE;
        assert_int_equal(zip_set_file_compression(archive, (zip_uint64_t)
                                                  index, method, 0), 0);
    }
    assert_int_equal(zip_close(archive), 0);
}

/* A .npy member: the magic, version major.0, the header's length (2
 * bytes for version 1, else 4) and header, then n bytes of data.
 * Returns its length; out must hold it. */
static size_t npy_bytes(unsigned char *out, int major, const char *header,
                        const void *data, size_t n)
{
    size_t length = strlen(header), at = 8;
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (unsigned char)major;
    out[7] = 0;
    for (int i = 0; i < (major == 1 ? 2 : 4); i++)
        out[at++] = (unsigned char)(length >> (8 * i));
    memcpy(out + at, header, length);
    if (n)
        memcpy(out + at + length, data, n);
    return at + length + n;
}

/* ------------------------------------------------------------ the cases */

/* Every dtype in every shape: 28 arrays, each with the bytes of
 * pattern_byte for its seed, so that every bit goes out and back. */
enum { NUM_SHAPES = 4, NUM_CASES = ND_NUM_DTYPES * NUM_SHAPES };
static const struct {
    int ndim;
    int64_t shape[2];
    const char *python;             /* the shape as Python writes it */
} shapes[NUM_SHAPES] = {
    {0, {0}, "()"}, {1, {3}, "(3,)"}, {2, {2, 3}, "(2, 3)"},
    {2, {0, 3}, "(0, 3)"},
};
/* dtype.str of each dtype, as NumPy names them (the oracle). */
static const char *const numpy_descr[ND_NUM_DTYPES] = {
    [ND_BOOL] = "|b1",      [ND_UINT8] = "|u1",      [ND_INT64] = "<i8",
    [ND_FLOAT32] = "<f4",   [ND_FLOAT64] = "<f8",    [ND_COMPLEX64] = "<c8",
    [ND_COMPLEX128] = "<c16",
};

/* Byte k of case seed's array; a bool's bytes are 0 or 1. */
static unsigned char pattern_byte(NdDtype dtype, int seed, size_t k)
{
    unsigned char b = (unsigned char)((k * 37 + (size_t)seed * 11 + 5) &
                                      0xff);
    return dtype == ND_BOOL ? b & 1 : b;
}
#define PYTHON_PATTERN                                                    \
    "def pattern(descr, seed, n):\n"                                      \
    "    mask = 1 if descr == '|b1' else 255\n"                           \
    "    return bytes((k * 37 + seed * 11 + 5) & 255 & mask\n"            \
    "                 for k in range(n))\n"

static NdDtype case_dtype(int c) { return (NdDtype)(c / NUM_SHAPES); }

/* Case c's array, filled with its pattern. */
static NdArray *case_array(int c)
{
    NdDtype dtype = case_dtype(c);
    NdArray *a = nd_empty(dtype, shapes[c % NUM_SHAPES].ndim,
                          shapes[c % NUM_SHAPES].shape);
    for (size_t k = 0; k < nd_nbytes(a); k++)
        ((unsigned char *)a->data)[k] = pattern_byte(dtype, c, k);
    return a;
}

/* Case c's key: "float32 (2, 3)". */
static const char *case_key(int c)
{
    static char keys[NUM_CASES][32];
    snprintf(keys[c], sizeof keys[c], "%s %s", nd_dtype_name(case_dtype(c)),
             shapes[c % NUM_SHAPES].python);
    return keys[c];
}

/* Asserts that a is case c's array, bit for bit. */
static void expect_case(const NdArray *a, int c)
{
    NdArray *want = case_array(c);
    char got_shape[64], want_shape[64];
    if (a->dtype != want->dtype || a->ndim != want->ndim ||
        memcmp(a->shape, want->shape, sizeof(int64_t) * (size_t)a->ndim) ||
        memcmp(a->data, want->data, nd_nbytes(want)) != 0)
        fail_msg("'%s' came back as a %s array of shape %s, not the %s "
                 "array of shape %s that went out (or its bytes differ)",
                 case_key(c), nd_dtype_name(a->dtype),
                 nd_test_shape_text(got_shape, sizeof got_shape, a->ndim,
                                    a->shape),
                 nd_dtype_name(want->dtype),
                 nd_test_shape_text(want_shape, sizeof want_shape,
                                    want->ndim, want->shape));
    nd_release(want);
}

/* Saves every case at path. */
static void save_cases(const char *path)
{
    const char *keys[NUM_CASES];
    NdArray *arrays[NUM_CASES];
    for (int c = 0; c < NUM_CASES; c++) {
        keys[c] = case_key(c);
        arrays[c] = case_array(c);
    }
    nd_savez_compressed(path, NUM_CASES, keys, arrays);
    for (int c = 0; c < NUM_CASES; c++)
        nd_release(arrays[c]);
}

/* Asserts that the .npz at path holds every case, in order. */
static void expect_cases(const char *path)
{
    NdNpz *npz = nd_npz_open(path);
    int count;
    const char *const *keys = nd_npz_keys(npz, &count);
    assert_int_equal(count, NUM_CASES);
    for (int c = 0; c < NUM_CASES; c++) {
        assert_string_equal(keys[c], case_key(c));
        NdArray *a = nd_npz_get(npz, case_key(c));
        expect_case(a, c);
        nd_release(a);
    }
    nd_npz_close(npz);
}

/* ------------------------------------------------------------ writing */

static void test_every_dtype_and_shape_round_trip(void **state)
{
    (void)state;
    const char *path = in_scratch("cases.npz");
    save_cases(path);
    expect_cases(path);
}

/* What NumPy 1.24's np.save writes (computed with Debian's
 * python3-numpy): the whole .npy file, or its header alone for the
 * large array. The header pads to a multiple of 64 bytes with spaces
 * and a '\n', leaving the first extent room to grow to 21 digits. */
static const struct {
    const char *bytes;
    size_t length;                  /* of bytes */
    size_t member_length;           /* of the whole .npy member */
} numpy_npy[] = {
    /* np.arange(6, dtype='<f4').reshape(2, 3) */
    {"\x93NUMPY\x01\x00v\x00"
     "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
     "                                                          "
     "\x0a\x00\x00\x00\x00\x00\x00\x80?\x00\x00\x00@\x00\x00@@\x00\x00\x80"
     "@\x00\x00\xa0@", 152, 152},
    /* np.array(2.5) */
    {"\x93NUMPY\x01\x00v\x00"
     "{'descr': '<f8', 'fortran_order': False, 'shape': (), }"
     "                                                              "
     "\x0a\x00\x00\x00\x00\x00\x00\x04@", 136, 136},
    /* np.array([1, 2, 255], dtype=np.uint8) */
    {"\x93NUMPY\x01\x00v\x00"
     "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }"
     "                                                            "
     "\x0a\x01\x02\xff", 131, 131},
    /* np.zeros((0, 3), bool) */
    {"\x93NUMPY\x01\x00v\x00"
     "{'descr': '|b1', 'fortran_order': False, 'shape': (0, 3), }"
     "                                                          "
     "\x0a", 128, 128},
    /* np.array([-1, 2**40]) */
    {"\x93NUMPY\x01\x00v\x00"
     "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }"
     "                                                            "
     "\x0a\xff\xff\xff\xff\xff\xff\xff\xff\x00\x00\x00\x00\x00\x01\x00"
     "\x00", 144, 144},
    /* np.array(1+2j) */
    {"\x93NUMPY\x01\x00v\x00"
     "{'descr': '<c16', 'fortran_order': False, 'shape': (), }"
     "                                                             "
     "\x0a\x00\x00\x00\x00\x00\x00\xf0?\x00\x00\x00\x00\x00\x00\x00@",
     144, 144},
    /* np.zeros((1000, 784), np.complex64): the header */
    {"\x93NUMPY\x01\x00v\x00"
     "{'descr': '<c8', 'fortran_order': False, 'shape': (1000, 784), }"
     "                                                     "
     "\x0a", 128, 128 + 1000 * 784 * 8},
};

/* The arrays of numpy_npy, made here. */
static NdArray *numpy_npy_array(int i)
{
    switch (i) {
    case 0: {
        NdArray *r = nd_arange(0, 6, 1, ND_FLOAT32);
        NdArray *a = nd_reshape(r, ND_SHAPE(2, 3));
        nd_release(r);
        return a;
    }
    case 1: return nd_scalar(2.5);
    case 2: return nd_from_buffer(ND_UINT8, ND_SHAPE(3),
                                  (const uint8_t[]){1, 2, 255});
    case 3: return nd_zeros(ND_BOOL, ND_SHAPE(0, 3));
    case 4: return nd_from_buffer(ND_INT64, ND_SHAPE(2),
                                  (const int64_t[]){-1, INT64_C(1) << 40});
    case 5: return nd_from_buffer(ND_COMPLEX128, ND_SCALAR_SHAPE,
                                  (const double[]){1, 2});
    default: return nd_zeros(ND_COMPLEX64, ND_SHAPE(1000, 784));
    }
}

static void test_members_are_what_numpy_writes(void **state)
{
    (void)state;
    const char *path = in_scratch("numpy_bytes.npz");
    for (int i = 0; i < (int)(sizeof numpy_npy / sizeof *numpy_npy); i++) {
        NdArray *a = numpy_npy_array(i);
        nd_savez_compressed(path, 1, (const char *[]){"x"}, &a);
        nd_release(a);
        size_t n;
        unsigned char *member = read_member(path, "x.npy", &n);
        assert_int_equal(n, numpy_npy[i].member_length);
        if (memcmp(member, numpy_npy[i].bytes, numpy_npy[i].length) != 0)
            fail_msg("case %d: the member is not what np.save writes; its "
                     "header: %.118s", i, (const char *)member + 10);
        free(member);
    }
}

/* np.savez_compressed's archive: DEFLATE-d members named key.npy. */
static void test_members_are_deflated_and_named_key_npy(void **state)
{
    (void)state;
    const char *path = in_scratch("layout.npz");
    NdArray *W = nd_zeros(ND_FLOAT32, ND_SHAPE(100, 10));   // (100, 10)
    NdArray *b = nd_zeros(ND_FLOAT32, ND_SHAPE(10));        // (10,)
    nd_savez_compressed(path, 2, (const char *[]){"l0/W", "l0/b"},
                        (NdArray *[]){W, b});
    nd_release(W);
    nd_release(b);
    int code;
    zip_t *archive = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &code);
    assert_non_null(archive);
    assert_int_equal(zip_get_num_entries(archive, 0), 2);
    assert_string_equal(zip_get_name(archive, 0, 0), "l0/W.npy");
    assert_string_equal(zip_get_name(archive, 1, 0), "l0/b.npy");
    zip_stat_t st;
    assert_int_equal(zip_stat_index(archive, 0, 0, &st), 0);
    assert_int_equal(st.comp_method, ZIP_CM_DEFLATE);
    assert_int_equal(st.size, 128 + 100 * 10 * 4);
    assert_true(st.comp_size < st.size / 10);   /* zeros compress */
    zip_discard(archive);
}

/* As NumPy does, ".npz" is added to a path without it. */
static void test_npz_is_appended_to_the_path(void **state)
{
    (void)state;
    NdArray *a = nd_scalar(1);
    nd_savez_compressed(in_scratch("weights"), 1, (const char *[]){"a"},
                        &a);
    nd_release(a);
    struct stat st;
    assert_int_equal(stat(in_scratch("weights.npz"), &st), 0);
    assert_int_not_equal(stat(in_scratch("weights"), &st), 0);
}

/* No arrays: the empty archive np.savez_compressed(path) writes. */
static void test_no_arrays_make_an_empty_archive(void **state)
{
    (void)state;
    const char *path = in_scratch("none.npz");
    nd_savez_compressed(path, 0, NULL, NULL);
    size_t n;
    unsigned char *bytes = read_file(path, &n);
    assert_int_equal(n, 22);
    assert_memory_equal(bytes, "PK\5\6", 4);
    free(bytes);
    NdNpz *npz = nd_npz_open(path);
    int count;
    nd_npz_keys(npz, &count);
    assert_int_equal(count, 0);
    EXPECT_ND_ERROR(nd_npz_get(npz, "W"), "no array named 'W'; it holds "
                    "no arrays");
    nd_npz_close(npz);
}

/* A failed write leaves no temporary file, and the file it would have
 * replaced as it was. */
static void test_a_failed_write_leaves_nothing(void **state)
{
    (void)state;
    NdArray *a = nd_scalar(1);
    const char *folder = in_scratch("folder.npz");
    assert_int_equal(mkdir(folder, 0777), 0);
    EXPECT_ND_ERROR(nd_savez_compressed(folder, 1, (const char *[]){"a"},
                                        &a),
                    "nd_savez_compressed: ");
    EXPECT_MESSAGE_HAS(folder);
    EXPECT_MESSAGE_HAS("cannot rename");
    assert_int_equal(leftovers(), 0);
    assert_int_equal(rmdir(folder), 0);

    EXPECT_ND_ERROR(nd_savez_compressed(in_scratch("absent/w.npz"), 1,
                                        (const char *[]){"a"}, &a),
                    "absent/w.npz: cannot make ");
    EXPECT_MESSAGE_HAS("No such file or directory");

    /* refused before the file is touched */
    const char *path = in_scratch("kept.npz");
    nd_savez_compressed(path, 1, (const char *[]){"a"}, &a);
    EXPECT_ND_ERROR(nd_savez_compressed(path, 2, (const char *[]){"a", "a"},
                                        (NdArray *[]){a, a}),
                    "the key 'a' is given twice (arrays 0 and 1)");
    nd_release(a);
    NdNpz *npz = nd_npz_open(path);
    NdArray *back = nd_npz_get(npz, "a");
    EXPECT_ARRAY(back, ND_FLOAT64, ND_SCALAR_SHAPE, 1);
    nd_release(back);
    nd_npz_close(npz);
    assert_int_equal(leftovers(), 0);
}

static void test_misuses_are_refused(void **state)
{
    (void)state;
    const char *path = in_scratch("misuse.npz");
    NdArray *a = nd_scalar(1);
    EXPECT_ND_ERROR(nd_savez_compressed(path, -1, NULL, NULL),
                    "count is -1");
    EXPECT_ND_ERROR(nd_savez_compressed(path, 1, (const char *[]){NULL},
                                        &a),
                    "key 0 is NULL");
    EXPECT_ND_ERROR(nd_savez_compressed(path, 1, (const char *[]){"a"},
                                        (NdArray *[]){NULL}),
                    "the array of 'a' is NULL");
    EXPECT_ND_ERROR(nd_savez_compressed(NULL, 1, (const char *[]){"a"}, &a),
                    "the path is NULL");
    nd_release(a);
    EXPECT_ND_ERROR(nd_npz_open(NULL), "nd_npz_open: the path is NULL");
}

/* A device array is refused, as NumPy refuses a CuPy array: saving
 * takes host arrays. Without a GPU, a host array relabelled as a
 * device one stands in (the writer only reads the label). */
static void test_a_device_array_is_refused(void **state)
{
    (void)state;
    NdArray *host = nd_ones(ND_FLOAT32, ND_SHAPE(2, 2));
    NdArray *device = host;
    if (nd_gpu_available())
        device = nd_to_device(host, ND_CUDA);
    else
        host->device = ND_CUDA;
    EXPECT_ND_ERROR(nd_savez_compressed(in_scratch("gpu.npz"), 1,
                                        (const char *[]){"l0/W"}, &device),
                    "the array of 'l0/W' is on the GPU");
    EXPECT_MESSAGE_HAS("nd_to_device(a, ND_CPU)");
    if (device != host)
        nd_release(device);
    host->device = ND_CPU;
    nd_release(host);
    struct stat st;
    assert_int_not_equal(stat(in_scratch("gpu.npz"), &st), 0);
}

/* ------------------------------------------------------------ reading */

/* The .npz file that NumPy wrote, in the scratch folder. */
static const char *numpy_npz(void)
{
    const char *path = in_scratch("numpy_wrote.npz");
    write_file(path, numpy_wrote_npz, sizeof numpy_wrote_npz);
    return path;
}

static void test_reads_what_numpy_wrote(void **state)
{
    (void)state;
    NdNpz *npz = nd_npz_open(numpy_npz());
    static const char *const want[] = {
        "l0/W", "l0/b", "step", "mask", "pixels", "z64", "z128", "empty",
        "fortran", "big_endian", "int32", "text", "objects"};
    int count;
    const char *const *keys = nd_npz_keys(npz, &count);
    assert_int_equal(count, 13);
    for (int i = 0; i < count; i++)
        assert_string_equal(keys[i], want[i]);

    NdArray *a = nd_npz_get(npz, "l0/W");
    EXPECT_ARRAY(a, ND_FLOAT32, ND_SHAPE(2, 3), 0, 0.25, 0.5, 0.75, 1, 1.25);
    nd_release(a);
    a = nd_npz_get(npz, "l0/b");
    EXPECT_ARRAY(a, ND_FLOAT32, ND_SHAPE(3), -1.5, 0, 2.25);
    nd_release(a);
    a = nd_npz_get(npz, "step");
    EXPECT_ARRAY(a, ND_INT64, ND_SCALAR_SHAPE, 7);
    nd_release(a);
    a = nd_npz_get(npz, "mask");
    EXPECT_ARRAY(a, ND_BOOL, ND_SHAPE(4), 1, 0, 1, 1);
    nd_release(a);
    a = nd_npz_get(npz, "pixels");
    EXPECT_ARRAY(a, ND_UINT8, ND_SHAPE(2, 2), 0, 128, 255, 7);
    nd_release(a);
    a = nd_npz_get(npz, "z64");
    EXPECT_ARRAY(a, ND_COMPLEX64, ND_SHAPE(2), 1, 0);
    assert_memory_equal(a->data, ((const float[]){1, 2, -0.0f, -3.5f}),
                        4 * sizeof(float));
    nd_release(a);
    a = nd_npz_get(npz, "z128");
    assert_memory_equal(a->data, ((const double[]){0.25, -1}),
                        2 * sizeof(double));
    EXPECT_ARRAY(a, ND_COMPLEX128, ND_SCALAR_SHAPE, 0.25);
    nd_release(a);
    a = nd_npz_get(npz, "empty");
    EXPECT_ARRAY(a, ND_FLOAT64, ND_SHAPE(0, 3), 0);
    nd_release(a);
    /* stored column by column; read back into C order */
    a = nd_npz_get(npz, "fortran");
    EXPECT_ARRAY(a, ND_FLOAT64, ND_SHAPE(2, 3), 0, 1, 2, 3, 4, 5);
    nd_release(a);
    /* the member's own name finds it too, as in np.load */
    a = nd_npz_get(npz, "step.npy");
    EXPECT_ARRAY(a, ND_INT64, ND_SCALAR_SHAPE, 7);
    nd_release(a);
    nd_npz_close(npz);
}

/* The dtypes nd.h lacks are refused, naming the file, the key, the
 * dtype and the dtypes it takes. */
static void test_other_dtypes_are_refused(void **state)
{
    (void)state;
    const char *path = numpy_npz();
    NdNpz *npz = nd_npz_open(path);
    EXPECT_ND_ERROR(nd_npz_get(npz, "big_endian"), "nd_npz_get: ");
    EXPECT_MESSAGE_HAS(path);
    EXPECT_MESSAGE_HAS("key 'big_endian': its dtype '>f8' (big-endian) is "
                       "not one this reader takes: '|b1' (bool), '|u1' "
                       "(uint8), '<i8' (int64), '<f4' (float32), '<f8' "
                       "(float64), '<c8' (complex64) and '<c16' "
                       "(complex128)");
    EXPECT_ND_ERROR(nd_npz_get(npz, "int32"), "key 'int32': its dtype "
                    "'<i4' is not one this reader takes");
    EXPECT_MESSAGE_HAS(".astype()");
    EXPECT_ND_ERROR(nd_npz_get(npz, "text"), "its dtype '<U3' (strings)");
    EXPECT_ND_ERROR(nd_npz_get(npz, "objects"),
                    "its dtype '|O' (Python objects)");
    nd_npz_close(npz);
}

static void test_a_missing_key_lists_the_keys(void **state)
{
    (void)state;
    const char *path = in_scratch("two.npz");
    NdArray *a = nd_scalar(1);
    nd_savez_compressed(path, 2, (const char *[]){"l0/W", "l0/b"},
                        (NdArray *[]){a, a});
    nd_release(a);
    NdNpz *npz = nd_npz_open(path);
    EXPECT_ND_ERROR(nd_npz_get(npz, "l1/W"), "nd_npz_get: ");
    EXPECT_MESSAGE_HAS(path);
    EXPECT_MESSAGE_HAS("no array named 'l1/W'; its keys are 'l0/W', "
                       "'l0/b'");
    nd_npz_close(npz);

    /* a long list is cut short, with the count */
    const char *many = in_scratch("cases.npz");
    save_cases(many);
    npz = nd_npz_open(many);
    EXPECT_ND_ERROR(nd_npz_get(npz, "W"), "its keys are 'bool ()', 'bool "
                    "(3,)', ");
    EXPECT_MESSAGE_HAS(", ... (28 in all)");
    nd_npz_close(npz);
}

/* ------------------------------------------------------------ bad files */

static void test_files_that_are_not_npz(void **state)
{
    (void)state;
    EXPECT_ND_ERROR(nd_npz_open(in_scratch("absent.npz")),
                    "nd_npz_open: ");
    EXPECT_MESSAGE_HAS("absent.npz: no such file");

    const char *path = in_scratch("empty.npz");
    write_file(path, "", 0);
    EXPECT_ND_ERROR(nd_npz_open(path), "empty.npz: the file is empty");

    path = in_scratch("text.npz");
    write_file(path, "hello, not a zip archive\n", 25);
    EXPECT_ND_ERROR(nd_npz_open(path), "text.npz: not a zip archive, so not "
                    "an .npz file");

    /* np.save's file, one array, given for np.savez's */
    path = in_scratch("one.npy");
    write_file(path, numpy_npy[1].bytes, numpy_npy[1].length);
    EXPECT_ND_ERROR(nd_npz_open(path), "one.npy: it is a .npy file, one "
                    "array, not an .npz archive");

    EXPECT_ND_ERROR(nd_npz_open(scratch), "it is a folder");
}

static void test_a_truncated_archive(void **state)
{
    (void)state;
    const char *whole = in_scratch("whole.npz");
    save_cases(whole);
    size_t n;
    unsigned char *bytes = read_file(whole, &n);
    const char *path = in_scratch("cut.npz");
    write_file(path, bytes, n / 2);
    EXPECT_ND_ERROR(nd_npz_open(path), "cut.npz: it starts as a zip "
                    "archive but its end (the central directory) is "
                    "missing");
    EXPECT_MESSAGE_HAS("a truncated copy?");
    write_file(path, bytes, n - 1);
    EXPECT_ND_ERROR(nd_npz_open(path), "cut.npz: it starts as a zip archive");
    free(bytes);
}

/* The offset of the first member's data: after its local header (30
 * bytes, its name and its extra field). */
static size_t first_data(const unsigned char *bytes)
{
    return 30 + (bytes[26] | bytes[27] << 8) + (bytes[28] | bytes[29] << 8);
}

/* A byte of compressed data changed, or a checksum that disagrees with
 * the data: an error naming the key, not a crash or wrong numbers. */
static void test_a_corrupt_archive(void **state)
{
    (void)state;
    const char *whole = in_scratch("whole.npz");
    save_cases(whole);
    size_t n;
    unsigned char *bytes = read_file(whole, &n);
    const char *path = in_scratch("corrupt.npz");

    /* the first DEFLATE block's type made 3, which does not exist */
    unsigned char *copy = malloc(n);
    assert_non_null(copy);
    memcpy(copy, bytes, n);
    copy[first_data(copy)] |= 0x06;
    write_file(path, copy, n);
    NdNpz *npz = nd_npz_open(path);
    EXPECT_ND_ERROR(nd_npz_get(npz, case_key(0)), "corrupt.npz: key 'bool "
                    "()': its compressed data is corrupt (libzip: Zlib "
                    "error");
    EXPECT_MESSAGE_HAS("a corrupt copy? Save it again");
    /* the other members are fine */
    NdArray *a = nd_npz_get(npz, case_key(1));
    expect_case(a, 1);
    nd_release(a);
    nd_npz_close(npz);

    /* the CRC-32 of the first member, in its local header (at 14) and
     * in the central directory (16 bytes into its entry) */
    memcpy(copy, bytes, n);
    unsigned char *central = memmem(copy, n, "PK\1\2", 4);
    assert_non_null(central);
    copy[14] ^= 1;
    central[16] ^= 1;
    write_file(path, copy, n);
    npz = nd_npz_open(path);
    EXPECT_ND_ERROR(nd_npz_get(npz, case_key(0)), "key 'bool ()': its "
                    "CRC-32 checksum does not match its data");
    nd_npz_close(npz);

    /* only in the central directory: the two disagree */
    memcpy(copy, bytes, n);
    central = memmem(copy, n, "PK\1\2", 4);
    central[16] ^= 1;
    write_file(path, copy, n);
    EXPECT_ND_ERROR(nd_npz_open(path), "corrupt.npz: a corrupt zip "
                    "archive: its directory and its members disagree");
    free(copy);
    free(bytes);
}

/* Members that np.load would not read as arrays either. */
static void test_bad_members(void **state)
{
    (void)state;
    static const double two[2] = {1, 2};
    static const double four[4] = {1, 2, 3, 4};
    unsigned char npy[9][256];
    size_t len[9];
    const char *f8 = "{'descr': '<f8', 'fortran_order': False, 'shape': ";
    char header[160];
    snprintf(header, sizeof header, "%s(3,), }", f8);
    len[0] = npy_bytes(npy[0], 1, header, two, sizeof two);
    len[1] = npy_bytes(npy[1], 1, header, four, sizeof four);
    len[2] = npy_bytes(npy[2], 4, "{}", NULL, 0);
    len[3] = npy_bytes(npy[3], 1, "{'descr': '<f8', 'fortran_order': "
                       "False}", NULL, 0);
    snprintf(header, sizeof header, "%s(3), }", f8);
    len[4] = npy_bytes(npy[4], 1, header, NULL, 0);
    len[5] = npy_bytes(npy[5], 2, "{'descr': [('x', '<f8')], "
                       "'fortran_order': False, 'shape': (1,)}", two, 8);
    snprintf(header, sizeof header, "%s(1, 1, 1, 1, 1, 1, 1, 1, 1), }", f8);
    len[6] = npy_bytes(npy[6], 1, header, two, 8);
    snprintf(header, sizeof header, "%s(1000000000,), }", f8);
    len[7] = npy_bytes(npy[7], 1, header, two, sizeof two);
    /* version 3.0 (UTF-8 text), keys in another order, no spaces */
    len[8] = npy_bytes(npy[8], 3, "{'shape':(2,),'descr':'<f8',"
                       "'fortran_order':False}", two, sizeof two);
    const Member members[] = {
        {"short.npy", npy[0], len[0], false},
        {"long.npy", npy[1], len[1], false},
        {"v4.npy", npy[2], len[2], false},
        {"noshape.npy", npy[3], len[3], false},
        {"notuple.npy", npy[4], len[4], false},
        {"fields.npy", npy[5], len[5], false},
        {"nine.npy", npy[6], len[6], false},
        {"huge.npy", npy[7], len[7], false},
        {"huge_deflated.npy", npy[7], len[7], true},
        {"v3.npy", npy[8], len[8], false},
        {"notes.txt", "just text", 9, false},
    };
    const char *path = in_scratch("bad.npz");
    write_archive(path, 11, members);
    NdNpz *npz = nd_npz_open(path);
    NdArray *a = nd_npz_get(npz, "v3");
    EXPECT_ARRAY(a, ND_FLOAT64, ND_SHAPE(2), 1, 2);
    nd_release(a);
    EXPECT_ND_ERROR(nd_npz_get(npz, "short"), "bad.npz: key 'short': it is "
                    "truncated: its data ends after 16 of the 24 bytes its "
                    "header announces for a float64 array of shape (3,)");
    EXPECT_ND_ERROR(nd_npz_get(npz, "long"), "key 'long': it holds more "
                    "data than the 24 bytes its header announces");
    EXPECT_ND_ERROR(nd_npz_get(npz, "v4"), "key 'v4': its .npy format is "
                    "version 4.0; this reader takes 1.0, 2.0 and 3.0");
    EXPECT_ND_ERROR(nd_npz_get(npz, "noshape"), "key 'noshape': bad .npy "
                    "header (no key 'shape'): {'descr': '<f8', "
                    "'fortran_order': False}");
    EXPECT_ND_ERROR(nd_npz_get(npz, "notuple"), "bad .npy header ('shape' "
                    "is not a tuple)");
    EXPECT_ND_ERROR(nd_npz_get(npz, "fields"), "key 'fields': its dtype is "
                    "a structured one");
    EXPECT_ND_ERROR(nd_npz_get(npz, "nine"), "key 'nine': its array has "
                    "more than 8 dimensions");
    EXPECT_ND_ERROR(nd_npz_get(npz, "huge"), "key 'huge': its header "
                    "announces a float64 array of shape (1000000000,), "
                    "8000000000 bytes, more than its compressed data can "
                    "hold");
    EXPECT_ND_ERROR(nd_npz_get(npz, "huge_deflated"), "more than its "
                    "compressed data can hold");
    EXPECT_ND_ERROR(nd_npz_get(npz, "notes.txt"), "key 'notes.txt': it is "
                    "not a .npy array");
    nd_npz_close(npz);
}

/* A bool member whose bytes are not all 0 and 1, as a hostile or
 * foreign writer may leave them: np.load keeps the bytes, and NumPy
 * 1.24 (Debian's) then reads every byte but 0 as True:
 *     a = np.frombuffer(b'\x00\x02\xff', '|b1')
 *     a.sum() -> 2;  a.astype(np.uint8) -> [0 1 1];
 *     a.astype(np.float64) -> [0. 1. 1.]
 * Here each is made 0 or 1 on loading: the same numbers, and no _Bool
 * that holds 2 (undefined behaviour, which UBSan reports). */
static void test_bools_other_than_0_and_1(void **state)
{
    (void)state;
    unsigned char npy[128];
    size_t n = npy_bytes(npy, 1, "{'descr': '|b1', 'fortran_order': False, "
                         "'shape': (3,), }", "\x00\x02\xff", 3);
    const char *path = in_scratch("bools.npz");
    write_archive(path, 1, (const Member[]){{"b.npy", npy, n, true}});
    NdNpz *npz = nd_npz_open(path);
    NdArray *a = nd_npz_get(npz, "b");
    nd_npz_close(npz);
    const unsigned char *bytes = a->data;
    assert_int_equal(bytes[0], 0);
    assert_int_equal(bytes[1], 1);
    assert_int_equal(bytes[2], 1);
    NdArray *sum = nd_sum(a, ND_ALL_AXES, false);
    EXPECT_ARRAY(sum, ND_INT64, ND_SCALAR_SHAPE, 2);
    NdArray *u8 = nd_astype(a, ND_UINT8);
    EXPECT_ARRAY(u8, ND_UINT8, ND_SHAPE(3), 0, 1, 1);
    NdArray *f8 = nd_astype(a, ND_FLOAT64);
    EXPECT_ARRAY(f8, ND_FLOAT64, ND_SHAPE(3), 0, 1, 1);
    nd_release(f8);
    nd_release(u8);
    nd_release(sum);
    nd_release(a);
}

/* A hostile file's text reaches a message escaped: bytes that are not
 * printable ASCII as \xNN, so that no escape sequence in a header or a
 * member's name clears the terminal or retitles its window. */
static void test_file_text_is_escaped(void **state)
{
    (void)state;
    unsigned char npy[2][256];
    size_t len[2];
    len[0] = npy_bytes(npy[0], 1, "{'descr': '\x1b[2J', 'fortran_order': "
                       "False, 'shape': (1,), }", "x", 1);
    len[1] = npy_bytes(npy[1], 1, "{'descr': '<f8', 'fortran_order': "
                       "False, 'shape': (1,), \x1b]0;owned\x07}", NULL, 0);
    const char *path = in_scratch("hostile.npz");
    write_archive(path, 3, (const Member[]){
        {"clear.npy", npy[0], len[0], false},
        {"title.npy", npy[1], len[1], false},
        /* U+009B, the terminal's one-byte CSI, in UTF-8 (libzip turns
         * an ESC in a name into U+2190, as code page 437 has it) */
        {"\xc2\x9b" "31mred\\.npy", npy[1], len[1], false},
    });
    NdNpz *npz = nd_npz_open(path);
    EXPECT_ND_ERROR(nd_npz_get(npz, "clear"), "key 'clear': its dtype "
                    "'\\x1b[2J' is not one this reader takes");
    EXPECT_ND_ERROR(nd_npz_get(npz, "title"), "key 'title': bad .npy "
                    "header (a key that is not a quoted name and ':'): "
                    "{'descr': '<f8', 'fortran_order': False, 'shape': "
                    "(1,), \\x1b]0;owned\\x07}");
    EXPECT_ND_ERROR(nd_npz_get(npz, "\xc2\x9b" "31mred\\"), "key "
                    "'\\xc2\\x9b31mred\\\\': bad .npy header");
    EXPECT_ND_ERROR(nd_npz_get(npz, "absent"), "its keys are 'clear', "
                    "'title', '\\xc2\\x9b31mred\\\\'");
    nd_npz_close(npz);

    /* a long header is quoted cut short, and says so */
    char header[512];
    snprintf(header, sizeof header, "{'descr': '<f8', 'fortran_order': "
             "False, 'shape': (1,), 'notes': '%0400d'}", 0);
    unsigned char long_npy[600];
    size_t long_len = npy_bytes(long_npy, 1, header, NULL, 0);
    write_archive(path, 1, (const Member[]){{"long.npy", long_npy,
                                             long_len, false}});
    npz = nd_npz_open(path);
    EXPECT_ND_ERROR(nd_npz_get(npz, "long"), "key 'long': bad .npy header "
                    "(an unexpected key 'notes'): {'descr': '<f8', ");
    EXPECT_MESSAGE_HAS("00000000...");
    nd_npz_close(npz);
}

/* ------------------------------------------------------------ NumPy */

/* The cases as a Python list: (key, descr, shape, seed). */
static void python_cases(char *text, size_t size)
{
    size_t n = (size_t)snprintf(text, size, "cases = [\n");
    for (int c = 0; c < NUM_CASES; c++)
        n += (size_t)snprintf(text + n, size - n, "    ('%s', '%s', %s, "
                              "%d),\n", case_key(c),
                              numpy_descr[case_dtype(c)],
                              shapes[c % NUM_SHAPES].python, c);
    snprintf(text + n, size - n, "]\n");
}

/* np.load reads what nd_savez_compressed writes: the keys in order, and
 * every array's dtype, shape and bytes. */
static void test_numpy_reads_what_we_write(void **state)
{
    (void)state;
    if (!have_numpy())
        skip();
    const char *path = in_scratch("c_wrote.npz");
    save_cases(path);
    static char script[8192];
    python_cases(script, sizeof script);
    strcat(script,
           "import sys\n"
           "import numpy as np\n" PYTHON_PATTERN
           "with np.load(sys.argv[1], allow_pickle=False) as npz:\n"
           "    assert npz.files == [c[0] for c in cases], npz.files\n"
           "    for key, descr, shape, seed in cases:\n"
           "        a = npz[key]\n"
           "        assert a.dtype.str == descr, (key, a.dtype.str)\n"
           "        assert a.shape == shape, (key, a.shape)\n"
           "        assert a.flags['C_CONTIGUOUS'], key\n"
           "        assert a.tobytes() == pattern(descr, seed, a.nbytes), "
           "key\n");
    run_python(script, path);
}

/* nd_npz_get reads what np.savez_compressed writes: the same cases, and
 * an array in Fortran order. */
static void test_we_read_what_numpy_writes(void **state)
{
    (void)state;
    if (!have_numpy())
        skip();
    const char *path = in_scratch("python_wrote.npz");
    static char script[8192];
    python_cases(script, sizeof script);
    strcat(script,
           "import sys\n"
           "import numpy as np\n" PYTHON_PATTERN
           "arrays = {key: np.frombuffer(pattern(descr, seed, "
           "int(np.prod(shape)) * np.dtype(descr).itemsize), "
           "dtype=descr).reshape(shape)\n"
           "          for key, descr, shape, seed in cases}\n"
           "arrays['fortran'] = np.asfortranarray(np.arange(24.0)"
           ".reshape(2, 3, 4))\n"
           "np.savez_compressed(sys.argv[1], **arrays)\n");
    run_python(script, path);
    NdNpz *npz = nd_npz_open(path);
    int count;
    const char *const *keys = nd_npz_keys(npz, &count);
    assert_int_equal(count, NUM_CASES + 1);
    for (int c = 0; c < NUM_CASES; c++) {
        assert_string_equal(keys[c], case_key(c));
        NdArray *a = nd_npz_get(npz, case_key(c));
        expect_case(a, c);
        nd_release(a);
    }
    NdArray *a = nd_npz_get(npz, "fortran");
    NdArray *r = nd_arange(0, 24, 1, ND_FLOAT64);
    NdArray *want = nd_reshape(r, ND_SHAPE(2, 3, 4));
    assert_true(nd_array_equal(a, want));
    assert_int_equal(a->ndim, 3);
    nd_release(want);
    nd_release(r);
    nd_release(a);
    nd_npz_close(npz);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_dtype_and_shape_round_trip),
        cmocka_unit_test(test_members_are_what_numpy_writes),
        cmocka_unit_test(test_members_are_deflated_and_named_key_npy),
        cmocka_unit_test(test_npz_is_appended_to_the_path),
        cmocka_unit_test(test_no_arrays_make_an_empty_archive),
        cmocka_unit_test(test_a_failed_write_leaves_nothing),
        cmocka_unit_test(test_misuses_are_refused),
        cmocka_unit_test(test_a_device_array_is_refused),
        cmocka_unit_test(test_reads_what_numpy_wrote),
        cmocka_unit_test(test_other_dtypes_are_refused),
        cmocka_unit_test(test_a_missing_key_lists_the_keys),
        cmocka_unit_test(test_files_that_are_not_npz),
        cmocka_unit_test(test_a_truncated_archive),
        cmocka_unit_test(test_a_corrupt_archive),
        cmocka_unit_test(test_bad_members),
        cmocka_unit_test(test_bools_other_than_0_and_1),
        cmocka_unit_test(test_file_text_is_escaped),
        cmocka_unit_test(test_numpy_reads_what_we_write),
        cmocka_unit_test(test_we_read_what_numpy_writes),
    };
    return cmocka_run_group_tests(tests, make_scratch, remove_scratch);
}
