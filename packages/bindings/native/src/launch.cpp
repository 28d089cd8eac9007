// The launch fast path: a kernel's parameter pointers are built once
// (createKernelParams) over a reusable ArrayBuffer, so that a launch is one
// native call that reads ten plain arguments and converts nothing per kernel
// argument. A packed launch (createPackedLaunch) goes one step further: the
// function is fixed at creation and the dimensions, stream and expected
// context are read from a header in the same buffer, so that a launch is a
// call with one argument, and the context check that a launch needs is the
// driver's own cuCtxGetCurrent, not a second call from JS. Written against
// the C N-API to keep the call as cheap as it gets.
#include <algorithm>
#include <cstring>
#include <utility>

#include "codecs.h"

namespace cjs {
namespace {

const napi_type_tag kKernelParamsTag = {0x6375646a73706172ULL, 0x6b65726e656c7073ULL};
const napi_type_tag kPackedLaunchTag = {0x6375646a73706b6cULL, 0x7061636b65646c63ULL};

// The header of a packed launch (its layout is PACKED_LAUNCH_HEADER in src/driver.ts):
// seven u32 (grid x, y, z, block x, y, z, dynamic shared memory bytes), 4 bytes of
// padding, then the u64 CUstream and the u64 CUcontext the launch expects to be current.
constexpr size_t kHeaderDims = 0;
constexpr size_t kHeaderStream = 32;
constexpr size_t kHeaderContext = 40;
constexpr size_t kHeaderBytes = 48;

struct KernelParams {
  std::vector<void*> pointers;
  napi_ref buffer = nullptr;   // keeps the ArrayBuffer (and so the pointers) alive
  void* bufferData = nullptr;  // the ArrayBuffer's bytes and length when the pointers were made:
  size_t bufferLength = 0;     // a detached or shrunk buffer no longer backs them
  uint8_t* base = nullptr;     // the first byte that the offsets count from
  size_t length = 0;           // bytes from base
  // a packed launch only
  uint64_t function = 0;
  size_t header = 0;                              // offset of the header from base
  std::vector<std::pair<size_t, size_t>> ranges;  // each parameter's [start, end) from base
  // a launch function only: the bytes it owns (with the ArrayBuffer over them), released by whichever of the two goes last
  struct Storage* storage = nullptr;
};

/** The bytes of a launch function, shared by the function and the ArrayBuffer over them. */
struct Storage {
  std::unique_ptr<uint64_t[]> words;
  int owners = 2;
};

void releaseStorage(Storage* s) {
  if (--s->owners == 0) delete s;
}

void finalizeStorage(napi_env, void*, void* hint) {
  releaseStorage(static_cast<Storage*>(hint));
}

void finalizeParams(napi_env env, void* data, void*) {
  auto* kp = static_cast<KernelParams*>(data);
  if (kp->buffer) napi_delete_reference(env, kp->buffer);
  if (kp->storage) releaseStorage(kp->storage);
  delete kp;
}

// The most parameter bytes a kernel takes (CUDA 12.1 and newer; 4 KiB before): a
// table past it names no kernel, so it is refused before it is built.
constexpr size_t kMaxParamBytes = 32764;

/**
 * The parameter table over `b` (an ArrayBuffer or a view of one) at `offsets`,
 * each parameter [offset, offset + size) checked to lie in it and to overlap
 * no other: the driver copies `size` bytes from each pointer at launch.
 */
std::unique_ptr<KernelParams> paramsOver(Call& c, Napi::Value b, Napi::Value offsetsValue, Napi::Value sizesValue) {
  Napi::ArrayBuffer buffer;
  size_t offset = 0, length = 0;
  if (b.IsArrayBuffer()) {
    buffer = b.As<Napi::ArrayBuffer>();
    length = buffer.ByteLength();
  } else if (b.IsTypedArray()) {
    auto view = b.As<Napi::TypedArray>();
    buffer = view.ArrayBuffer();
    offset = view.ByteOffset();
    length = view.ByteLength();
  } else if (b.IsDataView()) {
    auto view = b.As<Napi::DataView>();
    buffer = view.ArrayBuffer();
    offset = view.ByteOffset();
    length = view.ByteLength();
  } else {
    c.typeError("parameter 'buffer'", "an ArrayBuffer (or a typed array over one)", b);
  }
  if (!offsetsValue.IsArray()) c.typeError("parameter 'offsets'", "an array of byte offsets", offsetsValue);
  if (!sizesValue.IsArray()) c.typeError("parameter 'sizes'", "an array of byte sizes, one per offset", sizesValue);
  auto offsets = offsetsValue.As<Napi::Array>();
  auto sizes = sizesValue.As<Napi::Array>();
  const uint32_t count = offsets.Length();
  if (sizes.Length() != count)
    c.rangeError("parameter 'sizes'", "has " + std::to_string(sizes.Length()) + " entries for " + std::to_string(count) + " offsets");
  if (count > kMaxParamBytes)
    c.rangeError("parameter 'offsets'", "has " + std::to_string(count) + " entries; a kernel takes at most " +
                                            std::to_string(kMaxParamBytes) + " bytes of parameters");
  auto kp = std::make_unique<KernelParams>();
  kp->bufferData = buffer.Data();
  kp->bufferLength = buffer.ByteLength();
  kp->base = static_cast<uint8_t*>(buffer.Data()) + offset;
  kp->length = length;
  std::vector<std::pair<size_t, size_t>> ranges;  // [start, end), to find overlaps
  ranges.reserve(count);
  size_t total = 0;
  for (uint32_t i = 0; i < count; i++) {
    std::string what = "parameter 'offsets'[" + std::to_string(i) + "]";
    uint32_t off = numFrom<uint32_t>(c, offsets.Get(i), what);
    uint32_t size = numFrom<uint32_t>(c, sizes.Get(i), "parameter 'sizes'[" + std::to_string(i) + "]");
    if (size == 0) c.rangeError("parameter 'sizes'[" + std::to_string(i) + "]", "= 0: a kernel parameter has at least one byte");
    if (off >= length)
      c.rangeError(what, "= " + std::to_string(off) + " is past the end of the buffer (" + std::to_string(length) + " bytes)");
    if (static_cast<size_t>(off) + size > length)
      c.rangeError(what, "= " + std::to_string(off) + " with size " + std::to_string(size) + " reaches past the end of the buffer (" +
                             std::to_string(length) + " bytes)");
    total += size;
    if (total > kMaxParamBytes)
      c.rangeError("parameter 'sizes'", "add up to more than " + std::to_string(kMaxParamBytes) + " bytes, the most a kernel takes");
    ranges.emplace_back(off, static_cast<size_t>(off) + size);
    kp->pointers.push_back(kp->base + off);
  }
  std::vector<uint32_t> order(count);
  for (uint32_t i = 0; i < count; i++) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return ranges[a].first < ranges[b].first; });
  for (uint32_t k = 1; k < count; k++) {
    const auto& before = ranges[order[k - 1]];
    const auto& after = ranges[order[k]];
    if (after.first < before.second)
      c.rangeError("parameter 'offsets'[" + std::to_string(order[k]) + "]",
                   "= " + std::to_string(after.first) + " overlaps parameter " + std::to_string(order[k - 1]) + " (bytes " +
                       std::to_string(before.first) + " to " + std::to_string(before.second) + ")");
  }
  kp->ranges = std::move(ranges);
  napi_create_reference(c.env, buffer, 1, &kp->buffer);
  return kp;
}

