// The launch anchor of the JIT benchmark: a raw C cuLaunchKernel loop over the
// nvcc-compiled kernels of kernels.cu, libcuda opened with dlopen.
// usage: raw-launch <cubin> <k|k_len> <iterations> <n>
//   k:     (float a, float* x, float* y, int n)        -- the JIT kernel with an i32 bound
//   k_len: (float a, float* x, float* y, long long n)  -- the JIT kernel that reads y.length
// prints: microseconds per launch (launch loop only, then one stream sync)
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef void* CUcontext;
typedef void* CUmodule;
typedef void* CUfunction;
typedef void* CUstream;
typedef unsigned long long CUdeviceptr;

#define LOAD(name) name##_t name = (name##_t)dlsym(lib, #name); if (!name) { fprintf(stderr, "no %s\n", #name); return 1; }
#define CHECK(call) do { CUresult r = (call); if (r) { fprintf(stderr, "%s failed: %d\n", #call, r); return 1; } } while (0)

typedef CUresult (*cuInit_t)(unsigned);
typedef CUresult (*cuDeviceGet_t)(CUdevice*, int);
typedef CUresult (*cuDevicePrimaryCtxRetain_t)(CUcontext*, CUdevice);
typedef CUresult (*cuCtxSetCurrent_t)(CUcontext);
typedef CUresult (*cuModuleLoad_t)(CUmodule*, const char*);
typedef CUresult (*cuModuleGetFunction_t)(CUfunction*, CUmodule, const char*);
typedef CUresult (*cuMemAlloc_v2_t)(CUdeviceptr*, size_t);
typedef CUresult (*cuMemsetD8_v2_t)(CUdeviceptr, unsigned char, size_t);
typedef CUresult (*cuStreamCreate_t)(CUstream*, unsigned);
typedef CUresult (*cuStreamSynchronize_t)(CUstream);
typedef CUresult (*cuLaunchKernel_t)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void**, void**);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  if (argc < 5) { fprintf(stderr, "usage: raw-launch <cubin> <k|k_len> <iterations> <n>\n"); return 2; }
  const char* name = argv[2];
  long iterations = atol(argv[3]);
  int wide = strcmp(name, "k_len") == 0;
  int n = atoi(argv[4]);
  long long n64 = n;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) { fprintf(stderr, "dlopen libcuda.so.1: %s\n", dlerror()); return 1; }
  LOAD(cuInit) LOAD(cuDeviceGet) LOAD(cuDevicePrimaryCtxRetain) LOAD(cuCtxSetCurrent) LOAD(cuModuleLoad)
  LOAD(cuModuleGetFunction) LOAD(cuMemAlloc_v2) LOAD(cuMemsetD8_v2) LOAD(cuStreamCreate) LOAD(cuStreamSynchronize) LOAD(cuLaunchKernel)
  CUdevice dev; CUcontext ctx; CUmodule mod; CUfunction fn; CUstream stream;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  CHECK(cuModuleLoad(&mod, argv[1]));
  CHECK(cuModuleGetFunction(&fn, mod, name));
  CHECK(cuStreamCreate(&stream, 1 /* CU_STREAM_NON_BLOCKING */));
  size_t bytes = 4096 + (size_t)n * 4;
  CUdeviceptr x, y;
  CHECK(cuMemAlloc_v2(&x, bytes));
  CHECK(cuMemAlloc_v2(&y, bytes));
  CHECK(cuMemsetD8_v2(x, 0, bytes));
  CHECK(cuMemsetD8_v2(y, 0, bytes));
  float a = 2.0f;
  void* params[4] = { &a, &x, &y, wide ? (void*)&n64 : (void*)&n };
  for (long i = 0; i < 10000; i++) CHECK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, stream, params, NULL));
  CHECK(cuStreamSynchronize(stream));
  double t0 = now();
  for (long i = 0; i < iterations; i++) CHECK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, stream, params, NULL));
  double t1 = now();
  CHECK(cuStreamSynchronize(stream));
  printf("%.4f\n", (t1 - t0) * 1e6 / iterations);
  return 0;
}
