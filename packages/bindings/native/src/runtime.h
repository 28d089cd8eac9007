// The conversions between JS values and C values that every binding uses,
// the per-call scratch space, and the entry points into the loaded libraries.
#pragma once

// A Worker that is terminated while it calls into the addon cannot take a JS
// exception any more (napi_throw fails there): node-addon-api then drops the
// exception instead of throwing a C++ one out of the callback, which would
// abort the whole process. Every file of the addon includes this header before
// napi.h, so that all of them see the same node-addon-api.
#ifndef NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS
#define NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS
#endif
#include <napi.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../generated/c_declarations.h"

namespace cjs {

enum class Lib { Cuda = 0, Nvrtc = 1, NvJitLink = 2, Nvvm = 3, Nvml = 4, Nccl = 5 };
constexpr int kLibCount = 6;
const char* libraryName(Lib lib);

template <class F>
struct FnTraits;
template <class R, class... A>
struct FnTraits<R (*)(A...)> {
  using Args = std::tuple<A...>;
};
/** The type of parameter I of function pointer type F. */
template <class F, size_t I>
using P = std::tuple_element_t<I, typename FnTraits<F>::Args>;

/** One call from JS: its arguments, its name for messages, and scratch memory that lives as long as the call. */
class Call {
 public:
  Call(const Napi::CallbackInfo& info, const char* fn) : env(info.Env()), fn(fn), info_(&info) {}
  Call(Napi::Env env, const char* fn) : env(env), fn(fn), info_(nullptr) {}

  Napi::Env env;
  const char* fn;

  Napi::Value arg(size_t i) const { return info_ && i < info_->Length() ? (*info_)[i] : env.Undefined(); }
  size_t length() const { return info_ ? info_->Length() : 0; }
  void argCount(size_t min, size_t max) const;

  [[noreturn]] void typeError(const std::string& what, const std::string& expected, const Napi::Value& got) const;
  [[noreturn]] void rangeError(const std::string& what, const std::string& message) const;

  template <class T>
  T* alloc(size_t n) {
    std::shared_ptr<T> block(new T[n ? n : 1](), std::default_delete<T[]>());
    keep_.push_back(block);
    return block.get();
  }
  const char* keepString(std::string s) {
    auto block = std::make_shared<std::string>(std::move(s));
    keep_.push_back(block);
    return block->c_str();
  }

 private:
  const Napi::CallbackInfo* info_;
  std::vector<std::shared_ptr<void>> keep_;
};

std::string describe(const Napi::Value& v);

// ------------------------------------------------------------------ enums
template <class E>
inline bool enumValid(long long) {
  return true;
}

// ------------------------------------------------------------------ scalars
template <class T>
T numFrom(const Call& c, const Napi::Value& v, const std::string& what) {
  if (!v.IsNumber()) c.typeError(what, "a number", v);
  double d = v.As<Napi::Number>().DoubleValue();
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(d);
  } else {
    if (!std::isfinite(d) || std::trunc(d) != d) c.rangeError(what, "must be an integer, got " + describe(v));
    if constexpr (std::is_enum_v<T>) {
      if (d < -2147483648.0 || d > 4294967295.0 || !enumValid<T>(static_cast<long long>(d)))
        c.rangeError(what, "must be a value of its C enum, got " + describe(v));
      return static_cast<T>(static_cast<long long>(d));
    } else if constexpr (std::is_same_v<T, bool>) {
      return d != 0;
    } else {
      using L = std::numeric_limits<T>;
      if (d < static_cast<double>(L::min()) || d > static_cast<double>(L::max()))
        c.rangeError(what, "must fit a " + std::to_string(sizeof(T) * 8) + "-bit " + (L::is_signed ? "signed" : "unsigned") +
                               " integer, got " + describe(v));
      return static_cast<T>(d);
    }
  }
}

