// The floor of a cold start (issue 23, step 5): a C program that does what
// the JIT's cold start does, with nothing above the driver: creates the
// context, reads a cubin file and loads it, allocates, copies the inputs in,
// launches axpy (kernel k of ../jit/kernels.cu) on 4096 floats, copies back
// and checks. Prints one JSON line: ok, the phases in ms since its own start
// (main), and its max RSS; the parent measures the wall time from spawn.
// usage: floor <cubin>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef void* CUcontext;
typedef void* CUlibrary;
typedef void* CUkernel;
typedef unsigned long long CUdeviceptr;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

#define N 4096
#define FAIL(what) do { printf("{\"ok\":false,\"error\":\"%s failed\"}\n", what); return 1; } while (0)
#define CALL(what, call) do { if ((call) != 0) FAIL(what); } while (0)

int main(int argc, char** argv) {
  double t0 = now_ms();
  if (argc < 2) FAIL("usage: floor <cubin>");
  void* lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) FAIL("dlopen libcuda.so.1");
  CUresult (*cuInit)(unsigned) = dlsym(lib, "cuInit");
  CUresult (*cuDeviceGet)(CUdevice*, int) = dlsym(lib, "cuDeviceGet");
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = dlsym(lib, "cuDevicePrimaryCtxRetain");
  CUresult (*cuCtxSetCurrent)(CUcontext) = dlsym(lib, "cuCtxSetCurrent");
  CUresult (*cuLibraryLoadData)(CUlibrary*, const void*, void*, void**, unsigned, void*, void**, unsigned) = dlsym(lib, "cuLibraryLoadData");
  CUresult (*cuLibraryGetKernel)(CUkernel*, CUlibrary, const char*) = dlsym(lib, "cuLibraryGetKernel");
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t) = dlsym(lib, "cuMemAlloc_v2");
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t) = dlsym(lib, "cuMemcpyHtoD_v2");
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t) = dlsym(lib, "cuMemcpyDtoH_v2");
  CUresult (*cuLaunchKernel)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**, void**) = dlsym(lib, "cuLaunchKernel");
  CUresult (*cuCtxSynchronize)(void) = dlsym(lib, "cuCtxSynchronize");
  if (!cuInit || !cuLibraryLoadData || !cuLaunchKernel) FAIL("dlsym");
  CUdevice dev;
  CUcontext ctx;
  CALL("cuInit", cuInit(0));
  CALL("cuDeviceGet", cuDeviceGet(&dev, 0));
  CALL("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&ctx, dev));
  CALL("cuCtxSetCurrent", cuCtxSetCurrent(ctx));
  double context = now_ms();
  FILE* f = fopen(argv[1], "rb");
  if (!f) FAIL("fopen cubin");
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* image = malloc(size);
  if (fread(image, 1, size, f) != (size_t)size) FAIL("fread cubin");
  fclose(f);
  CUlibrary library;
  CUkernel kernel;
  CALL("cuLibraryLoadData", cuLibraryLoadData(&library, image, NULL, NULL, 0, NULL, NULL, 0));
  CALL("cuLibraryGetKernel", cuLibraryGetKernel(&kernel, library, "k"));
  double loaded = now_ms();
  static float x[N], y[N];
  for (int i = 0; i < N; i++) {
    x[i] = 1.0f;
    y[i] = (float)(i % 1000) - 1.0f;  // y = 2 * x + y = (i % 1000) + 1
  }
  CUdeviceptr dx, dy;
  CALL("cuMemAlloc", cuMemAlloc(&dx, sizeof x));
  CALL("cuMemAlloc", cuMemAlloc(&dy, sizeof y));
  CALL("cuMemcpyHtoD", cuMemcpyHtoD(dx, x, sizeof x));
  CALL("cuMemcpyHtoD", cuMemcpyHtoD(dy, y, sizeof y));
  float a = 2.0f;
  int n = N;
  void* params[] = {&a, &dx, &dy, &n};
  CALL("cuLaunchKernel", cuLaunchKernel(kernel, N / 256, 1, 1, 256, 1, 1, 0, NULL, params, NULL));
  CALL("cuCtxSynchronize", cuCtxSynchronize());
  CALL("cuMemcpyDtoH", cuMemcpyDtoH(y, dy, sizeof y));
  int ok = 1;
  for (int i = 0; i < N; i++) ok &= y[i] == (float)(i % 1000) + 1.0f;
  double checked = now_ms();
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  printf("{\"ok\":%s,\"phasesMs\":{\"context\":%.3f,\"loaded\":%.3f,\"checked\":%.3f},\"maxRssKB\":%ld}\n", ok ? "true" : "false", context - t0, loaded - t0,
         checked - t0, usage.ru_maxrss);
  return ok ? 0 : 1;
}
