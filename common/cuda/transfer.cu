/* transfer.cu - copies between host memory and the device (upload,
 * download): small ones by plain cudaMemcpy, large ones through pinned
 * staging buffers, several threads each copying its share of chunks
 * into its own pair of buffers while the copy engine moves the last
 * chunk; and the ceiling they aim at, a cudaMemcpy from or to pinned
 * memory, timed for `make bench-gpu`. */
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "gpu.cuh"

namespace ndg {

/* A cudaMemcpy from or to pageable memory goes through the driver's
 * own staging on the calling thread: 2.4 to 10 GB/s on an H200 (4
 * December 2026) whose link carries about 50 GB/s from pinned memory.
 * Staged here, the host's memcpy into one pinned buffer overlaps the
 * DMA of another, and up to kLanes threads share the memcpys, which
 * one thread may not do at the link's speed. The threads run only
 * while their caller waits for the copy, and never spin (see
 * make_lanes), so they do not compete with OpenBLAS's pool. */
constexpr size_t kChunk = (size_t)4 << 20;      /* a staging buffer */
constexpr size_t kMinChunk = (size_t)1 << 20;   /* the least one moves */
constexpr size_t kStagedFrom = 2 * kChunk;      /* smaller: cudaMemcpy */
constexpr int kLanes = 8;                       /* threads, at most */

/* Every copy and event of a staged transfer is on the legacy default
 * stream, where every kernel of the library runs (built without
 * per-thread default streams, <<<...>>> launches there): a DMA starts
 * after the kernels queued before the call (they may write what a
 * download reads, or read what an upload overwrites, in a block the
 * pool handed out again), and the kernels queued after the call run
 * after it. Named rather than 0: the lanes are threads of their own,
 * and the legacy stream is the one stream they all share with the
 * caller whatever the build. */
static const cudaStream_t kStream = cudaStreamLegacy;

/* A pinned buffer and the event recorded after the last DMA that
 * touched it: whoever uses the buffer next waits for that event first,
 * in this call or a later one, so no buffer is overwritten while the
 * copy engine still reads it, nor read before the DMA into it ended. */
struct Buffer {
    void *host;
    cudaEvent_t done;
};

struct Staging {
    std::mutex lock;                /* one staged transfer at a time */
    Buffer buffers[kLanes][2];      /* two for each lane */
    int lanes;                      /* lanes whose buffers are made */
    bool failed;                    /* cudaMallocHost refused once */
    bool closed;                    /* at exit: everything plain */
};

/* Never destroyed, as the pool (memory.cu): copies may come late. */
static Staging &staging()
{
    static Staging *s = new Staging();
    return *s;
}

/* Makes the buffers of lanes up to want, kept until exit; returns how
 * many lanes have theirs (0: stage nothing). Pinned memory may be
 * refused (a limit on locked memory): then the lanes made so far are
 * all there will be, and without any the copies stay plain. */
static int make_lanes(Staging &s, int want)
{
    while (s.lanes < want && !s.failed) {
        Buffer *pair = s.buffers[s.lanes];
        int made = 0;
        for (; made < 2; made++) {
            if (cudaMallocHost(&pair[made].host, kChunk) != cudaSuccess)
                break;
            /* Blocking: a lane that waits sleeps rather than spins
             * (CONTRIBUTING.md 9); other lanes keep the engine busy. */
            if (cudaEventCreateWithFlags(&pair[made].done,
                                         cudaEventDisableTiming |
                                         cudaEventBlockingSync) !=
                cudaSuccess) {
                cudaFreeHost(pair[made].host);
                break;
            }
        }
        if (made < 2) {
            cudaGetLastError();     /* not sticky: clear it */
            for (int i = 0; i < made; i++) {
                cudaEventDestroy(pair[i].done);
                cudaFreeHost(pair[i].host);
            }
            s.failed = true;
            break;
        }
        s.lanes++;
    }
    return std::min(s.lanes, want);
}

void release_staging()
{
    Staging &s = staging();
    std::lock_guard<std::mutex> guard(s.lock);
    for (int l = 0; l < s.lanes; l++) {
        for (Buffer &b : s.buffers[l]) {
            cudaEventSynchronize(b.done);
            cudaEventDestroy(b.done);
            cudaFreeHost(b.host);
        }
    }
    s.lanes = 0;
    s.closed = true;
}

/* The CPUs this process may run on (as parallel.c counts them). */
static int usable_cpus()
{
    cpu_set_t cpus;
    if (sched_getaffinity(0, sizeof cpus, &cpus) != 0)
        return 1;
    return std::max(1, CPU_COUNT(&cpus));
}

/* ------------------------------------------------------------ lanes */

struct Transfer {
    char *dst;
    const char *src;
    size_t bytes;
    size_t chunk;                   /* bytes a chunk, kChunk at most */
    int64_t chunks;
    bool to_device;
    int device;                     /* the caller's current device */
};

/* One thread's share: chunks first, first + step, ...; a lane reports
 * its first failure here, as a thread's fail() text is its own. */
struct Lane {
    const Transfer *t;
    Buffer *buf;                    /* its two buffers */
    int64_t first, step;
    cudaError_t err;
    const char *what;
    pthread_t thread;
    bool started;
};

static bool ok(Lane &l, cudaError_t err, const char *what)
{
    if (err == cudaSuccess)
        return true;
    l.err = err;
    l.what = what;
    return false;
}

/* The offset and length of chunk k. */
static size_t chunk_at(const Transfer &t, int64_t k, size_t *n)
{
    size_t off = (size_t)k * t.chunk;
    *n = std::min(t.chunk, t.bytes - off);
    return off;
}

/* Host to device: the memcpy of chunk j into one buffer while the
 * engine moves chunk j - 1 from the other. */
static void upload_lane(Lane &l)
{
    const Transfer &t = *l.t;
    int64_t j = 0;
    for (int64_t k = l.first; k < t.chunks; k += l.step, j++) {
        Buffer &b = l.buf[j & 1];
        size_t n, off = chunk_at(t, k, &n);
        if (!ok(l, cudaEventSynchronize(b.done), "cudaEventSynchronize"))
            return;
        memcpy(b.host, t.src + off, n);
        if (!ok(l, cudaMemcpyAsync(t.dst + off, b.host, n,
                                   cudaMemcpyHostToDevice, kStream),
                "cudaMemcpyAsync to the device") ||
            !ok(l, cudaEventRecord(b.done, kStream), "cudaEventRecord"))
            return;
    }
}

/* Device to host: two DMAs in flight; the memcpy out of one buffer
 * while the engine fills the other, then that buffer's next DMA. */
static void download_lane(Lane &l)
{
    const Transfer &t = *l.t;
    int64_t count = l.first < t.chunks
                        ? (t.chunks - l.first + l.step - 1) / l.step : 0;
    auto fetch = [&](int64_t j) {
        Buffer &b = l.buf[j & 1];
        size_t n, off = chunk_at(t, l.first + j * l.step, &n);
        return ok(l, cudaMemcpyAsync(b.host, t.src + off, n,
                                     cudaMemcpyDeviceToHost, kStream),
                  "cudaMemcpyAsync to the host") &&
               ok(l, cudaEventRecord(b.done, kStream), "cudaEventRecord");
    };
    for (int64_t j = 0; j < std::min<int64_t>(count, 2); j++)
        if (!fetch(j))
            return;
    for (int64_t j = 0; j < count; j++) {
        Buffer &b = l.buf[j & 1];
        size_t n, off = chunk_at(t, l.first + j * l.step, &n);
        if (!ok(l, cudaEventSynchronize(b.done), "cudaEventSynchronize"))
            return;
        memcpy(t.dst + off, b.host, n);
        if (j + 2 < count && !fetch(j + 2))
            return;
    }
}

static void *run_lane(void *arg)
{
    Lane &l = *(Lane *)arg;
    /* A new thread's current device is 0; the caller's may not be. */
    if (ok(l, cudaSetDevice(l.t->device), "cudaSetDevice")) {
        if (l.t->to_device)
            upload_lane(l);
        else
            download_lane(l);
    }
    return nullptr;
}

/* A staged copy; 1 when no staging buffer could be made (the caller
 * copies plainly), else 0 or -1 as every entry. The threads are
 * started here and joined before it returns (as parallel.c does). */
static int staged(void *dst, const void *src, size_t bytes, bool to_device)
{
    Staging &s = staging();
    std::lock_guard<std::mutex> guard(s.lock);
    if (s.closed)
        return 1;
    int want = (int)std::min<size_t>({(size_t)kLanes,
                                      (size_t)usable_cpus(),
                                      bytes / kMinChunk});
    int lanes = make_lanes(s, want);
    if (lanes == 0)
        return 1;
    /* Two chunks a lane or more, so that each lane's memcpy overlaps a
     * DMA; of whole pages, within the buffers. */
    size_t chunk = (bytes / (2 * (size_t)lanes) + 4095) / 4096 * 4096;
    chunk = std::min(kChunk, std::max(kMinChunk, chunk));
    Transfer t = {(char *)dst, (const char *)src, bytes, chunk,
                  (int64_t)((bytes + chunk - 1) / chunk), to_device, 0};
    if (check(cudaGetDevice(&t.device), "cudaGetDevice") != 0)
        return -1;
    Lane lane[kLanes] = {};
    for (int i = 0; i < lanes; i++) {
        lane[i].t = &t;
        lane[i].buf = s.buffers[i];
        lane[i].first = i;
        lane[i].step = lanes;
        lane[i].err = cudaSuccess;
    }
    for (int i = 1; i < lanes; i++)
        lane[i].started = pthread_create(&lane[i].thread, nullptr, run_lane,
                                         &lane[i]) == 0;
    run_lane(&lane[0]);
    for (int i = 1; i < lanes; i++) {
        if (lane[i].started)
            pthread_join(lane[i].thread, nullptr);
        else
            run_lane(&lane[i]);     /* no thread: its share here */
    }
    for (int i = 0; i < lanes; i++)
        if (lane[i].err != cudaSuccess)
            return check(lane[i].err, lane[i].what);
    /* A download is in dst once every lane has copied its last chunk
     * out. An upload's last DMAs may still run: wait for them, so that
     * the call returns with the data on the device, as cudaMemcpy's
     * callers expect (the buffers alone would not need it: their next
     * user waits for their events). */
    for (int i = 0; to_device && i < lanes; i++)
        for (Buffer &b : s.buffers[i])
            if (check(cudaEventSynchronize(b.done),
                      "cudaEventSynchronize") != 0)
                return -1;
    return 0;
}

/* ------------------------------------------------------------ entries */

/* Both return once the data has arrived: on the device (an upload), in
 * the host's memory (a download); both start after the kernels queued
 * before them. */
static int host_copy(void *dst, const void *src, size_t bytes,
                     bool to_device)
{
    if (bytes == 0)
        return 0;
    if (bytes >= kStagedFrom) {
        int status = staged(dst, src, bytes, to_device);
        if (status != 1)            /* 1: not staged, copy it plainly */
            return status;
    }
    if (to_device)
        return check(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice),
                     "cudaMemcpy to the device");
    return check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost),
                 "cudaMemcpy to the host");
}