/** A 64-bit integer from a bigint (checked for loss) or a safe-integer number. */
template <class T>
T u64From(const Call& c, const Napi::Value& v, const std::string& what) {
  if (v.IsBigInt()) {
    bool lossless = false;
    if constexpr (std::is_signed_v<T>) {
      int64_t x = v.As<Napi::BigInt>().Int64Value(&lossless);
      if (!lossless) c.rangeError(what, "does not fit in 64 bits (signed)");
      return static_cast<T>(x);
    } else {
      uint64_t x = v.As<Napi::BigInt>().Uint64Value(&lossless);
      if (!lossless) c.rangeError(what, "must be a bigint in [0, 2^64), got " + describe(v));
      return static_cast<T>(x);
    }
  }
  if (v.IsNumber()) {
    double d = v.As<Napi::Number>().DoubleValue();
    if (!std::isfinite(d) || std::trunc(d) != d || std::fabs(d) > 9007199254740991.0)
      c.rangeError(what, "must be a safe integer number or a bigint, got " + describe(v));
    if (!std::is_signed_v<T> && d < 0) c.rangeError(what, "must not be negative, got " + describe(v));
    return static_cast<T>(static_cast<int64_t>(d));
  }
  c.typeError(what, "a bigint or a safe-integer number", v);
}

/** `v` in hex as messages write an address or handle: `0x7f00`. */
std::string hexOf(uint64_t v);

/** An address or handle: a bigint only (a number could not hold every 64-bit value). */
inline uint64_t addressFrom(const Call& c, const Napi::Value& v, const std::string& what) {
  if (!v.IsBigInt()) c.typeError(what, "a bigint (a handle or an address; 0n for none)", v);
  bool lossless = false;
  uint64_t x = v.As<Napi::BigInt>().Uint64Value(&lossless);
  if (!lossless) c.rangeError(what, "must be a bigint in [0, 2^64), got " + describe(v));
  return x;
}

/**
 * A handle that crosses as a type-tagged External rather than a bigint: for
 * libraries that dereference a handle as given (NVML's nvmlDevice_t), so that
 * only a handle that the library itself returned reaches it. The generated
 * code has one per C type (its tag fixed by the type's name).
 */
struct ExternalKind {
  napi_type_tag tag;
  const char* type;    // the C type: nvmlDevice_t
  const char* madeBy;  // the functions that return one, for messages
};
/** The handle inside an External of kind `k`; a TypeError naming the parameter for anything else (null, a bigint, another External). */
void* externalFrom(const Call& c, const Napi::Value& v, const std::string& what, const ExternalKind& k);
/** A new External of kind `k` holding `h` (null for a NULL handle). It owns nothing: the library owns what `h` points at. */
Napi::Value externalTo(Napi::Env env, void* h, const ExternalKind& k);

/** A host pointer: an ArrayBuffer or a view of one (its bytes), a bigint address, or null. Strings when allowed. */
void* pointerFrom(Call& c, const Napi::Value& v, const std::string& what, bool allowString, bool allowNumber);

template <class T>
struct StructCodec;  // generated: from(Call&, Object, T&, path) and to(Env, const T&)

template <class T>
void valueFrom(Call& c, const Napi::Value& v, T& out, const std::string& path, const char* field);
template <class T>
Napi::Value valueTo(Napi::Env env, const T& in);

inline std::string joinPath(const std::string& path, const char* field) {
  if (path.empty()) return field;
  if (field[0] == '[') return path + field;
  return path + "." + field;
}