Napi::Value externalOf(Call& c, std::unique_ptr<KernelParams> kp, const napi_type_tag& tag) {
  napi_value external;
  NAPI_THROW_IF_FAILED(c.env, napi_create_external(c.env, kp.get(), finalizeParams, nullptr, &external), Napi::Value());
  kp.release();
  napi_type_tag_object(c.env, external, &tag);
  return Napi::Value(c.env, external);
}

/** The header's checks of createPackedLaunch: aligned, inside the buffer, clear of every parameter. */
void checkHeader(Call& c, const KernelParams& kp, uint32_t header) {
  if (header % 8 != 0) c.rangeError("parameter 'headerOffset'", "= " + std::to_string(header) + " is not a multiple of 8");
  if (static_cast<size_t>(header) + kHeaderBytes > kp.length)
    c.rangeError("parameter 'headerOffset'", "= " + std::to_string(header) + ": the " + std::to_string(kHeaderBytes) +
                                                 "-byte header does not fit in the buffer (" + std::to_string(kp.length) + " bytes)");
  for (size_t i = 0; i < kp.ranges.size(); i++) {
    const size_t start = kp.ranges[i].first, end = kp.ranges[i].second;
    if (start < header + kHeaderBytes && end > header)
      c.rangeError("parameter 'offsets'[" + std::to_string(i) + "]", "= " + std::to_string(start) + " with size " +
                                                                         std::to_string(end - start) + " reaches into the header at " +
                                                                         std::to_string(header));
  }
}

Napi::Value createKernelParams(const Napi::CallbackInfo& info) {
  Call c(info, "createKernelParams");
  c.argCount(3, 3);
  return externalOf(c, paramsOver(c, info[0], info[1], info[2]), kKernelParamsTag);
}

