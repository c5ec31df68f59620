/* npz.h - NumPy's .npz files: a zip archive holding one .npy array per
 * key, as np.savez_compressed writes them and np.load reads them (what
 * DeZero's Layer.save_weights and load_weights call). libzip reads and
 * writes the archive; its members are DEFLATE-compressed.
 *
 *     const char *keys[] = {"l0/W", "l0/b"};
 *     NdArray *arrays[] = {W, b};             // (784, 1000), (1000,)
 *     nd_savez_compressed("mlp.npz", 2, keys, arrays);
 *
 *     NdNpz *npz = nd_npz_open("mlp.npz");
 *     NdArray *W = nd_npz_get(npz, "l0/W");   // (784, 1000)
 *     nd_npz_close(npz);
 *
 * The arrays are host arrays of nd.h's seven dtypes, stored in the .npy
 * format as NumPy stores them: '|b1' (bool), '|u1' (uint8), '<i8'
 * (int64), '<f4' (float32), '<f8' (float64), '<c8' (complex64) and
 * '<c16' (complex128). Other dtypes ('>f8', '<i4', '<U3', object
 * arrays, structured dtypes) are refused with a message that lists
 * these; arrays in Fortran order are read back into C order.
 *
 * Ownership as in nd.h: arrays returned are new references the caller
 * releases; everything passed in is borrowed. Every problem (a file
 * that is missing, not a zip archive, truncated or corrupt, a member
 * that is not a .npy array, an unsupported dtype, a missing key) goes
 * to nd_error() with a message naming the file, and the key where there
 * is one. Hostile input never crashes.
 */
#ifndef ND_NPZ_H
#define ND_NPZ_H

#include "nd.h"

/* np.savez_compressed(path, **dict(zip(keys, arrays))): writes count
 * arrays, arrays[i] as the member keys[i] + ".npy". As NumPy does,
 * ".npz" is appended to a path that does not end in it. The file is
 * written under a temporary name and renamed once whole, so a failed
 * save leaves any earlier file at path as it was. A device array is
 * refused (move it with nd_to_device(a, ND_CPU) first, as DeZero's
 * save_weights calls to_cpu()), and so are two equal keys. Keys and
 * arrays are borrowed. */
void nd_savez_compressed(const char *path, int count,
                         const char *const *keys, NdArray *const *arrays);

/* An open .npz file, np.load(path)'s NpzFile. */
typedef struct NdNpz NdNpz;

/* Opens the .npz file at path and reads its list of members; returns a
 * handle the caller closes with nd_npz_close. Path is copied. */
NdNpz *nd_npz_open(const char *path);

/* The keys, in the archive's order: the members' names less ".npy", as
 * np.load(path).files. Stores their number in *count; the array and its
 * strings belong to npz and last until nd_npz_close. */
const char *const *nd_npz_keys(const NdNpz *npz, int *count);

/* np.load(path)[key]: reads the member key + ".npy" (or key itself,
 * when a member has that name); returns a new host array, a new
 * reference the caller releases. */
NdArray *nd_npz_get(NdNpz *npz, const char *key);

/* Closes npz and frees it, with its keys. Accepts NULL. */
void nd_npz_close(NdNpz *npz);

#endif /* ND_NPZ_H */