template <class T>
void valueFrom(Call& c, const Napi::Value& v, T& out, const std::string& path, const char* field) {
  const std::string what = joinPath(path, field);
  if constexpr (std::is_array_v<T>) {
    using E = std::remove_extent_t<T>;
    constexpr size_t N = std::extent_v<T>;
    if (v.IsTypedArray() && sizeof(E) == 1) {
      auto a = v.As<Napi::TypedArray>();
      size_t n = a.ByteLength();
      if (n > N) c.rangeError(what, "holds at most " + std::to_string(N) + " bytes, got " + std::to_string(n));
      std::memcpy(&out, static_cast<uint8_t*>(a.ArrayBuffer().Data()) + a.ByteOffset(), n);
      return;
    }
    if (!v.IsArray()) c.typeError(what, "an array", v);
    auto a = v.As<Napi::Array>();
    if (a.Length() > N) c.rangeError(what, "holds at most " + std::to_string(N) + " elements, got " + std::to_string(a.Length()));
    for (uint32_t i = 0; i < a.Length(); i++) {
      std::string index = "[" + std::to_string(i) + "]";
      valueFrom(c, a.Get(i), out[i], what, index.c_str());
    }
  } else if constexpr (std::is_enum_v<T> || std::is_floating_point_v<T> || (std::is_integral_v<T> && sizeof(T) <= 4)) {
    out = numFrom<T>(c, v, what);
  } else if constexpr (std::is_integral_v<T>) {
    out = u64From<T>(c, v, what);
  } else if constexpr (std::is_pointer_v<T>) {
    // text only for char fields: a void* field is memory as given (an output buffer copied to scratch memory would lose what is written)
    constexpr bool isText = std::is_same_v<std::remove_cv_t<std::remove_pointer_t<T>>, char>;
    out = reinterpret_cast<T>(pointerFrom(c, v, what, isText, false));
  } else {
    if (!v.IsObject()) c.typeError(what, "an object", v);
    StructCodec<T>::from(c, v.As<Napi::Object>(), out, what);
  }
}

template <class T>
Napi::Value valueTo(Napi::Env env, const T& in) {
  if constexpr (std::is_array_v<T>) {
    using E = std::remove_extent_t<T>;
    constexpr size_t N = std::extent_v<T>;
    if constexpr (sizeof(E) == 1 && !std::is_class_v<E>) {
      auto a = Napi::Uint8Array::New(env, N);
      std::memcpy(a.Data(), &in, N);
      return a;
    } else {
      auto a = Napi::Array::New(env, N);
      for (uint32_t i = 0; i < N; i++) a.Set(i, valueTo(env, in[i]));
      return a;
    }
  } else if constexpr (std::is_enum_v<T>) {
    return Napi::Number::New(env, static_cast<double>(in));
  } else if constexpr (std::is_same_v<T, bool>) {
    return Napi::Boolean::New(env, in);
  } else if constexpr (std::is_floating_point_v<T> || (std::is_integral_v<T> && sizeof(T) <= 4)) {
    return Napi::Number::New(env, static_cast<double>(in));
  } else if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_signed_v<T>)
      return Napi::BigInt::New(env, static_cast<int64_t>(in));
    else
      return Napi::BigInt::New(env, static_cast<uint64_t>(in));
  } else if constexpr (std::is_pointer_v<T>) {
    return Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(in)));
  } else {
    return StructCodec<T>::to(env, in);
  }
}

/**
 * A C string field or buffer (`char busId[32]`) from a JS string: its UTF-8
 * bytes and a NUL must fit (a RangeError otherwise, never a cut string).
 */
template <size_t N>
void textFrom(Call& c, const Napi::Value& v, char (&out)[N], const std::string& path, const char* field) {
  const std::string what = joinPath(path, field);
  if (!v.IsString()) c.typeError(what, "a string", v);
  std::string s = v.As<Napi::String>().Utf8Value();
  if (s.find('\0') != std::string::npos) c.rangeError(what, "must not contain a NUL character");
  if (s.size() + 1 > N)
    c.rangeError(what, "holds a string of at most " + std::to_string(N - 1) + " UTF-8 bytes, got " + std::to_string(s.size()));
  std::memset(out, 0, N);
  std::memcpy(out, s.data(), s.size());
}
/** The text of a C string field or buffer, up to its first NUL and never past its end. */
template <size_t N>
Napi::Value textTo(Napi::Env env, const char (&in)[N]) {
  size_t n = 0;
  while (n < N && in[n] != '\0') n++;
  return Napi::String::New(env, in, n);
}

