// The optional native DLPack helper of @cuda-js/memory-view: DLPack tensors as
// C structs, and the DLPack C exchange API table. No CUDA: device memory is an
// address that this code only passes on.
//
// Ownership rules (docs/protocols.md, "Native exchange"):
// - An exported tensor travels in an External whose value is a slot, a
//   pointer to the tensor pointer (DLManagedTensorVersioned** or
//   DLManagedTensor**). A consumer takes the tensor by reading the slot and
//   storing NULL in it; a slot that still holds a tensor when its External is
//   collected, or when the process exits, has its deleter called then.
// - An imported tensor is held by a record whose deleter call happens exactly
//   once: on release() from JS, when its owners are collected, or at exit.

#include <napi.h>
#include <v8.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "dlpack.h"
#include "dlpack_node.h"

#ifndef _WIN32
#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>
#else
#include <windows.h>
#endif

namespace {

// ---- type tags: every External this helper returns carries one -------------------
//
// A slot, an import handle and the exchange API table are three kinds of
// External; each is tagged when made and checked when it comes back, so that an
// External of the wrong kind is an error, never a pointer read as another type.
const napi_type_tag kSlotVersionedTag = {0x6d656d76696577ull, 0x01d1ba0c5107e001ull};
const napi_type_tag kSlotLegacyTag = {0x6d656d76696577ull, 0x01d1ba0c5107e002ull};
const napi_type_tag kImportTag = {0x6d656d76696577ull, 0x01d1ba0c5107e003ull};
const napi_type_tag kApiTag = {0x6d656d76696577ull, 0x01d1ba0c5107e004ull};
// Put on an untagged External from another addon once it was taken as a slot:
// an External that some other addon tagged cannot take it, so it is refused.
const napi_type_tag kForeignSlotTag = {0x6d656d76696577ull, 0x01d1ba0c5107e005ull};

// Errors that src/native turns into named errors (ProtocolError) carry this prefix.
const char kErrorPrefix[] = "[memory-view native] ";

[[noreturn]] void Fail(Napi::Env env, const std::string& message) {
  throw Napi::TypeError::New(env, kErrorPrefix + message);
}

bool HasTag(napi_env env, napi_value v, const napi_type_tag& tag) {
  bool result = false;
  return napi_check_object_type_tag(env, v, &tag, &result) == napi_ok && result;
}

void Tag(napi_env env, napi_value v, const napi_type_tag& tag) {
  if (napi_type_tag_object(env, v, &tag) != napi_ok)
    throw Napi::Error::New(env, std::string(kErrorPrefix) + "internal: cannot type-tag an External");
}

// What kind of our Externals `v` is, for messages; nullptr when it is none of ours.
const char* OurKind(napi_env env, napi_value v) {
  if (HasTag(env, v, kSlotVersionedTag)) return "a DLManagedTensorVersioned slot";
  if (HasTag(env, v, kSlotLegacyTag)) return "a legacy DLManagedTensor slot";
  if (HasTag(env, v, kImportTag)) return "an imported tensor's handle";
  if (HasTag(env, v, kApiTag)) return "memory-view's exchange API table";
  return nullptr;
}

// Whether `p` lies in the image of a loaded shared object (code or static data):
// a DLPack exchange API table and its functions live there for the process's life.
bool InLoadedImage(const void* p) {
  if (p == nullptr) return false;
#ifndef _WIN32
  Dl_info info{};
  return dladdr(p, &info) != 0 && info.dli_fbase != nullptr;
#else
  return true;
#endif
}

struct EnvState;

// Every live env, so that a deleter that comes late (another thread, after
// exit) can tell whether its env may still be used.
std::mutex g_mutex;
std::unordered_set<EnvState*> g_live_envs;
thread_local EnvState* t_state = nullptr;  // the env of this JS thread
// CUDA_JS_MEMORY_VIEW_TRACE=1 prints each deleter call to stderr (tests of the exit path read it).
const bool g_trace = std::getenv("CUDA_JS_MEMORY_VIEW_TRACE") != nullptr;

struct ExportCtx;
struct Slot;
struct ImportRec;

struct EnvState {
  napi_env env = nullptr;
  std::thread::id thread;
  napi_threadsafe_function tsfn = nullptr;  // brings off-thread deleters back to the JS thread
  Napi::FunctionReference describe;         // JS: object -> export description
  Napi::FunctionReference make_view;        // JS: import fields -> StridedMemoryView
  std::unordered_set<Slot*> slots;
  std::unordered_set<ImportRec*> imports;
  long live_exports = 0;
};

bool EnvAlive(EnvState* s) {
  std::lock_guard<std::mutex> lock(g_mutex);
  return s != nullptr && g_live_envs.count(s) != 0;
}

// ---- exports: tensors that describe JS memory -----------------------------------

struct ExportCtx {
  EnvState* state = nullptr;
  napi_ref keep = nullptr;  // the view: keeps the memory alive until the deleter
  // The ArrayBuffer's memory itself: alive even after the buffer is transferred or detached.
  std::shared_ptr<v8::BackingStore> backing;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  DLManagedTensorVersioned versioned{};
  DLManagedTensor legacy{};
};

void FreeExportOnJsThread(napi_env env, ExportCtx* ctx) {
  if (ctx->keep != nullptr) napi_delete_reference(env, ctx->keep);
  delete ctx;
}

void ReleaseExport(ExportCtx* ctx) {
  if (g_trace) std::fprintf(stderr, "memory-view: export deleted\n");
  std::unique_lock<std::mutex> lock(g_mutex);
  EnvState* s = ctx->state;
  if (s == nullptr || g_live_envs.count(s) == 0) {
    // The env is gone, and its references with it.
    lock.unlock();
    delete ctx;
    return;
  }
  s->live_exports--;
  if (std::this_thread::get_id() == s->thread) {
    napi_env env = s->env;
    lock.unlock();
    FreeExportOnJsThread(env, ctx);
  } else {
    napi_call_threadsafe_function(s->tsfn, ctx, napi_tsfn_nonblocking);
  }
}

void ExportDeleterVersioned(DLManagedTensorVersioned* self) {
  ReleaseExport(static_cast<ExportCtx*>(self->manager_ctx));
}

void ExportDeleterLegacy(DLManagedTensor* self) {
  ReleaseExport(static_cast<ExportCtx*>(self->manager_ctx));
}

constexpr double kMaxSafe = 9007199254740991.0;  // 2^53 - 1
constexpr uint32_t kMaxNdim = 64;

// An integer in [lo, hi] (both within +-2^53), checked before any cast (casting NaN or 1e300 is undefined).
int64_t ToInt64(const Napi::Value& v, const char* what, double lo = -kMaxSafe, double hi = kMaxSafe) {
  if (!v.IsNumber()) Fail(v.Env(), std::string(what) + " must be a number");
  double d = v.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(d) || d != std::floor(d) || d < lo || d > hi) Fail(v.Env(), std::string(what) + " must be an integer in range");
  return static_cast<int64_t>(d);
}

