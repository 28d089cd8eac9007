// The non-template parts of the JS <-> C conversions.
#include <cstdio>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "runtime.h"

namespace cjs {

std::string describe(const Napi::Value& v) {
  switch (v.Type()) {
    case napi_undefined: return "undefined";
    case napi_null: return "null";
    case napi_boolean: return v.As<Napi::Boolean>().Value() ? "true" : "false";
    case napi_number: {
      std::string s = v.ToString().Utf8Value();
      return "the number " + s;
    }
    case napi_bigint: return "the bigint " + v.ToString().Utf8Value() + "n";
    case napi_string: return "a string";
    case napi_symbol: return "a symbol";
    case napi_function: return "a function";
    case napi_external: return "an external";
    default:
      if (v.IsArray()) return "an array";
      if (v.IsTypedArray()) return "a typed array";
      if (v.IsArrayBuffer()) return "an ArrayBuffer";
      return "an object";
  }
}

void Call::argCount(size_t min, size_t max) const {
  size_t n = length();
  if (n < min || n > max) {
    std::string expected = min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max);
    throw Napi::TypeError::New(
        env, std::string(fn) + ": expected " + expected + " argument" + (max == 1 ? "" : "s") + ", got " + std::to_string(n));
  }
}

void Call::typeError(const std::string& what, const std::string& expected, const Napi::Value& got) const {
  throw Napi::TypeError::New(env, std::string(fn) + ": " + what + " must be " + expected + ", got " + describe(got));
}

void Call::rangeError(const std::string& what, const std::string& message) const {
  Napi::Error e = Napi::RangeError::New(env, std::string(fn) + ": " + what + " " + message);  // message: "must ..." or "is ..."
  throw e;
}

namespace {
/**
 * Images and link inputs may be PTX text, which the driver and nvJitLink read
 * up to a NUL even when given a size: bytes that do not end in one are copied
 * into the call's scratch memory with a NUL after them (the size is unchanged).
 */
const void* nulTerminated(Call& c, const uint8_t* data, size_t size) {
  if (size == 0 || data[size - 1] == 0) return data;
  uint8_t* copy = c.alloc<uint8_t>(size + 1);
  std::memcpy(copy, data, size);
  copy[size] = 0;
  return copy;
}

/** The bytes of an ArrayBuffer, typed array or DataView; false for anything else. */
bool viewBytes(const Napi::Value& v, const uint8_t** data, size_t* size) {
  if (v.IsArrayBuffer()) {
    auto b = v.As<Napi::ArrayBuffer>();
    *data = static_cast<const uint8_t*>(b.Data());
    *size = b.ByteLength();
    return true;
  }
  if (v.IsTypedArray()) {
    auto a = v.As<Napi::TypedArray>();
    *data = static_cast<const uint8_t*>(a.ArrayBuffer().Data()) + a.ByteOffset();
    *size = a.ByteLength();
    return true;
  }
  if (v.IsDataView()) {
    auto d = v.As<Napi::DataView>();
    *data = static_cast<const uint8_t*>(d.ArrayBuffer().Data()) + d.ByteOffset();
    *size = d.ByteLength();
    return true;
  }
  return false;
}
}  // namespace

void* pointerFrom(Call& c, const Napi::Value& v, const std::string& what, bool allowString, bool allowNumber) {
  if (v.IsNull() || v.IsUndefined()) return nullptr;
  if (v.IsBigInt()) return reinterpret_cast<void*>(static_cast<uintptr_t>(addressFrom(c, v, what)));
  const uint8_t* data = nullptr;
  size_t size = 0;
  if (viewBytes(v, &data, &size)) {
    // allowString marks images (cuModuleLoadData, cuLibraryLoadData), which may be PTX text
    return const_cast<void*>(allowString ? nulTerminated(c, data, size) : data);
  }
  if (allowString && v.IsString()) return const_cast<char*>(c.keepString(v.As<Napi::String>().Utf8Value()));
  if (allowNumber && v.IsNumber()) return reinterpret_cast<void*>(static_cast<uintptr_t>(u64From<uint64_t>(c, v, what)));
  c.typeError(what,
              allowNumber ? "a number, a bigint, an ArrayBuffer or a view, or null"
                          : "an ArrayBuffer, an ArrayBufferView, a bigint address or null",
              v);
}

