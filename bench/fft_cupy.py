"""fft_cupy.py - CuPy's fftn of the arrays bench_gpu.c transforms: int64
of 0..255, (2000, 2000) and (4000, 4000), on the device, converted to
complex128 and transformed by cuFFT as cupy.fft.fftn does. Prints
"fftn SIZE<TAB>seconds" per size, the best of 5 after one run that
makes the plan; exits 2, saying why on stderr, without a usable GPU."""
import sys
import time

try:
    import cupy
    cupy.cuda.runtime.getDeviceCount()
except Exception as e:          # no CuPy, no driver, no device
    print(f"CuPy cannot run here: {e}", file=sys.stderr)
    sys.exit(2)

for side in (2000, 4000):
    x = cupy.random.randint(0, 256, (side, side), dtype=cupy.int64)
    cupy.fft.fftn(x)
    cupy.cuda.Device().synchronize()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        cupy.fft.fftn(x)
        cupy.cuda.Device().synchronize()
        best = min(best, time.perf_counter() - t0)
    print(f"fftn {side}x{side}\t{best:.6f}")
