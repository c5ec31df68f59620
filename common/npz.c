/* npz.c - the .npz reader and writer of npz.h. An .npz file is a zip
 * archive (libzip reads and writes it) whose members are .npy files:
 * the magic "\x93NUMPY", a format version, the length of a header that
 * is the repr() of a Python dict, then the elements in C order. The
 * header is written byte for byte as NumPy writes it, and read by a
 * small parser of the Python literals it holds. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zip.h>

#include "npz.h"
#include "nd_internal.h"
#include "tempfile.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "the elements go to and from .npy files as they are in "
               "memory, which the dtypes below say is little-endian");

/* ------------------------------------------------------------ .npy */

static const char npy_magic[6] = "\x93NUMPY";
enum {
    NPY_PREFIX = 8,             /* the magic and the version (major, minor) */
    NPY_ALIGN = 64,             /* the elements start at a multiple of it */
    NPY_GROWTH_DIGITS = 21,     /* room for the first extent to grow to */
    NPY_MAX_HEADER = 10000,     /* NumPy's limit on the dict's length */
    NPY_HEADER_ROOM = 512,      /* the longest header an NdArray needs */
    NPY_DESCR_ROOM = 32,
};

/* The descr (dtype.str) NumPy writes for each dtype of nd.h. */
static const char *const npy_descr[ND_NUM_DTYPES] = {
    [ND_BOOL] = "|b1",      [ND_UINT8] = "|u1",      [ND_INT64] = "<i8",
    [ND_FLOAT32] = "<f4",   [ND_FLOAT64] = "<f8",    [ND_COMPLEX64] = "<c8",
    [ND_COMPLEX128] = "<c16",
};
#define SUPPORTED_DTYPES                                                  \
    "'|b1' (bool), '|u1' (uint8), '<i8' (int64), '<f4' (float32), "       \
    "'<f8' (float64), '<c8' (complex64) and '<c16' (complex128)"

/* a's .npy header, byte for byte what NumPy 1.24's np.save writes
 * (format 1.0): the magic, version 1.0, the length of the rest (16
 * bits, little-endian), then the dict with its keys sorted, spaces for
 * the first extent to grow to 21 digits, and spaces up to a '\n' that
 * ends it at a multiple of 64 bytes (64 more when it would end on one
 * already). Returns its length. */
static size_t npy_header(const NdArray *a, char header[NPY_HEADER_ROOM])
{
    char shape[ND_SHAPE_TEXT];
    char *dict = header + NPY_PREFIX + 2;
    int n = sprintf(dict, "{'descr': '%s', 'fortran_order': False, "
                    "'shape': %s, }", npy_descr[a->dtype],
                    nd_format_shape(shape, a->ndim, a->shape, true));
    if (a->ndim > 0) {
        char first[24];
        int digits = sprintf(first, "%" PRId64, a->shape[0]);
        n += sprintf(dict + n, "%*s", NPY_GROWTH_DIGITS - digits, "");
    }
    size_t pad = NPY_ALIGN - (NPY_PREFIX + 2 + (size_t)n + 1) % NPY_ALIGN;
    memset(dict + n, ' ', pad);
    size_t length = (size_t)n + pad + 1;
    dict[length - 1] = '\n';
    memcpy(header, npy_magic, sizeof npy_magic);
    header[6] = 1;
    header[7] = 0;
    header[8] = (char)(length & 0xff);
    header[9] = (char)(length >> 8);
    return NPY_PREFIX + 2 + length;
}

/* What a .npy header says. */
typedef struct NpyHeader {
    NdDtype dtype;
    bool fortran_order;
    int ndim;
    int64_t shape[ND_MAX_DIMS];
} NpyHeader;

/* A position in the header's text, and where the text ends. */
typedef struct Cursor {
    const char *at, *end;
} Cursor;

static void skip_space(Cursor *c)
{
    while (c->at < c->end && (*c->at == ' ' || *c->at == '\t' ||
                              *c->at == '\n' || *c->at == '\r'))
        c->at++;
}

/* Takes ch (after any space); false, taking nothing, when it is not
 * next. */
static bool take(Cursor *c, char ch)
{
    skip_space(c);
    if (c->at < c->end && *c->at == ch) {
        c->at++;
        return true;
    }
    return false;
}

