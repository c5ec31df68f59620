/* datasets.c - the data sets the examples learn from, as the book's
 * datasets.py: get_spiral, three spiral arms of 100 points each, one
 * class per arm. */
#include "dezero.h"

/* The spiral's points: for class j and i = 0 .. 99, at radius i / 100
 * and angle 4j + 4 i / 100 plus gaussian noise of 0.2, computed in
 * float64 and stored as float32; then the rows shuffled. Reseeds the
 * global generator, 1984 for the training set and 2020 for the test
 * set, and draws from it in Python's order: the 300 gaussians, class
 * by class, then the permutation. Stores new references in *x (300, 2)
 * float32 and *t (300,) int64 (Python: x, t = get_spiral(train)). */
void get_spiral(bool train, NdArray **x, NdArray **t)
{
    enum { NUM_DATA = 100, NUM_CLASS = 3, DATA_SIZE = NUM_CLASS * NUM_DATA };
    nd_random_seed(train ? 1984 : 2020);
    NdArray *noise = nd_random_randn(ND_SHAPE(DATA_SIZE));     // (300,)
    NdArray *radius = nd_empty(ND_FLOAT64, ND_SHAPE(DATA_SIZE));
    NdArray *theta = nd_empty(ND_FLOAT64, ND_SHAPE(DATA_SIZE));
    NdArray *label = nd_empty(ND_INT64, ND_SHAPE(DATA_SIZE));
    for (int j = 0; j < NUM_CLASS; j++)
        for (int i = 0; i < NUM_DATA; i++) {
            int ix = NUM_DATA * j + i;
            double rate = (double)i / NUM_DATA;
            ND_DATA(radius, double)[ix] = 1.0 * rate;
            ND_DATA(theta, double)[ix] = j * 4.0 + 4.0 * rate +
                                         ND_DATA(noise, double)[ix] * 0.2;
            ND_DATA(label, int64_t)[ix] = j;
        }
    NdArray *sin = nd_sin(theta), *cos = nd_cos(theta);
    NdArray *columns[] = {nd_mul(radius, sin), nd_mul(radius, cos)};
    NdArray *points = nd_stack(2, columns, 1);                 // (300, 2)
    NdArray *x32 = nd_astype(points, ND_FLOAT32);

    NdArray *indices = nd_random_permutation(DATA_SIZE);       // shuffle
    *x = nd_getitem(x32, 1, (NdIndex[]){ND_IDX_ARRAY(indices)});
    *t = nd_getitem(label, 1, (NdIndex[]){ND_IDX_ARRAY(indices)});
    nd_release(indices);
    nd_release(x32);
    nd_release(points);
    nd_release(columns[1]);
    nd_release(columns[0]);
    nd_release(cos);
    nd_release(sin);
    nd_release(label);
    nd_release(theta);
    nd_release(radius);
    nd_release(noise);
}