Napi::Value createPackedLaunch(const Napi::CallbackInfo& info) {
  Call c(info, "createPackedLaunch");
  c.argCount(5, 5);
  uint64_t f = addressFrom(c, info[0], "parameter 'f'");
  if (f == 0) c.rangeError("parameter 'f'", "must be a CUfunction or CUkernel, not 0n");
  auto kp = paramsOver(c, info[1], info[2], info[3]);
  uint32_t header = numFrom<uint32_t>(c, info[4], "parameter 'headerOffset'");
  checkHeader(c, *kp, header);
  kp->function = f;
  kp->header = header;
  return externalOf(c, std::move(kp), kPackedLaunchTag);
}

const napi_type_tag kLaunchFunctionTag = {0x6375646a736c6175ULL, 0x6e636866756e6374ULL};

decltype(&cuLaunchKernel) launchEntry(Call& c);

/**
 * A launch as a function of no arguments, over `byteLength` bytes that it
 * owns (its `buffer` property is an ArrayBuffer over them): calling it is
 * what cuLaunchKernelPacked does, with nothing to look up or check per call,
 * since the bytes cannot be taken from it (a detached or transferred buffer
 * leaves them in place).
 */
napi_value launchFunctionCall(napi_env env, napi_callback_info cbinfo) {
  void* data = nullptr;
  napi_get_cb_info(env, cbinfo, nullptr, nullptr, nullptr, &data);
  const auto* kp = static_cast<const KernelParams*>(data);
  const uint8_t* h = kp->base + kp->header;
  uint32_t dims[7];
  uint64_t stream, context;
  std::memcpy(dims, h + kHeaderDims, sizeof dims);
  std::memcpy(&stream, h + kHeaderStream, sizeof stream);
  std::memcpy(&context, h + kHeaderContext, sizeof context);
  try {
    using GetCurrent = decltype(&cuCtxGetCurrent);
    static std::atomic<GetCurrent> getCurrentSlot{nullptr};
    GetCurrent getCurrent = getCurrentSlot.load(std::memory_order_acquire);
    if (getCurrent == nullptr) {
      Call query(Napi::Env(env), "cuCtxGetCurrent");
      getCurrent = resolved(getCurrentSlot, [&] { return driverEntryPoint(query, "cuCtxGetCurrent", 4000, 0); });
    }
    CUcontext current = nullptr;
    CUresult r = getCurrent(&current);
    if (r != CUDA_SUCCESS) {
      Call query(Napi::Env(env), "cuCtxGetCurrent");
      checkCu(query, r);
    }
    const uint64_t currentValue = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(current));
    if (currentValue != context) {
      napi_value out;
      napi_create_bigint_uint64(env, currentValue, &out);
      return out;
    }
    using Launch = decltype(&cuLaunchKernel);
    static std::atomic<Launch> launchSlot{nullptr};
    Launch launch = launchSlot.load(std::memory_order_acquire);
    if (launch == nullptr) {
      Call c(Napi::Env(env), "cuLaunchKernel");
      launch = launchEntry(c);
      launchSlot.store(launch, std::memory_order_release);
    }
    r = launch(reinterpret_cast<CUfunction>(static_cast<uintptr_t>(kp->function)), dims[0], dims[1], dims[2], dims[3], dims[4], dims[5],
               dims[6], reinterpret_cast<CUstream>(static_cast<uintptr_t>(stream)),
               kp->pointers.empty() ? nullptr : const_cast<void**>(kp->pointers.data()), nullptr);
    if (r != CUDA_SUCCESS) {
      Call c(Napi::Env(env), "cuLaunchKernel");
      checkCu(c, r);
    }
  } catch (const Napi::Error& e) {
    e.ThrowAsJavaScriptException();
  }
  return nullptr;
}

