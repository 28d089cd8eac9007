// hostArrayBuffer(ptr, byteLength, owner): a zero-copy ArrayBuffer over
// [ptr, ptr + byteLength) of memory that the CUDA driver reports as host
// memory (pinned: cuMemHostAlloc, cuMemAllocHost, cuMemHostRegister) or as
// managed memory (cuMemAllocManaged), all of it inside one allocation and
// readable at that very address on the host. Nothing that JS passes is
// trusted: the driver is asked about the address, the allocation around it and
// (where it gives no extent) the last byte. The ArrayBuffer holds a strong
// reference to `owner`, the object whose lifetime is the allocation's, until
// it is collected: its finalizer deletes the reference, on the JS thread of the
// environment that made it (a reference, no other state, per environment).
#include "codecs.h"

namespace cjs {
namespace {

// The largest ArrayBuffer over external memory that every supported Node.js
// makes (Node.js 20: buffer.constants.MAX_LENGTH, 4 GiB). Checked here: Node.js
// refuses a larger one on a path that still calls the finalizer later.
constexpr uint64_t kMaxViewBytes = uint64_t{1} << 32;

using GetAttribute = decltype(&cuPointerGetAttribute);
using GetRange = decltype(&cuMemGetAddressRange_v2);

[[noreturn]] void refuse(Call& c, const std::string& why) {
  throwValue(c.env, makeLibraryError(c.env, "host-view", 0, "", c.fn, why, ""));
}

/** Whether the driver answered: false where it has no such attribute for `p` (not its memory); other failures are a CudaError. */
bool attribute(Call& c, GetAttribute get, CUpointer_attribute a, uint64_t p, uint64_t& out) {
  out = 0;  // zeroed, so 1-, 4- and 8-byte answers all read right
  CUresult r = get(&out, a, static_cast<CUdeviceptr>(p));
  if (r == CUDA_SUCCESS) return true;
  if (r == CUDA_ERROR_INVALID_VALUE || r == CUDA_ERROR_NOT_SUPPORTED) return false;
  checkCu(c, r);
  return false;
}

/** Whether [ptr, ptr + size) lies in [start, start + extent); `last` is ptr + size - 1 (ptr for size 0). */
bool inside(uint64_t ptr, uint64_t size, uint64_t last, uint64_t start, uint64_t extent) {
  if (ptr < start) return false;
  return size == 0 ? ptr - start <= extent : last - start < extent;
}

struct KeptOwner {
  napi_ref owner;
};

void releaseOwner(napi_env env, void*, void* hint) {
  auto* kept = static_cast<KeptOwner*>(hint);
  napi_delete_reference(env, kept->owner);
  delete kept;
}

/** Throws the named error unless the driver vouches that the host may read and write [ptr, ptr + size) at these addresses. */
void checkHostRange(Call& c, uint64_t ptr, uint64_t size) {
  static std::atomic<GetAttribute> getSlot{nullptr};
  GetAttribute get = resolved(getSlot, [&] { return driverEntryPoint(c, "cuPointerGetAttribute", 4000, 0); });
  const uint64_t last = size == 0 ? ptr : ptr + size - 1;
  const std::string range = "[" + hexOf(ptr) + ", " + hexOf(ptr + size) + ")";

  uint64_t type = 0;
  uint64_t managed = 0;
  if (!attribute(c, get, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr, type))
    refuse(c, "parameter 'ptr' (" + hexOf(ptr) + ") is not memory that the CUDA driver allocated, mapped or registered");
  attribute(c, get, CU_POINTER_ATTRIBUTE_IS_MANAGED, ptr, managed);
  if (managed == 0 && static_cast<uint32_t>(type) != CU_MEMORYTYPE_HOST) {
    refuse(c, "parameter 'ptr' (" + hexOf(ptr) + ") is " + (static_cast<uint32_t>(type) == CU_MEMORYTYPE_DEVICE ? "device" : "not host") +
                  " memory (CU_POINTER_ATTRIBUTE_MEMORY_TYPE " + std::to_string(static_cast<uint32_t>(type)) +
                  "), which the host cannot read through an address; only pinned and managed memory can be viewed");
  }
  uint64_t host = 0;
  if (!attribute(c, get, CU_POINTER_ATTRIBUTE_HOST_POINTER, ptr, host) || host != ptr) {
    refuse(c, "parameter 'ptr' (" + hexOf(ptr) + ") is not the host address of its memory" +
                  (host ? " (the host reads it at " + hexOf(host) + ")" : std::string(" (the driver reports none)")));
  }

  // The extent of the allocation: the pointer's range attributes, else cuMemGetAddressRange, else the last byte's buffer id.
  auto refuseUnlessInside = [&](uint64_t allocStart, uint64_t allocBytes) {
    if (inside(ptr, size, last, allocStart, allocBytes)) return;
    refuse(c, range + " is not inside one allocation: the allocation at " + hexOf(ptr) + " is [" + hexOf(allocStart) + ", " +
                  hexOf(allocStart + allocBytes) + ")");
  };
  uint64_t start = 0;
  uint64_t extent = 0;
  if (attribute(c, get, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, ptr, start) &&
      attribute(c, get, CU_POINTER_ATTRIBUTE_RANGE_SIZE, ptr, extent) && extent > 0) {
    refuseUnlessInside(start, extent);
    return;
  }
  static std::atomic<GetRange> rangeSlot{nullptr};
  GetRange getRange = resolved(rangeSlot, [&] { return driverEntryPoint(c, "cuMemGetAddressRange", 3020, 0); });
  CUdeviceptr base = 0;
  size_t bytes = 0;
  CUresult r = getRange(&base, &bytes, static_cast<CUdeviceptr>(ptr));
  if (r == CUDA_SUCCESS && bytes > 0) {
    refuseUnlessInside(base, bytes);
    return;
  }
  if (r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_VALUE && r != CUDA_ERROR_NOT_FOUND && r != CUDA_ERROR_NOT_SUPPORTED) checkCu(c, r);
  uint64_t firstId = 0;
  uint64_t lastId = 0;
  uint64_t lastHost = 0;
  if (attribute(c, get, CU_POINTER_ATTRIBUTE_BUFFER_ID, ptr, firstId) && firstId != 0) {
    if (attribute(c, get, CU_POINTER_ATTRIBUTE_BUFFER_ID, last, lastId) && lastId == firstId &&
        attribute(c, get, CU_POINTER_ATTRIBUTE_HOST_POINTER, last, lastHost) && lastHost == last)
      return;
    refuse(c, range + " is not inside one allocation: its last byte is not in the allocation at " + hexOf(ptr));
  }
  refuse(c, "the driver reports no extent for the allocation at " + hexOf(ptr) + ", so " + range + " cannot be checked");
}

Napi::Value hostArrayBuffer(const Napi::CallbackInfo& info) {
  Call c(info, "hostArrayBuffer");
  c.argCount(3, 3);
  const uint64_t ptr = addressFrom(c, c.arg(0), "parameter 'ptr'");
  const uint64_t size = u64From<uint64_t>(c, c.arg(1), "parameter 'byteLength'");
  Napi::Value owner = c.arg(2);
  if (!owner.IsObject()) c.typeError("parameter 'owner'", "an object or a function (what keeps the memory alive)", owner);
  if (size > kMaxViewBytes)
    c.rangeError("parameter 'byteLength'", "= " + std::to_string(size) + " is more than one view may hold (" +
                                               std::to_string(kMaxViewBytes) +
                                               " bytes, the ArrayBuffer limit of Node.js 20); view the memory in parts");
  if (ptr == 0) refuse(c, "parameter 'ptr' is NULL (0n)");
  if (size > ~uint64_t{0} - ptr)
    c.rangeError("parameter 'byteLength'", "= " + std::to_string(size) + " from " + hexOf(ptr) + " reaches past 2^64");
  checkHostRange(c, ptr, size);
  if (size == 0) return Napi::ArrayBuffer::New(c.env, 0);  // no memory to keep alive

  napi_ref ref = nullptr;
  if (napi_create_reference(c.env, owner, 1, &ref) != napi_ok)
    throw Napi::Error::New(c.env, "hostArrayBuffer: could not keep a reference to 'owner'");
  auto* kept = new KeptOwner{ref};
  napi_value buffer = nullptr;
  napi_status s = napi_create_external_arraybuffer(c.env, reinterpret_cast<void*>(static_cast<uintptr_t>(ptr)), static_cast<size_t>(size),
                                                   releaseOwner, kept, &buffer);
  if (s != napi_ok) {
    // The size was checked above, so Node.js refused before it took the finalizer: nothing will call it.
    napi_delete_reference(c.env, ref);
    delete kept;
    bool pending = false;
    napi_value ignored;
    if (napi_is_exception_pending(c.env, &pending) == napi_ok && pending) napi_get_and_clear_last_exception(c.env, &ignored);
    refuse(c, s == napi_no_external_buffers_allowed ? "this JS engine allows no ArrayBuffer over memory it did not allocate (V8 sandbox)"
                                                    : "Node.js could not make an ArrayBuffer over " + hexOf(ptr));
  }
  return Napi::Value(c.env, buffer);
}

}  // namespace

void registerHostArrayBuffer(Napi::Env env, Napi::Object exports) {
  exports.Set("hostArrayBuffer", Napi::Function::New(env, hostArrayBuffer, "hostArrayBuffer"));
}

}  // namespace cjs