inline bool has(const Napi::Object& o, const char* key) {
  if (!o.Has(key)) return false;
  return !o.Get(key).IsUndefined();
}

// ------------------------------------------------------------------ inputs
inline std::string paramName(const Call& c, const char* name) {
  return std::string("parameter '") + name + "'";
}

template <class T>
T inNum(Call& c, size_t i, const char* name) {
  return numFrom<T>(c, c.arg(i), paramName(c, name));
}
template <class T>
T inU64(Call& c, size_t i, const char* name) {
  return u64From<T>(c, c.arg(i), paramName(c, name));
}
template <class T>
T inHandle(Call& c, size_t i, const char* name) {
  uint64_t x = addressFrom(c, c.arg(i), paramName(c, name));
  if constexpr (std::is_pointer_v<T>)
    return reinterpret_cast<T>(static_cast<uintptr_t>(x));
  else
    return static_cast<T>(x);
}
template <class T>
T inExternal(Call& c, size_t i, const char* name, const ExternalKind& k) {
  static_assert(std::is_pointer_v<T>, "External handles are pointers");
  return static_cast<T>(externalFrom(c, c.arg(i), paramName(c, name), k));
}
template <class T>
Napi::Value outExternal(Napi::Env env, T h, const ExternalKind& k) {
  return externalTo(env, static_cast<void*>(h), k);
}
template <class T>
T inFnPtr(Call& c, size_t i, const char* name) {
  Napi::Value v = c.arg(i);
  if (v.IsNull() || v.IsUndefined()) return nullptr;
  return reinterpret_cast<T>(static_cast<uintptr_t>(addressFrom(c, v, paramName(c, name))));
}
const char* inString(Call& c, size_t i, const char* name);
/** A string that must not be null (the C function would crash on NULL). */
const char* inStringRequired(Call& c, size_t i, const char* name);
void* inHostPtr(Call& c, size_t i, const char* name, bool allowString);
void* rawPointerFrom(Call& c, const Napi::Value& v, const std::string& what, size_t minBytes);
template <class T>
T inRaw(Call& c, size_t i, const char* name, size_t atLeast = 0) {
  static_assert(std::is_pointer_v<T>, "raw parameters are pointers");
  using E = std::remove_cv_t<std::remove_pointer_t<T>>;
  size_t minBytes = atLeast;
  if constexpr (!std::is_void_v<E>) minBytes = std::max(minBytes, sizeof(E));  // the C function writes at least one element
  return reinterpret_cast<T>(rawPointerFrom(c, c.arg(i), paramName(c, name), minBytes));
}

struct Bytes {
  const void* data;
  size_t size;
};
Bytes bytesFrom(Call& c, const Napi::Value& v, const std::string& what);
inline Bytes inBytes(Call& c, size_t i, const char* name) {
  return bytesFrom(c, c.arg(i), paramName(c, name));
}

template <class T>
T* inStructPtr(Call& c, size_t i, const char* name) {
  Napi::Value v = c.arg(i);
  if (v.IsNull() || v.IsUndefined()) return nullptr;
  T* out = c.alloc<T>(1);
  valueFrom(c, v, *out, "", paramName(c, name).c_str());
  return out;
}
template <class T>
T inStructValue(Call& c, size_t i, const char* name) {
  T out{};
  valueFrom(c, c.arg(i), out, "", paramName(c, name).c_str());
  return out;
}
template <class T>
void inStructInto(Call& c, size_t i, const char* name, T& out) {
  Napi::Value v = c.arg(i);
  if (v.IsNull() || v.IsUndefined()) return;
  valueFrom(c, v, out, "", paramName(c, name).c_str());
}

