/* download.c - the cache and the downloader of download.h: libcurl
 * fetches, OpenSSL's libcrypto hashes (SHA-256), zlib gunzips what is
 * hashed. A file is written under a temporary name (its own name,
 * .part- and the mirror's hash), synced, verified and only then renamed,
 * so that a download cut short, by a failure or by the user, never
 * leaves a file the cache would take for a good one; the next run goes
 * on from what the cut one left there. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curl/curl.h>
#include <openssl/evp.h>
#include <zlib.h>

#include "download.h"
#include "nd_internal.h"
#include "progress.h"

enum { SHA256_HEX = 64 };

/* Text made as printf makes it, malloc'd. */
__attribute__((format(printf, 2, 3)))
static char *format_text(const char *op, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int n = vsnprintf(NULL, 0, format, args);
    va_end(args);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!text)
        nd_error(op, "out of memory");
    va_start(args, format);
    vsnprintf(text, (size_t)n + 1, format, args);
    va_end(args);
    return text;
}

/* ------------------------------------------------------------ cache */

char *nd_cache_dir(void)
{
    const char *op = "nd_cache_dir";
    const char *override = getenv("DEZERO_CACHE_DIR");
    const char *home = getenv("HOME");
    char *dir;
    if (override && *override)
        dir = format_text(op, "%s", override);
    else if (home && *home)
        dir = format_text(op, "%s/.dezero", home);
    else
        nd_error(op, "neither DEZERO_CACHE_DIR nor HOME is set, so there "
                 "is no folder for DeZero's files; set one of them");
    char problem[512] = "";
    struct stat st;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        snprintf(problem, sizeof problem, "cannot make the cache folder "
                 "%s: %s%s", dir, strerror(errno), errno == ENOENT ?
                 " (its parent folder is missing)" : "");
    else if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        snprintf(problem, sizeof problem, "the cache folder %s exists but "
                 "is not a folder", dir);
    if (problem[0]) {
        free(dir);
        nd_error(op, "%s; set DEZERO_CACHE_DIR to a folder you can write",
                 problem);
    }
    return dir;
}

/* ------------------------------------------------------------ checksum */

/* The SHA-256 of path's content (gunzipped when it is gzip) as hex in
 * hex; false with the reason in problem when it cannot be read. */
static bool hash_content(const char *path, char hex[SHA256_HEX + 1],
                         char *problem, size_t size)
{
    errno = 0;
    gzFile file = gzopen(path, "rb");
    if (!file) {
        snprintf(problem, size, "cannot open it: %s",
                 errno ? strerror(errno) : "out of memory");
        return false;
    }
    EVP_MD_CTX *sha = EVP_MD_CTX_new();
    bool ok = sha && EVP_DigestInit_ex(sha, EVP_sha256(), NULL) == 1;
    unsigned char chunk[1 << 15];
    int got = 0;
    while (ok && (got = gzread(file, chunk, sizeof chunk)) > 0)
        ok = EVP_DigestUpdate(sha, chunk, (size_t)got) == 1;
    if (!ok)
        snprintf(problem, size, "OpenSSL cannot compute a SHA-256");
    int code = Z_OK;
    const char *message = ok ? gzerror(file, &code) : "";
    /* zlib's message starts with "path: "; ours names the path already */
    size_t len = strlen(path);
    if (strncmp(message, path, len) == 0 && message[len] == ':')
        message += len + 2;
    if (code == Z_ERRNO)
        snprintf(problem, size, "cannot read it: %s", strerror(errno));
    else if (code != Z_OK)
        snprintf(problem, size, "its gzip data is %s (zlib: %s)",
                 code == Z_BUF_ERROR ? "truncated" : "corrupt", message);
    ok = ok && code == Z_OK;
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (ok && (EVP_DigestFinal_ex(sha, digest, &length) != 1 ||
               length * 2 != SHA256_HEX)) {
        snprintf(problem, size, "OpenSSL cannot finish the SHA-256");
        ok = false;
    }
    EVP_MD_CTX_free(sha);
    gzclose(file);
    for (unsigned int i = 0; ok && i < length; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    return ok;
}

char *nd_content_sha256(const char *path)
{
    char hex[SHA256_HEX + 1], problem[512];
    if (!hash_content(path, hex, problem, sizeof problem))
        nd_error("nd_content_sha256", "%s: %s", path, problem);
    return format_text("nd_content_sha256", "%s", hex);
}

/* ------------------------------------------------------------ transfer */

/* One attempt: a URL into an open temporary file. */
typedef struct Transfer {
    CURL *curl;
    int fd;
    int write_error;                /* errno of a failed write, or 0 */
    NdProgress *progress;           /* made once the size is known */
} Transfer;

static size_t write_chunk(char *data, size_t size, size_t count,
                          void *context)
{
    Transfer *t = context;
    size_t n = size * count, done = 0;
    while (done < n) {
        ssize_t wrote = write(t->fd, data + done, n - done);
        if (wrote < 0 && errno == EINTR)
            continue;
        if (wrote <= 0) {
            t->write_error = wrote < 0 ? errno : EIO;
            return 0;               /* curl stops with CURLE_WRITE_ERROR */
        }
        done += (size_t)wrote;
    }
    return n;
}

static int show_progress(void *context, curl_off_t total, curl_off_t now,
                         curl_off_t up_total, curl_off_t up_now)
{
    (void)up_total;
    (void)up_now;
    Transfer *t = context;
    long status = 0;
    if (!t->progress && (total > 0 || now > 0) &&
        curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status) ==
            CURLE_OK && status / 100 == 2)     /* not an error page */
        t->progress = nd_progress_start(" ", (total + 1023) / 1024, "kB");
    if (t->progress)
        nd_progress_update(t->progress, (now + 1023) / 1024, NULL);
    return 0;
}