Napi::Value createLaunchFunction(const Napi::CallbackInfo& info) {
  Call c(info, "createLaunchFunction");
  c.argCount(5, 5);
  uint64_t f = addressFrom(c, info[0], "parameter 'f'");
  if (f == 0) c.rangeError("parameter 'f'", "must be a CUfunction or CUkernel, not 0n");
  const uint32_t byteLength = numFrom<uint32_t>(c, info[1], "parameter 'byteLength'");
  if (byteLength == 0 || byteLength > kMaxParamBytes + 8 + kHeaderBytes)
    c.rangeError("parameter 'byteLength'", "= " + std::to_string(byteLength) + ": a launch takes 1 to " +
                                               std::to_string(kMaxParamBytes + 8 + kHeaderBytes) + " bytes");
  auto* storage = new Storage();
  storage->words.reset(new uint64_t[(byteLength + 7) / 8]());
  napi_value buffer = nullptr;
  napi_status s = napi_create_external_arraybuffer(c.env, storage->words.get(), byteLength, finalizeStorage, storage, &buffer);
  if (s != napi_ok) {
    delete storage;
    bool pending = false;
    napi_value ignored;
    if (napi_is_exception_pending(c.env, &pending) == napi_ok && pending) napi_get_and_clear_last_exception(c.env, &ignored);
    // no ArrayBuffer over native memory here (a V8 sandbox): the caller uses createPackedLaunch
    return c.env.Null();
  }
  std::unique_ptr<KernelParams> kp;
  try {
    kp = paramsOver(c, Napi::Value(c.env, buffer), info[2], info[3]);
    checkHeader(c, *kp, numFrom<uint32_t>(c, info[4], "parameter 'headerOffset'"));
  } catch (...) {
    releaseStorage(storage);  // the buffer's own finalizer releases the other share
    throw;
  }
  napi_delete_reference(c.env, kp->buffer);  // the bytes are the storage's, not the buffer's: no reference, no check per call
  kp->buffer = nullptr;
  kp->function = f;
  kp->header = numFrom<uint32_t>(c, info[4], "parameter 'headerOffset'");
  kp->storage = storage;
  napi_value fn;
  NAPI_THROW_IF_FAILED(c.env, napi_create_function(c.env, "launch", NAPI_AUTO_LENGTH, launchFunctionCall, kp.get(), &fn), Napi::Value());
  NAPI_THROW_IF_FAILED(c.env, napi_wrap(c.env, fn, kp.get(), finalizeParams, nullptr, nullptr), Napi::Value());
  kp.release();
  napi_type_tag_object(c.env, fn, &kLaunchFunctionTag);
  Napi::Function function(c.env, fn);
  function.DefineProperty(Napi::PropertyDescriptor::Value("buffer", Napi::Value(c.env, buffer), napi_enumerable));
  return function;
}

/** The KernelParams inside `v` if it is one of ours (a KernelParams or a packed launch), else nullptr. */
KernelParams* paramsIn(napi_env env, napi_value v, bool* packed) {
  napi_valuetype t;
  if (napi_typeof(env, v, &t) != napi_ok || t != napi_external) return nullptr;
  bool ours = false;
  napi_check_object_type_tag(env, v, &kPackedLaunchTag, &ours);
  *packed = ours;
  if (!ours) napi_check_object_type_tag(env, v, &kKernelParamsTag, &ours);
  if (!ours) return nullptr;
  void* data = nullptr;
  napi_get_value_external(env, v, &data);
  return static_cast<KernelParams*>(data);
}

/** Whether the buffer under the pointers is still the one they were made over (not detached, not shrunk). */
bool stillBacked(napi_env env, const KernelParams* kp) {
  napi_value buffer = nullptr;
  void* data = nullptr;
  size_t length = 0;
  return napi_get_reference_value(env, kp->buffer, &buffer) == napi_ok && buffer != nullptr &&
         napi_get_arraybuffer_info(env, buffer, &data, &length) == napi_ok && data == kp->bufferData && length >= kp->bufferLength;
}

[[noreturn]] void throwDetached(Call& c) {
  throw Napi::Error::New(
      c.env,
      std::string(c.fn) + ": the parameter buffer was detached or shrunk after the kernel parameters were made over it; make them again");
}

/** The parameter array of a KernelParams value (or a packed launch's), or nullptr for null; throws for anything else. */
void** paramsFrom(Call& c, napi_env env, napi_value v) {
  napi_valuetype t;
  napi_typeof(env, v, &t);
  if (t == napi_null || t == napi_undefined) return nullptr;
  bool packed = false;
  KernelParams* kp = paramsIn(env, v, &packed);
  if (kp == nullptr)
    c.typeError("parameter 'kernelParams'", "the result of createKernelParams or createPackedLaunch, or null", Napi::Value(env, v));
  if (!stillBacked(env, kp)) throwDetached(c);
  return kp->pointers.empty() ? nullptr : kp->pointers.data();
}

/** cuLaunchKernel as resolved once per process (per-thread default stream variant where the stack runs in that mode). */
decltype(&cuLaunchKernel) launchEntry(Call& c) {
  using F = decltype(&cuLaunchKernel);
  static std::atomic<F> slot{nullptr};
  return resolved(slot, [&] { return driverEntryPoint(c, "cuLaunchKernel", 4000, 7000); });
}

bool u32Arg(napi_env env, napi_value v, uint32_t* out) {
  double d;
  if (napi_get_value_double(env, v, &d) != napi_ok) return false;
  if (!(d >= 0 && d <= 4294967295.0) || static_cast<double>(static_cast<uint32_t>(d)) != d) return false;
  *out = static_cast<uint32_t>(d);
  return true;
}

