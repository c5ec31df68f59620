/* idx.h - reading IDX files, the format MNIST ships in, into uint8
 * arrays. A file may be gzip-compressed or plain: zlib reads both. A
 * gzip file is read as Python's gzip module reads it: its members one
 * after the other, zero bytes after them allowed, other bytes refused.
 *
 * Ownership as in nd.h: the arrays returned are new references the
 * caller releases; paths are borrowed. Every problem with a file (it is
 * missing, not IDX, of another shape, truncated, longer than announced,
 * a corrupt gzip stream, gzip data followed by other bytes) goes to
 * nd_error() with a message that names the file and says what was
 * wrong. Hostile input never crashes.
 */
#ifndef ND_IDX_H
#define ND_IDX_H

#include <stdint.h>

#include "nd.h"

/* Reads the IDX file at path, which must hold unsigned bytes (type
 * 0x08) of shape (ndim, shape), where an extent of -1 takes any size:
 *     nd_load_idx(path, ND_SHAPE(-1, 28, 28))     (N, 28, 28) images
 *     nd_load_idx(path, ND_SHAPE(-1))             (N,) labels
 * Returns a new uint8 array of the file's shape. */
NdArray *nd_load_idx(const char *path, int ndim, const int64_t *shape);

/* Reads a labelled set of images, as MNIST's pairs of files: the images
 * (N, rows, cols) and the labels (N,) (rows or cols -1: any size).
 * Stores in *images a new uint8 array of shape (N, 1, rows, cols), one
 * channel as DeZero's MNIST has, and in *labels a new uint8 array of
 * shape (N,). Two files whose N differ are an error naming both. */
void nd_load_idx_labelled(const char *images_path, const char *labels_path,
                          int64_t rows, int64_t cols, NdArray **images,
                          NdArray **labels);

#endif /* ND_IDX_H */
