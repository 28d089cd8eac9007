// Sources that the tests compile with the real libraries.

/** A CUDA C++ kernel that NVRTC compiles: out[i] = a * x[i] + y[i]. */
export const SAXPY_CU = `
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
template <typename T> __global__ void fill(T* p, T v) { p[threadIdx.x] = v; }
`;

/** Not C++: NVRTC must fail and say why in its log. */
export const BROKEN_CU = `extern "C" __global__ void broken(float* p) { p[0] = undeclared_name; }`;

/** NVVM IR (typed pointers, NVVM IR 2.0) of a kernel that stores 1.0 at out[tid.x]. */
export const STORE_ONE_NVVM_IR = `
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @store_one(float* %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %idx = zext i32 %tid to i64
  %p = getelementptr float, float* %out, i64 %idx
  store float 1.000000e+00, float* %p
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!0}
!0 = !{void (float*)* @store_one, !"kernel", i32 1}
!nvvmir.version = !{!1}
!1 = !{i32 2, i32 0}
`;

/** A kernel that takes NVRTC a while (many template instantiations), so that a timer can fire meanwhile. */
export const SLOW_CU = `
template <int N, int S> struct Sum { __device__ static float f(const float* x) { return x[(N + S) % 7] * 1.0001f + Sum<N - 1, S>::f(x); } };
template <int S> struct Sum<0, S> { __device__ static float f(const float* x) { return x[S % 7]; } };
template <int S> __global__ void slow(const float* x, float* out) { out[threadIdx.x] = Sum<120, S>::f(x); }
${Array.from({ length: 12 }, (_, s) => `template __global__ void slow<${s}>(const float*, float*);`).join('\n')}
`;