std::vector<int64_t> ToInt64Vector(const Napi::Value& v, const char* what, double lo) {
  if (!v.IsArray()) Fail(v.Env(), std::string(what) + " must be an array");
  Napi::Array a = v.As<Napi::Array>();
  uint32_t n = a.Length();
  if (n > kMaxNdim) Fail(v.Env(), std::string(what) + " has more than 64 entries");
  std::vector<int64_t> out(n);
  for (uint32_t i = 0; i < n; i++) out[i] = ToInt64(a.Get(i), what, lo);
  return out;
}

// The byte range [first, end) relative to element 0 that a layout touches
// ({0, 0} when it has no element); false when it overflows int64.
bool ByteExtent(const int64_t* shape, const int64_t* strides, int32_t ndim, uint64_t bits_per_element, int64_t* first, int64_t* end) {
  __int128 lo = 0, hi = 0;
  for (int32_t i = 0; i < ndim; i++) {
    if (shape[i] < 0) return false;
    if (shape[i] == 0) {
      *first = 0;
      *end = 0;
      return true;
    }
  }
  if (strides == nullptr) {
    __int128 count = 1;
    for (int32_t i = 0; i < ndim; i++) {
      count *= shape[i];
      if (count > (static_cast<__int128>(1) << 62)) return false;
    }
    hi = count - 1;
  } else {
    for (int32_t i = 0; i < ndim; i++) {
      __int128 reach = static_cast<__int128>(shape[i] - 1) * strides[i];
      if (reach < 0)
        lo += reach;
      else
        hi += reach;
      if (lo < -(static_cast<__int128>(1) << 62) || hi > (static_cast<__int128>(1) << 62)) return false;
    }
  }
  __int128 b = static_cast<__int128>(bits_per_element);
  __int128 f = lo * b;        // bits, <= 0
  __int128 e = (hi + 1) * b;  // bits, > 0
  f = -((-f + 7) / 8);        // floor to bytes
  e = (e + 7) / 8;            // ceil to bytes
  if (f < INT64_MIN / 2 || e > INT64_MAX / 2) return false;
  *first = static_cast<int64_t>(f);
  *end = static_cast<int64_t>(e);
  return true;
}

// The BackingStore of a typed array's buffer, shared with it: the memory stays
// allocated while it is held, even after the buffer is transferred or detached.
// (napi_value is a v8::Local<v8::Value> in Node.js, as its own N-API code converts it.)
std::shared_ptr<v8::BackingStore> BackingOf(napi_value typed_array) {
  v8::Local<v8::Value> local;
  static_assert(sizeof(local) == sizeof(typed_array), "napi_value is a v8::Local");
  std::memcpy(static_cast<void*>(&local), &typed_array, sizeof(typed_array));
  if (local.IsEmpty() || !local->IsArrayBufferView()) return nullptr;
  return local.As<v8::ArrayBufferView>()->Buffer()->GetBackingStore();
}

