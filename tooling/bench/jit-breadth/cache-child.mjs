// Part 3, one fresh process: with the context made and small device arrays
// ready, the time of kernel.compile(signature) for a kernel made with
// jit(fn, { cache: true }) (CUDA_JS_CACHE_DIR names the cache folder): a
// disk-cache hit where an earlier process compiled the same kernel, a
// compile that fills the cache in the first. Then one launch, checked
// (cache-latency.mjs looks at what the process left in the cache folder).
// usage: node cache-child.mjs <reduce|matmul>   (prints one JSON line)
import { Device, StridedMemoryView, array, f32, i32 } from 'cuda-js';
import { emit, reason } from '../jit/bench-util.mjs';
import { checkMatmul, checkSum, hostSum, matmulInputs, matmulKernel, reduceInput, reduceKernel } from './kernels.mjs';

const which = process.argv[2];
const cacheDir = process.env.CUDA_JS_CACHE_DIR;
const out = { kernel: which, ok: false };

try {
  if (!cacheDir) throw new Error('CUDA_JS_CACHE_DIR is not set');
  const device = Device.get(0).setCurrent();
  const view = (b, length) => StridedMemoryView.fromPointer(b.ptr, { dtype: 'float32', shape: [length], exporter: b });
  let t0;
  if (which === 'reduce') {
    const n = 4096;
    const host = reduceInput(n);
    const xBuf = device.allocate(n * 4);
    const outBuf = device.allocate(4);
    xBuf.copyFrom(host);
    outBuf.fill(0, { width: 4 });
    device.synchronize();
    t0 = performance.now();
    const kernel = reduceKernel({ cache: true });
    out.jitMs = performance.now() - t0;
    t0 = performance.now();
    kernel.compile([array(f32, 1), array(f32, 1)]);
    out.compileMs = performance.now() - t0;
    kernel.launch({ grid: 4, block: 256 }, view(xBuf, n), view(outBuf, 1));
    device.synchronize();
    const got = new Float32Array(1);
    outBuf.copyTo(got);
    const check = checkSum(got[0], hostSum(host));
    out.ok = check.ok;
    out.error = check.error;
    out.compileCount = kernel.compileCount;
    ({ hits: out.cacheHits, misses: out.cacheMisses } = kernel.cacheStats ?? {});
  } else if (which === 'matmul') {
    const n = 64;
    const tile = 32;
    const { A, B } = matmulInputs(n);
    const [aBuf, bBuf, cBuf] = [device.allocate(n * n * 4), device.allocate(n * n * 4), device.allocate(n * n * 4)];
    aBuf.copyFrom(A);
    bBuf.copyFrom(B);
    cBuf.fill(0x7fc00000, { width: 4 });
    device.synchronize();
    t0 = performance.now();
    const kernel = matmulKernel(tile, { cache: true });
    out.jitMs = performance.now() - t0;
    t0 = performance.now();
    kernel.compile([array(f32, 1), array(f32, 1), array(f32, 1), i32]);
    out.compileMs = performance.now() - t0;
    kernel.launch(
      { grid: [n / tile, n / tile], block: [tile, tile] },
      view(aBuf, n * n),
      view(bBuf, n * n),
      view(cBuf, n * n),
      i32(n),
    );
    device.synchronize();
    const got = new Float32Array(n * n);
    cBuf.copyTo(got);
    const check = checkMatmul(got, A, B, n);
    out.ok = check.ok;
    out.error = check.error;
    out.compileCount = kernel.compileCount;
    ({ hits: out.cacheHits, misses: out.cacheMisses } = kernel.cacheStats ?? {});
  } else {
    throw new Error(`unknown kernel ${which}; one of reduce, matmul`);
  }
  // a launch that compiled again (its arguments' types not the signature's) would not be the cached kernel's
  if (out.ok && out.compileCount !== 1) {
    out.ok = false;
    out.error = `the launch compiled again (compileCount ${out.compileCount}): the signature given to compile() is not the launch's`;
  }
} catch (error) {
  out.ok = false;
  out.error = reason(error);
}
emit(out);
