"""numba-cuda anchors of the JIT benchmark, one part per call.

usage: python3 numba_anchors.py <part> [args]
  cold                 part 1a: import, context, jit a tiny kernel, launch, copy back, check
  kernels              parts 1b/1c: first kernel and next kernel after the context exists
  launch <iterations>  part 2: us per launch of axpy with two device arrays and a scalar
  bandwidth <n> <reps> part 3: GB/s of axpy on n float32 (event-timed, median)
  simulator <n> <reps> part 4: us per thread in the CUDA simulator (run with NUMBA_ENABLE_CUDASIM=1)
  versions             the versions of python, numpy, numba-cuda, numba (imports nothing of numba)
prints one JSON object on its last line; a missing package or a failure is
reported as {"error": "<reason>"} with exit status 0, never as a traceback.
"""
import json
import os
import resource
import sys
import time

# grid 1 launches would warn about low occupancy on every configuration; the
# warning is not what is measured
os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")

def since_spawn_ms():
    spawned = float(os.environ.get("CUDA_JS_BENCH_SPAWN_MS", "0") or 0)
    return time.time() * 1000 - spawned if spawned > 0 else None


def emit(value):
    print(json.dumps(value), flush=True)


def max_rss_kb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux


np = None
cuda = None


def import_numba_cuda():
    """Imports numpy and numba.cuda as this module's globals: kernels must see
    `cuda` as a global, not a closure cell, for the CUDA simulator to swap it."""
    global np, cuda
    import numpy

    if not hasattr(numpy, "row_stack"):
        numpy.row_stack = numpy.vstack  # numba-cuda 0.30.4 still uses it; numpy 2.5 removed it
    np = numpy
    from numba import cuda as numba_cuda

    cuda = numba_cuda


def versions():
    out = {"python": sys.version.split()[0]}
    try:
        import numpy

        out["numpy"] = numpy.__version__
    except Exception:  # noqa: BLE001
        pass
    for dist in ("numba-cuda", "numba"):
        try:
            from importlib.metadata import version

            out[dist] = version(dist)
        except Exception:  # noqa: BLE001
            out[dist] = "absent"
    return out


def axpy_inputs(n):
    return (np.arange(n, dtype=np.int64) % 1000).astype(np.float32), np.ones(n, dtype=np.float32)


