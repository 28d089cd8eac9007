"""Python anchors of the launch benchmark: cuda.core, CuPy RawKernel, numba-cuda.

Serves batches so that it runs interleaved with the raw C loop and the
cuda-js side (interleave.mjs).
usage: python3 anchors.py <cubin> <kernel source .cu>
prints one JSON line {"ready": true, "forms": [...], "errors": {...}}, then for
each line "<form index> <kernel> <launches>" on stdin the microseconds per
launch of one batch (the loop alone; the stream is synchronized after it,
untimed). An anchor whose package is missing is left out, with the reason in
"errors".
"""
import json
import sys
import time

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack  # numba-cuda 0.30.4 still uses it; numpy 2.5 removed it

CUBIN, SOURCE = sys.argv[1], sys.argv[2]
COUNTS = [0, 1, 4, 16]
KERNELS = [f"k{n}" for n in COUNTS] + ["kmixed"]
N = 1024
MIXED = (np.int32(7), np.float64(1.5), np.uint64(9))  # kernels.mjs MIXED_SCALARS
forms = []  # (name, {kernel: loop(launches)}, sync)
errors = {}


def scalars(kernel):
    return MIXED if kernel == "kmixed" else (np.int32(N),)


def arrays_for(kernel, arrays):
    return tuple(arrays[:1]) if kernel == "kmixed" else tuple(arrays[: int(kernel[1:])])


try:
    from cuda.core import Device, LaunchConfig, ObjectCode, launch

    dev = Device(0)
    dev.set_current()
    core_stream = dev.create_stream()
    mod = ObjectCode.from_cubin(open(CUBIN, "rb").read())
    config = LaunchConfig(grid=1, block=32)
    bufs = [dev.allocate(4096, stream=core_stream) for _ in range(16)]
    loops = {}
    for name in KERNELS:
        kernel = mod.get_kernel(name)
        args = arrays_for(name, [b.handle for b in bufs]) + scalars(name)

        def loop(launches, kernel=kernel, args=args):
            for _ in range(launches):
                launch(core_stream, config, kernel, *args)

        loops[name] = loop
    forms.append(("cuda.core (pointers)", loops, core_stream.sync))
except Exception as e:  # noqa: BLE001 - report any failure as the reason
    errors["cuda.core (pointers)"] = f"{type(e).__name__}: {e}"

try:
    import cupy as cp

    module = cp.RawModule(code=open(SOURCE).read(), options=("-std=c++17",))
    cupy_arrays = [cp.zeros(N, dtype=cp.float32) for _ in range(16)]
    cupy_stream = cp.cuda.Stream(non_blocking=True)
    loops = {}
    for name in KERNELS:
        kern = module.get_function(name)
        args = arrays_for(name, cupy_arrays) + scalars(name)

        def loop(launches, kern=kern, args=args):
            with cupy_stream:
                for _ in range(launches):
                    kern((1,), (32,), args)

        loops[name] = loop
    forms.append(("CuPy RawKernel (arrays)", loops, cupy_stream.synchronize))
except Exception as e:  # noqa: BLE001
    errors["CuPy RawKernel (arrays)"] = f"{type(e).__name__}: {e}"

try:
    from numba import cuda

    def make(params):
        src = f"def k({', '.join(params)}):\n    pass\n"
        scope = {}
        exec(src, scope)  # noqa: S102 - generated benchmark kernels
        return cuda.jit(scope["k"])

    nb_stream = cuda.stream()
    own = [cuda.device_array(N, dtype=np.float32) for _ in range(16)]
    kernels = {}
    for name in KERNELS:
        count = 1 if name == "kmixed" else int(name[1:])
        params = [f"a{i}" for i in range(count)] + (["a", "b", "c"] if name == "kmixed" else ["n"])
        kernels[name] = make(params)

    def numba_loops(arrays):
        loops = {}
        for name in KERNELS:
            k = kernels[name]
            args = arrays_for(name, arrays) + scalars(name)

            def loop(launches, k=k, args=args):
                for _ in range(launches):
                    k[1, 32, nb_stream](*args)

            loops[name] = loop
        return loops

    forms.append(("numba-cuda (own arrays)", numba_loops(own), nb_stream.synchronize))
    try:
        import cupy as cp

        forms.append(("numba-cuda (CuPy arrays)", numba_loops([cp.zeros(N, dtype=cp.float32) for _ in range(16)]), nb_stream.synchronize))
    except Exception as e:  # noqa: BLE001
        errors["numba-cuda (CuPy arrays)"] = f"{type(e).__name__}: {e}"
except Exception as e:  # noqa: BLE001
    errors["numba-cuda (own arrays)"] = f"{type(e).__name__}: {e}"

# warm every loop: compiled, cached, first-launch work done
for name, loops, sync in list(forms):
    try:
        for loop in loops.values():
            loop(200)
        sync()
    except Exception as e:  # noqa: BLE001
        errors[name] = f"{type(e).__name__}: {e}"
        forms.remove((name, loops, sync))

print(json.dumps({"ready": True, "forms": [f[0] for f in forms], "errors": errors}), flush=True)
for line in sys.stdin:
    parts = line.split()
    if len(parts) != 3:
        break
    index, kernel, launches = int(parts[0]), parts[1], int(parts[2])
    _, loops, sync = forms[index]
    t0 = time.perf_counter()
    loops[kernel](launches)
    t1 = time.perf_counter()
    sync()
    print(f"{(t1 - t0) * 1e6 / launches:.4f}", flush=True)