// An export description, built by JS (src/native/describe.ts):
// [keep, bytes: Uint8Array | null, ptr: bigint | null, byteOffset, deviceType,
//  deviceId, code, bits, lanes, flags, shape[], strides[]]
struct Description {
  Napi::Value keep;
  std::shared_ptr<v8::BackingStore> backing;
  void* data = nullptr;
  uint64_t byte_offset = 0;
  DLDevice device{};
  DLDataType dtype{};
  uint64_t flags = 0;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

Description ReadDescription(Napi::Env env, Napi::Value value) {
  if (!value.IsArray() || value.As<Napi::Array>().Length() != 12) throw Napi::TypeError::New(env, "internal: malformed export description");
  Napi::Array a = value.As<Napi::Array>();
  Description d;
  d.keep = a.Get(0u);
  Napi::Value bytes = a.Get(1u);
  Napi::Value ptr = a.Get(2u);
  bool host = false;
  size_t host_length = 0;
  uint64_t address = 0;
  if (bytes.IsTypedArray()) {
    Napi::TypedArray ta = bytes.As<Napi::TypedArray>();
    if (ta.TypedArrayType() != napi_uint8_array) Fail(env, "internal: an export description's bytes must be a Uint8Array");
    Napi::Uint8Array u8 = bytes.As<Napi::Uint8Array>();
    if (u8.ByteOffset() != 0) Fail(env, "internal: an export description's bytes must start at its buffer");
    d.data = u8.Data();  // start of the buffer; the view's offset goes in byte_offset
    host_length = u8.ByteLength();
    host = true;
    d.backing = BackingOf(bytes);
    if (d.backing == nullptr) Fail(env, "internal: cannot hold the buffer's memory");
  } else if (ptr.IsBigInt()) {
    bool lossless = false;
    address = ptr.As<Napi::BigInt>().Uint64Value(&lossless);
    if (!lossless) Fail(env, "an address must be a bigint in [0, 2^64)");
    d.data = reinterpret_cast<void*>(static_cast<uintptr_t>(address));
  } else {
    Fail(env, "internal: an export description needs a buffer or an address");
  }
  d.byte_offset = static_cast<uint64_t>(ToInt64(a.Get(3u), "byteOffset", 0));
  d.device.device_type = static_cast<DLDeviceType>(ToInt64(a.Get(4u), "device type", 1, 2147483647.0));
  d.device.device_id = static_cast<int32_t>(ToInt64(a.Get(5u), "device id", 0, 2147483647.0));
  d.dtype.code = static_cast<uint8_t>(ToInt64(a.Get(6u), "dtype code", 0, 255));
  d.dtype.bits = static_cast<uint8_t>(ToInt64(a.Get(7u), "dtype bits", 1, 255));
  d.dtype.lanes = static_cast<uint16_t>(ToInt64(a.Get(8u), "dtype lanes", 1, 65535));
  d.flags = static_cast<uint64_t>(ToInt64(a.Get(9u), "flags", 0, 7));
  d.shape = ToInt64Vector(a.Get(10u), "shape", 0);
  d.strides = ToInt64Vector(a.Get(11u), "strides", -kMaxSafe);
  if (d.shape.size() != d.strides.size()) Fail(env, "internal: shape and strides differ in length");
  // The native side re-checks what JS checked: every element inside its memory.
  uint64_t bits = static_cast<uint64_t>(d.dtype.bits) * d.dtype.lanes;
  if ((d.flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED) != 0) bits = (bits + 7) / 8 * 8;
  int64_t first = 0, end = 0;
  if (!ByteExtent(d.shape.data(), d.strides.data(), static_cast<int32_t>(d.shape.size()), bits, &first, &end)) {
    Fail(env, "the view's layout overflows 64 bits");
  }
  if (host) {
    __int128 lo = static_cast<__int128>(d.byte_offset) + first;
    __int128 hi = static_cast<__int128>(d.byte_offset) + end;
    bool empty = first == 0 && end == 0;
    if (lo < 0 || hi > static_cast<__int128>(host_length) || (empty && d.byte_offset > host_length)) {
      Fail(env, "the view reaches outside its buffer (bytes " + std::to_string(static_cast<long long>(lo)) + " to " +
                    std::to_string(static_cast<long long>(hi)) + " of " + std::to_string(host_length) + ")");
    }
  } else {
    __int128 lo = static_cast<__int128>(address) + d.byte_offset + first;
    __int128 hi = static_cast<__int128>(address) + d.byte_offset + end;
    if (lo < 0 || hi > (static_cast<__int128>(1) << 64)) Fail(env, "the view reaches outside [0, 2^64)");
  }
  return d;
}

ExportCtx* MakeExport(Napi::Env env, EnvState* s, Description&& d) {
  auto* ctx = new ExportCtx();
  ctx->state = s;
  napi_status st = napi_create_reference(env, d.keep, 1, &ctx->keep);
  if (st != napi_ok) {
    delete ctx;
    throw Napi::Error::New(env, "internal: cannot reference the exported view");
  }
  ctx->backing = std::move(d.backing);
  ctx->shape = std::move(d.shape);
  ctx->strides = std::move(d.strides);
  DLTensor t{};
  t.data = d.data;
  t.device = d.device;
  t.ndim = static_cast<int32_t>(ctx->shape.size());
  t.dtype = d.dtype;
  t.shape = ctx->shape.empty() ? nullptr : ctx->shape.data();
  t.strides = ctx->strides.empty() ? nullptr : ctx->strides.data();
  t.byte_offset = d.byte_offset;
  ctx->versioned.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  ctx->versioned.manager_ctx = ctx;
  ctx->versioned.deleter = ExportDeleterVersioned;
  ctx->versioned.flags = d.flags;
  ctx->versioned.dl_tensor = t;
  ctx->legacy.dl_tensor = t;
  ctx->legacy.manager_ctx = ctx;
  ctx->legacy.deleter = ExportDeleterLegacy;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    s->live_exports++;
  }
  return ctx;
}

// ---- slots: a tensor in an External, until a consumer takes it -----------------

struct Slot {
  void* tensor;  // first member: the External's value doubles as a DLManagedTensorVersioned**
  bool legacy;
  EnvState* state;
};

void CallTensorDeleter(void* tensor, bool legacy) {
  if (tensor == nullptr) return;
  if (legacy) {
    auto* t = static_cast<DLManagedTensor*>(tensor);
    if (t->deleter != nullptr) t->deleter(t);
  } else {
    auto* t = static_cast<DLManagedTensorVersioned*>(tensor);
    if (t->deleter != nullptr) t->deleter(t);
  }
}

void FinalizeSlot(napi_env, void* data, void*) {
  auto* slot = static_cast<Slot*>(data);
  void* tensor = slot->tensor;
  slot->tensor = nullptr;
  if (EnvAlive(slot->state)) slot->state->slots.erase(slot);
  CallTensorDeleter(tensor, slot->legacy);  // dropped before use
  delete slot;
}

Napi::Value MakeSlot(Napi::Env env, EnvState* s, void* tensor, bool legacy) {
  auto* slot = new Slot{tensor, legacy, s};
  s->slots.insert(slot);
  Napi::External<Slot> out = Napi::External<Slot>::New(env, slot, [](Napi::Env e, Slot* p) { FinalizeSlot(e, p, nullptr); });
  Tag(env, out, legacy ? kSlotLegacyTag : kSlotVersionedTag);
  return out;
}

// ---- imports: tensors from elsewhere, seen from JS --------------------------------

// Whether every page of [p, p + length) is mapped readable in this process: a
// producer's host tensor becomes an ArrayBuffer only then, so a made-up address
// is refused with a named error instead of crashing the process on first read.
bool HostRangeReadable(const char* p, size_t length) {
  if (length == 0) return true;
  uintptr_t start = reinterpret_cast<uintptr_t>(p);
  if (start + length < start) return false;
#ifdef _WIN32
  uintptr_t at = start;
  while (at < start + length) {
    MEMORY_BASIC_INFORMATION info{};
    if (VirtualQuery(reinterpret_cast<void*>(at), &info, sizeof(info)) == 0 || info.State != MEM_COMMIT) return false;
    DWORD protect = info.Protect & 0xff;
    if ((info.Protect & PAGE_GUARD) != 0 || protect == PAGE_NOACCESS || protect == PAGE_EXECUTE) return false;
    at = reinterpret_cast<uintptr_t>(info.BaseAddress) + info.RegionSize;
  }
  return true;
#else
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t first = start & ~(page - 1);
  const uintptr_t last = (start + length - 1) & ~(page - 1);
#ifdef __linux__
  // One byte of each page, read through the kernel: EFAULT for unmapped or unreadable pages.
  constexpr size_t kBatch = 512;
  char sink[kBatch];
  iovec local{sink, kBatch};
  iovec remote[kBatch];
  bool supported = true;
  for (uintptr_t at = first; at <= last && supported;) {
    size_t n = 0;
    for (; n < kBatch && at <= last; n++, at += page) {
      uintptr_t byte = at < start ? start : at;
      remote[n] = iovec{reinterpret_cast<void*>(byte), 1};
    }
    local.iov_len = n;
    ssize_t got = process_vm_readv(getpid(), &local, 1, remote, n, 0);
    if (got == static_cast<ssize_t>(n)) continue;
    if (got < 0 && (errno == ENOSYS || errno == EPERM)) {
      supported = false;  // a sandbox without the call: mincore below checks the mapping
      break;
    }
    return false;
  }
  if (supported) return true;
#endif
  // Mapped pages (mincore fails with ENOMEM where one is not).
  std::vector<unsigned char> residency(static_cast<size_t>((last - first) / page + 1));
  return mincore(reinterpret_cast<void*>(first), static_cast<size_t>(last - first + page),
#ifdef __APPLE__
                 reinterpret_cast<char*>(residency.data())) == 0;
#else
                 residency.data()) == 0;
