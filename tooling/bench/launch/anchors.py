"""Python anchors of the launch benchmark: cuda.core, CuPy RawKernel, numba-cuda.

usage: python3 anchors.py <cubin> <kernel source .cu> <iterations>
prints one JSON object: {"<anchor>": {"<array count>": microseconds per launch}}
An anchor whose package is missing is reported as null with the reason.
"""
import json
import sys
import time

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack  # numba-cuda 0.30.4 still uses it; numpy 2.5 removed it

CUBIN, SOURCE, ITERATIONS = sys.argv[1], sys.argv[2], int(sys.argv[3])
COUNTS = [0, 1, 4, 16]
N = 1024
results = {}
errors = {}


def timed(launch_once, sync):
    for _ in range(2000):
        launch_once()
    sync()
    t0 = time.perf_counter()
    for _ in range(ITERATIONS):
        launch_once()
    t1 = time.perf_counter()
    sync()
    return (t1 - t0) * 1e6 / ITERATIONS


try:
    from cuda.core import Device, LaunchConfig, ObjectCode, launch

    dev = Device(0)
    dev.set_current()
    stream = dev.create_stream()
    mod = ObjectCode.from_cubin(open(CUBIN, "rb").read())
    config = LaunchConfig(grid=1, block=32)
    bufs = [dev.allocate(4096, stream=stream) for _ in range(16)]
    out = {}
    for count in COUNTS:
        kernel = mod.get_kernel(f"k{count}")
        args = [b.handle for b in bufs[:count]] + [np.int32(N)]
        out[str(count)] = timed(lambda: launch(stream, config, kernel, *args), stream.sync)
    results["cuda.core (pointers)"] = out
except Exception as e:  # noqa: BLE001 - report any failure as the reason
    errors["cuda.core (pointers)"] = f"{type(e).__name__}: {e}"

try:
    import cupy as cp

    source = open(SOURCE).read()
    module = cp.RawModule(code=source, options=("-std=c++17",))
    arrays = [cp.zeros(N, dtype=cp.float32) for _ in range(16)]
    stream = cp.cuda.Stream(non_blocking=True)
    out = {}
    with stream:
        for count in COUNTS:
            kern = module.get_function(f"k{count}")
            args = tuple(arrays[:count]) + (np.int32(N),)
            out[str(count)] = timed(lambda: kern((1,), (32,), args), stream.synchronize)
    results["CuPy RawKernel (arrays)"] = out
except Exception as e:  # noqa: BLE001
    errors["CuPy RawKernel (arrays)"] = f"{type(e).__name__}: {e}"

try:
    from numba import cuda

    def make(count):
        names = [f"a{i}" for i in range(count)] + ["n"]
        src = f"def k({', '.join(names)}):\n    pass\n"
        scope = {}
        exec(src, scope)  # noqa: S102 - generated benchmark kernels
        return cuda.jit(scope["k"])

    nb_stream = cuda.stream()
    own = [cuda.device_array(N, dtype=np.float32) for _ in range(16)]
    out_own, out_cupy = {}, {}
    for count in COUNTS:
        k = make(count)
        args = tuple(own[:count]) + (np.int32(N),)
        out_own[str(count)] = timed(lambda: k[1, 32, nb_stream](*args), nb_stream.synchronize)
        try:
            import cupy as cp

            cargs = tuple(cp.zeros(N, dtype=cp.float32) for _ in range(count)) + (np.int32(N),)
            out_cupy[str(count)] = timed(lambda: k[1, 32, nb_stream](*cargs), nb_stream.synchronize)
        except Exception as e:  # noqa: BLE001
            errors["numba-cuda (CuPy arrays)"] = f"{type(e).__name__}: {e}"
    results["numba-cuda (own arrays)"] = out_own
    if out_cupy:
        results["numba-cuda (CuPy arrays)"] = out_cupy
except Exception as e:  # noqa: BLE001
    errors["numba-cuda (own arrays)"] = f"{type(e).__name__}: {e}"

print(json.dumps({"results": results, "errors": errors}))