const char* inString(Call& c, size_t i, const char* name) {
  Napi::Value v = c.arg(i);
  if (v.IsNull() || v.IsUndefined()) return nullptr;
  if (!v.IsString()) c.typeError(paramName(c, name), "a string", v);
  return c.keepString(v.As<Napi::String>().Utf8Value());
}

const char* inStringRequired(Call& c, size_t i, const char* name) {
  Napi::Value v = c.arg(i);
  if (!v.IsString()) c.typeError(paramName(c, name), "a string", v);
  return c.keepString(v.As<Napi::String>().Utf8Value());
}

void* inHostPtr(Call& c, size_t i, const char* name, bool allowString) {
  return pointerFrom(c, c.arg(i), paramName(c, name), allowString, false);
}

bool hostBufferBytes(const Napi::Value& v, const uint8_t** data, size_t* size) {
  return viewBytes(v, data, size);
}

void* inHostPtrSized(Call& c, size_t i, const char* name, bool allowString, size_t& bytes) {
  Napi::Value v = c.arg(i);
  bytes = kUnknownSize;
  const uint8_t* data = nullptr;
  size_t size = 0;
  if (viewBytes(v, &data, &size))
    bytes = size;
  else if (allowString && v.IsString()) {
    void* p = pointerFrom(c, v, paramName(c, name), allowString, false);
    bytes = std::strlen(static_cast<const char*>(p)) + 1;  // the copy's NUL is readable too
    return p;
  }
  return pointerFrom(c, v, paramName(c, name), allowString, false);
}

void checkHostBytes(const Call& c, const char* bufferName, size_t bufferBytes, uint64_t count, const char* countName) {
  if (bufferBytes == kUnknownSize || count <= bufferBytes) return;
  c.rangeError(std::string("parameter '") + countName + "'", "= " + std::to_string(count) + " bytes is more than parameter '" + bufferName +
                                                                 "' holds (" + std::to_string(bufferBytes) + " bytes)");
}

size_t shareableHandleBytes(int type) {
  switch (type) {
    case CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR:
    case CU_MEM_HANDLE_TYPE_WIN32_KMT: return sizeof(int);
    case CU_MEM_HANDLE_TYPE_WIN32: return sizeof(void*);
    case CU_MEM_HANDLE_TYPE_FABRIC: return sizeof(CUmemFabricHandle);
    default: return 0;  // the driver refuses the type
  }
}

void* rawPointerFrom(Call& c, const Napi::Value& v, const std::string& what, size_t minBytes) {
  const uint8_t* data = nullptr;
  size_t size = 0;
  if (minBytes && viewBytes(v, &data, &size) && size < minBytes)
    c.rangeError(what, "holds " + std::to_string(size) + " bytes; the function writes at least " + std::to_string(minBytes));
  return pointerFrom(c, v, what, false, false);
}