/* Takes a Python name such as True, whole. */
static bool take_name(Cursor *c, const char *name)
{
    skip_space(c);
    size_t n = strlen(name);
    if ((size_t)(c->end - c->at) < n || memcmp(c->at, name, n) != 0)
        return false;
    const char *after = c->at + n;
    if (after < c->end && (*after == '_' || (*after >= '0' && *after <= '9')
                           || ((*after | 0x20) >= 'a' &&
                               (*after | 0x20) <= 'z')))
        return false;
    c->at = after;
    return true;
}

/* Takes a string in quotes, '...' or "...", without escapes, into text
 * (size bytes with its '\0'). */
static bool take_string(Cursor *c, char *text, size_t size)
{
    skip_space(c);
    if (c->at >= c->end || (*c->at != '\'' && *c->at != '"'))
        return false;
    char quote = *c->at;
    const char *start = c->at + 1, *stop = start;
    while (stop < c->end && *stop != quote && *stop != '\\' && *stop)
        stop++;
    if (stop >= c->end || *stop != quote || (size_t)(stop - start) >= size)
        return false;
    memcpy(text, start, (size_t)(stop - start));
    text[stop - start] = '\0';
    c->at = stop + 1;
    return true;
}

/* Takes a non-negative integer (Python 2 wrote a long with an L). */
static bool take_extent(Cursor *c, int64_t *value)
{
    skip_space(c);
    if (c->at >= c->end || *c->at < '0' || *c->at > '9')
        return false;
    int64_t v = 0;
    while (c->at < c->end && *c->at >= '0' && *c->at <= '9') {
        if (__builtin_mul_overflow(v, 10, &v) ||
            __builtin_add_overflow(v, *c->at - '0', &v))
            return false;
        c->at++;
    }
    if (c->at < c->end && *c->at == 'L')
        c->at++;
    *value = v;
    return true;
}

/* The dtype of nd.h that descr names; false for any other. A one-byte
 * dtype may carry any byte-order mark ('|u1', '<u1'); a wider one is
 * little-endian ('<f8', or '=' for the machine's order, little here). */
static bool dtype_of_descr(const char *descr, NdDtype *dtype)
{
    for (int d = 0; d < ND_NUM_DTYPES; d++) {
        if (!descr[0] || !strchr("<>|=", descr[0]) ||
            strcmp(descr + 1, npy_descr[d] + 1) != 0)
            continue;
        if (nd_dtype_size((NdDtype)d) == 1 || descr[0] == '<' ||
            descr[0] == '=') {
            *dtype = (NdDtype)d;
            return true;
        }
    }
    return false;
}

/* ------------------------------------------------------------ reading */

struct NdNpz {
    char *path;
    zip_t *archive;
    int64_t file_size;          /* bytes, to bound what a member holds */
    int count;
    char **keys;                /* count of them, members less ".npy" */
};

/* One member being read, as idx.c reads a file: a step that fails
 * writes what went wrong into problem and returns false; the caller
 * frees everything, then reports it, so that an error leaks nothing (a
 * test's handler longjmps). */
typedef struct MemberReader {
    zip_file_t *file;
    uint64_t most_bytes;        /* the most its compressed bytes can give */
    NpyHeader header;
    NdArray *array;
    char text[NPY_MAX_HEADER + 1];  /* the header's dict */
    char problem[768];
} MemberReader;

__attribute__((format(printf, 2, 3)))
static bool fail(MemberReader *r, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(r->problem, sizeof r->problem, format, args);
    va_end(args);
    return false;
}

/* Reads up to n bytes into buffer; returns how many (fewer only at the
 * end of the member) or -1 with the problem written. libzip checks the
 * member's CRC-32 once its end is read. */
static int64_t read_bytes(MemberReader *r, void *buffer, size_t n)
{
    size_t done = 0;
    while (done < n) {
        zip_int64_t got = zip_fread(r->file, (char *)buffer + done,
                                    n - done);
        if (got == 0)
            break;
        if (got > 0) {
            done += (size_t)got;
            continue;
        }
        zip_error_t *error = zip_file_get_error(r->file);
        const char *why = zip_error_strerror(error);
        switch (zip_error_code_zip(error)) {
        case ZIP_ER_CRC:
            fail(r, "its CRC-32 checksum does not match its data "
                 "(libzip: %s): a corrupt copy? Save it again", why);
            break;
        case ZIP_ER_ZLIB:
        case ZIP_ER_COMPRESSED_DATA:
            fail(r, "its compressed data is corrupt (libzip: %s): a "
                 "corrupt copy? Save it again", why);
            break;
        case ZIP_ER_EOF:
            fail(r, "it is truncated (libzip: %s): a partial copy? Save "
                 "it again", why);
            break;
        default:
            fail(r, "cannot read it: libzip: %s", why);
        }
        return -1;
    }
    return (int64_t)done;
}

