/* The anchor of the launch benchmark: a cuLaunchKernel loop in C, libcuda
 * opened with dlopen. Started once by bench.mjs; each line "go N" on stdin
 * runs N launches of empty_kernel(int, float*) followed by cuCtxSynchronize,
 * and prints the microseconds per launch. */
#include <dlfcn.h>
#include <stdint.h>
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

static CUresult (*cuInit)(unsigned);
static CUresult (*cuDeviceGet)(CUdevice*, int);
static CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
static CUresult (*cuCtxSetCurrent)(CUcontext);
static CUresult (*cuModuleLoadData)(CUmodule*, const void*);
static CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
static CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void**, void**);
static CUresult (*cuCtxSynchronize)(void);

static void* sym(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  if (!p) { fprintf(stderr, "missing %s\n", name); exit(2); }
  return p;
}
#define CHECK(call) do { CUresult r_ = (call); if (r_) { fprintf(stderr, "%s failed: %d\n", #call, r_); exit(3); } } while (0)

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char** argv) {
  if (argc != 3) { fprintf(stderr, "usage: raw-launch LIBCUDA PTX\n"); return 1; }
  void* lib = dlopen(argv[1], RTLD_NOW);
  if (!lib) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 2; }
  cuInit = sym(lib, "cuInit");
  cuDeviceGet = sym(lib, "cuDeviceGet");
  cuDevicePrimaryCtxRetain = sym(lib, "cuDevicePrimaryCtxRetain");
  cuCtxSetCurrent = sym(lib, "cuCtxSetCurrent");
  cuModuleLoadData = sym(lib, "cuModuleLoadData");
  cuModuleGetFunction = sym(lib, "cuModuleGetFunction");
  cuLaunchKernel = sym(lib, "cuLaunchKernel");
  cuCtxSynchronize = sym(lib, "cuCtxSynchronize");

  FILE* f = fopen(argv[2], "rb");
  if (!f) { perror("ptx"); return 2; }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* ptx = calloc(1, size + 1);
  if (fread(ptx, 1, size, f) != (size_t)size) { perror("read"); return 2; }
  fclose(f);

  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction fn;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  CHECK(cuModuleLoadData(&mod, ptx));
  CHECK(cuModuleGetFunction(&fn, mod, "empty_kernel"));

  int n = 1;
  float* p = NULL;
  void* params[2] = {&n, &p};
  printf("ready\n");
  fflush(stdout);
  char line[64];
  while (fgets(line, sizeof line, stdin)) {
    long count = 0;
    if (sscanf(line, "go %ld", &count) != 1 || count <= 0) break;
    double t0 = now_us();
    for (long i = 0; i < count; i++) CHECK(cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
    CHECK(cuCtxSynchronize());
    double t1 = now_us();
    printf("%.6f\n", (t1 - t0) / count);
    fflush(stdout);
  }
  return 0;
}