#endif
#endif
}

// Whether `tensor` is one of our own exports of an address (not of a JS buffer):
// host memory that JS never owned, so importing it back must not lend it as a buffer.
bool IsOwnAddressExport(void* tensor, bool legacy) {
  ExportCtx* ctx = nullptr;
  if (legacy) {
    auto* t = static_cast<DLManagedTensor*>(tensor);
    if (t->deleter == ExportDeleterLegacy) ctx = static_cast<ExportCtx*>(t->manager_ctx);
  } else {
    auto* t = static_cast<DLManagedTensorVersioned*>(tensor);
    if (t->deleter == ExportDeleterVersioned) ctx = static_cast<ExportCtx*>(t->manager_ctx);
  }
  return ctx != nullptr && ctx->backing == nullptr;
}

struct ImportRec {
  void* tensor;
  bool legacy;
  bool released = false;
  bool buffer_owned = false;  // host memory lent to JS as an ArrayBuffer: the buffer decides
  int owners = 0;
  napi_ref buffer_weak = nullptr;
  EnvState* state;
};

void ReleaseImport(napi_env env, ImportRec* r) {
  if (r->released) return;
  r->released = true;
  if (g_trace) std::fprintf(stderr, "memory-view: import released\n");
  if (env != nullptr && r->buffer_weak != nullptr) {
    // Freed memory must not stay reachable from JS: detach the buffer if it still lives.
    napi_value ab = nullptr;
    if (napi_get_reference_value(env, r->buffer_weak, &ab) == napi_ok && ab != nullptr) napi_detach_arraybuffer(env, ab);
  }
  if (EnvAlive(r->state)) r->state->imports.erase(r);
  void* tensor = r->tensor;
  r->tensor = nullptr;
  CallTensorDeleter(tensor, r->legacy);
}

void DropImportOwner(napi_env env, ImportRec* r) {
  if (--r->owners > 0) return;
  if (env != nullptr && r->buffer_weak != nullptr && EnvAlive(r->state)) napi_delete_reference(env, r->buffer_weak);
  delete r;
}

