/* print.c - str() and repr() of arrays exactly as NumPy 1.24 prints them
 * with its default options, ported from numpy/core/arrayprint.py: one
 * format fitted to all the shown elements, then rows wrapped at 75
 * columns and long arrays summarised with "...". A device array prints
 * from a copy on the host, as CuPy's does. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd_internal.h"

/* NumPy's default print options. */
enum {
    PRINT_PRECISION = 8,    /* most digits after the point in arrays */
    PRINT_THRESHOLD = 1000, /* more elements than this are summarised */
    PRINT_EDGEITEMS = 3,    /* elements kept at each end when summarised */
    PRINT_LINEWIDTH = 75,
};

/* ------------------------------------------------------------ text */

/* A growing string; op names the caller for the out-of-memory error. */
typedef struct Text {
    char *buf;
    size_t len, cap;
    const char *op;
} Text;

static void text_reserve(Text *t, size_t extra)
{
    if (t->len + extra + 1 <= t->cap)
        return;
    size_t cap = t->cap ? t->cap : 64;
    while (cap < t->len + extra + 1)
        cap *= 2;
    char *buf = realloc(t->buf, cap);
    if (!buf)
        nd_error(t->op, "out of memory");
    t->buf = buf;
    t->cap = cap;
}

static void text_putn(Text *t, const char *s, size_t n)
{
    text_reserve(t, n);
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
}

static void text_puts(Text *t, const char *s)
{
    text_putn(t, s, strlen(s));
}

static void text_putc(Text *t, char c)
{
    text_putn(t, &c, 1);
}

/* Appends c n times (nothing when n <= 0). */
static void text_repeat(Text *t, char c, int n)
{
    for (int i = 0; i < n; i++)
        text_putc(t, c);
}

static void text_clear(Text *t)
{
    t->len = 0;
    text_reserve(t, 0);
    t->buf[0] = '\0';
}

/* Drops trailing spaces, as Python's str.rstrip(). */
static void text_rstrip(Text *t)
{
    while (t->len > 0 && t->buf[t->len - 1] == ' ')
        t->len--;
    t->buf[t->len] = '\0';
}

/* Hands the text to the caller ("" when nothing was written). */
static char *text_finish(Text *t)
{
    text_reserve(t, 0);
    t->buf[t->len] = '\0';
    return t->buf;
}

/* ------------------------------------------------------------ digits */

/* A finite number as its significant decimal digits:
 * value = d0.d1d2... x 10^exponent. Zero is the single digit "0". */
typedef struct Decimal {
    bool negative;
    int ndigits;
    int exponent;
    char digits[48];
} Decimal;

/* Reads printf's "%e" or "%f" output ("-1.25e+03", "0.00012"). */
static Decimal decimal_from_text(const char *text)
{
    Decimal d = {.negative = text[0] == '-'};
    const char *p = text + d.negative;
    int int_digits = 0;
    bool after_point = false;
    for (; (*p >= '0' && *p <= '9') || *p == '.'; p++) {
        if (*p == '.') {
            after_point = true;
        } else {
            int_digits += !after_point;
            bool leading_zero = d.ndigits == 0 && *p == '0';
            if (leading_zero)
                int_digits--;      /* "0.0012": the point moves right */
            else if (d.ndigits < (int)sizeof d.digits - 1)
                d.digits[d.ndigits++] = *p;
        }
    }
    int written_exponent = *p == 'e' ? atoi(p + 1) : 0;
    while (d.ndigits > 0 && d.digits[d.ndigits - 1] == '0')
        d.ndigits--;
    if (d.ndigits == 0) {
        d.digits[d.ndigits++] = '0';
        int_digits = 1;
        written_exponent = 0;
    }
    d.digits[d.ndigits] = '\0';
    d.exponent = int_digits - 1 + written_exponent;
    return d;
}

/* Whether text parses back to x (as a float when single). */
static bool reads_back(const char *text, double x, bool single)
{
    if (single)
        return strtof(text, NULL) == (float)x;
    return strtod(text, NULL) == x;
}

/* "1.25e+03" -> "1.26e+03", "9.9e+03" -> "10.0e+03": the next number
 * with as many digits, one unit away from zero in the last digit. */