/* An unsigned little-endian number of n bytes. */
static uint32_t little_endian(const unsigned char *b, int n)
{
    uint32_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

/* Room for the header's text, or a part of it, as messages quote it:
 * escaped (nd_escape), and cut after some 300 characters. */
enum { SHOWN_TEXT = 304 };

/* The header's text as a message shows it, into shown. */
static const char *header_text(const MemberReader *r,
                               char shown[SHOWN_TEXT])
{
    return nd_escape(shown, SHOWN_TEXT, r->text, strlen(r->text));
}

/* A string the header holds (a key, a dtype) as a message shows it. */
static const char *quoted(const char *text, char shown[SHOWN_TEXT])
{
    return nd_escape(shown, SHOWN_TEXT, text, strlen(text));
}

__attribute__((format(printf, 2, 3)))
static bool bad_header(MemberReader *r, const char *format, ...)
{
    char why[SHOWN_TEXT + 64], shown[SHOWN_TEXT];
    va_list args;
    va_start(args, format);
    vsnprintf(why, sizeof why, format, args);
    va_end(args);
    return fail(r, "bad .npy header (%s): %s", why, header_text(r, shown));
}

static bool unsupported_dtype(MemberReader *r, const char *descr)
{
    char little[NPY_DESCR_ROOM], shown[SHOWN_TEXT];
    NdDtype dtype;
    const char *why = "";
    const char *kind = descr[0] ? descr + 1 : "";
    snprintf(little, sizeof little, "<%s", kind);
    if (descr[0] == '>' && dtype_of_descr(little, &dtype))
        why = " (big-endian)";
    else if (kind[0] == 'O')
        why = " (Python objects)";
    else if (kind[0] == 'U' || kind[0] == 'S')
        why = " (strings)";
    return fail(r, "its dtype '%s'%s is not one this reader takes: "
                "%s; convert the array with .astype() before saving",
                quoted(descr, shown), why, SUPPORTED_DTYPES);
}

/* The shape's tuple, "(2, 3)", "(3,)" or "()". */
static bool parse_shape(MemberReader *r, Cursor *c)
{
    NpyHeader *h = &r->header;
    if (!take(c, '('))
        return bad_header(r, "'shape' is not a tuple");
    h->ndim = 0;
    bool comma = false;
    while (!take(c, ')')) {
        int64_t extent;
        if (!take_extent(c, &extent))
            return bad_header(r, "'shape' holds something other than "
                              "non-negative integers");
        char shown[SHOWN_TEXT];
        if (h->ndim == ND_MAX_DIMS)
            return fail(r, "its array has more than %d dimensions, the "
                        "most an NdArray has: %s", ND_MAX_DIMS,
                        header_text(r, shown));
        h->shape[h->ndim++] = extent;
        comma = take(c, ',');
        if (!comma && !take(c, ')'))
            return bad_header(r, "'shape' is not a tuple");
        if (!comma)
            break;
    }
    if (h->ndim == 1 && !comma)
        return bad_header(r, "'shape' is not a tuple");
    return true;
}

/* The dict: the keys 'descr', 'fortran_order' and 'shape', each once,
 * in any order. */
static bool parse_header(MemberReader *r, size_t length)
{
    NpyHeader *h = &r->header;
    Cursor c = {r->text, r->text + length};
    static const char *const keys[] = {"descr", "fortran_order", "shape"};
    bool seen[3] = {false};
    char descr[NPY_DESCR_ROOM] = "";
    if (!take(&c, '{'))
        return bad_header(r, "it is not a dict");
    while (!take(&c, '}')) {
        char key[32], shown[SHOWN_TEXT];
        int k = 0;
        if (!take_string(&c, key, sizeof key) || !take(&c, ':'))
            return bad_header(r, "a key that is not a quoted name and ':'");
        while (k < 3 && strcmp(key, keys[k]) != 0)
            k++;
        if (k == 3)
            return bad_header(r, "an unexpected key '%s'",
                              quoted(key, shown));
        if (seen[k])
            return bad_header(r, "the key '%s' twice", key);
        seen[k] = true;
        skip_space(&c);
        if (k == 0 && c.at < c.end && *c.at == '[')
            return fail(r, "its dtype is a structured one (a list of "
                        "fields); this reader takes %s", SUPPORTED_DTYPES);
        if (k == 0 && !take_string(&c, descr, sizeof descr))
            return bad_header(r, "'descr' is not a quoted dtype");
        if (k == 1 && take_name(&c, "True"))
            h->fortran_order = true;
        else if (k == 1 && take_name(&c, "False"))
            h->fortran_order = false;
        else if (k == 1)
            return bad_header(r, "'fortran_order' is neither True nor "
                              "False");
        if (k == 2 && !parse_shape(r, &c))
            return false;
        if (!take(&c, ',')) {
            if (!take(&c, '}'))
                return bad_header(r, "no ',' or '}' after the value of "
                                  "'%s'", key);
            break;
        }
    }
    skip_space(&c);
    if (c.at != c.end)
        return bad_header(r, "more than a dict");
    for (int k = 0; k < 3; k++)
        if (!seen[k])
            return bad_header(r, "no key '%s'", keys[k]);
    if (!dtype_of_descr(descr, &h->dtype))
        return unsupported_dtype(r, descr);
    return true;
}

/* The magic, the version, the header's length and the header. */
static bool read_header(MemberReader *r)
{
    unsigned char prefix[NPY_PREFIX + 4];
    int64_t got = read_bytes(r, prefix, NPY_PREFIX);
    if (got < 0)
        return false;
    if (got < (int64_t)sizeof npy_magic ||
        memcmp(prefix, npy_magic, sizeof npy_magic) != 0)
        return fail(r, "it is not a .npy array: it does not start with "
                    "NumPy's magic \\x93NUMPY (np.load would give its "
                    "raw bytes)");
    if (got < NPY_PREFIX)
        return fail(r, "it ends inside its .npy header");
    int major = prefix[6], minor = prefix[7];
    int length_bytes = major == 1 ? 2 : 4;
    if (major < 1 || major > 3 || minor != 0)
        return fail(r, "its .npy format is version %d.%d; this reader "
                    "takes 1.0, 2.0 and 3.0", major, minor);
    got = read_bytes(r, prefix + NPY_PREFIX, (size_t)length_bytes);
    if (got < 0)
        return false;
    if (got < length_bytes)
        return fail(r, "it ends inside its .npy header");
    uint32_t length = little_endian(prefix + NPY_PREFIX, length_bytes);
    if (length > NPY_MAX_HEADER)
        return fail(r, "its .npy header is %" PRIu32 " bytes long, more "
                    "than NumPy's limit of %d", length, NPY_MAX_HEADER);
    got = read_bytes(r, r->text, length);
    if (got < 0)
        return false;
    r->text[got] = '\0';
    if (got < length)
        return fail(r, "it ends inside its .npy header");
    /* trims the padding for the messages that quote it */
    size_t used = length;
    while (used > 0 && strchr(" \n", r->text[used - 1]))
        used--;
    r->text[used] = '\0';
    return parse_header(r, used);
}

/* The elements the header announces, and not one byte more, into a
 * new array. A header cannot announce more bytes than the member's
 * compressed data can inflate to, so that a small file never makes a
 * huge allocation. */
static bool read_elements(MemberReader *r)
{
    const NpyHeader *h = &r->header;
    /* nonzero: the product of the extents other than 0, which NumPy
     * and nd_check_shape bound as well: a 0 does not excuse the rest */
    int64_t shape[ND_MAX_DIMS], nonzero = 1;
    bool zero = false;
    for (int d = 0; d < h->ndim; d++) {
        /* Fortran order: the elements of the transposed shape, in C
         * order */
        shape[d] = h->fortran_order ? h->shape[h->ndim - 1 - d]
                                    : h->shape[d];
        zero |= shape[d] == 0;
        char shown[SHOWN_TEXT];
        if (shape[d] != 0 &&
            (__builtin_mul_overflow(nonzero, shape[d], &nonzero) ||
             nonzero > ND_MAX_ELEMENTS))
            return fail(r, "its header announces more elements than an "
                        "array can hold: %s", header_text(r, shown));
    }
    int64_t count = zero ? 0 : nonzero;
    size_t total = (size_t)count * nd_dtype_size(h->dtype);
    char text[ND_SHAPE_TEXT];
    const char *shape_text = nd_format_shape(text, h->ndim, h->shape, true);
    if (total > r->most_bytes)
        return fail(r, "its header announces a %s array of shape %s, %zu "
                    "bytes, more than its compressed data can hold: a "
                    "truncated or corrupt copy?", nd_dtype_name(h->dtype),
                    shape_text, total);
    r->array = nd_empty(h->dtype, h->ndim, shape);
    int64_t got = read_bytes(r, r->array->data, total);
    if (got < 0)
        return false;
    if ((size_t)got < total)
        return fail(r, "it is truncated: its data ends after %" PRId64
                    " of the %zu bytes its header announces for a %s "
                    "array of shape %s", got, total,
                    nd_dtype_name(h->dtype), shape_text);
    unsigned char extra;
    got = read_bytes(r, &extra, 1);
    if (got < 0)
        return false;
    if (got > 0)
        return fail(r, "it holds more data than the %zu bytes its header "
                    "announces for a %s array of shape %s", total,
                    nd_dtype_name(h->dtype), shape_text);
    /* A bool is a byte, but a file may hold any byte there: np.load
     * keeps it, and NumPy's sums and casts then read every byte but 0 as
     * True, 1. Here a _Bool holding 2 is undefined behaviour: so each is
     * made 0 or 1 as it arrives, which gives NumPy's numbers. */
    if (h->dtype == ND_BOOL) {
        unsigned char *bytes = r->array->data;
        for (size_t i = 0; i < total; i++)
            bytes[i] = bytes[i] != 0;
    }
    return true;
}

/* The most bytes member index can inflate to: its compressed size
 * (bounded by the file's), once for stored data and 1032 times for
 * DEFLATE's best ratio. False for another compression method. */
static bool member_bound(MemberReader *r, const NdNpz *npz,
                         zip_uint64_t index)
{
    zip_stat_t st;
    if (zip_stat_index(npz->archive, index, 0, &st) != 0)
        return fail(r, "cannot read its entry: libzip: %s",
                    zip_strerror(npz->archive));
    uint64_t packed = (uint64_t)npz->file_size;
    if ((st.valid & ZIP_STAT_COMP_SIZE) && st.comp_size < packed)
        packed = st.comp_size;
    uint16_t method = st.valid & ZIP_STAT_COMP_METHOD ? st.comp_method
                                                      : ZIP_CM_STORE;
    if (method == ZIP_CM_STORE)
        r->most_bytes = packed;
    else if (method == ZIP_CM_DEFLATE)
        r->most_bytes = packed * 1032 + 64;
    else
        return fail(r, "it is compressed with zip method %d; NumPy's "
                    "savez stores or deflates its members, and this "
                    "reader takes those", method);
    return true;
}

/* Reads member index into r->array; false with the problem written,
 * everything freed. */
static bool read_member(MemberReader *r, const NdNpz *npz,
                        zip_uint64_t index)
{
    if (!member_bound(r, npz, index))
        return false;
    r->file = zip_fopen_index(npz->archive, index, 0);
    if (!r->file)
        return fail(r, "cannot open it: libzip: %s",
                    zip_strerror(npz->archive));
    bool ok = read_header(r) && read_elements(r);
    zip_fclose(r->file);
    r->file = NULL;
    if (ok && r->header.fortran_order && r->header.ndim > 1) {
        NdArray *c_order = nd_transpose(r->array, 0, NULL);
        nd_release(r->array);
        r->array = c_order;
    }
    if (!ok) {
        nd_release(r->array);
        r->array = NULL;
    }
    return ok;
}

/* Why zip_open failed with code, into problem: the cases a user meets
 * (a missing file, a file that is not an archive or is cut short, a
 * corrupt one) told apart. */
static void why_not_opened(const char *path, int code, char *problem,
                           size_t size)
{
    zip_error_t error;
    zip_error_init_with_code(&error, code);
    const char *libzip = zip_error_strerror(&error);
    struct stat st;
    unsigned char start[6] = {0};
    FILE *f = code == ZIP_ER_NOZIP ? fopen(path, "rb") : NULL;
    size_t got = f ? fread(start, 1, sizeof start, f) : 0;
    if (f)
        fclose(f);
    if (code == ZIP_ER_NOENT)
        snprintf(problem, size, "no such file");
    else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(problem, size, "it is a folder, not an .npz file");
    else if (code == ZIP_ER_NOZIP && f && got == 0)
        snprintf(problem, size, "the file is empty, not an .npz archive");
    else if (code == ZIP_ER_NOZIP && got >= 4 &&
             memcmp(start, "PK\3\4", 4) == 0)
        snprintf(problem, size, "it starts as a zip archive but its end "
                 "(the central directory) is missing (libzip: %s): a "
                 "truncated copy? Save it again", libzip);
    else if (code == ZIP_ER_NOZIP && got == sizeof npy_magic &&
             memcmp(start, npy_magic, sizeof npy_magic) == 0)
        snprintf(problem, size, "it is a .npy file, one array, not an "
                 ".npz archive of named arrays");
    else if (code == ZIP_ER_NOZIP)
        snprintf(problem, size, "not a zip archive, so not an .npz file "
                 "(libzip: %s)", libzip);
    else if (code == ZIP_ER_INCONS)
        snprintf(problem, size, "a corrupt zip archive: its directory and "
                 "its members disagree (libzip: %s): a damaged copy? Save "
                 "it again", libzip);
    else
        snprintf(problem, size, "cannot open it: libzip: %s", libzip);
    zip_error_fini(&error);
}

NdNpz *nd_npz_open(const char *path)
{
    const char *op = "nd_npz_open";
    if (!path)
        nd_error(op, "the path is NULL");
    char problem[512];
    int code;
    zip_t *archive = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &code);
    if (!archive) {
        why_not_opened(path, code, problem, sizeof problem);
        nd_error(op, "%s: %s", path, problem);
    }
    NdNpz *npz = calloc(1, sizeof *npz);
    if (!npz) {
        zip_discard(archive);
        nd_error(op, "%s: out of memory", path);
    }
    npz->archive = archive;
    struct stat st;
    npz->file_size = stat(path, &st) == 0 ? (int64_t)st.st_size
                                          : INT64_MAX;
    zip_int64_t n = zip_get_num_entries(archive, 0);
    npz->path = strdup(path);
    npz->keys = n >= 0 && n < INT_MAX ? calloc((size_t)n + 1, sizeof(char *))
                                      : NULL;
    problem[0] = '\0';
    if (!npz->path || !npz->keys)
        snprintf(problem, sizeof problem, "out of memory for its %lld "
                 "members", (long long)n);
    for (zip_int64_t i = 0; !problem[0] && i < n; i++) {
        const char *name = zip_get_name(archive, (zip_uint64_t)i, 0);
        char *key = name ? strdup(name) : NULL;
        if (!key) {
            snprintf(problem, sizeof problem, "cannot read the name of "
                     "member %lld: libzip: %s", (long long)i,
                     zip_strerror(archive));
            break;
        }
        size_t len = strlen(key);
        if (len >= 4 && strcmp(key + len - 4, ".npy") == 0)
            key[len - 4] = '\0';
        npz->keys[npz->count++] = key;
    }
    if (problem[0]) {
        nd_npz_close(npz);
        nd_error(op, "%s: %s", path, problem);
    }
    return npz;
}