Napi::Object DescribeImport(Napi::Env env, EnvState* s, void* tensor, bool legacy) {
  const DLTensor* t;
  uint64_t flags = 0;
  uint32_t major = 1, minor = 0;
  if (legacy) {
    t = &static_cast<DLManagedTensor*>(tensor)->dl_tensor;
  } else {
    auto* v = static_cast<DLManagedTensorVersioned*>(tensor);
    major = v->version.major;
    minor = v->version.minor;
    if (major != DLPACK_MAJOR_VERSION) {
      // Nothing past `flags` may be read; only the deleter may be called.
      CallTensorDeleter(tensor, false);
      Napi::Object mismatch = Napi::Object::New(env);
      Napi::Array version = Napi::Array::New(env, 2);
      version.Set(0u, Napi::Number::New(env, major));
      version.Set(1u, Napi::Number::New(env, minor));
      mismatch.Set("versionMismatch", version);
      return mismatch;
    }
    flags = v->flags;
    t = &v->dl_tensor;
  }
  auto* rec = new ImportRec{tensor, legacy};
  rec->state = s;
  s->imports.insert(rec);
  rec->owners = 1;
  Napi::External<ImportRec> handle = Napi::External<ImportRec>::New(env, rec, [](Napi::Env e, ImportRec* r) {
    if (!r->buffer_owned) ReleaseImport(e, r);
    DropImportOwner(e, r);
  });
  Tag(env, handle, kImportTag);

  Napi::Object fields = Napi::Object::New(env);
  fields.Set("handle", handle);
  fields.Set("legacy", Napi::Boolean::New(env, legacy));
  Napi::Object version = Napi::Object::New(env);
  version.Set("major", Napi::Number::New(env, major));
  version.Set("minor", Napi::Number::New(env, minor));
  fields.Set("version", version);
  fields.Set("flags", Napi::Number::New(env, static_cast<double>(flags)));
  Napi::Object device = Napi::Object::New(env);
  device.Set("type", Napi::Number::New(env, t->device.device_type));
  device.Set("id", Napi::Number::New(env, t->device.device_id));
  fields.Set("device", device);
  Napi::Object dtype = Napi::Object::New(env);
  dtype.Set("code", Napi::Number::New(env, t->dtype.code));
  dtype.Set("bits", Napi::Number::New(env, t->dtype.bits));
  dtype.Set("lanes", Napi::Number::New(env, t->dtype.lanes));
  fields.Set("dtype", dtype);
  int32_t ndim = t->ndim;
  if (ndim < 0 || ndim > static_cast<int32_t>(kMaxNdim) || (ndim > 0 && t->shape == nullptr)) {
    fields.Set("invalid", Napi::String::New(env, "the tensor has a negative ndim, more than 64 dimensions, or no shape"));
    return fields;
  }
  for (int32_t i = 0; i < ndim; i++) {
    bool bad =
        t->shape[i] < 0 || t->shape[i] > static_cast<int64_t>(kMaxSafe) ||
        (t->strides != nullptr && (t->strides[i] > static_cast<int64_t>(kMaxSafe) || t->strides[i] < -static_cast<int64_t>(kMaxSafe)));
    if (bad) {
      fields.Set("invalid", Napi::String::New(env, "the tensor has a negative extent, or an extent or stride past 2^53"));
      return fields;
    }
  }
  if (t->dtype.bits == 0 || t->dtype.lanes == 0) {
    fields.Set("invalid", Napi::String::New(env, "the tensor's dtype has 0 bits or 0 lanes"));
    return fields;
  }
  Napi::Array shape = Napi::Array::New(env, ndim);
  for (int32_t i = 0; i < ndim; i++) shape.Set(static_cast<uint32_t>(i), Napi::Number::New(env, static_cast<double>(t->shape[i])));
  fields.Set("shape", shape);
  if (t->strides == nullptr) {
    fields.Set("strides", env.Null());  // compact row-major, as producers before 1.2 may say
  } else {
    Napi::Array strides = Napi::Array::New(env, ndim);
    for (int32_t i = 0; i < ndim; i++) strides.Set(static_cast<uint32_t>(i), Napi::Number::New(env, static_cast<double>(t->strides[i])));
    fields.Set("strides", strides);
  }

  // Host memory becomes an ArrayBuffer over the producer's memory (zero-copy);
  // every other device keeps a bigint address.
  bool lent = false;
  if (t->device.device_type == kDLCPU && t->data != nullptr) {
    uint64_t bits = static_cast<uint64_t>(t->dtype.bits) * t->dtype.lanes;
    if ((flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED) != 0) bits = ((bits + 7) / 8) * 8;
    int64_t first = 0, end = 0;
    bool ok = ByteExtent(t->shape, t->strides, ndim, bits, &first, &end);
    if (!ok) {
      fields.Set("invalid", Napi::String::New(env, "the tensor's layout overflows 64 bits"));
      return fields;
    }
    // Sub-byte packed layouts and empty tensors keep the address form.
    bool empty = first == 0 && end == 0;
    if (!empty && bits % 8 == 0 && t->byte_offset <= static_cast<uint64_t>(INT64_MAX / 2) && !IsOwnAddressExport(tensor, legacy)) {
      char* first_byte = static_cast<char*>(t->data) + t->byte_offset + first;
      size_t length = static_cast<size_t>(end - first);
      if (!HostRangeReadable(first_byte, length)) {
        char where[32];
        std::snprintf(where, sizeof(where), "0x%llx", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(first_byte)));
        fields.Set("unreadableHost", Napi::String::New(env, std::string("the tensor says host memory, but its ") + std::to_string(length) +
                                                                " bytes at " + where + " are not mapped readable in this process"));
        return fields;
      }
      napi_value ab = nullptr;
      rec->owners++;
      napi_status st = napi_create_external_arraybuffer(
          env, first_byte, length,
          [](napi_env e, void*, void* hint) {
            auto* r = static_cast<ImportRec*>(hint);
            ReleaseImport(e, r);
            DropImportOwner(e, r);
          },
          rec, &ab);
      if (st == napi_ok) {
        rec->buffer_owned = true;
        napi_create_reference(env, ab, 0, &rec->buffer_weak);
        fields.Set("data", Napi::Value(env, ab));
        fields.Set("byteOffset", Napi::Number::New(env, static_cast<double>(-first)));
        lent = true;
      } else {
        // Runtimes that forbid external buffers: fall back to the address.
        rec->owners--;
        bool pending = false;
        napi_is_exception_pending(env, &pending);
        if (pending) {
          napi_value ignored;
          napi_get_and_clear_last_exception(env, &ignored);
        }
      }
    }
  }
  if (!lent) {
    fields.Set("data", Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(t->data))));
    fields.Set("byteOffset", Napi::Number::New(env, static_cast<double>(t->byte_offset)));
  }
  return fields;
}

// ---- the exchange API table that memory-view offers --------------------------

EnvState* CurrentState() {
  return t_state;
}

// Moves a JS exception pending on our env to the caller's env, where the
// caller will see it (each addon has its own env; see dlpack_node.h).
void MoveExceptionTo(napi_env ours, napi_env caller) {
  bool pending = false;
  napi_is_exception_pending(ours, &pending);
  if (!pending) return;
  napi_value error = nullptr;
  napi_get_and_clear_last_exception(ours, &error);
  if (caller != nullptr) napi_throw(caller, error);
}

void ThrowOn(napi_env caller, napi_env ours, const Napi::Error& e) {
  napi_value error = e.Value();
  bool pending = false;
  napi_is_exception_pending(ours, &pending);
  if (pending) napi_get_and_clear_last_exception(ours, &error);
  if (caller != nullptr) napi_throw(caller, error);
}

void ThrowMessageOn(napi_env caller, const char* message) {
  if (caller != nullptr) napi_throw_error(caller, nullptr, message);
}

// Runs a JS callback of the state; nullptr when it threw (the error is left pending on our env).
napi_value CallJs(EnvState* s, Napi::FunctionReference& fn, size_t argc, const napi_value* argv) {
  napi_value result = nullptr;
  napi_value global = nullptr;
  napi_get_global(s->env, &global);
  napi_status st = napi_call_function(s->env, global, fn.Value(), argc, argv, &result);
  return st == napi_ok ? result : nullptr;
}

// describe(obj, owning): an owning description retains the view until the deleter.
napi_value Describe(EnvState* s, napi_value obj, bool owning) {
  napi_value argv[2] = {obj, nullptr};
  napi_get_boolean(s->env, owning, &argv[1]);
  return CallJs(s, s->describe, 2, argv);
}

