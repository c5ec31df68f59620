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
static char *renumbered(const char *text)
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

#endif /* DOT_TEXT_H */
