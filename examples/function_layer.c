/* function_layer.c - a function as a layer (function_layer.h). */
#include "function_layer.h"

typedef struct FunctionLayer {
    Layer layer;                /* first: a FunctionLayer * is a Layer * */
    Variable *(*f)(Variable *x);
} FunctionLayer;

static Variable *function_layer_forward(Layer *self, Variable *x)
{
    return ((FunctionLayer *)self)->f(x);
}

static const LayerClass function_layer_class = {
    .name = "FunctionLayer",
    .forward = function_layer_forward,
};

Layer *function_layer(Variable *(*f)(Variable *x))
{
    FunctionLayer *layer = (FunctionLayer *)layer_new(&function_layer_class,
                                                      sizeof *layer);
    layer->f = f;
    return &layer->layer;
}