const char *const *nd_npz_keys(const NdNpz *npz, int *count)
{
    if (!npz || !count)
        nd_error("nd_npz_keys", "npz and count must not be NULL");
    *count = npz->count;
    return (const char *const *)npz->keys;
}

/* Stops with the keys npz holds, the key it was asked for missing. */
static _Noreturn void no_such_key(const NdNpz *npz, const char *key)
{
    char list[400] = "", shown[SHOWN_TEXT];
    size_t n = 0;
    int listed = 0;
    for (; listed < npz->count && n < 300; listed++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s'%s'",
                              listed ? ", " : "",
                              quoted(npz->keys[listed], shown));
    if (n >= sizeof list)           /* a long key filled it: no count */
        n = sizeof list - 1;
    if (listed < npz->count)
        snprintf(list + n, sizeof list - n, ", ... (%d in all)", npz->count);
    nd_error("nd_npz_get", "%s: no array named '%s'; %s%s", npz->path,
             quoted(key, shown), npz->count ? "its keys are "
                                            : "it holds no arrays", list);
}

/* The index of the member named key, else of key + ".npy" (np.load's
 * order); -1 when neither is there. */
static zip_int64_t find_member(const NdNpz *npz, const char *key)
{
    zip_int64_t index = zip_name_locate(npz->archive, key, 0);
    if (index >= 0)
        return index;
    char *name = malloc(strlen(key) + sizeof ".npy");
    if (!name)
        nd_error("nd_npz_get", "%s: out of memory", npz->path);
    strcpy(stpcpy(name, key), ".npy");
    index = zip_name_locate(npz->archive, name, 0);
    free(name);
    return index;
}

