/* Step 01: a Variable is a box that holds an array.
 *
 * The array comes from common/ (our NumPy); the Variable is the first
 * piece of DeZero, and for now it only holds its data. */
#include <stdio.h>
#include <stdlib.h>

#include "nd.h"

typedef struct Variable {
    NdArray *data;
} Variable;

/* A new Variable holding data. It takes over the caller's reference to
 * data, so variable(nd_scalar(1.0)) leaks nothing. */
Variable *variable(NdArray *data)
{
    Variable *v = malloc(sizeof *v);
    if (!v) {
        fprintf(stderr, "variable: out of memory\n");
        exit(1);
    }
    v->data = data;
    return v;
}

/* Frees v and its array. Accepts NULL. */
void variable_free(Variable *v)
{
    if (!v)
        return;
    nd_release(v->data);
    free(v);
}

int main(void)
{
    NdArray *data = nd_scalar(1.0);
    Variable *x = variable(data);
    nd_print(x->data);

    /* The box can be refilled: release the old array, store the new. */
    nd_release(x->data);
    x->data = nd_scalar(2.0);
    nd_print(x->data);

    variable_free(x);
    return 0;
}
