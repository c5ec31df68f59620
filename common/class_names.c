/* class_names.c - nd_read_class_names of class_names.h: a small
 * recursive-descent reader for a Python dict literal of int keys and
 * str values, which is all of Python's syntax the file uses. Every
 * failure frees what was read and stops with the file, line and column
 * of the problem. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "class_names.h"
#include "nd.h"

static const char *const OP = "nd_read_class_names";

enum { MAX_CLASSES = 1000000 };

typedef struct Entry {
    long key;
    char *name;
    size_t pos;                     /* where the key is, for messages */
} Entry;

typedef struct Reader {
    const char *path;
    char *text;                     /* the whole file, NUL-terminated */
    size_t size, pos;
    Entry *entries;                 /* (count,), in the file's order */
    int count, capacity;
    char *name;                     /* the string being read */
    size_t length, room;
} Reader;

static void free_reader(Reader *r)
{
    for (int i = 0; i < r->count; i++)
        free(r->entries[i].name);
    free(r->entries);
    free(r->name);
    free(r->text);
}

/* Stops with "path:line:column: message", at the reader's position. */
__attribute__((format(printf, 2, 3)))
static _Noreturn void fail(Reader *r, const char *format, ...)
{
    int line = 1, column = 1;
    for (size_t i = 0; i < r->pos && i < r->size; i++) {
        column = r->text[i] == '\n' ? 1 : column + 1;
        line += r->text[i] == '\n';
    }
    char message[512];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    char path[512];
    snprintf(path, sizeof path, "%s", r->path);
    free_reader(r);
    nd_error(OP, "%s:%d:%d: %s", path, line, column, message);
}

static int peek(const Reader *r, size_t ahead)
{
    size_t i = r->pos + ahead;
    return i < r->size ? (unsigned char)r->text[i] : EOF;
}

/* Skips spaces, newlines, comments and backslash-newline joins. */
static void skip_space(Reader *r)
{
    for (;;) {
        int c = peek(r, 0);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f')
            r->pos++;
        else if (c == '#')
            while (peek(r, 0) != EOF && peek(r, 0) != '\n')
                r->pos++;
        else if (c == '\\' && peek(r, 1) == '\n')
            r->pos += 2;
        else
            return;
    }
}

/* What the reader is at, for messages: "'x'" or "the end of the file". */
static const char *seen(const Reader *r, char *text, size_t size)
{
    int c = peek(r, 0);
    if (c == EOF)
        return "the end of the file";
    snprintf(text, size, c > ' ' && c < 127 ? "'%c'" : "byte 0x%02x", c);
    return text;
}

static void expect(Reader *r, char c, const char *what)
{
    char text[16];
    if (peek(r, 0) != c)
        fail(r, "expected %s, found %s", what, seen(r, text, sizeof text));
    r->pos++;
}

/* ------------------------------------------------------------ strings */

static void add_byte(Reader *r, unsigned char byte)
{
    if (r->length + 1 >= r->room) {
        size_t room = r->room ? r->room * 2 : 64;
        char *grown = realloc(r->name, room);
        if (!grown)
            fail(r, "out of memory");
        r->name = grown;
        r->room = room;
    }
    r->name[r->length++] = (char)byte;
    r->name[r->length] = '\0';
}