static void bump_last_digit(char *text)
{
    int i = (int)(strchr(text, 'e') - text);
    int first = text[0] == '-';
    while (--i >= first) {
        if (text[i] == '.')
            continue;
        if (text[i] != '9') {
            text[i]++;
            return;
        }
        text[i] = '0';
    }
    memmove(text + first + 1, text + first, strlen(text + first) + 1);
    text[first] = '1';
}

/* Writes into text the n-digit candidate for x that reads back as x,
 * the nearest or else the next one up; false when neither does. With n
 * digits the nearest usually decides; just above a power of two the
 * gap below x is half the gap above, so the next one up is tried too. */
static bool candidate_reads_back(char text[48], double x, bool single,
                                 int n)
{
    snprintf(text, 48, "%.*e", n - 1, x);
    if (reads_back(text, x, single))
        return true;
    bump_last_digit(text);
    return reads_back(text, x, single);
}

/* The fewest digits that read back as x (float32 digits when single):
 * Dragon4's "unique" digits, the same as Python's repr. A number that
 * reads back with n digits also does with more, and most need all but
 * at most two of the max_digits: when max_digits - 2 do not read back,
 * the search goes on from there, else it starts from 1. */
static Decimal shortest_decimal(double x, bool single)
{
    char text[48];
    int max_digits = single ? 9 : 17;
    int n = candidate_reads_back(text, x, single, max_digits - 2)
                ? 1 : max_digits - 1;
    for (; n < max_digits; n++)
        if (candidate_reads_back(text, x, single, n))
            return decimal_from_text(text);
    snprintf(text, sizeof text, "%.*e", max_digits - 1, x);
    return decimal_from_text(text);     /* max_digits always read back */
}

/* Characters before the point: the sign and the integer digits. */
static int int_part_length(const Decimal *d, bool sign_plus,
                           bool scientific)
{
    int digits = scientific || d->exponent < 0 ? 1 : d->exponent + 1;
    return (d->negative || sign_plus) + digits;
}

static int frac_part_length(const Decimal *d, bool scientific)
{
    int n = d->ndigits - 1 - (scientific ? 0 : d->exponent);
    return n > 0 ? n : 0;
}

/* Dragon4's digits of x with a precision: the shortest digits, unless
 * they reach more than max_digits places after the point (after the
 * first digit when scientific) or fewer than min_digits (no minimum when
 * negative); then x itself is rounded exactly to that many places. So
 * min_digits 0 prints all integer digits exactly: 50667888., not the
 * shortest 50667890. of a float32. */
static Decimal cut_decimal(double x, bool single, bool scientific,
                           int max_digits, int min_digits)
{
    Decimal d = shortest_decimal(x, single);
    int places = d.ndigits - 1 - (scientific ? 0 : d.exponent);
    if (places > max_digits)
        places = max_digits;
    else if (min_digits >= 0 && places < min_digits)
        places = min_digits;
    else
        return d;
    char text[400];
    snprintf(text, sizeof text, scientific ? "%.*e" : "%.*f", places, x);
    return decimal_from_text(text);
}

static int exponent_length(const Decimal *d)
{
    int n = snprintf(NULL, 0, "%d", abs(d->exponent));
    return n > 2 ? n : 2;
}

/* The digit at position i of the positional number (0 for the units,
 * negative i after the point); 0 outside the significant digits. */
static char positional_digit(const Decimal *d, int i)
{
    int k = d->exponent - i;
    return k >= 0 && k < d->ndigits ? d->digits[k] : '0';
}

static void put_sign(Text *t, const Decimal *d, bool sign_plus)
{
    if (d->negative)
        text_puts(t, "-");
    else if (sign_plus)
        text_puts(t, "+");
}

/* "e-05", "e+100": the exponent zero-filled to min_digits (at least 2). */
static void put_exponent(Text *t, int exponent, int min_digits)
{
    char digits[16];
    int length = snprintf(digits, sizeof digits, "%d", abs(exponent));
    text_puts(t, exponent < 0 ? "e-" : "e+");
    text_repeat(t, '0', (min_digits > 2 ? min_digits : 2) - length);
    text_puts(t, digits);
}

/* "  12.5  ": sign and integer digits right-aligned in pad_left, the
 * fraction zero-filled to min_digits, then space-filled to pad_right. */