NdArray *nd_npz_get(NdNpz *npz, const char *key)
{
    if (!npz || !key)
        nd_error("nd_npz_get", "npz and key must not be NULL");
    zip_int64_t index = find_member(npz, key);
    if (index < 0)
        no_such_key(npz, key);
    MemberReader *r = calloc(1, sizeof *r);
    if (!r)
        nd_error("nd_npz_get", "%s: out of memory", npz->path);
    if (!read_member(r, npz, (zip_uint64_t)index)) {
        char problem[sizeof r->problem], shown[SHOWN_TEXT];
        memcpy(problem, r->problem, sizeof problem);
        free(r);
        nd_error("nd_npz_get", "%s: key '%s': %s", npz->path,
                 quoted(key, shown), problem);
    }
    NdArray *a = r->array;
    free(r);
    return a;
}

void nd_npz_close(NdNpz *npz)
{
    if (!npz)
        return;
    if (npz->archive)
        zip_discard(npz->archive);  /* read-only: nothing to write back */
    for (int i = 0; i < npz->count; i++)
        free(npz->keys[i]);
    free(npz->keys);
    free(npz->path);
    free(npz);
}

/* ------------------------------------------------------------ writing */

/* The empty archive np.savez_compressed writes when given no arrays:
 * an end-of-central-directory record alone. (libzip deletes an archive
 * left without members rather than write one.) */
