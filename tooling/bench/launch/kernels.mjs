// The empty kernels of the launch benchmark: k<N>(float* a0, ..., float* a<N-1>, int n)
// for N in ARRAY_COUNTS, as CUDA C++ (compiled with nvcc at bench time).
export const ARRAY_COUNTS = [0, 1, 4, 16];

export function kernelSource() {
  return (
    ARRAY_COUNTS.map((n) => {
      const params = [...Array.from({ length: n }, (_, i) => `float* a${i}`), 'int n'].join(', ');
      return `extern "C" __global__ void k${n}(${params}) {}`;
    }).join('\n') + '\n'
  );
}

if (import.meta.url === `file://${process.argv[1]}`) process.stdout.write(kernelSource());
