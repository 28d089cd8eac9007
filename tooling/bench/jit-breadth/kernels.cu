// The CUDA C++ anchors of the JIT breadth benchmark, compiled by nvcc
// (-cubin -O3 -arch=sm_XX) in run.sh and launched through core's launch() in
// the same process as the JIT kernels (reduce.mjs, matmul.mjs), with these
// parameter lists. Each is the same algorithm, line for line, as its JS twin
// in kernels.mjs and its numba-cuda twin in numba_breadth.py.

// Part 1: the sum of x[0..n) added into out[0] (zeroed by the caller).
// Blocks of 256 threads; any grid. Each thread accumulates a grid-stride
// loop with four independent loads an iteration, then the block reduces its
// 256 partial sums in shared memory down to 64, the first warp adds the last
// 64 by shuffles, and thread 0 adds the block's sum into out[0] atomically.
extern "C" __global__ void reduce_sum(const float* x, int n, float* out) {
  __shared__ float partial[256];
  int tid = threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  while (i + 3 * stride < n) {
    sum += x[i] + x[i + stride] + x[i + 2 * stride] + x[i + 3 * stride];
    i += 4 * stride;
  }
  while (i < n) {
    sum += x[i];
    i += stride;
  }
  partial[tid] = sum;
  __syncthreads();
  for (int k = 128; k > 32; k >>= 1) {
    if (tid < k) partial[tid] += partial[tid + k];
    __syncthreads();
  }
  if (tid < 32) {
    float v = partial[tid] + partial[tid + 32];
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (tid == 0) atomicAdd(out, v);
  }
}

// Part 2: C = A B for n x n row-major float32 matrices, n a multiple of TILE.
// Blocks of TILE x TILE threads, grid (n / TILE, n / TILE); each thread
// computes one element of C, the block walking A's rows and B's columns one
// TILE x TILE tile of each at a time through two shared tiles.
template <int TILE>
__device__ __forceinline__ void matmul_tiled(const float* A, const float* B, float* C, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < n; t += TILE) {
    As[ty][tx] = A[row * n + t + tx];
    Bs[ty][tx] = B[(t + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; k++) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

extern "C" __global__ void matmul_tiled16(const float* A, const float* B, float* C, int n) { matmul_tiled<16>(A, B, C, n); }
extern "C" __global__ void matmul_tiled32(const float* A, const float* B, float* C, int n) { matmul_tiled<32>(A, B, C, n); }
