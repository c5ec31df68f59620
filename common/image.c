/* image.c - nd_image_read of image.h: PNG files decoded by libpng, JPEG
 * files by libjpeg, both into a (H, W, 3) uint8 RGB array as PIL's
 * convert('RGB') gives it. The first bytes of the file say which. Each
 * library reports errors by a longjmp back here, which releases what
 * was made and stops with nd_error. A picture's size is checked against
 * PIL's limit on pixels (nd_image_set_max_pixels) before anything is
 * decoded. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>
#include <png.h>

#include "image.h"
#include "nd_internal.h"

static const char *const OP = "nd_image_read";

/* Pictures larger than this are refused before anything is allocated:
 * a corrupt header must not ask for terabytes. */
enum { MAX_SIDE = 1 << 16 };

/* ------------------------------------------------------------ limit */

static const char *const LIMIT_VARIABLE = "ND_MAX_IMAGE_PIXELS";

/* What nd_image_set_max_pixels set: -1 for the default. */
static int64_t max_pixels_set = -1;

int64_t nd_image_set_max_pixels(int64_t pixels)
{
    if (pixels < -1)
        nd_error("nd_image_set_max_pixels", "%" PRId64 " pixels; give a "
                 "limit of 1 or more, 0 for none, or -1 for the default",
                 pixels);
    int64_t old = max_pixels_set;
    max_pixels_set = pixels;
    return old;
}

/* The limit in force (0: none): the one set, else $ND_MAX_IMAGE_PIXELS,
 * else PIL's. Called before the file is opened: a bad variable stops
 * the read with nothing to free. */
static int64_t max_pixels(void)
{
    if (max_pixels_set >= 0)
        return max_pixels_set;
    const char *text = getenv(LIMIT_VARIABLE);
    if (!text || !*text)
        return ND_IMAGE_MAX_PIXELS;
    char *end;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (*end != '\0' || end == text || errno != 0 || value < 0) {
        char shown[64];
        nd_error(OP, "%s=%s is not a number of pixels: set it to a whole "
                 "number (0 for no limit), or unset it for PIL's limit of "
                 "%" PRId64, LIMIT_VARIABLE,
                 nd_escape(shown, sizeof shown, text, strlen(text)),
                 (int64_t)ND_IMAGE_MAX_PIXELS);
    }
    return value;
}

/* Whether a picture of width x height pixels is one to read; when not,
 * says why in message. Above limit pixels (0: none), as PIL does, it
 * warns on stderr (PIL's DecompressionBombWarning), and above twice the
 * limit it refuses (PIL's DecompressionBombError). */
static bool size_ok(const char *path, int64_t limit, int64_t width,
                    int64_t height, char *message, size_t size)
{
    if (width < 1 || height < 1 || width > MAX_SIDE || height > MAX_SIDE) {
        snprintf(message, size, "a picture of %" PRId64 " x %" PRId64
                 " pixels; this reads pictures of 1 to %d pixels a side",
                 width, height, MAX_SIDE);
        return false;
    }
    int64_t pixels = width * height;
    if (limit > 0 && limit < INT64_MAX / 2 && pixels > 2 * limit) {
        snprintf(message, size, "a picture of %" PRId64 " x %" PRId64
                 " = %" PRId64 " pixels, more than twice the limit of %"
                 PRId64 ": a decompression bomb? (PIL refuses it too, "
                 "DecompressionBombError) To read a picture this large, "
                 "raise the limit with %s=N (0 for none) or "
                 "nd_image_set_max_pixels()", width, height, pixels, limit,
                 LIMIT_VARIABLE);
        return false;
    }
    if (limit > 0 && pixels > limit)
        fprintf(stderr, "warning: %s: %s: a picture of %" PRId64 " x %"
                PRId64 " = %" PRId64 " pixels, more than the limit of %"
                PRId64 ": a decompression bomb? Read all the same, as PIL "
                "reads it (DecompressionBombWarning); above twice the "
                "limit it is refused\n", OP, path, width, height, pixels,
                limit);
    return true;
}

/* ------------------------------------------------------------ PNG */

/* How a read stopped: the library's message, and whether the message is
 * already the whole story (TOLD) or the library's own (FAILED). */
enum { READING, FAILED, TOLD };

/* Room for a message: the library's, escaped, or this file's own. */
enum { MESSAGE_ROOM = 400 };