static void put_positional(Text *t, const Decimal *d, bool sign_plus,
                           int min_digits, int pad_left, int pad_right)
{
    text_repeat(t, ' ', pad_left - int_part_length(d, sign_plus, false));
    put_sign(t, d, sign_plus);
    for (int i = d->exponent > 0 ? d->exponent : 0; i >= 0; i--)
        text_putc(t, positional_digit(d, i));
    text_puts(t, ".");
    int frac = frac_part_length(d, false);
    for (int i = 1; i <= frac; i++)
        text_putc(t, positional_digit(d, -i));
    text_repeat(t, '0', min_digits - frac);
    text_repeat(t, ' ', pad_right - (frac > min_digits ? frac : min_digits));
}

/* " 1.50e-05": one digit before the point, the fraction zero-filled to
 * min_digits, then the exponent. */
static void put_scientific(Text *t, const Decimal *d, bool sign_plus,
                           int min_digits, int pad_left, int exp_digits)
{
    text_repeat(t, ' ', pad_left - int_part_length(d, sign_plus, true));
    put_sign(t, d, sign_plus);
    text_putn(t, d->digits, 1);
    text_puts(t, ".");
    text_puts(t, d->digits + 1);
    text_repeat(t, '0', min_digits - (d->ndigits - 1));
    put_exponent(t, d->exponent, exp_digits);
}

/* ------------------------------------------------------------ scalars */

/* Python's float repr, which is NumPy's str of a float scalar: "1.0",
 * "0.5", "1e-10", "1.5e+16"; with_zero=false gives the parts of a
 * complex repr, "1" rather than "1.0". */
static void put_python_float(Text *t, double x, bool single, bool with_zero)
{
    if (isnan(x)) {
        text_puts(t, "nan");
        return;
    }
    if (isinf(x)) {
        text_puts(t, x < 0 ? "-inf" : "inf");
        return;
    }
    Decimal d = shortest_decimal(x, single);
    double magnitude = fabs(x);     /* float32(1e-4) is below 1e-4 */
    if (x == 0 || (magnitude >= 1e-4 && magnitude < 1e16)) {
        put_positional(t, &d, false, 0, 0, 0);     /* "0.5" or "1." */
        if (frac_part_length(&d, false) > 0)
            return;
        if (with_zero)
            text_putc(t, '0');
        else
            t->buf[--t->len] = '\0';              /* drop the "." */
        return;
    }
    put_sign(t, &d, false);
    text_putn(t, d.digits, 1);
    if (d.ndigits > 1) {
        text_puts(t, ".");
        text_puts(t, d.digits + 1);
    }
    put_exponent(t, d.exponent, 2);
}

/* Python's complex repr: "(1+2j)", "2j", "(-0-1.5j)", "(nan+infj)". */
static void put_python_complex(Text *t, double re, double im, bool single)
{
    bool bare_imaginary = re == 0 && !signbit(re);
    if (!bare_imaginary) {
        text_puts(t, "(");
        put_python_float(t, re, single, false);
        if (isnan(im) || !signbit(im))
            text_puts(t, "+");
    }
    put_python_float(t, im, single, false);
    text_puts(t, bare_imaginary ? "j" : "j)");
}

/* Element i of an integer array, exactly (nd_load rounds big int64s). */
static int64_t load_integer(const NdArray *a, int64_t i)
{
    if (a->dtype == ND_INT64)
        return ND_DATA(a, int64_t)[i];
    return (int64_t)nd_load(a->data, a->dtype, i);
}

/* str of a 0-d array: the str of its scalar, not cut to 8 digits. */
static void put_scalar_str(Text *t, const NdArray *a)
{
    switch (a->dtype) {
    case ND_BOOL:
        text_puts(t, ND_DATA(a, bool)[0] ? "True" : "False");
        break;
    case ND_UINT8:
    case ND_INT64: {
        char digits[24];
        snprintf(digits, sizeof digits, "%" PRId64, load_integer(a, 0));
        text_puts(t, digits);
        break;
    }
    case ND_FLOAT32:
    case ND_FLOAT64:
        put_python_float(t, nd_load(a->data, a->dtype, 0),
                         a->dtype == ND_FLOAT32, true);
        break;
    case ND_COMPLEX64:
    case ND_COMPLEX128: {
        double complex z = nd_load_complex(a->data, a->dtype, 0);
        put_python_complex(t, creal(z), cimag(z), a->dtype == ND_COMPLEX64);
        break;
    }
    }
}