static void start_curl(void)
{
    static bool started;
    if (started)
        return;
    CURLcode code = curl_global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK)
        nd_error("nd_get_file", "libcurl cannot start: %s",
                 curl_easy_strerror(code));
    started = true;
}

/* Fetches url into the open file fd, which holds its first offset bytes
 * already: asks for the rest (an HTTP range) when offset > 0. Returns
 * true when the whole body arrived; false with the reason in problem
 * otherwise. A failure to write the file is the disk's, not the
 * mirror's: *write_error says so. A mirror that cannot send the bytes
 * from offset on (it sends the whole file, or has fewer) sets
 * *range_refused. */
static bool fetch(const char *url, int fd, off_t offset, char *problem,
                  size_t size, int *write_error, bool *range_refused)
{
    CURL *curl = curl_easy_init();
    if (!curl) {
        snprintf(problem, size, "libcurl cannot start a transfer");
        return false;
    }
    Transfer t = {.curl = curl, .fd = fd};
    char reason[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, reason);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_chunk);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, show_progress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &t);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);     /* 404: an error */
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
#if LIBCURL_VERSION_NUM >= 0x075500                     /* 7.85.0 */
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS,
                     (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS,
                     (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 30L);
    /* a transfer stalled below 1 byte/s for a minute is given up */
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 60L);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "dezero-c/" LIBCURL_VERSION);
    curl_easy_setopt(curl, CURLOPT_RESUME_FROM_LARGE, (curl_off_t)offset);
    CURLcode code = curl_easy_perform(curl);
    nd_progress_end(t.progress);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(curl);
    *write_error = t.write_error;
    *range_refused = code == CURLE_RANGE_ERROR ||
                     (code == CURLE_HTTP_RETURNED_ERROR && status == 416);
    if (code == CURLE_OK)
        return true;
    if (code == CURLE_HTTP_RETURNED_ERROR && status >= 400)
        snprintf(problem, size, "HTTP %ld", status);
    else if (t.write_error)
        snprintf(problem, size, "cannot write: %s",
                 strerror(t.write_error));
    else
        snprintf(problem, size, "%s", reason[0] ? reason :
                 curl_easy_strerror(code));
    return false;
}

/* ------------------------------------------------------------ get_file */

static const NdRemoteFile *find_file(const NdRemoteSet *set,
                                     const char *name)
{
    for (int i = 0; i < set->nfiles; i++)
        if (strcmp(set->files[i].name, name) == 0) {
            const char *sha = set->files[i].sha256;
            if (!sha)
                return &set->files[i];      /* unknown: taken whole */
            bool hex = strlen(sha) == SHA256_HEX;
            for (int k = 0; hex && k < SHA256_HEX; k++)
                hex = strchr("0123456789abcdefABCDEF", sha[k]) != NULL;
            if (!hex)
                nd_error("nd_get_file", "the SHA-256 of %s in %s is \"%s\"; "
                         "it takes 64 hex digits, or NULL when unknown",
                         name, set->title, sha);
            return &set->files[i];
        }
    nd_error("nd_get_file", "%s has no file named %s", set->title, name);
}

static bool ends_with(const char *text, const char *end)
{
    size_t n = strlen(text), m = strlen(end);
    return n >= m && strcmp(text + n - m, end) == 0;
}

/* The cached copy of name in dir: name itself or, for name.gz, name
 * uncompressed. NULL when there is none. */
static char *cached(const char *dir, const char *name)
{
    char *path = format_text("nd_get_file", "%s/%s", dir, name);
    if (access(path, F_OK) == 0)
        return path;
    if (ends_with(path, ".gz")) {
        path[strlen(path) - 3] = '\0';
        if (access(path, F_OK) == 0)
            return path;
    }
    free(path);
    return NULL;
}