static const unsigned char empty_archive[22] = {'P', 'K', 5, 6};

/* Misuses, reported before any file is touched. */
static void check_arrays(const char *op, const char *path, int count,
                         const char *const *keys, NdArray *const *arrays)
{
    if (!path)
        nd_error(op, "the path is NULL");
    if (count < 0)
        nd_error(op, "count is %d; want 0 or more arrays", count);
    if (count > 0 && (!keys || !arrays))
        nd_error(op, "keys and arrays must not be NULL for %d arrays",
                 count);
    for (int i = 0; i < count; i++) {
        if (!keys[i])
            nd_error(op, "key %d is NULL", i);
        if (!arrays[i])
            nd_error(op, "the array of '%s' is NULL", keys[i]);
        if (arrays[i]->device != ND_CPU)
            nd_error(op, "the array of '%s' is on the GPU; NumPy does "
                     "not convert a CuPy array either: move it to the "
                     "host first with nd_to_device(a, ND_CPU), as "
                     "DeZero's save_weights calls to_cpu()", keys[i]);
        for (int j = 0; j < i; j++)
            if (strcmp(keys[i], keys[j]) == 0)
                nd_error(op, "the key '%s' is given twice (arrays %d and "
                         "%d); each array needs a key of its own", keys[i],
                         j, i);
    }
}

