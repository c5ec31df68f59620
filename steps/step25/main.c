/* Step 25: visualizing the computational graph (1), the DOT language.
 *
 * The framework does not change. The program writes the graph
 * y = exp(x^2) in DOT, Graphviz's language for graphs, by hand and in
 * the style DeZero's own drawings take from step 26: variables are
 * orange ovals, functions light blue boxes. `dot hand_written.dot -T png
 * -o hand_written.png` draws it. Step 24's three test functions stay,
 * for step 26 to draw. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dezero.h"
#include "tempfile.h"

/* The sphere: z = x^2 + y^2. */
Variable *sphere(Variable *x, Variable *y)
{
    return F_add(F_pow(x, 2), F_pow(y, 2));
}

/* Matyas: z = 0.26 (x^2 + y^2) - 0.48 x y. */
Variable *matyas(Variable *x, Variable *y)
{
    return F_sub(F_mul(0.26, F_add(F_pow(x, 2), F_pow(y, 2))),
                 F_mul(F_mul(0.48, x), y));
}

/* Goldstein-Price:
 *   z = [1 + (x + y + 1)^2 (19 - 14x + 3x^2 - 14y + 6xy + 3y^2)]
 *     * [30 + (2x - 3y)^2 (18 - 32x + 12x^2 + 48y - 36xy + 27y^2)]
 * Each polynomial is built term by term, as the formula reads. */
Variable *goldstein(Variable *x, Variable *y)
{
    Variable *p = F_sub(19, F_mul(14, x));          /* 19 - 14x */
    p = F_add(p, F_mul(3, F_pow(x, 2)));            /*   + 3x^2 */
    p = F_sub(p, F_mul(14, y));                     /*   - 14y */
    p = F_add(p, F_mul(F_mul(6, x), y));            /*   + 6xy */
    p = F_add(p, F_mul(3, F_pow(y, 2)));            /*   + 3y^2 */
    Variable *a = F_pow(F_add(F_add(x, y), 1), 2);  /* (x + y + 1)^2 */
    Variable *left = F_add(1, F_mul(a, p));

    Variable *q = F_sub(18, F_mul(32, x));          /* 18 - 32x */
    q = F_add(q, F_mul(12, F_pow(x, 2)));           /*   + 12x^2 */
    q = F_add(q, F_mul(48, y));                     /*   + 48y */
    q = F_sub(q, F_mul(F_mul(36, x), y));           /*   - 36xy */
    q = F_add(q, F_mul(27, F_pow(y, 2)));           /*   + 27y^2 */
    Variable *b = F_pow(F_sub(F_mul(2, x), F_mul(3, y)), 2); /* (2x-3y)^2 */
    Variable *right = F_add(30, F_mul(b, q));

    return F_mul(left, right);
}

/* The graph of y = exp(x^2), a = x^2, in DOT: a statement per line,
 * first each node with its attributes, then the edges in the direction
 * the data flows. Node ids are numbers, as DeZero's will be; the label
 * is the text drawn. */
static const char hand_written_graph[] =
    "digraph g {\n"
    "1 [label=\"x\", color=orange, style=filled]\n"
    "2 [label=\"Square\", color=lightblue, style=filled, shape=box]\n"
    "3 [label=\"a\", color=orange, style=filled]\n"
    "4 [label=\"Exp\", color=lightblue, style=filled, shape=box]\n"
    "5 [label=\"y\", color=orange, style=filled]\n"
    "1 -> 2\n"
    "2 -> 3\n"
    "3 -> 4\n"
    "4 -> 5\n"
    "}\n";

/* Writes text into the file at path (replacing it), whole or not at
 * all: under a temporary name, renamed to path once every byte is
 * written and on the disk (common/tempfile.h), so that a full disk
 * leaves an earlier file as it was. Returns false, with a message that
 * names the file, when it cannot. */
static bool write_text_file(const char *path, const char *text)
{
    char *temporary;
    FILE *f = nd_create_file(path, &temporary);
    if (!f) {
        fprintf(stderr, "write_text_file: cannot open %s: %s\n", path,
                strerror(errno));
        return false;
    }
    fputs(text, f);
    char problem[512];
    if (!nd_close_file(f, temporary, path, true, problem, sizeof problem)) {
        fprintf(stderr, "write_text_file: %s\n", problem);
        return false;
    }
    return true;
}

int main(void)
{
    return write_text_file("hand_written.dot", hand_written_graph) ?
           EXIT_SUCCESS : EXIT_FAILURE;
}
