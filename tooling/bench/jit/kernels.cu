// The CUDA C++ anchors of the JIT benchmark, compiled by nvcc (-cubin) in run.sh.
// Each has the parameter list that @cuda-js/jit gives the matching JS kernel:
// a scalar is one value, a 1-D array its data pointer and, only where the
// kernel reads `.length`, one i64 extent right after it.

// launch.mjs `axpyN`: (a, x, y, n) => { i = cuda.grid(1); if (i < n) y[i] = a * x[i] + y[i]; }
// launched with f32(a) and i32(n): (float, float*, float*, int).
extern "C" __global__ void k(float a, float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// launch.mjs / bandwidth.mjs `axpy`: (a, x, y) => { i = cuda.grid(1); if (i < y.length) y[i] = a * x[i] + y[i]; }
// y's extent follows y's pointer: (float, float*, float*, i64); `.length` is an i32 in the kernel.
extern "C" __global__ void k_len(float a, float* x, float* y, long long y_length) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < (int)y_length) y[i] = a * x[i] + y[i];
}