/* Code point cp as UTF-8, as Python's str holds it. */
static void add_code_point(Reader *r, unsigned long cp)
{
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        fail(r, "the escape names U+%04lX, which is not a character", cp);
    if (cp < 0x80) {
        add_byte(r, (unsigned char)cp);
    } else if (cp < 0x800) {
        add_byte(r, (unsigned char)(0xC0 | cp >> 6));
        add_byte(r, (unsigned char)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        add_byte(r, (unsigned char)(0xE0 | cp >> 12));
        add_byte(r, (unsigned char)(0x80 | (cp >> 6 & 0x3F)));
        add_byte(r, (unsigned char)(0x80 | (cp & 0x3F)));
    } else {
        add_byte(r, (unsigned char)(0xF0 | cp >> 18));
        add_byte(r, (unsigned char)(0x80 | (cp >> 12 & 0x3F)));
        add_byte(r, (unsigned char)(0x80 | (cp >> 6 & 0x3F)));
        add_byte(r, (unsigned char)(0x80 | (cp & 0x3F)));
    }
}

/* The `digits` hex digits of \xhh, \uXXXX or \UXXXXXXXX. */
static unsigned long hex_escape(Reader *r, int digits, char kind)
{
    unsigned long value = 0;
    for (int i = 0; i < digits; i++) {
        int c = peek(r, 0);
        int digit = c >= '0' && c <= '9' ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (digit < 0)
            fail(r, "\\%c takes %d hex digits", kind, digits);
        value = value * 16 + (unsigned long)digit;
        r->pos++;
    }
    return value;
}

/* One escape, after its backslash, as Python 3 reads it in a str. */
static void escape(Reader *r)
{
    int c = peek(r, 0);
    const char *simple = "\\\\''\"\"a\ab\bf\fn\nr\rt\tv\v";
    for (const char *s = simple; *s; s += 2)
        if (c == *s) {
            add_byte(r, (unsigned char)s[1]);
            r->pos++;
            return;
        }
    if (c == '\n') {                        /* a line continued */
        r->pos++;
    } else if (c >= '0' && c <= '7') {
        unsigned long value = 0;
        for (int i = 0; i < 3 && peek(r, 0) >= '0' && peek(r, 0) <= '7'; i++)
            value = value * 8 + (unsigned long)(peek(r, 0) - '0'), r->pos++;
        add_code_point(r, value);
    } else if (c == 'x' || c == 'u' || c == 'U') {
        r->pos++;
        add_code_point(r, hex_escape(r, c == 'x' ? 2 : c == 'u' ? 4 : 8,
                                     (char)c));
    } else if (c == 'N') {
        fail(r, "\\N{...} escapes (characters by name) are not supported");
    } else {
        add_byte(r, '\\');                  /* Python keeps "\d" as is */
    }
}

/* One literal, 'text', "text", '''text''' or """text""", added to the
 * name being read. */
static void literal(Reader *r)
{
    int c = peek(r, 0);
    if (c == 'u' || c == 'U') {             /* u'text' is the same str */
        r->pos++;
        c = peek(r, 0);
    }
    if (c != '\'' && c != '"') {
        char text[16];
        fail(r, "expected a string in quotes, found %s%s",
             seen(r, text, sizeof text), strchr("rRbBfF", c) ?
             " (only plain string literals are read)" : "");
    }
    bool triple = peek(r, 1) == c && peek(r, 2) == c;
    size_t start = r->pos;
    r->pos += triple ? 3 : 1;
    for (;;) {
        int k = peek(r, 0);
        if (k == EOF || (k == '\n' && !triple)) {
            r->pos = start;
            fail(r, "this string does not end%s", triple ? "" :
                 " on its line");
        }
        if (k == c && (!triple || (peek(r, 1) == c && peek(r, 2) == c))) {
            r->pos += triple ? 3 : 1;
            return;
        }
        r->pos++;
        if (k == '\\')
            escape(r);
        else
            add_byte(r, (unsigned char)k);
    }
}

/* Whether a string literal starts here: a quote, or u and a quote. */
static bool at_literal(const Reader *r)
{
    int c = peek(r, 0), next = peek(r, 1);
    return c == '\'' || c == '"' ||
           ((c == 'u' || c == 'U') && (next == '\'' || next == '"'));
}

/* A name: one literal or several side by side, joined as Python joins
 * them. Returns it, malloc'd. */
static char *name(Reader *r)
{
    r->length = 0;
    if (r->name)
        r->name[0] = '\0';
    do {
        literal(r);
        skip_space(r);
    } while (at_literal(r));
    char *copy = strdup(r->name ? r->name : "");     /* '' is a name too */
    if (!copy)
        fail(r, "out of memory");
    return copy;
}

/* ------------------------------------------------------------ dict */

static long key(Reader *r)
{
    char text[16];
    int c = peek(r, 0);
    if (c < '0' || c > '9')
        fail(r, "expected a class number, found %s",
             seen(r, text, sizeof text));
    if (c == '0' && peek(r, 1) >= '0' && peek(r, 1) <= '9')
        fail(r, "a class number with a leading 0 (Python refuses it)");
    long value = 0;
    while ((c = peek(r, 0)) >= '0' && c <= '9') {
        value = value * 10 + (c - '0');
        if (value >= MAX_CLASSES)
            fail(r, "class numbers go up to %d", MAX_CLASSES - 1);
        r->pos++;
    }
    return value;
}

static void add_entry(Reader *r, long k, char *text, size_t pos)
{
    if (r->count == r->capacity) {
        int capacity = r->capacity ? r->capacity * 2 : 1024;
        Entry *grown = realloc(r->entries,
                               (size_t)capacity * sizeof *grown);
        if (!grown) {
            free(text);
            fail(r, "out of memory");
        }
        r->entries = grown;
        r->capacity = capacity;
    }
    r->entries[r->count++] = (Entry){k, text, pos};
}

/* { key: name, ... } with an optional trailing comma. */
static void dict(Reader *r)
{
    skip_space(r);
    expect(r, '{', "'{' (a dict of class numbers to names)");
    skip_space(r);
    while (peek(r, 0) != '}') {
        size_t at = r->pos;
        long k = key(r);
        skip_space(r);
        expect(r, ':', "':' after the class number");
        skip_space(r);
        add_entry(r, k, name(r), at);
        if (peek(r, 0) != ',')
            break;
        r->pos++;
        skip_space(r);
    }
    expect(r, '}', "',' or '}'");
    skip_space(r);
    if (peek(r, 0) != EOF) {
        char text[16];
        fail(r, "expected the end of the file after the dict, found %s",
             seen(r, text, sizeof text));
    }
    if (r->count == 0)
        fail(r, "the dict holds no classes");
}

/* ------------------------------------------------------------ read */

static void read_text(Reader *r)
{
    FILE *file = fopen(r->path, "rb");
    if (!file)
        nd_error(OP, "cannot open %s: %s", r->path, strerror(errno));
    size_t room = 1 << 16;
    r->text = malloc(room);
    while (r->text) {
        r->size += fread(r->text + r->size, 1, room - 1 - r->size, file);
        if (r->size < room - 1)
            break;
        char *grown = realloc(r->text, room * 2);
        if (!grown)
            free(r->text);
        r->text = grown;
        room *= 2;
    }
    int error = ferror(file) ? errno : 0;
    fclose(file);
    if (!r->text)
        nd_error(OP, "%s: out of memory", r->path);
    r->text[r->size] = '\0';
    if (error) {
        free(r->text);
        nd_error(OP, "cannot read %s: %s", r->path, strerror(error));
    }
}

char **nd_read_class_names(const char *path, int *count)
{
    Reader r = {.path = path};
    read_text(&r);
    dict(&r);
    char **names = calloc((size_t)r.count, sizeof *names);
    if (!names)
        fail(&r, "out of memory");
    for (int i = 0; i < r.count; i++) {
        long k = r.entries[i].key;
        if (k >= r.count || names[k]) {
            free(names);                    /* the entries own the names */
            r.pos = r.entries[i].pos;
            if (k < r.count)
                fail(&r, "class %ld appears twice", k);
            fail(&r, "class %ld, but the %d classes must be numbered 0 "
                 "to %d, each once", k, r.count, r.count - 1);
        }
        names[k] = r.entries[i].name;
    }
    free(r.entries);
    free(r.name);
    free(r.text);
    *count = r.count;
    return names;
}

void nd_free_class_names(char **names, int count)
{
    if (!names)
        return;
    for (int i = 0; i < count; i++)
        free(names[i]);
    free(names);
}
