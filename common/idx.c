/* idx.c - the IDX reader of idx.h. An IDX file is a big-endian header,
 * a magic number 0x0000TTDD (element type TT, DD dimensions) and DD
 * 32-bit extents, then the elements in C order. A file that starts with
 * gzip's magic is inflated by zlib, member after member, as Python's
 * gzip module reads it: zero bytes may pad its end, anything else after
 * its last member is refused (zlib's gzread would pass over it). Any
 * other file is read as it is. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "idx.h"
#include "nd_internal.h"

enum { IDX_UNSIGNED_BYTE = 0x08, INPUT_ROOM = 1 << 14 };

/* One file being read. A step that fails writes what went wrong into
 * problem and returns false; the caller frees everything, then reports
 * it, so that an error leaks nothing (a test's handler longjmps). */
typedef struct IdxReader {
    const char *path;
    FILE *file;
    bool gzip;                      /* else the file's bytes are the data */
    bool inflating;                 /* inside a gzip member */
    bool ended;                     /* the data's end was reached */
    bool z_started;                 /* inflateInit2 done: inflateEnd due */
    z_stream z;                     /* its next_in, avail_in: the input */
    uint64_t consumed;              /* bytes of the file read into in */
    unsigned char in[INPUT_ROOM];
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

/* zlib's code from inflate, an error, as the problem; returns -1. */
static int64_t stream_failed(IdxReader *r, int code)
{
    const char *message = r->z.msg ? r->z.msg : "no message";
    switch (code) {
    case Z_DATA_ERROR:
    case Z_NEED_DICT:
        fail(r, "corrupt gzip data (zlib: %s); a damaged copy? Delete it "
             "and fetch it again", message);
        break;
    case Z_MEM_ERROR:
        fail(r, "out of memory while inflating it");
        break;
    default:
        fail(r, "zlib error %d: %s", code, message);
    }
    return -1;
}

/* Reads more of the file into the input when the input is used up;
 * returns the bytes of input there are, 0 at the file's end, or -1
 * with the problem written. */
static int64_t refill(IdxReader *r)
{
    if (r->z.avail_in > 0)
        return r->z.avail_in;
    size_t got = fread(r->in, 1, sizeof r->in, r->file);
    if (got == 0 && ferror(r->file))
        return fail(r, "cannot read it: %s", strerror(errno)), -1;
    r->z.next_in = r->in;
    r->z.avail_in = (uInt)got;
    r->consumed += got;
    return (int64_t)got;
}

/* Where a gzip member may start: past the zero bytes that may pad the
 * file, as Python's gzip passes them, the file ends (0), or another
 * member starts with gzip's magic (1); anything else is not gzip data,
 * which Python's gzip refuses (BadGzipFile) and so does this (-1, with
 * the problem written). */
static int next_member(IdxReader *r)
{
    int64_t have;
    while ((have = refill(r)) > 0 && r->z.next_in[0] == 0) {
        r->z.next_in++;
        r->z.avail_in--;
    }
    if (have <= 0)
        return (int)have;
    uint64_t at = r->consumed - r->z.avail_in;
    if (r->z.avail_in == 1) {       /* the magic's second byte, if any */
        r->in[0] = r->z.next_in[0];
        size_t got = fread(r->in + 1, 1, sizeof r->in - 1, r->file);
        if (got == 0 && ferror(r->file))
            return fail(r, "cannot read it: %s", strerror(errno)), -1;
        r->z.next_in = r->in;
        r->z.avail_in = 1 + (uInt)got;
        r->consumed += got;
    }
    if (r->z.avail_in < 2 || r->z.next_in[0] != 0x1f ||
        r->z.next_in[1] != 0x8b)
        return fail(r, "what follows its gzip data, from byte %llu on, is "
                    "not gzip data (Python's gzip refuses such a file: "
                    "BadGzipFile); a damaged copy? Delete it and fetch it "
                    "again", (unsigned long long)at), -1;
    int code = inflateReset(&r->z);
    return code == Z_OK ? 1 : (int)stream_failed(r, code);
}

/* Reads up to n bytes of the data into buffer, inflated from a gzip
 * file; returns how many (fewer only at the end of the data) or -1 with
 * the problem written. */
static int64_t read_bytes(IdxReader *r, void *buffer, size_t n)
{
    unsigned char *out = buffer;
    size_t done = 0;
    while (done < n && !r->ended) {
        if (r->gzip && !r->inflating) {
            int next = next_member(r);
            if (next < 0)
                return -1;
            r->ended = next == 0;
            r->inflating = next == 1;
            continue;
        }
        int64_t have = refill(r);
        if (have < 0)
            return -1;
        if (have == 0 && !r->gzip) {
            r->ended = true;
            break;
        }
        if (have == 0)
            return fail(r, "the gzip stream is truncated (zlib: unexpected "
                        "end of file); a partial copy? Delete it and fetch "
                        "it again"), -1;
        size_t room = n - done < (1u << 30) ? n - done : (1u << 30);
        if (!r->gzip) {
            size_t take = room < r->z.avail_in ? room : r->z.avail_in;
            memcpy(out + done, r->z.next_in, take);
            r->z.next_in += take;
            r->z.avail_in -= (uInt)take;
            done += take;
            continue;
        }
        r->z.next_out = out + done;
        r->z.avail_out = (uInt)room;
        int code = inflate(&r->z, Z_NO_FLUSH);
        done += room - r->z.avail_out;
        if (code == Z_STREAM_END)
            r->inflating = false;
        else if (code != Z_OK && code != Z_BUF_ERROR)
            return stream_failed(r, code);
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
    /* Reading past the end also makes zlib check the gzip trailer, and
     * this what follows it. */
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
    r->file = fopen(r->path, "rb");
    if (!r->file)
        return fail(r, "cannot open it: %s", strerror(errno));
    int64_t have = refill(r);
    r->gzip = have >= 2 && r->in[0] == 0x1f && r->in[1] == 0x8b;
    bool ok = have >= 0;
    if (ok && r->gzip) {
        int code = inflateInit2(&r->z, 16 + MAX_WBITS);  /* gzip only */
        r->z_started = ok = code == Z_OK;
        if (!ok)
            stream_failed(r, code);
    }
    ok = ok && read_header(r, ndim, shape) && read_elements(r);
    if (r->z_started)
        inflateEnd(&r->z);
    fclose(r->file);
    r->file = NULL;
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
