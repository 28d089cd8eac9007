#!/usr/bin/env python3
"""ns per cuda.core StridedMemoryView from a CuPy array, through DLPack
(StridedMemoryView.from_dlpack) and the CUDA array interface
(StridedMemoryView.from_cuda_array_interface): the anchor of views.mjs.

    python3 tooling/bench/views/cuda_core_views.py [--json] [--iterations N]

The consumer stream is CuPy's current stream, as a launch would pass it, so
that neither protocol has to order two streams (views.mjs does the same).
"""
import json
import statistics
import sys
import time

try:
    from cuda.core.utils import StridedMemoryView
except ImportError:  # cuda.core before 1.0
    from cuda.core.experimental.utils import StridedMemoryView
import cuda.core
import cupy as cp


def time_case(make, n):
    check = 0
    start = time.perf_counter_ns()
    for _ in range(n):
        check += make().shape[0]
    elapsed = time.perf_counter_ns() - start
    if check != n * 1024:
        raise RuntimeError("benchmark lost its work")
    return elapsed / n


def main():
    args = sys.argv[1:]
    iterations = int(args[args.index("--iterations") + 1]) if "--iterations" in args else 200_000
    stream = cp.cuda.Stream(non_blocking=True)
    results = []
    with stream:
        a = cp.empty(1024, dtype=cp.float32)
        ptr = stream.ptr
        cases = [
            ("StridedMemoryView.from_dlpack(cupy array)", lambda: StridedMemoryView.from_dlpack(a, stream_ptr=ptr)),
            ("StridedMemoryView.from_cuda_array_interface(cupy array)", lambda: StridedMemoryView.from_cuda_array_interface(a, stream_ptr=ptr)),
        ]
        for name, make in cases:
            time_case(make, min(iterations, 20_000))  # warm up
            runs = sorted(time_case(make, iterations) for _ in range(5))
            results.append({"name": name, "nsPerView": statistics.median(runs), "best": runs[0]})
    device = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"]
    device = device.decode() if isinstance(device, bytes) else device
    runtime = f"python {sys.version.split()[0]}, cuda.core {getattr(cuda.core, '__version__', '?')}, cupy {cp.__version__}, {device}"
    if "--json" in args:
        print(json.dumps({"runtime": runtime, "iterations": iterations, "results": results}))
    else:
        print(f"cuda.core StridedMemoryView, {runtime}, {iterations} views per run, median of 5 runs")
        for r in results:
            print(f"{r['name']:<60} {r['nsPerView']:>8.1f} ns per view  (best {r['best']:.1f})")


if __name__ == "__main__":
    main()
