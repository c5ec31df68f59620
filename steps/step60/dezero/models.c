/* models.c - models, as the book's models.py: drawing a model's graph
 * (Python: Model.plot), and MLP, a stack of Linear layers with an
 * activation between them. */
#include <stdio.h>

#include "dezero.h"

/* The graph of model's forward pass on x, drawn into to_file with each
 * variable's shape and dtype (Python: Model.plot, which calls
 * self.forward and plot_dot_graph(y, verbose=True)). */
bool (model_plot)(Model *model, Variable *x, const char *to_file)
{
    Variable *y = layer_call(model, x);
    return plot_dot_graph(y, true, to_file);
}

/* ---- MLP */

/* Each Linear but the last, followed by the activation; then the last
 * (Python: MLP.forward). */
static Variable *mlp_forward(Layer *self, Variable *x)
{
    const MLPModel *m = (const MLPModel *)self;
    for (int i = 0; i < self->nlayers - 1; i++)
        x = m->activation(layer_call(self->layers[i], x));
    return layer_call(self->layers[self->nlayers - 1], x);
}

static const LayerClass mlp_class = {
    .name = "MLP",
    .forward = mlp_forward,
};

/* A new MLP with a Linear layer for each of the nsizes output sizes,
 * registered in order as l0, l1, ... (Python: setattr(self, 'l' +
 * str(i), layer)), each making its weight at its first call. */
Model *mlp(int nsizes, const int64_t *sizes,
           Variable *(*activation)(Variable *x))
{
    if (nsizes < 1)
        nd_error("mlp", "an MLP needs at least one layer size");
    MLPModel *m = (MLPModel *)layer_new(&mlp_class, sizeof *m);
    m->activation = activation ? activation : F_sigmoid;
    for (int i = 0; i < nsizes; i++) {
        char name[16];
        snprintf(name, sizeof name, "l%d", i);
        layer_add_layer(&m->layer, L_linear(sizes[i]), .name = name);
    }
    return &m->layer;
}
