/* dot_text.h - for tests of the DOT text a step writes: node ids are
 * object addresses, different in every run, so a test compares the
 * text with its ids renumbered in order of first appearance. */
#ifndef DOT_TEXT_H
#define DOT_TEXT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd_test.h"

/* text with every run of 6 or more digits (an address) replaced by n1,
 * n2, ... in order of first appearance; the caller frees it. */
static inline char *renumbered(const char *text)
{
    enum { MAX_IDS = 512 };
    char ids[MAX_IDS][24];
    int nids = 0;
    size_t size = strlen(text) + 1;
    char *out = malloc(size);
    assert_non_null(out);
    size_t o = 0;
    for (const char *p = text; *p;) {
        size_t run = strspn(p, "0123456789");
        if (run < 6) {
            size_t n = run ? run : 1;
            memcpy(out + o, p, n);
            o += n;
            p += n;
            continue;
        }
        assert_true(run < sizeof ids[0]);
        int k = 0;
        while (k < nids && !(strlen(ids[k]) == run &&
                             strncmp(ids[k], p, run) == 0))
            k++;
        if (k == nids) {
            assert_true(nids < MAX_IDS);
            memcpy(ids[nids], p, run);
            ids[nids++][run] = '\0';
        }
        o += (size_t)sprintf(out + o, "n%d", k + 1);  /* never longer */
        p += run;
    }
    out[o] = '\0';
    return out;
}

/* Asserts that DOT texts got and want are the same graph: equal once
 * both are renumbered. A failure names the test's line and the first
 * line of the texts that differs. */
static inline void dot_expect_same(const char *file, int line,
                                   const char *got, const char *want)
{
    char *g = renumbered(got), *w = renumbered(want);
    const char *a = g, *b = w;
    int n = 1;
    for (; *a && *a == *b; a++, b++)
        n += *a == '\n';
    if (*a != *b) {
        while (a > g && a[-1] != '\n')
            a--, b--;
        nd_test_fail_at(file, line, "the graphs differ at line %d: got "
                        "\"%.*s\", want \"%.*s\"", n,
                        (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"),
                        b);
    }
    free(g);
    free(w);
}
#define EXPECT_SAME_GRAPH(got, want) \
    dot_expect_same(__FILE__, __LINE__, (got), (want))

/* The text of a file of the suite (tests/golden/files/...), read from
 * the repository root, where tests/run.sh runs the tests; the caller
 * frees it. */
static inline char *suite_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s (run the test from the repository root)",
                 path);
    size_t cap = 1 << 16, len = 0, n;
    char *text = malloc(cap);
    assert_non_null(text);
    while ((n = fread(text + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len + 1 == cap) {
            text = realloc(text, cap *= 2);
            assert_non_null(text);
        }
    }
    text[len] = '\0';
    fclose(f);
    return text;
}

#endif /* DOT_TEXT_H */
