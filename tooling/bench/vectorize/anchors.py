# numba-cuda's @vectorize(target='cuda') and CuPy's ElementwiseKernel on the
# same add of n float32 (device arrays, a given out), and numba's
# create_xoroshiro128p_states for 10^6 states. Prints one JSON object per side.
import json, sys, time
import numpy as np
np.row_stack = np.vstack
n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 26
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 20
calls = 20000

def timed(fn, sync):
    fn(); sync()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter(); fn(); sync(); ts.append((time.perf_counter() - t0) * 1e3)
    ts.sort()
    return ts[len(ts) // 2]

def overhead(fn, sync):
    for _ in range(1000): fn()
    sync()
    t0 = time.perf_counter()
    for _ in range(calls): fn()
    sync()
    return (time.perf_counter() - t0) * 1e6 / calls

try:
    from numba import cuda, vectorize
    from numba.cuda.random import create_xoroshiro128p_states
    @vectorize(['float32(float32, float32)'], target='cuda')
    def add(a, b):
        return a + b
    a = cuda.to_device((np.arange(n) % 1024).astype(np.float32)); b = cuda.to_device(np.ones(n, np.float32)); o = cuda.device_array_like(a)
    ms = timed(lambda: add(a, b, out=o), cuda.synchronize)
    ok = bool(o.copy_to_host()[12345] == 12345 % 1024 + 1)
    a1 = cuda.to_device(np.zeros(1, np.float32)); b1 = cuda.to_device(np.zeros(1, np.float32)); o1 = cuda.device_array_like(a1)
    us = overhead(lambda: add(a1, b1, out=o1), cuda.synchronize)
    create_xoroshiro128p_states(10, seed=1); cuda.synchronize()
    t0 = time.perf_counter(); create_xoroshiro128p_states(10**6, seed=42); cuda.synchronize()
    states = (time.perf_counter() - t0) * 1e3
    print(json.dumps({'side': 'numba-cuda', 'n': n, 'ms': ms, 'gbps': 12 * n / (ms * 1e6), 'callUs': us, 'statesMs': states, 'ok': ok}))
except Exception as e:
    print(json.dumps({'side': 'numba-cuda', 'error': repr(e)}))

try:
    import cupy as cp
    k = cp.ElementwiseKernel('float32 a, float32 b', 'float32 o', 'o = a + b', 'add_f32')
    a = (cp.arange(n) % 1024).astype(cp.float32); b = cp.ones(n, cp.float32); o = cp.empty_like(a)
    sync = cp.cuda.Device().synchronize
    ms = timed(lambda: k(a, b, o), sync)
    ok = bool(float(o[12345]) == 12345 % 1024 + 1)
    a1 = cp.zeros(1, cp.float32); b1 = cp.zeros(1, cp.float32); o1 = cp.empty_like(a1)
    us = overhead(lambda: k(a1, b1, o1), sync)
    print(json.dumps({'side': 'cupy', 'n': n, 'ms': ms, 'gbps': 12 * n / (ms * 1e6), 'callUs': us, 'ok': ok}))
except Exception as e:
    print(json.dumps({'side': 'cupy', 'error': repr(e)}))
