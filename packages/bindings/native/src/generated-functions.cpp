// The generated bindings: one JS function per C function of the six libraries.
#include "codecs.h"
#include "nvjitlink-thread.h"

// The NVML ABI that tooling/generate-bindings/declarations/nvml.h was written to
// (NVML's documented layouts, x86-64 and aarch64): a declaration that drifts
// from it fails the build here rather than reading the wrong bytes at run time.
static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t: total, free, used (unsigned long long each)");
static_assert(sizeof(nvmlMemory_v2_t) == 40 && offsetof(nvmlMemory_v2_t, total) == 8 && offsetof(nvmlMemory_v2_t, used) == 32,
              "nvmlMemory_v2_t: version, then total, reserved, free, used at 8-byte alignment");
static_assert(sizeof(nvmlUtilization_t) == 8, "nvmlUtilization_t: gpu, memory (unsigned int each)");
static_assert(sizeof(nvmlPciInfo_t) == 68 && offsetof(nvmlPciInfo_t, domain) == 16 && offsetof(nvmlPciInfo_t, busId) == 36,
              "nvmlPciInfo_t (v3): busIdLegacy[16], domain, bus, device, pciDeviceId, pciSubSystemId, busId[32]");
static_assert(sizeof(nvmlReturn_t) == 4 && sizeof(nvmlClockType_t) == 4 && sizeof(nvmlEnableState_t) == 4, "NVML enums are C ints");

// The NCCL ABI of tooling/generate-bindings/declarations/nccl.h: the unique id is
// 128 bytes passed by value, the enums are C ints, and a device address
// (declared CUdeviceptr) and a stream travel as nccl.h's pointers do.
static_assert(sizeof(ncclUniqueId) == 128, "ncclUniqueId: char internal[NCCL_UNIQUE_ID_BYTES], 128 bytes");
static_assert(sizeof(ncclResult_t) == 4 && sizeof(ncclRedOp_t) == 4 && sizeof(ncclDataType_t) == 4, "NCCL enums are C ints");
static_assert(sizeof(CUdeviceptr) == sizeof(void*) && sizeof(CUstream) == sizeof(void*), "device addresses are pointer-sized");

namespace cjs {
#include "../generated/functions.inc"

const GeneratedFunction* generatedFunctions(size_t* count) {
  *count = sizeof(kGeneratedFunctions) / sizeof(kGeneratedFunctions[0]);
  return kGeneratedFunctions;
}
}  // namespace cjs
