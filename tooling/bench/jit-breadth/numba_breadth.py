"""numba-cuda anchors of the JIT breadth benchmark, one part per call.

usage: python3 numba_breadth.py <part> [args]
  reduce <n> <reps> <batch>    part 1: GB/s of the block reduction of n float32 (event-timed, median)
  matmul <n> <reps> <batch>    part 2: TFLOP/s of the tiled matmul of n x n float32, tiles 16 and 32
  cache <reduce|matmul>        part 3: one fresh process: the first call of @cuda.jit(cache=True)
                               minus the second (NUMBA_CACHE_DIR names the cache folder)
  simulator <blocks> <reps>    part 4: us per thread of the block tree reduction in the CUDA
                               simulator (run with NUMBA_ENABLE_CUDASIM=1)
  versions                     the versions of python, numpy, numba-cuda, numba
prints one JSON object on its last line; a missing package or a failure is
reported as {"error": "<reason>"} with exit status 0, never as a traceback.

Each kernel is the same algorithm, line for line, as its CUDA C++ twin in
kernels.cu and its JS twin in kernels.mjs; the host data are the same
formulas as kernels.mjs's. Timing is gpu-util.mjs's: per sample, one launch
that fills the stream's queue, then `batch` launches between two events.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "jit"))
import numba_anchors as anchors  # noqa: E402  (emit, versions, the numba-cuda import and its numpy shim)

# set by import_numba_cuda(): kernels must see `cuda` as a global of this
# module, not a closure cell, for the CUDA simulator to swap it
np = None
cuda = None

REDUCE_BLOCK = 256
REDUCE_BLOCKS_PER_SM = 32
TILES = (16, 32)
SIM_BLOCK = 128


def import_numba_cuda():
    global np, cuda
    anchors.import_numba_cuda()
    np = anchors.np
    cuda = anchors.cuda


def median(xs):
    s = sorted(xs)
    m = len(s) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2


# ---- the kernels, undecorated: cuda.jit is applied once numba-cuda is imported


def reduce_sum(x, out):
    partial = cuda.shared.array(256, np.float32)
    tid = cuda.threadIdx.x
    n = x.shape[0]
    stride = cuda.gridsize(1)
    i = cuda.grid(1)
    s = np.float32(0)
    while i + 3 * stride < n:
        s += x[i] + x[i + stride] + x[i + 2 * stride] + x[i + 3 * stride]
        i += 4 * stride
    while i < n:
        s += x[i]
        i += stride
    partial[tid] = s
    cuda.syncthreads()
    k = 128
    while k > 32:
        if tid < k:
            partial[tid] += partial[tid + k]
        cuda.syncthreads()
        k >>= 1
    if tid < 32:
        v = partial[tid] + partial[tid + 32]
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
            offset >>= 1
        if tid == 0:
            cuda.atomic.add(out, 0, v)


def make_matmul(tile):
    def matmul_tiled(A, B, C, n):
        As = cuda.shared.array((tile, tile), np.float32)
        Bs = cuda.shared.array((tile, tile), np.float32)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        row = cuda.blockIdx.y * tile + ty
        col = cuda.blockIdx.x * tile + tx
        acc = np.float32(0)
        for t in range(0, n, tile):
            As[ty, tx] = A[row * n + t + tx]
            Bs[ty, tx] = B[(t + ty) * n + col]
            cuda.syncthreads()
            for k in range(tile):
                acc += As[ty, k] * Bs[k, tx]
            cuda.syncthreads()
        C[row * n + col] = acc

    return matmul_tiled


def block_tree_sum(x, out):
    s = cuda.shared.array(128, np.float32)
    tid = cuda.threadIdx.x
    s[tid] = x[cuda.grid(1)]
    cuda.syncthreads()
    k = 64
    while k > 0:
        if tid < k:
            s[tid] += s[tid + k]
        cuda.syncthreads()
        k >>= 1
    if tid == 0:
        out[cuda.blockIdx.x] = s[0]


# ---- host data and checks (kernels.mjs's formulas)


def reduce_input(n):
    return np.resize(np.arange(16, dtype=np.float32), n)  # x[i] = i % 16


def check_sum(got, reference):
    rel = abs(got - reference) / abs(reference)
    out = {"ok": rel <= 1e-4, "got": got, "relError": rel}
    if not out["ok"]:
        out["error"] = f"sum = {got}, expected {reference} (relative error {rel:.3g})"
    return out


def matmul_inputs(n):
    r = np.arange(n, dtype=np.int64)[:, None]
    c = np.arange(n, dtype=np.int64)[None, :]
    a = (((131 * r + 71 * c) % 97) / 97 - 0.5).astype(np.float32).ravel()
    b = (((59 * r + 113 * c) % 89) / 89 - 0.5).astype(np.float32).ravel()
    return a, b


def matmul_check_points(n):
    points = [(0, 0), (0, n - 1), (n - 1, 0), (n - 1, n - 1), (n >> 1, n >> 1)]
    points += [((k * 2654435761) % n, (k * 40503 + 17) % n) for k in range(59)]
    return points


def check_matmul(c, a, b, n):
    nan = np.flatnonzero(np.isnan(c))
    if nan.size:
        i = int(nan[0])
        return {"ok": False, "error": f"C[{i // n}][{i % n}] was not written (NaN)"}
    a2 = a.reshape(n, n).astype(np.float64)
    b2 = b.reshape(n, n).astype(np.float64)
    points = matmul_check_points(n)
    worst = 0.0
    for r, col in points:
        p = a2[r, :] * b2[:, col]
        value = float(p.sum())
        tolerance = 1.05 * n * 2.0**-24 * float(np.abs(p).sum()) + 1e-6
        got = float(c[r * n + col])
        err = abs(got - value) / tolerance
        worst = max(worst, err)
        if not err <= 1:
            return {"ok": False, "checked": len(points), "maxError": worst, "error": f"C[{r}][{col}] = {got}, expected {value} +- {tolerance:.3g}"}
    return {"ok": True, "checked": len(points), "maxError": worst}


def time_kernel(run, stream, reps, batch):
    """gpu-util.mjs's scheme: ms per launch of each sample."""
    start, end = cuda.event(timing=True), cuda.event(timing=True)
    times = []
    for _ in range(reps):
        run()
        start.record(stream)
        for _ in range(batch):
            run()
        end.record(stream)
        end.synchronize()
        times.append(cuda.event_elapsed_time(start, end) / batch)
    return times


