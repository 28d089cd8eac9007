// The anchor: a raw C cuLaunchKernel loop, libcuda opened with dlopen.
// usage: raw-launch-arrays <cubin> <array count> <iterations>
// prints: microseconds per launch
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
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
typedef CUresult (*cuStreamCreate_t)(CUstream*, unsigned);
typedef CUresult (*cuStreamSynchronize_t)(CUstream);
typedef CUresult (*cuLaunchKernel_t)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void**, void**);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  if (argc < 4) { fprintf(stderr, "usage: raw-launch-arrays <cubin> <arrays> <iterations>\n"); return 2; }
  int arrays = atoi(argv[2]);
  long iterations = atol(argv[3]);
  void* lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) { fprintf(stderr, "dlopen libcuda.so.1: %s\n", dlerror()); return 1; }
  LOAD(cuInit) LOAD(cuDeviceGet) LOAD(cuDevicePrimaryCtxRetain) LOAD(cuCtxSetCurrent) LOAD(cuModuleLoad)
  LOAD(cuModuleGetFunction) LOAD(cuMemAlloc_v2) LOAD(cuStreamCreate) LOAD(cuStreamSynchronize) LOAD(cuLaunchKernel)
  CUdevice dev; CUcontext ctx; CUmodule mod; CUfunction fn; CUstream stream;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  CHECK(cuModuleLoad(&mod, argv[1]));
  char name[16];
  snprintf(name, sizeof name, "k%d", arrays);
  CHECK(cuModuleGetFunction(&fn, mod, name));
  CHECK(cuStreamCreate(&stream, 1));
  CUdeviceptr ptrs[16];
  void* params[17];
  int n = 1024;
  for (int i = 0; i < arrays; i++) { CHECK(cuMemAlloc_v2(&ptrs[i], 4096)); params[i] = &ptrs[i]; }
  params[arrays] = &n;
  for (long i = 0; i < 10000; i++) CHECK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, stream, params, NULL));
  CHECK(cuStreamSynchronize(stream));
  double t0 = now();
  for (long i = 0; i < iterations; i++) CHECK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, stream, params, NULL));
  double t1 = now();
  CHECK(cuStreamSynchronize(stream));
  printf("%.4f\n", (t1 - t0) * 1e6 / iterations);
  return 0;
}