bool u64Arg(napi_env env, napi_value v, uint64_t* out) {
  bool lossless = false;
  return napi_get_value_bigint_uint64(env, v, out, &lossless) == napi_ok && lossless;
}

napi_value launchKernelSlowError(napi_env env, size_t argc, napi_value* argv) {
  // Only reached with bad input: say exactly which argument is wrong.
  Call c(Napi::Env(env), "cuLaunchKernel");
  static const char* names[] = {"f",         "gridDimX",  "gridDimY",       "gridDimZ", "blockDimX",
                                "blockDimY", "blockDimZ", "sharedMemBytes", "hStream",  "kernelParams"};
  if (argc != 10) throw Napi::TypeError::New(env, "cuLaunchKernel: expected 10 arguments, got " + std::to_string(argc));
  for (int i = 0; i < 9; i++) {
    Napi::Value v(env, argv[i]);
    std::string what = std::string("parameter '") + names[i] + "'";
    if (i == 0 || i == 8)
      addressFrom(c, v, what);
    else
      numFrom<uint32_t>(c, v, what);
  }
  paramsFrom(c, env, argv[9]);
  throw Napi::Error::New(env, "cuLaunchKernel: invalid arguments");
}

napi_value launchKernel(napi_env env, napi_callback_info cbinfo) {
  size_t argc = 11;
  napi_value argv[11];
  napi_get_cb_info(env, cbinfo, &argc, argv, nullptr, nullptr);
  try {
    uint64_t f, stream;
    uint32_t dims[7];
    bool ok = argc == 10 && u64Arg(env, argv[0], &f) && u64Arg(env, argv[8], &stream);
    for (int i = 0; ok && i < 7; i++) ok = u32Arg(env, argv[i + 1], &dims[i]);
    if (!ok) return launchKernelSlowError(env, argc, argv);
    Call c(Napi::Env(env), "cuLaunchKernel");
    void** params = paramsFrom(c, env, argv[9]);
    CUresult r = launchEntry(c)(reinterpret_cast<CUfunction>(static_cast<uintptr_t>(f)), dims[0], dims[1], dims[2], dims[3], dims[4],
                                dims[5], dims[6], reinterpret_cast<CUstream>(static_cast<uintptr_t>(stream)), params, nullptr);
    if (r != CUDA_SUCCESS) checkCu(c, r);
  } catch (const Napi::Error& e) {
    e.ThrowAsJavaScriptException();
  }
  return nullptr;
}

/**
 * A packed launch: the function, dimensions and stream from the launch's own
 * header. Launches only when the current context is the header's; otherwise
 * launches nothing and returns the current context (0n for none), so that
 * the caller checks its arguments against that context and tries again.
 */
napi_value launchKernelPacked(napi_env env, napi_callback_info cbinfo) {
  size_t argc = 1;
  napi_value arg = nullptr;
  napi_get_cb_info(env, cbinfo, &argc, &arg, nullptr, nullptr);
  try {
    Call c(Napi::Env(env), "cuLaunchKernelPacked");
    bool packed = false;
    KernelParams* kp = argc == 1 ? paramsIn(env, arg, &packed) : nullptr;
    if (argc != 1) throw Napi::TypeError::New(env, "cuLaunchKernelPacked: expected 1 argument, got " + std::to_string(argc));
    if (kp == nullptr || !packed) c.typeError("parameter 'launch'", "the result of createPackedLaunch", Napi::Value(env, arg));
    if (!stillBacked(env, kp)) throwDetached(c);
    const uint8_t* h = kp->base + kp->header;
    uint32_t dims[7];
    uint64_t stream, context;
    std::memcpy(dims, h + kHeaderDims, sizeof dims);
    std::memcpy(&stream, h + kHeaderStream, sizeof stream);
    std::memcpy(&context, h + kHeaderContext, sizeof context);
    using GetCurrent = decltype(&cuCtxGetCurrent);
    static std::atomic<GetCurrent> getCurrentSlot{nullptr};
    Call query(Napi::Env(env), "cuCtxGetCurrent");
    GetCurrent getCurrent = resolved(getCurrentSlot, [&] { return driverEntryPoint(query, "cuCtxGetCurrent", 4000, 0); });
    CUcontext current = nullptr;
    CUresult r = getCurrent(&current);
    if (r != CUDA_SUCCESS) checkCu(query, r);
    const uint64_t currentValue = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(current));
    if (currentValue != context) {
      napi_value out;
      napi_create_bigint_uint64(env, currentValue, &out);
      return out;
    }
    Call launch(Napi::Env(env), "cuLaunchKernel");
    r = launchEntry(launch)(reinterpret_cast<CUfunction>(static_cast<uintptr_t>(kp->function)), dims[0], dims[1], dims[2], dims[3], dims[4],
                            dims[5], dims[6], reinterpret_cast<CUstream>(static_cast<uintptr_t>(stream)),
                            kp->pointers.empty() ? nullptr : kp->pointers.data(), nullptr);
    if (r != CUDA_SUCCESS) checkCu(launch, r);
  } catch (const Napi::Error& e) {
    e.ThrowAsJavaScriptException();
  }
  return nullptr;
}