/* The bytes in the file open at fd, or -1 with errno set. */
static off_t file_size(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 ? st.st_size : -1;
}

/* Where url's download of path goes until it is whole:
 * path.part-XXXXXXXX, the hex digits a hash of the URL (FNV-1a). Each
 * mirror has its own, so that a download goes on only from bytes that
 * its own URL sent: another mirror may serve the file compressed
 * otherwise, or a newer one. Returns a malloc'd name. */
static char *partial_name(const char *path, const char *url)
{
    uint32_t hash = 2166136261u;
    for (const char *c = url; *c; c++)
        hash = (hash ^ (unsigned char)*c) * 16777619u;
    return format_text("nd_get_file", "%s.part-%08x", path, (unsigned)hash);
}

/* Once path holds the file, the partial downloads of it from other
 * mirrors (path.part-*) are of no more use: removes them, but for one
 * that another program is writing (it is locked). */
static void remove_partials(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = format_text("nd_get_file", "%.*s", (int)(slash - path),
                            path);
    char *prefix = format_text("nd_get_file", "%s.part-", slash + 1);
    DIR *listing = opendir(dir);
    struct dirent *entry;
    while (listing && (entry = readdir(listing)))
        if (strncmp(entry->d_name, prefix, strlen(prefix)) == 0) {
            char *partial = format_text("nd_get_file", "%s/%s", dir,
                                        entry->d_name);
            int fd = open(partial, O_WRONLY | O_CLOEXEC);
            if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
                unlink(partial);
            if (fd >= 0)
                close(fd);
            free(partial);
        }
    if (listing)
        closedir(listing);
    free(prefix);
    free(dir);
}

/* One mirror: fetch, check, rename. The download goes to its partial
 * file (partial_name), and goes on from the bytes that an earlier one
 * from the same URL, cut short, left there, where the mirror serves
 * ranges (else it starts again). True when path now holds the file.
 * Otherwise problem says why: a transfer that failed leaves the partial
 * file with what arrived, for the next run to go on from; content that
 * is wrong, or a disk that fails, removes it. A local failure (the
 * disk, not the mirror) also sets *local. The partial file is locked
 * while it is written, so that two programs never write it at once. */
static bool try_mirror(const char *url, const char *path,
                       const NdRemoteFile *file, char *problem, size_t size,
                       bool *local)
{
    char *partial = partial_name(path, url);
    int fd = open(partial, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (fd < 0)
            snprintf(problem, size, "cannot open %s: %s; set "
                     "DEZERO_CACHE_DIR to a folder you can write", partial,
                     strerror(errno));
        else
            snprintf(problem, size, "another program is downloading %s "
                     "into %s; let it finish first", file->name, partial);
        if (fd >= 0)
            close(fd);
        free(partial);
        *local = true;
        return false;
    }
    off_t offset = file_size(fd);
    if (offset > 0)
        fprintf(stderr, "  going on from byte %lld of an earlier "
                "download\n", (long long)offset);
    int write_error = 0;
    bool range_refused = false;
    bool ok = offset >= 0 && fetch(url, fd, offset, problem, size,
                                   &write_error, &range_refused);
    if (offset < 0)
        write_error = errno;
    if (range_refused) {
        fprintf(stderr, "  the mirror cannot send the rest: starting "
                "again\n");
        if (ftruncate(fd, 0) != 0)
            write_error = errno;
        else
            ok = fetch(url, fd, 0, problem, size, &write_error,
                       &range_refused);
    }
    if (ok && fsync(fd) != 0)
        write_error = errno;
    if (write_error) {
        snprintf(problem, size, "cannot write %s: %s", partial,
                 strerror(write_error));
        ok = false;
        *local = true;
    }
    bool cut = !ok && !*local && file_size(fd) > 0;
    char hex[SHA256_HEX + 1];
    bool check = ok && file->sha256;    /* none known: whole is enough */
    if (check && !hash_content(partial, hex, problem, size))
        ok = false;
    else if (check && strcasecmp(hex, file->sha256) != 0) {
        snprintf(problem, size, "wrong content: its SHA-256 is %s, not %s",
                 hex, file->sha256);
        ok = false;
    }
    bool kept = false;
    if (cut) {                      /* what arrived waits for the rest */
        size_t n = strlen(problem);
        snprintf(problem + n, size - n, "; its %lld bytes are kept, to go "
                 "on from", (long long)file_size(fd));
        free(partial);
    } else {
        kept = nd_finish_temporary(partial, path, ok, problem, size);
    }
    if (ok && !kept)
        *local = true;              /* the rename failed */
    close(fd);                      /* and with it the lock */
    if (kept)
        remove_partials(path);
    return kept;
}

