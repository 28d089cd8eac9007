// The anchor: a raw C cuLaunchKernel loop, libcuda opened with dlopen, serving
// batches so that it runs interleaved with the other sides (interleave.mjs).
// usage: raw-launch-arrays <cubin>
// prints "ready", then for each line "<kernel> <launches>" on stdin (kernel
// k0, k1, k4, k16 or kmixed) launches it that many times on one stream and
// prints the microseconds per launch (the loop alone; the stream is
// synchronized after it, untimed).
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
typedef CUresult (*cuStreamCreate_t)(CUstream*, unsigned);
typedef CUresult (*cuStreamSynchronize_t)(CUstream);
typedef CUresult (*cuLaunchKernel_t)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void**, void**);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

#define KERNELS 5
static const char* names[KERNELS] = {"k0", "k1", "k4", "k16", "kmixed"};

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: raw-launch-arrays <cubin>\n"); return 2; }
  void* lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) { fprintf(stderr, "dlopen libcuda.so.1: %s\n", dlerror()); return 1; }
  LOAD(cuInit) LOAD(cuDeviceGet) LOAD(cuDevicePrimaryCtxRetain) LOAD(cuCtxSetCurrent) LOAD(cuModuleLoad)
  LOAD(cuModuleGetFunction) LOAD(cuMemAlloc_v2) LOAD(cuStreamCreate) LOAD(cuStreamSynchronize) LOAD(cuLaunchKernel)
  CUdevice dev; CUcontext ctx; CUmodule mod; CUstream stream;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  CHECK(cuModuleLoad(&mod, argv[1]));
  CHECK(cuStreamCreate(&stream, 1));  // non-blocking, as the other sides' streams
  CUfunction fns[KERNELS];
  for (int k = 0; k < KERNELS; k++) CHECK(cuModuleGetFunction(&fns[k], mod, names[k]));

  // The arguments, built once as a C program would: k<N> takes N pointers and an int,
  // kmixed a pointer, an int, a double and an unsigned long long.
  CUdeviceptr ptrs[16];
  for (int i = 0; i < 16; i++) CHECK(cuMemAlloc_v2(&ptrs[i], 4096));
  int n = 1024, a = 7;
  double b = 1.5;
  unsigned long long c = 9;
  void* params[KERNELS][17];
  const int counts[4] = {0, 1, 4, 16};
  for (int k = 0; k < 4; k++) {
    for (int i = 0; i < counts[k]; i++) params[k][i] = &ptrs[i];
    params[k][counts[k]] = &n;
  }
  params[4][0] = &ptrs[0];
  params[4][1] = &a;
  params[4][2] = &b;
  params[4][3] = &c;
  for (int k = 0; k < KERNELS; k++) {
    for (long i = 0; i < 2000; i++) CHECK(cuLaunchKernel(fns[k], 1, 1, 1, 32, 1, 1, 0, stream, params[k], NULL));
  }
  CHECK(cuStreamSynchronize(stream));
  printf("ready\n");
  fflush(stdout);

  char line[128], kernel[32];
  long launches;
  while (fgets(line, sizeof line, stdin)) {
    if (sscanf(line, "%31s %ld", kernel, &launches) != 2 || launches <= 0) break;
    int k = 0;
    while (k < KERNELS && strcmp(names[k], kernel) != 0) k++;
    if (k == KERNELS) { fprintf(stderr, "unknown kernel %s\n", kernel); return 2; }
    CUfunction fn = fns[k];
    void** p = params[k];
    double t0 = now();
    for (long i = 0; i < launches; i++) CHECK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, stream, p, NULL));
    double t1 = now();
    CHECK(cuStreamSynchronize(stream));
    printf("%.4f\n", (t1 - t0) * 1e6 / launches);
    fflush(stdout);
  }
  return 0;
}
