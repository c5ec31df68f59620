/* idx.c - the IDX reader of idx.h. An IDX file is a big-endian header,
 * a magic number 0x0000TTDD (element type TT, DD dimensions) and DD
 * 32-bit extents, then the elements in C order. zlib's gz* functions
 * read it, inflating a gzip file and passing a plain one through. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "idx.h"
#include "nd_internal.h"

enum { IDX_UNSIGNED_BYTE = 0x08 };

/* One file being read. A step that fails writes what went wrong into
 * problem and returns false; the caller frees everything, then reports
 * it, so that an error leaks nothing (a test's handler longjmps). */
typedef struct IdxReader {
    const char *path;
    gzFile file;
    int ndim;
    int64_t shape[ND_MAX_DIMS];     /* the file's, once its header is read */
    unsigned char *data;            /* the elements, filled bytes of them */
    size_t filled;
    char problem[768];
} IdxReader;

__attribute__((format(printf, 2, 3)))
static bool fail(IdxReader *r, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(r->problem, sizeof r->problem, format, args);
    va_end(args);
    return false;
}

/* Why the last gzread stopped short: zlib's error, or none at the end
 * of a clean stream. Writes the problem and returns true on an error. */
static bool stream_failed(IdxReader *r)
{
    int code;
    const char *message = gzerror(r->file, &code);
    /* zlib's message starts with "path: "; ours names the path already */
    size_t len = strlen(r->path);
    if (strncmp(message, r->path, len) == 0 && message[len] == ':')
        message += len + 2;
    switch (code) {
    case Z_OK:
        return false;
    case Z_BUF_ERROR:
        return !fail(r, "the gzip stream is truncated (zlib: %s); a partial "
                     "copy? Delete it and fetch it again", message);
    case Z_DATA_ERROR:
        return !fail(r, "corrupt gzip data (zlib: %s); a damaged copy? "
                     "Delete it and fetch it again", message);
    case Z_MEM_ERROR:
        return !fail(r, "out of memory while inflating it");
    case Z_ERRNO:
        return !fail(r, "cannot read it: %s", strerror(errno));
    default:
        return !fail(r, "zlib error %d: %s", code, message);
    }
}

/* Reads up to n bytes into buffer; returns how many (fewer only at the
 * end of the data) or -1 with the problem written. */
static int64_t read_bytes(IdxReader *r, void *buffer, size_t n)
{
    size_t done = 0;
    while (done < n) {
        size_t chunk = n - done < (1u << 30) ? n - done : (1u << 30);
        int got = gzread(r->file, (unsigned char *)buffer + done,
                         (unsigned)chunk);
        if (got > 0)
            done += (size_t)got;
        if (got < (int)chunk)
            return stream_failed(r) ? -1 : (int64_t)done;
    }
    return (int64_t)done;
}

static uint32_t big_endian_32(const unsigned char *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
           (uint32_t)b[2] << 8 | (uint32_t)b[3];
}

/* "(N, 28, 28)": a wanted shape, -1 standing for any extent. */
static const char *wanted_shape_text(char *text, size_t size, int ndim,
                                     const int64_t *shape)
{
    size_t n = (size_t)snprintf(text, size, "(");
    for (int d = 0; d < ndim && n < size; d++) {
        n += (size_t)snprintf(text + n, size - n, d ? ", " : "");
        if (n >= size)
            break;
        if (shape[d] >= 0)
            n += (size_t)snprintf(text + n, size - n, "%lld",
                                  (long long)shape[d]);
        else
            n += (size_t)snprintf(text + n, size - n, d ? "any" : "N");
    }
    if (n < size)
        snprintf(text + n, size - n, ndim == 1 ? ",)" : ")");
    return text;
}

static const char *idx_type_name(int type)
{
    switch (type) {
    case 0x08: return "unsigned byte";
    case 0x09: return "signed byte";
    case 0x0B: return "16-bit integer";
    case 0x0C: return "32-bit integer";
    case 0x0D: return "float";
    case 0x0E: return "double";
    default: return NULL;
    }
}

/* The magic number and the extents; checks them against the wanted
 * ndim and shape. */
static bool read_header(IdxReader *r, int ndim, const int64_t *shape)
{
    unsigned char head[4 + 4 * ND_MAX_DIMS];
    int64_t got = read_bytes(r, head, 4);
    if (got < 0)
        return false;
    if (got == 0)
        return fail(r, "the file is empty");
    if (got < 4)
        return fail(r, "the file ends inside its header, after %d bytes",
                    (int)got);
    uint32_t magic = big_endian_32(head);
    uint32_t want_magic = IDX_UNSIGNED_BYTE << 8 | (uint32_t)ndim;
    const char *type = idx_type_name(head[2]);
    if (head[0] != 0 || head[1] != 0 || !type)
        return fail(r, "not an IDX file: it starts with 0x%08x, where an IDX "
                    "file of unsigned bytes in %d dimensions starts with "
                    "0x%08x%s", magic, ndim, want_magic,
                    head[0] == 0x1f && head[1] == 0x8b ?
                    " (this is gzip data inside gzip: compressed twice?)" :
                    "");
    if (head[2] != IDX_UNSIGNED_BYTE)
        return fail(r, "holds %s elements (IDX type 0x%02x); this reader "
                    "takes unsigned bytes (type 0x%02x)", type, head[2],
                    IDX_UNSIGNED_BYTE);
    char want[ND_SHAPE_TEXT];
    wanted_shape_text(want, sizeof want, ndim, shape);
    if (head[3] != ndim)
        return fail(r, "holds an array of %d dimensions; want %d, of shape "
                    "%s", head[3], ndim, want);

    got = read_bytes(r, head + 4, 4 * (size_t)ndim);
    if (got < 0)
        return false;
    if (got < 4 * ndim)
        return fail(r, "the file ends inside its header, after %d bytes",
                    4 + (int)got);
    r->ndim = ndim;
    bool same = true;
    for (int d = 0; d < ndim; d++) {
        r->shape[d] = big_endian_32(head + 4 + 4 * d);
        same = same && (shape[d] < 0 || shape[d] == r->shape[d]);
    }
    if (!same) {
        char have[ND_SHAPE_TEXT];
        return fail(r, "holds an array of shape %s; want %s",
                    nd_format_shape(have, ndim, r->shape, true), want);
    }
    return true;
}

