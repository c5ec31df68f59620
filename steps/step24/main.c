/* Step 24: differentiating complex functions.
 *
 * Three functions that optimization methods are tested on, written
 * with the arithmetic of steps 20 to 22 so that each can be read
 * against its formula; the program differentiates Goldstein-Price at
 * (1, 1). */
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"

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

int main(void)
{
    Pool *pool = pool_new();
    Variable *x = variable(nd_scalar(1.0));
    Variable *y = variable(nd_scalar(1.0));
    Variable *z = goldstein(x, y);      /* or sphere(x, y), matyas(x, y) */
    backward(z);

    char *gx = nd_str(x->grad), *gy = nd_str(y->grad);
    printf("%s %s\n", gx, gy);          /* Python: print(x.grad, y.grad) */
    free(gx);
    free(gy);
    pool_drain(pool);
    return 0;
}