/** The KernelParams of a function that createLaunchFunction made, else nullptr. */
KernelParams* launchFunctionParams(napi_env env, napi_value v) {
  bool ours = false;
  if (napi_check_object_type_tag(env, v, &kLaunchFunctionTag, &ours) != napi_ok || !ours) return nullptr;
  void* data = nullptr;
  if (napi_unwrap(env, v, &data) != napi_ok) return nullptr;
  return static_cast<KernelParams*>(data);
}

/** `e` with `launchIndex` set to the index of the queued launch that caused it. */
[[noreturn]] void rethrowAt(Napi::Env env, const Napi::Error& e, uint32_t index) {
  Napi::Object error = e.Value();
  error.Set("launchIndex", Napi::Number::New(env, index));
  throw Napi::Error(env, error);
}

/** The bytes of an ArrayBuffer or of a view of one, or a TypeError. */
uint8_t* bytesOf(Call& c, Napi::Value v, size_t* length) {
  if (v.IsArrayBuffer()) {
    auto b = v.As<Napi::ArrayBuffer>();
    *length = b.ByteLength();
    return static_cast<uint8_t*>(b.Data());
  }
  if (v.IsTypedArray()) {
    auto t = v.As<Napi::TypedArray>();
    *length = t.ByteLength();
    return static_cast<uint8_t*>(t.ArrayBuffer().Data()) + t.ByteOffset();
  }
  if (v.IsDataView()) {
    auto d = v.As<Napi::DataView>();
    *length = d.ByteLength();
    return static_cast<uint8_t*>(d.ArrayBuffer().Data()) + d.ByteOffset();
  }
  c.typeError("parameter 'queue'", "an ArrayBuffer (or a typed array over one)", v);
}

// A queued launch (its layout is LAUNCH_QUEUE_RECORD in src/driver.ts): the u32 index of its packed
// launch in `launches`, the u32 size of the record in bytes (a multiple of 8, these 8 bytes included),
// then a copy of the packed launch's buffer from its first parameter byte through its header.
constexpr size_t kRecordPrefix = 8;

/**
 * Launches the launches recorded in `queue` (its first `byteLength` bytes),
 * one after the other, in one native call: each record names its packed launch
 * (the function and the parameter layout) and carries its own copy of the
 * parameters and header. Every record is checked before it is launched; a
 * failure stops the loop there and throws with `launchIndex` set to the
 * record's index (the launches before it are enqueued). Returns how many were launched.
 */