/** An array parameter: a JS array (converted element by element), a typed array of the element's size, or null. */
/** The count that a null array reports, so that sharedCount can tell it from an empty one. */
constexpr size_t kNoArray = static_cast<size_t>(-1);

template <class T>
T* arrayFrom(Call& c, const Napi::Value& v, const std::string& what, size_t& count) {
  count = kNoArray;
  if (v.IsNull() || v.IsUndefined()) return nullptr;
  if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>) {
    if (v.IsTypedArray() || v.IsDataView()) {
      auto view = v.As<Napi::TypedArray>();
      size_t bytes = view.ByteLength();
      if (bytes % sizeof(T) != 0) c.rangeError(what, "byte length must be a multiple of " + std::to_string(sizeof(T)));
      count = bytes / sizeof(T);
      T* out = c.alloc<T>(count);
      std::memcpy(out, static_cast<uint8_t*>(view.ArrayBuffer().Data()) + view.ByteOffset(), bytes);
      return out;
    }
  }
  if (!v.IsArray()) c.typeError(what, "an array or null", v);
  auto a = v.As<Napi::Array>();
  count = a.Length();
  T* out = c.alloc<T>(count);
  for (uint32_t k = 0; k < count; k++) {
    std::string index = "[" + std::to_string(k) + "]";
    if constexpr (std::is_same_v<T, void*>) {
      // option values: an integer value or an address, as the C API casts them
      out[k] = pointerFrom(c, a.Get(k), what + index, true, true);
    } else {
      valueFrom(c, a.Get(k), out[k], what, index.c_str());
    }
  }
  return out;
}
template <class T>
T* inArray(Call& c, size_t i, const char* name, size_t& count) {
  return arrayFrom<T>(c, c.arg(i), paramName(c, name), count);
}
const char** inStringArray(Call& c, size_t i, const char* name, size_t& count);

struct CountOf {
  size_t n;
  const char* name;
};
/** The count shared by several arrays: they must agree (a null array, kNoArray, is allowed beside others). */
size_t sharedCount(const Call& c, std::initializer_list<CountOf> arrays);

// ------------------------------------------------------------------ outputs
template <class T>
Napi::Value outU64(Napi::Env env, T v) {
  return valueTo(env, v);
}
inline Napi::Value outCString(Napi::Env env, const char* s) {
  return s ? Napi::String::New(env, s) : env.Null();
}
Napi::Value outBytes(Napi::Env env, const void* data, size_t size);
Napi::Value outText(Napi::Env env, const std::vector<char>& buffer, size_t size);
inline Napi::Value outBlob(Napi::Env env, const void* data, size_t size) {
  return outBytes(env, data, size);
}
template <class T>
Napi::Value outArray(Napi::Env env, const T* data, size_t n) {
  auto a = Napi::Array::New(env, n);
  for (size_t k = 0; k < n; k++) a.Set(static_cast<uint32_t>(k), valueTo(env, data[k]));
  return a;
}

// ------------------------------------------------------------------ libraries and errors
/** Opens `lib` on first use (at the path that JS's pathfinder gives) and returns the symbol; throws a named error when absent. */
void* librarySymbol(Call& c, Lib lib, const char* symbol);
/** Same, but returns nullptr instead of throwing (for error messages and logs). */
void* librarySymbolQuiet(Napi::Env env, Lib lib, const char* symbol);
/** A driver entry point through cuGetProcAddress at an explicit CUDA version (the per-thread variant where asked for). */
void* driverEntryPoint(Call& c, const char* name, int version, int perThreadVersion);
/**
 * A C entry point resolved once per process. Any JS thread (main or Worker)
 * may get there first; racing threads resolve the same pointer, and each
 * reads a fully written one.
 */