std::string hexOf(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// ------------------------------------------------------------------ External handles
void* externalFrom(const Call& c, const Napi::Value& v, const std::string& what, const ExternalKind& k) {
  bool ours = false;
  if (v.IsExternal()) napi_check_object_type_tag(c.env, v, &k.tag, &ours);
  if (!ours) {
    const std::string expected = std::string("an ") + k.type + " (the External that " + k.madeBy + " returns)";
    if (v.IsExternal())
      throw Napi::TypeError::New(c.env, std::string(c.fn) + ": " + what + " must be " + expected + ", got an External of another kind");
    c.typeError(what, expected, v);
  }
  void* data = nullptr;
  napi_get_value_external(c.env, v, &data);
  return data;
}

Napi::Value externalTo(Napi::Env env, void* h, const ExternalKind& k) {
  if (!h) return env.Null();
  napi_value external;
  NAPI_THROW_IF_FAILED(env, napi_create_external(env, h, nullptr, nullptr, &external), Napi::Value());
  NAPI_THROW_IF_FAILED(env, napi_type_tag_object(env, external, &k.tag), Napi::Value());
  return Napi::Value(env, external);
}

// ------------------------------------------------------------------ program handles
namespace {
struct ProgramKind {
  const char* type;     // nvrtcProgram
  const char* errKind;  // the error factory's kind
  long long code;
  const char* codeName;
};
const ProgramKind kNvrtc{"nvrtcProgram", "nvrtc", NVRTC_ERROR_INVALID_PROGRAM, "NVRTC_ERROR_INVALID_PROGRAM"};
const ProgramKind kNvvm{"nvvmProgram", "nvvm", NVVM_ERROR_INVALID_PROGRAM, "NVVM_ERROR_INVALID_PROGRAM"};
const ProgramKind kNvJitLink{"nvJitLinkHandle", "nvjitlink", NVJITLINK_ERROR_INVALID_INPUT, "NVJITLINK_ERROR_INVALID_INPUT"};
const ProgramKind kNccl{"ncclComm_t", "nccl", ncclInvalidArgument, "ncclInvalidArgument"};

struct LiveHandle {
  const ProgramKind* kind;
  int uses;  // calls that hold it now
};
struct Programs {
  std::mutex m;
  std::unordered_map<const void*, LiveHandle> live;
};
Programs& programs() {
  static Programs* p = new Programs();  // leaked: calls may still run on other threads at exit
  return *p;
}

[[noreturn]] void refuse(Call& c, const ProgramKind& k, const void* h, const char* param, const std::string& why) {
  const std::string at = h ? "(" + hexOf(reinterpret_cast<uintptr_t>(h)) + ") " : "";
  throwValue(c.env, makeLibraryError(c.env, k.errKind, k.code, k.codeName, c.fn, std::string("parameter '") + param + "' " + at + why, ""));
}

void track(const ProgramKind& k, const void* h) {
  if (!h) return;
  std::lock_guard<std::mutex> lock(programs().m);
  programs().live[h] = LiveHandle{&k, 0};
}

ProgramUse use(Call& c, const ProgramKind& k, const void* h, const char* param) {
  if (!h) refuse(c, k, h, param, std::string("is NULL (0n), which is no ") + k.type);
  {
    std::lock_guard<std::mutex> lock(programs().m);
    auto it = programs().live.find(h);
    if (it != programs().live.end() && it->second.kind == &k) {
      it->second.uses++;
      return ProgramUse(h);
    }
  }
  refuse(c, k, h, param, std::string("is not a live ") + k.type + ": it was destroyed already, or never created");
}

void untrack(Call& c, const ProgramKind& k, const void* h, const char* param) {
  if (!h) refuse(c, k, h, param, std::string("is NULL (0n), which is no ") + k.type);
  bool busy = false;
  {
    std::lock_guard<std::mutex> lock(programs().m);
    auto it = programs().live.find(h);
    if (it != programs().live.end() && it->second.kind == &k) {
      if (it->second.uses == 0) {
        programs().live.erase(it);
        return;
      }
      busy = true;
    }
  }
  // the error is made (JS runs) with the lock released
  refuse(c, k, h, param,
         busy ? std::string("is in use by a call that has not finished (a pending Promise form); destroy it after that settles")
              : std::string("is not a live ") + k.type + ": it was destroyed already, or never created");
}
}  // namespace

ProgramUse::~ProgramUse() {
  if (!h_) return;
  std::lock_guard<std::mutex> lock(programs().m);
  auto it = programs().live.find(h_);
  if (it != programs().live.end() && it->second.uses > 0) it->second.uses--;
}

void trackProgram(nvrtcProgram h) {
  track(kNvrtc, h);
}
void trackProgram(nvvmProgram h) {
  track(kNvvm, h);
}
void trackProgram(nvJitLinkHandle h) {
  track(kNvJitLink, h);
}
void trackProgram(ncclComm_t h) {
  track(kNccl, h);
}
ProgramUse useProgram(Call& c, nvrtcProgram h, const char* param) {
  return use(c, kNvrtc, h, param);
}
ProgramUse useProgram(Call& c, nvvmProgram h, const char* param) {
  return use(c, kNvvm, h, param);
}
ProgramUse useProgram(Call& c, nvJitLinkHandle h, const char* param) {
  return use(c, kNvJitLink, h, param);
}
ProgramUse useProgram(Call& c, ncclComm_t h, const char* param) {
  return use(c, kNccl, h, param);
}
void untrackProgram(Call& c, nvrtcProgram h, const char* param) {
  untrack(c, kNvrtc, h, param);
}
void untrackProgram(Call& c, nvvmProgram h, const char* param) {
  untrack(c, kNvvm, h, param);
}
void untrackProgram(Call& c, nvJitLinkHandle h, const char* param) {
  untrack(c, kNvJitLink, h, param);
}
void untrackProgram(Call& c, ncclComm_t h, const char* param) {
  untrack(c, kNccl, h, param);
}

Bytes bytesFrom(Call& c, const Napi::Value& v, const std::string& what) {
  if (v.IsString()) {
    const char* s = c.keepString(v.As<Napi::String>().Utf8Value());
    return {s, std::strlen(s)};
  }
  const uint8_t* data = nullptr;
  size_t size = 0;
  // link inputs and NVVM modules: PTX or IR text must end in a NUL (see nulTerminated)
  if (viewBytes(v, &data, &size)) return {nulTerminated(c, data, size), size};
  c.typeError(what, "a string, an ArrayBuffer or an ArrayBufferView", v);
}

const char** inStringArray(Call& c, size_t i, const char* name, size_t& count) {
  count = kNoArray;
  Napi::Value v = c.arg(i);
  if (v.IsNull() || v.IsUndefined()) return nullptr;
  std::string what = paramName(c, name);
  if (!v.IsArray()) c.typeError(what, "an array of strings or null", v);
  auto a = v.As<Napi::Array>();
  count = a.Length();
  const char** out = c.alloc<const char*>(count);
  for (uint32_t k = 0; k < count; k++) {
    Napi::Value s = a.Get(k);
    if (!s.IsString()) c.typeError(what + "[" + std::to_string(k) + "]", "a string", s);
    out[k] = c.keepString(s.As<Napi::String>().Utf8Value());
  }
  return out;
}

size_t sharedCount(const Call& c, std::initializer_list<CountOf> arrays) {
  size_t count = kNoArray;
  for (const auto& a : arrays) {
    if (a.n == kNoArray) continue;
    if (count == kNoArray)
      count = a.n;
    else if (a.n != count)
      c.rangeError(std::string("parameter '") + a.name + "'",
                   "has " + std::to_string(a.n) + " elements, but an array that shares its count has " + std::to_string(count));
  }
  return count == kNoArray ? 0 : count;
}

Napi::Value outBytes(Napi::Env env, const void* data, size_t size) {
  auto a = Napi::Uint8Array::New(env, size);
  if (size) std::memcpy(a.Data(), data, size);
  return a;
}

Napi::Value outText(Napi::Env env, const std::vector<char>& buffer, size_t size) {
  size_t n = 0;
  while (n < size && buffer[n] != '\0') n++;
  return Napi::String::New(env, buffer.data(), n);
}

void throwValue(Napi::Env env, Napi::Value error) {
  throw Napi::Error(env, error);
}

}  // namespace cjs
