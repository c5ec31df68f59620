/* memory.cu - device memory through a caching pool, as CuPy's
 * MemoryPool: a freed block is kept, by its rounded size, for the next
 * allocation of that size, so a training loop that allocates the same
 * shapes every iteration stops calling cudaMalloc after the first; and
 * copies on the device. Copies to and from the host: transfer.cu. */
#include <mutex>
#include <unordered_map>
#include <vector>

#include "gpu.cuh"

namespace ndg {

/* Sizes are rounded up to this, CuPy's allocation unit. */
constexpr size_t kUnit = 512;

struct Pool {
    std::mutex lock;
    bool closed;            /* at exit: a freed block goes straight back */
    std::unordered_map<size_t, std::vector<void *>> cached; /* by size */
    std::unordered_map<void *, size_t> live;                /* ptr: size */
    NdGpuPoolStats stats;
};

/* Never destroyed: arrays may still be freed while the process exits. */
static Pool &pool()
{
    static Pool *p = new Pool();
    return *p;
}

static size_t rounded(size_t bytes)
{
    return bytes == 0 ? kUnit : (bytes + kUnit - 1) / kUnit * kUnit;
}

/* cudaFree of every cached block; the caller holds the lock. */
static int release_cached(Pool &p)
{
    int status = 0;
    for (auto &entry : p.cached) {
        for (void *ptr : entry.second)
            if (check(cudaFree(ptr), "cudaFree") != 0)
                status = -1;
        p.stats.cached_bytes -= entry.first * entry.second.size();
    }
    p.cached.clear();
    return status;
}

void *pool_alloc(size_t bytes)
{
    Pool &p = pool();
    std::lock_guard<std::mutex> guard(p.lock);
    size_t size = rounded(bytes);
    void *ptr = nullptr;
    auto found = p.cached.find(size);
    if (found != p.cached.end() && !found->second.empty()) {
        ptr = found->second.back();
        found->second.pop_back();
        p.stats.cached_bytes -= size;
        p.stats.reuses++;
    } else {
        cudaError_t err = cudaMalloc(&ptr, size);
        if (err == cudaErrorMemoryAllocation) {
            /* Out of memory: give back what the pool holds and retry. */
            cudaGetLastError();
            release_cached(p);
            err = cudaMalloc(&ptr, size);
        }
        if (err != cudaSuccess) {
            cudaGetLastError();
            fail("cudaMalloc of %zu bytes: %s (%zu bytes in use by "
                 "arrays)", size, cudaGetErrorString(err),
                 p.stats.used_bytes);
            return nullptr;
        }
        p.stats.device_mallocs++;
    }
    p.live[ptr] = size;
    p.stats.used_bytes += size;
    return ptr;
}

void pool_free(void *ptr)
{
    Pool &p = pool();
    std::lock_guard<std::mutex> guard(p.lock);
    auto found = p.live.find(ptr);
    if (found == p.live.end())
        return;                 /* not ours: nothing to give back */
    size_t size = found->second;
    p.live.erase(found);
    p.stats.used_bytes -= size;
    if (p.closed) {
        cudaFree(ptr);
        return;
    }
    p.cached[size].push_back(ptr);
    p.stats.cached_bytes += size;
}

void pool_stats(NdGpuPoolStats *stats)
{
    Pool &p = pool();
    std::lock_guard<std::mutex> guard(p.lock);
    *stats = p.stats;
}

int pool_trim()
{
    Pool &p = pool();
    std::lock_guard<std::mutex> guard(p.lock);
    return release_cached(p);
}

void pool_close()
{
    Pool &p = pool();
    std::lock_guard<std::mutex> guard(p.lock);
    release_cached(p);
    p.closed = true;
}

/* ------------------------------------------------------------ copies */

/* On the default stream, after the kernels queued before it. A block
 * the pool hands out again is only ever used on that stream too, so
 * its new user runs after its old one without a wait (CuPy's pool
 * relies on the same order). */
int copy(void *dst, const void *src, size_t bytes)
{
    if (bytes == 0)
        return 0;
    return check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice),
                 "cudaMemcpy on the device");
}

int synchronize()
{
    return check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

} // namespace ndg