int ApiAllocator(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
                 void (*SetError)(void* error_ctx, const char* kind, const char* message)) {
  if (prototype == nullptr || out == nullptr) {
    if (SetError) SetError(error_ctx, "ValueError", "memory-view allocator: prototype and out must not be NULL");
    return -1;
  }
  if (prototype->device.device_type != kDLCPU) {
    if (SetError) SetError(error_ctx, "UnsupportedDeviceError", "memory-view allocates host (kDLCPU) memory only; it has no CUDA driver");
    return -1;
  }
  uint64_t bits = static_cast<uint64_t>(prototype->dtype.bits) * prototype->dtype.lanes;
  if (prototype->ndim < 0 || prototype->ndim > static_cast<int32_t>(kMaxNdim) || (prototype->ndim > 0 && prototype->shape == nullptr)) {
    if (SetError) SetError(error_ctx, "ValueError", "memory-view allocator: ndim must be 0 to 64, with a shape");
    return -1;
  }
  uint64_t count = 1;
  for (int32_t i = 0; i < prototype->ndim; i++) {
    if (prototype->shape[i] < 0) {
      if (SetError) SetError(error_ctx, "ValueError", "memory-view allocator: negative extent");
      return -1;
    }
    // At most 2^48 bytes: the product is checked before it can wrap.
    unsigned __int128 next = static_cast<unsigned __int128>(count) * static_cast<uint64_t>(prototype->shape[i]);
    if (next * (bits == 0 ? 1 : bits) > (static_cast<unsigned __int128>(1) << 51)) {
      if (SetError) SetError(error_ctx, "MemoryError", "memory-view allocator: the tensor is too large");
      return -1;
    }
    count = static_cast<uint64_t>(next);
  }
  size_t bytes = static_cast<size_t>((count * bits + 7) / 8);
  size_t rounded = std::max<size_t>(256, (bytes + 255) / 256 * 256);
  void* mem = std::aligned_alloc(256, rounded);
  if (mem == nullptr) {
    if (SetError) SetError(error_ctx, "MemoryError", "memory-view allocator: out of host memory");
    return -1;
  }
  std::memset(mem, 0, rounded);
  struct Owned {
    std::vector<int64_t> shape, strides;
    void* mem;
    DLManagedTensorVersioned t;
  };
  auto* o = new Owned{};
  o->mem = mem;
  o->shape.assign(prototype->shape, prototype->shape + prototype->ndim);
  o->strides.resize(prototype->ndim);
  int64_t step = 1;
  for (int32_t i = prototype->ndim - 1; i >= 0; i--) {
    o->strides[i] = step;
    step *= o->shape[i];
  }
  o->t.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  o->t.manager_ctx = o;
  o->t.deleter = [](DLManagedTensorVersioned* self) {
    auto* owned = static_cast<Owned*>(self->manager_ctx);
    std::free(owned->mem);
    delete owned;
  };
  o->t.flags = 0;
  o->t.dl_tensor.data = mem;
  o->t.dl_tensor.device = prototype->device;
  o->t.dl_tensor.ndim = prototype->ndim;
  o->t.dl_tensor.dtype = prototype->dtype;
  o->t.dl_tensor.shape = o->shape.empty() ? nullptr : o->shape.data();
  o->t.dl_tensor.strides = o->strides.empty() ? nullptr : o->strides.data();
  o->t.dl_tensor.byte_offset = 0;
  *out = &o->t;
  return 0;
}

int ApiFromObject(void* py_object, DLManagedTensorVersioned** out) {
  auto* obj = static_cast<DLPackNodeObject*>(py_object);
  EnvState* s = CurrentState();
  napi_env caller = obj == nullptr ? nullptr : obj->env;
  if (s == nullptr || obj == nullptr || out == nullptr) {
    ThrowMessageOn(caller, "memory-view exchange API: no object, no output, or called off the JS thread");
    return -1;
  }
  Napi::Env env(s->env);
  Napi::HandleScope scope(env);
  try {
    napi_value desc = Describe(s, obj->value, true);
    if (desc == nullptr) {
      MoveExceptionTo(s->env, caller);
      return -1;
    }
    ExportCtx* ctx = MakeExport(env, s, ReadDescription(env, Napi::Value(env, desc)));
    *out = &ctx->versioned;
    return 0;
  } catch (const Napi::Error& e) {
    ThrowOn(caller, s->env, e);
    return -1;
  } catch (...) {
    ThrowMessageOn(caller, "memory-view: unexpected failure while exporting a tensor");
    return -1;
  }
}

// Shape and strides that live as long as the view they describe.
struct BorrowedLayout {
  std::vector<int64_t> shape, strides;
};

int ApiDLTensorFromObject(void* py_object, DLTensor* out) {
  auto* obj = static_cast<DLPackNodeObject*>(py_object);
  EnvState* s = CurrentState();
  napi_env caller = obj == nullptr ? nullptr : obj->env;
  if (s == nullptr || obj == nullptr || out == nullptr) {
    ThrowMessageOn(caller, "memory-view exchange API: no object, no output, or called off the JS thread");
    return -1;
  }
  Napi::Env env(s->env);
  try {
    napi_value desc = Describe(s, obj->value, false);
    if (desc == nullptr) {
      MoveExceptionTo(s->env, caller);
      return -1;
    }
    Description d = ReadDescription(env, Napi::Value(env, desc));
    // The view (d.keep) outlives this call in the caller's handle scope; hang the arrays on it.
    BorrowedLayout* layout = nullptr;
    void* existing = nullptr;
    if (napi_unwrap(env, d.keep, &existing) == napi_ok && existing != nullptr) {
      layout = static_cast<BorrowedLayout*>(existing);
    } else {
      layout = new BorrowedLayout{d.shape, d.strides};
      napi_status st = napi_wrap(
          env, d.keep, layout, [](napi_env, void* p, void*) { delete static_cast<BorrowedLayout*>(p); }, nullptr, nullptr);
      if (st != napi_ok) {
        delete layout;
        throw Napi::Error::New(env, "memory-view: cannot attach the layout to the view");
      }
    }
    out->data = d.data;
    out->device = d.device;
    out->ndim = static_cast<int32_t>(layout->shape.size());
    out->dtype = d.dtype;
    out->shape = layout->shape.empty() ? nullptr : layout->shape.data();
    out->strides = layout->strides.empty() ? nullptr : layout->strides.data();
    out->byte_offset = d.byte_offset;
    return 0;
  } catch (const Napi::Error& e) {
    ThrowOn(caller, s->env, e);
    return -1;
  } catch (...) {
    ThrowMessageOn(caller, "memory-view: unexpected failure while describing a tensor");
    return -1;
  }
}