/* Stops with what to do by hand: which files to put where. */
static _Noreturn void no_mirror_has(const NdRemoteSet *set,
                                    const char *name, const char *dir)
{
    char names[512] = "";
    bool any_gz = false;
    for (int i = 0; i < set->nfiles; i++) {
        size_t n = strlen(names);
        snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "",
                 set->files[i].name);
        any_gz = any_gz || ends_with(set->files[i].name, ".gz");
    }
    bool tried = set->mirrors && set->mirrors[0];
    nd_error("nd_get_file", "no mirror gave %s (%s).\nPut the %d %s files "
             "in %s%s:\n    %s\n%s", name, tried ? "the reasons are above"
             : "the list of mirrors is empty", set->nfiles, set->title, dir,
             any_gz ? ", each gzip-compressed under its name or "
             "uncompressed under the name without .gz" : "", names,
             set->manual ? set->manual : "");
}

/* Whether DEZERO_OFFLINE forbids downloads: set, not empty, not "0". */
static bool offline(void)
{
    const char *value = getenv("DEZERO_OFFLINE");
    return value && *value && strcmp(value, "0") != 0;
}

/* Fetches file into path, from each mirror of set in turn, saying how
 * it goes on stderr. Returns true once path holds it; false when no
 * mirror gave it, or at once, a line on stderr saying why, when
 * DEZERO_OFFLINE forbids downloads. A local failure (the disk) stops at
 * once: its message goes to nd_error once dir and path are freed. */
static bool fetch_from_mirrors(const NdRemoteSet *set,
                               const NdRemoteFile *file, char *dir,
                               char *path)
{
    if (offline()) {
        fprintf(stderr, "DEZERO_OFFLINE is set: %s is not downloaded\n",
                file->name);
        return false;
    }
    start_curl();
    if (set->mirrors && set->mirrors[0])
        fprintf(stderr, "Downloading %s (%s)\n", file->name, set->title);
    for (int m = 0; set->mirrors && set->mirrors[m]; m++) {
        const char *mirror = set->mirrors[m];
        char *url = format_text("nd_get_file", "%s%s%s", mirror,
                                ends_with(mirror, "/") ? "" : "/",
                                file->name);
        char problem[768];
        bool local = false;
        bool ok = try_mirror(url, path, file, problem, sizeof problem,
                             &local);
        free(url);
        if (ok) {
            fprintf(stderr, "  from %s: done, %s\n", mirror, file->sha256 ?
                    "content verified" : "not verified (no SHA-256 known)");
            return true;
        }
        if (local) {
            free(dir);
            free(path);
            nd_error("nd_get_file", "%s", problem);
        }
        fprintf(stderr, "  from %s: %s\n", mirror, problem);
    }
    return false;
}

char *nd_get_file(const NdRemoteSet *set, const char *name)
{
    const NdRemoteFile *file = find_file(set, name);
    char *dir = nd_cache_dir();
    char *path = cached(dir, name);
    if (path) {
        free(dir);
        return path;
    }
    path = format_text("nd_get_file", "%s/%s", dir, name);
    if (fetch_from_mirrors(set, file, dir, path)) {
        free(dir);
        return path;
    }
    free(path);
    char where[512];
    snprintf(where, sizeof where, "%s", dir);
    free(dir);
    no_mirror_has(set, name, where);
}

char *nd_get_url(const char *url)
{
    const char *op = "nd_get_url";
    const char *scheme = strstr(url, "://");
    const char *slash = strrchr(url, '/');
    if (!scheme || slash < scheme + 3 || !slash[1] ||
        strpbrk(slash + 1, "?#"))
        nd_error(op, "takes an http(s) URL whose path ends in a file "
                 "name, not \"%s\"", url);
    const char *name = slash + 1;
    char *dir = nd_cache_dir();
    char *path = format_text(op, "%s/%s", dir, name);
    if (access(path, F_OK) == 0) {
        free(dir);
        return path;
    }
    char *base = format_text(op, "%.*s", (int)(name - url), url);
    const char *mirrors[] = {base, NULL};
    NdRemoteFile file = {name, NULL};
    NdRemoteSet set = {.title = "DeZero", .mirrors = mirrors,
                       .files = &file, .nfiles = 1};
    bool ok = fetch_from_mirrors(&set, &file, dir, path);
    free(base);
    if (ok) {
        free(dir);
        return path;
    }
    char message[1024];
    snprintf(message, sizeof message, "cannot download %s (the reason is "
             "above).\nDownload it by hand, from a machine that can, and "
             "save it as\n    %s", url, path);
    free(dir);
    free(path);
    nd_error(op, "%s", message);
}