napi_value launchKernelQueue(napi_env env, napi_callback_info cbinfo) {
  size_t argc = 3;
  napi_value argv[3] = {nullptr, nullptr, nullptr};
  napi_get_cb_info(env, cbinfo, &argc, argv, nullptr, nullptr);
  try {
    Call c(Napi::Env(env), "cuLaunchKernelQueue");
    if (argc != 3) throw Napi::TypeError::New(env, "cuLaunchKernelQueue: expected 3 arguments, got " + std::to_string(argc));
    size_t length = 0;
    const uint8_t* data = bytesOf(c, Napi::Value(env, argv[0]), &length);
    const uint32_t used = numFrom<uint32_t>(c, Napi::Value(env, argv[1]), "parameter 'byteLength'");
    if (used > length)
      c.rangeError("parameter 'byteLength'",
                   "= " + std::to_string(used) + " is past the end of the queue (" + std::to_string(length) + " bytes)");
    Napi::Value launchesValue(env, argv[2]);
    if (!launchesValue.IsArray()) c.typeError("parameter 'launches'", "an array of results of createPackedLaunch", launchesValue);
    auto launches = launchesValue.As<Napi::Array>();
    const uint32_t kinds = launches.Length();
    std::vector<KernelParams*> kps(kinds);
    std::vector<size_t> ends(kinds);  // per packed launch, the bytes a record's copy must hold: through its header and every parameter
    for (uint32_t i = 0; i < kinds; i++) {
      bool packed = false;
      Napi::Value v = launches.Get(i);
      kps[i] = v.IsFunction() ? launchFunctionParams(env, v) : paramsIn(env, v, &packed);
      if (kps[i] == nullptr || (!packed && !v.IsFunction()))
        c.typeError("parameter 'launches'[" + std::to_string(i) + "]", "the result of createLaunchFunction or createPackedLaunch", v);
      size_t end = kps[i]->header + kHeaderBytes;
      for (const auto& range : kps[i]->ranges) end = std::max(end, range.second);
      ends[i] = end;
    }
    // First every record's framing, so that a malformed queue launches nothing; then each launch.
    uint32_t count = 0;
    for (size_t at = 0; at < used; count++) {
      try {
        auto what = [count] { return "queued launch " + std::to_string(count); };  // built only for an error
        if (used - at < kRecordPrefix)
          c.rangeError(what(), "is cut off: " + std::to_string(used - at) + " bytes left at byte " + std::to_string(at));
        uint32_t which, bytes;
        std::memcpy(&which, data + at, 4);
        std::memcpy(&bytes, data + at + 4, 4);
        if (which >= kinds) c.rangeError(what(), "names packed launch " + std::to_string(which) + " of " + std::to_string(kinds));
        if (bytes % 8 != 0 || bytes < kRecordPrefix + ends[which] || bytes > used - at)
          c.rangeError(what(), "has a size of " + std::to_string(bytes) + " bytes, not a multiple of 8 holding its " +
                                   std::to_string(ends[which]) + " bytes of parameters and header within the queue");
        at += bytes;
      } catch (const Napi::Error& e) {
        rethrowAt(env, e, count);
      }
    }
    if (count == 0) {
      napi_value none;
      napi_create_uint32(env, 0, &none);
      return none;
    }
    using GetCurrent = decltype(&cuCtxGetCurrent);
    static std::atomic<GetCurrent> getCurrentSlot{nullptr};
    Call query(Napi::Env(env), "cuCtxGetCurrent");
    GetCurrent getCurrent = resolved(getCurrentSlot, [&] { return driverEntryPoint(query, "cuCtxGetCurrent", 4000, 0); });
    CUcontext current = nullptr;
    CUresult status = getCurrent(&current);
    if (status != CUDA_SUCCESS) checkCu(query, status);
    const uint64_t currentValue = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(current));
    Call launchCall(Napi::Env(env), "cuLaunchKernel");
    auto launch = launchEntry(launchCall);
    std::vector<void*> pointers;
    size_t at = 0;
    uint32_t index = 0;
    for (; index < count; index++) {
      uint32_t which, bytes;
      std::memcpy(&which, data + at, 4);
      std::memcpy(&bytes, data + at + 4, 4);
      const KernelParams* kp = kps[which];
      const uint8_t* body = data + at + kRecordPrefix;
      const uint8_t* h = body + kp->header;
      uint32_t dims[7];
      uint64_t stream, context;
      std::memcpy(dims, h + kHeaderDims, sizeof dims);
      std::memcpy(&stream, h + kHeaderStream, sizeof stream);
      std::memcpy(&context, h + kHeaderContext, sizeof context);
      try {
        if (context != currentValue)
          throw Napi::Error::New(env, "cuLaunchKernelQueue: queued launch " + std::to_string(index) + " expects CUDA context " +
                                          hexOf(context) + " to be current, but " +
                                          (currentValue ? hexOf(currentValue) + " is" : "none is") + "; nothing from it on was launched");
        pointers.resize(kp->ranges.size());
        for (size_t i = 0; i < pointers.size(); i++) pointers[i] = const_cast<uint8_t*>(body + kp->ranges[i].first);
        CUresult r = launch(reinterpret_cast<CUfunction>(static_cast<uintptr_t>(kp->function)), dims[0], dims[1], dims[2], dims[3], dims[4],
                            dims[5], dims[6], reinterpret_cast<CUstream>(static_cast<uintptr_t>(stream)),
                            pointers.empty() ? nullptr : pointers.data(), nullptr);
        if (r != CUDA_SUCCESS) checkCu(launchCall, r);
      } catch (const Napi::Error& e) {
        rethrowAt(env, e, index);
      }
      at += bytes;
    }
    napi_value out;
    napi_create_uint32(env, index, &out);
    return out;
  } catch (const Napi::Error& e) {
    e.ThrowAsJavaScriptException();
  }
  return nullptr;
}

/**
 * A call that does nothing, to measure what a call into the addon costs: with
 * a packed launch as its argument, it does what cuLaunchKernelPacked does
 * before it asks the driver anything (the type-tag check and the buffer's).
 */
napi_value launchCrossingProbe(napi_env env, napi_callback_info cbinfo) {
  size_t argc = 1;
  napi_value arg = nullptr;
  napi_get_cb_info(env, cbinfo, &argc, &arg, nullptr, nullptr);
  if (argc >= 1) {
    bool packed = false;
    KernelParams* kp = paramsIn(env, arg, &packed);
    if (kp != nullptr && !stillBacked(env, kp)) napi_throw_error(env, nullptr, "launchCrossingProbe: the buffer was detached");
  }
  return nullptr;
}