/* Writes the archive at temporary, a file there already: one DEFLATE-d
 * .npy member per array. libzip writes it under a name of its own and
 * renames that to temporary once whole. False with the problem
 * written. */
static bool write_members(const char *temporary, int count,
                          const char *const *keys, NdArray *const *arrays,
                          char *problem, size_t size)
{
    int code;
    zip_t *archive = zip_open(temporary, ZIP_TRUNCATE, &code);
    if (!archive) {
        zip_error_t error;
        zip_error_init_with_code(&error, code);
        snprintf(problem, size, "cannot open %s as a zip archive: "
                 "libzip: %s", temporary, zip_error_strerror(&error));
        zip_error_fini(&error);
        return false;
    }
    /* the headers must live until zip_close reads them */
    char (*headers)[NPY_HEADER_ROOM] = malloc((size_t)count *
                                               sizeof *headers);
    bool ok = headers != NULL;
    if (!ok)
        snprintf(problem, size, "out of memory");
    for (int i = 0; ok && i < count; i++) {
        const NdArray *a = arrays[i];
        zip_buffer_fragment_t parts[2] = {
            {(zip_uint8_t *)headers[i], npy_header(a, headers[i])},
            {a->data, nd_nbytes(a)},
        };
        zip_error_t error;
        zip_error_init(&error);
        zip_source_t *source = zip_source_buffer_fragment_create(
            parts, parts[1].length ? 2 : 1, 0, &error);
        char *name = malloc(strlen(keys[i]) + sizeof ".npy");
        zip_int64_t index = -1;
        if (source && name) {
            strcpy(stpcpy(name, keys[i]), ".npy");
            index = zip_file_add(archive, name, source, ZIP_FL_ENC_UTF_8);
        }
        if (index < 0 || zip_set_file_compression(
                             archive, (zip_uint64_t)index, ZIP_CM_DEFLATE,
                             0) != 0) {
            snprintf(problem, size, "cannot add '%s': libzip: %s", keys[i],
                     !name ? "out of memory" : !source
                         ? zip_error_strerror(&error)
                         : zip_strerror(archive));
            ok = false;
        }
        if (source && index < 0)
            zip_source_free(source);
        free(name);
        zip_error_fini(&error);
    }
    if (ok && zip_close(archive) != 0) {
        snprintf(problem, size, "cannot write it: libzip: %s",
                 zip_strerror(archive));
        ok = false;
    }
    if (!ok)
        zip_discard(archive);
    free(headers);
    return ok;
}

