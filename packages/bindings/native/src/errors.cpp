// Turns failed status codes into the named JS errors, with the library's own
// message and, for the compilers and the linker, their log.
#include "codecs.h"

namespace cjs {
namespace {

std::string cuText(Napi::Env env, CUresult r, bool name) {
  // cuGetErrorName/String are asked directly (no cuGetProcAddress) so that an error path never throws again.
  using F = CUresult (*)(CUresult, const char**);
  auto f = reinterpret_cast<F>(librarySymbolQuiet(env, Lib::Cuda, name ? "cuGetErrorName" : "cuGetErrorString"));
  const char* s = nullptr;
  if (f && f(r, &s) == CUDA_SUCCESS && s) return s;
  if (name) {
    const char* n = CUresultName(r);
    return n ? n : "CUDA_ERROR_" + std::to_string(static_cast<int>(r));
  }
  return "";
}

template <class Size, class Get, class H>
std::string readLog(Napi::Env env, Lib lib, const char* sizeName, const char* getName, H handle) {
  if (!handle) return "";
  auto size = reinterpret_cast<Size>(librarySymbolQuiet(env, lib, sizeName));
  auto get = reinterpret_cast<Get>(librarySymbolQuiet(env, lib, getName));
  if (!size || !get) return "";
  size_t n = 0;
  if (size(handle, &n) != 0 || n == 0) return "";
  std::vector<char> buffer(n + 1, 0);
  if (get(handle, buffer.data()) != 0) return "";
  return std::string(buffer.data());
}

}  // namespace

void checkCu(Call& c, CUresult r) {
  if (r == CUDA_SUCCESS) return;
  std::string name = cuText(c.env, r, true);
  throwValue(c.env, makeLibraryError(c.env, "cuda", r, name, c.fn, cuText(c.env, r, false), ""));
}

void checkNvrtc(Call& c, nvrtcResult r, nvrtcProgram prog) {
  if (r == NVRTC_SUCCESS) return;
  auto errorString = reinterpret_cast<const char* (*)(nvrtcResult)>(librarySymbolQuiet(c.env, Lib::Nvrtc, "nvrtcGetErrorString"));
  const char* n = nvrtcResultName(r);
  std::string log = readLog<nvrtcResult (*)(nvrtcProgram, size_t*), nvrtcResult (*)(nvrtcProgram, char*)>(
      c.env, Lib::Nvrtc, "nvrtcGetProgramLogSize", "nvrtcGetProgramLog", prog);
  throwValue(c.env, makeLibraryError(c.env, "nvrtc", r, n ? n : "NVRTC_ERROR_" + std::to_string(static_cast<int>(r)), c.fn,
                                     errorString ? errorString(r) : "", log));
}

void checkNvvm(Call& c, nvvmResult r, nvvmProgram prog) {
  if (r == NVVM_SUCCESS) return;
  auto errorString = reinterpret_cast<const char* (*)(nvvmResult)>(librarySymbolQuiet(c.env, Lib::Nvvm, "nvvmGetErrorString"));
  const char* n = nvvmResultName(r);
  std::string log = readLog<nvvmResult (*)(nvvmProgram, size_t*), nvvmResult (*)(nvvmProgram, char*)>(
      c.env, Lib::Nvvm, "nvvmGetProgramLogSize", "nvvmGetProgramLog", prog);
  throwValue(c.env, makeLibraryError(c.env, "nvvm", r, n ? n : "NVVM_ERROR_" + std::to_string(static_cast<int>(r)), c.fn,
                                     errorString ? errorString(r) : "", log));
}

void checkNvml(Call& c, nvmlReturn_t r) {
  if (r == NVML_SUCCESS) return;
  // nvmlErrorString is looked up quietly: the library is open (this status came from it), and an error path never throws again
  auto errorString = reinterpret_cast<const char* (*)(nvmlReturn_t)>(librarySymbolQuiet(c.env, Lib::Nvml, "nvmlErrorString"));
  const char* n = nvmlReturn_tName(r);
  const char* message = errorString ? errorString(r) : nullptr;
  throwValue(c.env, makeLibraryError(c.env, "nvml", r, n ? n : "NVML_ERROR_" + std::to_string(static_cast<int>(r)), c.fn,
                                     message ? message : "", ""));
}

void checkNccl(Call& c, ncclResult_t r) {
  if (r == ncclSuccess) return;
  // looked up quietly, as for NVML: the library is open, and an error path never throws again
  auto errorString = reinterpret_cast<const char* (*)(ncclResult_t)>(librarySymbolQuiet(c.env, Lib::Nccl, "ncclGetErrorString"));
  auto lastError = reinterpret_cast<const char* (*)(ncclComm_t)>(librarySymbolQuiet(c.env, Lib::Nccl, "ncclGetLastError"));
  const char* n = ncclResult_tName(r);
  const char* message = errorString ? errorString(r) : nullptr;
  const char* last = lastError ? lastError(nullptr) : nullptr;  // NCCL keeps it per thread; `comm` is unused
  throwValue(c.env, makeLibraryError(c.env, "nccl", r, n ? n : "ncclResult_" + std::to_string(static_cast<int>(r)), c.fn,
                                     message ? message : "", last ? last : ""));
}

NvJitLinkOutcome nvJitLinkOutcome(nvJitLinkResult r, nvJitLinkHandle handle) {
  NvJitLinkOutcome o;
  o.result = r;
  if (r != NVJITLINK_SUCCESS) {
    o.log = readLog<nvJitLinkResult (*)(nvJitLinkHandle, size_t*), nvJitLinkResult (*)(nvJitLinkHandle, char*)>(
        Napi::Env(nullptr), Lib::NvJitLink, "nvJitLinkGetErrorLogSize", "nvJitLinkGetErrorLog", handle);
  }
  return o;
}

void checkNvJitLink(Call& c, const NvJitLinkOutcome& o) {
  if (o.result == NVJITLINK_SUCCESS) return;
  const char* n = nvJitLinkResultName(o.result);
  std::string name = n ? n : "NVJITLINK_ERROR_" + std::to_string(static_cast<int>(o.result));
  throwValue(c.env, makeLibraryError(c.env, "nvjitlink", o.result, name, c.fn, name, o.log));
}

}  // namespace cjs