/* The elements the header announces, and not one byte more. The buffer
 * grows with what arrives, so a header that announces gigabytes costs
 * no more memory than the bytes that really follow it. */
static bool read_elements(IdxReader *r)
{
    int64_t count = 1;
    for (int d = 0; d < r->ndim; d++)
        if (__builtin_mul_overflow(count, r->shape[d], &count) ||
            count > ND_MAX_ELEMENTS) {
            char have[ND_SHAPE_TEXT];
            return fail(r, "its header announces an array of shape %s, "
                        "more elements than an array can hold",
                        nd_format_shape(have, r->ndim, r->shape, true));
        }
    size_t total = (size_t)count, capacity = 0;
    while (r->filled < total) {
        if (r->filled == capacity) {
            capacity = capacity ? 2 * capacity : 1u << 16;
            if (capacity > total)
                capacity = total;
            unsigned char *grown = realloc(r->data, capacity);
            if (!grown)
                return fail(r, "out of memory for %zu bytes", capacity);
            r->data = grown;
        }
        int64_t got = read_bytes(r, r->data + r->filled,
                                 capacity - r->filled);
        if (got < 0)
            return false;
        r->filled += (size_t)got;
        if (r->filled < capacity) {
            char have[ND_SHAPE_TEXT];
            return fail(r, "truncated: its data ends after %zu of the %zu "
                        "bytes its header announces for shape %s; a partial "
                        "copy? Delete it and fetch it again", r->filled,
                        total, nd_format_shape(have, r->ndim, r->shape,
                                               true));
        }
    }
    /* Reading past the end also makes zlib check the gzip trailer. */
    unsigned char extra;
    int64_t got = read_bytes(r, &extra, 1);
    if (got < 0)
        return false;
    if (got > 0) {
        char have[ND_SHAPE_TEXT];
        return fail(r, "holds more data than the %zu bytes its header "
                    "announces for shape %s", total,
                    nd_format_shape(have, r->ndim, r->shape, true));
    }
    return true;
}

/* Opens and reads the file; false with r->problem set on any failure.
 * The caller frees r->data whatever the outcome. */
static bool read_idx(IdxReader *r, int ndim, const int64_t *shape)
{
    errno = 0;
    r->file = gzopen(r->path, "rb");
    if (!r->file)
        return fail(r, "cannot open it: %s",
                    errno ? strerror(errno) : "out of memory");
    bool ok = read_header(r, ndim, shape) && read_elements(r);
    int closed = gzclose(r->file);
    r->file = NULL;
    if (ok && closed != Z_OK)
        return fail(r, "cannot close it: zlib error %d", closed);
    return ok;
}

/* Checks the wanted shape a caller passes (a misuse, not a file's
 * fault). */
static void check_wanted(const char *op, int ndim, const int64_t *shape)
{
    if (ndim < 1 || ndim > ND_MAX_DIMS)
        nd_error(op, "want %d dimensions; an IDX array has 1 to %d", ndim,
                 ND_MAX_DIMS);
    for (int d = 0; d < ndim; d++)
        if (shape[d] < -1 || shape[d] > UINT32_MAX)
            nd_error(op, "wanted extent %lld (axis %d) cannot be in an IDX "
                     "file; use -1 for any", (long long)shape[d], d);
}

NdArray *nd_load_idx(const char *path, int ndim, const int64_t *shape)
{
    check_wanted("nd_load_idx", ndim, shape);
    IdxReader r = {.path = path};
    if (!read_idx(&r, ndim, shape)) {
        free(r.data);
        nd_error("nd_load_idx", "%s: %s", path, r.problem);
    }
    NdArray *a = nd_from_buffer(ND_UINT8, r.ndim, r.shape, r.data);
    free(r.data);
    return a;
}

void nd_load_idx_labelled(const char *images_path, const char *labels_path,
                          int64_t rows, int64_t cols, NdArray **images,
                          NdArray **labels)
{
    const char *op = "nd_load_idx_labelled";
    const int64_t image_shape[] = {-1, rows, cols}, label_shape[] = {-1};
    check_wanted(op, 3, image_shape);
    IdxReader pictures = {.path = images_path};
    IdxReader tags = {.path = labels_path};
    if (!read_idx(&pictures, 3, image_shape)) {
        free(pictures.data);
        nd_error(op, "%s: %s", images_path, pictures.problem);
    }
    if (!read_idx(&tags, 1, label_shape)) {
        free(pictures.data);
        free(tags.data);
        nd_error(op, "%s: %s", labels_path, tags.problem);
    }
    int64_t n = pictures.shape[0];
    if (tags.shape[0] != n) {
        free(pictures.data);
        free(tags.data);
        nd_error(op, "%s holds %lld images but %s holds %lld labels; the "
                 "two files of a pair hold as many", images_path,
                 (long long)n, labels_path, (long long)tags.shape[0]);
    }
    const int64_t one_channel[] = {n, 1, pictures.shape[1],
                                   pictures.shape[2]};
    *images = nd_from_buffer(ND_UINT8, 4, one_channel, pictures.data);
    free(pictures.data);
    *labels = nd_from_buffer(ND_UINT8, 1, tags.shape, tags.data);
    free(tags.data);
}
