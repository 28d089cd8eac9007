// cuPointerGetAttribute writes a value whose C type depends on the attribute;
// this returns it as the JS type that fits (bigint for addresses, handles and
// 64-bit values, an object for P2P tokens, a number otherwise).
#include "codecs.h"

namespace cjs {
namespace {

bool isBigAttribute(CUpointer_attribute a) {
  switch (a) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
    case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
    case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
    case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID: return true;
    default: return false;
  }
}

Napi::Value pointerGetAttribute(const Napi::CallbackInfo& info) {
  Call c(info, "cuPointerGetAttribute");
  c.argCount(2, 2);
  CUpointer_attribute attribute = inNum<CUpointer_attribute>(c, 0, "attribute");
  CUdeviceptr ptr = inHandle<CUdeviceptr>(c, 1, "ptr");
  using F = decltype(&cuPointerGetAttribute);
  static std::atomic<F> fpSlot{nullptr};
  F fp = resolved(fpSlot, [&] { return driverEntryPoint(c, "cuPointerGetAttribute", 4000, 0); });
  if (attribute == CU_POINTER_ATTRIBUTE_P2P_TOKENS) {
    CUDA_POINTER_ATTRIBUTE_P2P_TOKENS tokens{};
    checkCu(c, fp(&tokens, attribute, ptr));
    return valueTo(c.env, tokens);
  }
  uint64_t value = 0;  // zeroed, so 1-, 4- and 8-byte results all read right
  checkCu(c, fp(&value, attribute, ptr));
  if (isBigAttribute(attribute)) return Napi::BigInt::New(c.env, value);
  return Napi::Number::New(c.env, static_cast<double>(static_cast<uint32_t>(value)));
}

}  // namespace

void registerPointerAttribute(Napi::Env env, Napi::Object driver) {
  driver.Set("cuPointerGetAttribute", Napi::Function::New(env, pointerGetAttribute, "cuPointerGetAttribute"));
}

}  // namespace cjs
