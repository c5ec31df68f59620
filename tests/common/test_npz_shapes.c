/* test_npz_shapes.c - an .npz member whose shape holds a 0 beside huge
 * extents (issue 28, case 2): NumPy refuses such a shape ("array is too
 * big": np.zeros((0, 2**63 - 1, 2**63 - 1)) raises it), as a 0 does not
 * excuse the other extents, and so does the reader, with a message that
 * names the file and the key, where it read the array before and left
 * transpose and getitem to overflow their strides. A 0 beside extents
 * that fit still reads, as an empty array of that shape. */
#include <zip.h>

#include "nd_test.h"
#include "npz.h"
#include "scratch.h"

/* An .npz at path of one stored member, a.npy: a version 1.0 .npy with
 * the float64 header of shape (shape text) and no data. */
static void write_empty_member(const char *path, const char *shape)
{
    char header[200];
    snprintf(header, sizeof header, "{'descr': '<f8', 'fortran_order': "
             "False, 'shape': %s, }", shape);
    size_t length = strlen(header);
    unsigned char npy[256];
    memcpy(npy, "\x93NUMPY\x01\x00", 8);
    npy[8] = (unsigned char)length;
    npy[9] = (unsigned char)(length >> 8);
    memcpy(npy + 10, header, length);
    int code;
    zip_t *archive = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &code);
    assert_non_null(archive);
    zip_source_t *source = zip_source_buffer(archive, npy, 10 + length, 0);
    assert_non_null(source);
    zip_int64_t index = zip_file_add(archive, "a.npy", source, 0);
    assert_true(index >= 0);
    assert_int_equal(zip_set_file_compression(archive, (zip_uint64_t)index,
                                              ZIP_CM_STORE, 0), 0);
    assert_int_equal(zip_close(archive), 0);
}

static void test_huge_extents_beside_a_zero_are_refused(void **state)
{
    (void)state;
    const char *path = in_scratch("huge.npz");
    write_empty_member(path, "(0, 9223372036854775807, "
                             "9223372036854775807)");
    NdNpz *npz = nd_npz_open(path);
    EXPECT_ND_ERROR(nd_npz_get(npz, "a"), "huge.npz");
    EXPECT_MESSAGE_HAS("its header announces more elements than an array "
                       "can hold");
    nd_npz_close(npz);
}

static void test_extents_that_fit_beside_a_zero_read(void **state)
{
    (void)state;
    const char *path = in_scratch("empty.npz");
    write_empty_member(path, "(0, 536870912, 536870912)");
    NdNpz *npz = nd_npz_open(path);
    NdArray *a = nd_npz_get(npz, "a");
    assert_int_equal(a->ndim, 3);
    assert_int_equal(a->size, 0);
    assert_int_equal(a->shape[2], 536870912);
    nd_release(a);
    nd_npz_close(npz);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_huge_extents_beside_a_zero_are_refused),
        cmocka_unit_test(test_extents_that_fit_beside_a_zero_read),
    };
    return cmocka_run_group_tests(tests, make_scratch, remove_scratch);
}