/* ------------------------------------------------------------ floats */

/* NumPy's FloatingFormat: one layout for every float of an array. */
typedef struct FloatFormat {
    bool single;        /* float32 values: float32 shortest digits */
    bool sign_plus;     /* "+" before positive numbers (imaginary parts) */
    bool scientific;
    int precision;      /* most digits after the point */
    int min_digits;     /* fewest digits after the point */
    int pad_left;       /* width of sign and integer part */
    int pad_right;      /* width after the point (for nan and inf too) */
    int exp_digits;     /* fewest exponent digits */
} FloatFormat;

/* Scientific when the nonzero finite magnitudes reach 1e8, go below
 * 1e-4 or span more than three decades. */
static bool needs_scientific(const double *values, int64_t n, bool single)
{
    double max = 0, min = INFINITY;
    for (int64_t i = 0; i < n; i++) {
        double m = fabs(values[i]);
        if (!isfinite(m) || m == 0)
            continue;
        max = m > max ? m : max;
        min = m < min ? m : min;
    }
    if (max == 0)
        return false;
    double ratio = single ? (double)((float)max / (float)min) : max / min;
    return max >= 1e8 || min < 1e-4 || ratio > 1000;
}

/* Widens the layout so that nan and inf, right-aligned, fit in it. */
static void fit_non_finite(FloatFormat *f, const double *values, int64_t n)
{
    bool any = false, neg_inf = f->sign_plus;
    for (int64_t i = 0; i < n; i++) {
        any |= !isfinite(values[i]);
        neg_inf |= isinf(values[i]) && values[i] < 0;
    }
    if (!any)
        return;
    int offset = f->pad_right + 1;              /* +1 for the point */
    int nan_pad = 3 - offset, inf_pad = 3 + neg_inf - offset;
    if (nan_pad > f->pad_left)
        f->pad_left = nan_pad;
    if (inf_pad > f->pad_left)
        f->pad_left = inf_pad;
}

/* FloatingFormat.fillFormat: print every finite value once with the
 * "maxprec" rule (unique digits, at most 8 after the point) and keep the
 * widest parts, so that all elements line up. */
static FloatFormat float_format_fit(const double *values, int64_t n,
                                    bool single, bool sign_plus)
{
    FloatFormat f = {.single = single, .sign_plus = sign_plus,
                     .precision = PRINT_PRECISION, .exp_digits = -1};
    f.scientific = needs_scientific(values, n, single);
    int frac = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(values[i]))
            continue;
        Decimal d = cut_decimal(values[i], single, f.scientific,
                                PRINT_PRECISION, -1);
        int left = int_part_length(&d, sign_plus, f.scientific);
        int right = frac_part_length(&d, f.scientific);
        f.pad_left = left > f.pad_left ? left : f.pad_left;
        frac = right > frac ? right : frac;
        if (f.scientific && exponent_length(&d) > f.exp_digits)
            f.exp_digits = exponent_length(&d);
    }
    if (f.scientific) {
        f.precision = f.min_digits = frac;
        f.pad_right = f.exp_digits + 2 + frac;     /* "e+05" and digits */
    } else {
        f.pad_right = frac;
    }
    fit_non_finite(&f, values, n);
    return f;
}

/* One float in the fitted layout: " 0.5", "1.e-05", "  nan". */
static void put_float(Text *t, const FloatFormat *f, double x)
{
    if (!isfinite(x)) {
        const char *word = isnan(x) ? (f->sign_plus ? "+nan" : "nan")
                         : x < 0 ? "-inf" : f->sign_plus ? "+inf" : "inf";
        int width = f->pad_left + f->pad_right + 1;
        text_repeat(t, ' ', width - (int)strlen(word));
        text_puts(t, word);
        return;
    }
    Decimal d = cut_decimal(x, f->single, f->scientific, f->precision,
                            f->min_digits);
    if (f->scientific)
        put_scientific(t, &d, f->sign_plus, f->min_digits, f->pad_left,
                       f->exp_digits);
    else
        put_positional(t, &d, f->sign_plus, f->min_digits, f->pad_left,
                       f->pad_right);
}

