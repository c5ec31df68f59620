/* sample.c - C written the ways the book's extractor must handle
 * (tests/book/extract.md shows each piece; tests/book_check.sh compares
 * the result with extract.expected). Not built. */
#include <stdio.h>

#define LIMIT 80
/* A macro on more than one line. */
#define SQUARE(x) \
    ((x) *        \
     (x))

/* A shape, by its typedef name. */
typedef struct Shape {
    int ndim;
    long dims[8];
} Shape;

// A node, by its tag only.
// Two line comments above it.
struct Node {
    struct Node *next;
};

typedef enum Color { RED, GREEN }
    Color;

/* A function pointer type. */
typedef double (*UnaryFn)(double x);

/* Declared first ... */
double twice(double x);

static const char *names[] = { "{", "}" };

/* A table of functions: a global with an initialiser. */
static const UnaryFn TABLE[] = {
    NULL,
};

/* ... and defined here, with braces in strings and comments. */
double twice(double x)
{
    const char *open = "{ not a brace";
    /* } nor this one */
    char close = '}';
    (void)open;
    (void)close;
    return 2 * x;
}

/* The return type on a line of its own. */
static double
half(double x)
{
    return x / 2;
}

int main(void)
{
    // region: body
    double y = twice(half(3.0));
    /* region: inner */
    printf("%g\n", y);
    /* endregion */
    // endregion
    printf("%s %d\n", names[0], SQUARE(LIMIT));
    return 0;
}