typedef struct PngFailure {
    jmp_buf jump;
    char message[MESSAGE_ROOM];
} PngFailure;

/* libpng's message may quote the file (a chunk's name): escaped. */
static void png_failed(png_structp png, png_const_charp message)
{
    PngFailure *failure = png_get_error_ptr(png);
    nd_escape(failure->message, sizeof failure->message, message,
              strlen(message));
    longjmp(failure->jump, FAILED);
}

static void png_warned(png_structp png, png_const_charp message)
{
    (void)png;                      /* e.g. a bad CRC in an extra chunk: */
    (void)message;                  /* PIL reads on too */
}

/* 16-bit grey: PIL reads it as 32-bit integers (mode "I") and its
 * convert('RGB') clips them to 255. raw holds width big-endian values;
 * out gets (width, 3). */
static void grey16_to_rgb(const unsigned char *raw, int64_t width,
                          unsigned char *out)
{
    for (int64_t x = 0; x < width; x++) {
        unsigned value = (unsigned)raw[2 * x] << 8 | raw[2 * x + 1];
        unsigned char v = value > 255 ? 255 : (unsigned char)value;
        out[3 * x] = out[3 * x + 1] = out[3 * x + 2] = v;
    }
}

/* Asks libpng for 8-bit RGB rows, as convert('RGB') would make them,
 * or for raw 16-bit grey when grey16. */
static void png_ask_rgb(png_structp png, int type, int depth, bool grey16)
{
    if (type == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(png);
    if (type == PNG_COLOR_TYPE_GRAY && depth < 8)
        png_set_expand_gray_1_2_4_to_8(png);    /* 0..255, as PIL's L;2 */
    if (!grey16) {
        png_set_strip_16(png);                  /* the high byte */
        png_set_gray_to_rgb(png);
    }
    png_set_strip_alpha(png);
    png_set_interlace_handling(png);
}

static NdArray *read_png(FILE *file, const char *path, int64_t limit)
{
    PngFailure failure = {.message = ""};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING,
                                             &failure, png_failed,
                                             png_warned);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        fclose(file);
        nd_error(OP, "%s: libpng cannot start: out of memory", path);
    }
    NdArray *volatile image = NULL;
    unsigned char *volatile raw = NULL;     /* 16-bit grey, (H, W * 2) */
    png_bytep *volatile rows = NULL;
    int how = setjmp(failure.jump);
    if (how != READING) {
        bool cut = feof(file);
        png_destroy_read_struct(&png, &info, NULL);
        nd_release(image);
        free(raw);
        free(rows);
        fclose(file);
        if (how == TOLD)
            nd_error(OP, "%s: %s", path, failure.message);
        nd_error(OP, "%s: %s PNG file (libpng: %s)", path,
                 cut ? "a truncated" : "a corrupt", failure.message);
    }
    png_init_io(png, file);
    png_read_info(png, info);
    png_uint_32 width = png_get_image_width(png, info);
    png_uint_32 height = png_get_image_height(png, info);
    int type = png_get_color_type(png, info);
    bool grey16 = type == PNG_COLOR_TYPE_GRAY &&
                  png_get_bit_depth(png, info) == 16;
    png_ask_rgb(png, type, png_get_bit_depth(png, info), grey16);
    png_read_update_info(png, info);
    size_t row_bytes = png_get_rowbytes(png, info);
    if (row_bytes != width * (grey16 ? 2u : 3u))
        png_error(png, "the rows are not RGB after conversion");
    if (!size_ok(path, limit, width, height, failure.message,
                 sizeof failure.message))
        longjmp(failure.jump, TOLD);
    image = nd_empty(ND_UINT8, ND_SHAPE(height, width, 3));
    unsigned char *pixels = image->data;
    rows = malloc(height * sizeof *rows);
    if (grey16)         /* interlaced files need every row at once */
        raw = malloc(row_bytes * height);
    if (!rows || (grey16 && !raw))
        png_error(png, "out of memory");
    for (png_uint_32 y = 0; y < height; y++)
        rows[y] = grey16 ? raw + y * row_bytes : pixels + y * row_bytes;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    for (png_uint_32 y = 0; grey16 && y < height; y++)
        grey16_to_rgb(raw + y * row_bytes, width, pixels + y * width * 3);
    free(raw);
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(file);
    return image;
}

/* ------------------------------------------------------------ JPEG */