/* ------------------------------------------------------------ elements */

/* How every element of one array is written. */
typedef struct ElementFormat {
    NdDtype dtype;
    bool is_0d;             /* a 0-d bool prints "True", not " True" */
    int int_width;          /* digits and sign of the widest integer */
    FloatFormat real, imag; /* floats, and the two parts of complexes */
} ElementFormat;

/* The C-order flat index step of each axis. */
static void c_strides(const NdArray *a, int64_t *strides)
{
    int64_t step = 1;
    for (int d = a->ndim - 1; d >= 0; d--) {
        strides[d] = step;
        step *= a->shape[d];
    }
}

/* How many entries of an axis of length n are printed, and which index
 * the k-th one is: all of them, or the first and last EDGEITEMS. */
static int64_t shown_count(int64_t n, bool summarize)
{
    return summarize && n > 2 * PRINT_EDGEITEMS ? 2 * PRINT_EDGEITEMS : n;
}

static int64_t shown_index(int64_t n, bool summarize, int64_t k)
{
    int64_t count = shown_count(n, summarize);
    return k < count / 2 || count == n ? k : n - count + k;
}

/* Appends the flat indices of the printed elements to out. */
static int64_t collect_shown(const NdArray *a, const int64_t *strides,
                             bool summarize, int axis, int64_t offset,
                             int64_t *out, int64_t count)
{
    if (axis == a->ndim) {
        out[count] = offset;
        return count + 1;
    }
    for (int64_t k = 0; k < shown_count(a->shape[axis], summarize); k++) {
        int64_t i = shown_index(a->shape[axis], summarize, k);
        count = collect_shown(a, strides, summarize, axis + 1,
                              offset + i * strides[axis], out, count);
    }
    return count;
}

/* Fits the format to the n elements at the flat indices shown. */
static ElementFormat element_format_fit(const char *op, const NdArray *a,
                                        const int64_t *shown, int64_t n)
{
    ElementFormat f = {.dtype = a->dtype, .is_0d = a->ndim == 0};
    if (nd_dtype_is_integer(a->dtype)) {
        for (int64_t i = 0; i < n; i++) {
            int width = snprintf(NULL, 0, "%" PRId64,
                                 load_integer(a, shown[i]));
            f.int_width = width > f.int_width ? width : f.int_width;
        }
    }
    if (!nd_dtype_is_float(a->dtype) && !nd_dtype_is_complex(a->dtype))
        return f;
    bool single = a->dtype == ND_FLOAT32 || a->dtype == ND_COMPLEX64;
    double *re = malloc(2 * (size_t)n * sizeof *re), *im = re + n;
    if (!re)
        nd_error(op, "out of memory");
    for (int64_t i = 0; i < n; i++) {
        double complex z = nd_load_complex(a->data, a->dtype, shown[i]);
        re[i] = creal(z);
        im[i] = cimag(z);
    }
    f.real = float_format_fit(re, n, single, false);
    f.imag = float_format_fit(im, n, single, true);
    free(re);
    return f;
}

/* Element i (flat) in the array's format. */
static void put_element(Text *t, const ElementFormat *f, const NdArray *a,
                        int64_t i)
{
    switch (f->dtype) {
    case ND_BOOL:
        text_puts(t, !ND_DATA(a, bool)[i] ? "False"
                     : f->is_0d ? "True" : " True");
        break;
    case ND_UINT8:
    case ND_INT64: {
        char digits[32];
        snprintf(digits, sizeof digits, "%*" PRId64, f->int_width,
                 load_integer(a, i));
        text_puts(t, digits);
        break;
    }
    case ND_FLOAT32:
    case ND_FLOAT64:
        put_float(t, &f->real, nd_load(a->data, a->dtype, i));
        break;
    case ND_COMPLEX64:
    case ND_COMPLEX128: {
        double complex z = nd_load_complex(a->data, a->dtype, i);
        put_float(t, &f->real, creal(z));
        size_t start = t->len;
        put_float(t, &f->imag, cimag(z));
        size_t spaces = 0;                  /* the "j" goes before them */
        while (t->len - spaces > start && t->buf[t->len - spaces - 1] == ' ')
            spaces++;
        t->len -= spaces;
        text_puts(t, "j");
        text_repeat(t, ' ', (int)spaces);
        break;
    }
    }
}