/* Flushes path's data to the disk, before the rename that makes it the
 * file. */
static bool sync_file(const char *path, char *problem, size_t size)
{
    int fd = open(path, O_RDONLY);
    bool ok = fd >= 0 && fsync(fd) == 0;
    if (!ok)
        snprintf(problem, size, "cannot sync %s: %s", path,
                 strerror(errno));
    if (fd >= 0)
        close(fd);
    return ok;
}

/* The archive, under a temporary name renamed to target once whole. */
static bool save(const char *target, int count, const char *const *keys,
                 NdArray *const *arrays, char *problem, size_t size)
{
    char *temporary;
    int fd = nd_open_temporary(target, &temporary);
    if (fd < 0 && (errno == EACCES || errno == EPERM || errno == EROFS)) {
        snprintf(problem, size, "cannot write it: %s", strerror(errno));
        return false;                   /* as np.savez's PermissionError */
    }
    if (fd < 0) {
        snprintf(problem, size, "cannot make %s.part-XXXXXX: %s", target,
                 strerror(errno));
        return false;
    }
    /* libzip writes a file of its own and renames it over temporary,
     * which a device or a FIFO cannot take */
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(problem, size, "not a regular file: an .npz archive is "
                 "written to a regular file only");
        close(fd);
        return nd_finish_temporary(temporary, target, false, problem, size);
    }
    bool ok = true;
    if (count == 0 && write(fd, empty_archive, sizeof empty_archive) !=
                          (ssize_t)sizeof empty_archive) {
        snprintf(problem, size, "cannot write %s: %s", temporary,
                 strerror(errno));
        ok = false;
    }
    close(fd);
    ok = ok && (count == 0 || write_members(temporary, count, keys, arrays,
                                            problem, size));
    ok = ok && sync_file(temporary, problem, size);
    return nd_finish_temporary(temporary, target, ok, problem, size);
}

void nd_savez_compressed(const char *path, int count,
                         const char *const *keys, NdArray *const *arrays)
{
    const char *op = "nd_savez_compressed";
    check_arrays(op, path, count, keys, arrays);
    size_t len = strlen(path);
    bool suffixed = len >= 4 && strcmp(path + len - 4, ".npz") == 0;
    char *target = malloc(len + sizeof ".npz");
    if (!target)
        nd_error(op, "%s: out of memory", path);
    strcpy(stpcpy(target, path), suffixed ? "" : ".npz");
    char problem[1024];
    if (!save(target, count, keys, arrays, problem, sizeof problem)) {
        char message[sizeof problem + 512];
        snprintf(message, sizeof message, "%s: %s", target, problem);
        free(target);
        nd_error(op, "%s", message);
    }
    free(target);
}