typedef struct JpegFailure {
    struct jpeg_error_mgr manager;  /* first: libjpeg hands back its address */
    jmp_buf jump;
    char message[MESSAGE_ROOM];
} JpegFailure;

static void jpeg_failed(j_common_ptr jpeg)
{
    JpegFailure *failure = (JpegFailure *)jpeg->err;
    char message[JMSG_LENGTH_MAX];
    jpeg->err->format_message(jpeg, message);
    nd_escape(failure->message, sizeof failure->message, message,
              strlen(message));
    longjmp(failure->jump, FAILED);
}

/* libjpeg only warns when the data ends early (and pads the picture
 * with grey); PIL refuses such a file, and so does this. Other warnings
 * and trace messages are let be, as PIL lets them be. */
static void jpeg_warned(j_common_ptr jpeg, int level)
{
    JpegFailure *failure = (JpegFailure *)jpeg->err;
    if (level == -1 && jpeg->err->msg_code == JWRN_JPEG_EOF) {
        snprintf(failure->message, sizeof failure->message, "a truncated "
                 "JPEG file: it ends before the picture does");
        longjmp(failure->jump, TOLD);
    }
}

static NdArray *read_jpeg(FILE *file, const char *path, int64_t limit)
{
    struct jpeg_decompress_struct jpeg = {0};
    JpegFailure failure = {.message = ""};
    jpeg.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = jpeg_failed;
    failure.manager.emit_message = jpeg_warned;
    NdArray *volatile image = NULL;
    int how = setjmp(failure.jump);
    if (how != READING) {
        jpeg_destroy_decompress(&jpeg);
        nd_release(image);
        fclose(file);
        if (how == TOLD)
            nd_error(OP, "%s: %s", path, failure.message);
        nd_error(OP, "%s: a corrupt JPEG file (libjpeg: %s)", path,
                 failure.message);
    }
    jpeg_create_decompress(&jpeg);
    jpeg_stdio_src(&jpeg, file);
    jpeg_read_header(&jpeg, TRUE);
    if (jpeg.jpeg_color_space == JCS_CMYK ||
        jpeg.jpeg_color_space == JCS_YCCK) {
        snprintf(failure.message, sizeof failure.message, "a CMYK JPEG "
                 "file; this reads RGB and grey ones");
        longjmp(failure.jump, TOLD);
    }
    jpeg.out_color_space = JCS_RGB;     /* grey repeated, as PIL does */
    /* checked before jpeg_start_decompress, which allocates for the
     * whole picture when it is progressive */
    jpeg_calc_output_dimensions(&jpeg);
    int64_t width = jpeg.output_width, height = jpeg.output_height;
    if (!size_ok(path, limit, width, height, failure.message,
                 sizeof failure.message))
        longjmp(failure.jump, TOLD);
    jpeg_start_decompress(&jpeg);
    image = nd_empty(ND_UINT8, ND_SHAPE(height, width, 3));
    while (jpeg.output_scanline < jpeg.output_height) {
        JSAMPROW row = ND_DATA(image, unsigned char) +
                       (size_t)jpeg.output_scanline * (size_t)width * 3;
        jpeg_read_scanlines(&jpeg, &row, 1);
    }
    jpeg_finish_decompress(&jpeg);
    jpeg_destroy_decompress(&jpeg);
    fclose(file);
    return image;
}

/* ------------------------------------------------------------ read */

NdArray *nd_image_read(const char *path)
{
    int64_t limit = max_pixels();
    FILE *file = fopen(path, "rb");
    if (!file)
        nd_error(OP, "cannot open %s: %s", path, strerror(errno));
    unsigned char magic[8];
    errno = 0;
    size_t got = fread(magic, 1, sizeof magic, file);
    /* before rewind, which clears the error (a folder's EISDIR) */
    int error = ferror(file) ? errno ? errno : EIO : 0;
    rewind(file);
    if (!error && got == sizeof magic &&
        png_sig_cmp(magic, 0, sizeof magic) == 0)
        return read_png(file, path, limit);
    if (!error && got >= 3 && magic[0] == 0xFF && magic[1] == 0xD8 &&
        magic[2] == 0xFF)
        return read_jpeg(file, path, limit);
    bool empty = got == 0;
    fclose(file);
    if (error)
        nd_error(OP, "cannot read %s: %s", path, strerror(error));
    nd_error(OP, "%s: %s; this reads PNG and JPEG pictures", path,
             empty ? "an empty file" : "not a PNG or JPEG file");
}