/* ------------------------------------------------------------ layout */

/* What _formatArray needs while it walks the array. */
typedef struct Printer {
    const NdArray *a;
    int64_t strides[ND_MAX_DIMS];
    bool summarize;
    const char *separator;      /* " " for str, ", " for repr */
    ElementFormat format;
    Text *out;
    Text word;                  /* scratch for one element */
} Printer;

/* Appends word to the current line, first breaking the line when the
 * word would pass width (unless the line holds only its indent). */
static void extend_line(Printer *p, const char *word, int width, int indent,
                        int *line_length)
{
    int length = (int)strlen(word);
    if (*line_length + length > width && *line_length > indent) {
        text_rstrip(p->out);
        text_puts(p->out, "\n");
        text_repeat(p->out, ' ', indent);
        *line_length = indent;
    }
    text_puts(p->out, word);
    *line_length += length;
}

/* The last axis: elements separated, and wrapped to the hanging
 * indent when a line would pass width. */
static void print_row(Printer *p, int64_t offset, int indent, int width)
{
    int64_t n = p->a->shape[p->a->ndim - 1];
    int64_t count = shown_count(n, p->summarize);
    int line_length = indent, separator_length = (int)strlen(p->separator);
    int elem_width = width - 1;                 /* room for the "]" */
    for (int64_t k = 0; k < count; k++) {
        if (count < n && k == count / 2) {       /* the hidden middle */
            extend_line(p, "...", elem_width, indent, &line_length);
            text_puts(p->out, p->separator);
            line_length += separator_length;
        }
        text_clear(&p->word);
        put_element(&p->word, &p->format, p->a,
                    offset + shown_index(n, p->summarize, k));
        extend_line(p, p->word.buf, elem_width, indent, &line_length);
        if (k < count - 1) {
            text_puts(p->out, p->separator);
            line_length += separator_length;
        }
    }
}

static void print_axis(Printer *p, int axis, int64_t offset, int indent,
                       int width);

/* An outer axis: sub-arrays one per line, with a blank line between
 * blocks for each axis more than one above the rows. */
static void print_block(Printer *p, int axis, int64_t offset, int indent,
                        int width)
{
    int64_t n = p->a->shape[axis];
    int64_t count = shown_count(n, p->summarize);
    char line_separator[ND_MAX_DIMS + 2];       /* ",\n\n", "\n", ... */
    int length = 0;
    if (p->separator[0] == ',')
        line_separator[length++] = ',';
    for (int d = axis + 1; d < p->a->ndim; d++)
        line_separator[length++] = '\n';
    line_separator[length] = '\0';
    for (int64_t k = 0; k < count; k++) {
        if (k > 0)
            text_repeat(p->out, ' ', indent);
        if (count < n && k == count / 2) {
            text_puts(p->out, "...");
            text_puts(p->out, line_separator);
            text_repeat(p->out, ' ', indent);
        }
        int64_t i = shown_index(n, p->summarize, k);
        print_axis(p, axis + 1, offset + i * p->strides[axis], indent + 1,
                   width - 1);
        if (k < count - 1)
            text_puts(p->out, line_separator);
    }
}

/* "[...]" of the sub-array at offset along axis. indent is the width
 * of the hanging indent, whose first character the "[" replaces, and
 * width the line width left at this depth (NumPy's curr_width). */
static void print_axis(Printer *p, int axis, int64_t offset, int indent,
                       int width)
{
    text_puts(p->out, "[");
    if (axis == p->a->ndim - 1)
        print_row(p, offset, indent, width);
    else
        print_block(p, axis, offset, indent, width);
    text_puts(p->out, "]");
}

/* NumPy's array2string for a non-empty array: the format fitted to the
 * shown elements, then the nested brackets. prefix_length is the width
 * of "array(" before the text. */
