// The app that tooling/bundled-apps/bundled-apps.mjs bundles and ships: it
// loads the native addon and reaches cuInit, then runs two kernels (on the
// GPU, or in the simulator under CUDA_JS_SIMULATOR=1) and prints one JSON
// line with what it saw and the kernels' results.
import { CudaError, driver, f32 } from 'cuda-js';
import { blockSum, saxpy } from './kernels.js';

function driverState(): string {
  try {
    driver.cuInit(0);
    return 'CUDA_SUCCESS';
  } catch (error) {
    if (error instanceof CudaError) return error.codeName;
    const e = error as Error;
    return `${e.name}: ${e.message}`;
  }
}

const n = 256;
const x = Float32Array.from({ length: n }, (_, i) => (i % 11) - 5);
const y = Float32Array.from({ length: n }, (_, i) => i / 8);
const report: Record<string, unknown> = { cuInit: driverState() };
try {
  saxpy.launch({ grid: n / 64, block: 64 }, f32(2), x, y);
  const sums = new Float32Array(n / 64);
  blockSum.launch({ grid: n / 64, block: 64 }, x, sums);
  report['results'] = { saxpy: [...y], blockSum: [...sums] };
} catch (error) {
  const e = error as Error;
  report['error'] = `${e.name}: ${e.message}`;
}
console.log(JSON.stringify(report));