template <class F, class Resolve>
F resolved(std::atomic<F>& slot, Resolve&& resolve) {
  F f = slot.load(std::memory_order_acquire);
  if (!f) {
    f = reinterpret_cast<F>(resolve());
    slot.store(f, std::memory_order_release);
  }
  return f;
}
/** The driver's CUDA version, 0 before the driver was opened. */
int driverVersion();
bool perThreadDefaultStream();

void checkCu(Call& c, CUresult r);
void checkNvrtc(Call& c, nvrtcResult r, nvrtcProgram prog);
void checkNvvm(Call& c, nvvmResult r, nvvmProgram prog);
/** Throws NvmlError with nvmlErrorString's message for a failed status. */
void checkNvml(Call& c, nvmlReturn_t r);
/** Throws NcclError with ncclGetErrorString's message and, as its log, ncclGetLastError's for a failed status. */
void checkNccl(Call& c, ncclResult_t r);
/** An nvJitLink status and, where it failed, the handle's error log: made on the nvJitLink thread (nvjitlink-thread.h). */
struct NvJitLinkOutcome {
  nvJitLinkResult result = NVJITLINK_SUCCESS;
  std::string log;
};
NvJitLinkOutcome nvJitLinkOutcome(nvJitLinkResult r, nvJitLinkHandle handle);
/** Throws NvJitLinkError for a failed outcome; on the JS thread. */
void checkNvJitLink(Call& c, const NvJitLinkOutcome& outcome);
Napi::Value makeLibraryError(Napi::Env env, const char* kind, long long code, const std::string& codeName, const char* fn,
                             const std::string& message, const std::string& log);
[[noreturn]] void throwValue(Napi::Env env, Napi::Value error);

// ------------------------------------------------------------------ program handles
/**
 * The NVRTC, NVVM and nvJitLink handles and NCCL communicators that this
 * process created and has not destroyed, in one process-wide set under a
 * mutex: these libraries free a
 * handle on destroy and crash (double free, use after free) when given it
 * again, or when given NULL. Each function that takes such a handle checks it
 * here first and holds it while it runs (ProgramUse); destroy refuses a handle
 * that a pending Promise-form call holds. A refused handle is the library's
 * own named error (NvrtcError NVRTC_ERROR_INVALID_PROGRAM, NvvmError
 * NVVM_ERROR_INVALID_PROGRAM, NvJitLinkError NVJITLINK_ERROR_INVALID_INPUT,
 * NcclError ncclInvalidArgument).
 */
void trackProgram(nvrtcProgram h);
void trackProgram(nvvmProgram h);
void trackProgram(nvJitLinkHandle h);
void trackProgram(ncclComm_t h);

/** A live handle, held (so that destroy refuses it) until this is destroyed. */
class ProgramUse {
 public:
  ProgramUse() = default;
  ProgramUse(const void* h) : h_(h) {}
  ProgramUse(ProgramUse&& o) noexcept : h_(o.h_) { o.h_ = nullptr; }
  ProgramUse& operator=(ProgramUse&&) = delete;
  ProgramUse(const ProgramUse&) = delete;
  ~ProgramUse();

 private:
  const void* h_ = nullptr;
};
ProgramUse useProgram(Call& c, nvrtcProgram h, const char* param);
ProgramUse useProgram(Call& c, nvvmProgram h, const char* param);
ProgramUse useProgram(Call& c, nvJitLinkHandle h, const char* param);
ProgramUse useProgram(Call& c, ncclComm_t h, const char* param);
/** For destroy: removes a live, unheld handle from the set, or throws the named error. */
void untrackProgram(Call& c, nvrtcProgram h, const char* param);
void untrackProgram(Call& c, nvvmProgram h, const char* param);
void untrackProgram(Call& c, nvJitLinkHandle h, const char* param);
void untrackProgram(Call& c, ncclComm_t h, const char* param);

