/* function_layer.h - a function as a layer, so that a Sequential can
 * hold it: Python's Sequential calls whatever it is given, F.relu or a
 * lambda as well as a layer; C's holds layers, so a function goes in
 * wrapped in one. */
#ifndef EXAMPLES_FUNCTION_LAYER_H
#define EXAMPLES_FUNCTION_LAYER_H

#include "dezero.h"

/* A layer without parameters whose forward is f(x) (Python: the
 * function itself, in Sequential(L.Linear(10), F.relu)). f returns a
 * Variable of the innermost pool and borrows x, as a forward does.
 * Owned by the innermost pool. */
Layer *function_layer(Variable *(*f)(Variable *x));

#endif /* EXAMPLES_FUNCTION_LAYER_H */
