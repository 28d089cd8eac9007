// The anchor of peer-copy.mjs: cudaMemcpyPeerAsync from device 0 to device 1
// (peer access enabled both ways, as cuda-js's pools are given it), timed with
// events over `iterations` copies per size. Prints one JSON line:
//   {"sizes":[bytes...],"gbps":[GB/s...]}
// Build: nvcc -O2 -o peer_copy peer_copy.cu;  run: ./peer_copy <iterations> <bytes>...
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                          \
  do {                                                                                    \
    cudaError_t e = (x);                                                                  \
    if (e != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

int main(int argc, char** argv) {
  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  if (count < 2) {
    std::printf("{\"error\":\"needs 2 GPUs\"}\n");
    return 0;
  }
  int iterations = argc > 1 ? std::atoi(argv[1]) : 20;
  std::vector<size_t> sizes;
  for (int i = 2; i < argc; i++) sizes.push_back(std::strtoull(argv[i], nullptr, 10));
  int can01 = 0, can10 = 0;
  CHECK(cudaDeviceCanAccessPeer(&can01, 0, 1));
  CHECK(cudaDeviceCanAccessPeer(&can10, 1, 0));
  size_t largest = 0;
  for (size_t s : sizes) largest = s > largest ? s : largest;
  void *src = nullptr, *dst = nullptr;
  CHECK(cudaSetDevice(1));
  if (can10) CHECK(cudaDeviceEnablePeerAccess(0, 0));
  CHECK(cudaMalloc(&dst, largest));
  CHECK(cudaSetDevice(0));
  if (can01) CHECK(cudaDeviceEnablePeerAccess(1, 0));
  CHECK(cudaMalloc(&src, largest));
  CHECK(cudaMemset(src, 1, largest));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  cudaEvent_t start, end;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&end));
  std::printf("{\"peerAccess\":%s,\"sizes\":[", can01 && can10 ? "true" : "false");
  for (size_t i = 0; i < sizes.size(); i++) std::printf("%s%zu", i ? "," : "", sizes[i]);
  std::printf("],\"gbps\":[");
  for (size_t i = 0; i < sizes.size(); i++) {
    for (int w = 0; w < 3; w++) CHECK(cudaMemcpyPeerAsync(dst, 1, src, 0, sizes[i], stream));
    CHECK(cudaEventRecord(start, stream));
    for (int k = 0; k < iterations; k++) CHECK(cudaMemcpyPeerAsync(dst, 1, src, 0, sizes[i], stream));
    CHECK(cudaEventRecord(end, stream));
    CHECK(cudaEventSynchronize(end));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, end));
    std::printf("%s%.3f", i ? "," : "", (double)sizes[i] * iterations / (ms * 1e-3) / 1e9);
  }
  std::printf("]}\n");
  return 0;
}