int ApiToObject(DLManagedTensorVersioned* tensor, void** out_py_object) {
  auto* out = reinterpret_cast<DLPackNodeObject*>(out_py_object);
  EnvState* s = CurrentState();
  napi_env caller = out == nullptr ? nullptr : out->env;
  if (s == nullptr || tensor == nullptr || out == nullptr) {
    if (tensor != nullptr && tensor->deleter != nullptr) tensor->deleter(tensor);  // its ownership was given to us
    ThrowMessageOn(caller, "memory-view exchange API: no tensor, no output, or called off the JS thread");
    return -1;
  }
  Napi::Env env(s->env);
  try {
    Napi::Object fields = DescribeImport(env, s, tensor, false);
    napi_value arg = fields;
    napi_value view = CallJs(s, s->make_view, 1, &arg);
    if (view == nullptr) {  // makeView gave the tensor back before it threw
      MoveExceptionTo(s->env, caller);
      return -1;
    }
    out->value = view;
    return 0;
  } catch (const Napi::Error& e) {
    ThrowOn(caller, s->env, e);
    return -1;
  }
}

int ApiCurrentWorkStream(DLDeviceType, int32_t, void** out_current_stream) {
  // memory-view owns no stream; NULL is the legacy default stream for CUDA.
  if (out_current_stream != nullptr) *out_current_stream = nullptr;
  return 0;
}

const DLPackExchangeAPI g_api = {
    {{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION}, nullptr},
    ApiAllocator,
    ApiFromObject,
    ApiToObject,
    ApiDLTensorFromObject,
    ApiCurrentWorkStream,
};

// ---- functions for src/native ------------------------------------------------------

EnvState* State(const Napi::CallbackInfo& info) {
  return static_cast<EnvState*>(info.Data());
}

// setCallbacks(describe, makeView)
Napi::Value SetCallbacks(const Napi::CallbackInfo& info) {
  EnvState* s = State(info);
  s->describe = Napi::Persistent(info[0].As<Napi::Function>());
  s->make_view = Napi::Persistent(info[1].As<Napi::Function>());
  return info.Env().Undefined();
}

// exportTensor(description, legacy) -> External slot
Napi::Value ExportTensor(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  EnvState* s = State(info);
  bool legacy = info[1].ToBoolean().Value();
  ExportCtx* ctx = MakeExport(env, s, ReadDescription(env, info[0]));
  void* tensor = legacy ? static_cast<void*>(&ctx->legacy) : static_cast<void*>(&ctx->versioned);
  return MakeSlot(env, s, tensor, legacy);
}

// importTensor(slot External, legacy) -> fields | { versionMismatch } | null (slot already taken)
Napi::Value ImportTensor(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsExternal()) Fail(env, "expected an External that holds a DLPack tensor slot");
  bool legacy = info[1].ToBoolean().Value();
  napi_value value = info[0];
  if (HasTag(env, value, kSlotVersionedTag) || HasTag(env, value, kSlotLegacyTag)) {
    bool slot_legacy = HasTag(env, value, kSlotLegacyTag);
    if (slot_legacy != legacy) {
      Fail(env, slot_legacy ? "the External holds a legacy DLManagedTensor; pass { legacy: true }"
                            : "the External holds a DLManagedTensorVersioned; it cannot be read as legacy");
    }
  } else if (HasTag(env, value, kForeignSlotTag)) {
    // another addon's slot, taken before: read as a slot again (it is empty now, or refilled by its owner)
  } else if (const char* kind = OurKind(env, value)) {
    Fail(env, std::string("the External is ") + kind + ", not a DLPack tensor slot");
  } else if (napi_type_tag_object(env, value, &kForeignSlotTag) != napi_ok) {
    // Another addon tagged this External as its own kind: it is not a slot.
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (pending) {
      napi_value ignored;
      napi_get_and_clear_last_exception(env, &ignored);
    }
    Fail(env, "the External is type-tagged by another addon as its own kind: it is not a DLPack tensor slot");
  }
  void** slot = static_cast<void**>(info[0].As<Napi::External<void>>().Data());
  if (slot == nullptr || *slot == nullptr) return env.Null();
  void* tensor = *slot;
  *slot = nullptr;  // taken: the slot's finalizer will not call the deleter
  return DescribeImport(env, State(info), tensor, legacy);
}

// release(handle): the deleter of an import, now (exactly once)
Napi::Value Release(const Napi::CallbackInfo& info) {
  if (!info[0].IsExternal() || !HasTag(info.Env(), info[0], kImportTag)) Fail(info.Env(), "release takes the handle of an imported tensor");
  auto* rec = info[0].As<Napi::External<ImportRec>>().Data();
  ReleaseImport(info.Env(), rec);
  return info.Env().Undefined();
}

// The table of an exchange API External, checked: ours by its tag; another
// addon's table must lie in a loaded library's image (tables are static, as
// DLPack asks), and so must each function it offers. Another kind of our
// Externals, or an address in the heap (a tensor, a parameter buffer), is refused.
const DLPackExchangeAPI* CheckedTable(Napi::Env env, const Napi::Value& v) {
  if (!v.IsExternal()) Fail(env, "Symbol.for('dlpack.exchange_api') must return an External to a DLPackExchangeAPI table");
  if (HasTag(env, v, kApiTag)) return &g_api;
  if (const char* kind = OurKind(env, v))
    Fail(env, std::string("Symbol.for('dlpack.exchange_api') returned ") + kind + ", not an exchange API table");
  auto* api = static_cast<const DLPackExchangeAPI*>(v.As<Napi::External<void>>().Data());
  if (api == nullptr) Fail(env, "the exchange API External is NULL");
  if (!InLoadedImage(api)) Fail(env, "the exchange API External does not point into a loaded library: it is not a DLPackExchangeAPI table");
  return api;
}