int upload(void *dst, const void *src, size_t bytes)
{
    return host_copy(dst, src, bytes, true);
}

int download(void *dst, const void *src, size_t bytes)
{
    return host_copy(dst, src, bytes, false);
}

const char *transfer_path()
{
    static char text[160];
    static std::once_flag once;
    std::call_once(once, [] {
        snprintf(text, sizeof text,
                 "from %zu MB: pinned staging, chunks of %zu to %zu MB, "
                 "%d threads with 2 buffers each; below: cudaMemcpy",
                 kStagedFrom >> 20, kMinChunk >> 20, kChunk >> 20,
                 std::min(kLanes, usable_cpus()));
    });
    return text;
}

/* The best of repeat cudaMemcpy calls between cudaMallocHost memory
 * and a pool block, after one not counted; the pinned memory is made
 * and freed here. */
int pinned_copy_time(size_t bytes, bool to_device, int repeat,
                     double *seconds)
{
    *seconds = 0;
    if (repeat < 1)
        return fail("pinned_copy_time: repeat %d, want 1 or more", repeat);
    void *host = nullptr;
    if (check(cudaMallocHost(&host, bytes > 0 ? bytes : 1),
              "cudaMallocHost") != 0)
        return -1;
    void *device = pool_alloc(bytes);
    if (!device) {
        cudaFreeHost(host);
        return -1;
    }
    memset(host, 0, bytes);
    int status = check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    double best = 1e30;
    for (int r = 0; status == 0 && r <= repeat; r++) {
        auto start = std::chrono::steady_clock::now();
        status = to_device
            ? check(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice),
                    "cudaMemcpy to the device")
            : check(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost),
                    "cudaMemcpy to the host");
        /* From pinned memory cudaMemcpy returns with the copy done; the
         * synchronize costs nothing then, and makes sure of it. */
        if (status == 0)
            status = check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        std::chrono::duration<double> t =
            std::chrono::steady_clock::now() - start;
        if (r > 0 && t.count() < best)
            best = t.count();
    }
    pool_free(device);
    if (check(cudaFreeHost(host), "cudaFreeHost") != 0)
        status = -1;
    if (status == 0)
        *seconds = best;
    return status;
}

} // namespace ndg