static void array_to_text(Text *out, const NdArray *a, const char *separator,
                          int prefix_length, int line_width)
{
    Printer p = {.a = a, .separator = separator, .out = out,
                 .word = {.op = out->op}};
    c_strides(a, p.strides);
    p.summarize = a->size > PRINT_THRESHOLD;
    int64_t n = 1;
    for (int d = 0; d < a->ndim; d++)
        n *= shown_count(a->shape[d], p.summarize);
    int64_t *shown = malloc((size_t)n * sizeof *shown);
    if (!shown)
        nd_error(out->op, "out of memory");
    collect_shown(a, p.strides, p.summarize, 0, 0, shown, 0);
    p.format = element_format_fit(out->op, a, shown, n);
    free(shown);
    if (a->ndim == 0)
        put_element(out, &p.format, a, 0);
    else
        print_axis(&p, 0, 0, prefix_length + 1, line_width);
    free(p.word.buf);
}

/* ------------------------------------------------------------ public */

/* A device array prints as CuPy's does: from a copy on the host. */
static char *printed_from_host(char *(*print)(const NdArray *),
                               const NdArray *a)
{
    NdArray *host = nd_to_device(a, ND_CPU);
    char *text = print(host);
    nd_release(host);
    return text;
}

char *nd_str(const NdArray *a)
{
    if (nd_same_device("nd_str", 1, &a) != ND_CPU)
        return printed_from_host(nd_str, a);
    Text t = {.op = "nd_str"};
    if (a->ndim == 0)
        put_scalar_str(&t, a);
    else if (a->size == 0)
        text_puts(&t, "[]");
    else
        array_to_text(&t, a, " ", 0, PRINT_LINEWIDTH);
    return text_finish(&t);
}

/* Whether repr leaves the dtype out: NumPy's defaults for Python's
 * bool, int, float and complex. */
static bool dtype_is_implied(NdDtype dtype)
{
    return dtype == ND_BOOL || dtype == ND_INT64 || dtype == ND_FLOAT64 ||
           dtype == ND_COMPLEX128;
}

char *nd_repr(const NdArray *a)
{
    if (nd_same_device("nd_repr", 1, &a) != ND_CPU)
        return printed_from_host(nd_repr, a);
    static const char prefix[] = "array(";
    int prefix_length = (int)strlen(prefix);
    bool show_dtype = !dtype_is_implied(a->dtype) || a->size == 0;
    Text t = {.op = "nd_repr"};
    text_puts(&t, prefix);
    if (a->size > 0) {              /* the ")" or "," after it counts */
        array_to_text(&t, a, ", ", prefix_length, PRINT_LINEWIDTH - 1);
    } else {
        char shape[ND_SHAPE_TEXT];
        text_puts(&t, "[]");
        if (a->ndim != 1) {
            text_puts(&t, ", shape=");
            text_puts(&t, nd_format_shape(shape, a->ndim, a->shape, true));
        }
    }
    if (!show_dtype) {
        text_puts(&t, ")");
        return text_finish(&t);
    }
    text_puts(&t, ",");
    char dtype[32];
    snprintf(dtype, sizeof dtype, "dtype=%s)", nd_dtype_name(a->dtype));
    char *last_newline = strrchr(text_finish(&t), '\n');
    size_t last_line = t.len - (last_newline ? (size_t)(last_newline -
                                                        t.buf) + 1 : 0);
    if (last_line + strlen(dtype) + 1 > PRINT_LINEWIDTH) {
        text_puts(&t, "\n");
        text_repeat(&t, ' ', prefix_length);
    } else {
        text_puts(&t, " ");
    }
    text_puts(&t, dtype);
    return text_finish(&t);
}

char *nd_str_indented(const NdArray *a, int indent)
{
    nd_same_device("nd_str_indented", 1, &a);   /* nd_str copies it */
    if (indent < 0)
        nd_error("nd_str_indented", "indent must be >= 0, got %d", indent);
    char *plain = nd_str(a);
    Text t = {.op = "nd_str_indented"};
    for (const char *c = plain; *c; c++) {
        text_putn(&t, c, 1);
        if (*c == '\n')
            text_repeat(&t, ' ', indent);
    }
    free(plain);
    return text_finish(&t);
}

void nd_print(const NdArray *a)
{
    nd_same_device("nd_print", 1, &a);
    char *text = nd_str(a);
    puts(text);
    free(text);
}