/** Checks a host buffer's byte length (kUnknownSize for a bigint address) against the byte count that names it. */
constexpr size_t kUnknownSize = static_cast<size_t>(-1);
void checkHostBytes(const Call& c, const char* bufferName, size_t bufferBytes, uint64_t count, const char* countName);
/** The bytes of a shareable handle of CUmemAllocationHandleType `type`: an fd, a Windows handle, a 64-byte fabric handle (0 for none). */
size_t shareableHandleBytes(int type);
/** The bytes of an ArrayBuffer, typed array or DataView (its current backing store); false for anything else. */
bool hostBufferBytes(const Napi::Value& v, const uint8_t** data, size_t* size);
/**
 * The host sides of a 2-D or 3-D copy (memcpy-host-buffers.cpp): where a side
 * is host memory (CU_MEMORYTYPE_HOST) and its srcHost/dstHost was a JS buffer
 * (`srcHost`, `dstHost`: the values the codec read; empty where absent), the
 * buffer must still be the memory the field points at (not detached or
 * resized by a later field's getter) and hold every byte the copy touches.
 */
void checkMemcpyHostBuffers(const Call& c, const CUDA_MEMCPY2D_v2& copy, const Napi::Value& srcHost, const Napi::Value& dstHost,
                            const std::string& path);
void checkMemcpyHostBuffers(const Call& c, const CUDA_MEMCPY3D_v2& copy, const Napi::Value& srcHost, const Napi::Value& dstHost,
                            const std::string& path);
void checkMemcpyHostBuffers(const Call& c, const CUDA_MEMCPY3D_PEER_v1& copy, const Napi::Value& srcHost, const Napi::Value& dstHost,
                            const std::string& path);
/** inHostPtr, also giving the buffer's byte length (kUnknownSize for a bigint address or null). */
void* inHostPtrSized(Call& c, size_t i, const char* name, bool allowString, size_t& bytes);

/** Creates this environment's instance data (the addon's init, once per main thread or Worker). */
void initEnvironment(Napi::Env env);
/** Registers this environment's JS helpers (library resolver, error factory). */
void setHelpers(Napi::Env env, Napi::Function resolver, Napi::Function errorFactory);
class HostCallChannel;
/** This environment's channel for JS host functions (host-call-channel.h), in its instance data; empty until first used. */
std::shared_ptr<HostCallChannel>& hostCallChannelOf(Napi::Env env);

/** A generated function's place in the exports. */
struct GeneratedFunction {
  const char* ns;
  const char* name;
  Napi::Value (*fn)(const Napi::CallbackInfo&);
};
const GeneratedFunction* generatedFunctions(size_t* count);

// Hand-written parts, each in its own file.
void registerLaunch(Napi::Env env, Napi::Object driver);
void registerHostCallbacks(Napi::Env env, Napi::Object driver);
void registerLinkState(Napi::Env env, Napi::Object driver);
void registerAsyncCalls(Napi::Env env, Napi::Object exports);
void registerPointerAttribute(Napi::Env env, Napi::Object driver);
void registerGraphCalls(Napi::Env env, Napi::Object driver);
void registerHostArrayBuffer(Napi::Env env, Napi::Object exports);
void registerBlockingHostFunc(Napi::Env env, Napi::Object exports);
void registerProcessFd(Napi::Env env, Napi::Object exports);
/** skipDriverTeardownAtExit (fast-exit.cpp). */
void registerFastExit(Napi::Env env, Napi::Object exports);

}  // namespace cjs

// CUuuid crosses as 16 bytes (a Uint8Array), not as an object with a `bytes` field.
namespace cjs {
template <>
struct StructCodec<CUuuid> {
  static void from(Call& c, const Napi::Object& o, CUuuid& out, const std::string& path) { valueFrom(c, o, out.bytes, path, ""); }
  static Napi::Object to(Napi::Env env, const CUuuid& in) {
    auto a = Napi::Uint8Array::New(env, 16);
    std::memcpy(a.Data(), in.bytes, 16);
    return a;
  }
};
}  // namespace cjs