def part_cold():
    phases = {}
    import_numba_cuda()
    phases["imported"] = since_spawn_ms()
    n = 4096
    hx, hy = axpy_inputs(n)
    x = cuda.to_device(hx)
    y = cuda.to_device(hy)
    cuda.synchronize()
    phases["context"] = since_spawn_ms()

    @cuda.jit
    def axpy(a, x, y):
        i = cuda.grid(1)
        if i < y.shape[0]:
            y[i] = a * x[i] + y[i]

    axpy[n // 256, 256](np.float32(2), x, y)
    cuda.synchronize()
    phases["launched"] = since_spawn_ms()
    got = y.copy_to_host()
    ok = bool((got == 2 * hx + 1).all())
    phases["checked"] = since_spawn_ms()
    return {"ok": ok, "phasesMs": phases, "maxRssKB": max_rss_kb(), "versions": versions()}


def part_kernels():
    import_numba_cuda()
    n = 4096
    hx, hy = axpy_inputs(n)
    x = cuda.to_device(hx)
    y = cuda.to_device(hy)
    a = np.float32(2)
    cuda.synchronize()
    out = {}

    t0 = time.perf_counter()

    @cuda.jit
    def first(a, x, y):
        i = cuda.grid(1)
        if i < y.shape[0]:
            y[i] = a * x[i] + y[i]

    first[n // 256, 256](a, x, y)
    cuda.synchronize()
    out["firstMs"] = (time.perf_counter() - t0) * 1000

    t0 = time.perf_counter()

    @cuda.jit
    def second(a, x, y):
        i = cuda.grid(1)
        if i < x.shape[0]:
            y[i] = x[i] * x[i] - a * y[i]

    second[n // 256, 256](a, x, y)
    cuda.synchronize()
    out["nextMs"] = (time.perf_counter() - t0) * 1000

    got = y.copy_to_host()
    expected = hx * hx - 2 * (2 * hx + 1)
    out["ok"] = bool((got == expected).all())
    return out


def part_launch(iterations):
    import_numba_cuda()

    @cuda.jit
    def axpy_n(a, x, y, n):
        i = cuda.grid(1)
        if i < n:
            y[i] = a * x[i] + y[i]

    @cuda.jit
    def axpy_len(a, x, y):
        i = cuda.grid(1)
        if i < y.shape[0]:
            y[i] = a * x[i] + y[i]

    stream = cuda.stream()
    x = cuda.to_device(np.zeros(32, dtype=np.float32))
    y = cuda.to_device(np.zeros(32, dtype=np.float32))
    a = np.float32(2)
    n0 = np.int32(0)

    def timed(launch_once):
        for _ in range(2000):
            launch_once()
        stream.synchronize()
        t0 = time.perf_counter()
        for _ in range(iterations):
            launch_once()
        t1 = time.perf_counter()
        stream.synchronize()
        return (t1 - t0) * 1e6 / iterations

    # configured on each launch, as numba kernels are written (kernel[grid, block, stream](...))
    return {
        "results": {
            "i32 bound": timed(lambda: axpy_n[1, 32, stream](a, x, y, n0)),
            "y.length": timed(lambda: axpy_len[1, 32, stream](a, x, y)),
        },
        "iterations": iterations,
        "versions": versions(),
    }


def part_bandwidth(n, reps):
    import_numba_cuda()

    @cuda.jit
    def axpy(a, x, y):
        i = cuda.grid(1)
        if i < y.shape[0]:
            y[i] = a * x[i] + y[i]

    stream = cuda.stream()
    x = cuda.to_device(np.full(n, 1, dtype=np.float32), stream=stream)
    y = cuda.to_device(np.full(n, 2, dtype=np.float32), stream=stream)
    a = np.float32(2)
    block = 256
    grid = (n + block - 1) // block
    k = axpy[grid, block, stream]
    k(a, x, y)  # compile, and the check: y = 2 * 1 + 2
    stream.synchronize()
    got = y.copy_to_host(stream=stream)
    stream.synchronize()
    ok = bool((got == 4).all())
    start, end = cuda.event(timing=True), cuda.event(timing=True)
    times = []
    for _ in range(reps):
        start.record(stream)
        k(a, x, y)
        end.record(stream)
        end.synchronize()
        times.append(cuda.event_elapsed_time(start, end))
    times.sort()
    ms = times[len(times) // 2] if len(times) % 2 else (times[len(times) // 2 - 1] + times[len(times) // 2]) / 2
    return {"ok": ok, "ms": ms, "samplesMs": times, "gbPerS": 12 * n / (ms * 1e-3) / 1e9, "n": n}


def part_simulator(n, reps):
    if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
        return {"error": "run with NUMBA_ENABLE_CUDASIM=1"}
    import_numba_cuda()

    @cuda.jit
    def axpy(a, x, y):
        i = cuda.grid(1)
        if i < y.shape[0]:
            y[i] = a * x[i] + y[i]

    hx, hy = axpy_inputs(n)
    block = 256
    grid = (n + block - 1) // block
    a = np.float32(2)
    times = []
    ok = True
    for r in range(reps):
        y = hy.copy()
        t0 = time.perf_counter()
        axpy[grid, block](a, hx, y)
        times.append((time.perf_counter() - t0) * 1000)
        if r == 0:
            ok = bool((y == 2 * hx + 1).all())
    times.sort()
    ms = times[len(times) // 2]
    return {"ok": ok, "ms": ms, "samplesMs": times, "usPerThread": ms * 1000 / n, "n": n, "block": block}


def main():
    part = sys.argv[1] if len(sys.argv) > 1 else ""
    args = [int(a) for a in sys.argv[2:]]
    parts = {
        "cold": part_cold,
        "kernels": part_kernels,
        "launch": lambda: part_launch(*(args or [20000])),
        "bandwidth": lambda: part_bandwidth(*(args or [1 << 26, 20])),
        "simulator": lambda: part_simulator(*(args or [4096, 3])),
        "versions": versions,
    }
    if part not in parts:
        emit({"error": f"unknown part {part!r}; one of {', '.join(parts)}"})
        return
    try:
        result = parts[part]()
    except ImportError as e:
        result = {"error": f"numba-cuda unavailable: {type(e).__name__}: {e}"}
    except Exception as e:  # noqa: BLE001 - any failure is reported as the reason
        result = {"error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}
    emit(result)


if __name__ == "__main__":
    main()
