/**
 * numba-cuda's spellings that cuda-js spells differently, so that a kernel
 * ported line by line from numba gets an error naming the cuda-js form
 * (docs/porting-from-numba.md has the whole table).
 */

/** `cuda.<path>` as numba spells it → the cuda-js spelling. */
const CUDA_PATHS: Readonly<Record<string, string>> = Object.freeze({
  'cg.this_grid': 'cuda.cg.thisGrid()',
  'const.array_like': 'cuda.const.arrayLike(HOST_ARRAY)',
  'atomic.and_': 'cuda.atomic.and(array, index, value)',
  'atomic.or_': 'cuda.atomic.or(array, index, value)',
  'atomic.compare_and_swap': 'cuda.atomic.cas(array, 0, expected, value)',
  to_device:
    'a host array passed to the kernel (copied both ways), or a device array made on the host; not inside a kernel',
  device_array: 'an array made on the host and passed to the kernel; inside a kernel, cuda.local.array(shape, dtype)',
  device_array_like: 'an array made on the host and passed to the kernel',
  synchronize: 'synchronizing on the host (stream.synchronize()), not inside a kernel',
  'random.xoroshiro128p_uniform_float32':
    'xoroshiro128p_uniform_float32, imported from @cuda-js/jit and named in the constants',
  'random.xoroshiro128p_uniform_float64':
    'xoroshiro128p_uniform_float64, imported from @cuda-js/jit and named in the constants',
  'random.xoroshiro128p_normal_float32':
    'xoroshiro128p_normal_float32, imported from @cuda-js/jit and named in the constants',
  'random.xoroshiro128p_normal_float64':
    'xoroshiro128p_normal_float64, imported from @cuda-js/jit and named in the constants',
});

/** Free functions of Python that numba kernels call → the cuda-js form. */
const PYTHON_FUNCTIONS: Readonly<Record<string, string>> = Object.freeze({
  len: 'x.length (1-D) or x.shape[k]',
  range: 'a for loop: for (let i = 0; i < n; i++)',
  int: 'Math.trunc(x) or cuda.i32(x)',
  float: 'cuda.f64(x) or Number(x)',
  abs: 'Math.abs(x)',
  min: 'Math.min(a, b)',
  max: 'Math.max(a, b)',
  print: 'console.log(...) or cuda.printf(format, ...)',
});

/** ` (numba's spelling; in cuda-js: ...)` for a numba spelling of `cuda.<path>`, else ''. */
export function numbaCudaHint(path: string): string {
  return Object.hasOwn(CUDA_PATHS, path) ? ` (numba's spelling; in cuda-js: ${CUDA_PATHS[path]})` : '';
}

/** The same for a free Python function (`len(x)`), else ''. */
export function numbaFunctionHint(name: string): string {
  return Object.hasOwn(PYTHON_FUNCTIONS, name) ? ` (numba's ${name}(...); in cuda-js: ${PYTHON_FUNCTIONS[name]})` : '';
}
