// The empty kernels of the launch benchmark, as CUDA C++ (compiled with nvcc at
// bench time), one per column of the report:
//   k<N>(float* a0, ..., float* a<N-1>, int n)   for N in ARRAY_COUNTS
//   kmixed(float* p, int a, double b, unsigned long long c)   three scalars of mixed types
export const ARRAY_COUNTS = [0, 1, 4, 16];

/** The columns of the report: kernel name and header. */
export const COLUMNS = [
  ...ARRAY_COUNTS.map((n) => ({ kernel: `k${n}`, header: `${n} ${n === 1 ? 'array' : 'arrays'} + int` })),
  { kernel: 'kmixed', header: '1 array + int, double, u64' },
];

/** The arguments every side passes to kmixed after its array: an int, a double, an unsigned 64-bit integer. */
export const MIXED_SCALARS = { a: 7, b: 1.5, c: 9 };

export function kernelSource() {
  const counted = ARRAY_COUNTS.map((n) => {
    const params = [...Array.from({ length: n }, (_, i) => `float* a${i}`), 'int n'].join(', ');
    return `extern "C" __global__ void k${n}(${params}) {}`;
  });
  return (
    [...counted, 'extern "C" __global__ void kmixed(float* p, int a, double b, unsigned long long c) {}'].join('\n') +
    '\n'
  );
}

if (import.meta.url === `file://${process.argv[1]}`) process.stdout.write(kernelSource());