# ---- the parts


def part_reduce(n, reps, batch):
    import_numba_cuda()
    kernel = cuda.jit(reduce_sum)
    sms = cuda.get_current_device().MULTIPROCESSOR_COUNT
    grid = REDUCE_BLOCKS_PER_SM * sms
    stream = cuda.stream()
    host = reduce_input(n)
    reference = float(host.sum(dtype=np.float64))
    x = cuda.to_device(host, stream=stream)
    zero = np.zeros(1, dtype=np.float32)
    out = cuda.to_device(zero, stream=stream)
    k = kernel[grid, REDUCE_BLOCK, stream]
    k(x, out)  # the compile, and the check
    stream.synchronize()
    check = check_sum(float(out.copy_to_host(stream=stream)[0]), reference)
    stream.synchronize()
    times = time_kernel(lambda: k(x, out), stream, reps, batch)
    ms = median(times)
    return {
        **check,
        "ms": ms,
        "gbPerS": 4 * n / (ms * 1e-3) / 1e9,
        "samplesMs": times,
        "n": n,
        "reps": reps,
        "batch": batch,
        "grid": grid,
        "block": REDUCE_BLOCK,
        "sms": sms,
        "reference": reference,
    }


def part_matmul(n, reps, batch):
    import_numba_cuda()
    stream = cuda.stream()
    a, b = matmul_inputs(n)
    A = cuda.to_device(a, stream=stream)
    B = cuda.to_device(b, stream=stream)
    C = cuda.device_array(n * n, dtype=np.float32, stream=stream)
    nans = np.full(n * n, np.nan, dtype=np.float32)
    size = np.int32(n)
    results, errors, runs = {}, {}, {}
    for tile in [t for t in TILES if n % t == 0]:
        try:
            kernel = cuda.jit(make_matmul(tile))
            k = kernel[(n // tile, n // tile), (tile, tile), stream]
            C.copy_to_device(nans, stream=stream)
            k(A, B, C, size)  # the compile, and the check
            stream.synchronize()
            check = check_matmul(C.copy_to_host(stream=stream), a, b, n)
            stream.synchronize()
            if not check["ok"]:
                errors[str(tile)] = f"wrong result: {check['error']}"
            runs[tile] = (k, check)
        except Exception as e:  # noqa: BLE001 - reported as the reason
            errors[str(tile)] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    # the tiles take turns sample by sample, as in matmul.mjs
    samples = {tile: [] for tile in runs}
    for _ in range(reps):
        for tile, (k, _check) in runs.items():
            samples[tile] += time_kernel(lambda: k(A, B, C, size), stream, 1, batch)
    for tile, (_k, check) in runs.items():
        ms = median(samples[tile])
        results[str(tile)] = {
            "ms": ms,
            "tflops": 2 * n**3 / (ms * 1e-3) / 1e12,
            "samplesMs": samples[tile],
            "ok": check["ok"],
            "checked": check.get("checked"),
            "maxError": check.get("maxError"),
        }
    return {"n": n, "reps": reps, "batch": batch, "tiles": list(TILES), "results": results, "errors": errors}


def part_cache(which):
    if not os.environ.get("NUMBA_CACHE_DIR"):
        return {"error": "NUMBA_CACHE_DIR is not set"}
    import_numba_cuda()
    if which == "reduce":
        n = 4096
        host = reduce_input(n)
        x = cuda.to_device(host)
        out = cuda.to_device(np.zeros(1, dtype=np.float32))
        cuda.synchronize()  # the context and the arrays, before the clock
        kernel = cuda.jit(cache=True)(reduce_sum)

        def launch():
            kernel[4, REDUCE_BLOCK](x, out)

        def check():
            return check_sum(float(out.copy_to_host()[0]), float(host.sum(dtype=np.float64)))

    elif which == "matmul":
        n, tile = 64, 32
        a, b = matmul_inputs(n)
        A, B = cuda.to_device(a), cuda.to_device(b)
        C = cuda.to_device(np.full(n * n, np.nan, dtype=np.float32))
        size = np.int32(n)
        cuda.synchronize()
        kernel = cuda.jit(cache=True)(make_matmul(tile))

        def launch():
            kernel[(n // tile, n // tile), (tile, tile)](A, B, C, size)

        def check():
            return check_matmul(C.copy_to_host(), a, b, n)

    else:
        return {"error": f"unknown kernel {which!r}; one of reduce, matmul"}
    t0 = time.perf_counter()
    launch()
    cuda.synchronize()
    first = (time.perf_counter() - t0) * 1000
    result = check()
    t0 = time.perf_counter()
    launch()
    cuda.synchronize()
    again = (time.perf_counter() - t0) * 1000
    stats = getattr(kernel, "stats", None)
    hits = sum(stats.cache_hits.values()) if stats is not None else None
    misses = sum(stats.cache_misses.values()) if stats is not None else None
    return {
        "kernel": which,
        "ok": result["ok"],
        "error": result.get("error"),
        "compileMs": first - again,
        "firstCallMs": first,
        "launchMs": again,
        "cacheHits": hits,
        "cacheMisses": misses,
    }


def part_simulator(blocks, reps):
    if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
        return {"error": "run with NUMBA_ENABLE_CUDASIM=1"}
    import_numba_cuda()
    kernel = cuda.jit(block_tree_sum)
    threads = blocks * SIM_BLOCK
    x = reduce_input(threads)
    expected = x.reshape(blocks, SIM_BLOCK).sum(axis=1, dtype=np.float64)
    times = []
    ok, error = True, None
    for r in range(reps):
        out = np.zeros(blocks, dtype=np.float32)
        t0 = time.perf_counter()
        kernel[blocks, SIM_BLOCK](x, out)
        times.append((time.perf_counter() - t0) * 1000)
        if r == 0:
            bad = np.flatnonzero(out != expected)
            if bad.size:
                ok, error = False, f"out[{int(bad[0])}] = {out[bad[0]]}, expected {expected[bad[0]]}"
    ms = median(times)
    return {
        "ok": ok,
        "error": error,
        "ms": ms,
        "samplesMs": times,
        "usPerThread": ms * 1000 / threads,
        "blocks": blocks,
        "block": SIM_BLOCK,
        "threads": threads,
        "barriers": 8,
        "reps": reps,
    }


def main():
    part = sys.argv[1] if len(sys.argv) > 1 else ""
    rest = sys.argv[2:]
    ints = lambda: [int(a) for a in rest]  # noqa: E731
    parts = {
        "reduce": lambda: part_reduce(*(ints() or [1 << 28, 20, 5])),
        "matmul": lambda: part_matmul(*(ints() or [4096, 10, 3])),
        "cache": lambda: part_cache(*(rest or ["reduce"])),
        "simulator": lambda: part_simulator(*(ints() or [8, 3])),
        "versions": anchors.versions,
    }
    if part not in parts:
        anchors.emit({"error": f"unknown part {part!r}; one of {', '.join(parts)}"})
        return
    try:
        result = parts[part]()
    except ImportError as e:
        result = {"error": f"numba-cuda unavailable: {type(e).__name__}: {e}"}
    except Exception as e:  # noqa: BLE001 - any failure is reported as the reason
        result = {"error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}
    anchors.emit(result)


if __name__ == "__main__":
    main()