Napi::Value launchKernelEx(const Napi::CallbackInfo& info) {
  Call c(info, "cuLaunchKernelEx");
  c.argCount(3, 3);
  Napi::Value cfg = info[0];
  if (!cfg.IsObject()) c.typeError("parameter 'config'", "an object", cfg);
  Napi::Object o = cfg.As<Napi::Object>();
  CUlaunchConfig config{};
  static const char* dimNames[] = {"gridDimX", "gridDimY", "gridDimZ", "blockDimX", "blockDimY", "blockDimZ"};
  unsigned int* dims[] = {&config.gridDimX, &config.gridDimY, &config.gridDimZ, &config.blockDimX, &config.blockDimY, &config.blockDimZ};
  for (int i = 0; i < 6; i++)
    *dims[i] = has(o, dimNames[i]) ? numFrom<unsigned int>(c, o.Get(dimNames[i]), std::string("config.") + dimNames[i]) : 1;
  if (has(o, "sharedMemBytes")) config.sharedMemBytes = numFrom<unsigned int>(c, o.Get("sharedMemBytes"), "config.sharedMemBytes");
  if (has(o, "hStream"))
    config.hStream = reinterpret_cast<CUstream>(static_cast<uintptr_t>(addressFrom(c, o.Get("hStream"), "config.hStream")));
  if (has(o, "attrs")) {
    Napi::Value a = o.Get("attrs");
    if (!a.IsArray()) c.typeError("config.attrs", "an array of { id, value }", a);
    auto arr = a.As<Napi::Array>();
    CUlaunchAttribute* attrs = c.alloc<CUlaunchAttribute>(arr.Length());
    for (uint32_t i = 0; i < arr.Length(); i++) {
      std::string what = "config.attrs[" + std::to_string(i) + "]";
      Napi::Value e = arr.Get(i);
      if (!e.IsObject()) c.typeError(what, "an object { id, value }", e);
      Napi::Object eo = e.As<Napi::Object>();
      attrs[i].id = numFrom<CUlaunchAttributeID>(c, eo.Get("id"), what + ".id");
      Napi::Value v = eo.Get("value");
      if (v.IsNumber()) {
        // a plain number fills the union's first int (cooperative, priority, memSyncDomain, ...)
        attrs[i].value.cooperative = numFrom<int>(c, v, what + ".value");
      } else if (!v.IsUndefined()) {
        valueFrom(c, v, attrs[i].value, what, "value");
      }
    }
    config.attrs = attrs;
    config.numAttrs = arr.Length();
  }
  CUfunction f = inHandle<CUfunction>(c, 1, "f");
  void** params = paramsFrom(c, c.env, info[2]);
  using F = decltype(&cuLaunchKernelEx);
  static std::atomic<F> fpSlot{nullptr};
  F fp = resolved(fpSlot, [&] { return driverEntryPoint(c, "cuLaunchKernelEx", 11060, 11060); });
  checkCu(c, fp(&config, f, params, nullptr));
  return c.env.Undefined();
}

}  // namespace

void registerLaunch(Napi::Env env, Napi::Object driver) {
  driver.Set("createKernelParams", Napi::Function::New(env, createKernelParams, "createKernelParams"));
  napi_value fn;
  napi_create_function(env, "cuLaunchKernel", NAPI_AUTO_LENGTH, launchKernel, nullptr, &fn);
  driver.Set("cuLaunchKernel", Napi::Value(env, fn));
  driver.Set("cuLaunchKernelEx", Napi::Function::New(env, launchKernelEx, "cuLaunchKernelEx"));
  driver.Set("createPackedLaunch", Napi::Function::New(env, createPackedLaunch, "createPackedLaunch"));
  driver.Set("createLaunchFunction", Napi::Function::New(env, createLaunchFunction, "createLaunchFunction"));
  napi_create_function(env, "cuLaunchKernelPacked", NAPI_AUTO_LENGTH, launchKernelPacked, nullptr, &fn);
  driver.Set("cuLaunchKernelPacked", Napi::Value(env, fn));
  napi_create_function(env, "cuLaunchKernelQueue", NAPI_AUTO_LENGTH, launchKernelQueue, nullptr, &fn);
  driver.Set("cuLaunchKernelQueue", Napi::Value(env, fn));
  napi_create_function(env, "launchCrossingProbe", NAPI_AUTO_LENGTH, launchCrossingProbe, nullptr, &fn);
  driver.Set("launchCrossingProbe", Napi::Value(env, fn));
}

}  // namespace cjs