const DLPackExchangeAPI* ApiOf(Napi::Env env, const Napi::Value& v) {
  const DLPackExchangeAPI* api = CheckedTable(env, v);
  // Walk to a table of our major version, as the header's prev_api allows (a bounded walk of checked tables).
  const DLPackExchangeAPIHeader* h = &api->header;
  for (int hops = 0; h != nullptr && h->version.major != DLPACK_MAJOR_VERSION; hops++) {
    h = h->prev_api;
    if (hops > 16 || (h != nullptr && !InLoadedImage(h))) Fail(env, "the exchange API table's prev_api chain is not a chain of tables");
  }
  if (h == nullptr) return nullptr;
  auto* table = reinterpret_cast<const DLPackExchangeAPI*>(h);
  if (table != &g_api) {
    const void* fns[] = {reinterpret_cast<const void*>(table->managed_tensor_allocator),
                         reinterpret_cast<const void*>(table->managed_tensor_from_py_object_no_sync),
                         reinterpret_cast<const void*>(table->managed_tensor_to_py_object_no_sync),
                         reinterpret_cast<const void*>(table->dltensor_from_py_object_no_sync),
                         reinterpret_cast<const void*>(table->current_work_stream)};
    for (const void* fn : fns) {
      if (fn != nullptr && !InLoadedImage(fn)) Fail(env, "the exchange API table holds a function pointer outside every loaded library");
    }
  }
  return table;
}

// exchangeApiVersion(External) -> [major, minor] of the table's head
Napi::Value ExchangeApiVersion(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const DLPackExchangeAPI* api = CheckedTable(env, info[0]);
  Napi::Array out = Napi::Array::New(env, 2);
  out.Set(0u, Napi::Number::New(env, api->header.version.major));
  out.Set(1u, Napi::Number::New(env, api->header.version.minor));
  return out;
}

// fromExchangeApi(obj, External) -> fields | null (no table of major 1)
Napi::Value FromExchangeApi(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const DLPackExchangeAPI* api = ApiOf(env, info[1]);
  if (api == nullptr) return env.Null();
  if (api->managed_tensor_from_py_object_no_sync == nullptr)
    throw Napi::Error::New(env, "the exchange API has no managed_tensor_from_py_object_no_sync");
  DLManagedTensorVersioned* tensor = nullptr;
  DLPackNodeObject obj{env, info[0]};
  int rc = api->managed_tensor_from_py_object_no_sync(&obj, &tensor);
  if (rc != 0 || tensor == nullptr) {
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (pending) return env.Undefined();  // the producer's own error propagates
    throw Napi::Error::New(
        env, "the object's exchange API failed to export it (managed_tensor_from_py_object_no_sync returned " + std::to_string(rc) + ")");
  }
  return DescribeImport(env, State(info), tensor, false);
}

// currentWorkStream(External, deviceType, deviceId) -> bigint
Napi::Value CurrentWorkStream(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const DLPackExchangeAPI* api = ApiOf(env, info[0]);
  if (api == nullptr || api->current_work_stream == nullptr)
    throw Napi::Error::New(env, "the exchange API has no current_work_stream of major version 1");
  void* stream = nullptr;
  int rc = api->current_work_stream(static_cast<DLDeviceType>(info[1].As<Napi::Number>().Int32Value()),
                                    info[2].As<Napi::Number>().Int32Value(), &stream);
  if (rc != 0) throw Napi::Error::New(env, "current_work_stream failed (" + std::to_string(rc) + ")");
  return Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(stream)));
}

// counts() -> { exports, slots, imports }: what is alive, for tests
Napi::Value Counts(const Napi::CallbackInfo& info) {
  EnvState* s = State(info);
  Napi::Object out = Napi::Object::New(info.Env());
  long exports;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    exports = s->live_exports;
  }
  out.Set("exports", Napi::Number::New(info.Env(), static_cast<double>(exports)));
  out.Set("slots", Napi::Number::New(info.Env(), static_cast<double>(s->slots.size())));
  out.Set("imports", Napi::Number::New(info.Env(), static_cast<double>(s->imports.size())));
  return out;
}

void CallJsDeleteExport(napi_env env, napi_value, void*, void* data) {
  auto* ctx = static_cast<ExportCtx*>(data);
  if (env == nullptr) {
    delete ctx;  // the function is being torn down
    return;
  }
  FreeExportOnJsThread(env, ctx);
}

// At exit: every tensor still owned here gets its deleter, once.
void Cleanup(void* arg) {
  auto* s = static_cast<EnvState*>(arg);
  std::vector<Slot*> slots(s->slots.begin(), s->slots.end());
  for (Slot* slot : slots) {
    void* tensor = slot->tensor;
    slot->tensor = nullptr;
    CallTensorDeleter(tensor, slot->legacy);
  }
  s->slots.clear();
  std::vector<ImportRec*> imports(s->imports.begin(), s->imports.end());
  for (ImportRec* r : imports) ReleaseImport(nullptr, r);
  s->imports.clear();
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_live_envs.erase(s);
  }
  if (s->tsfn != nullptr) napi_release_threadsafe_function(s->tsfn, napi_tsfn_abort);
  if (t_state == s) t_state = nullptr;
  s->describe.Reset();
  s->make_view.Reset();
  // `s` itself is left: finalizers that run after this see it is no longer live.
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* s = new EnvState();
  s->env = env;
  s->thread = std::this_thread::get_id();
  napi_value name = Napi::String::New(env, "memory-view DLPack deleter");
  napi_create_threadsafe_function(env, nullptr, nullptr, name, 0, 1, nullptr, nullptr, nullptr, CallJsDeleteExport, &s->tsfn);
  napi_unref_threadsafe_function(env, s->tsfn);  // must not keep the process alive
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_live_envs.insert(s);
  }
  t_state = s;
  napi_add_env_cleanup_hook(env, Cleanup, s);

  auto fn = [&](const char* n, Napi::Function::Callback cb) { exports.Set(n, Napi::Function::New(env, cb, n, s)); };
  fn("setCallbacks", SetCallbacks);
  fn("exportTensor", ExportTensor);
  fn("importTensor", ImportTensor);
  fn("release", Release);
  fn("fromExchangeApi", FromExchangeApi);
  fn("exchangeApiVersion", ExchangeApiVersion);
  fn("currentWorkStream", CurrentWorkStream);
  fn("counts", Counts);
  Napi::External<void> api = Napi::External<void>::New(env, const_cast<DLPackExchangeAPI*>(&g_api));
  Tag(env, api, kApiTag);
  exports.Set("exchangeApi", api);
  exports.Set("dlpackVersion", Napi::Number::New(env, DLPACK_MAJOR_VERSION * 100 + DLPACK_MINOR_VERSION));
  return exports;
}

}  // namespace

NODE_API_MODULE(memory_view_dlpack, Init)
